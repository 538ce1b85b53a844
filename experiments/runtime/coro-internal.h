/*
 * coro-internal.h - private types of the coroutine runtime, shared by its files.
 *
 *   switch-x86_64.S  coro_switch(): the register save/restore
 *   stack.c          pooled arenas, canary, guard pages, free lists
 *   sched.c          workers, run queues, stealing, parking, spawn/exit
 *   timer.c          per-worker deadlines: in-order FIFO + heap
 *   io.c             the I/O API over a backend; io-uring.c, io-epoll.c
 *   sync.c           mutex, wait group, channel
 *   copystack.c      save/restore of copy-stack coroutines
 *   debug.c          coro_dump, ASan/valgrind hooks
 */
#ifndef LAB_CORO_INTERNAL_H
#define LAB_CORO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coro.h"
#include "coro-asm.h"

#if !defined(__x86_64__)
#error "coroutine runtime: the context switch exists for x86-64 only (switch-x86_64.S)"
#endif

/* ---- context switch (switch-x86_64.S) ---------------------------------- */

/* The saved context is just the stack pointer: everything else is pushed on
   the coroutine's own stack.  Layout of what rsp points at when parked: */
struct coro_ctx
{
  void *sp;
};

struct coro_frame
{
  uint32_t mxcsr;  /* SSE control/status */
  uint16_t fpucw;  /* x87 control word */
  uint16_t pad;
  uint64_t r15, r14, r13, r12, rbx, rbp;
  uint64_t ret;    /* where coro_switch returns to */
};

/* Offsets used by switch-x86_64.S; the asserts keep table and struct in step. */
#define CORO_FRAME_MXCSR 0
#define CORO_FRAME_FPUCW 4
#define CORO_FRAME_R15 8
#define CORO_FRAME_R12 32
#define CORO_FRAME_RBP 48
#define CORO_FRAME_RET 56
#define CORO_FRAME_SIZE 64
_Static_assert (offsetof (struct coro_ctx, sp) == 0, "ctx.sp at offset 0");
_Static_assert (offsetof (struct coro_frame, mxcsr) == CORO_FRAME_MXCSR, "mxcsr");
_Static_assert (offsetof (struct coro_frame, fpucw) == CORO_FRAME_FPUCW, "fpucw");
_Static_assert (offsetof (struct coro_frame, r15) == CORO_FRAME_R15, "r15");
_Static_assert (offsetof (struct coro_frame, r12) == CORO_FRAME_R12, "r12");
_Static_assert (offsetof (struct coro_frame, rbp) == CORO_FRAME_RBP, "rbp");
_Static_assert (offsetof (struct coro_frame, ret) == CORO_FRAME_RET, "ret");
_Static_assert (sizeof (struct coro_frame) == CORO_FRAME_SIZE, "frame size");
_Static_assert (offsetof (struct coro_lock, v) == 0 && sizeof (struct coro_lock) == 4,
                "coro_switch_unlock releases the lock with a 4-byte store at offset 0");

void coro_switch (struct coro_ctx *from, struct coro_ctx *to);
/* coro_switch that also releases `unlock` once on the target's stack. */
void coro_switch_unlock (struct coro_ctx *from, struct coro_ctx *to, struct coro_lock *unlock);
/* coro_switch that, once resumed, finishes the switch itself (finish_switch
   for the worker coro_tls_worker names then): for callers that tail-call it. */
void coro_switch_fin (struct coro_ctx *from, struct coro_ctx *to);
void coro_finish_switch_tls (void);
extern __thread struct coro_worker *coro_tls_worker;
/* First instruction a new coroutine runs: calls coro_main(r12). */
void coro_trampoline (void);
void coro_main (struct coro *c) __attribute__ ((noreturn));

/* ---- coroutine ------------------------------------------------------------ */

enum coro_state
{
  CORO_FREE = 0, /* slot not in use (dump skips it) */
  CORO_READY,
  CORO_RUNNING,
  CORO_PARKED,
  CORO_DONE,
};

enum coro_flag
{
  CF_COPYSTACK = 1, /* runs on its worker's shared stack */
};

