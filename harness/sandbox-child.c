/*
 * sandbox-child.c - the code that runs inside the sandbox's clone: the init
 * (pid 1 of the new pid namespace) and the workload it forks (pid 2), up to
 * the workload's execve.  The pipes and the harness's side are described in
 * sandbox.c; the namespace set-up steps are in ns.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox-child.h"
#include "seccomp-profile.h"
#include "utils.h"

static void
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
workload_main (struct child_args *a)
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
  if (a->filter)
    {
      if (a->notify)
        {
          int r = seccomp_load (a->filter);
          if (r < 0)
            {
              lab_error (&err, -r, "loading the seccomp notify filter");
              child_fail (a->fail_fd, &err);
            }
        }
      else if (lab_seccomp_apply (a->filter, &err) < 0)
        child_fail (a->fail_fd, &err);
    }
  execve (a->spec->argv[0], a->spec->argv, a->envp);
  lab_error (&err, errno, "executing `%s`", a->spec->argv[0]);
  child_fail (a->fail_fd, &err);
  _exit (127);
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
  sigset_t all;
  char c;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  /* Own session and process group: a terminal's signals to the harness's
     group do not reach the sandbox. */
  setsid ();
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL); /* taken with sigwaitinfo below */
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP)
      signal (s, SIG_DFL);
  /* Wait until the harness has put us in our cgroup. */
  if (read (a->go_fd, &c, 1) != 1)
    _exit (125);
  close (a->go_fd);
  if (lab_ns_setup_child (&a->ns, &err) < 0)
    child_fail (a->fail_fd, &err);
  /* A raw fork: no atfork handlers or libc locks in this clone of the harness. */
  pid_t w = (pid_t) syscall (SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (w < 0)
    {
      lab_error (&err, errno, "forking the workload");
      child_fail (a->fail_fd, &err);
    }
  if (w == 0)
    workload_main (a);
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
                struct report_msg m = { REPORT_STATUS, st };
                _exit (write (a->report_fd, &m, sizeof m) == (ssize_t) sizeof m ? 0 : 124);
              }
          continue;
        }
      for (size_t i = 0; i < ARRAY_SIZE (forwarded); i++)
        if (sig == forwarded[i])
          kill (w, sig);
    }
}

