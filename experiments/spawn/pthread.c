/*
 * pthread.c - spawn, variant `pthread`: one thread per task.
 *
 * Each task is a thread with a small stack (64 KiB unless --stack; glibc adds
 * a guard page, so a live or unjoined thread costs 2 mappings) that sleeps
 * 1 ms with clock_nanosleep, records how long it really slept into its slot
 * of a preallocated array, and ends.
 *
 * Joining (--opt join=MODE):
 *   reaper (default)  a reaper thread joins the threads in creation order while
 *                     the main thread is still creating them.  A thread that has
 *                     ended but is not joined keeps its stack and guard
 *                     mappings, so without this the run would stop near
 *                     vm.max_map_count/2 threads (about 32K here) however short
 *                     the tasks are.
 *   after             create all N first, then join them all.
 * The reaper waits on a futex word holding (threads created | DONE_BIT); the
 * creator bumps it and wakes the reaper only when the reaper said it sleeps.
 *
 * Figures: spawn_s (first create to last create), wall_s (first create to last
 * join), spawn_ns_per_task, ops = tasks run, ops_per_s = ops / wall_s,
 * peak_live_threads (tasks between their start and their end at once, counted
 * by the tasks), and three latencies per task: start_lat_* (pthread_create
 * called -> the thread runs: where threads and coroutines differ most),
 * sleep_lat_* (the 1 ms sleep call itself: 1 ms + oversleep) and lat_* (the
 * two together: create called -> the task's work done).  The measured region
 * (CPU time, context switches) is first create to last join, as wall_s.
 * A failing pthread_create is a host limit: what started is joined and the
 * report says which limit (wl_which_limit) and how many ran ("done").
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "wl.h"

#define SLEEP_NS 1000000L
#define DEFAULT_STACK (64 * 1024L)
#define DONE_BIT 0x80000000u

static uint64_t *lat, *start_lat, *spawned_at;
static _Atomic long live, peak_live;

static void *
task (void *arg)
{
  struct timespec d = { 0, SLEEP_NS };
  uintptr_t i = (uintptr_t) arg;
  start_lat[i] = wl_now_ns () - spawned_at[i];
  long now = atomic_fetch_add_explicit (&live, 1, memory_order_relaxed) + 1;
  long peak = atomic_load_explicit (&peak_live, memory_order_relaxed);
  uint64_t t0;

  while (now > peak
         && !atomic_compare_exchange_weak_explicit (&peak_live, &peak, now, memory_order_relaxed,
                                                    memory_order_relaxed))
    ;
  t0 = wl_now_ns ();
  while (clock_nanosleep (CLOCK_MONOTONIC, 0, &d, &d) == EINTR)
    ;
  lat[i] = wl_now_ns () - t0;
  atomic_fetch_sub_explicit (&live, 1, memory_order_relaxed);
  return NULL;
}

struct reaper
{
  pthread_t *tids;
  _Atomic uint32_t word;     /* threads created, | DONE_BIT once creation stopped */
  _Atomic uint32_t sleeping; /* the reaper is (about to be) in futex_wait */
  uint64_t last_join_ns;
};

static void *
reap (void *arg)
{
  struct reaper *rp = arg;
  uint32_t joined = 0;

  for (;;)
    {
      uint32_t w = atomic_load (&rp->word);
      if (joined < (w & ~DONE_BIT))
        {
          pthread_join (rp->tids[joined++], NULL);
          continue;
        }
      if (w & DONE_BIT)
        break;
      atomic_store (&rp->sleeping, 1);
      if (atomic_load (&rp->word) == w) /* re-check after saying we sleep */
        wl_futex_wait ((uint32_t *) &rp->word, w);
      atomic_store (&rp->sleeping, 0);
    }
  rp->last_join_ns = wl_now_ns ();
  return NULL;
}

static void
publish (struct reaper *rp, uint32_t w)
{
  atomic_store (&rp->word, w);
  if (atomic_load (&rp->sleeping))
    wl_futex_wake ((uint32_t *) &rp->word, 1);
}

