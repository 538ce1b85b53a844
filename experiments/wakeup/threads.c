/*
 * threads.c - wakeup variants condvar, eventfd and pipe (wakeup.h).
 *
 * One round, n times:
 *   1. the waiter sets `armed` (futex word) and calls epoll_wait(timeout);
 *   2. the signaler, woken by `armed`, sleeps WAKEUP_GAP_NS, takes t0,
 *      signals (cond_signal under the mutex / eventfd write / pipe write),
 *      and when that call has returned stores the round's number in `sent`;
 *   3. the waiter, back from epoll_wait at t1: an event means it was woken
 *      (`woken`); no event although this round's signal had been sent means
 *      the signal did not wake it and the timeout did (`missed`); no event
 *      and no signal yet is an empty timeout and it sleeps again.  Latency
 *      t1 - t0 counts in both cases;
 *   4. the waiter consumes the signal, bumps `round` (futex) and re-arms.
 * The epoll set always holds the eventfd and the pipe's read end, so
 * `condvar` sleeps in the same kind of set: only nobody writes to it.
 */
#include "wakeup.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

enum mode { M_CONDVAR, M_EVENTFD, M_PIPE };

struct wk
{
  enum mode mode;
  long n;
  int timeout_ms;
  int epfd, efd, pfd[2];
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int cond; /* the condition, under mu (condvar) */
  _Atomic long sent; /* number (1-based) of the last round whose signal call returned */
  _Atomic uint64_t t0;
  uint32_t armed, round; /* futex words */
  uint64_t *lat;
  long woken, missed, empty_timeouts;
};

static void
consume (struct wk *w)
{
  uint64_t v;
  char c;
  if (w->mode == M_CONDVAR)
    {
      pthread_mutex_lock (&w->mu);
      w->cond = 0;
      pthread_mutex_unlock (&w->mu);
    }
  else if (w->mode == M_EVENTFD)
    (void) !read (w->efd, &v, sizeof v);
  else
    (void) !read (w->pfd[0], &c, 1);
}

static void *
waiter (void *arg)
{
  struct wk *w = arg;
  struct epoll_event ev[4];

  for (long i = 0; i < w->n; i++)
    {
      for (;;)
        {
          __atomic_store_n (&w->armed, 1, __ATOMIC_SEQ_CST);
          wl_futex_wake (&w->armed, 1);
          int nev = epoll_wait (w->epfd, ev, 4, w->timeout_ms);
          uint64_t t1 = wl_now_ns ();
          if (nev <= 0 && w->sent != i + 1)
            {
              w->empty_timeouts += nev == 0;
              continue;
            }
          /* the signaler is still blocked until `round` moves: t0 is stable */
          w->lat[i] = t1 - w->t0;
          if (nev > 0)
            w->woken++;
          else
            w->missed++;
          break;
        }
      __atomic_store_n (&w->armed, 0, __ATOMIC_SEQ_CST);
      consume (w);
      __atomic_add_fetch (&w->round, 1, __ATOMIC_SEQ_CST);
      wl_futex_wake (&w->round, 1);
    }
  return NULL;
}

static void
signal_once (struct wk *w, long round)
{
  uint64_t one = 1;
  w->t0 = wl_now_ns ();
  switch (w->mode)
    {
    case M_CONDVAR:
      pthread_mutex_lock (&w->mu);
      w->cond = 1;
      pthread_cond_signal (&w->cv);
      pthread_mutex_unlock (&w->mu);
      break;
    case M_EVENTFD: (void) !write (w->efd, &one, sizeof one); break;
    case M_PIPE: (void) !write (w->pfd[1], "x", 1); break;
    }
  w->sent = round;
}

int
wakeup_threads (const struct wl_args *a, struct wl_report *r)
{
  struct wk w = { .n = a->n, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
  struct epoll_event ev = { .events = EPOLLIN };
  pthread_t th;
  long to = wl_opt_long (a, "timeout_ms", 1);

  if (to < 1 || to > 10000)
    {
      fprintf (stderr, "wl-wakeup: option `--opt timeout_ms`: %ld is out of range 1..10000\n", to);
      exit (2);
    }
  w.timeout_ms = (int) to;
  w.mode = !strcmp (a->variant, "condvar") ? M_CONDVAR : !strcmp (a->variant, "eventfd") ? M_EVENTFD : M_PIPE;
  w.lat = calloc ((size_t) a->n, sizeof *w.lat);
  w.epfd = epoll_create1 (EPOLL_CLOEXEC);
  w.efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (!w.lat || w.epfd < 0 || w.efd < 0 || pipe2 (w.pfd, O_NONBLOCK | O_CLOEXEC) < 0)
    return wl_report_error (r, "setting up: out of memory or descriptors");
  epoll_ctl (w.epfd, EPOLL_CTL_ADD, w.efd, &ev);
  epoll_ctl (w.epfd, EPOLL_CTL_ADD, w.pfd[0], &ev);
  if (pthread_create (&th, NULL, waiter, &w) != 0)
    return wl_report_error (r, "pthread_create failed");
  uint64_t t_start = wl_now_ns ();
  for (long i = 0; i < a->n; i++)
    {
      while (__atomic_load_n (&w.armed, __ATOMIC_SEQ_CST) == 0)
        wl_futex_wait (&w.armed, 0);
      struct timespec gap = { 0, WAKEUP_GAP_NS };
      nanosleep (&gap, NULL);
      signal_once (&w, i + 1);
      uint32_t rd;
      while ((rd = __atomic_load_n (&w.round, __ATOMIC_SEQ_CST)) == (uint32_t) i)
        wl_futex_wait (&w.round, rd);
    }
  double wall = (double) (wl_now_ns () - t_start) / 1e9;
  pthread_join (th, NULL);
  wl_report_num (r, "wall_s", wall);
  wl_report_int (r, "ops", a->n);
  wl_report_num (r, "ops_per_s", (double) a->n / wall);
  wl_report_int (r, "woken", w.woken);
  wl_report_int (r, "missed", w.missed);
  wl_report_int (r, "empty_timeouts", w.empty_timeouts);
  wl_report_int (r, "epoll_timeout_ms", w.timeout_ms);
  wl_report_int (r, "gap_ns", WAKEUP_GAP_NS);
  wl_report_latencies (r, w.lat, (size_t) a->n);
  free (w.lat);
  return wl_report_ok (r);
}