struct coro_worker;

struct coro
{
  struct coro_ctx ctx;         /* must stay first (ctx.sp) */
  uint64_t *canary;            /* lowest word of the stack; &coro_canary_guarded
                                  where a guard page sits below the stack */
  struct coro_worker *w;       /* worker running it, set at each resume */
  struct coro_worker *home;    /* copy-stack: the only worker that may run it */
  struct coro *next;           /* link in a wait queue or the global queue */
  void (*fn) (void *);
  void *arg;
  const char *reason;          /* why parked, for coro_dump */
  void *xfer;                  /* channel value handed over */
  void *saved;                 /* copy-stack: used part of the stack while parked */
  uint32_t saved_len;
  uint8_t state;
  uint8_t flags;
  uint8_t xfer_ok;
  uint8_t io_pending;          /* io-uring.c: CQEs still due for a send+recv pair, else 0 */
  int32_t io_res;              /* result of the last I/O op */
  int32_t io_res_link;         /* io-uring.c: the send's result in a send+recv pair */
  uint32_t id;                 /* spawn serial number (wraps), for coro_dump */
};

#define CORO_CANARY 0x5a17c0de5a17c0deULL

/* ---- stacks (stack.c) ---------------------------------------------------- */

/* A pool hands out slots of one size from mmap arenas.  Stack slots hold the
   stack and, at their top, the struct coro; object slots (copy-stack
   coroutines) hold just the struct coro. */
struct coro_pool;
#define CORO_CACHE_MAX 256
struct coro_arena;
struct coro_cache /* per-worker free slots, no lock; pointers only, so moving
                     slots never touches their (cold) memory */
{
  long n;
  struct coro_arena *arena; /* the arena this worker carves fresh slots from */
  struct coro *slot[CORO_CACHE_MAX];
};

int coro_pools_init (size_t stack_size, enum coro_guard guard, char *errbuf, size_t len);
void coro_pools_fini (void);
/* Returns a struct coro with its stack ready (canary written), or NULL/ENOMEM. */
struct coro *coro_alloc (struct coro_cache *cache, bool copystack);
void coro_free (struct coro_cache *cache, struct coro *c);
void coro_cache_flush (struct coro_cache *cache, bool copystack);
/* Top (highest address, 16-aligned) of c's stack; stack-slot coroutines only. */
void *coro_stack_top (struct coro *c);
/* Where c's first frame goes: the top, lowered by a per-slot colour (stack.c). */
void *coro_stack_start (struct coro *c);
size_t coro_stack_usable (void);
/* Lowest usable byte of c's stack; stack-slot coroutines only. */
void *coro_stack_lo (struct coro *c);
extern uint64_t coro_canary_guarded;
/* Calls fn for every slot ever carved (live or free), for coro_dump. */
void coro_pools_walk (void (*fn) (struct coro *c, void *arg), void *arg);
void coro_canary_dead (struct coro *c) __attribute__ ((noreturn, cold));
static inline void
coro_check_canary (struct coro *c)
{
  if (__builtin_expect (*c->canary != CORO_CANARY, 0))
    coro_canary_dead (c);
}
extern const char *coro_guard_kind;
extern atomic_ulong coro_stacks_carved, coro_arena_bytes;

/* ---- timers (timer.c) ---------------------------------------------------- */

struct coro_timer
{
  uint64_t deadline;
  struct coro *c;
};

struct coro_timers
{
  struct coro_timer *heap;   /* min-heap of out-of-order deadlines */
  size_t n, cap;
  struct coro_timer *fifo;   /* deadlines in non-decreasing order: fifo[head..tail) */
  size_t head, tail, fcap;
};

int coro_timer_add (struct coro_timers *t, uint64_t deadline, struct coro *c);
/* Readies every coroutine whose deadline is <= now; returns how many. */
int coro_timers_run (struct coro_worker *w, uint64_t now);
/* ns until the nearest deadline: -1 none, 0 due now. */
int64_t coro_timers_next (struct coro_timers *t, uint64_t now);
void coro_timers_free (struct coro_timers *t);
uint64_t coro_now_ns (void);

