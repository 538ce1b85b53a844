/*
 * ns.c - what the sandbox child does to its namespaces before exec (called by
 * sandbox.c's child, see sandbox.h step 4): lab_ns_setup_child in the child
 * (the sandbox's init, pid 1), lab_ns_setup_fds in the workload it forks.
 * The child is cloned into new
 * pid, mount, net, ipc and uts namespaces (and a user namespace when the
 * profile says `"user": true`); the file system view is rootfs.c's; the cgroup namespace is unshared
 * here, after the parent moved the child into its cgroup, so the workload's
 * /proc/self/cgroup reads `/`.  Every step is one small function, so an error
 * names the step ("mounting /proc: ...").
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/close_range.h>

#include "ns.h"
#include "rootfs.h"
#include "utils.h"

int
lab_ns_loopback_up (lab_error_t *err)
{
  cleanup_close int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return lab_error (err, errno, "bringing `lo` up: socket");
  struct ifreq ifr;
  memset (&ifr, 0, sizeof ifr);
  snprintf (ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (ioctl (fd, SIOCGIFFLAGS, &ifr) < 0)
    return lab_error (err, errno, "bringing `lo` up: SIOCGIFFLAGS");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl (fd, SIOCSIFFLAGS, &ifr) < 0)
    return lab_error (err, errno, "bringing `lo` up: SIOCSIFFLAGS");
  return 0;
}

/* The workload's own view of its cgroup, read-only, as a container has it:
   mounted inside the new cgroup namespace, each hierarchy's root is the
   point's cgroup, so the workload reads its own limits (pids.max,
   memory.max) at /sys/fs/cgroup/...  Best effort: a hierarchy that cannot be
   mounted (e.g. co-mounted controllers) is left out. */
static void
mount_cgroup_view (int v2)
{
  static const char *const v1[] = { "memory", "pids", "cpu", "cpuacct", "cpuset" };
  const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

  if (v2)
    {
      mount ("cgroup2", "/sys/fs/cgroup", "cgroup2", ro, NULL);
      return;
    }
  if (mount ("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=755") < 0)
    return;
  for (size_t i = 0; i < ARRAY_SIZE (v1); i++)
    {
      char dir[64];
      snprintf (dir, sizeof dir, "/sys/fs/cgroup/%s", v1[i]);
      if (mkdir (dir, 0755) == 0 && mount ("cgroup", dir, "cgroup", ro, v1[i]) < 0)
        rmdir (dir);
    }
  mount (NULL, "/sys/fs/cgroup", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* Since Linux 6.14 kernel.pid_max is per pid namespace and a new one starts
   at the maximum (4194304), though pids are still allocated in every
   ancestor namespace: the host's smaller pid_max is what stops threads.  So
   that the workload reads the limit that binds it, a namespaced pid_max is set
   to the host's.  Where pid_max is not namespaced the value read equals the
   host's and nothing is written, so the host setting is never touched. */
static void
inherit_pid_max (long host_pid_max)
{
  long v = -1;
  FILE *f = fopen ("/proc/sys/kernel/pid_max", "re");

  if (f == NULL)
    return;
  if (fscanf (f, "%ld", &v) != 1)
    v = -1;
  fclose (f);
  if (v <= host_pid_max)
    return;
  f = fopen ("/proc/sys/kernel/pid_max", "we");
  if (f == NULL)
    return;
  fprintf (f, "%ld\n", host_pid_max);
  fclose (f);
}

static int
setup_mounts (int flags, long host_pid_max, const struct lab_security *sec, const char *command_dir,
              const char *cwd_dir, lab_error_t *err)
{
  int v2 = access ("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;

  if (!(flags & CLONE_NEWNS))
    return 0;
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return lab_error (err, errno, "making `/` private");
  if (sec->rootfs_readonly && lab_rootfs_readonly (err) < 0)
    return -1;
  if ((flags & CLONE_NEWPID)
      && mount ("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
    return lab_error (err, errno, "mounting /proc");
  if ((flags & CLONE_NEWPID) && host_pid_max > 0)
    inherit_pid_max (host_pid_max);
  /* A sysfs mounted in the new net namespace shows only its interfaces
     (/sys/class/net); it also hides the host's cgroup mounts. */
  if ((flags & CLONE_NEWNET)
      && mount ("sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
    return lab_error (err, errno, "mounting /sys");
  if ((flags & CLONE_NEWNET) && (flags & CLONE_NEWCGROUP))
    mount_cgroup_view (v2);
  return lab_rootfs_finish (sec, command_dir, cwd_dir, err);
}

int
lab_ns_setup_fds (const struct lab_ns_config *c, lab_error_t *err)
{
  if (c->stdout_fd >= 0 && dup2 (c->stdout_fd, 1) < 0)
    return lab_error (err, errno, "redirecting stdout");
  if (c->stderr_fd >= 0 && dup2 (c->stderr_fd, 2) < 0)
    return lab_error (err, errno, "redirecting stderr");
  /* Close-on-exec rather than close: the error pipe to the parent must stay
     open until exec succeeds. */
  if (syscall (SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    {
      for (int fd = 3; fd < 65536; fd++)
        {
          int fl = fcntl (fd, F_GETFD);
          if (fl >= 0)
            fcntl (fd, F_SETFD, fl | FD_CLOEXEC);
        }
    }
  return 0;
}

int
lab_ns_setup_child (const struct lab_ns_config *c, lab_error_t *err)
{
  if ((c->clone_flags & CLONE_NEWCGROUP) && unshare (CLONE_NEWCGROUP) < 0)
    return lab_error (err, errno, "unsharing the cgroup namespace");
  if (setup_mounts (c->clone_flags, c->host_pid_max, c->sec, c->command_dir, c->cwd_dir, err) < 0)
    return -1;
  if ((c->clone_flags & CLONE_NEWNET) && lab_ns_loopback_up (err) < 0)
    return -1;
  if ((c->clone_flags & CLONE_NEWUTS) && c->hostname
      && sethostname (c->hostname, strlen (c->hostname)) < 0)
    return lab_error (err, errno, "setting the hostname `%s`", c->hostname);
  for (int i = 0; i < c->n_rlimits; i++)
    {
      struct rlimit rl = { c->rlimits[i].soft, c->rlimits[i].hard };
      if (setrlimit (c->rlimits[i].resource, &rl) < 0)
        return lab_error (err, errno, "setting rlimit %d to %llu/%llu", c->rlimits[i].resource,
                          (unsigned long long) rl.rlim_cur, (unsigned long long) rl.rlim_max);
    }
  return 0;
}
