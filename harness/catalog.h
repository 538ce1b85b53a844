/*
 * catalog.h - the experiments the lab knows: workload binary, variants, the
 * scales `quick` and `full`, the sandbox profile each variant runs under, and
 * the published claims (shared/CLAIMS.md) each re-measures.
 */
#ifndef LAB_CATALOG_H
#define LAB_CATALOG_H

#include <stddef.h>

struct lab_companion_ops;

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
  unsigned plots;                   /* LAB_PLOT_* */
};

/* Which generic plots an experiment gets (plot.c; CPU, context switches and
   latency are drawn wherever measured unless plots == 0).  Memory per task only where every
   task is alive at once (memory); spawn's tasks come and go, so its memory is
   plotted as the peak itself. */
enum
{
  LAB_PLOT_WALL = 1,
  LAB_PLOT_MEM = 2,          /* peak memory vs n */
  LAB_PLOT_MEM_PER_TASK = 4, /* peak memory / n vs n */
  LAB_PLOT_NS_PER_OP = 8,
  LAB_PLOT_IO = 16,          /* udp, wakeup, blocking: only their own plots (plots-io.c) and the generic ones */
  LAB_PLOT_ECHO = 32,        /* latency percentile distribution, throughput vs connections (plot-echo.c) */
};

/* Workload options `lab run --opt KEY=VALUE` accepts, with their values
   (NULL = any value, or a whole number in min..max). */
struct lab_wl_opt
{
  const char *key;
  const char *const *values;
  const char *help;
  long min, max; /* max > 0: the value is a whole number in min..max */
};
extern const struct lab_wl_opt lab_wl_opts[];
const struct lab_wl_opt *lab_wl_opt_find (const char *key);

extern const struct lab_experiment lab_experiments[];
const struct lab_experiment *lab_experiment_find (const char *name);
size_t lab_experiment_count (void);
/* The client run beside each point of `e` (companion.h), or NULL. */
const struct lab_companion_ops *lab_experiment_companion (const struct lab_experiment *e);
/* Index of `variant` in e->variants, or -1. */
int lab_experiment_variant (const struct lab_experiment *e, const char *variant);

#endif