/* ---- I/O backends (io.c, io-uring.c, io-epoll.c) ------------------------- */

enum coro_io_op
{
  CIO_READ, CIO_WRITE, CIO_RECV, CIO_SEND, CIO_ACCEPT, CIO_CONNECT, CIO_POLL,
};

struct coro_io_req
{
  enum coro_io_op op;
  int fd;
  int flags;   /* recv/send/accept flags; poll events */
  void *buf;
  size_t len;
  const struct sockaddr *addr;
  struct sockaddr *out_addr;
  socklen_t *out_len;
  socklen_t addrlen;
};

struct coro_backend
{
  const char *name;
  /* What this backend does per call and how its kernel object is set up. */
  const char *(*features) (struct coro_worker *w);
  int (*init) (struct coro_worker *w);
  void (*fini) (struct coro_worker *w);
  /* Runs req for the current coroutine (parking it); returns result or -errno. */
  long (*op) (struct coro_worker *w, struct coro *self, const struct coro_io_req *req);
  /* coro_send_recv in one step (out: req->buf/len, in: in/inlen); NULL
     would make io.c do it as a send loop and a recv. */
  long (*send_recv) (struct coro_worker *w, struct coro *self, const struct coro_io_req *req, void *in,
                     size_t inlen, size_t *sent);
  /* Flushes submissions and readies finished waiters; waits up to timeout_ns
     (-1 = forever, 0 = don't block); wakes early on coro_backend_wake. */
  void (*poll) (struct coro_worker *w, int64_t timeout_ns);
};
extern const struct coro_backend coro_backend_io_uring, coro_backend_epoll;
/* Sends q's bytes from *sent on through the backend's op (parking as it
   needs), adding to *sent; 0, or -errno (-EPIPE if the socket took none).
   For the backends' send_recv. */
long coro_io_send_rest (struct coro *self, const struct coro_io_req *q, size_t *sent);
/* Makes w's poll return (writes w's eventfd). Any thread. */
void coro_backend_wake (struct coro_worker *w);

/* ---- scheduler (sched.c) ------------------------------------------------- */

#define CORO_RUNQ 256

struct coro_runq /* Go-style ring: owner pushes at tail, anyone CASes head */
{
  _Atomic uint32_t head;
  _Atomic uint32_t tail;
  struct coro *slot[CORO_RUNQ];
};

enum coro_after /* what the next context does for the coroutine that left */
{
  AFTER_NONE, AFTER_YIELD, AFTER_PARK, AFTER_EXIT,
};

struct coro_worker
{
  struct coro_runq runq;      /* stealable part of the ready queue */
  struct coro_waitq priv;     /* owner-only part: no atomics on the hot path */
  long npriv;
  bool fair_pass;             /* next find_work serves global/pinned first */
  int id;
  pthread_t thread;
  struct coro_ctx sched_ctx;  /* the worker thread's own stack */
  struct coro *cur;
  struct coro *prev;          /* the coroutine that just switched out */
  enum coro_after after;
  struct coro_lock *after_unlock;
  uint32_t budget;            /* scheduling points left before a fair pass */
  bool spinning;
  _Atomic int parked;         /* 1 while blocked (or about to block) in poll */
  struct coro_lock pin_lk;    /* copy-stack coroutines homed here, ready to run */
  struct coro_waitq pinned;
  _Atomic long npinned;
  struct coro_cache cache, obj_cache;
  struct coro_timers timers;
  uint64_t switches, steals, spawned, nexited;
  uint64_t syscalls;          /* backend system calls made by this worker (coro_stats); its only writer */
  uint64_t wake_syscalls;     /* eventfd writes by others to wake it (atomic: many writers) */
  long saved_bytes;           /* copy-stack buffers held by coroutines homed here */
  uint32_t spin_rounds;
  uint64_t spins;             /* idle spin rounds, all episodes (coro_stats); its only writer */
  int efd;                    /* eventfd: wakes the poll */
  void *be;                   /* backend state */
  char *shared_stack;         /* copy-stack mode */
  size_t shared_size;
  void *altstack;
  const void *thread_stack_lo; /* for ASan annotations */
  size_t thread_stack_size;
  unsigned rng;
};

