/* Description: copy-stack coroutines (copystack.c): locals, deep recursion and
 * pointers into their own stack survive parks while other copy-stack
 * coroutines use the same shared stack; a parked one keeps only a right-sized
 * copy of its used stack (hundreds of bytes, not a page); they never leave
 * their home worker; they mix with own-stack coroutines; the canary of the
 * shared stack catches an overflow. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "coro-internal.h"

static struct coro_wg wg = CORO_WG_INIT;
static _Atomic int corrupt, moved;

static void
start (int workers, size_t shared)
{
  char err[200];
  struct coro_config cfg = { .workers = workers, .stack_size = 16 * 1024, .shared_stack_size = shared };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    fail_msg ("runtime start: %s", err);
}

static long
recurse (long depth, long seed)
{
  volatile long local[8];
  for (int i = 0; i < 8; i++)
    local[i] = seed * 31 + depth * 7 + i;
  long *self_ptr = (long *) &local[3]; /* pointer into our own stack */
  if (depth % 16 == 0)
    coro_yield ();
  long below = depth ? recurse (depth - 1, seed) : 0;
  long sum = below;
  for (int i = 0; i < 8; i++)
    {
      if (local[i] != seed * 31 + depth * 7 + i)
        atomic_fetch_add (&corrupt, 1);
      sum += local[i];
    }
  if (*self_ptr != local[3])
    atomic_fetch_add (&corrupt, 1);
  return sum;
}

static long
expect (long depth, long seed)
{
  long sum = 0;
  for (long d = 0; d <= depth; d++)
    for (int i = 0; i < 8; i++)
      sum += seed * 31 + d * 7 + i;
  return sum;
}

static void
deep (void *arg)
{
  long seed = (long) arg;
  struct coro_worker *home = coro_self ()->home;
  for (int round = 0; round < 5; round++)
    {
      if (recurse (100, seed) != expect (100, seed))
        atomic_fetch_add (&corrupt, 1);
      coro_sleep_ns (1000);
      if (coro_self ()->w != home)
        atomic_fetch_add (&moved, 1);
    }
  coro_wg_done (&wg);
}

static void
plain (void *arg)
{
  for (int i = 0; i < 50; i++)
    coro_yield ();
  coro_wg_done (&wg);
}

static void
test_stack_preserved (void **state)
{
  start (2, 0);
  coro_wg_add (&wg, 64 + 8);
  for (long i = 0; i < 64; i++)
    assert_int_equal (coro_spawn_ex (deep, (void *) i, CORO_COPYSTACK), 0);
  for (long i = 0; i < 8; i++)
    coro_spawn (plain, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  assert_int_equal (corrupt, 0);
  assert_int_equal (moved, 0);
}

static struct coro_wg gate = CORO_WG_INIT;

static void
parker (void *arg)
{
  char buf[64];
  memset (buf, 1, sizeof buf);
  __asm__ volatile ("" : : "r"(buf) : "memory"); /* buf really lives on the stack */
  coro_wg_wait (&gate);
  __asm__ volatile ("" : : "r"(buf) : "memory");
  if (buf[10] != 1)
    atomic_fetch_add (&corrupt, 1);
  coro_wg_done (&wg);
}

static void
test_right_sized (void **state)
{
  enum { N = 10000 };
  start (2, 0);
  coro_wg_add (&gate, 1);
  coro_wg_add (&wg, N);
  for (int i = 0; i < N; i++)
    coro_spawn_ex (parker, NULL, CORO_COPYSTACK);
  while (coro_wg_nwaiters (&gate) < N)
    usleep (1000);
  usleep (20000);
  struct coro_stats st;
  coro_stats (&st);
  double per = (double) st.saved_stack_bytes / N;
  print_message ("saved stack per parked copy-stack coroutine: %.0f B; arenas %lu B\n", per,
                 (unsigned long) st.arena_bytes);
  assert_true (per >= 64 + 64); /* at least the saved registers and buf */
  assert_true (per < 1024);  /* far below a page */
  coro_wg_done (&gate);
  coro_wg_wait (&wg);
  do /* the last ones may still be on their way out after coro_wg_done */
    {
      usleep (1000);
      coro_stats (&st);
    }
  while (st.live != 0);
  assert_int_equal (st.saved_stack_bytes, 0); /* all released at exit */
  coro_runtime_stop ();
  assert_int_equal (corrupt, 0);
}

static void
overflow (void *arg)
{
  volatile uint64_t big[8 * 1024 / 8];
  for (size_t i = 0; i < sizeof big / 8; i++)
    big[i] = i;
  coro_yield ();
  coro_wg_done (&wg);
}

static void
test_shared_stack_canary (void **state)
{
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      signal (SIGABRT, SIG_DFL);
      signal (SIGSEGV, SIG_DFL);
      int devnull = open ("/dev/null", 1);
      dup2 (devnull, 2);
      start (1, 8 * 1024);
      coro_wg_add (&wg, 1);
      coro_spawn_ex (overflow, NULL, CORO_COPYSTACK);
      coro_wg_wait (&wg);
      _exit (0);
    }
  int st;
  assert_int_equal (waitpid (pid, &st, 0), pid);
  assert_true (WIFSIGNALED (st));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_stack_preserved),
    cmocka_unit_test (test_right_sized),
    cmocka_unit_test (test_shared_stack_canary),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
