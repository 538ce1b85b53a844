/*
 * coro.c - spawn, variant `coro`: N coroutines that each sleep 1 ms and end.
 *
 * The runtime starts with --threads workers (default one per CPU), stacks of
 * --stack bytes (default the runtime's 64 KiB, touched lazily) and the I/O
 * backend of --backend (default io_uring if usable, else epoll).  A root
 * coroutine spawns the N tasks, yielding every 128 spawns so the new ones
 * start (and park in their sleep) while it goes on; idle workers steal.  Each
 * task records how long its 1 ms sleep really took; the root waits on a wait
 * group until all have ended.
 *
 * Figures: spawn_s (root: first spawn to last), wall_s (first spawn to the
 * last task's end), spawn_ns_per_task (the runtime's spawn cost, also printed
 * on stderr), ops = N, ops_per_s, three latencies per task: start_lat_*
 * (coro_spawn called -> the task runs), sleep_lat_* (the 1 ms sleep itself)
 * and lat_* (the two: spawn called -> work done); the measured region (CPU
 * time, context switches) is first spawn to the last task's end, as wall_s;
 * runtime figures (backend, guard, workers, stacks carved, steals, switches).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coro.h"
#include "spawn.h"
#include "wl.h"

#define SLEEP_NS 1000000u
#define YIELD_EVERY 128

static uint64_t *lat, *start_lat, *spawned_at;
static long ntasks;
static struct coro_wg all = CORO_WG_INIT, root_done = CORO_WG_INIT;
static uint64_t t_first, t_spawned, t_ended;
static long spawned;
static int spawn_errno;

static void
task (void *arg)
{
  uint64_t t0 = wl_now_ns ();
  start_lat[(long) arg] = t0 - spawned_at[(long) arg];
  coro_sleep_ns (SLEEP_NS);
  lat[(long) arg] = wl_now_ns () - t0;
  coro_wg_done (&all);
}

static void
root (void *arg)
{
  coro_wg_add (&all, ntasks);
  wl_region_begin ();
  t_first = wl_now_ns ();
  for (spawned = 0; spawned < ntasks; spawned++)
    {
      spawned_at[spawned] = wl_now_ns ();
      if (coro_spawn (task, (void *) spawned) < 0)
        {
          spawn_errno = errno;
          coro_wg_add (&all, spawned - ntasks); /* the ones never spawned */
          break;
        }
      if (spawned % YIELD_EVERY == YIELD_EVERY - 1)
        coro_yield ();
    }
  t_spawned = wl_now_ns ();
  coro_wg_wait (&all);
  t_ended = wl_now_ns ();
  wl_region_end ();
  coro_wg_done (&root_done);
}

int
spawn_coro (const struct wl_args *a, struct wl_report *r)
{
  char err[256];
  struct coro_config cfg = { .workers = a->threads, .stack_size = (size_t) a->stack_size,
                             .backend = a->backend };
  ntasks = a->n;
  lat = calloc ((size_t) (ntasks ? ntasks : 1), sizeof *lat);
  start_lat = calloc ((size_t) (ntasks ? ntasks : 1), sizeof *start_lat);
  spawned_at = calloc ((size_t) (ntasks ? ntasks : 1), sizeof *spawned_at);
  if (!lat || !start_lat || !spawned_at)
    return wl_report_error (r, "allocating the latency array: out of memory");
  uint64_t t_start = wl_now_ns ();
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  coro_dump_on_signal (SIGUSR1); /* kill -USR1 PID: live coroutines and their states on stderr */
  double start_s = (double) (wl_now_ns () - t_start) / 1e9;
  wl_report_baseline (r);
  coro_wg_add (&root_done, 1);
  if (coro_spawn (root, NULL) < 0)
    return wl_report_error (r, "spawning the root coroutine failed");
  coro_wg_wait (&root_done);
  struct coro_stats st;
  coro_stats (&st);
  const char *backend = coro_backend_name (), *guard = coro_guard_name ();
  int workers = coro_nworkers ();
  coro_runtime_stop ();

  double spawn_s = (double) (t_spawned - t_first) / 1e9;
  double wall = (double) (t_ended - t_first) / 1e9;
  double per = spawned ? spawn_s * 1e9 / (double) spawned : 0;
  fprintf (stderr, "coro: spawn %.0f ns per coroutine, %lu stacks of %zu B carved for %ld tasks "
           "(%s, guard %s, %d workers)\n", per, (unsigned long) st.stacks_carved, st.stack_size,
           spawned, backend, guard, workers);
  wl_report_str (r, "backend", backend);
  wl_report_str (r, "guard", guard);
  wl_report_int (r, "workers", workers);
  wl_report_int (r, "stack_bytes", (int64_t) st.stack_size);
  wl_report_int (r, "stacks_carved", (int64_t) st.stacks_carved);
  wl_report_int (r, "arena_bytes", (int64_t) st.arena_bytes);
  wl_report_int (r, "steals", (int64_t) st.steals);
  wl_report_int (r, "runtime_switches", (int64_t) st.switches);
  wl_report_num (r, "runtime_start_s", start_s);
  wl_report_num (r, "spawn_s", spawn_s);
  wl_report_num (r, "spawn_ns_per_task", per);
  wl_report_num (r, "wall_s", wall);
  wl_report_int (r, "ops", spawned);
  wl_report_num (r, "ops_per_s", wall > 0 ? (double) spawned / wall : 0);
  for (long i = 0; i < spawned; i++)
    spawned_at[i] = start_lat[i] + lat[i]; /* spawn called -> work done */
  wl_report_latencies (r, spawned_at, (size_t) spawned);
  wl_report_latencies_as (r, "start_lat", start_lat, (size_t) spawned);
  wl_report_latencies_as (r, "sleep_lat", lat, (size_t) spawned);
  free (lat);
  free (start_lat);
  free (spawned_at);
  if (spawned < ntasks)
    {
      char detail[300];
      const char *limit = wl_which_limit (spawn_errno, spawned, detail, sizeof detail);
      wl_report_int (r, "done", spawned);
      return wl_report_limit (r, limit, detail);
    }
  return wl_report_ok (r);
}
