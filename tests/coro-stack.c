/* Description: coroutine stacks (stack.c): the canary at the low end catches
 * an overflow at the next switch (the child aborts naming the coroutine); a
 * MADV_GUARD_INSTALL or mprotect guard page turns a write below the stack into
 * SIGSEGV (and such stacks have no canary word of their own); freed stacks are reused instead of carving new ones; the stack
 * size is configurable (rounded up to pages above half a page; 2 KiB sub-page
 * slots, canary only, at or below it, where the canary alone still catches an
 * overflow). Overflows run in forked children. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab-test.h"

#include "coro-internal.h"

static struct coro_wg wg = CORO_WG_INIT;

static void
start (int workers, size_t stack, enum coro_guard guard)
{
  char err[200];
  struct coro_config cfg = { .workers = workers, .stack_size = stack, .guard = guard };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    fail_msg ("runtime start: %s", err);
}

static void __attribute__ ((noinline))
smash (void *arg)
{
  /* a frame as large as the whole 16 KiB stack: every word written, so the
     canary at the low end is overwritten (the neighbour slot's top too) */
  volatile uint64_t big[16 * 1024 / 8];
  for (size_t i = 0; i < sizeof big / 8; i++)
    big[i] = i;
  coro_yield ();
  coro_wg_done (&wg);
}

static void __attribute__ ((noinline))
smash_2k (void *arg)
{
  /* a 2 KiB frame on a 2 KiB sub-page stack (no guard page): overwrites the
     canary and a little of the slot below, as a real overflow would */
  volatile uint64_t big[2048 / 8];
  for (size_t i = 0; i < sizeof big / 8; i++)
    big[i] = i;
  coro_yield ();
  coro_wg_done (&wg);
}

static void
below_stack (void *arg)
{
  volatile char *p = (volatile char *) coro_stack_lo (coro_self ()) - 64;
  *p = 1; /* inside the guard page */
  coro_wg_done (&wg);
}

static void (*child_fn) (void *);

/* Spawned from a coroutine, fn gets a slot from a worker's batch: a
   neighbour slot (not the arena's edge) lies below it. */
static void
launcher (void *arg)
{
  coro_spawn (child_fn, NULL);
}

/* Runs fn in a child with the given guard; returns its wait status, and its
   stderr in buf. */
static int
in_child_stack (void (*fn) (void *), size_t stack, enum coro_guard guard, char *buf, size_t len)
{
  int pfd[2];
  assert_int_equal (pipe (pfd), 0);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      /* cmocka catches SIGSEGV/SIGABRT to report failures: let them kill us */
      signal (SIGSEGV, SIG_DFL);
      signal (SIGABRT, SIG_DFL);
      signal (SIGBUS, SIG_DFL);
      dup2 (pfd[1], 2);
      close (pfd[0]);
      start (1, stack, guard);
      coro_wg_add (&wg, 1);
      child_fn = fn;
      coro_spawn (launcher, NULL);
      coro_wg_wait (&wg);
      coro_runtime_stop ();
      _exit (0);
    }
  close (pfd[1]);
  size_t n = 0;
  ssize_t r;
  while (n + 1 < len && (r = read (pfd[0], buf + n, len - 1 - n)) > 0)
    n += (size_t) r;
  buf[n] = 0;
  close (pfd[0]);
  int st;
  assert_int_equal (waitpid (pid, &st, 0), pid);
  return st;
}

static int
in_child (void (*fn) (void *), enum coro_guard guard, char *buf, size_t len)
{
  return in_child_stack (fn, 16 * 1024, guard, buf, len);
}

static void
test_canary_detects_overflow (void **state)
{
  char out[1024];
  int st = in_child (smash, CORO_GUARD_NONE, out, sizeof out);
  print_message ("child stderr: %s", out);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGABRT);
  assert_non_null (strstr (out, "stack overflow in coroutine"));
}

