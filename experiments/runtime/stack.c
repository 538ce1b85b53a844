/*
 * stack.c - coroutine stacks from pooled mmap arenas.
 *
 * A pool cuts big anonymous mappings (arenas, MAP_NORESERVE) into equal slots;
 * nothing is mmap'd per coroutine and the kernel only backs pages a stack
 * touches.  Stack slot layout, low to high address:
 *
 *     [ guard page ][ canary | ........ stack grows down ........ | struct coro ]
 *     (the canary word only in slots without a guard page, see below)
 *
 * The struct coro sits at the slot's top, so a parked coroutine with a small
 * stack costs one page for stack and header together.  A stack size of half
 * a page or less gives sub-page slots (2 KiB, or the next power of two),
 * several per page and no guard page (there is no page of their own to
 * guard): the canary alone catches an overflow, at the next switch, after it
 * may already have overwritten the struct coro of the slot below.  Half the
 * pages also means half the first-touch faults and page clearing, which is
 * most of the cost of spawning many parked coroutines; a fresh batch of them
 * is faulted in by one MADV_POPULATE_WRITE.  The canary is the
 * lowest word of the usable stack; coro_check_canary() runs at every switch
 * and aborts with a message naming the coroutine when it was overwritten.
 * Slots WITH a guard page get no canary word: the guard page faults at the
 * first write below the stack, sooner than any canary check, and a canary at
 * the low end of a 64 KiB stack cost one more page per coroutine (RSS and a
 * first-touch fault) plus a cold cache line read at every switch.  Their
 * c->canary points at coro_canary_guarded, a runtime word that always holds
 * the canary value, so the per-switch check stays one branch-free load.
 * Guard page: MADV_GUARD_INSTALL (Linux 6.13+) makes it fault without a new
 * VMA; detected at start by trying it; without it the run falls back to the
 * canary alone.  Fresh slots are carved BATCH at a time and their guards
 * installed by one process_madvise() on the process itself (one madvise per
 * slot where the kernel refuses that).  CORO_GUARD_MPROTECT uses mprotect(PROT_NONE) instead, which
 * splits the arena into 2 VMAs per stack and stops near 32K stacks under the
 * default vm.max_map_count, so it is only used on request.
 * A second pool holds bare struct coro slots for copy-stack coroutines.
 * Freed slots go to the worker's cache (an array of pointers, no lock),
 * spilling half to the pool's free array beyond CORO_CACHE_MAX; refills take
 * BATCH pointers back.  Free slots are tracked by pointer arrays, never by
 * links inside the slots, so moving them between workers does not chase
 * cold memory.  Slots are never unmapped before coro_pools_fini.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coro-internal.h"

#ifdef LAB_ASAN
#include <sanitizer/asan_interface.h>
#endif

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef PIDFD_SELF_THREAD
#define PIDFD_SELF_THREAD (-10000) /* the calling thread (its mm is ours), Linux 6.15 */
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

enum { BATCH = 64, SUBPAGE_MIN = 2048 };

struct coro_arena
{
  struct coro_arena *next;
  char *base;
  size_t nslots, carved;
};

struct coro_pool
{
  pthread_mutex_t mu;
  size_t slot;    /* bytes per slot, guard included */
  size_t guard;   /* guard bytes at the slot's low end */
  size_t arena_slots;
  bool stacks;
  struct coro_arena *arenas;
  struct coro_arena *outside; /* carved by threads outside the runtime */
  struct coro **free; /* free slots */
  size_t nfree, capfree;
};

static struct coro_pool stack_pool = { .mu = PTHREAD_MUTEX_INITIALIZER };
static struct coro_pool obj_pool = { .mu = PTHREAD_MUTEX_INITIALIZER };
static enum coro_guard guard_mode;
static size_t page_size;
const char *coro_guard_kind = "canary";
uint64_t coro_canary_guarded = CORO_CANARY;
atomic_ulong coro_stacks_carved, coro_arena_bytes;

