/*
 * sandbox-child.c - the code that runs inside the sandbox's clone: the init
 * (pid 1 of the new pid namespace) and the workload it forks (pid 2), up to
 * the workload's execve.  The pipes and the harness's side are described in
 * sandbox.c.
 *
 * Init, in order:
 *   0. makes its network namespace (unshare: the clone does not, so that
 *      this ~1 ms runs while the harness makes the cgroup; like the clone's
 *      namespaces it is charged to the harness's cgroup, being made before 1);
 *   1. moves itself into the point's cgroup (writes "0" into the `tasks` /
 *      `cgroup.procs` files the harness opened and sent on `go`), so all it
 *      does after counts there;
 *   2. waits for `go` from the harness (who has written the uid/gid maps when
 *      the profile asks for a user namespace); in a user namespace becomes
 *      root of it (setresuid/setresgid 0, no supplementary groups), so host
 *      files see the mapped, unprivileged id;
 *   3. namespaces and mounts (ns.c, rootfs.c), rlimits;
 *   4. drops the capabilities to the profile's set (caps.c) and makes itself
 *      non-dumpable (the workload, same uid, cannot ptrace it);
 *   5. reads the seccomp program the harness compiled meanwhile from `go`;
 *   6. forks the workload, then forwards signals and reaps; when the workload
 *      ends, reports the namespace's last pid and the workload's status.
 * The workload reports its host pid, sets up its fds, loads the program
 * (no_new_privs is set even without a filter) and execs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "sandbox-child.h"
#include "seccomp-kills.h"
#include "seccomp-profile.h"
#include "utils.h"

static void __attribute__ ((noreturn))
child_fail (int fd, lab_error_t *err)
{
  struct fail_msg m = { (*err)->status, "" };
  snprintf (m.msg, sizeof m.msg, "%s", (*err)->msg);
  if (write (fd, &m, sizeof m) < 0)
    _exit (126);
  _exit (127);
}

/* The workload (pid 2): its own session, its host pid to the harness, fds,
   the seccomp filter as the last step, exec. */
