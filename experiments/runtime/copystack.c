/*
 * copystack.c - copy-stack (shared stack) coroutines, after libaco.
 *
 * Each worker has one shared stack (coro_S.shared_size, mmap'd on first use).
 * A copy-stack coroutine runs on its home worker's shared stack; when it
 * switches out (always to the worker's own stack, see sched.c) the worker
 * copies the used part, [sp, top), into a malloc'd buffer of exactly that
 * size, so a parked coroutine costs its struct coro (one pool slot) plus the
 * few hundred bytes its frames really use.  Before it runs again the buffer is
 * copied back to the same addresses.  Frames hold pointers into the shared
 * stack, so the coroutine never leaves its home worker (invariant 4 in
 * sched.c), and buffers on its stack must not be handed to asynchronous I/O.
 * The canary is the shared stack's lowest word; it is checked at each switch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coro-internal.h"

#ifdef LAB_ASAN
#include <sanitizer/asan_interface.h>
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION ((p), (n))
#else
#define UNPOISON(p, n) ((void) 0)
#endif
#ifdef LAB_VALGRIND
#include <valgrind/memcheck.h>
/* memcheck marked the shared stack below the last sp as no-access */
#define VG_WRITABLE(p, n) VALGRIND_MAKE_MEM_UNDEFINED ((p), (n))
#else
#define VG_WRITABLE(p, n) ((void) 0)
#endif

static void __attribute__ ((noreturn))
die (const char *what)
{
  char msg[160];
  int n = snprintf (msg, sizeof msg, "coro: copy-stack: %s\n", what);
  if (write (2, msg, (size_t) n) < 0)
    abort ();
  abort ();
}

static char *
shared_top (struct coro_worker *w)
{
  if (!w->shared_stack)
    {
      w->shared_size = coro_S.shared_size;
      void *p = mmap (NULL, w->shared_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
      if (p == MAP_FAILED)
        die ("cannot map the shared stack");
      w->shared_stack = p;
      *(uint64_t *) p = CORO_CANARY;
      coro_valgrind_register (p, (char *) p + w->shared_size);
    }
  return w->shared_stack + w->shared_size;
}

void
coro_copystack_prepare (struct coro *c)
{
  struct coro_frame fr = { .mxcsr = coro_S.mxcsr, .fpucw = coro_S.fpucw,
                           .r12 = (uint64_t) c, .ret = (uint64_t) coro_trampoline };
  c->saved = malloc (sizeof fr);
  if (!c->saved)
    die ("out of memory for a saved stack");
  memcpy (c->saved, &fr, sizeof fr);
  c->saved_len = sizeof fr;
  __atomic_fetch_add (&c->home->saved_bytes, (long) sizeof fr, __ATOMIC_RELAXED);
}

void
coro_copystack_restore (struct coro_worker *w, struct coro *c)
{
  char *top = shared_top (w);
  char *dst = top - c->saved_len;
  UNPOISON (w->shared_stack, w->shared_size);
  VG_WRITABLE (dst, c->saved_len);
  memcpy (dst, c->saved, c->saved_len);
  c->ctx.sp = dst;
  c->canary = (uint64_t *) w->shared_stack;
}

void
coro_copystack_save (struct coro_worker *w, struct coro *c)
{
  char *top = w->shared_stack + w->shared_size;
  size_t used = (size_t) (top - (char *) c->ctx.sp);
  if (used > w->shared_size)
    die ("stack pointer outside the shared stack");
  if (used != c->saved_len)
    {
      void *p = realloc (c->saved, used);
      if (!p)
        die ("out of memory for a saved stack");
      __atomic_fetch_add (&w->saved_bytes, (long) used - (long) c->saved_len, __ATOMIC_RELAXED);
      c->saved = p;
      c->saved_len = (uint32_t) used;
    }
  UNPOISON (c->ctx.sp, used);
  memcpy (c->saved, c->ctx.sp, used);
}

void
coro_copystack_release (struct coro_worker *w, struct coro *c)
{
  __atomic_fetch_sub (&w->saved_bytes, (long) c->saved_len, __ATOMIC_RELAXED);
  free (c->saved);
  c->saved = NULL;
  c->saved_len = 0;
}

void
coro_copystack_fini (struct coro_worker *w)
{
  if (w->shared_stack)
    munmap (w->shared_stack, w->shared_size);
  w->shared_stack = NULL;
}