#define HDR_SIZE ((sizeof (struct coro) + 63) & ~(size_t) 63)

static struct coro *
slot_coro (struct coro_pool *p, char *slot)
{
  if (!p->stacks)
    return (struct coro *) slot;
  return (struct coro *) (slot + p->slot - HDR_SIZE);
}

void *
coro_stack_top (struct coro *c)
{
  return (void *) ((uintptr_t) c & ~(uintptr_t) 15);
}

/* Slots are whole pages apart, so every stack's top has the same address
   bits 11:0, and so do the frames of two coroutines at the same depth: the
   registers coro_switch pops from one stack then follow, at the same 4 KiB
   offset, the pushes just made to the other, and the CPU holds the loads back
   as possibly aliasing those stores ("4K aliasing"): ~0.8 ns of a ~6 ns yield
   between two coroutines on the lab VM.  Stacks of 16 KiB or more start their
   first frame 0, 64, 128 or 192 bytes below the top, by slot, so neighbours
   differ; smaller stacks keep every byte. */
void *
coro_stack_start (struct coro *c)
{
  size_t colour = 0;
  if (coro_stack_usable () >= 16 * 1024 - HDR_SIZE)
    colour = ((uintptr_t) c / stack_pool.slot) % 4 * 64;
  return (char *) coro_stack_top (c) - colour;
}

size_t
coro_stack_usable (void)
{
  return stack_pool.slot - stack_pool.guard - HDR_SIZE;
}

void *
coro_stack_lo (struct coro *c)
{
  return (char *) c - coro_stack_usable ();
}

