/* claims-memory.c - C2 (memory per parked task) from the `memory` experiment.
 *
 * The variants are compared at the same n (the largest at which coro and
 * pthread both ended ok), per task over the workload's own baseline (the
 * process before its tasks: runtime, libc, arrays), by the cgroup figure,
 * which includes the kernel's part (a thread's kernel stack); the peak / n
 * without the baseline is shown beside it.  The verdict is the direction the
 * claim states (a coroutine costs less than a thread), beyond the repeats'
 * spread; the published sizes are set against the measured ones as ratios. */
#include <string.h>

#include "claims.h"
#include "utils.h"

/* Per task over the baseline (cgroup), else peak / n. */
static enum lab_metric
per_task_metric (const struct lab_agg *g)
{
  return g->m[LAB_M_CG_OVER_BASE_PER_TASK].n ? LAB_M_CG_OVER_BASE_PER_TASK : LAB_M_CG_PER_TASK;
}

static void
figures (FILE *f, const struct lab_agg *g)
{
  char a[32], b[32], lo[32], hi[32], r[32];
  enum lab_metric m = per_task_metric (g);

  lab_human_bytes (a, sizeof (a), g->m[m].med);
  lab_human_bytes (lo, sizeof (lo), g->m[m].min);
  lab_human_bytes (hi, sizeof (hi), g->m[m].max);
  lab_human_bytes (b, sizeof (b), g->cg_per_task);
  lab_human_bytes (r, sizeof (r), g->m[LAB_M_RSS_OVER_BASE_PER_TASK].med);
  fprintf (f, "%s %s/task (%s-%s, %d run%s) %s", g->variant, a, lo, hi, g->m[m].n, g->m[m].n == 1 ? "" : "s",
           m == LAB_M_CG_OVER_BASE_PER_TASK ? "over its baseline" : "(no baseline)");
  fprintf (f, ", %s/task as peak / n, RSS %s/task over baseline", b, r);
  if (lab_agg_wnum (g, "stack_bytes") > 0)
    fprintf (f, ", %.0f KiB stacks", lab_agg_wnum (g, "stack_bytes") / 1024);
}

enum lab_verdict
lab_claim_c2 (const struct lab_agg *agg, int n, FILE *f)
{
  const double published_goroutine = 240, published_pthread = 9.6e3;
  long common = lab_agg_largest_common (agg, n, "memory", "coro", "pthread");
  const struct lab_agg *c, *p, *cs;
  enum lab_verdict v;

  if (lab_agg_find (agg, n, "memory", "coro", -1) == NULL && lab_agg_find (agg, n, "memory", "pthread", -1) == NULL)
    {
      fprintf (f, "not measured in this run (`lab run memory`).");
      return LAB_V_NOT_TESTED;
    }
  if (common < 0)
    {
      fprintf (f, "coro and pthread were not both ok at one n, so they are not compared.");
      return LAB_V_NOT_TESTED;
    }
  c = lab_agg_find (agg, n, "memory", "coro", common);
  p = lab_agg_find (agg, n, "memory", "pthread", common);
  cs = lab_agg_find (agg, n, "memory", "coro-copystack", common);
  fprintf (f, "at n=%ld (the largest n both ended ok; cgroup memory, kernel part included): ", common);
  figures (f, p);
  fprintf (f, "; ");
  figures (f, c);
  if (cs && cs->n_ok)
    {
      fprintf (f, "; ");
      figures (f, cs);
    }
  {
    enum lab_metric m = per_task_metric (c) == per_task_metric (p) ? per_task_metric (c) : LAB_M_CG_PER_TASK;
    v = lab_verdict_lower (&c->m[m], &p->m[m]);
    if (c->m[m].med > 0)
      fprintf (f, ". A thread costs %.1fx a coroutine here (published: %.0fx, %.0f B vs %.1f KB)",
               p->m[m].med / c->m[m].med, published_pthread / published_goroutine, published_goroutine,
               published_pthread / 1e3);
    if (cs && cs->n_ok && cs->m[m].med > 0)
      fprintf (f, "; the copy-stack coroutine is %.2fx the published 240 B", cs->m[m].med / published_goroutine);
    fprintf (f, ". Direction (a coroutine costs less than a thread): %s.",
             v == LAB_V_HOLDS   ? "holds beyond the repeats' spread"
             : v == LAB_V_FAILS ? "fails"
                                : lab_verdict_why_noise (&c->m[m], &p->m[m]));
  }
  for (size_t i = 0; i < 3; i++)
    {
      static const char *const variants[] = { "pthread", "coro", "coro-copystack" };
      for (int k = 0; k < n; k++)
        if (strcmp (agg[k].experiment, "memory") == 0 && strcmp (agg[k].variant, variants[i]) == 0
            && !agg[k].n_ok && strcmp (agg[k].status, "skipped"))
          {
            fprintf (f, " %s stopped at n=%ld: `%s` (%s).", variants[i], agg[k].n, agg[k].status, agg[k].detail);
            break;
          }
    }
  return v;
}
