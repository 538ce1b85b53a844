/*
 * pthread.c - memory, variant `pthread`: N threads parked alive.
 *
 * Each thread has a small stack (16 KiB unless --stack, at least
 * PTHREAD_STACK_MIN, plus glibc's guard page: 2 mappings per thread), counts
 * itself in `parked` and sleeps in FUTEX_WAIT on the word `go` until the main
 * thread sets it to 1 and wakes everyone.
 *
 * Sequence:
 *   0. calibrate page_first_touch_ns (a 64 KiB window, given back), then
 *      take the baseline (rss_baseline_bytes, cgroup_baseline_bytes);
 *   1. create N threads (spawn_s is the time until all are parked: the
 *      measured region, so wall_s = spawn_s and the CPU figures cover it);
 *   2. wait until `parked` equals the threads created (the last parkers wake
 *      the main thread only if it said it sleeps: `main_waits`);
 *   3. read /proc/self/status: bytes_per_task = VmRSS / N (what the brief and
 *      the coroutine variants report), rss_delta_per_task = (VmRSS now - VmRSS
 *      before creating) / N, vss_bytes, pte_bytes (VmPTE, kernel memory RSS
 *      does not show; the 16 KiB kernel stack per thread is visible only in
 *      the cgroup's memory.stat kernel_stack; host_kernel_stack_delta_bytes
 *      from /proc/meminfo where the cgroup has none, meminfo.c);
 *   4. print `@lab-parked` (flushed) and stay parked for --duration seconds
 *      (default 0.5) so the harness samples steady state;
 *   5. release (go = 1, FUTEX_WAKE all) and join; release_s is that time.
 * If pthread_create fails, the threads created so far are parked, measured,
 * announced and released the same way, and the report has status "limit" with
 * "done" = threads parked.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "memory.h"
#include "wl.h"

#define DEFAULT_STACK (16 * 1024L)

static _Atomic uint32_t parked, go, main_waits;

static void *
park (void *arg)
{
  atomic_fetch_add (&parked, 1);
  if (atomic_load (&main_waits))
    wl_futex_wake ((uint32_t *) &parked, 1);
  while (atomic_load (&go) == 0)
    wl_futex_wait ((uint32_t *) &go, 0);
  return NULL;
}

static void
wait_parked (uint32_t target)
{
  uint32_t p;

  atomic_store (&main_waits, 1);
  while ((p = atomic_load (&parked)) < target)
    wl_futex_wait ((uint32_t *) &parked, p);
  atomic_store (&main_waits, 0);
}

int
memory_pthread (const struct wl_args *a, struct wl_report *r)
{
  long n = a->n, created = 0, stack = wl_thread_stack_bytes (a, DEFAULT_STACK);
  long rss0, rss, vss, pte;
  double hold = a->duration_s > 0 ? a->duration_s : 0.5;
  struct timespec hold_ts = { (time_t) hold, (long) ((hold - (double) (time_t) hold) * 1e9) };
  pthread_t *tids = malloc ((size_t) n * sizeof *tids);
  char detail[512], msg[600];
  const char *limit = NULL;
  pthread_attr_t attr;
  struct memory_kernel kern;
  uint64_t t0, t_parked, t_rel;

  if (tids == NULL)
    return wl_report_error (r, "allocating the thread array: out of memory");
  if (n > UINT32_MAX / 2)
    return wl_report_error (r, "`--n` above 2^31 is not supported");
  pthread_attr_init (&attr);
  if (pthread_attr_setstacksize (&attr, (size_t) stack))
    return wl_report_error (r, "pthread_attr_setstacksize failed");
  wl_report_num (r, "page_first_touch_ns", wl_first_touch_ns (4096)); /* the floor under spawn_ns_per_task */
  rss0 = wl_proc_status_kb ("VmRSS");
  wl_report_baseline (r);
  memory_kernel_begin (&kern);

  wl_region_begin ();
  t0 = wl_now_ns ();
  for (; created < n; created++)
    {
      int err = pthread_create (&tids[created], &attr, park, NULL);
      if (err)
        {
          limit = wl_which_limit (err, created, detail, sizeof detail);
          snprintf (msg, sizeof msg, "pthread_create: %s", detail);
          break;
        }
    }
  wait_parked ((uint32_t) created);
  t_parked = wl_now_ns ();
  wl_region_end ();
  pthread_attr_destroy (&attr);

  rss = wl_proc_status_kb ("VmRSS") * 1024;
  vss = wl_proc_status_kb ("VmSize") * 1024;
  pte = wl_proc_status_kb ("VmPTE") * 1024;
  wl_report_int (r, "stack_bytes", stack);
  wl_report_int (r, "done", created);
  wl_report_num (r, "spawn_s", (double) (t_parked - t0) / 1e9);
  wl_report_num (r, "spawn_ns_per_task", created ? (double) (t_parked - t0) / (double) created : 0);
  wl_report_int (r, "rss_bytes", rss);
  wl_report_int (r, "vss_bytes", vss);
  wl_report_int (r, "pte_bytes", pte);
  wl_report_int (r, "threads_seen", wl_proc_status_kb ("Threads"));
  memory_kernel_report (&kern, r, created);
  if (created)
    {
      wl_report_num (r, "bytes_per_task", (double) rss / (double) created);
      wl_report_num (r, "rss_delta_per_task", (double) (rss - rss0 * 1024) / (double) created);
      wl_report_num (r, "vss_per_task", (double) vss / (double) created);
    }

  printf ("%s\n", MEMORY_PARKED_LINE);
  fflush (stdout);
  while (nanosleep (&hold_ts, &hold_ts) == -1 && errno == EINTR)
    ;

  t_rel = wl_now_ns ();
  atomic_store (&go, 1);
  wl_futex_wake ((uint32_t *) &go, INT_MAX);
  for (long i = 0; i < created; i++)
    pthread_join (tids[i], NULL);
  wl_report_num (r, "release_s", (double) (wl_now_ns () - t_rel) / 1e9);
  wl_report_num (r, "hold_s", hold);
  wl_report_num (r, "wall_s", (double) (t_parked - t0) / 1e9); /* the measured region: creation until all parked */
  wl_report_int (r, "ops", created);
  free (tids);
  if (limit)
    return wl_report_limit (r, limit, msg);
  return wl_report_ok (r);
}