/* Sub-page stacks (two per 4 KiB page) have no guard page even with the
   default guard: the canary must catch the overflow. */
static void __attribute__ ((unused))
test_canary_detects_overflow_subpage (void **state)
{
  char out[1024];
  int st = in_child_stack (smash_2k, 2048, CORO_GUARD_AUTO, out, sizeof out);
  print_message ("child stderr: %s", out);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGABRT);
  assert_non_null (strstr (out, "stack overflow in coroutine"));
}

static bool
madv_guard_works (void)
{
  start (1, 16 * 1024, CORO_GUARD_AUTO);
  bool ok = strcmp (coro_guard_name (), "madv_guard") == 0;
  coro_runtime_stop ();
  return ok;
}

static void
test_guard_page_madvise (void **state)
{
  if (!madv_guard_works ())
    skip_because ("the kernel has no MADV_GUARD_INSTALL: guard pages not tested (canary only)");
  char out[256];
  int st = in_child (below_stack, CORO_GUARD_AUTO, out, sizeof out);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGSEGV);
}

static void
test_guard_page_mprotect (void **state)
{
  char out[256];
  int st = in_child (below_stack, CORO_GUARD_MPROTECT, out, sizeof out);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGSEGV);
}

static void
test_no_guard_no_fault (void **state)
{
  /* control: without a guard the same write lands in the neighbour slot */
  char out[256];
  int st = in_child (below_stack, CORO_GUARD_NONE, out, sizeof out);
  assert_true (WIFEXITED (st));
}

static void
nothing (void *arg)
{
  coro_wg_done (&wg);
}

static void
test_stacks_reused (void **state)
{
  start (1, 32 * 1024, CORO_GUARD_AUTO);
  for (int round = 0; round < 100; round++)
    {
      coro_wg_add (&wg, 100);
      for (int i = 0; i < 100; i++)
        assert_int_equal (coro_spawn (nothing, NULL), 0);
      coro_wg_wait (&wg);
    }
  struct coro_stats st;
  coro_stats (&st);
  print_message ("10000 coroutines, %lu stacks carved\n", (unsigned long) st.stacks_carved);
  assert_true (st.stacks_carved < 1000); /* 10000 without reuse */
  assert_true (st.arena_bytes >= 32 * 1024);
  coro_runtime_stop ();
}

static size_t usable_seen;
static bool canary_in_stack;

static void
measure (void *arg)
{
  usable_seen = (size_t) ((char *) coro_stack_top (coro_self ()) - (char *) coro_stack_lo (coro_self ()));
  canary_in_stack = coro_self ()->canary == coro_stack_lo (coro_self ());
  coro_wg_done (&wg);
}

