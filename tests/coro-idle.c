/* Description: what an idle worker does before it parks and when it wakes
 * (sched.c, idle()).  A lone worker parks at once: while its only coroutine
 * sleeps it spins not one round (coro_stats.spins stays), unless
 * coro_config.lone_spin asks it to; with a second worker to steal from,
 * idle workers spin first as before.  Woken by its own I/O (a pipe written
 * from outside while the worker is parked), a lone worker does not wake
 * itself again through its eventfd (coro_stats.wakes stays).  Counted, not
 * timed: the sleeps and gaps only give the worker idle episodes (20 of
 * them, 1-2 ms each), on both backends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab-test.h"

#include "coro.h"

#define SLEEPS 20

static struct coro_wg wg = CORO_WG_INIT;
static uint64_t spun; /* spin rounds while the sleeper slept */

static void
sleeper (void *arg)
{
  struct coro_stats a, b;
  coro_stats (&a);
  for (int i = 0; i < SLEEPS; i++)
    coro_sleep_ns (1000000);
  coro_stats (&b);
  spun = b.spins - a.spins;
  coro_wg_done (&wg);
}

static uint64_t
spins_while_sleeping (const char *backend, int workers, bool lone_spin)
{
  char err[200];
  struct coro_config cfg = { .workers = workers, .stack_size = 32 * 1024, .backend = backend,
                             .lone_spin = lone_spin };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    {
      if (backend[0] == 'i')
        skip_because ("io_uring backend unavailable here");
      fail_msg ("runtime start: %s", err);
    }
  spun = 0;
  coro_wg_add (&wg, 1);
  assert_int_equal (coro_spawn (sleeper, NULL), 0);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  return spun;
}

static int pipe_fd[2];
static uint64_t woken; /* eventfd wake-ups while the reader read */

static void
reader (void *arg)
{
  struct coro_stats a, b;
  char c;
  coro_stats (&a);
  for (int i = 0; i < SLEEPS; i++)
    assert_int_equal (coro_read (pipe_fd[0], &c, 1), 1);
  coro_stats (&b);
  woken = b.wakes - a.wakes;
  coro_wg_done (&wg);
}

static void
check_self_wake (const char *backend)
{
  char err[200];
  struct coro_config cfg = { .workers = 1, .stack_size = 32 * 1024, .backend = backend };
  assert_int_equal (pipe (pipe_fd), 0);
  assert_int_equal (coro_runtime_start (&cfg, err, sizeof err), 0);
  woken = 0;
  coro_wg_add (&wg, 1);
  assert_int_equal (coro_spawn (reader, NULL), 0);
  for (int i = 0; i < SLEEPS; i++)
    {
      usleep (2000); /* the worker parks in its poll */
      assert_int_equal (write (pipe_fd[1], "x", 1), 1);
    }
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  close (pipe_fd[0]);
  close (pipe_fd[1]);
  if (woken != 0)
    fail_msg ("%s: a lone worker woken by its own I/O %d times wrote its eventfd %llu times; it should run what "
              "its poll reaped without waking itself", backend, SLEEPS, (unsigned long long) woken);
}

static void
check (const char *backend)
{
  uint64_t lone = spins_while_sleeping (backend, 1, false);
  if (lone != 0)
    fail_msg ("%s: a lone worker spun %llu rounds in %d idle episodes; it should park at once", backend,
              (unsigned long long) lone, SLEEPS);
  uint64_t asked = spins_while_sleeping (backend, 1, true);
  if (asked < SLEEPS)
    fail_msg ("%s: lone_spin: %llu spin rounds in %d idle episodes, expected at least one each", backend,
              (unsigned long long) asked, SLEEPS);
  uint64_t two = spins_while_sleeping (backend, 2, false);
  if (two < SLEEPS)
    fail_msg ("%s: 2 workers: %llu spin rounds in %d idle episodes, expected at least one each", backend,
              (unsigned long long) two, SLEEPS);
  check_self_wake (backend);
}

static void
test_epoll (void **state)
{
  check ("epoll");
}

static void
test_io_uring (void **state)
{
  check ("io_uring");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_epoll),
    cmocka_unit_test (test_io_uring),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
