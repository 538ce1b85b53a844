/*
 * sched.c - the M:N scheduler: worker threads, run queues, stealing, parking.
 *
 * What it does.  `coro_S.nworkers` threads (one per CPU by default) each loop
 * in worker_main(): run timers, poll the I/O backend without blocking, take a
 * runnable coroutine, switch to it.  A coroutine runs until it parks, yields
 * or ends; then the worker switches DIRECTLY to the next coroutine of its own
 * run queue (one coro_switch, no trip through the scheduler stack), except
 * every 61st scheduling point (w->budget counts down) and for copy-stack
 * coroutines, which go back to the worker's own stack (sched_ctx) so timers,
 * I/O and the global queue are served and shared stacks can be saved.
 * The time a worker spins with nothing to run is added up in
 * coro_idle_spin_ns (coro-idle.h; two clock reads per idle episode).
 *
 * Glossary.
 *   coroutine (struct coro)  a function with its own stack (or a saved copy).
 *   worker (struct coro_worker)  an OS thread running coroutines; owns a run
 *            queue, a timer heap, an I/O ring or epoll set, an eventfd.
 *   priv     per-worker FIFO of ready coroutines that only the owner touches:
 *            push and pop are plain loads and stores.  Locked instructions
 *            cost ~16 ns each on the 2-core lab VM, more than a whole switch,
 *            so the hot path (yield, wake-up, spawn by a worker) uses priv.
 *   runq     per-worker ring of CORO_RUNQ coroutines (Go's runq), the part
 *            others may steal: only the owner pushes (at tail); owner and
 *            thieves take at head by CAS.  The owner moves half of priv into
 *            runq ("shares") at each scheduling point where some OTHER worker
 *            is spinning or idle, i.e. when someone could steal.  Shared
 *            coroutines left priv before those still in it, so the owner
 *            takes from its runq first (local_get): one FIFO across both, and
 *            timers served in deadline order stay in that order.
 *   global   coro_S.global: a locked list for coroutines readied by threads
 *            that are not workers, and for runq overflow.
 *   pinned   per-worker locked list of ready copy-stack coroutines homed on it.
 *   spinning a worker that has no work and is looking for some (stealing)
 *            before it parks; counted in coro_S.nspinning.
 *   parked   a worker blocked in its backend's poll (w->parked != 0).
 *   prev/after  the coroutine that just switched out and what to do with it
 *            (requeue, unlock its wait queue, free it); done by whoever runs
 *            next, once the switch is complete (finish_switch).
 *
 * Invariants.
 *   1. A coroutine is in at most one place: a priv list, a runq, the global
 *      or a pinned list, a wait queue, a timer heap or an I/O backend - or it
 *      is running.
 *   2. A coroutine is only made runnable by others after its context is fully
 *      saved: the release of the lock guarding its wait queue, a copy-stack
 *      save, a requeue when switching to the worker's stack, and freeing an
 *      exited one happen in finish_switch(), on the stack of the context that
 *      runs next (Go's park_m/unlockf).  So a thief never resumes a half-saved
 *      stack.  One exception, the hot path: a yield that switches directly to
 *      another coroutine puts itself into priv just before coro_switch.  Only
 *      the owner pops priv or shares it into the runq, and the owner is busy
 *      in that switch until it completes (share_maybe runs before the push).
 *   3. Only the owner touches its timer heap, ring/epoll set and caches.
 *   4. Copy-stack coroutines run only on their home worker (their saved frames
 *      hold addresses inside that worker's shared stack); they never enter a
 *      runq, so they cannot be stolen.
 *   5. Coroutines alive = spawned - exited, from per-worker counters (one writer
 *      each, no shared cache line on the hot path; live_estimate() reads all
 *      exits before all spawns, so it never reads 0 while one is alive);
 *      coro_runtime_stop waits for 0.
 *
 * Wake-up protocol (no lost wake-ups; Dekker-style, every step seq_cst):
 *   Waker, after publishing work (global push, pinned push; a priv or runq
 *   push by a worker needs no wake for correctness since that worker is awake,
 *   and share_maybe() wakes one idle worker only for parallelism):
 *     W1. atomic_thread_fence(seq_cst), then read coro_S.nidle; 0 -> done.
 *     W2. if coro_S.nspinning != 0 -> done: a spinner will see the work (S2).
 *     W3. CAS coro_S.nspinning 0 -> 1; on failure -> done (someone else woke).
 *     W4. find a worker with CAS w->parked 1 -> 2 (2 = "woken, now spinning"),
 *         decrement coro_S.nidle, write its eventfd (coro_backend_wake).
 *         If none: decrement nspinning back.
 *     A pinned push to a remote worker instead CASes its w->parked 1 -> 0
 *     directly and writes its eventfd.
 *   Sleeper (idle()):
 *     S1. if spinning: clear w->spinning, decrement coro_S.nspinning.
 *     S2. store w->parked = 1, increment coro_S.nidle.
 *     S3. re-check coro_S.nglobal, w->npinned, every runq, coro_S.stop; if
 *         any work: unpark (S5) and return to the loop.  (Others' priv lists
 *         are not checked: their owners are awake and will run them.)
 *     S4. block in be->poll(w, nearest timer); the eventfd wakes it.
 *     S5. v = exchange(w->parked, 0): v == 1 -> we woke by ourselves, decrement
 *         nidle; v == 2 -> a waker made us spinning (nspinning was counted for
 *         us); v == 0 -> a pinned push woke us.
 *   Either the waker's W1 sees nidle > 0 or the sleeper's S3 sees the work; a
 *   spinner that gives up runs S1 before S3, so W2's "a spinner will see it"
 *   holds.  A spinner that finds work decrements nspinning and, if it was the
 *   last, wakes another worker (W1-W4) for the rest (Go's resetspinning).
 *   A stale eventfd token only costs one spurious trip round the loop.
 *
 * errno and TLS.  A coroutine may resume on another thread, and GCC treats
 * __errno_location() as const, so `&errno` computed before a park may be CSE'd
 * and reused after it (libgo #256).  The runtime never touches errno or
 * thread-locals around a switch in the same function: after a switch it reaches
 * its worker through self->w (set by whoever resumed it), TLS is read by
 * coro_worker_self() (noipa, so never cached) and, once before switching, by
 * coro_yield (noinline, so the read cannot be hoisted into a caller's loop),
 * and I/O results set errno in coro_set_errno() (io.c, noipa) after resuming.
 * User code must read errno right after the call that set it.
 *
 * Rejected alternatives.
 *   - One global locked run queue: every switch contends on one lock.
 *   - Chase-Lev deque: LIFO for the owner reorders yields; the FIFO ring with
 *     CAS at head is what Go runs and is fair.
 *   - Only the stealable ring (pure Go): a CAS per pop, ~16 ns here; the
 *     private FIFO plus sharing on demand keeps the hot path free of locked
 *     instructions.  Cost: work in priv waits for its owner's next scheduling
 *     point to become stealable (a coroutine that never parks delays it).
 *   - Pure work requesting (thieves ask, owners hand over): the priv/share
 *     scheme above is half of it; keeping a stealable runq as well means work
 *     already shared can be taken while its owner runs a long coroutine.
 *   - Always switching through the scheduler stack: two switches per
 *     coroutine change; only done every 61 switches and for copy-stack.
 *   - Parking idle workers on a futex: a worker waiting for I/O or a timer must
 *     block in the backend anyway, so the wake-up is an eventfd the backend
 *     polls (futex is used only for threads outside the runtime).
 *   - One kernel timeout per sleeper: a million SQEs; a heap and one timeout.
 */