static void
test_stack_size_configurable (void **state)
{
  size_t sizes[] = { 4096, 16 * 1024, 256 * 1024 };
  for (size_t i = 0; i < 3; i++)
    {
      start (1, sizes[i], CORO_GUARD_AUTO);
      coro_wg_add (&wg, 1);
      coro_spawn (measure, NULL);
      coro_wg_wait (&wg);
      /* a guard page below the stack: no canary word in the stack itself */
      assert_true (canary_in_stack == (strcmp (coro_guard_name (), "canary") == 0));
      coro_runtime_stop ();
      assert_true (usable_seen < sizes[i]);
      assert_true (usable_seen >= sizes[i] - 256);
    }
  /* above half a page, sizes round up to whole pages */
  start (1, 2049, CORO_GUARD_AUTO);
  coro_wg_add (&wg, 1);
  coro_spawn (measure, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  assert_true (usable_seen >= 4096 - 256 && usable_seen < 4096);
  /* half a page or less: 2 KiB sub-page slots, canary only, whatever the
     guard asked; a guard page cannot be had for them */
  size_t small[] = { 512, 2048 };
  for (size_t i = 0; i < 2; i++)
    {
      start (1, small[i], CORO_GUARD_AUTO);
      assert_string_equal (coro_guard_name (), "canary");
      coro_wg_add (&wg, 1);
      coro_spawn (measure, NULL);
      coro_wg_wait (&wg);
      coro_runtime_stop ();
      assert_true (canary_in_stack);
      assert_true (usable_seen >= 2048 - 256 && usable_seen < 2048);
    }
  char err[200];
  struct coro_config cfg = { .workers = 1, .stack_size = 2048, .guard = CORO_GUARD_MPROTECT };
  assert_int_equal (coro_runtime_start (&cfg, err, sizeof err), -1);
  assert_non_null (strstr (err, "whole-page stacks"));
}

static struct coro_wg gate4k = CORO_WG_INIT;

static uintptr_t parked_at[5000];

static void
tiny (void *arg)
{
  parked_at[(long) arg] = (uintptr_t) coro_self ();
  coro_wg_wait (&gate4k);
  coro_wg_done (&wg);
}

/* The memory experiment's shape: one-page (or 2 KiB sub-page) stacks, struct
   coro included, many parked, then all released and freed (spilling slots
   back to the pool from a coroutine's stack). Crashed before the link used
   -z now. */
static void
park_many (size_t stack)
{
  int workers = 2;
#ifdef __SANITIZE_ADDRESS__
  stack = 16384; /* ASan's frames and interceptors need more */
#endif
#ifdef LAB_VALGRIND
  /* valgrind 3.19 tells a stack switch from a frame by ONE "current stack"
     for all threads: with two workers switching among stacks 2 KiB apart it
     takes switches for frames and marks live stacks inaccessible */
  if (stack < 4096)
    workers = 1;
#endif
  start (workers, stack, CORO_GUARD_AUTO);
  coro_wg_add (&gate4k, 1);
  coro_wg_add (&wg, 5000);
  for (int i = 0; i < 5000; i++)
    assert_int_equal (coro_spawn (tiny, (void *) (long) i), 0);
  while (coro_wg_nwaiters (&gate4k) < 5000)
    usleep (1000);
  struct coro_stats st;
  coro_stats (&st);
  coro_wg_done (&gate4k);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  assert_true (st.stacks_carved >= 5000); /* every parked one holds its own slot */
#ifndef __SANITIZE_ADDRESS__
  /* pages holding the 5000 parked coroutines (struct coro at each slot's
     top): one each with 4 KiB stacks, one per two with 2 KiB ones */
  long pg = sysconf (_SC_PAGESIZE), pages = 0;
  for (int i = 0; i < 5000; i++)
    {
      int dup = 0;
      for (int j = i - 1; j >= 0 && j >= i - 64 && !dup; j--)
        dup = parked_at[j] / (uintptr_t) pg == parked_at[i] / (uintptr_t) pg;
      pages += !dup;
    }
  print_message ("%zu-byte stacks: 5000 parked coroutines on %ld pages\n", stack, pages);
  if (stack < (size_t) pg)
    assert_true (pages <= (long) (5000 * stack / (size_t) pg) + 64);
  else
    assert_int_equal (pages, 5000);
#endif
}

static void
test_one_page_stacks (void **state)
{
  park_many (4096);
}

static void
test_subpage_stacks (void **state)
{
  park_many (2048);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_canary_detects_overflow),
    cmocka_unit_test (test_guard_page_madvise),
    cmocka_unit_test (test_guard_page_mprotect),
    cmocka_unit_test (test_no_guard_no_fault),
    cmocka_unit_test (test_stacks_reused),
    cmocka_unit_test (test_stack_size_configurable),
    cmocka_unit_test (test_one_page_stacks),
    cmocka_unit_test (test_subpage_stacks),
#ifndef __SANITIZE_ADDRESS__ /* ASan's frames and interceptors do not fit a 2 KiB stack: the plain build runs it */
    cmocka_unit_test (test_canary_detects_overflow_subpage),
#endif
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
