/*
 * ucontext.c - switch, variant `ucontext`: glibc swapcontext between the main
 * context and one other context in the same thread, `n` round trips (2n
 * switches).  Each swapcontext also saves and restores the signal mask with
 * rt_sigprocmask, a system call: that is what separates it from a user-space
 * switch such as the `coro` variant.
 *
 * Figures: ops = 2n switches, ops_per_s, ns_per_switch, vol_ctxsw/invol_ctxsw
 * (getrusage deltas: expected near 0, the thread never blocks).
 */
#include <stdlib.h>
#include <sys/resource.h>
#include <ucontext.h>

#include "switch.h"
#include "wl.h"

#define DEFAULT_STACK (64 * 1024L)

static ucontext_t main_ctx, other_ctx;

static void
other (void)
{
  for (;;)
    swapcontext (&other_ctx, &main_ctx);
}

int
switch_ucontext (const struct wl_args *a, struct wl_report *r)
{
  size_t stack = (size_t) (a->stack_size ? a->stack_size : DEFAULT_STACK);
  void *mem = malloc (stack);
  struct rusage ru0, ru1;
  uint64_t t0, t1;
  double wall;

  if (mem == NULL)
    return wl_report_error (r, "allocating the context's stack: out of memory");
  if (getcontext (&other_ctx) != 0)
    return wl_report_error (r, "getcontext failed");
  other_ctx.uc_stack.ss_sp = mem;
  other_ctx.uc_stack.ss_size = stack;
  other_ctx.uc_link = NULL;
  makecontext (&other_ctx, other, 0);

  wl_region_begin ();
  getrusage (RUSAGE_SELF, &ru0);
  t0 = wl_now_ns ();
  for (long i = 0; i < a->n; i++)
    swapcontext (&main_ctx, &other_ctx);
  t1 = wl_now_ns ();
  getrusage (RUSAGE_SELF, &ru1);
  wl_region_end ();
  free (mem); /* `other` is parked in swapcontext and never resumed */

  wall = (double) (t1 - t0) / 1e9;
  wl_report_int (r, "stack_bytes", (int64_t) stack);
  wl_report_switches (r, 2 * a->n, wall, &ru0, &ru1);
  return wl_report_ok (r);
}
