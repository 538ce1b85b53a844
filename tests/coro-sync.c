/* Description: coroutine-aware synchronisation (sync.c): a mutex keeps a
 * counter exact with holders that park inside the critical section, on two
 * workers; unbuffered and buffered channels deliver every value once and in
 * order, and close wakes senders and receivers with EPIPE; a wait group
 * releases coroutine and thread waiters; waiters park (their worker's switch
 * count stays low while blocked), they never spin. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coro-internal.h"

static struct coro_wg wg = CORO_WG_INIT;

static void
start (int workers)
{
  char err[200];
  struct coro_config cfg = { .workers = workers, .stack_size = 32 * 1024 };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    fail_msg ("runtime start: %s", err);
}

static struct coro_mutex mu = CORO_MUTEX_INIT;
static long counter;
static _Atomic int inside, overlap;

static void
locker (void *arg)
{
  for (int i = 0; i < 2000; i++)
    {
      coro_mutex_lock (&mu);
      if (atomic_fetch_add (&inside, 1) != 0)
        atomic_fetch_add (&overlap, 1);
      long v = counter;
      if (i % 50 == 0)
        coro_yield (); /* park while holding the mutex */
      counter = v + 1;
      atomic_fetch_sub (&inside, 1);
      coro_mutex_unlock (&mu);
    }
  coro_wg_done (&wg);
}

static void
test_mutex (void **state)
{
  start (2);
  coro_wg_add (&wg, 16);
  for (int i = 0; i < 16; i++)
    coro_spawn (locker, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  assert_int_equal (overlap, 0);
  assert_int_equal (counter, 16 * 2000);
  assert_int_equal (mu.locked, 0);
}

enum { NVAL = 20000 };
static struct coro_chan *ch;
static long sum_recv, bad_order;

static void
producer (void *arg)
{
  for (long i = 1; i <= NVAL; i++)
    if (coro_chan_send (ch, (void *) i) < 0)
      fail ();
  coro_chan_close (ch);
  coro_wg_done (&wg);
}

static void
consumer (void *arg)
{
  void *v;
  long last = 0;
  while (coro_chan_recv (ch, &v) == 0)
    {
      if ((long) v != last + 1)
        bad_order++;
      last = (long) v;
      sum_recv += (long) v;
    }
  if (errno != EPIPE)
    bad_order++;
  coro_wg_done (&wg);
}

static void
channel_run (size_t cap)
{
  sum_recv = bad_order = 0;
  ch = coro_chan_new (cap);
  start (2);
  coro_wg_add (&wg, 2);
  coro_spawn (consumer, NULL);
  coro_spawn (producer, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  coro_chan_free (ch);
  assert_int_equal (bad_order, 0);
  assert_int_equal (sum_recv, (long) NVAL * (NVAL + 1) / 2);
}

static void
test_channel_unbuffered (void **state)
{
  channel_run (0);
}

static void
test_channel_buffered (void **state)
{
  channel_run (7);
}

static _Atomic int epipe_seen;

static void
blocked_sender (void *arg)
{
  if (coro_chan_send (ch, (void *) 1) < 0 && errno == EPIPE)
    atomic_fetch_add (&epipe_seen, 1);
  coro_wg_done (&wg);
}

static void
blocked_receiver (void *arg)
{
  void *v;
  if (coro_chan_recv (ch, &v) < 0 && errno == EPIPE)
    atomic_fetch_add (&epipe_seen, 1);
  coro_wg_done (&wg);
}

static void
closer (void *arg)
{
  coro_sleep_ns (20 * 1000 * 1000);
  coro_chan_close (ch);
  coro_wg_done (&wg);
}

static void
test_channel_close_wakes (void **state)
{
  struct coro_chan *a = coro_chan_new (0), *b = coro_chan_new (0);
  start (2);
  uint64_t sw0;
  /* receivers on an empty channel */
  ch = a;
  coro_wg_add (&wg, 4);
  for (int i = 0; i < 3; i++)
    coro_spawn (blocked_receiver, NULL);
  coro_spawn (closer, NULL);
  usleep (5000);
  struct coro_stats st;
  coro_stats (&st);
  sw0 = st.switches;
  usleep (10000); /* waiters are parked: no switching while they wait */
  coro_stats (&st);
  print_message ("switches while 3 receivers waited 10 ms: %lu\n", (unsigned long) (st.switches - sw0));
  assert_true (st.switches - sw0 < 50);
  coro_wg_wait (&wg);
  /* senders on a full unbuffered channel */
  ch = b;
  coro_wg_add (&wg, 3);
  for (int i = 0; i < 2; i++)
    coro_spawn (blocked_sender, NULL);
  coro_spawn (closer, NULL);
  coro_wg_wait (&wg);
  coro_runtime_stop ();
  coro_chan_free (a);
  coro_chan_free (b);
  assert_int_equal (epipe_seen, 5);
}

static struct coro_wg gate = CORO_WG_INIT;
static _Atomic int released;

static void
gate_waiter (void *arg)
{
  coro_wg_wait (&gate);
  atomic_fetch_add (&released, 1);
  coro_wg_done (&wg);
}

static void *
thread_waiter (void *arg)
{
  coro_wg_wait (&gate);
  atomic_fetch_add (&released, 1);
  return NULL;
}

static void
opener (void *arg)
{
  coro_sleep_ns (10 * 1000 * 1000);
  coro_wg_done (&gate);
  coro_wg_done (&wg);
}

static void
test_waitgroup (void **state)
{
  pthread_t t;
  start (2);
  coro_wg_add (&gate, 1);
  coro_wg_add (&wg, 101);
  for (int i = 0; i < 100; i++)
    coro_spawn (gate_waiter, NULL);
  pthread_create (&t, NULL, thread_waiter, NULL);
  while (coro_wg_nwaiters (&gate) < 100)
    usleep (1000);
  assert_int_equal (released, 0);
  coro_spawn (opener, NULL);
  coro_wg_wait (&wg);
  pthread_join (t, NULL);
  coro_runtime_stop ();
  assert_int_equal (released, 101);
  assert_int_equal (coro_wg_nwaiters (&gate), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_mutex),
    cmocka_unit_test (test_channel_unbuffered),
    cmocka_unit_test (test_channel_buffered),
    cmocka_unit_test (test_channel_close_wakes),
    cmocka_unit_test (test_waitgroup),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
