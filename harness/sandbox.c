/*
 * sandbox.c - one point's whole life: cgroup, namespaces, seccomp, sampling,
 * reaping, classification, cleanup (the steps are listed in sandbox.h).
 *
 * Processes and pipes (the clone's side, init and workload up to exec, is
 * in sandbox-child.c):
 *   harness --clone(new pid/mount/ipc/uts[/user] ns)--> child = init (pid 1 inside),
 *     which makes its network namespace while the harness makes the point's
 *     cgroup, joins the cgroup, sets up, then
 *     --fork--> workload (pid 2 inside), which execs the command.
 *   A pid 1 drops the signals it has no handler for that come from its own
 *   namespace (kill -SEGV $$, abort()), so the command is not pid 1: init
 *   forwards SIGTERM/SIGINT/SIGHUP/SIGUSR1/SIGUSR2 to it, reaps orphans and
 *   exits when the workload ends.
 *     `go` socket   harness -> init: first the point's cgroup, as open fds
 *                   (SCM_RIGHTS) of the files init writes "0" into to move
 *                   itself there; then one byte = "go on" (init is in the
 *                   cgroup; the uid/gid maps of a user namespace are written), then
 *                   the seccomp program (seccomp-bpf.h), compiled here while
 *                   init sets up its namespaces.  EOF instead means the
 *                   harness died: init exits.
 *     `fail` pipe   init/workload -> harness, close-on-exec (init closes its
 *                   end after the fork): EOF = exec succeeded; a record
 *                   {errno, message} = a setup step failed.
 *     `report` pipe workload -> harness: its host pid (before exec);
 *                   init -> harness: the workload's wait status, which is
 *                   what the point is classified by.  Without it (init itself
 *                   SIGKILLed: timeout, oom) init's status is used.
 *   Init sets PR_SET_PDEATHSIG(SIGKILL): if the harness is SIGKILLed init
 *   dies, and with it (pid 1) its whole pid namespace; the cgroups the
 *   harness leaves are removed by the next harness (cgroup.c).
 *
 * Waiting: a pidfd of init and the harness's signalfd (signals.h) are polled
 * with the sampling period as the timeout; each wake-up samples
 * /proc/<pid>/status of every process in the cgroup but init (a copy of the
 * harness) and the cgroup's memory, and checks the deadline.  A deadline
 * passed or a signal taken kills the cgroup and init (stop_point); the loop
 * goes on until the pidfd says init is gone.  No cleanup runs in a signal
 * handler: there is none.  Reaping is wait4 on init (rusage of init and of the
 * descendants it reaped: the workload and its orphans).
 *
 * Seccomp: the filter is built from the profile in the harness, its
 * includes/excludes `caps` judged against the profile's capability set, and
 * compiled to BPF here; the workload only loads the program, as its last
 * step before execve.  A
 * process killed by a seccomp KILL action leaves an audit record (type=1326):
 * the harness reads them from the audit multicast group (netlink, read-only,
 * no rate limit) and, failing that, from /dev/kmsg where the kernel prints
 * them when no audit daemon runs - rate-limited there (printk ratelimit: 10
 * per 5 s).  Every process of the sandbox killed so (a child, a strace, not
 * only the top command) is listed in the JSON's `seccomp.kills`, told apart
 * from other sandboxes' by the audit session init opens (seccomp-kills.h).
 * Without the top command's record its status is still `seccomp`, with
 * "syscall unknown".
 *
 * --seccomp-log (spec->seccomp_log) cannot use SCMP_ACT_LOG for the same
 * reason (a command makes thousands of syscalls; the log keeps 10).  It uses
 * a user-notification filter instead: every syscall of the sandbox stops
 * until the harness has recorded its number and answered "continue"
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  Nothing is denied in that mode.  The
 * listener fd is taken from the workload (its pid from the report pipe) with
 * pidfd_getfd while it waits on its first notified syscall; syscalls before the workload's execve are
 * the harness's own and are not recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <seccomp.h>

#include "caps.h"
#include "cpuset.h"
#include "ns.h"
#include "sample.h"
#include "sandbox.h"
#include "seccomp-kills.h"
#include "sandbox-child.h"
#include "seccomp-bpf.h"
#include "seccomp-cache.h"
#include "userns.h"
#include "seccomp-profile.h"
#include "signals.h"
#include "tune.h"
#include "utils.h"

#define CHILD_STACK (256 * 1024)

static void
result_init (struct lab_sandbox_result *res)
{
  memset (res, 0, sizeof *res);
  res->exit_code = -1;
  res->rss_peak = res->vss_peak = res->swap_peak = -1;
  res->max_rss_bytes = -1;
  res->cg_mem_peak_sampled = -1;
  res->seccomp_nr = -1;
  int64_t *f = (int64_t *) &res->cg;
  for (size_t i = 0; i < sizeof res->cg / sizeof (int64_t); i++)
    f[i] = -1;
  memcpy (&res->cg_at_peak, &res->cg, sizeof res->cg);
}

/* ---- --seccomp-log: user notifications ------------------------------------ */

static scmp_filter_ctx
notify_filter (lab_error_t *err)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_NOTIFY);
  if (ctx == NULL)
    lab_error (err, EINVAL, "seccomp: cannot create a notify filter");
  return ctx;
}