#include <errno.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coro-idle.h"
#include "coro-internal.h"

struct coro_sched coro_S;
__thread struct coro_worker *coro_tls_worker __attribute__ ((visibility ("hidden")));

enum { SPIN_ROUNDS = 64, CHECK_GLOBAL_EVERY = 61 };

__attribute__ ((noipa)) struct coro_worker *
coro_worker_self (void)
{
  return coro_tls_worker;
}

__attribute__ ((noipa)) void
coro_errno_set (int e)
{
  errno = e;
}

struct coro *
coro_self (void)
{
  struct coro_worker *w = coro_worker_self ();
  return w ? w->cur : NULL;
}

int
coro_nworkers (void)
{
  return coro_S.nworkers;
}

const char *
coro_backend_name (void)
{
  return coro_S.be ? coro_S.be->name : NULL;
}

const char *
coro_guard_name (void)
{
  return coro_guard_kind;
}


/* ---- run queue (owner: put/get; anyone: grab) --------------------------- */

static void
global_push_list (struct coro *first, struct coro *last, long n)
{
  coro_lock (&coro_S.glk);
  if (coro_S.global.tail)
    coro_S.global.tail->next = first;
  else
    coro_S.global.head = first;
  coro_S.global.tail = last;
  last->next = NULL;
  atomic_fetch_add (&coro_S.nglobal, n);
  coro_unlock (&coro_S.glk);
}

/* Runq full: move half of it plus c to the global queue. */
static bool
runq_put_slow (struct coro_worker *w, struct coro *c, uint32_t h, uint32_t t)
{
  struct coro_runq *q = &w->runq;
  uint32_t n = (t - h) / 2;
  struct coro *batch[CORO_RUNQ / 2 + 1];
  for (uint32_t i = 0; i < n; i++)
    batch[i] = __atomic_load_n (&q->slot[(h + i) % CORO_RUNQ], __ATOMIC_RELAXED);
  if (!atomic_compare_exchange_strong_explicit (&q->head, &h, h + n, memory_order_release,
                                                memory_order_relaxed))
    return false;
  batch[n] = c;
  for (uint32_t i = 0; i < n; i++)
    batch[i]->next = batch[i + 1];
  global_push_list (batch[0], c, n + 1);
  return true;
}

static void
runq_put (struct coro_worker *w, struct coro *c)
{
  struct coro_runq *q = &w->runq;
  for (;;)
    {
      uint32_t h = atomic_load_explicit (&q->head, memory_order_acquire);
      uint32_t t = atomic_load_explicit (&q->tail, memory_order_relaxed);
      if (t - h < CORO_RUNQ)
        {
          __atomic_store_n (&q->slot[t % CORO_RUNQ], c, __ATOMIC_RELAXED);
          atomic_store_explicit (&q->tail, t + 1, memory_order_release);
          return;
        }
      if (runq_put_slow (w, c, h, t))
        return;
    }
}

