/* Description: the per-worker timers (timer.c): sleepers whose deadlines arrive
 * in order (the FIFO) and out of order (the heap), mixed on one worker, wake
 * no earlier than their deadline and in deadline order, also when many fall
 * due while the worker is busy and are served in one batch; equal sleeps
 * (the spawn experiment's case) all wake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lab-test.h"

#include "coro-internal.h"

#ifdef LAB_VALGRIND
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define N 1500
/* Deadlines this far apart: 100 us (2 ms under valgrind, which is slow enough
   that sleepers would otherwise register after their deadline has passed). */
#define STEP_NS (RUNNING_ON_VALGRIND ? 2000000u : 100000u)

static struct coro_wg wg = CORO_WG_INIT;
static uint64_t deadline[N], woke[N];
static int order[N], n_woke;
static long slot[N];

static void
sleeper (void *arg)
{
  long i = (long) arg;
  uint64_t d = (uint64_t) slot[i] * STEP_NS + STEP_NS;
  deadline[i] = coro_now_ns () + d;
  coro_sleep_until_ns (deadline[i]); /* the runtime's deadline is exactly ours */
  woke[i] = coro_now_ns ();
  order[n_woke++] = (int) i; /* one worker: no race */
  coro_wg_done (&wg);
}

/* Runs after every sleeper has registered its timer and keeps the only
   worker busy while half of them fall due, so they are served in one batch
   where FIFO and heap timers must be merged in deadline order. */
static void
blocker (void *arg)
{
  uint64_t until = coro_now_ns () + (uint64_t) N / 2 * STEP_NS;
  while (coro_now_ns () < until)
    ;
  coro_wg_done (&wg);
}

static void
root (void *arg)
{
  for (long i = 0; i < N; i++)
    assert_int_equal (coro_spawn (sleeper, (void *) i), 0);
  assert_int_equal (coro_spawn (blocker, NULL), 0);
  coro_wg_done (&wg);
}

static void
run (const char *backend)
{
  char err[200];
  struct coro_config cfg = { .workers = 1, .stack_size = 32 * 1024, .backend = backend };

  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    {
      if (backend && backend[0] == 'i')
        skip_because ("io_uring backend unavailable here");
      fail_msg ("runtime start: %s", err);
    }
  n_woke = 0;
  coro_wg_add (&wg, N + 2);
  assert_int_equal (coro_spawn (root, NULL), 0);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  assert_int_equal (n_woke, N);
  for (int i = 0; i < N; i++)
    assert_true (woke[i] >= deadline[i]);
  for (int k = 1; k < N; k++)
    if (deadline[order[k]] < deadline[order[k - 1]])
      fail_msg ("woke out of order: #%d (deadline +%llu ns) after #%d (deadline +%llu ns)", order[k],
                (unsigned long long) (deadline[order[k]] - deadline[0]), order[k - 1],
                (unsigned long long) (deadline[order[k - 1]] - deadline[0]));
}

/* Slots: first half ascending (FIFO), then a shuffled half (mostly heap). */
static void
mixed_slots (void)
{
  srand (7);
  for (long i = 0; i < N; i++)
    slot[i] = i < N / 2 ? i : N / 2 + rand () % (N / 2);
}

static void
test_mixed_epoll (void **state)
{
  mixed_slots ();
  run ("epoll");
}

static void
test_mixed_io_uring (void **state)
{
  if (RUNNING_ON_VALGRIND)
    skip_because ("io_uring case under valgrind (3.19 hangs in io_uring waits, see coro-io)");
  mixed_slots ();
  run ("io_uring");
}

static void
test_equal_sleeps (void **state)
{
  for (long i = 0; i < N; i++)
    slot[i] = 3;
  run (NULL);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_mixed_epoll),
    cmocka_unit_test (test_mixed_io_uring),
    cmocka_unit_test (test_equal_sleeps),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
