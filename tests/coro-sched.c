/* Description: the M:N scheduler (sched.c): many coroutines spread over
 * several workers and all run; idle workers steal; wake-ups are not lost
 * under stress (threads outside the runtime and coroutines on other workers
 * waking parked coroutines, many thousand times, with workers going idle in
 * between); errno is right after a coroutine migrates; coro_dump lists parked
 * coroutines with their reason, also from a signal handler. A lost wake-up hangs: alarm() turns it into
 * a failure. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coro-internal.h"

#ifdef LAB_VALGRIND
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
/* valgrind runs one thread at a time, ~50x slower: fewer rounds there */
#define ROUNDS(n) (RUNNING_ON_VALGRIND ? (n) / 10 : (n))

static struct coro_wg wg = CORO_WG_INIT;

static void
start (int workers)
{
  char err[200];
  struct coro_config cfg = { .workers = workers, .stack_size = 32 * 1024 };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    fail_msg ("runtime start: %s", err);
}

static _Atomic long ran_on[8];

static void
work (void *arg)
{
  volatile unsigned x = 0;
  for (int i = 0; i < 2000; i++)
    x += (unsigned) i;
  atomic_fetch_add (&ran_on[coro_self ()->w->id], 1);
  coro_yield ();
  coro_wg_done (&wg);
}

static void
spawner (void *arg)
{
  for (int i = 0; i < 20000; i++)
    coro_spawn (work, NULL);
  coro_wg_done (&wg);
}

static void
test_spread_and_steal (void **state)
{
  start (4);
  coro_wg_add (&wg, 20001);
  coro_spawn (spawner, NULL); /* all work starts on one worker */
  coro_wg_wait (&wg);
  struct coro_stats st;
  coro_stats (&st);
  coro_runtime_stop ();
  long total = 0, used = 0;
  for (int i = 0; i < 4; i++)
    {
      total += ran_on[i];
      used += ran_on[i] > 0;
    }
  print_message ("ran %ld; per worker %ld %ld %ld %ld; steals %lu\n", total, ran_on[0], ran_on[1],
                 ran_on[2], ran_on[3], (unsigned long) st.steals);
  assert_int_equal (total, 20000);
  assert_true (used >= 2);
  assert_true (st.steals > 0);
}

/* Outside thread -> coroutine: spawn + wait from a thread, over and over, so
   workers park between rounds and must be woken each time. */
static void
quick (void *arg)
{
  coro_wg_done (&wg);
}

static void
test_no_lost_wakeup_from_outside (void **state)
{
  start (2);
  alarm (15);
  for (int i = 0; i < ROUNDS (20000); i++)
    {
      coro_wg_add (&wg, 2);
      coro_spawn (quick, NULL);
      coro_spawn (quick, NULL);
      coro_wg_wait (&wg);
      if (i % 1000 == 0)
        usleep (200); /* let the workers go idle and park */
    }
  alarm (0);
  coro_runtime_stop ();
}

/* Coroutine <-> coroutine across workers: a token passed around a ring of
   coroutines through channels; the holder sometimes sleeps so others park. */
enum { RING = 8, LAPS = 3000 };
static struct coro_chan *ring[RING];

static void
ring_node (void *arg)
{
  long me = (long) arg;
  void *v;
  for (;;)
    {
      if (coro_chan_recv (ring[me], &v) < 0)
        break;
      long hops = (long) v + 1;
      if (hops % 97 == 0)
        coro_sleep_ns (20000);
      if (hops == RING * ROUNDS (LAPS))
        {
          for (int i = 0; i < RING; i++)
            coro_chan_close (ring[i]);
          break;
        }
      coro_chan_send (ring[(me + 1) % RING], (void *) hops);
    }
  coro_wg_done (&wg);
}

static void
inject (void *arg)
{
  coro_chan_send (ring[0], (void *) 0);
  coro_wg_done (&wg);
}

static void
test_no_lost_wakeup_between_workers (void **state)
{
  start (2);
  alarm (15);
  for (int i = 0; i < RING; i++)
    ring[i] = coro_chan_new (0);
  coro_wg_add (&wg, RING + 1);
  for (long i = 0; i < RING; i++)
    coro_spawn (ring_node, (void *) i);
  coro_spawn (inject, NULL); /* sends the token from a coroutine */
  coro_wg_wait (&wg);
  alarm (0);
  coro_runtime_stop ();
  for (int i = 0; i < RING; i++)
    coro_chan_free (ring[i]);
}


/* errno after migration */
static _Atomic int errno_bad, migrated;

static void
errno_checker (void *arg)
{
  char buf[8];
  for (int i = 0; i < 200; i++)
    {
      struct coro_worker *before = coro_self ()->w;
      volatile unsigned x = 0;
      for (int k = 0; k < 20000; k++) /* keep this worker busy so the other steals */
        x += (unsigned) k;
      coro_yield ();
      ssize_t r = coro_read (-1, buf, sizeof buf); /* parks in io_uring; EBADF */
      int e = errno;
      if (r != -1 || e != EBADF)
        atomic_fetch_add (&errno_bad, 1);
      if (coro_self ()->w != before)
        atomic_fetch_add (&migrated, 1);
    }
  coro_wg_done (&wg);
}

static void
test_errno_after_migration (void **state)
{
  start (2);
  coro_wg_add (&wg, 64);
  for (int i = 0; i < 64; i++)
    coro_spawn (errno_checker, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  print_message ("%d migrations seen, %d wrong errno\n", migrated, errno_bad);
  assert_int_equal (errno_bad, 0);
  if (!RUNNING_ON_VALGRIND) /* valgrind's one-thread-at-a-time rarely migrates */
    assert_true (migrated > 0); /* else this test did not test migration */
}

static struct coro_wg gate = CORO_WG_INIT;

static void
parked (void *arg)
{
  coro_wg_wait (&gate);
  coro_wg_done (&wg);
}

static void
test_dump (void **state)
{
  start (2);
  coro_wg_add (&gate, 1);
  coro_wg_add (&wg, 3);
  for (int i = 0; i < 3; i++)
    coro_spawn (parked, NULL);
  while (coro_wg_nwaiters (&gate) < 3)
    usleep (1000);
  usleep (10000);
  FILE *t = tmpfile (); /* coro_dump writes to the FILE's fd */
  coro_dump (t);
  rewind (t);
  char text[4096];
  size_t n = fread (text, 1, sizeof text - 1, t);
  text[n] = 0;
  fclose (t);
  print_message ("%s", text);
  int count = 0;
  for (char *p = text; (p = strstr (p, "parked  waitgroup")); p++)
    count++;
  assert_int_equal (count, 3);
  assert_non_null (strstr (text, "live 3"));

  /* the same on SIGUSR1, to stderr */
  FILE *e = tmpfile ();
  int saved = dup (2);
  dup2 (fileno (e), 2);
  assert_int_equal (coro_dump_on_signal (SIGUSR1), 0);
  raise (SIGUSR1);
  dup2 (saved, 2);
  close (saved);
  rewind (e);
  n = fread (text, 1, sizeof text - 1, e);
  text[n] = 0;
  fclose (e);
  signal (SIGUSR1, SIG_DFL);
  assert_non_null (strstr (text, "coro dump: 3 listed"));
  coro_wg_done (&gate);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_spread_and_steal),
    cmocka_unit_test (test_no_lost_wakeup_from_outside),
    cmocka_unit_test (test_no_lost_wakeup_between_workers),
    cmocka_unit_test (test_errno_after_migration),
    cmocka_unit_test (test_dump),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