int
spawn_pthread (const struct wl_args *a, struct wl_report *r)
{
  const char *mode = wl_opt (a, "join", "reaper");
  int use_reaper = strcmp (mode, "reaper") == 0;
  long n = a->n, created = 0, stack = wl_thread_stack_bytes (a, DEFAULT_STACK);
  struct reaper rp = { 0 };
  pthread_t reaper_tid;
  pthread_attr_t attr;
  char detail[512], msg[600];
  const char *limit = NULL;
  uint64_t t0, t_spawned, t_end;
  int err = 0;

  if (!use_reaper && strcmp (mode, "after") != 0)
    return wl_report_error (r, "option `--opt join`: expected `reaper` or `after`");
  if (n > (long) (DONE_BIT - 1))
    return wl_report_error (r, "`--n` above 2^31-1 is not supported");
  rp.tids = malloc ((size_t) n * sizeof *rp.tids);
  lat = calloc ((size_t) n, sizeof *lat);
  start_lat = calloc ((size_t) n, sizeof *start_lat);
  spawned_at = calloc ((size_t) n, sizeof *spawned_at);
  if (rp.tids == NULL || lat == NULL || start_lat == NULL || spawned_at == NULL)
    return wl_report_error (r, "allocating the thread and latency arrays: out of memory");
  pthread_attr_init (&attr);
  if ((err = pthread_attr_setstacksize (&attr, (size_t) stack)))
    return wl_report_error (r, "pthread_attr_setstacksize failed");
  if (use_reaper && (err = pthread_create (&reaper_tid, NULL, reap, &rp)))
    return wl_report_error (r, "creating the reaper thread failed");

  wl_report_baseline (r);
  wl_region_begin ();
  t0 = wl_now_ns ();
  for (; created < n; created++)
    {
      spawned_at[created] = wl_now_ns ();
      err = pthread_create (&rp.tids[created], &attr, task, (void *) (uintptr_t) created);
      if (err)
        {
          /* read the counters now, while the threads that made us fail live */
          long alive = atomic_load (&live);
          limit = wl_which_limit (err, created, detail, sizeof detail);
          snprintf (msg, sizeof msg, "pthread_create: %s; %ld of them running", detail, alive);
          break;
        }
      if (use_reaper)
        publish (&rp, (uint32_t) created + 1);
    }
  t_spawned = wl_now_ns ();
  if (use_reaper)
    {
      publish (&rp, (uint32_t) created | DONE_BIT);
      pthread_join (reaper_tid, NULL);
      t_end = rp.last_join_ns;
    }
  else
    {
      for (long i = 0; i < created; i++)
        pthread_join (rp.tids[i], NULL);
      t_end = wl_now_ns ();
    }
  wl_region_end ();
  pthread_attr_destroy (&attr);

  wl_report_str (r, "join_mode", mode);
  wl_report_int (r, "stack_bytes", stack);
  wl_report_int (r, "done", created);
  wl_report_num (r, "spawn_s", (double) (t_spawned - t0) / 1e9);
  wl_report_num (r, "wall_s", (double) (t_end - t0) / 1e9);
  wl_report_num (r, "spawn_ns_per_task", created ? (double) (t_spawned - t0) / (double) created : 0);
  wl_report_int (r, "ops", created);
  wl_report_num (r, "ops_per_s", (double) created / ((double) (t_end - t0) / 1e9));
  wl_report_int (r, "peak_live_threads", atomic_load (&peak_live));
  for (long i = 0; i < created; i++)
    spawned_at[i] = start_lat[i] + lat[i]; /* create called -> work done */
  wl_report_latencies (r, spawned_at, (size_t) created);
  wl_report_latencies_as (r, "start_lat", start_lat, (size_t) created);
  wl_report_latencies_as (r, "sleep_lat", lat, (size_t) created);
  free (rp.tids);
  free (lat);
  free (start_lat);
  free (spawned_at);
  if (limit)
    return wl_report_limit (r, limit, msg);
  return wl_report_ok (r);
}
