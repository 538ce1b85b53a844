/*
 * hist.h - a small log-linear latency histogram (HdrHistogram's layout).
 *
 * Values are nanoseconds, tracked from 1 ns to 60 s with 3 significant
 * digits: 2048 sub-buckets per power of two, so any recorded value is
 * reported within 1/1024 (< 0.1%) of itself.  Values above 60 s are clamped
 * to 60 s and counted in `clamped`.  No allocation after hist_new; recording
 * is a few instructions (count_leading_zeros, shift, increment).
 *
 * hist_value_at(h, p) is HdrHistogram's value_at_percentile: the highest
 * value equivalent to the recorded value at nearest rank ceil(p/100 * count).
 * hist_write_hgrm writes HdrHistogram's "percentile distribution" text
 * (the .hgrm format its plotter reads), values in milliseconds.
 */
#ifndef LAB_HIST_H
#define LAB_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_MAX_NS 60000000000ULL /* 60 s */

struct hist
{
  int bucket_count;
  int counts_len;
  uint64_t total, clamped;
  uint64_t min, max;
  long double sum, sum_sq;
  uint64_t *counts;
};

struct hist *hist_new (void);
void hist_free (struct hist *h);
void hist_reset (struct hist *h);
void hist_record (struct hist *h, uint64_t ns);
/* Adds every count of `src` into `dst`. */
void hist_merge (struct hist *dst, const struct hist *src);
/* p in [0, 100]; 0 when empty. */
uint64_t hist_value_at (const struct hist *h, double p);
double hist_mean (const struct hist *h);
double hist_stddev (const struct hist *h);
/* Lowest and highest value the bucket of `v` stands for. */
uint64_t hist_lowest_equivalent (uint64_t v);
uint64_t hist_highest_equivalent (uint64_t v);
/* The percentile distribution (HdrHistogram's format, 5 ticks per half
   distance, values in ms); returns -1 on a write error. */
int hist_write_hgrm (const struct hist *h, FILE *f);

#endif
