/*
 * wakeup.h - the wakeup experiment (claim C10): a waiter sleeps, a signaler
 * on another thread wakes it, n times; latency = from just before the
 * signaling call to the waiter running again (p50/p99/p999/max).
 *
 * Thread variants (threads.c): the waiter sleeps in epoll_wait with a
 * timeout (--opt timeout_ms, default 1).  `condvar`: the signaler sets the
 * condition under the mutex and calls pthread_cond_signal, which cannot
 * wake a thread blocked in epoll_wait: the waiter finds the condition only
 * when the timeout ends it (a missed wake-up, counted).  `eventfd`: the
 * signaler writes an eventfd registered in the epoll set.  `pipe`: writes a
 * byte into a pipe in the set.  `coro` (coro.c): a coroutine parked on a
 * channel, woken by a coroutine that may run on another worker.
 */
#ifndef LAB_WAKEUP_H
#define LAB_WAKEUP_H

#include "wl.h"

int wakeup_threads (const struct wl_args *a, struct wl_report *r);
int wakeup_coro (const struct wl_args *a, struct wl_report *r);

/* Gap between the waiter announcing that it goes to sleep and the signal,
   so that the waiter is usually asleep when the signal comes. */
#define WAKEUP_GAP_NS 50000

#endif
