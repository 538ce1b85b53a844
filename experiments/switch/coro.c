/*
 * coro.c - switch, variant `coro`: two coroutines on ONE worker hand control
 * to each other with coro_yield, `n` round trips (2n switches).  Each yield
 * is a real scheduler switch: the runtime requeues the yielding coroutine and
 * switches directly to the next one of the run queue (one coro_switch), and
 * every 61st switch goes through the worker's own stack to serve timers, I/O
 * and the global queue, as in any run.
 *
 * Figures: ops = 2n switches, ops_per_s, ns_per_switch (timed inside the
 * coroutines, from the first switch to the last), raw_switch_ns (the bare
 * coro_switch between two contexts, no scheduler: comparable to Boost.Context's
 * jump_fcontext).  The measured region (wl_region_begin/end: CPU time and
 * context switches) is the same window as the timing.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "coro-internal.h"
#include "switch.h"
#include "wl.h"

static long rounds;
static uint64_t t_start, t_end;
static int finished;
static struct coro_wg done = CORO_WG_INIT;

static void
player (void *arg)
{
  if (arg)
    {
      wl_region_begin ();
      t_start = wl_now_ns ();
    }
  for (long i = 0; i < rounds; i++)
    coro_yield ();
  uint64_t now = wl_now_ns ();
  if (now > t_end)
    t_end = now; /* one worker: no race */
  if (++finished == 2)
    wl_region_end ();
  coro_wg_done (&done);
}

/* The bare switch, no scheduler: two contexts bounce through the same loop
   (same call site on both sides, as two coroutines of a scheduler do), so the
   return of coro_switch is predicted; Boost.Context's figure is the same kind. */
static struct coro_ctx raw_main, raw_other;
static long raw_n;

static __attribute__ ((noinline)) void
raw_bounce (struct coro_ctx *me, struct coro_ctx *peer, long n)
{
  for (long i = 0; i < n; i++)
    coro_switch (me, peer);
}

static void raw_other_main (void) __attribute__ ((noreturn, used));
static void
raw_other_main (void)
{
  raw_bounce (&raw_other, &raw_main, raw_n);
  for (;;)
    coro_switch (&raw_other, &raw_main); /* not reached: main stops first */
}
void switch_raw_entry (void);
__asm__ (".text\nswitch_raw_entry:\n  call raw_other_main\n  ud2\n");

static double
raw_switch_ns (long n)
{
  size_t size = 64 * 1024;
  char *stk = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stk == MAP_FAILED)
    return -1;
  struct coro_frame *fr = (struct coro_frame *) (stk + size - sizeof *fr);
  memset (fr, 0, sizeof *fr);
  fr->mxcsr = __builtin_ia32_stmxcsr ();
  __asm__ volatile ("fnstcw %0" : "=m"(fr->fpucw));
  fr->ret = (uint64_t) switch_raw_entry;
  raw_other.sp = fr;
  raw_n = n + 1;
  coro_switch (&raw_main, &raw_other); /* start it: it enters raw_bounce */
  uint64_t t0 = wl_now_ns ();
  raw_bounce (&raw_main, &raw_other, n);
  uint64_t t1 = wl_now_ns ();
  munmap (stk, size);
  return (double) (t1 - t0) / (2.0 * (double) n);
}

int
switch_coro (const struct wl_args *a, struct wl_report *r)
{
  char err[256];
  struct coro_config cfg = { .workers = 1, .stack_size = (size_t) a->stack_size,
                             .backend = a->backend };
  rounds = a->n;
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  coro_wg_add (&done, 2);
  if (coro_spawn (player, "first") < 0 || coro_spawn (player, NULL) < 0)
    return wl_report_error (r, "spawning the two coroutines failed");
  coro_wg_wait (&done);
  struct coro_stats st;
  coro_stats (&st);
  coro_runtime_stop ();
  double wall = (double) (t_end - t_start) / 1e9;
  long ops = 2 * a->n;
  wl_report_str (r, "backend", coro_backend_name () ? coro_backend_name () : cfg.backend ? cfg.backend : "auto");
  wl_report_num (r, "wall_s", wall);
  wl_report_int (r, "ops", ops);
  wl_report_num (r, "ops_per_s", (double) ops / wall);
  wl_report_num (r, "ns_per_switch", wall * 1e9 / (double) ops);
  wl_report_num (r, "raw_switch_ns", raw_switch_ns (a->n < 10000000 ? a->n : 10000000));
  wl_report_int (r, "runtime_switches", (int64_t) st.switches);
  return wl_report_ok (r);
}