static int
notify_grab (pid_t pid, int pidfd)
{
  char dir[64], path[320], link[128];
  snprintf (dir, sizeof dir, "/proc/%d/fd", (int) pid);
  DIR *d = opendir (dir);
  if (d == NULL)
    return -1;
  struct dirent *de;
  int fd = -1;
  while (fd < 0 && (de = readdir (d)) != NULL)
    {
      snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
      ssize_t n = readlink (path, link, sizeof link - 1);
      if (n <= 0)
        continue;
      link[n] = '\0';
      if (strcmp (link, "anon_inode:seccomp notify") == 0)
        fd = (int) syscall (SYS_pidfd_getfd, pidfd, atoi (de->d_name), 0);
    }
  closedir (d);
  return fd;
}

static void
notify_handle (int fd, struct lab_sandbox_result *res, int *seen_exec)
{
  struct seccomp_notif *req = NULL;
  struct seccomp_notif_resp *resp = NULL;
  if (seccomp_notify_alloc (&req, &resp) < 0)
    return;
  if (seccomp_notify_receive (fd, req) == 0)
    {
      int nr = req->data.nr;
      if (!*seen_exec && nr == __NR_execve)
        *seen_exec = 1;
      if (*seen_exec && nr >= 0 && nr < LAB_SYSCALLS_MAX)
        {
          res->syscalls_used[nr] = 1;
          res->syscalls_arch = req->data.arch;
        }
      resp->id = req->id;
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      seccomp_notify_respond (fd, resp); /* ENOENT: the task is gone */
    }
  seccomp_notify_free (req, resp);
}

/* ---- sampling -------------------------------------------------------------- */

static void (*observer) (const struct lab_sandbox_live *live, void *arg);
static void *observer_arg;

void
lab_sandbox_set_observer (void (*fn) (const struct lab_sandbox_live *live, void *arg), void *arg)
{
  observer = fn;
  observer_arg = arg;
}

/* The processes of the cgroup but `init` (a copy of the harness: its RSS is
   the harness's, not the workload's). */
static void
sample (struct lab_cgroup *cg, pid_t init, pid_t workload, struct lab_sandbox_result *res, FILE *series, double t0)
{
  pid_t pids[4096];
  int n = 0, kept = 0;
  /* Any hierarchy lists the same processes; the first is the memory one. */
  n = lab_cgroup_procs (cg, pids, (int) ARRAY_SIZE (pids));
  for (int i = 0; i < n; i++)
    if (pids[i] != init)
      pids[kept++] = pids[i];
  n = kept;
  if (n <= 0 && workload > 0)
    {
      pids[0] = workload;
      n = 1;
    }
  struct lab_sample s;
  lab_sample_pids (pids, n, &s);
  if (s.n > 0)
    {
      int64_t rss = s.rss_hwm > s.rss ? s.rss_hwm : s.rss, vss = s.vss_hwm > s.vss ? s.vss_hwm : s.vss;
      if (rss > res->rss_peak)
        res->rss_peak = rss;
      if (vss > res->vss_peak)
        res->vss_peak = vss;
      if (s.swap > res->swap_peak)
        res->swap_peak = s.swap;
    }
  int64_t m = lab_cgroup_mem_current (cg);
  if (series)
    {
      /* One row per sample: time since release, the workload's processes'
         RSS, VSS and swap (summed), the cgroup's memory; empty = unreadable. */
      fprintf (series, "%.6f,", lab_now () - t0);
      if (s.n > 0)
        fprintf (series, "%" PRId64 ",%" PRId64 ",%" PRId64 ",", s.rss, s.vss, s.swap);
      else
        fprintf (series, ",,,");
      if (m >= 0)
        fprintf (series, "%" PRId64, m);
      lab_swap_sample_cols (series, cg); /* ,cgroup_swap_bytes,host_swap_used_bytes (tune.h) */
      fputc ('\n', series);
    }
  if (m > res->cg_mem_peak_sampled)
    {
      res->cg_mem_peak_sampled = m;
      /* memory.stat at the largest sampled size: the kernel part (stacks,
         page tables) while the workload ran, not after it exited. */
      lab_error_t e = NULL;
      if (lab_cgroup_read_stats (cg, &res->cg_at_peak, &e) < 0)
        lab_error_release (&e);
    }
  res->n_samples++;
  if (observer)
    {
      struct lab_sandbox_live live = { lab_now () - t0, s.n > 0 ? s.rss : -1, m };
      observer (&live, observer_arg);
    }
}

/* ---- classification --------------------------------------------------------- */

