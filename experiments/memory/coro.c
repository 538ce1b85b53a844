/*
 * coro.c - memory, variants `coro` and `coro-copystack`: N coroutines parked
 * alive on a wait group.
 *
 * One root coroutine per worker spawns its share of the N tasks; each task
 * parks in coro_wg_wait(&gate).  Once all N are parked (the gate's waiter
 * count), the figures are read from /proc/self/status, `@lab-parked` is
 * printed and flushed, the tasks stay parked --duration seconds (default 0.5: 25 samples at 20 ms)
 * for the harness's samples, then the gate opens and they end.
 *   coro            own stack each, --stack bytes (default 4 KiB: one page
 *                   holding the stack and the struct coro at its top).
 *   coro-copystack  shared stack per worker; a parked task keeps its struct coro
 *                   (a 128-byte pool slot) and a right-sized copy of the used
 *                   part of its stack (a few hundred bytes, malloc'd).
 * Before the tasks: page_first_touch_ns (a 64 KiB window, given back, so
 * it cannot enter the peak), then the baseline (rss_baseline_bytes,
 * cgroup_baseline_bytes) with the runtime started.  The measured region is
 * the creation: wall_s = spawn_s, CPU and context switches over it.
 * Figures: spawn_s (first spawn until all parked), spawn_ns_per_task,
 * bytes_per_task = VmRSS / N, rss_delta_per_task = (VmRSS - VmRSS before) / N,
 * vss_per_task, pte_bytes, saved_stack_bytes (copy-stack: bytes held in saved
 * stacks), runtime figures.  The runtime's own overheads (spawn ns and bytes
 * per parked coroutine) are also printed on stderr.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coro.h"
#include "memory.h"
#include "wl.h"

static struct coro_wg gate = CORO_WG_INIT, ended = CORO_WG_INIT;
static long per_root, extra;
static int flags;
static _Atomic long failed;
static _Atomic int spawn_errno;

static void
task (void *arg)
{
  coro_wg_wait (&gate);
  coro_wg_done (&ended);
}

static void
root (void *arg)
{
  long n = per_root + ((long) arg < extra ? 1 : 0);
  for (long i = 0; i < n; i++)
    if (coro_spawn_ex (task, NULL, flags) < 0)
      {
        atomic_store (&spawn_errno, errno);
        atomic_fetch_add (&failed, n - i);
        for (; i < n; i++)
          coro_wg_done (&ended);
        break;
      }
  coro_wg_done (&ended);
}

static void
sleep_s (double s)
{
  struct timespec ts = { (time_t) s, (long) ((s - (double) (time_t) s) * 1e9) };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

static int
run (const struct wl_args *a, struct wl_report *r, bool copystack)
{
  char err[256];
  struct coro_config cfg = { .workers = a->threads, .backend = a->backend,
                             .stack_size = (size_t) (a->stack_size ? a->stack_size : 4096) };
  double hold = a->duration_s > 0 ? a->duration_s : 0.5;
  flags = copystack ? CORO_COPYSTACK : 0;
  struct memory_kernel kern;
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  wl_report_num (r, "page_first_touch_ns", wl_first_touch_ns (4096)); /* the floor under spawn_ns_per_task */
  long rss0 = wl_proc_status_kb ("VmRSS");
  wl_report_baseline (r);
  memory_kernel_begin (&kern);
  coro_dump_on_signal (SIGUSR1); /* kill -USR1 PID: live coroutines and their states on stderr */
  int nw = coro_nworkers ();
  per_root = a->n / nw;
  extra = a->n % nw;
  coro_wg_add (&gate, 1);
  coro_wg_add (&ended, a->n + nw);
  wl_region_begin ();
  uint64_t t0 = wl_now_ns ();
  for (long i = 0; i < nw; i++)
    if (coro_spawn (root, (void *) i) < 0)
      return wl_report_error (r, "spawning a root coroutine failed");
  long want = a->n;
  while (coro_wg_nwaiters (&gate) < want - atomic_load (&failed))
    {
      struct timespec ms = { 0, 200000 };
      nanosleep (&ms, NULL);
    }
  uint64_t t_parked = wl_now_ns ();
  wl_region_end ();
  sleep_s (0.02); /* let the last parkers finish their switch out */
  long parked = coro_wg_nwaiters (&gate);
  long rss = wl_proc_status_kb ("VmRSS") * 1024, vss = wl_proc_status_kb ("VmSize") * 1024;
  long pte = wl_proc_status_kb ("VmPTE") * 1024;
  struct coro_stats st;
  coro_stats (&st);
  double spawn_s = (double) (t_parked - t0) / 1e9;
  fprintf (stderr, "coro: %ld coroutines parked (%s): spawn %.0f ns each, %.0f B RSS each "
           "(%.0f B over the baseline), %s stacks of %zu B, guard %s\n", parked,
           copystack ? "copy-stack" : "own stack", parked ? spawn_s * 1e9 / (double) parked : 0,
           parked ? (double) rss / (double) parked : 0,
           parked ? (double) (rss - rss0 * 1024) / (double) parked : 0,
           copystack ? "shared" : "own", st.stack_size, coro_guard_name ());
  wl_report_str (r, "backend", coro_backend_name ());
  wl_report_str (r, "guard", coro_guard_name ());
  wl_report_int (r, "workers", nw);
  wl_report_int (r, "stack_bytes", copystack ? 0 : (int64_t) st.stack_size);
  wl_report_int (r, "saved_stack_bytes", (int64_t) st.saved_stack_bytes);
  wl_report_int (r, "arena_bytes", (int64_t) st.arena_bytes);
  wl_report_int (r, "done", parked);
  wl_report_num (r, "spawn_s", spawn_s);
  wl_report_num (r, "wall_s", spawn_s); /* the measured region: creation until all parked */
  wl_report_int (r, "ops", parked);
  wl_report_num (r, "spawn_ns_per_task", parked ? spawn_s * 1e9 / (double) parked : 0);
  wl_report_int (r, "rss_bytes", rss);
  wl_report_int (r, "vss_bytes", vss);
  wl_report_int (r, "pte_bytes", pte);
  memory_kernel_report (&kern, r, parked);
  if (parked)
    {
      wl_report_num (r, "bytes_per_task", (double) rss / (double) parked);
      wl_report_num (r, "rss_delta_per_task", (double) (rss - rss0 * 1024) / (double) parked);
      wl_report_num (r, "vss_per_task", (double) vss / (double) parked);
      if (copystack)
        wl_report_num (r, "saved_stack_per_task", (double) st.saved_stack_bytes / (double) parked);
    }
  printf ("%s\n", MEMORY_PARKED_LINE);
  fflush (stdout);
  sleep_s (hold);
  uint64_t t_rel = wl_now_ns ();
  coro_wg_done (&gate);
  coro_wg_wait (&ended);
  coro_runtime_stop ();
  wl_report_num (r, "release_s", (double) (wl_now_ns () - t_rel) / 1e9);
  wl_report_num (r, "hold_s", hold);
  if (atomic_load (&failed))
    {
      char detail[300];
      const char *limit = wl_which_limit (atomic_load (&spawn_errno), parked, detail, sizeof detail);
      return wl_report_limit (r, limit, detail);
    }
  return wl_report_ok (r);
}

int
memory_coro (const struct wl_args *a, struct wl_report *r)
{
  return run (a, r, false);
}

int
memory_coro_copystack (const struct wl_args *a, struct wl_report *r)
{
  return run (a, r, true);
}
