/* claims-spawn.c - C1 (1M tasks that sleep 1 ms) from the `spawn` experiment. */
#include "claims.h"

enum lab_verdict
lab_claim_c1 (const struct lab_agg *agg, int n, FILE *f)
{
  const long target = 1000000;
  const struct lab_agg *p = lab_agg_find (agg, n, "spawn", "pthread", target);
  const struct lab_agg *c = lab_agg_find (agg, n, "spawn", "coro", target);
  long common = lab_agg_largest_common (agg, n, "spawn", "pthread", "coro");
  enum lab_verdict v;

  if (lab_agg_find (agg, n, "spawn", "pthread", -1) == NULL && lab_agg_find (agg, n, "spawn", "coro", -1) == NULL)
    {
      fprintf (f, "not measured in this run (`lab run spawn --scale full`).");
      return LAB_V_NOT_TESTED;
    }
  if (p && c && p->n_ok && c->n_ok)
    {
      v = lab_verdict_lower (&c->m[LAB_M_WALL], &p->m[LAB_M_WALL]);
      fprintf (f, "measured pthread %.3f s (%.3f-%.3f) vs coro %.3f s (%.3f-%.3f) at n=1,000,000, ratio %.1fx: %s.",
               p->wall_med, p->wall_min, p->wall_max, c->wall_med, c->wall_min, c->wall_max, p->wall_med / c->wall_med,
               v == LAB_V_HOLDS   ? "coroutines were faster beyond the repeats' spread"
               : v == LAB_V_FAILS ? "pthreads were not slower"
                                  : lab_verdict_why_noise (&c->m[LAB_M_WALL], &p->m[LAB_M_WALL]));
      return v;
    }
  fprintf (f, "cannot be tested at n=1,000,000 here: ");
  if (!(p && p->n_ok))
    lab_claim_why_not (f, p, "pthread", target);
  if (!(p && p->n_ok) && !(c && c->n_ok))
    fprintf (f, "; ");
  if (!(c && c->n_ok))
    lab_claim_why_not (f, c, "coro", target);
  fprintf (f, ".");
  if (common > 0)
    {
      p = lab_agg_find (agg, n, "spawn", "pthread", common);
      c = lab_agg_find (agg, n, "spawn", "coro", common);
      fprintf (f, " At the largest n both completed (%ld): pthread %.3f s vs coro %.3f s (%.1fx).", common,
               p->wall_med, c->wall_med, p->wall_med / c->wall_med);
    }
  return LAB_V_NOT_TESTED;
}