static struct coro *
runq_get (struct coro_worker *w)
{
  struct coro_runq *q = &w->runq;
  for (;;)
    {
      uint32_t h = atomic_load_explicit (&q->head, memory_order_acquire);
      uint32_t t = atomic_load_explicit (&q->tail, memory_order_relaxed);
      if (t == h)
        return NULL;
      struct coro *c = __atomic_load_n (&q->slot[h % CORO_RUNQ], __ATOMIC_RELAXED);
      if (atomic_compare_exchange_weak_explicit (&q->head, &h, h + 1, memory_order_release,
                                                 memory_order_relaxed))
        return c;
    }
}

static bool
runq_empty (struct coro_worker *w)
{
  return atomic_load (&w->runq.tail) == atomic_load (&w->runq.head);
}

static inline __attribute__ ((always_inline)) void
priv_push (struct coro_worker *w, struct coro *c)
{
  coro_waitq_push (&w->priv, c);
  w->npriv++;
}

/* The owner's next coroutine: its runq first, since whatever share() moved
   there left priv before anything now in priv (FIFO across both); a plain
   pop from priv when the runq is empty, the common case. */
static inline __attribute__ ((always_inline)) struct coro *
local_get (struct coro_worker *w)
{
  if (atomic_load_explicit (&w->runq.tail, memory_order_relaxed)
      != atomic_load_explicit (&w->runq.head, memory_order_relaxed))
    {
      struct coro *c = runq_get (w);
      if (c)
        return c;
    }
  struct coro *c = coro_waitq_pop (&w->priv);
  if (c)
    {
      w->npriv--;
      /* The new head runs next: start its (likely cold) struct coro and stack
         top loading now, while c runs.  With many parked coroutines each is
         a cache and TLB miss; this keeps the miss off the next pop's path. */
      __builtin_prefetch (w->priv.head);
    }
  return c;
}

/* Another worker is spinning or idle.  A spinning w does not count itself:
   sharing to its own runq only cost CASes (and, past CORO_RUNQ, pushed the
   oldest to the global queue, out of FIFO order).  Nor does w parked in its
   own blocking poll, readying what the poll reaped (idle(), S4): it runs
   them as soon as the poll returns.  Counting itself, it woke itself
   (W4 on its own parked word, an eventfd write, the wake-up's completion
   and its re-arm) at every wake-up: echo's lone coro-uring worker at 70K
   requests/s made 0.18 eventfd writes per request, one per wake-up. */
static bool
demand (struct coro_worker *w)
{
  int self_idle = atomic_load_explicit (&w->parked, memory_order_relaxed) == 1;
  return atomic_load_explicit (&coro_S.nspinning, memory_order_relaxed) > (int) w->spinning
         || atomic_load_explicit (&coro_S.nidle, memory_order_relaxed) > self_idle;
}

/* Moves half of priv (rounded up) to the stealable runq, at most what the
   runq has room for: a thief takes half a runq per steal anyway, and past
   CORO_RUNQ runq_put would push the overflow to the global queue, where
   both workers then contend for its lock and pop a list of cold coroutines
   (a thousand timers expiring at once did that). */
static void
share (struct coro_worker *w)
{
  long room = CORO_RUNQ - (long) (atomic_load_explicit (&w->runq.tail, memory_order_relaxed)
                                  - atomic_load_explicit (&w->runq.head, memory_order_acquire));
  long half = (w->npriv + 1) / 2;
  for (long n = half < room ? half : room; n > 0; n--)
    {
      struct coro *c = coro_waitq_pop (&w->priv);
      w->npriv--;
      runq_put (w, c);
    }
}

/* Steals half of victim's runq into w's (empty) runq; returns one to run. */
static struct coro *
runq_steal (struct coro_worker *w, struct coro_worker *v)
{
  struct coro_runq *q = &v->runq, *mine = &w->runq;
  uint32_t t0 = atomic_load_explicit (&mine->tail, memory_order_relaxed);
  for (;;)
    {
      uint32_t h = atomic_load_explicit (&q->head, memory_order_acquire);
      uint32_t t = atomic_load_explicit (&q->tail, memory_order_acquire);
      uint32_t n = t - h;
      n = n - n / 2;
      if (n == 0)
        return NULL;
      if (n > CORO_RUNQ / 2)
        continue; /* read head and tail at different times; retry */
      for (uint32_t i = 0; i < n; i++)
        __atomic_store_n (&mine->slot[(t0 + i) % CORO_RUNQ],
                          __atomic_load_n (&q->slot[(h + i) % CORO_RUNQ], __ATOMIC_RELAXED),
                          __ATOMIC_RELAXED);
      if (!atomic_compare_exchange_strong_explicit (&q->head, &h, h + n, memory_order_acq_rel,
                                                    memory_order_relaxed))
        continue;
      n--;
      struct coro *c = mine->slot[(t0 + n) % CORO_RUNQ];
      if (n)
        atomic_store_explicit (&mine->tail, t0 + n, memory_order_release);
      w->steals++;
      return c;
    }
}

/* Takes a share of the global queue: one to run, the rest into w's runq. */
static struct coro *
global_get (struct coro_worker *w)
{
  if (atomic_load_explicit (&coro_S.nglobal, memory_order_relaxed) == 0)
    return NULL;
  coro_lock (&coro_S.glk);
  long n = atomic_load (&coro_S.nglobal) / coro_S.nworkers + 1;
  if (n > CORO_RUNQ / 2)
    n = CORO_RUNQ / 2;
  struct coro *first = coro_waitq_pop (&coro_S.global);
  long taken = first ? 1 : 0;
  for (; first && taken < n; taken++)
    {
      struct coro *c = coro_waitq_pop (&coro_S.global);
      if (!c)
        break;
      priv_push (w, c);
    }
  atomic_fetch_sub (&coro_S.nglobal, taken);
  coro_unlock (&coro_S.glk);
  return first;
}

