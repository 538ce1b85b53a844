/*
 * timer.c - per-worker deadlines for coro_sleep_ns.
 *
 * Each worker owns its timers; only that worker touches them, so there is no
 * lock.  Two structures hold them:
 *   - a FIFO for deadlines that arrive in non-decreasing order (the common
 *     case: many coroutines sleeping the same duration), O(1) to add and pop;
 *   - a binary min-heap for the rest, O(log n).
 * A new deadline goes to the FIFO when it is not earlier than the FIFO's last
 * one, else to the heap; the next due timer is the earlier of the two fronts.
 * (A million 1 ms sleepers would otherwise cost a million heap pops, each ~20
 * levels of cache misses.)  The kernel sees ONE timeout per wait: the
 * backend's poll is given the nearest deadline (io_uring_submit_and_wait_
 * timeout / epoll_pwait2), never one SQE per sleeper.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coro-internal.h"

uint64_t
coro_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int
fifo_push (struct coro_timers *t, uint64_t deadline, struct coro *c)
{
  if (t->tail == t->fcap)
    {
      size_t live = t->tail - t->head;
      if (t->head > 0 && live <= t->fcap / 2)
        {
          /* Slide the live part down rather than grow. */
          memmove (t->fifo, t->fifo + t->head, live * sizeof *t->fifo);
          t->head = 0;
          t->tail = live;
        }
      else
        {
          size_t cap = t->fcap ? t->fcap * 2 : 1024;
          struct coro_timer *f = realloc (t->fifo, cap * sizeof *f);
          if (!f)
            return -1;
          t->fifo = f;
          t->fcap = cap;
        }
    }
  t->fifo[t->tail++] = (struct coro_timer){ deadline, c };
  return 0;
}

int
coro_timer_add (struct coro_timers *t, uint64_t deadline, struct coro *c)
{
  if (t->head == t->tail || deadline >= t->fifo[t->tail - 1].deadline)
    return fifo_push (t, deadline, c);
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
  for (;;)
    {
      int from_fifo = t->head < t->tail && t->fifo[t->head].deadline <= now
                      && (!t->n || t->fifo[t->head].deadline <= t->heap[0].deadline);
      if (from_fifo)
        {
          /* the coroutines a few places on are readied next: their struct
             coro (cold after the sleep) loads while these are readied */
          if (t->head + 16 < t->tail)
            __builtin_prefetch (t->fifo[t->head + 16].c, 1);
          coro_ready (t->fifo[t->head++].c);
        }
      else if (t->n && t->heap[0].deadline <= now)
        coro_ready (pop_min (t));
      else
        break;
      n++;
    }
  if (t->head == t->tail)
    t->head = t->tail = 0;
  return n;
}

int64_t
coro_timers_next (struct coro_timers *t, uint64_t now)
{
  uint64_t d;
  if (!t->n && t->head == t->tail)
    return -1;
  d = t->n ? t->heap[0].deadline : UINT64_MAX;
  if (t->head < t->tail && t->fifo[t->head].deadline < d)
    d = t->fifo[t->head].deadline;
  return d <= now ? 0 : (int64_t) (d - now);
}

void
coro_timers_free (struct coro_timers *t)
{
  free (t->heap);
  free (t->fifo);
  t->heap = t->fifo = NULL;
  t->n = t->cap = t->head = t->tail = t->fcap = 0;
}
