/*
 * catalog.h - the experiments the lab knows: workload binary, variants, the
 * scales `quick` and `full`, the sandbox profile each variant runs under, and
 * the published claims (shared/CLAIMS.md) each re-measures.
 */
#ifndef LAB_CATALOG_H
#define LAB_CATALOG_H

#include <stddef.h>

#define LAB_MAX_SCALE 100000000L /* more tasks than this is an impossible scale */

struct lab_experiment
{
  const char *name;
  const char *summary;
  const char *claims;               /* e.g. "C1, C3" */
  const char *const *variants;      /* NULL-terminated */
  const char *const *profiles;      /* per variant (NULL entry = `profile`), may be NULL */
  const long *quick, *full;         /* 0-terminated */
  const char *profile;              /* default sandbox profile, relative to the root */
  const char *n_means;              /* what n counts: "tasks", "round trips", ... */
  double timeout_s;                 /* per point */
};

extern const struct lab_experiment lab_experiments[];
const struct lab_experiment *lab_experiment_find (const char *name);
size_t lab_experiment_count (void);
/* Index of `variant` in e->variants, or -1. */
int lab_experiment_variant (const struct lab_experiment *e, const char *variant);

#endif