void
lab_sandbox_classify (int wstatus, int timed_out, struct lab_sandbox_result *res)
{
  if (WIFEXITED (wstatus))
    {
      res->exit_code = WEXITSTATUS (wstatus);
      res->status = LAB_ST_OK;
      if (timed_out)
        {
          res->status = LAB_ST_TIMEOUT;
          snprintf (res->detail, sizeof res->detail, "timed out; exited with code %d", res->exit_code);
        }
      else if (res->exit_code != 0 && res->cg.oom_kill > 0)
        {
          /* A process of the workload was OOM-killed and the workload failed. */
          res->status = LAB_ST_OOM;
          snprintf (res->detail, sizeof res->detail,
                    "exited with code %d after %" PRId64 " oom kill(s) in its cgroup", res->exit_code,
                    res->cg.oom_kill);
        }
      return;
    }
  int sig = WTERMSIG (wstatus);
  res->term_signal = sig;
  const char *sname = sigabbrev_np (sig);
  if (timed_out)
    {
      res->status = LAB_ST_TIMEOUT;
      snprintf (res->detail, sizeof res->detail, "killed after the timeout");
    }
  else if (sig == SIGSYS)
    {
      res->status = LAB_ST_SECCOMP;
      if (res->seccomp_nr >= 0)
        snprintf (res->detail, sizeof res->detail, "killed by seccomp on syscall `%s` (%d)",
                  res->seccomp_name[0] ? res->seccomp_name : "?", res->seccomp_nr);
      else
        snprintf (res->detail, sizeof res->detail,
                  "killed by SIGSYS (seccomp); syscall unknown (no audit record in the kernel log)");
    }
  else if (sig == SIGKILL && res->cg.oom_kill > 0)
    {
      res->status = LAB_ST_OOM;
      snprintf (res->detail, sizeof res->detail, "killed by the oom killer (cgroup oom_kill=%" PRId64 ", limit %s)",
                res->cg.oom_kill, "memory.max");
    }
  else
    {
      res->status = LAB_ST_CRASHED;
      snprintf (res->detail, sizeof res->detail, "killed by signal SIG%s (%d)", sname ? sname : "?", sig);
    }
}

/* ---- the lifecycle ---------------------------------------------------------- */

static long
read_pid_max (void)
{
  long v = -1;
  FILE *f = fopen ("/proc/sys/kernel/pid_max", "re");
  if (f)
    {
      if (fscanf (f, "%ld", &v) != 1)
        v = -1;
      fclose (f);
    }
  return v;
}

static char *const default_env[] = { (char *) "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                     (char *) "HOME=/", (char *) "LANG=C", NULL };

struct run
{
  const struct lab_sandbox_spec *spec;
  struct lab_sandbox_result *res;
  struct lab_cgroup *cg;
  scmp_filter_ctx filter;  /* --seccomp-log: the notify filter */
  struct lab_seccomp_entry *scmp; /* the enforced filter (cached, not ours to free) */
  pid_t pid;              /* the sandbox's init (pid 1 inside) */
  pid_t wpid;             /* the workload (pid 2 inside), from the report pipe; 0 = not yet */
  int wstatus, have_wstatus; /* the workload's wait status, as init reported it */
  int last_pid;           /* the pid namespace's last pid, as init reported it; -1 unknown */
  int pidfd, kmsg, audit, go[2], fail[2], report[2], notify_fd, wpidfd, proc_fd;
  unsigned ses;           /* the sandbox's audit session (seccomp-kills.h) */
  FILE *series;           /* spec->samples_path, open while the point runs */
  struct lab_harness_pin pin; /* the harness off the workload's CPUs */
  void *stack;
  struct lab_rlimit *rlimits;
};

static void
run_release (struct run *r)
{
  if (r->pid > 0)
    {
      kill (r->pid, SIGKILL);
      waitpid (r->pid, NULL, 0);
    }
  int *fds[] = { &r->pidfd, &r->kmsg, &r->audit, &r->go[0], &r->go[1], &r->fail[0], &r->fail[1],
                 &r->report[0], &r->report[1], &r->notify_fd, &r->wpidfd, &r->proc_fd };
  for (size_t i = 0; i < ARRAY_SIZE (fds); i++)
    if (*fds[i] >= 0)
      close (take_fd (*fds[i]));
  if (r->cg)
    {
      lab_error_t e = NULL;
      if (lab_cgroup_destroy (r->cg, &e) < 0)
        {
          lab_warn ("%s", e->msg);
          lab_error_release (&e);
        }
    }
  if (r->filter)
    seccomp_release (r->filter);
  if (r->stack)
    munmap (r->stack, CHILD_STACK);
  if (r->series)
    fclose (r->series);
  lab_cpuset_unpin_harness (&r->pin);
  free (r->rlimits);
}

static const char *
rlimit_name (int r)
{
  static const struct { int r; const char *n; } names[] = {
    { RLIMIT_AS, "RLIMIT_AS" }, { RLIMIT_CORE, "RLIMIT_CORE" }, { RLIMIT_CPU, "RLIMIT_CPU" },
    { RLIMIT_DATA, "RLIMIT_DATA" }, { RLIMIT_FSIZE, "RLIMIT_FSIZE" }, { RLIMIT_LOCKS, "RLIMIT_LOCKS" },
    { RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK" }, { RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE" },
    { RLIMIT_NICE, "RLIMIT_NICE" }, { RLIMIT_NOFILE, "RLIMIT_NOFILE" }, { RLIMIT_NPROC, "RLIMIT_NPROC" },
    { RLIMIT_RSS, "RLIMIT_RSS" }, { RLIMIT_RTPRIO, "RLIMIT_RTPRIO" }, { RLIMIT_RTTIME, "RLIMIT_RTTIME" },
    { RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING" }, { RLIMIT_STACK, "RLIMIT_STACK" },
  };
  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    if (names[i].r == r)
      return names[i].n;
  return "RLIMIT_?";
}

static int
has_cap_sys_resource (void)
{
  return (lab_caps_effective () >> CAP_SYS_RESOURCE) & 1;
}

/* The profile's rlimits, each hard limit clamped to the harness's own when
   the harness may not raise it (no CAP_SYS_RESOURCE, e.g. in a container):
   the point runs, and the result says what it got. */
static void
clamp_rlimits (const struct lab_profile *p, struct lab_rlimit *out, struct lab_sandbox_result *res)
{
  /* In a user namespace the hard limits cannot be raised either. */
  int cap = has_cap_sys_resource () && !p->sec.user;
  for (int i = 0; i < p->n_rlimits; i++)
    {
      struct rlimit cur;
      out[i] = p->rlimits[i];
      if (cap || getrlimit (out[i].resource, &cur) < 0 || out[i].hard <= cur.rlim_max)
        continue;
      out[i].hard = cur.rlim_max;
      if (out[i].soft > out[i].hard)
        out[i].soft = out[i].hard;
      size_t l = strlen (res->warnings);
      snprintf (res->warnings + l, sizeof res->warnings - l,
                "%s%s clamped to the harness's hard limit %llu (no CAP_SYS_RESOURCE)",
                l ? "; " : "", rlimit_name (out[i].resource), (unsigned long long) cur.rlim_max);
    }
}

/* Compiles the filter (while the clone sets itself up) and hands the
   program to init on the `go` socket; a header with 0 instructions when
   there is no filter to enforce. */
static int
send_filter (struct run *r, lab_error_t *err)
{
  static const struct lab_bpf none = { { 0, 0 }, NULL };
  const struct lab_bpf *b = &none;
  if (r->scmp && (b = lab_seccomp_entry_bpf (r->scmp, err)) == NULL)
    return -1;
  size_t len = b->h.n_insns * sizeof *b->insns;
  int ok = send (r->go[1], &b->h, sizeof b->h, MSG_NOSIGNAL) == (ssize_t) sizeof b->h
           && (len == 0 || send (r->go[1], b->insns, len, MSG_NOSIGNAL) == (ssize_t) len);
  /* Not ok: init is gone; its reason comes on the fail pipe. */
  (void) ok;
  return 0;
}

/* Reads the fail pipe until a setup step's report or EOF (exec done, or
   the child died): -1 with that report, else -1 with `what` (errno_)
   when given, else 0. */
static int
child_failed (struct run *r, int errno_, const char *what, lab_error_t *err)
{
  struct fail_msg m;
  ssize_t n;
  do
    n = read (r->fail[0], &m, sizeof m);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t) sizeof m)
    {
      lab_error (err, 0, "%s", m.msg);
      (*err)->status = m.errno_;
      return -1;
    }
  return what ? lab_error (err, errno_, "%s", what) : 0;
}