static struct coro *
pinned_get (struct coro_worker *w)
{
  if (atomic_load_explicit (&w->npinned, memory_order_relaxed) == 0)
    return NULL;
  coro_lock (&w->pin_lk);
  struct coro *c = coro_waitq_pop (&w->pinned);
  if (c)
    atomic_fetch_sub (&w->npinned, 1);
  coro_unlock (&w->pin_lk);
  return c;
}

/* ---- waking idle workers ------------------------------------------------- */

static void
wake_one (void)
{
  atomic_thread_fence (memory_order_seq_cst);                     /* W1 */
  if (atomic_load (&coro_S.nidle) == 0 || atomic_load (&coro_S.nspinning) != 0) /* W2 */
    return;
  int zero = 0;
  if (!atomic_compare_exchange_strong (&coro_S.nspinning, &zero, 1)) /* W3 */
    return;
  uint32_t start = atomic_fetch_add_explicit (&coro_S.rr, 1, memory_order_relaxed);
  for (int i = 0; i < coro_S.nworkers; i++)                        /* W4 */
    {
      struct coro_worker *v = &coro_S.workers[(start + (uint32_t) i) % (uint32_t) coro_S.nworkers];
      int one = 1;
      if (atomic_compare_exchange_strong (&v->parked, &one, 2))
        {
          atomic_fetch_sub (&coro_S.nidle, 1);
          coro_backend_wake (v);
          return;
        }
    }
  atomic_fetch_sub (&coro_S.nspinning, 1);
}

static void
pinned_push (struct coro_worker *home, struct coro *c, struct coro_worker *self)
{
  coro_lock (&home->pin_lk);
  coro_waitq_push (&home->pinned, c);
  atomic_fetch_add (&home->npinned, 1);
  coro_unlock (&home->pin_lk);
  if (home == self)
    return;
  atomic_thread_fence (memory_order_seq_cst);
  int one = 1;
  if (atomic_load (&home->parked) == 1 && atomic_compare_exchange_strong (&home->parked, &one, 0))
    {
      atomic_fetch_sub (&coro_S.nidle, 1);
      coro_backend_wake (home);
    }
}

static void
share_slow (struct coro_worker *w)
{
  share (w);
  if (atomic_load_explicit (&coro_S.nidle, memory_order_relaxed) > 0
      && atomic_load_explicit (&coro_S.nspinning, memory_order_relaxed) == 0)
    wake_one (); /* for parallelism only: w itself is awake */
}

/* At a scheduling point: let spinning/idle workers have some of our work. */
static inline __attribute__ ((always_inline)) void
share_maybe (struct coro_worker *w)
{
  if (w->npriv != 0 && demand (w))
    share_slow (w);
}

void
coro_ready (struct coro *c)
{
  struct coro_worker *w = coro_worker_self ();
  c->state = CORO_READY;
  c->reason = NULL;
  /* It runs soon: start loading the lines its resume touches, its saved
     frame (popped by coro_switch) and its canary (read when it switches
     out, on another page for big stacks), both cold after a long park. */
  __builtin_prefetch (c->ctx.sp);
  __builtin_prefetch (c->canary);
  if (c->flags & CF_COPYSTACK)
    pinned_push (c->home, c, w);
  else if (w)
    {
      priv_push (w, c);
      share_maybe (w);
    }
  else
    {
      global_push_list (c, c, 1);
      wake_one ();
    }
}

/* ---- switching ------------------------------------------------------------ */

static void
coro_exited (struct coro_worker *w, struct coro *p)
{
  if (p->flags & CF_COPYSTACK)
    coro_copystack_release (w, p);
  coro_free (p->flags & CF_COPYSTACK ? &w->obj_cache : &w->cache, p);
  __atomic_store_n (&w->nexited, w->nexited + 1, __ATOMIC_RELEASE);
}

/* Runs on the context that was switched to: completes what the coroutine
   that switched out asked for, now that its registers are saved (inv. 2).
   Out of line: the common case (nothing to finish) is one test inline. */
static __attribute__ ((noinline)) void
finish_switch_slow (struct coro_worker *w, struct coro *p)
{
  w->prev = NULL;
  switch (w->after)
    {
    case AFTER_YIELD:
      if (p->flags & CF_COPYSTACK)
        {
          coro_copystack_save (w, p);
          p->state = CORO_READY;
          pinned_push (w, p, w);
        }
      else
        {
          p->state = CORO_READY;
          priv_push (w, p);
        }
      break;
    case AFTER_PARK:
      if (p->flags & CF_COPYSTACK)
        coro_copystack_save (w, p);
      if (w->after_unlock)
        coro_unlock (w->after_unlock);
      break;
    case AFTER_EXIT:
      coro_exited (w, p);
      break;
    case AFTER_NONE:
      break;
    }
}

static inline __attribute__ ((always_inline)) void
finish_switch (struct coro_worker *w)
{
  struct coro *p = w->prev;
  if (__builtin_expect (p != NULL, 0))
    finish_switch_slow (w, p);
}

/* coro_switch_fin's slow path, on the resumed coroutine's stack. */
void
coro_finish_switch_tls (void)
{
  struct coro_worker *w = coro_worker_self ();
  finish_switch_slow (w, w->prev);
}

