/*
 * pressure.h - the pressure experiment: N parked tasks, each holding K KiB of
 * its own touched memory ON ITS STACK (alloca; `--opt kib=K`, default 128),
 * in a cgroup whose limit the harness sets to a fraction of that working set
 * (harness/pressure.c; profile containers/swap.json allows swap).  So the
 * kernel must swap parked stacks out, and each model pays for it differently:
 *   pthread         K KiB on each thread's own stack (plus its unswappable
 *                   16 KiB kernel stack, charged to the same cgroup);
 *   coro            K KiB on each coroutine's own mmap'd stack;
 *   coro-copystack  K KiB copied off the shared stack into a malloc'd buffer
 *                   while parked, copied back before it runs.
 * Phases:
 *   1. pressure: spawn N tasks; each writes a task-unique word into every page
 *      of its K KiB and parks (the limit pushes earlier tasks' pages out);
 *   2. hold: `@lab-parked` printed, parked --duration s (default 1) while the
 *      harness samples RSS, VmSwap and cgroup memory;
 *   3. wake: the main thread wakes the tasks ONE AT A TIME and waits for each
 *      to read back and rewrite every page of its K KiB (swapping it in) and
 *      answer; lat_p50/p99/p999/max_ns is that round trip per task.
 * Figures: VmSwap/VmRSS/VmSize after phase 1, host swap used (/proc/meminfo,
 * the same numbers as /proc/swaps) before and after phase 1 and after phase 3,
 * major faults (getrusage) in phases 1 and 3, wake latencies, and `corrupt`
 * pages (a read-back that did not match: must be 0).
 */
#ifndef LAB_PRESSURE_H
#define LAB_PRESSURE_H

#include <stddef.h>
#include <stdint.h>

#include "wl.h"

#define PRESSURE_PARKED_LINE "@lab-parked"
#define PRESSURE_DEFAULT_KIB 128

/* Writes a word derived from `seed` at the start of every page of buf. */
void pressure_touch (char *buf, size_t bytes, uint32_t seed);
/* Reads every page back, counts mismatches, rewrites them; returns mismatches. */
long pressure_check (char *buf, size_t bytes, uint32_t seed);
/* K from --opt kib (exits 2 on a bad value). */
long pressure_kib (const struct wl_args *a);

/* Phase bookkeeping shared by the variants. */
struct pressure_run
{
  long n, kib;
  uint64_t t0, t_parked;
  long majflt0, majflt_parked, majflt_woken;
  int64_t host_swap0, host_swap_parked, host_swap_woken;
  int64_t vmswap_parked, rss_parked, vss_parked;
  uint64_t *lat;   /* n wake latencies */
};
void pressure_begin (struct pressure_run *p, const struct wl_args *a);
/* After phase 1: reads the figures, prints @lab-parked, holds. */
void pressure_parked (struct pressure_run *p, const struct wl_args *a);
void pressure_woken (struct pressure_run *p);
/* Adds every figure to the report (done = tasks woken). */
void pressure_report (struct pressure_run *p, struct wl_report *r, long done, long corrupt);

int pressure_pthread (const struct wl_args *a, struct wl_report *r);
int pressure_coro (const struct wl_args *a, struct wl_report *r);
int pressure_coro_copystack (const struct wl_args *a, struct wl_report *r);

#endif