struct coro_sched
{
  int nworkers;
  struct coro_worker *workers;
  const struct coro_backend *be;
  struct coro_lock glk;       /* global queue */
  struct coro_waitq global;
  _Atomic long nglobal;
  _Atomic int nidle, nspinning;
  _Atomic uint64_t spawned;   /* by threads that are not workers */
  _Atomic int stop;
  _Atomic uint32_t rr;
  uint32_t mxcsr;             /* FP control of the starting thread, for new coroutines */
  uint16_t fpucw;
  enum coro_guard guard;
  bool writes_via_ring;       /* coro_config.writes_via_ring (io-uring.c) */
  bool lone_spin;             /* coro_config.lone_spin (sched.c, idle()) */
  size_t stack_size, shared_size;
};
extern struct coro_sched coro_S;
_Static_assert (offsetof (struct coro_worker, prev) == CORO_WORKER_PREV, "coro-asm.h: CORO_WORKER_PREV");

struct coro_worker *coro_worker_self (void);
/* Counts one system call made by the I/O backend of w, on w's own thread:
   one writer, so a plain increment published by a relaxed store (no locked
   instruction on the per-request path); coro_stats reads it from anywhere. */
static inline void
coro_count_syscall (struct coro_worker *w)
{
  __atomic_store_n (&w->syscalls, __atomic_load_n (&w->syscalls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}
/* Parks the running coroutine; `unlock` (may be NULL) is released after its
   context is saved, so a waker holding it cannot resume a half-saved coroutine. */
void coro_park (struct coro *self, struct coro_lock *unlock, const char *reason);
/* Sets errno of the thread running now (never a cached &errno). */
void coro_errno_set (int e);
/* Makes a parked coroutine runnable (any thread). */
void coro_ready (struct coro *c);
long coro_live_estimate (void);

/* ---- copy stack (copystack.c) -------------------------------------------- */

void coro_copystack_prepare (struct coro *c);                   /* at spawn */
void coro_copystack_restore (struct coro_worker *w, struct coro *c); /* before resume */
void coro_copystack_save (struct coro_worker *w, struct coro *c);    /* after switch out */
void coro_copystack_release (struct coro_worker *w, struct coro *c); /* at exit */
void coro_copystack_fini (struct coro_worker *w);

/* ---- small locks and queues --------------------------------------------- */

static inline void
coro_lock (struct coro_lock *l)
{
  while (__atomic_exchange_n (&l->v, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n (&l->v, __ATOMIC_RELAXED))
      __builtin_ia32_pause ();
}

static inline void
coro_unlock (struct coro_lock *l)
{
  __atomic_store_n (&l->v, 0, __ATOMIC_RELEASE);
}

static inline void
coro_waitq_push (struct coro_waitq *q, struct coro *c)
{
  c->next = NULL;
  if (q->tail)
    q->tail->next = c;
  else
    q->head = c;
  q->tail = c;
}

static inline struct coro *
coro_waitq_pop (struct coro_waitq *q)
{
  struct coro *c = q->head;
  if (c)
    {
      q->head = c->next;
      if (!q->head)
        q->tail = NULL;
      c->next = NULL;
    }
  return c;
}

/* ---- debug hooks (debug.c) ---------------------------------------------- */

/* Called around every coro_switch; no-ops unless built with LAB_ASAN. */
#ifdef LAB_ASAN
void coro_asan_start (struct coro_worker *w, struct coro *from, struct coro *to, void **fake);
void coro_asan_finish (void *fake);
#else
static inline void
coro_asan_start (struct coro_worker *w, struct coro *from, struct coro *to, void **fake)
{
  (void) w, (void) from, (void) to, (void) fake;
}
static inline void
coro_asan_finish (void *fake)
{
  (void) fake;
}
#endif
void coro_valgrind_register (void *lo, void *hi);
bool coro_under_valgrind (void); /* LAB_VALGRIND builds only; else false */
void coro_debug_thread_init (struct coro_worker *w);
void coro_debug_thread_fini (struct coro_worker *w);

#endif
