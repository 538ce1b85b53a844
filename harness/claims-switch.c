/* claims-switch.c - C3 (creation and switch costs) from `spawn` and `switch`. */
#include "claims.h"

enum lab_verdict
lab_claim_c3 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *sp = lab_agg_find (agg, n, "switch", "pthread", -1);
  const struct lab_agg *sc = lab_agg_find (agg, n, "switch", "coro", -1);
  long common = lab_agg_largest_common (agg, n, "spawn", "pthread", "coro");
  long scommon = lab_agg_largest_common (agg, n, "switch", "pthread", "coro");
  enum lab_verdict v = LAB_V_NOT_TESTED;

  if (common > 0)
    {
      const struct lab_agg *p = lab_agg_find (agg, n, "spawn", "pthread", common);
      const struct lab_agg *c = lab_agg_find (agg, n, "spawn", "coro", common);
      fprintf (f, "creation at n=%ld: pthread %.0f ns/task vs coro %.0f ns/task. ", common,
               lab_agg_wnum (p, "spawn_ns_per_task"), lab_agg_wnum (c, "spawn_ns_per_task"));
    }
  else
    fprintf (f, "creation not compared in this run (needs both `spawn` variants ok at one n). ");
  if (scommon > 0)
    {
      sp = lab_agg_find (agg, n, "switch", "pthread", scommon);
      sc = lab_agg_find (agg, n, "switch", "coro", scommon);
    }
  if (sp && sc && sp->n_ok && sc->n_ok && sp->ops_per_s > 0 && sc->ops_per_s > 0)
    {
      v = lab_verdict_lower (&sc->m[LAB_M_NS_PER_OP], &sp->m[LAB_M_NS_PER_OP]);
      fprintf (f, "Switch at n=%ld: pthread futex handoff %.0f ns (%.0f-%.0f) vs coro %.1f ns (%.1f-%.1f), %.0fx.",
               sp->n, sp->m[LAB_M_NS_PER_OP].med, sp->m[LAB_M_NS_PER_OP].min, sp->m[LAB_M_NS_PER_OP].max,
               sc->m[LAB_M_NS_PER_OP].med, sc->m[LAB_M_NS_PER_OP].min, sc->m[LAB_M_NS_PER_OP].max,
               sc->ops_per_s / sp->ops_per_s);
    }
  else
    fprintf (f, "Switch not compared in this run (needs `switch` pthread and coro ok).");
  return v;
}