/* The one place a coroutine switches directly to another (from switch_out or
   coro_yield's fast path); returns when self is resumed.  Kept out of line on
   purpose: every coroutine then switches from the same call site, so the
   `ret` in coro_switch lands where the return stack predicts. */
static __attribute__ ((noinline)) void
switch_to (struct coro_worker *w, struct coro *self, struct coro *next, bool exiting)
{
  void *fake = NULL;
  w->cur = next;
  next->w = w;
  next->state = CORO_RUNNING;
  __builtin_prefetch (next->canary); /* checked when it switches out */
  coro_asan_start (w, self, next, exiting ? NULL : &fake);
  coro_switch (&self->ctx, &next->ctx);
  /* resumed, maybe on another worker: use self->w, never the old w */
  coro_asan_finish (fake);
  finish_switch (self->w);
}

/* Parks self on a wait queue guarded by `unlock` and switches to `to` (the
   next coroutine, or the worker's stack when next is NULL); coro_switch_unlock
   releases the lock once self is saved and rsp is on to's stack (inv. 2), so
   wakers wait a few instructions, not a whole switch.  Not for copy-stack
   coroutines, whose stack must be copied away before anyone may ready them. */
static __attribute__ ((noinline)) void
park_to (struct coro_worker *w, struct coro *self, struct coro *next, struct coro_lock *unlock)
{
  void *fake = NULL;
  struct coro_ctx *to = &w->sched_ctx;
  w->cur = next;
  if (next)
    {
      next->w = w;
      next->state = CORO_RUNNING;
      __builtin_prefetch (next->canary); /* checked when it switches out */
      to = &next->ctx;
    }
  coro_asan_start (w, self, next, &fake);
  coro_switch_unlock (&self->ctx, to, unlock);
  coro_asan_finish (fake);
  finish_switch (self->w);
}

/* Leaves the running coroutine `self`; returns when it is resumed. */
static __attribute__ ((noinline)) void
switch_out (struct coro *self, enum coro_after after, struct coro_lock *unlock)
{
  struct coro_worker *w = self->w;
  coro_check_canary (self);
  struct coro *next = NULL;
  share_maybe (w); /* before self is requeued below: it may only enter priv */
  if (self->flags & CF_COPYSTACK)
    ;
  else if (--w->budget != 0)
    next = local_get (w);
  else
    {
      w->budget = CHECK_GLOBAL_EVERY;
      w->fair_pass = true;
    }
  w->switches++;
  if (next)
    {
      /* Direct switch (self is not copy-stack).  A yield requeues self now,
         into priv: only this worker pops priv or moves it to the stealable
         runq, and it does neither before this switch has saved self (inv. 2).
         A park without a lock (timer, I/O) leaves nothing to finish. */
      if (after == AFTER_YIELD)
        {
          self->state = CORO_READY;
          priv_push (w, self);
        }
      else if (after == AFTER_PARK && unlock)
        {
          park_to (w, self, next, unlock);
          return;
        }
      else if (after != AFTER_PARK)
        {
          w->prev = self;
          w->after = after;
          w->after_unlock = unlock;
        }
      switch_to (w, self, next, after == AFTER_EXIT);
      return;
    }
  if (after == AFTER_PARK && unlock && !(self->flags & CF_COPYSTACK))
    {
      park_to (w, self, NULL, unlock);
      return;
    }
  void *fake = NULL;
  w->prev = self;
  w->after = after;
  w->after_unlock = unlock;
  w->cur = NULL;
  coro_asan_start (w, self, NULL, after == AFTER_EXIT ? NULL : &fake);
  coro_switch (&self->ctx, &w->sched_ctx);
  /* resumed, maybe on another worker: use self->w, never the old w */
  coro_asan_finish (fake);
  finish_switch (self->w);
}

void
coro_main (struct coro *c)
{
  coro_asan_finish (NULL);
  finish_switch (c->w);
  c->fn (c->arg);
  c->state = CORO_DONE;
  switch_out (c, AFTER_EXIT, NULL);
  __builtin_unreachable ();
}

void
coro_park (struct coro *self, struct coro_lock *unlock, const char *reason)
{
  self->reason = reason;
  self->state = CORO_PARKED;
  switch_out (self, AFTER_PARK, unlock);
}

/* coro_yield when its fast path does not apply: what switch_out decides. */
static __attribute__ ((noinline)) void
yield_slow (struct coro_worker *w, struct coro *self)
{
  if (!(self->flags & CF_COPYSTACK) && w->npriv == 0 && runq_empty (w) && w->budget > 1
      && atomic_load_explicit (&coro_S.nglobal, memory_order_relaxed) == 0
      && atomic_load_explicit (&w->npinned, memory_order_relaxed) == 0)
    {
      w->budget--; /* nothing else to run here: keep going */
      return;
    }
  switch_out (self, AFTER_YIELD, NULL);
}

/* noinline: it reads coro_tls_worker directly (no call), once, before switching;
   never inlined into a caller, that read cannot be reused after a switch. */
