/* probe.c - the sandbox probes behind claim C12, one per variant, each run
 * under the profile the catalog names for it:
 *   memory-max   (containers/small.json, memory.max 64M): touches up to
 *                1 GiB, 1 MiB at a time; the limit holds when the point ends
 *                `oom`; reaching the end reports memory_touched_bytes (the
 *                limit did not hold).
 *   clone-newns  (containers/default.json): openat(2) of a file (the profile
 *                allows it: openat_ok), then clone(CLONE_NEWNS) and
 *                unshare(CLONE_NEWNS) as root in the sandbox; the profile
 *                answers EPERM (clone_newns_errno 1).  A clone that succeeds
 *                reports clone_newns_ok 1.
 *   ptrace       (containers/default.json): ptrace(PTRACE_TRACEME); the
 *                profile kills the process (point status `seccomp`).  A call
 *                that returns reports ptrace_returned 1 and its errno.
 * The point's status and these keys are what report.md's C12 verdict reads. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp.h"

static void
probe_memory (struct wl_report *r)
{
  const size_t step = 1 << 20, max = (size_t) 1 << 30;
  size_t touched = 0;
  for (; touched < max; touched += step)
    {
      char *p = mmap (NULL, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        {
          wl_report_int (r, "mmap_errno", errno);
          break;
        }
      for (size_t i = 0; i < step; i += 4096)
        p[i] = 1;
    }
  wl_report_int (r, "memory_touched_bytes", (int64_t) touched);
}

static void
probe_clone (const char *file, struct wl_report *r)
{
  int fd = openat (AT_FDCWD, file, O_RDONLY | O_CLOEXEC);
  wl_report_int (r, "openat_ok", fd >= 0);
  if (fd >= 0)
    close (fd);
  else
    wl_report_int (r, "openat_errno", errno);
  long pid = syscall (SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
  if (pid == 0)
    _exit (0);
  wl_report_int (r, "clone_newns_ok", pid > 0);
  if (pid > 0)
    waitpid ((pid_t) pid, NULL, 0);
  else
    wl_report_int (r, "clone_newns_errno", errno);
  int u = unshare (CLONE_NEWNS);
  wl_report_int (r, "unshare_newns_ok", u == 0);
  if (u < 0)
    wl_report_int (r, "unshare_newns_errno", errno);
}

static void
probe_ptrace (struct wl_report *r)
{
  long rc = ptrace (PTRACE_TRACEME, 0, NULL, NULL);
  wl_report_int (r, "ptrace_returned", 1); /* only reached when not killed */
  if (rc < 0)
    wl_report_int (r, "ptrace_errno", errno);
}

int
seccomp_probe_sandbox (const struct wl_args *a, struct wl_report *r, const char *file)
{
  uint64_t t0;

  if (strcmp (a->variant, "memory-max") && strcmp (a->variant, "clone-newns") && strcmp (a->variant, "ptrace"))
    return 0;
  seccomp_probe_status (r);
  wl_region_begin ();
  t0 = wl_now_ns ();
  if (strcmp (a->variant, "memory-max") == 0)
    probe_memory (r);
  else if (strcmp (a->variant, "clone-newns") == 0)
    probe_clone (file, r);
  else
    probe_ptrace (r);
  wl_report_num (r, "wall_s", (double) (wl_now_ns () - t0) / 1e9);
  wl_region_end ();
  return 1;
}
