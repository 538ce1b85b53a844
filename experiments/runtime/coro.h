/*
 * coro.h - the lab's coroutine runtime: stackful coroutines on an M:N scheduler.
 *
 * Design in one breath: a coroutine is a `struct coro` plus a stack; switching
 * is a hand-written x86-64 routine (switch-x86_64.S) that pushes the callee-saved
 * registers on the CURRENT stack and swaps stack pointers.  Stacks come from
 * pooled mmap arenas (stack.c) with, where the kernel has it, a
 * MADV_GUARD_INSTALL guard page below, else a canary at the low end checked at
 * every switch (stacks of half a page or less: canary only).
 * `workers` threads (one per CPU by default) run coroutines from per-worker run
 * queues, steal from each other, and take work submitted from outside from a
 * global queue (sched.c).  A coroutine that waits - sleep, fd I/O, channel,
 * mutex, wait group - parks: only it stops, its worker runs others.  I/O goes
 * through one ring per worker (io_uring) or one epoll set per worker, chosen at
 * run time (io.c, io-uring.c, io-epoll.c); timers are a per-worker heap with one
 * kernel timeout for the nearest deadline (timer.c).  Copy-stack coroutines
 * (CORO_COPYSTACK, copystack.c) run on a per-worker shared stack and keep only
 * the used part of their stack while parked; they stay on the worker that
 * spawned them, because their saved frames hold addresses inside that stack.
 *
 * Rules for code running in a coroutine:
 *   - errno is per thread and a coroutine may resume on another worker: read
 *     errno right after the call that set it, never keep `&errno` across a call
 *     that can park (see sched.c, "errno and TLS").
 *   - copy-stack coroutines must not hand buffers on their stack to I/O calls
 *     (the stack is copied away while they are parked).
 *   - a blocking system call blocks the whole worker; use the coro_* calls.
 *   - link with -Wl,-z,now (the Makefile does): glibc's lazy PLT resolver
 *     saves the full XSAVE area (~2.7 KiB with AVX-512) on the calling stack,
 *     enough to overflow a 4 KiB coroutine stack on a first call into libc.
 * Functions return -1 and set errno on failure unless said otherwise.
 */
#ifndef LAB_CORO_H
#define LAB_CORO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <sys/types.h>

enum coro_guard
{
  CORO_GUARD_AUTO = 0, /* MADV_GUARD_INSTALL if the kernel has it, else canary only */
  CORO_GUARD_NONE,     /* canary only */
  CORO_GUARD_MPROTECT, /* PROT_NONE page below each stack: 2 VMAs per stack */
};
/* "none" and "mprotect" name their modes; anything else (e.g. "auto") is AUTO. */
enum coro_guard coro_guard_parse (const char *name);

struct coro_config
{
  int workers;              /* 0 = one per online CPU */
  size_t stack_size;        /* bytes per stack, incl. the coroutine's header; 0 = 64 KiB;
                               half a page or less: 2 KiB+ slots sharing pages, canary only */
  enum coro_guard guard;
  const char *backend;      /* "io_uring", "epoll" or NULL = io_uring if usable, else epoll */
  size_t shared_stack_size; /* per-worker stack for copy-stack coroutines; 0 = 256 KiB */
  bool writes_via_ring;     /* io_uring: every write/send is an SQE batched with the worker's
                               others; default (false): tried at once without waiting, an SQE
                               only when it would block */
  bool lone_spin;           /* a lone worker (workers == 1) spins before it parks, as workers
                               with others to steal from do; default (false): it parks at once
                               (sched.c, idle(): what the spin costs on a VM) */
};

/* Starts the worker threads.  On failure returns -1 and writes why into errbuf. */
int coro_runtime_start (const struct coro_config *cfg, char *errbuf, size_t len);
/* Waits until every coroutine has ended, stops the workers, frees everything.
   Call from outside the runtime (not from a coroutine). */
void coro_runtime_stop (void);
/* "io_uring" or "epoll" (NULL before start). */
const char *coro_backend_name (void);
/* How the backend runs (e.g. its io_uring setup flags); NULL before start. */
const char *coro_backend_features (void);
/* "madv_guard", "mprotect" or "canary" : what protects stacks in this run. */
const char *coro_guard_name (void);
int coro_nworkers (void);