__attribute__ ((noinline)) void
coro_yield (void)
{
  struct coro_worker *w = coro_tls_worker;
  struct coro *self = w ? w->cur : NULL;
  if (!self)
    {
      sched_yield ();
      return;
    }
  /* The hot path: switch_out's direct yield with what it would find already
     known: no copy stack, no fair pass due, next in priv, nothing to share
     (share_maybe tests demand() > 0; counters are never negative, so
     "both 0" is the same test, one branch).  Same steps, same order as
     switch_out; self goes back into priv (inv. 2). */
  struct coro *next = w->priv.head;
  if (__builtin_expect ((next != NULL) & !(self->flags & CF_COPYSTACK) & (w->budget > 1)
                        & ((atomic_load_explicit (&coro_S.nspinning, memory_order_relaxed)
                            | atomic_load_explicit (&coro_S.nidle, memory_order_relaxed)) == 0), 1))
    {
      coro_check_canary (self);
      w->budget--;
      /* priv: next out at the head, self in at the tail (npriv unchanged);
         next's stale link is never read: a push sets it before use */
      struct coro *after = next->next;
      self->next = NULL;
      self->state = CORO_READY;
      if (after)
        {
          w->priv.tail->next = self;
          w->priv.head = after;
        }
      else
        w->priv.head = self;
      w->priv.tail = self;
      w->switches++;
      w->cur = next;
      next->w = w;
      next->state = CORO_RUNNING;
#ifdef LAB_ASAN
      void *fake = NULL;
      coro_asan_start (w, self, next, &fake);
      coro_switch (&self->ctx, &next->ctx);
      /* resumed, maybe on another worker: use self->w, never the old w */
      coro_asan_finish (fake);
      finish_switch (self->w);
#else
      /* a tail call: no frame of ours stays on the stack across the switch,
         and coro_switch_fin does finish_switch for the worker we resume on */
      coro_switch_fin (&self->ctx, &next->ctx);
#endif
      return;
    }
  yield_slow (w, self);
}

int
coro_sleep_ns (uint64_t ns)
{
  struct coro *self = coro_self ();
  if (!self)
    {
      struct timespec ts = { (time_t) (ns / 1000000000u), (long) (ns % 1000000000u) };
      while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
        ;
      return 0;
    }
  return coro_sleep_until_ns (coro_now_ns () + ns);
}

int
coro_sleep_until_ns (uint64_t deadline)
{
  struct coro *self = coro_self ();
  if (!self)
    {
      uint64_t now = coro_now_ns ();
      return now < deadline ? coro_sleep_ns (deadline - now) : 0;
    }
  if (coro_timer_add (&self->w->timers, deadline, self) < 0)
    return -1;
  coro_park (self, NULL, "sleep");
  return 0;
}

/* ---- spawn ------------------------------------------------------------------ */

int
coro_spawn_ex (void (*fn) (void *), void *arg, int flags)
{
  struct coro_worker *w = coro_worker_self ();
  bool copy = flags & CORO_COPYSTACK;
  struct coro *c = coro_alloc (w ? (copy ? &w->obj_cache : &w->cache) : NULL, copy);
  if (!c)
    return -1;
  c->fn = fn;
  c->arg = arg;
  c->state = CORO_READY;
  if (w)
    {
      c->id = (uint32_t) (w->spawned * (uint64_t) coro_S.nworkers + (uint64_t) w->id);
      __atomic_store_n (&w->spawned, w->spawned + 1, __ATOMIC_RELEASE);
    }
  else
    c->id = (uint32_t) atomic_fetch_add (&coro_S.spawned, 1) | 0x80000000u;
  if (copy)
    {
      c->flags = CF_COPYSTACK;
      c->home = w ? w : &coro_S.workers[atomic_fetch_add (&coro_S.rr, 1) % (uint32_t) coro_S.nworkers];
      coro_copystack_prepare (c);
    }
  else
    {
      struct coro_frame *fr = (struct coro_frame *) ((char *) coro_stack_start (c) - sizeof *fr);
      memset (fr, 0, sizeof *fr);
      fr->mxcsr = coro_S.mxcsr;
      fr->fpucw = coro_S.fpucw;
      fr->r12 = (uint64_t) c;
      fr->ret = (uint64_t) coro_trampoline;
      c->ctx.sp = fr;
    }
  coro_ready (c);
  return 0;
}

int
coro_spawn (void (*fn) (void *), void *arg)
{
  return coro_spawn_ex (fn, arg, 0);
}

/* ---- the worker loop -------------------------------------------------------- */

static void
run (struct coro_worker *w, struct coro *c)
{
  w->cur = c;
  c->w = w;
  c->state = CORO_RUNNING;
  __builtin_prefetch (c->canary); /* checked when it switches out */
  if (c->flags & CF_COPYSTACK)
    coro_copystack_restore (w, c);
  w->switches++;
  void *fake = NULL;
  coro_asan_start (w, NULL, c, &fake);
  coro_switch (&w->sched_ctx, &c->ctx);
  coro_asan_finish (fake);
  finish_switch (w);
}

static void
poll_nonblocking (struct coro_worker *w)
{
  if (w->timers.n || w->timers.head != w->timers.tail)
    coro_timers_run (w, coro_now_ns ());
  coro_S.be->poll (w, 0);
}

static struct coro *
find_work (struct coro_worker *w)
{
  struct coro *c = NULL;
  poll_nonblocking (w);
  if (w->fair_pass || --w->budget == 0)
    {
      w->budget = CHECK_GLOBAL_EVERY;
      w->fair_pass = false;
      if ((c = pinned_get (w)) || (c = global_get (w)))
        return c;
    }
  if ((c = local_get (w)) || (c = pinned_get (w)) || (c = global_get (w)))
    return c;
  if (coro_S.nworkers > 1)
    {
      w->rng = w->rng * 1103515245u + 12345u;
      for (int i = 0; i < coro_S.nworkers; i++)
        {
          struct coro_worker *v = &coro_S.workers[(w->rng / 65536 + (unsigned) i) % (unsigned) coro_S.nworkers];
          if (v != w && (c = runq_steal (w, v)))
            return c;
        }
    }
  return NULL;
}