static void __attribute__ ((noreturn))
workload_main (struct child_args *a, const struct lab_bpf *bpf)
{
  lab_error_t err = NULL;
  sigset_t none;
  char buf[32];

  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  /* kill(0, sig) in the workload reaches its own process group, not init. */
  setsid ();
  /* `self` in the harness's procfs is our pid in the harness's namespace. */
  ssize_t n = readlinkat (a->proc_fd, "self", buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = '\0';
  struct report_msg m = { REPORT_PID, n > 0 ? atoi (buf) : -1 };
  if (write (a->report_fd, &m, sizeof m) != (ssize_t) sizeof m)
    {
      lab_error (&err, errno, "reporting the workload's pid");
      child_fail (a->fail_fd, &err);
    }
  if (lab_ns_setup_fds (&a->ns, &err) < 0)
    child_fail (a->fail_fd, &err);
  if (a->notify && a->filter)
    {
      int r = seccomp_load (a->filter);
      if (r < 0)
        {
          lab_error (&err, -r, "loading the seccomp notify filter");
          child_fail (a->fail_fd, &err);
        }
    }
  else if (lab_seccomp_load_bpf (bpf, &err) < 0)
    child_fail (a->fail_fd, &err);
  execve (a->spec->argv[0], a->spec->argv, a->envp);
  lab_error (&err, errno, "executing `%s`", a->spec->argv[0]);
  child_fail (a->fail_fd, &err);
}

static int
read_full (int fd, void *buf, size_t len)
{
  size_t got = 0;
  while (got < len)
    {
      ssize_t n = read (fd, (char *) buf + got, len - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      got += (size_t) n;
    }
  return 0;
}

/* Step 5: the program the harness compiled, on the `go` socket.  EOF: the
   harness died (or failed) before sending it. */
static void
read_bpf (struct child_args *a, struct lab_bpf *b)
{
  memset (b, 0, sizeof *b);
  if (read_full (a->go_fd, &b->h, sizeof b->h) < 0)
    _exit (125);
  if (b->h.n_insns == 0)
    return;
  if (b->h.n_insns > LAB_BPF_MAX_INSNS || (b->insns = malloc (b->h.n_insns * sizeof *b->insns)) == NULL
      || read_full (a->go_fd, b->insns, b->h.n_insns * sizeof *b->insns) < 0)
    _exit (125);
}

int
lab_sandbox_send_fds (int sock, const int *fds, int n)
{
  unsigned char count = (unsigned char) n;
  union
  {
    char buf[CMSG_SPACE (sizeof (int) * LAB_SANDBOX_MAX_CG_FDS)];
    struct cmsghdr align;
  } u;
  struct iovec iov = { &count, 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
  if (n < 0 || n > LAB_SANDBOX_MAX_CG_FDS)
    {
      errno = EINVAL;
      return -1;
    }
  if (n > 0)
    {
      memset (&u, 0, sizeof u);
      msg.msg_control = u.buf;
      msg.msg_controllen = CMSG_SPACE (sizeof (int) * (size_t) n);
      struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int) * (size_t) n);
      memcpy (CMSG_DATA (c), fds, sizeof (int) * (size_t) n);
    }
  return sendmsg (sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int
lab_sandbox_recv_fds (int sock, int *fds, int max)
{
  unsigned char count = 0;
  union
  {
    char buf[CMSG_SPACE (sizeof (int) * LAB_SANDBOX_MAX_CG_FDS)];
    struct cmsghdr align;
  } u;
  struct iovec iov = { &count, 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  ssize_t r;
  do
    r = recvmsg (sock, &msg, MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r != 1)
    return -1;
  int n = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR (&msg); c; c = CMSG_NXTHDR (&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        int k = (int) ((c->cmsg_len - CMSG_LEN (0)) / sizeof (int));
        for (int i = 0; i < k; i++)
          {
            int fd;
            memcpy (&fd, CMSG_DATA (c) + i * sizeof (int), sizeof fd);
            if (n < max)
              fds[n++] = fd;
            else
              close (fd);
          }
      }
  return n == count && !(msg.msg_flags & MSG_CTRUNC) ? n : -1;
}

/* Step 1: the harness's fds of the point's cgroup; EOF: it died first. */
static int
self_attach (struct child_args *a, lab_error_t *err)
{
  int fds[LAB_SANDBOX_MAX_CG_FDS];
  int n = lab_sandbox_recv_fds (a->go_fd, fds, LAB_SANDBOX_MAX_CG_FDS);
  if (n < 0)
    _exit (125);
  for (int i = 0; i < n; i++)
    {
      if (write (fds[i], "0", 1) != 1)
        return lab_error (err, errno, "moving into the point's cgroup");
      close (fds[i]);
    }
  return 0;
}

/* The last pid given out in init's pid namespace (kernel.ns_last_pid reads
   the reader's own namespace, whichever procfs it is opened in); -1 when
   unknown or when the sandbox has no pid namespace of its own. */
static int
ns_last_pid (const struct child_args *a)
{
  char buf[32];
  if (!(a->ns.clone_flags & CLONE_NEWPID))
    return -1;
  int fd = open ("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  return atoi (buf);
}

/* Step 2, in a user namespace whose maps the harness has written. */
static int
become_root (lab_error_t *err)
{
  if (setgroups (0, NULL) < 0)
    return lab_error (err, errno, "user namespace: dropping supplementary groups");
  if (setresgid (0, 0, 0) < 0 || setresuid (0, 0, 0) < 0)
    return lab_error (err, errno, "user namespace: becoming its root");
  /* A change of credentials clears the parent-death signal. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  return 0;
}

/* The sandbox's init (pid 1 of the new pid namespace).  A pid 1 ignores the
   signals it has no handler for when they come from its own namespace, so
   the workload runs as its child: init forwards SIGTERM, SIGINT, SIGHUP,
   SIGUSR1 and SIGUSR2 to it, reaps every process reparented to it, and when
   the workload ends writes its wait status on the report pipe and exits. */
int
lab_sandbox_child_main (void *arg)
{
  struct child_args *a = arg;
  static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2 };
  lab_error_t err = NULL;
  struct lab_bpf bpf;
  sigset_t all;
  char c;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  /* A harness that died before the prctl sends no signal: with this copy of
     its end of `go` closed, the read below then sees EOF instead of hanging. */
  close (a->go_wr_fd);
  /* Own session and process group: a terminal's signals to the harness's
     group do not reach the sandbox. */
  setsid ();
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL); /* taken with sigwaitinfo below */
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP)
      signal (s, SIG_DFL);
  if ((a->ns.clone_flags & CLONE_NEWNET) && unshare (CLONE_NEWNET) < 0)
    {
      lab_error (&err, errno, "making the network namespace");
      child_fail (a->fail_fd, &err);
    }
  if (self_attach (a, &err) < 0)
    child_fail (a->fail_fd, &err);
  /* Before any fork: the sandbox's own audit session (seccomp-kills.h). */
  lab_seccomp_kills_tag_self ();
  /* Wait for the harness's go (EOF: it died). */
  if (read (a->go_fd, &c, 1) != 1)
    _exit (125);
  if (a->ns.sec->user && become_root (&err) < 0)
    child_fail (a->fail_fd, &err);
  if (lab_ns_setup_child (&a->ns, &err) < 0)
    child_fail (a->fail_fd, &err);
  if (lab_caps_drop (a->ns.sec->caps, &err) < 0)
    child_fail (a->fail_fd, &err);
  prctl (PR_SET_DUMPABLE, 0);
  read_bpf (a, &bpf);
  close (a->go_fd);
  /* A raw fork: no atfork handlers or libc locks in this clone of the harness. */
  pid_t w = (pid_t) syscall (SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (w < 0)
    {
      lab_error (&err, errno, "forking the workload");
      child_fail (a->fail_fd, &err);
    }
  if (w == 0)
    workload_main (a, &bpf);
  lab_bpf_free (&bpf);
  /* Only the report pipe stays open: the fail pipe's EOF must mean exec. */
  if (syscall (SYS_close_range, 3U, (unsigned) a->report_fd - 1, 0) < 0
      || syscall (SYS_close_range, (unsigned) a->report_fd + 1, ~0U, 0) < 0)
    {
      close (a->fail_fd);
      close (a->proc_fd);
    }
  for (;;)
    {
      int sig = sigwaitinfo (&all, NULL);
      if (sig == SIGCHLD)
        {
          int st;
          pid_t p;
          while ((p = waitpid (-1, &st, WNOHANG)) > 0)
            if (p == w)
              {
                /* Whether anything but the workload ever ran: the harness
                   then knows no other process can have been killed by
                   seccomp (seccomp-kills.h). */
                struct report_msg m[2] = { { REPORT_LAST_PID, ns_last_pid (a) }, { REPORT_STATUS, st } };
                _exit (write (a->report_fd, m, sizeof m) == (ssize_t) sizeof m ? 0 : 124);
              }
          continue;
        }
      for (size_t i = 0; i < ARRAY_SIZE (forwarded); i++)
        if (sig == forwarded[i])
          kill (w, sig);
    }
}
