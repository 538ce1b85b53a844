/*
 * compare.h - `lab compare DIR_A DIR_B`: for every (experiment, variant, n)
 * ok in both runs, the ratio B/A of each compared figure with both spreads,
 * marked faster / slower / within noise.
 *
 * A figure is "within noise" when the repeats' min-max ranges of A and B
 * overlap, or when |B/A - 1| is at most the threshold (percent); otherwise
 * it is "slower" (worse: more time, memory or latency, fewer ops/s) or
 * "faster" (better).  A regression is a "slower" figure with |B/A - 1| above
 * the fail-above percentage.
 */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include <stdio.h>

#include "aggregate.h"
#include "error.h"

enum lab_cmp_mark
{
  LAB_CMP_NOISE,
  LAB_CMP_FASTER,
  LAB_CMP_SLOWER,
};

struct lab_cmp_row
{
  const struct lab_agg *a, *b;
  enum lab_metric metric;
  double ratio;          /* B / A of the medians */
  enum lab_cmp_mark mark;
  int regression;        /* slower beyond fail_above */
};

struct lab_cmp_opts
{
  double threshold_pct;  /* default 10 */
  double fail_above_pct; /* < 0: never a regression */
};

/* The figures compared, in order (each where measured in both). */
extern const enum lab_metric lab_cmp_metrics[];
extern const int lab_cmp_n_metrics;

/* Marks one figure. */
enum lab_cmp_mark lab_cmp_judge (const struct lab_metric_info *m, const struct lab_stat *a, const struct lab_stat *b,
                                 double threshold_pct, double *ratio);
const char *lab_cmp_mark_name (enum lab_cmp_mark m);

/* Compares the two runs; writes the table to `term` and compare.md and
   compare.html to `out_dir`.  Returns the number of regressions, or -1. */
int lab_compare (const char *dir_a, const char *dir_b, const char *out_dir, const struct lab_cmp_opts *o, FILE *term,
                 lab_error_t *err);

#endif
