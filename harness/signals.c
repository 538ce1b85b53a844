/* signals.c - see signals.h. */
#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

static int sfd = -1;
static int caught;

/* Signals whose default action ends the process and that come from outside
   (kill, a terminal, a timer): they become events.  The synchronous ones
   (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT) keep their
   default: a harness bug must still crash where it happens. */
static const int events[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
                              SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT };

int
lab_signals_init (lab_error_t *err)
{
  sigset_t set;

  if (sfd >= 0)
    return 0;
  sigemptyset (&set);
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
    sigaddset (&set, events[i]);
  if (sigprocmask (SIG_BLOCK, &set, NULL) < 0)
    return lab_error (err, errno, "blocking signals");
  sfd = signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0)
    return lab_error (err, errno, "signalfd");
  return 0;
}

int
lab_signals_fd (void)
{
  return sfd;
}

int
lab_signals_poll (void)
{
  struct signalfd_siginfo si;

  while (sfd >= 0 && read (sfd, &si, sizeof si) == (ssize_t) sizeof si)
    if (caught == 0)
      caught = (int) si.ssi_signo;
  return caught;
}

int
lab_signals_caught (void)
{
  return caught;
}

void
lab_signals_child_reset (void)
{
  sigset_t none;

  signal (SIGPIPE, SIG_DFL);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
}