/* Spawning works from coroutines and from any other thread. */
enum { CORO_COPYSTACK = 1 };
int coro_spawn (void (*fn) (void *), void *arg);
int coro_spawn_ex (void (*fn) (void *), void *arg, int flags);

struct coro;
struct coro *coro_self (void); /* NULL outside coroutines */
void coro_yield (void);
int coro_sleep_ns (uint64_t ns);
/* Parks until CLOCK_MONOTONIC reaches `deadline` (ns, as coro_now_ns). */
int coro_sleep_until_ns (uint64_t deadline);
uint64_t coro_now_ns (void);

/* fd I/O that parks only the calling coroutine.  Outside a coroutine these
   fall back to the plain blocking call. */
ssize_t coro_read (int fd, void *buf, size_t len);
ssize_t coro_write (int fd, const void *buf, size_t len);
ssize_t coro_recv (int fd, void *buf, size_t len, int flags);
ssize_t coro_send (int fd, const void *buf, size_t len, int flags);
int coro_accept (int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
int coro_connect (int fd, const struct sockaddr *addr, socklen_t addrlen);
/* Waits until fd has one of `events` (POLLIN, POLLOUT); returns the revents. */
int coro_poll (int fd, short events);
/* Sends all `outlen` bytes of `out` (as coro_send, MSG_NOSIGNAL), then
   receives once into `in` (as coro_recv): a request/response turn.  Returns
   the receive's result, or -1 with errno from whichever call failed;
   *sent says how much of `out` went (outlen unless the send failed).  On
   io_uring the two are one linked pair of SQEs and one park; on epoll the
   receive waits for readiness before it tries (the peer has only just been
   sent what it answers); outside a coroutine two blocking calls.  `in` may
   be `out`: the receive starts after the send is done. */
ssize_t coro_send_recv (int fd, const void *out, size_t outlen, size_t *sent, void *in, size_t inlen);

/* Synchronisation; a waiter parks, it never spins.  Coroutines only. */
struct coro_lock
{
  int v; /* internal spin lock word, held for a few instructions only */
};

struct coro_waitq
{
  struct coro *head, *tail;
};

struct coro_mutex
{
  struct coro_lock lk;
  int locked;
  struct coro_waitq waiters;
};
#define CORO_MUTEX_INIT { { 0 }, 0, { NULL, NULL } }
void coro_mutex_lock (struct coro_mutex *m);
int coro_mutex_trylock (struct coro_mutex *m); /* 0 when taken */
void coro_mutex_unlock (struct coro_mutex *m);

/* Wait group: coro_wg_wait works from coroutines (parks) and threads (futex). */
struct coro_wg
{
  struct coro_lock lk;
  long count;
  long nwaiters; /* coroutines parked in coro_wg_wait */
  uint32_t seq;  /* futex word for waiting threads */
  struct coro_waitq waiters;
};
#define CORO_WG_INIT { { 0 }, 0, 0, 0, { NULL, NULL } }
void coro_wg_add (struct coro_wg *wg, long n);
void coro_wg_done (struct coro_wg *wg);
void coro_wg_wait (struct coro_wg *wg);
long coro_wg_nwaiters (struct coro_wg *wg);

/* Channel of pointers; cap 0 = unbuffered (rendezvous). */
struct coro_chan;
struct coro_chan *coro_chan_new (size_t cap);
void coro_chan_free (struct coro_chan *ch);
int coro_chan_send (struct coro_chan *ch, void *v);   /* -1/EPIPE when closed */
int coro_chan_recv (struct coro_chan *ch, void **v);  /* -1/EPIPE when closed and empty */
void coro_chan_close (struct coro_chan *ch);

/* Debugging: live coroutines and their states. */
void coro_dump (FILE *out);
/* Installs a handler that dumps to stderr on `sig` (e.g. SIGUSR1). */
int coro_dump_on_signal (int sig);

/* Overheads of this run, for the workloads to print. */
struct coro_stats
{
  uint64_t spawned, live, switches, steals, stacks_carved, arena_bytes;
  size_t stack_size, saved_stack_bytes; /* copy-stack bytes held by parked coroutines */
  uint64_t backend_syscalls; /* io_uring_enter / epoll / fd calls and eventfd wake-ups of the backends */
  uint64_t spins;            /* rounds idle workers spun before parking (coro_config.lone_spin) */
  uint64_t wakes;            /* eventfd writes that woke a parked worker (in backend_syscalls too) */
};
void coro_stats (struct coro_stats *st);

#endif
