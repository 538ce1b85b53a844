/*
 * signals.h - the harness's signals as events of its main loop (after crun's
 * wait_for_process, which polls a signalfd beside its other fds).
 *
 * main.c ignores SIGPIPE for every command (a closed stdout is a write error,
 * EPIPE, like any other).  `lab run` and `lab sandbox`, once their input is
 * checked and just before they create anything to clean up (cgroups,
 * sandboxes), call lab_signals_init(), which blocks the signals that would
 * end the harness (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM, ...) and opens a signalfd for them.  Before that a signal ends the
 * harness at once (nothing to clean; a hang on bad input stays interruptible).
 * Nothing runs in a signal handler: the sandbox's wait loop polls
 * lab_signals_fd(), and `lab run` calls lab_signals_poll() between points.
 * The first signal taken is kept (lab_signals_caught()); the command kills and
 * reaps its point, removes its cgroups and returns 128+signal (main.c makes
 * sure of the 128+signal).
 *
 * Children that exec something else than the sandbox (gnuplot) call
 * lab_signals_child_reset() first; the sandbox's own init and workload reset
 * every disposition and mask themselves (sandbox.c).
 */
#ifndef LAB_SIGNALS_H
#define LAB_SIGNALS_H

#include "error.h"

/* Blocks the terminating signals and opens the signalfd.  Idempotent. */
int lab_signals_init (lab_error_t *err);
/* The signalfd (non-blocking, close-on-exec), or -1 before init. */
int lab_signals_fd (void);
/* Takes every pending signal off the signalfd; returns the first signal
   ever taken (0 = none). */
int lab_signals_poll (void);
/* The first signal taken so far, without reading (0 = none). */
int lab_signals_caught (void);
/* In a forked child before exec: every signal unblocked, SIGPIPE default. */
void lab_signals_child_reset (void);

#endif