static bool
any_work (struct coro_worker *w)
{
  if (atomic_load (&coro_S.nglobal) || atomic_load (&w->npinned) || atomic_load (&coro_S.stop))
    return true;
  for (int i = 0; i < coro_S.nworkers; i++)
    if (!runq_empty (&coro_S.workers[i]))
      return true;
  return false;
}

static void
unpark (struct coro_worker *w)
{
  int v = atomic_exchange (&w->parked, 0);                         /* S5 */
  if (v == 1)
    atomic_fetch_sub (&coro_S.nidle, 1);
  else if (v == 2)
    {
      w->spinning = true;
      w->spin_rounds = 0;
    }
}

/* Idle accounting (coro-idle.h): when this worker started idling, 0 if busy. */
_Atomic uint64_t coro_idle_spin_ns;
static __thread uint64_t idle_since;

static void
idle_end (void)
{
  atomic_fetch_add_explicit (&coro_idle_spin_ns, coro_now_ns () - idle_since, memory_order_relaxed);
  idle_since = 0;
}

static void
idle (struct coro_worker *w)
{
  if (idle_since == 0)
    idle_since = coro_now_ns ();
  /* A worker spins to steal from the others.  A lone worker has nobody to
     steal from and parks at once unless coro_config.lone_spin: spinning, its
     polls catch completions without a sleep and wake-up, but its CPU never
     idles, and on a VM that costs the tail.  Measured (echo, 1 worker, 1000
     connections, 70K req/s, 20 s open loop, fresh netns, interleaved):
     spinning p50 31 us, p99 1.9-3.2 ms; parking p50 106 us, p99 0.7-1.0 ms,
     as epoll's 0.6-0.9 ms.  Spinning 20 us only, or without PAUSE, gave the
     same long tail (so not pause-loop exits: a vCPU that never halts). */
  if (!w->spinning && (coro_S.nworkers > 1 || coro_S.lone_spin)
      && 2 * atomic_load (&coro_S.nspinning) < coro_S.nworkers - atomic_load (&coro_S.nidle))
    {
      w->spinning = true;
      w->spin_rounds = 0;
      atomic_fetch_add (&coro_S.nspinning, 1);
    }
  if (w->spinning && w->spin_rounds++ < SPIN_ROUNDS)
    {
      __atomic_store_n (&w->spins, w->spins + 1, __ATOMIC_RELAXED);
      for (int i = 0; i < 32; i++)
        __builtin_ia32_pause ();
      return;
    }
  if (w->spinning)                                                  /* S1 */
    {
      w->spinning = false;
      atomic_fetch_sub (&coro_S.nspinning, 1);
    }
  int64_t timeout = coro_timers_next (&w->timers, coro_now_ns ());
  if (timeout == 0)
    return;
  atomic_store (&w->parked, 1);                                     /* S2 */
  atomic_fetch_add (&coro_S.nidle, 1);
  if (any_work (w))                                                 /* S3 */
    {
      unpark (w);
      return;
    }
  idle_end (); /* parked in the poll: not CPU */
  coro_S.be->poll (w, timeout);                                     /* S4 */
  unpark (w);
}

static void *
worker_main (void *arg)
{
  struct coro_worker *w = arg;
  coro_tls_worker = w;
  coro_debug_thread_init (w);
  for (;;)
    {
      struct coro *c = find_work (w);
      if (c)
        {
          if (idle_since)
            idle_end ();
          if (w->spinning)
            {
              w->spinning = false;
              if (atomic_fetch_sub (&coro_S.nspinning, 1) == 1)
                wake_one ();
            }
          share_maybe (w);
          run (w, c);
          continue;
        }
      if (atomic_load (&coro_S.stop))
        break;
      idle (w);
    }
  if (idle_since)
    idle_end ();
  coro_debug_thread_fini (w);
  coro_tls_worker = NULL;
  return NULL;
}

/* ---- start / stop ----------------------------------------------------------- */

static int
backends_init (const char *want, char *errbuf, size_t len)
{
  const struct coro_backend *order[2] = { &coro_backend_io_uring, &coro_backend_epoll };
  int nb = 2;
  if ((want && strcmp (want, "epoll") == 0) || (!want && coro_under_valgrind ()))
    order[0] = &coro_backend_epoll, nb = 1;
  else if (want && strcmp (want, "io_uring") == 0)
    nb = 1;
  else if (want && *want)
    {
      snprintf (errbuf, len, "unknown backend `%s` (io_uring or epoll)", want);
      errno = EINVAL;
      return -1;
    }
  int err = 0;
  for (int b = 0; b < nb; b++)
    {
      int i;
      for (i = 0; i < coro_S.nworkers; i++)
        if ((err = order[b]->init (&coro_S.workers[i])) < 0)
          break;
      if (i == coro_S.nworkers)
        {
          coro_S.be = order[b];
          return 0;
        }
      while (i-- > 0)
        order[b]->fini (&coro_S.workers[i]);
    }
  snprintf (errbuf, len, "backend `%s`: %s", order[nb - 1]->name, strerror (-err));
  errno = -err;
  return -1;
}

