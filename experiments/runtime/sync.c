/*
 * sync.c - coroutine-aware mutex, wait group and channel.
 *
 * Each object has a tiny spin lock (struct coro_lock) guarding its state for a
 * few instructions, and intrusive wait queues of parked coroutines (via
 * c->next, so waiting allocates nothing).  A waiter appends itself and parks
 * with coro_park(self, &lock): the lock is released only after its context is
 * saved (sched.c, invariant 2), so a waker that takes the lock and readies it
 * can never resume a half-saved coroutine.  Waiters never spin.
 * Mutex and channel hand over directly to the woken waiter (ownership or
 * value), so a wake-up cannot be lost or stolen by a newcomer.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coro-internal.h"

/* ---- mutex ------------------------------------------------------------------ */

int
coro_mutex_trylock (struct coro_mutex *m)
{
  int zero = 0;
  return __atomic_compare_exchange_n (&m->locked, &zero, 1, false, __ATOMIC_ACQUIRE,
                                      __ATOMIC_RELAXED) ? 0 : -1;
}

void
coro_mutex_lock (struct coro_mutex *m)
{
  if (coro_mutex_trylock (m) == 0)
    return;
  struct coro *self = coro_self ();
  coro_lock (&m->lk);
  if (coro_mutex_trylock (m) == 0)
    {
      coro_unlock (&m->lk);
      return;
    }
  coro_waitq_push (&m->waiters, self);
  coro_park (self, &m->lk, "mutex");
  /* unlock handed the mutex to us: m->locked stayed 1 */
}

void
coro_mutex_unlock (struct coro_mutex *m)
{
  coro_lock (&m->lk);
  struct coro *next = coro_waitq_pop (&m->waiters);
  if (!next)
    __atomic_store_n (&m->locked, 0, __ATOMIC_RELEASE);
  coro_unlock (&m->lk);
  if (next)
    coro_ready (next);
}

/* ---- wait group -------------------------------------------------------------- */

void
coro_wg_add (struct coro_wg *wg, long n)
{
  __atomic_fetch_add (&wg->count, n, __ATOMIC_SEQ_CST);
}

void
coro_wg_done (struct coro_wg *wg)
{
  if (__atomic_sub_fetch (&wg->count, 1, __ATOMIC_SEQ_CST) != 0)
    return;
  coro_lock (&wg->lk);
  struct coro_waitq q = wg->waiters;
  wg->waiters.head = wg->waiters.tail = NULL;
  wg->nwaiters = 0;
  __atomic_fetch_add (&wg->seq, 1, __ATOMIC_SEQ_CST);
  coro_unlock (&wg->lk);
  struct coro *c;
  while ((c = coro_waitq_pop (&q)))
    coro_ready (c);
  syscall (SYS_futex, &wg->seq, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

void
coro_wg_wait (struct coro_wg *wg)
{
  struct coro *self = coro_self ();
  if (!self)
    {
      for (;;)
        {
          uint32_t seq = __atomic_load_n (&wg->seq, __ATOMIC_SEQ_CST);
          if (__atomic_load_n (&wg->count, __ATOMIC_SEQ_CST) == 0)
            return;
          syscall (SYS_futex, &wg->seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
        }
    }
  if (__atomic_load_n (&wg->count, __ATOMIC_SEQ_CST) == 0)
    return;
  coro_lock (&wg->lk);
  if (__atomic_load_n (&wg->count, __ATOMIC_SEQ_CST) == 0)
    {
      coro_unlock (&wg->lk);
      return;
    }
  /* At the head, not the tail: all waiters are released together, so their
     order does not matter, and linking behind the last waiter meant writing
     its struct coro - often a line the other worker just wrote - while
     holding the lock every waiter needs (1M parkers queued on this lock) */
  self->next = wg->waiters.head;
  wg->waiters.head = self;
  if (!wg->waiters.tail)
    wg->waiters.tail = self;
  __atomic_store_n (&wg->nwaiters, wg->nwaiters + 1, __ATOMIC_RELAXED);
  coro_park (self, &wg->lk, "waitgroup");
}

long
coro_wg_nwaiters (struct coro_wg *wg)
{
  return __atomic_load_n (&wg->nwaiters, __ATOMIC_RELAXED);
}

/* ---- channel ------------------------------------------------------------------ */

struct coro_chan
{
  struct coro_lock lk;
  bool closed;
  size_t cap, n, head;
  struct coro_waitq sendq, recvq;
  void *buf[];
};

struct coro_chan *
coro_chan_new (size_t cap)
{
  struct coro_chan *ch = calloc (1, sizeof *ch + cap * sizeof (void *));
  if (ch)
    ch->cap = cap;
  return ch;
}

void
coro_chan_free (struct coro_chan *ch)
{
  free (ch);
}

int
coro_chan_send (struct coro_chan *ch, void *v)
{
  struct coro *self = coro_self ();
  coro_lock (&ch->lk);
  if (ch->closed)
    {
      coro_unlock (&ch->lk);
      coro_errno_set (EPIPE);
      return -1;
    }
  struct coro *r = coro_waitq_pop (&ch->recvq);
  if (r)
    {
      r->xfer = v;
      r->xfer_ok = 1;
      coro_unlock (&ch->lk);
      coro_ready (r);
      return 0;
    }
  if (ch->n < ch->cap)
    {
      ch->buf[(ch->head + ch->n++) % ch->cap] = v;
      coro_unlock (&ch->lk);
      return 0;
    }
  self->xfer = v;
  self->xfer_ok = 0;
  coro_waitq_push (&ch->sendq, self);
  coro_park (self, &ch->lk, "chan send");
  if (self->xfer_ok)
    return 0;
  coro_errno_set (EPIPE);
  return -1;
}

int
coro_chan_recv (struct coro_chan *ch, void **v)
{
  struct coro *self = coro_self ();
  coro_lock (&ch->lk);
  struct coro *s = NULL;
  if (ch->n > 0)
    {
      *v = ch->buf[ch->head];
      ch->head = (ch->head + 1) % ch->cap;
      ch->n--;
      if ((s = coro_waitq_pop (&ch->sendq)))
        ch->buf[(ch->head + ch->n++) % ch->cap] = s->xfer;
    }
  else if ((s = coro_waitq_pop (&ch->sendq)))
    *v = s->xfer;
  else if (ch->closed)
    {
      coro_unlock (&ch->lk);
      coro_errno_set (EPIPE);
      return -1;
    }
  else
    {
      self->xfer_ok = 0;
      coro_waitq_push (&ch->recvq, self);
      coro_park (self, &ch->lk, "chan recv");
      if (!self->xfer_ok)
        {
          coro_errno_set (EPIPE);
          return -1;
        }
      *v = self->xfer;
      return 0;
    }
  if (s)
    s->xfer_ok = 1;
  coro_unlock (&ch->lk);
  if (s)
    coro_ready (s);
  return 0;
}

void
coro_chan_close (struct coro_chan *ch)
{
  coro_lock (&ch->lk);
  ch->closed = true;
  struct coro_waitq r = ch->recvq, s = ch->sendq;
  ch->recvq.head = ch->recvq.tail = ch->sendq.head = ch->sendq.tail = NULL;
  coro_unlock (&ch->lk);
  struct coro *c;
  while ((c = coro_waitq_pop (&r)))
    coro_ready (c);
  while ((c = coro_waitq_pop (&s)))
    coro_ready (c);
}
