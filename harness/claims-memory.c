/* claims-memory.c - C2 (memory per parked task) from the `memory` experiment. */
#include <string.h>

#include "claims.h"
#include "utils.h"

static void
variant_figures (FILE *f, const struct lab_agg *agg, int n, const char *variant, int *any)
{
  const struct lab_agg *best = NULL, *stop = NULL;
  char a[32], b[32], k[32];

  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, "memory") == 0 && strcmp (agg[i].variant, variant) == 0)
      {
        if (agg[i].n_ok && (!best || agg[i].n > best->n))
          best = &agg[i];
        if (!agg[i].n_ok && strcmp (agg[i].status, "skipped") && (!stop || agg[i].n < stop->n))
          stop = &agg[i];
      }
  if (best)
    {
      lab_human_bytes (a, sizeof (a), best->rss_per_task);
      lab_human_bytes (b, sizeof (b), best->cg_per_task);
      lab_human_bytes (k, sizeof (k), best->kernel_per_task);
      fprintf (f, "%s%s at n=%ld", *any ? "; " : "", variant, best->n);
      if (lab_agg_wnum (best, "stack_bytes") > 0)
        fprintf (f, " with %.0f KiB stacks", lab_agg_wnum (best, "stack_bytes") / 1024);
      fprintf (f, ": RSS %s/task, cgroup %s/task (kernel %s/task)", a, b, k);
      if (lab_agg_wnum (best, "spawn_ns_per_task") > 0)
        fprintf (f, ", spawned in %.3g s (%.0f ns/task", lab_agg_wnum (best, "spawn_s"),
                 lab_agg_wnum (best, "spawn_ns_per_task"));
      if (lab_agg_wnum (best, "spawn_ns_per_task") > 0 && lab_agg_wnum (best, "page_first_touch_ns") > 0)
        fprintf (f, "; a first-touch page fault costs %.0f ns here", lab_agg_wnum (best, "page_first_touch_ns"));
      if (lab_agg_wnum (best, "spawn_ns_per_task") > 0)
        fprintf (f, ")");
      *any = 1;
    }
  if (stop)
    {
      fprintf (f, "%s%s stopped at n=%ld: `%s` (%s)", *any ? "; " : "", variant, stop->n, stop->status, stop->detail);
      *any = 1;
    }
}

enum lab_verdict
lab_claim_c2 (const struct lab_agg *agg, int n, FILE *f)
{
  static const char *const variants[] = { "pthread", "coro", "coro-copystack" };
  long common = lab_agg_largest_common (agg, n, "memory", "coro", "pthread");
  enum lab_verdict v = LAB_V_NOT_TESTED;
  int any = 0;

  for (size_t i = 0; i < ARRAY_SIZE (variants); i++)
    variant_figures (f, agg, n, variants[i], &any);
  if (!any)
    {
      fprintf (f, "not measured in this run (`lab run memory`).");
      return LAB_V_NOT_TESTED;
    }
  fprintf (f, ". The published 240 B per goroutine is below Go's own 2 KB minimum stack, so it cannot hold as "
              "stated; ");
  if (common > 0)
    {
      const struct lab_agg *c = lab_agg_find (agg, n, "memory", "coro", common);
      const struct lab_agg *p = lab_agg_find (agg, n, "memory", "pthread", common);
      v = lab_verdict_lower (&c->m[LAB_M_CG_PER_TASK], &p->m[LAB_M_CG_PER_TASK]);
      fprintf (f, "the direction (a coroutine costs less memory than a thread, cgroup figures, n=%ld) %s.", common,
               v == LAB_V_HOLDS ? "holds" : v == LAB_V_FAILS ? "fails" : "is within the repeats' spread");
    }
  else
    fprintf (f, "coro and pthread were not both ok at one n, so the direction is not tested.");
  return v;
}
