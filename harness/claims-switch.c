/* claims-switch.c - C3 (creation and switch costs) from `spawn` and `switch`.
 * Two directions, each judged by the repeats' spreads at the largest n both
 * variants ended ok: creation (the workloads' spawn_ns_per_task) and the
 * switch (ns per switch).  The claim holds when both hold, fails when either
 * fails, and is within noise otherwise. */
#include "claims.h"

static enum lab_verdict
combine (enum lab_verdict a, enum lab_verdict b)
{
  if (a == LAB_V_FAILS || b == LAB_V_FAILS)
    return LAB_V_FAILS;
  if (a == LAB_V_NOT_TESTED && b == LAB_V_NOT_TESTED)
    return LAB_V_NOT_TESTED;
  if (a == LAB_V_HOLDS && b == LAB_V_HOLDS)
    return LAB_V_HOLDS;
  return LAB_V_NOISE;
}

static const char *
word (enum lab_verdict v, const struct lab_stat *a, const struct lab_stat *b)
{
  return v == LAB_V_HOLDS ? "holds" : v == LAB_V_FAILS ? "fails" : lab_verdict_why_noise (a, b);
}

enum lab_verdict
lab_claim_c3 (const struct lab_agg *agg, int n, FILE *f)
{
  long common = lab_agg_largest_common (agg, n, "spawn", "pthread", "coro");
  long scommon = lab_agg_largest_common (agg, n, "switch", "pthread", "coro");
  enum lab_verdict vc = LAB_V_NOT_TESTED, vs = LAB_V_NOT_TESTED;

  if (common > 0)
    {
      const struct lab_agg *p = lab_agg_find (agg, n, "spawn", "pthread", common);
      const struct lab_agg *c = lab_agg_find (agg, n, "spawn", "coro", common);
      const struct lab_stat *ps = &p->m[LAB_M_SPAWN_NS_PER_TASK], *cs = &c->m[LAB_M_SPAWN_NS_PER_TASK];
      vc = lab_verdict_lower (cs, ps);
      fprintf (f, "creation at n=%ld: pthread %.0f ns/task (%.0f-%.0f) vs coro %.0f ns/task (%.0f-%.0f)", common,
               ps->med, ps->min, ps->max, cs->med, cs->min, cs->max);
      if (p->m[LAB_M_START_P50].n && c->m[LAB_M_START_P50].n)
        fprintf (f, "; spawn call to first run, median task: pthread %.0f ns vs coro %.0f ns",
                 p->m[LAB_M_START_P50].med, c->m[LAB_M_START_P50].med);
      fprintf (f, "; cheaper coroutine creation %s. ", word (vc, cs, ps));
    }
  else
    fprintf (f, "creation not compared in this run (needs both `spawn` variants ok at one n). ");
  if (scommon > 0)
    {
      const struct lab_agg *sp = lab_agg_find (agg, n, "switch", "pthread", scommon);
      const struct lab_agg *sc = lab_agg_find (agg, n, "switch", "coro", scommon);
      const struct lab_stat *a = &sc->m[LAB_M_NS_PER_OP], *b = &sp->m[LAB_M_NS_PER_OP];
      vs = lab_verdict_lower (a, b);
      fprintf (f, "Switch at n=%ld: pthread futex handoff %.0f ns (%.0f-%.0f) vs coro %.1f ns (%.1f-%.1f), %.0fx "
                  "(published thread switch: 1.42 us); cheaper coroutine switch %s.",
               scommon, b->med, b->min, b->max, a->med, a->min, a->max, a->med > 0 ? b->med / a->med : 0,
               word (vs, a, b));
    }
  else
    fprintf (f, "Switch not compared in this run (needs `switch` pthread and coro ok at one n).");
  return combine (vc, vs);
}