/* One worker per CPU this process may run on (its cpuset), not per CPU of the host. */
static int
coro_cpus_allowed (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  return (int) sysconf (_SC_NPROCESSORS_ONLN);
}

int
coro_runtime_start (const struct coro_config *cfg, char *errbuf, size_t len)
{
  struct coro_config def = { 0 };
  if (!cfg)
    cfg = &def;
  memset (&coro_S, 0, sizeof coro_S);
  coro_S.nworkers = cfg->workers > 0 ? cfg->workers : coro_cpus_allowed ();
  if (coro_S.nworkers < 1)
    coro_S.nworkers = 1;
  coro_S.stack_size = cfg->stack_size ? cfg->stack_size : 64 * 1024;
  coro_S.shared_size = cfg->shared_stack_size ? cfg->shared_stack_size : 256 * 1024;
  coro_S.guard = cfg->guard;
  coro_S.writes_via_ring = cfg->writes_via_ring;
  coro_S.lone_spin = cfg->lone_spin;
  coro_S.mxcsr = __builtin_ia32_stmxcsr ();
  __asm__ volatile ("fnstcw %0" : "=m"(coro_S.fpucw));
  if (coro_pools_init (coro_S.stack_size, cfg->guard, errbuf, len) < 0)
    return -1;
  coro_S.workers = calloc ((size_t) coro_S.nworkers, sizeof *coro_S.workers);
  if (!coro_S.workers)
    {
      snprintf (errbuf, len, "out of memory");
      return -1;
    }
  for (int i = 0; i < coro_S.nworkers; i++)
    {
      coro_S.workers[i].id = i;
      coro_S.workers[i].efd = -1;
      coro_S.workers[i].rng = (unsigned) i * 2654435761u + 1;
      coro_S.workers[i].budget = CHECK_GLOBAL_EVERY;
    }
  if (backends_init (cfg->backend, errbuf, len) < 0)
    {
      free (coro_S.workers);
      coro_S.workers = NULL;
      return -1;
    }
  for (int i = 0; i < coro_S.nworkers; i++)
    {
      int e = pthread_create (&coro_S.workers[i].thread, NULL, worker_main, &coro_S.workers[i]);
      if (e)
        {
          snprintf (errbuf, len, "creating worker thread: %s", strerror (e));
          atomic_store (&coro_S.stop, 1);
          for (int j = 0; j < i; j++)
            {
              coro_backend_wake (&coro_S.workers[j]);
              pthread_join (coro_S.workers[j].thread, NULL);
            }
          errno = e;
          return -1;
        }
    }
  return 0;
}

void
coro_runtime_stop (void)
{
  if (!coro_S.workers)
    return;
  while (coro_live_estimate () != 0)
    {
      struct timespec ms = { 0, 1000000 };
      nanosleep (&ms, NULL);
    }
  atomic_store (&coro_S.stop, 1);
  for (int i = 0; i < coro_S.nworkers; i++)
    coro_backend_wake (&coro_S.workers[i]);
  for (int i = 0; i < coro_S.nworkers; i++)
    pthread_join (coro_S.workers[i].thread, NULL);
  for (int i = 0; i < coro_S.nworkers; i++)
    {
      struct coro_worker *w = &coro_S.workers[i];
      coro_S.be->fini (w);
      coro_timers_free (&w->timers);
      coro_copystack_fini (w);
    }
  free (coro_S.workers);
  coro_S.workers = NULL;
  coro_S.be = NULL;
  coro_pools_fini ();
}

long
coro_live_estimate (void)
{
  long exited = 0, spawned;
  for (int i = 0; i < coro_S.nworkers; i++)
    exited += (long) __atomic_load_n (&coro_S.workers[i].nexited, __ATOMIC_ACQUIRE);
  atomic_thread_fence (memory_order_seq_cst);
  spawned = (long) atomic_load (&coro_S.spawned);
  for (int i = 0; i < coro_S.nworkers; i++)
    spawned += (long) __atomic_load_n (&coro_S.workers[i].spawned, __ATOMIC_ACQUIRE);
  return spawned - exited;
}

void
coro_stats (struct coro_stats *st)
{
  memset (st, 0, sizeof *st);
  st->spawned = atomic_load (&coro_S.spawned);
  st->live = (uint64_t) coro_live_estimate ();
  for (int i = 0; i < coro_S.nworkers && coro_S.workers; i++)
    {
      struct coro_worker *w = &coro_S.workers[i];
      st->spawned += __atomic_load_n (&w->spawned, __ATOMIC_RELAXED);
      st->switches += __atomic_load_n (&w->switches, __ATOMIC_RELAXED);
      st->steals += __atomic_load_n (&w->steals, __ATOMIC_RELAXED);
      st->spins += __atomic_load_n (&w->spins, __ATOMIC_RELAXED);
      st->wakes += __atomic_load_n (&w->wake_syscalls, __ATOMIC_RELAXED);
      st->backend_syscalls += __atomic_load_n (&w->syscalls, __ATOMIC_RELAXED)
                              + __atomic_load_n (&w->wake_syscalls, __ATOMIC_RELAXED);
      st->saved_stack_bytes += (size_t) __atomic_load_n (&w->saved_bytes, __ATOMIC_RELAXED);
    }
  st->stacks_carved = atomic_load (&coro_stacks_carved);
  st->arena_bytes = atomic_load (&coro_arena_bytes);
  st->stack_size = coro_S.stack_size;
}
