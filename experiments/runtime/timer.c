/*
 * timer.c - per-worker deadline heap for coro_sleep_ns.
 *
 * Each worker owns a binary min-heap of (deadline, coroutine); only that
 * worker touches it, so there is no lock.  A million sleepers cost a million
 * heap inserts and pops (O(log n) each, n = sleepers alive at once), and the
 * kernel sees ONE timeout per wait: the backend's poll is given the nearest
 * deadline (io_uring_submit_and_wait_timeout / epoll_pwait2), never one SQE
 * per sleeper.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "coro-internal.h"

uint64_t
coro_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

int
coro_timer_add (struct coro_timers *t, uint64_t deadline, struct coro *c)
{
  if (t->n == t->cap)
    {
      size_t cap = t->cap ? t->cap * 2 : 1024;
      struct coro_timer *h = realloc (t->heap, cap * sizeof *h);
      if (!h)
        return -1;
      t->heap = h;
      t->cap = cap;
    }
  size_t i = t->n++;
  while (i > 0)
    {
      size_t parent = (i - 1) / 2;
      if (t->heap[parent].deadline <= deadline)
        break;
      t->heap[i] = t->heap[parent];
      i = parent;
    }
  t->heap[i] = (struct coro_timer){ deadline, c };
  return 0;
}

static struct coro *
pop_min (struct coro_timers *t)
{
  struct coro *c = t->heap[0].c;
  struct coro_timer last = t->heap[--t->n];
  size_t i = 0;
  for (;;)
    {
      size_t l = 2 * i + 1, m = i;
      if (l >= t->n)
        break;
      m = l;
      if (l + 1 < t->n && t->heap[l + 1].deadline < t->heap[l].deadline)
        m = l + 1;
      if (last.deadline <= t->heap[m].deadline)
        break;
      t->heap[i] = t->heap[m];
      i = m;
    }
  if (t->n)
    t->heap[i] = last;
  return c;
}

int
coro_timers_run (struct coro_worker *w, uint64_t now)
{
  struct coro_timers *t = &w->timers;
  int n = 0;
  while (t->n && t->heap[0].deadline <= now)
    {
      coro_ready (pop_min (t));
      n++;
    }
  return n;
}

int64_t
coro_timers_next (struct coro_timers *t, uint64_t now)
{
  if (!t->n)
    return -1;
  return t->heap[0].deadline <= now ? 0 : (int64_t) (t->heap[0].deadline - now);
}

void
coro_timers_free (struct coro_timers *t)
{
  free (t->heap);
  t->heap = NULL;
  t->n = t->cap = 0;
}