static bool
guard_probe (void)
{
  long pg = sysconf (_SC_PAGESIZE);
  void *p = mmap (NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return false;
  bool ok = madvise (p, pg, MADV_GUARD_INSTALL) == 0;
  munmap (p, 2 * pg);
  return ok;
}

/* Slot bytes (guard excluded) for a requested stack size: whole pages, or,
   for a request of half a page or less, the smallest power of two holding it
   and at least SUBPAGE_MIN (several slots per page, canary only). */
static size_t
slot_bytes (size_t stack_size, size_t pg)
{
  if (stack_size > pg / 2)
    return (stack_size + pg - 1) & ~(pg - 1);
  size_t sz = SUBPAGE_MIN;
  while (sz < stack_size)
    sz *= 2;
  return sz;
}

int
coro_pools_init (size_t stack_size, enum coro_guard guard, char *errbuf, size_t len)
{
  size_t pg = (size_t) sysconf (_SC_PAGESIZE);
  size_t sz = slot_bytes (stack_size, pg);
  page_size = pg;
  if (sz < HDR_SIZE + 1024)
    {
      snprintf (errbuf, len, "stack size %zu too small (at least %zu bytes)", stack_size,
                (size_t) SUBPAGE_MIN);
      errno = EINVAL;
      return -1;
    }
  if (sz < pg && guard == CORO_GUARD_MPROTECT)
    {
      snprintf (errbuf, len, "stack size %zu: a guard page needs whole-page stacks (%zu bytes "
                "or more); stacks under a page have the canary only", stack_size, pg);
      errno = EINVAL;
      return -1;
    }
  guard_mode = guard;
  if (guard == CORO_GUARD_AUTO)
    guard_mode = sz >= pg && guard_probe () ? CORO_GUARD_AUTO : CORO_GUARD_NONE;
  coro_guard_kind = guard_mode == CORO_GUARD_AUTO ? "madv_guard"
                    : guard_mode == CORO_GUARD_MPROTECT ? "mprotect" : "canary";
  stack_pool.stacks = true;
  stack_pool.guard = guard_mode == CORO_GUARD_NONE ? 0 : pg;
  stack_pool.slot = sz + stack_pool.guard;
  stack_pool.arena_slots = (64u << 20) / stack_pool.slot;
  if (stack_pool.arena_slots < 16)
    stack_pool.arena_slots = 16;
  obj_pool.stacks = false;
  obj_pool.guard = 0;
  obj_pool.slot = HDR_SIZE;
  obj_pool.arena_slots = (16u << 20) / HDR_SIZE;
  return 0;
}

static void
pool_fini (struct coro_pool *p)
{
  struct coro_arena *a = p->arenas;
  while (a)
    {
      struct coro_arena *next = a->next;
      munmap (a->base, a->nslots * p->slot);
      free (a);
      a = next;
    }
  p->arenas = p->outside = NULL;
  free (p->free);
  p->free = NULL;
  p->nfree = p->capfree = 0;
}

void
coro_pools_fini (void)
{
  pool_fini (&stack_pool);
  pool_fini (&obj_pool);
  atomic_store (&coro_stacks_carved, 0);
  atomic_store (&coro_arena_bytes, 0);
}

/* Called with p->mu held: a fresh slot from *cur, or from a new arena that
   becomes *cur; NULL when mmap fails.  Each worker carves from an arena of
   its own (its cache's): two workers faulting in fresh stacks at once then
   touch different page tables, instead of taking turns on one page-table
   lock (a third of the kernel's time spawning 1M parked coroutines). */
static char *
carve_locked (struct coro_pool *p, struct coro_arena **cur)
{
  struct coro_arena *a = *cur;
  if (!a || a->carved == a->nslots)
    {
      a = calloc (1, sizeof *a);
      if (!a)
        return NULL;
      a->nslots = p->arena_slots;
      a->base = mmap (NULL, a->nslots * p->slot, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (p->stacks ? MAP_STACK : 0),
                      -1, 0);
      if (a->base == MAP_FAILED)
        {
          free (a);
          return NULL;
        }
      a->next = p->arenas;
      p->arenas = a;
      *cur = a;
      atomic_fetch_add (&coro_arena_bytes, a->nslots * p->slot);
    }
  return a->base + a->carved++ * p->slot;
}

/* Installs the guard pages of n fresh slots with ONE process_madvise() on
   this process (PIDFD_SELF_THREAD, Linux 6.15+; any advice on oneself since
   6.13):
   ~200 ns a slot instead of ~360 ns for one madvise() each on the lab VM.
   Returns 0, or -1 when the kernel refuses the batch (the caller then
   falls back to one madvise per slot, which slot_setup does). */
static __attribute__ ((noinline)) int
guards_install_batch (struct coro_pool *p, struct coro **slots, int n)
{
  struct iovec v[BATCH]; /* 1 KiB: out of line, so refill's frame stays small */
  for (int i = 0; i < n; i++)
    v[i] = (struct iovec){ (char *) slots[i] - (p->slot - HDR_SIZE), p->guard };
  long r = syscall (SYS_process_madvise, PIDFD_SELF_THREAD, v, (size_t) n, MADV_GUARD_INSTALL, 0u);
  return r == (long) (n * p->guard) ? 0 : -1;
}

/* Readies a newly carved stack slot: guard page (unless `guarded` says the
   batch already has it), canary, valgrind. */
static int
slot_setup (struct coro_pool *p, char *slot, bool guarded)
{
  if (p->stacks && guard_mode == CORO_GUARD_AUTO)
    {
      if (!guarded && madvise (slot, p->guard, MADV_GUARD_INSTALL) < 0)
        return -1;
    }
  else if (p->stacks && guard_mode == CORO_GUARD_MPROTECT)
    {
      if (mprotect (slot, p->guard, PROT_NONE) < 0)
        return -1;
    }
  struct coro *c = slot_coro (p, slot);
  memset (c, 0, sizeof *c);
  if (p->stacks && p->guard)
    c->canary = &coro_canary_guarded; /* the guard page watches the low end */
  else if (p->stacks)
    {
      c->canary = (uint64_t *) slot;
      *c->canary = CORO_CANARY;
    }
  if (p->stacks)
    {
      coro_valgrind_register (slot + p->guard, coro_stack_top (c));
      atomic_fetch_add (&coro_stacks_carved, 1);
    }
  return 0;
}

/* Sub-page slots: slot_setup writes every page of a fresh batch (two or
   more slots share each page), so fault them all in with ONE
   MADV_POPULATE_WRITE (Linux 5.14+) instead of one page fault each: the
   same page clearing, without an exception entry and exit per page (about
   a quarter of the kernel time spawning 1M parked 2 KiB coroutines).  Only
   when the batch is one contiguous run (one arena); if the kernel refuses,
   the pages fault in one by one as before. */
static void
populate (struct coro_pool *p, struct coro *const *slots, int n)
{
  char *lo = (char *) slots[0] - (p->slot - HDR_SIZE);
  char *hi = (char *) slots[n - 1] - (p->slot - HDR_SIZE) + p->slot;
  if (hi - lo == (ptrdiff_t) ((size_t) n * p->slot))
    madvise (lo, (size_t) (hi - lo), MADV_POPULATE_WRITE);
}

/* Moves up to BATCH slots into cache (empty): from the free array, else new.
   Fresh slots are listed in cache->slot itself (their struct coro address)
   while being set up: no array on the stack, which may be a 2 KiB one. */
static int
refill (struct coro_pool *p, struct coro_cache *cache)
{
  int nfresh = 0;
  char *slot;
  pthread_mutex_lock (&p->mu);
  size_t take = p->nfree < BATCH ? p->nfree : BATCH;
  p->nfree -= take;
  if (take)
    memcpy (cache->slot, p->free + p->nfree, take * sizeof *cache->slot);
  cache->n = (long) take;
  if (!take)
    while (nfresh < BATCH && (slot = carve_locked (p, &cache->arena)))
      cache->slot[nfresh++] = slot_coro (p, slot);
  pthread_mutex_unlock (&p->mu);
  if (take)
    return 0;
  if (p->stacks && p->slot < page_size && nfresh > 1)
    populate (p, cache->slot, nfresh);
  bool guarded = p->stacks && guard_mode == CORO_GUARD_AUTO && nfresh > 1 && !coro_under_valgrind ()
                 && guards_install_batch (p, cache->slot, nfresh) == 0; /* valgrind 3.19: no process_madvise */
  for (int i = 0; i < nfresh; i++)
    {
      struct coro *c = cache->slot[i];
      if (slot_setup (p, (char *) c - (p->stacks ? p->slot - HDR_SIZE : 0), guarded) < 0)
        break; /* the rest stay carved but unused */
      cache->slot[cache->n++] = c;
    }
  if (!cache->n)
    {
      errno = ENOMEM;
      return -1;
    }
  return 0;
}

/* Gives slots[0..n) back to the pool; false when its array cannot grow. */
static bool
spill_ptrs (struct coro_pool *p, struct coro *const *slots, size_t n)
{
  pthread_mutex_lock (&p->mu);
  if (p->nfree + n > p->capfree)
    {
      size_t cap = p->capfree ? p->capfree * 2 : 4096;
      while (cap < p->nfree + n)
        cap *= 2;
      struct coro **f = realloc (p->free, cap * sizeof *f);
      if (!f)
        {
          pthread_mutex_unlock (&p->mu);
          return false;
        }
      p->free = f;
      p->capfree = cap;
    }
  memcpy (p->free + p->nfree, slots, n * sizeof *slots);
  p->nfree += n;
  pthread_mutex_unlock (&p->mu);
  return true;
}

/* Gives cache->slot[from..n) back to the pool (or keeps them in the cache,
   past its soft limit, when the pool cannot take them). */
static void
spill (struct coro_pool *p, struct coro_cache *cache, long from)
{
  if (spill_ptrs (p, cache->slot + from, (size_t) (cache->n - from)))
    cache->n = from;
}

struct coro *
coro_alloc (struct coro_cache *cache, bool copystack)
{
  struct coro_pool *p = copystack ? &obj_pool : &stack_pool;
  struct coro *c;
  if (!cache)
    {
      /* a thread outside the runtime: straight from the pool */
      pthread_mutex_lock (&p->mu);
      c = p->nfree ? p->free[--p->nfree] : NULL;
      char *slot = c ? NULL : carve_locked (p, &p->outside);
      pthread_mutex_unlock (&p->mu);
      if (!c && (!slot || slot_setup (p, slot, false) < 0))
        {
          errno = ENOMEM;
          return NULL;
        }
      if (!c)
        c = slot_coro (p, slot);
    }
  else
    {
      if (!cache->n && refill (p, cache) < 0)
        return NULL;
      c = cache->slot[--cache->n];
      /* the next spawn's slot: written below, maybe last used on another
         worker (refilled from the pool): fetch its line for writing now */
      if (cache->n)
        __builtin_prefetch (cache->slot[cache->n - 1], 1);
    }
  /* field by field: a memset here compiles to `rep stos`, slow to start */
  c->ctx.sp = NULL;
  c->w = c->home = NULL;
  c->next = NULL;
  c->reason = NULL;
  c->xfer = c->saved = NULL;
  c->saved_len = 0;
  c->state = CORO_FREE;
  c->flags = c->xfer_ok = 0;
  c->io_res = 0;
#ifdef LAB_ASAN
  /* frames of the last user of this stack (an exited coroutine never returns
     through them) or of an earlier mapping at this address stay poisoned */
  if (!copystack)
    ASAN_UNPOISON_MEMORY_REGION (coro_stack_lo (c), coro_stack_usable ());
#endif
  return c;
}

void
coro_cache_flush (struct coro_cache *cache, bool copystack)
{
  spill (copystack ? &obj_pool : &stack_pool, cache, 0);
}

void
coro_free (struct coro_cache *cache, struct coro *c)
{
  bool copystack = c->flags & CF_COPYSTACK;
  struct coro_pool *p = copystack ? &obj_pool : &stack_pool;
  c->state = CORO_FREE;
  /* No struct coro_cache on the stack here (2 KiB): this runs on the stack
     of whichever coroutine comes next, which may be a 2 KiB one. */
  if (!cache)
    {
      spill_ptrs (p, &c, 1);
      return;
    }
  if (cache->n == CORO_CACHE_MAX)
    spill (p, cache, CORO_CACHE_MAX / 2);
  if (cache->n < CORO_CACHE_MAX)
    cache->slot[cache->n++] = c;
  else
    spill_ptrs (p, &c, 1); /* the pool could not grow: try it alone */
}

void
coro_canary_dead (struct coro *c)
{
  char msg[200];
  int n = snprintf (msg, sizeof msg,
                    "coro: stack overflow in coroutine %u (%p): canary at %p overwritten; "
                    "raise the stack size\n", c->id, (void *) c, (void *) c->canary);
  if (write (2, msg, (size_t) n) < 0)
    abort ();
  abort ();
}

static void
walk_pool (struct coro_pool *p, void (*fn) (struct coro *c, void *arg), void *arg)
{
  pthread_mutex_lock (&p->mu);
  for (struct coro_arena *a = p->arenas; a; a = a->next)
    for (size_t i = 0; i < a->carved; i++)
      fn (slot_coro (p, a->base + i * p->slot), arg);
  pthread_mutex_unlock (&p->mu);
}

void
coro_pools_walk (void (*fn) (struct coro *c, void *arg), void *arg)
{
  walk_pool (&stack_pool, fn, arg);
  walk_pool (&obj_pool, fn, arg);
}

enum coro_guard
coro_guard_parse (const char *name)
{
  if (name && strcmp (name, "none") == 0)
    return CORO_GUARD_NONE;
  if (name && strcmp (name, "mprotect") == 0)
    return CORO_GUARD_MPROTECT;
  return CORO_GUARD_AUTO;
}