/* The point's cgroup, made while the clone starts (and makes its network
   namespace); init gets the files it moves itself in through (cheaper than
   moving it from here, see lab_cgroup_self_attach_fds) on the `go` socket. */
static int
make_cgroup (struct run *r, lab_error_t *err)
{
  const struct lab_sandbox_spec *spec = r->spec;
  int fds[LAB_SANDBOX_MAX_CG_FDS];
  if (lab_cgroup_create (spec->name, &spec->profile->limits, &r->cg, err) < 0)
    return -1;
  snprintf (r->res->cgroup_path, sizeof r->res->cgroup_path, "%s", lab_cgroup_path (r->cg));
  snprintf (r->res->cgroup_backend, sizeof r->res->cgroup_backend, "%s", lab_cgroup_backend (r->cg));
  int n = lab_cgroup_self_attach_fds (r->cg, fds, LAB_SANDBOX_MAX_CG_FDS, err);
  if (n < 0)
    return -1;
  int sent = lab_sandbox_send_fds (r->go[1], fds, n);
  int e = errno;
  for (int i = 0; i < n; i++)
    close (fds[i]);
  return sent < 0 ? child_failed (r, e, "handing the cgroup to the child", err) : 0;
}

static int
start_child (struct run *r, lab_error_t *err)
{
  const struct lab_sandbox_spec *spec = r->spec;
  const struct lab_profile *p = spec->profile;
  struct child_args a = {
    .spec = spec,
    .ns = { .clone_flags = p->clone_flags, .hostname = p->hostname ? p->hostname : "lab",
            .rlimits = r->rlimits, .n_rlimits = p->n_rlimits,
            .stdout_fd = spec->stdout_fd, .stderr_fd = spec->stderr_fd,
            .host_pid_max = read_pid_max (), .sec = &p->sec, .command_dir = NULL },
    .filter = spec->seccomp_log ? r->filter : NULL, .notify = spec->seccomp_log,
    .envp = spec->envp ? spec->envp : default_env,
  };
  /* A command under /tmp stays reachable over the private /tmp: its
     directory is bound read-only at the same path. */
  char cmd_dir[4096];
  if ((p->clone_flags & CLONE_NEWNS) && p->sec.tmp_size > 0 && strncmp (spec->argv[0], "/tmp/", 5) == 0)
    {
      snprintf (cmd_dir, sizeof cmd_dir, "%s", spec->argv[0]);
      *strrchr (cmd_dir, '/') = '\0';
      if (strcmp (cmd_dir, "/tmp") != 0)
        a.ns.command_dir = cmd_dir;
    }
  /* So is a working directory under /tmp (a clone there, a test's scratch
     directory): a command that changes into "$PWD" by name (e.g. a pyenv
     shim) finds it. */
  char cwd[4096];
  if ((p->clone_flags & CLONE_NEWNS) && p->sec.tmp_size > 0 && getcwd (cwd, sizeof cwd)
      && strncmp (cwd, "/tmp/", 5) == 0)
    a.ns.cwd_dir = cwd;
  r->proc_fd = open ("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (r->proc_fd < 0)
    return lab_error (err, errno, "opening /proc");
  r->rlimits = calloc ((size_t) p->n_rlimits + 1, sizeof *r->rlimits);
  if (r->rlimits == NULL)
    return lab_error (err, errno, "allocating rlimits");
  clamp_rlimits (p, r->rlimits, r->res);
  a.ns.rlimits = r->rlimits;
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, r->go) < 0 || pipe2 (r->fail, O_CLOEXEC) < 0
      || pipe2 (r->report, O_CLOEXEC) < 0 || fcntl (r->report[0], F_SETFL, O_NONBLOCK) < 0)
    return lab_error (err, errno, "pipe");
  a.go_fd = r->go[0];
  a.go_wr_fd = r->go[1];
  a.fail_fd = r->fail[1];
  a.report_fd = r->report[1];
  a.proc_fd = r->proc_fd;
  r->stack = mmap (NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (r->stack == MAP_FAILED)
    {
      r->stack = NULL;
      return lab_error (err, errno, "allocating the child's stack");
    }
  /* The network namespace is made by init itself (its ~1 ms then runs
     beside the cgroups made here, see sandbox-child.c), the cgroup
     namespace once init is in its cgroup. */
  int flags = (p->clone_flags & ~(CLONE_NEWCGROUP | CLONE_NEWNET)) | (p->sec.user ? CLONE_NEWUSER : 0) | SIGCHLD;
  r->pid = clone (lab_sandbox_child_main, (char *) r->stack + CHILD_STACK, flags, &a);
  int clone_errno = errno;
  if (r->pid < 0)
    {
      r->pid = 0;
      return lab_error (err, clone_errno, "clone");
    }
  /* Init's first step is joining the point's cpuset, which moves it onto
     the workload's CPUs: placed there now, before it first runs, it is not
     migrated then (a wait for those CPUs of up to several ms).  Best effort:
     the cpuset decides either way. */
  cpu_set_t wl;
  if (p->limits.cpuset_cpus && lab_cpulist_parse (p->limits.cpuset_cpus, &wl) == 0)
    sched_setaffinity (r->pid, sizeof wl, &wl);
  /* The sampler keeps off the CPUs the workload is pinned to, where any is
     left; pinned only now, so the clone is not born with the pin. */
  lab_cpuset_pin_harness (p->limits.cpuset_cpus, &r->pin);
  snprintf (r->res->harness_cpus, sizeof r->res->harness_cpus, "%s", r->pin.cpus);
  close (take_fd (r->go[0]));
  close (take_fd (r->fail[1]));
  close (take_fd (r->report[1]));
  close (take_fd (r->proc_fd));
  r->pidfd = (int) syscall (SYS_pidfd_open, r->pid, 0);
  if (r->pidfd < 0)
    return lab_error (err, errno, "pidfd_open");
  if (make_cgroup (r, err) < 0)
    return -1;
  if (p->sec.user && lab_userns_write_maps (r->pid, err) < 0)
    return -1;
  /* Init has moved itself into the cgroup and waits for this. */
  r->res->wall_s = lab_now ();
  if (send (r->go[1], "g", 1, MSG_NOSIGNAL) != 1)
    return child_failed (r, errno, "releasing the child", err);
  if (send_filter (r, err) < 0)
    return -1;
  close (take_fd (r->go[1]));
  if (spec->seccomp_log)
    return 0; /* the child blocks on its first notification: read the fail pipe later */
  return child_failed (r, 0, NULL, err);
}

