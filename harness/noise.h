/*
 * noise.h - is a figure's spread over its repeats small enough to judge by?
 *
 * As hyperfine and BenchExec present it: the median and min-max of every
 * figure (aggregate.c), a warning when a variant's spread exceeds 10% of its
 * median, and a warning when a repeat is an outlier: its modified z-score
 * 0.6745 * |x - median| / MAD is above 3.5 (Iglewicz and Hoaglin, the test
 * hyperfine uses) and it is more than 10% off the median (a repeat 5% off
 * two that agree within 0.1% is not worth a warning); with MAD = 0 the
 * 10% alone decides.
 */
#ifndef LAB_NOISE_H
#define LAB_NOISE_H

#include <stdio.h>

#include "aggregate.h"

#define LAB_NOISE_SPREAD_PCT 10.0
#define LAB_NOISE_Z 3.5

/* The value of v[0..n) farthest from `med` when it is an outlier, else -1.
   Needs n >= 3; does not reorder v. */
double lab_noise_outlier (const double *v, int n, double med);
/* Writes one markdown list item per warning about `exp`'s aggregates (the
   experiment's headline figure and wall time: spread over 10%, outliers);
   returns how many. */
int lab_noise_report (FILE *f, const struct lab_agg *agg, int n, const char *exp, enum lab_metric headline);

#endif
