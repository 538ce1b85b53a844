/*
 * claims-peers.c - the peers' figures beside C1 and C2.  The published
 * claims are about Go's goroutines; where this run measured the `go` variant
 * (harness/peers.c), the verdict text adds what goroutines did here, next to
 * the published figure and to our coroutines at the same n.  The verdict
 * itself stays the judge's (claims-spawn.c, claims-memory.c): the peers add
 * figures, not a second verdict.
 */
#include "claims.h"

#include <string.h>

/* The largest n at which `variant` of `exp` ended ok, or NULL. */
static const struct lab_agg *
largest_ok (const struct lab_agg *agg, int n, const char *exp, const char *variant)
{
  const struct lab_agg *best = NULL;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && strcmp (agg[i].variant, variant) == 0 && agg[i].n_ok
        && (best == NULL || agg[i].n > best->n))
      best = &agg[i];
  return best;
}

static const char *
go_version (const struct lab_agg *g)
{
  struct json_object *v = NULL;
  if (g->workload && json_object_object_get_ex (g->workload, "go_version", &v))
    return json_object_get_string (v);
  return "Go";
}

static void
no_go (FILE *f, const struct lab_agg *agg, int n, const char *exp)
{
  const struct lab_agg *g = lab_agg_find (agg, n, exp, "go", -1);
  if (g == NULL)
    fprintf (f, " Go's goroutines were not run here (`--variants go`).");
  else
    fprintf (f, " Go's goroutines: `%s` at n=%ld%s%s%s.", g->status, g->n, g->detail ? " (" : "",
             g->detail ? g->detail : "", g->detail ? ")" : "");
}

enum lab_verdict
lab_claim_c1_with_peers (const struct lab_agg *agg, int n, FILE *f)
{
  enum lab_verdict v = lab_claim_c1 (agg, n, f);
  const struct lab_agg *g = largest_ok (agg, n, "spawn", "go");
  if (g == NULL)
    {
      no_go (f, agg, n, "spawn");
      return v;
    }
  fprintf (f, " Go's goroutines here: %.3f s (%.3f-%.3f) at n=%ld (published: 0.47 s at n=1,000,000 on 64 cores)",
           g->wall_med, g->wall_min, g->wall_max, g->n);
  const struct lab_agg *c = lab_agg_find (agg, n, "spawn", "coro", g->n);
  if (c && c->n_ok)
    fprintf (f, "; coro %.3f s, %.2fx Go's", c->wall_med, c->wall_med / g->wall_med);
  fprintf (f, ".");
  return v;
}

enum lab_verdict
lab_claim_c2_with_peers (const struct lab_agg *agg, int n, FILE *f)
{
  enum lab_verdict v = lab_claim_c2 (agg, n, f);
  const struct lab_agg *g = largest_ok (agg, n, "memory", "go");
  char rss[32], cg[32];
  if (g == NULL)
    {
      no_go (f, agg, n, "memory");
      return v;
    }
  lab_human_bytes (rss, sizeof rss, g->rss_per_task);
  lab_human_bytes (cg, sizeof cg, g->cg_per_task);
  fprintf (f, " Go's goroutines here (%s, 2 KiB minimum stacks): RSS %s/task, cgroup %s/task at n=%ld "
              "(published: 240 B/task at n=5,000,000)",
           go_version (g), rss, cg, g->n);
  const struct lab_agg *c = lab_agg_find (agg, n, "memory", "coro", g->n);
  if (c && c->n_ok && g->cg_per_task > 0)
    fprintf (f, "; coro %.2fx Go's cgroup memory per task", c->cg_per_task / g->cg_per_task);
  fprintf (f, ".");
  return v;
}