/* Takes what the workload and init have written on the report pipe so far. */
static void
report_read (struct run *r)
{
  struct report_msg m;
  while (read (r->report[0], &m, sizeof m) == (ssize_t) sizeof m)
    if (m.kind == REPORT_PID && m.value > 0)
      {
        r->res->host_pid = r->wpid = m.value;
        r->ses = lab_seccomp_kills_session (r->wpid);
      }
    else if (m.kind == REPORT_LAST_PID)
      r->last_pid = m.value;
    else if (m.kind == REPORT_STATUS)
      {
        r->wstatus = m.value;
        r->have_wstatus = 1;
      }
}

/* Ends the point at once: the whole cgroup and init are killed (a timeout,
   or a signal to the harness); the wait loop then reaps init. */
static void
stop_point (struct run *r)
{
  lab_error_t e = NULL;
  if (lab_cgroup_kill (r->cg, &e) < 0)
    lab_error_release (&e);
  kill (r->pid, SIGKILL);
}

static int
wait_child (struct run *r, int *wstatus, int *timed_out, lab_error_t *err)
{
  const struct lab_sandbox_spec *spec = r->spec;
  double timeout = spec->timeout_s > 0 ? spec->timeout_s : spec->profile->timeout_s;
  int period = spec->sample_ms > 0 ? spec->sample_ms : 20;
  double deadline = timeout > 0 ? r->res->wall_s + timeout : 0;
  int seen_exec = 0, failed_setup = 0, stopped = 0;
  double next_sample = 0, t_release = r->res->wall_s;
  struct fail_msg m;

  for (;;)
    {
      /* A signal to the harness (signals.h) is an event of this loop: the
         point is killed here and reaped below, as after a timeout. */
      if (!stopped && lab_signals_caught ())
        {
          stopped = 1;
          stop_point (r);
        }
      if (spec->seccomp_log && r->notify_fd < 0)
        {
          /* The filter is the workload's: grab the listener from it. */
          if (r->wpid <= 0)
            report_read (r);
          if (r->wpid > 0 && r->wpidfd < 0)
            r->wpidfd = (int) syscall (SYS_pidfd_open, r->wpid, 0);
          if (r->wpidfd >= 0)
            r->notify_fd = notify_grab (r->wpid, r->wpidfd);
          if (r->notify_fd < 0)
            {
              /* Not loaded yet, or setup failed before the filter. */
              struct pollfd pf[3] = { { r->pidfd, POLLIN, 0 }, { r->fail[0], POLLIN, 0 },
                                      { lab_signals_fd (), POLLIN, 0 } };
              if (poll (pf, 3, 1) > 0 && (pf[1].revents & POLLIN)
                  && read (r->fail[0], &m, sizeof m) == (ssize_t) sizeof m)
                failed_setup = 1;
              if (pf[2].revents & POLLIN)
                lab_signals_poll ();
              if (failed_setup || (pf[0].revents & POLLIN))
                break;
              continue;
            }
        }
      double now = lab_now ();
      if (now >= next_sample)
        {
          if (r->wpid <= 0)
            report_read (r);
          sample (r->cg, r->pid, r->wpid, r->res, r->series, t_release);
          if (spec->companion && lab_companion_step (spec->companion, r->wpid) < 0 && !*timed_out)
            {
              *timed_out = 1; /* the workload never got ready: the companion's ready timeout */
              stop_point (r);
            }
          /* Ramp up: 1, 2, 4 ... ms after release, then every `period`, so
             a workload that lives a few ms is still seen after its exec. */
          int step = r->res->n_samples < 16 ? 1 << (r->res->n_samples / 2) : period;
          next_sample = now + (step < period ? step : period) / 1000.0;
        }
      if (deadline > 0 && now >= deadline && !*timed_out)
        {
          *timed_out = 1;
          stop_point (r);
        }
      int wait_ms = (int) ((next_sample - now) * 1000) + 1;
      if (deadline > 0 && !*timed_out && (deadline - now) * 1000 < wait_ms)
        wait_ms = (int) ((deadline - now) * 1000) + 1;
      /* Negative fds (no notify listener, no signalfd) are skipped by poll. */
      struct pollfd pf[3] = { { r->pidfd, POLLIN, 0 }, { r->notify_fd, POLLIN, 0 }, { lab_signals_fd (), POLLIN, 0 } };
      int n = poll (pf, 3, wait_ms);
      if (n < 0 && errno != EINTR)
        return lab_error (err, errno, "poll");
      if (n > 0 && (pf[2].revents & POLLIN))
        lab_signals_poll ();
      if (n > 0 && r->notify_fd >= 0 && (pf[1].revents & POLLIN))
        {
          /* Answer every pending notification before sampling again. */
          notify_handle (r->notify_fd, r->res, &seen_exec);
          continue;
        }
      if (n > 0 && (pf[0].revents & POLLIN))
        break;
    }
  struct rusage ru;
  pid_t w;
  do
    w = wait4 (r->pid, wstatus, 0, &ru);
  while (w < 0 && errno == EINTR);
  if (w < 0)
    return lab_error (err, errno, "wait4");
  r->pid = 0;
  r->res->wall_s = lab_now () - r->res->wall_s;
  /* Init reported how the workload ended, unless init itself was killed
     (timeout, oom group kill, the harness's signal): then its own status. */
  report_read (r);
  if (r->have_wstatus)
    *wstatus = r->wstatus;
  /* seccomp-log mode reads the setup report only now (the child is gone, so
     this does not block). */
  if (spec->seccomp_log && !failed_setup && read (r->fail[0], &m, sizeof m) == (ssize_t) sizeof m)
    failed_setup = 1;
  if (failed_setup)
    {
      lab_error (err, 0, "%s", m.msg);
      (*err)->status = m.errno_;
      return -1;
    }
  r->res->cpu_user_s = (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6;
  r->res->cpu_sys_s = (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec / 1e6;
  r->res->vol_ctxsw = ru.ru_nvcsw;
  r->res->invol_ctxsw = ru.ru_nivcsw;
  r->res->max_rss_bytes = (int64_t) ru.ru_maxrss * 1024;
  return 0;
}

static int
run_point (struct run *r, lab_error_t *err)
{
  const struct lab_sandbox_spec *spec = r->spec;
  const char *scmp = spec->seccomp_override ? spec->seccomp_override : spec->profile->seccomp_path;
  if (spec->seccomp_log)
    {
      if ((r->filter = notify_filter (err)) == NULL)
        return -1;
    }
  else if (scmp && (r->scmp = lab_seccomp_cached (scmp, spec->profile->sec.caps, 1, err)) == NULL)
    return -1;
  if (r->scmp)
    {
      r->audit = lab_seccomp_kills_open_audit ();
      r->kmsg = lab_seccomp_kills_open_kmsg ();
    }
  if (spec->samples_path)
    {
      if ((r->series = fopen (spec->samples_path, "we")) == NULL)
        return lab_error (err, errno, "creating `%s`", spec->samples_path);
      fprintf (r->series, "t_s,rss_bytes,vss_bytes,swap_bytes,cgroup_mem_bytes,cgroup_swap_bytes,host_swap_used_bytes\n");
    }
  if (start_child (r, err) < 0)
    return -1;
  int wstatus = 0, timed_out = 0;
  if (wait_child (r, &wstatus, &timed_out, err) < 0)
    return -1;
  if (lab_cgroup_read_stats (r->cg, &r->res->cg, err) < 0)
    return -1;
  /* Every seccomp kill inside, the top command's included (its syscall). */
  if (r->audit >= 0 || r->kmsg >= 0)
    lab_seccomp_kills_collect (r->audit, r->kmsg, r->ses, (pid_t) r->res->host_pid,
                               WIFSIGNALED (wstatus) && WTERMSIG (wstatus) == SIGSYS,
                               !(r->have_wstatus && r->last_pid >= 1 && r->last_pid <= 2), r->res);
  r->res->kills_attributed = r->ses != LAB_AUDIT_SES_NONE;
  lab_sandbox_classify (wstatus, timed_out, r->res);
  if (lab_signals_caught ())
    return lab_error (err, 0, "interrupted by signal SIG%s", sigabbrev_np (lab_signals_caught ()));
  return 0;
}

int
lab_sandbox_run (const struct lab_sandbox_spec *spec, struct lab_sandbox_result *res, lab_error_t *err)
{
  struct run r = { .spec = spec, .res = res, .pidfd = -1, .kmsg = -1, .audit = -1, .go = { -1, -1 },
                   .fail = { -1, -1 }, .report = { -1, -1 }, .notify_fd = -1, .wpidfd = -1, .proc_fd = -1, .ses = LAB_AUDIT_SES_NONE,
                   .last_pid = -1 };
  result_init (res);
  if (spec->argv == NULL || spec->argv[0] == NULL || spec->argv[0][0] != '/')
    return lab_error (err, EINVAL, "sandbox `%s`: the command must be an absolute path", spec->name);
  if (lab_signals_poll ())
    return lab_error (err, 0, "sandbox `%s`: interrupted by signal SIG%s before it started", spec->name,
                      sigabbrev_np (lab_signals_caught ()));
  int ret = run_point (&r, err);
  run_release (&r);
  if (ret < 0)
    lab_error_prepend (err, "sandbox `%s`", spec->name);
  return ret;
}

/* ---- JSON ------------------------------------------------------------------- */

static void
add_i64 (struct json_object *o, const char *k, int64_t v)
{
  json_object_object_add (o, k, v >= 0 ? json_object_new_int64 (v) : NULL);
}

static struct json_object *
cg_stats_json (const struct lab_cgroup_stats *st)
{
  struct json_object *o = json_object_new_object ();
  add_i64 (o, "mem_current_bytes", st->mem_current);
  add_i64 (o, "mem_peak_bytes", st->mem_peak);
  add_i64 (o, "swap_current_bytes", st->swap_current);
  add_i64 (o, "swap_peak_bytes", st->swap_peak);
  add_i64 (o, "anon_bytes", st->anon);
  add_i64 (o, "file_bytes", st->file);
  add_i64 (o, "kernel_stack_bytes", st->kernel_stack);
  add_i64 (o, "pagetables_bytes", st->pagetables);
  add_i64 (o, "sock_bytes", st->sock);
  add_i64 (o, "slab_bytes", st->slab);
  add_i64 (o, "kernel_bytes", st->kernel);
  add_i64 (o, "oom_kill", st->oom_kill);
  add_i64 (o, "memory_high_events", st->high_events);
  add_i64 (o, "cpu_usage_us", st->cpu_usage_us);
  add_i64 (o, "nr_throttled", st->nr_throttled);
  add_i64 (o, "throttled_us", st->throttled_us);
  add_i64 (o, "pids_current", st->pids_current);
  add_i64 (o, "pids_peak", st->pids_peak);
  return o;
}

static struct json_object *
namespaces_json (int flags)
{
  static const struct { int flag; const char *name; } ns[] = {
    { CLONE_NEWPID, "pid" }, { CLONE_NEWNS, "mount" }, { CLONE_NEWNET, "network" },
    { CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" }, { CLONE_NEWCGROUP, "cgroup" },
    { CLONE_NEWUSER, "user" },
  };
  struct json_object *a = json_object_new_array ();
  for (size_t i = 0; i < ARRAY_SIZE (ns); i++)
    if (flags & ns[i].flag)
      json_object_array_add (a, json_object_new_string (ns[i].name));
  return a;
}

struct json_object *
lab_sandbox_result_to_json (const struct lab_sandbox_spec *spec, const struct lab_sandbox_result *res)
{
  struct json_object *o = json_object_new_object ();
  const struct lab_profile *p = spec->profile;
  json_object_object_add (o, "status", json_object_new_string (lab_status_name (res->status)));
  json_object_object_add (o, "detail", json_object_new_string (res->detail));
  json_object_object_add (o, "exit_code", res->exit_code >= 0 ? json_object_new_int (res->exit_code) : NULL);
  const char *sig = res->term_signal ? sigabbrev_np (res->term_signal) : NULL;
  char sbuf[32];
  snprintf (sbuf, sizeof sbuf, "SIG%s", sig ? sig : "?");
  json_object_object_add (o, "signal", res->term_signal ? json_object_new_string (sbuf) : NULL);
  /* The whole point (release to reap) and the reaped init's rusage (init,
     setup and workload): not the workload's measured region. */
  json_object_object_add (o, "point_wall_s", json_object_new_double (res->wall_s));
  json_object_object_add (o, "cpu_user_s", json_object_new_double (res->cpu_user_s));
  json_object_object_add (o, "cpu_sys_s", json_object_new_double (res->cpu_sys_s));
  add_i64 (o, "vol_ctxsw", res->vol_ctxsw);
  add_i64 (o, "invol_ctxsw", res->invol_ctxsw);
  add_i64 (o, "max_rss_bytes", res->max_rss_bytes);
  add_i64 (o, "rss_peak_bytes", res->rss_peak);
  add_i64 (o, "vss_peak_bytes", res->vss_peak);
  add_i64 (o, "swap_peak_bytes", res->swap_peak);
  json_object_object_add (o, "samples", json_object_new_int (res->n_samples));
  json_object_object_add (o, "cpuset", p && p->limits.cpuset_cpus ? json_object_new_string (p->limits.cpuset_cpus) : NULL);
  json_object_object_add (o, "harness_cpus", res->harness_cpus[0] ? json_object_new_string (res->harness_cpus) : NULL);
  json_object_object_add (o, "warnings", res->warnings[0] ? json_object_new_string (res->warnings) : NULL);
  add_i64 (o, "cgroup_mem_peak_sampled_bytes", res->cg_mem_peak_sampled);
  struct json_object *cg = json_object_new_object ();
  json_object_object_add (cg, "backend", json_object_new_string (res->cgroup_backend));
  json_object_object_add (cg, "path", json_object_new_string (res->cgroup_path));
  json_object_object_add (cg, "end", cg_stats_json (&res->cg));
  json_object_object_add (cg, "at_sampled_peak", cg_stats_json (&res->cg_at_peak));
  json_object_object_add (o, "cgroup", cg);
  if (p)
    {
      json_object_object_add (o, "namespaces", namespaces_json (p->clone_flags | (p->sec.user ? CLONE_NEWUSER : 0)));
      json_object_object_add (o, "hostname", json_object_new_string (p->hostname ? p->hostname : "lab"));
    }
  struct json_object *sc = json_object_new_object ();
  const char *scmp = spec->seccomp_override ? spec->seccomp_override : (p ? p->seccomp_path : NULL);
  json_object_object_add (sc, "mode", json_object_new_string (spec->seccomp_log ? "log" : scmp ? "enforce" : "none"));
  json_object_object_add (sc, "profile", scmp && !spec->seccomp_log ? json_object_new_string (scmp) : NULL);
  if (res->status == LAB_ST_SECCOMP)
    {
      struct json_object *v = json_object_new_object ();
      json_object_object_add (v, "syscall", res->seccomp_name[0] ? json_object_new_string (res->seccomp_name) : NULL);
      json_object_object_add (v, "nr", res->seccomp_nr >= 0 ? json_object_new_int (res->seccomp_nr) : NULL);
      json_object_object_add (sc, "violation", v);
    }
  else
    json_object_object_add (sc, "violation", NULL);
  if (scmp && !spec->seccomp_log)
    {
      /* Every process seccomp killed inside (a child, a strace) - even when
         the top command lived on; `attributed` false: the top only was seen. */
      struct json_object *ka = json_object_new_array ();
      for (int i = 0; i < res->n_kills; i++)
        {
          struct json_object *k = json_object_new_object ();
          json_object_object_add (k, "pid", json_object_new_int (res->kills[i].pid));
          json_object_object_add (k, "comm", json_object_new_string (res->kills[i].comm));
          json_object_object_add (k, "syscall", res->kills[i].name[0] ? json_object_new_string (res->kills[i].name) : NULL);
          json_object_object_add (k, "nr", json_object_new_int (res->kills[i].nr));
          json_object_object_add (k, "top", json_object_new_boolean (res->kills[i].pid == res->host_pid));
          json_object_array_add (ka, k);
        }
      json_object_object_add (sc, "kills", ka);
      json_object_object_add (sc, "kills_dropped", json_object_new_int (res->kills_dropped));
      json_object_object_add (sc, "kills_attributed", json_object_new_boolean (res->kills_attributed));
    }
  if (spec->seccomp_log)
    {
      struct json_object *a = json_object_new_array ();
      for (int i = 0; i < LAB_SYSCALLS_MAX; i++)
        if (res->syscalls_used[i])
          {
            char *name = seccomp_syscall_resolve_num_arch (res->syscalls_arch, i);
            char nbuf[32];
            snprintf (nbuf, sizeof nbuf, "%d", i);
            json_object_array_add (a, json_object_new_string (name ? name : nbuf));
            free (name);
          }
      json_object_object_add (sc, "syscalls_used", a);
    }
  json_object_object_add (o, "seccomp", sc);
  return o;
}
