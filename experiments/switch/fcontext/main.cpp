/*
 * wl-switch-fcontext - switch, variant `fcontext`: Boost.Context's bare
 * context switch (jump_fcontext, libboost-context-dev), the reference the
 * coroutine runtime's own bare switch (`raw_switch_ns` of the `coro` variant)
 * and its scheduler yield are compared with.
 *
 * Two contexts bounce n round trips (2n jump_fcontext calls) on one thread,
 * no scheduler: main jumps into the partner, which jumps straight back.
 * Figures: ops = 2n switches, ops_per_s, ns_per_switch = raw_switch_ns
 * (first jump to the last), vol/invol context switches over that region.
 * The workload protocol and flags are the C workloads' (experiments/common/wl.h).
 */
#include <boost/context/detail/fcontext.hpp>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/resource.h>

extern "C" {
#include "wl.h"
}

namespace ctx = boost::context::detail;

static void
partner (ctx::transfer_t t)
{
  for (;;)
    t = ctx::jump_fcontext (t.fctx, nullptr);
}

static int
switch_fcontext (const struct wl_args *a, struct wl_report *r)
{
  const size_t size = 64 * 1024;
  void *stack = mmap (nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED)
    return wl_report_error (r, "mmap of the partner's stack failed");
  ctx::fcontext_t f = ctx::make_fcontext (static_cast<char *> (stack) + size, size, partner);
  f = ctx::jump_fcontext (f, nullptr).fctx; /* first entry, outside the timed region */
  struct rusage ru0, ru1;
  wl_region_begin ();
  getrusage (RUSAGE_SELF, &ru0);
  uint64_t t0 = wl_now_ns ();
  for (long i = 0; i < a->n; i++)
    f = ctx::jump_fcontext (f, nullptr).fctx;
  uint64_t t1 = wl_now_ns ();
  getrusage (RUSAGE_SELF, &ru1);
  wl_region_end ();
  long switches = 2 * a->n;
  wl_report_switches (r, switches, (double) (t1 - t0) / 1e9, &ru0, &ru1);
  wl_report_num (r, "raw_switch_ns", (double) (t1 - t0) / (double) switches);
  wl_report_str (r, "mechanism", "boost::context::detail::jump_fcontext (Boost 1.74), no scheduler");
  return wl_report_ok (r);
}

int
main (int argc, char **argv)
{
  static const struct wl_variant variants[] = { { "fcontext", switch_fcontext } };
  return wl_main (argc, argv, "switch", variants, 1);
}
