/*
 * hist.c - the log-linear histogram (see hist.h).
 *
 * Layout (as HdrHistogram with unit 1, 3 significant digits): 2048
 * sub-buckets cover [0, 2048) exactly; each further bucket k covers
 * [1024 << k, 2048 << k) with 1024 sub-buckets of width 1 << k.  The
 * counts array is indexed (bucket + 1) * 1024 + sub - 1024.
 */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB_MAG 11                 /* 2048 sub-buckets: 3 significant digits */
#define SUB_COUNT (1 << SUB_MAG)
#define SUB_HALF_MAG (SUB_MAG - 1)
#define SUB_HALF (1 << SUB_HALF_MAG)
#define SUB_MASK ((uint64_t) SUB_COUNT - 1)

static int
bucket_of (uint64_t v)
{
  int pow2ceil = 64 - __builtin_clzll (v | SUB_MASK);
  return pow2ceil - (SUB_HALF_MAG + 1);
}

static int
index_of (uint64_t v)
{
  int b = bucket_of (v);
  int sub = (int) (v >> b);
  return ((b + 1) << SUB_HALF_MAG) + sub - SUB_HALF;
}

static uint64_t
value_of (int idx)
{
  int b = (idx >> SUB_HALF_MAG) - 1, sub = (idx & (SUB_HALF - 1)) + SUB_HALF;
  if (b < 0)
    {
      sub -= SUB_HALF;
      b = 0;
    }
  return (uint64_t) sub << b;
}

uint64_t
hist_lowest_equivalent (uint64_t v)
{
  return value_of (index_of (v));
}

uint64_t
hist_highest_equivalent (uint64_t v)
{
  int b = bucket_of (v), sub = (int) (v >> b);
  if (sub >= SUB_COUNT)
    b++;
  return hist_lowest_equivalent (v) + ((uint64_t) 1 << b) - 1;
}

struct hist *
hist_new (void)
{
  struct hist *h = calloc (1, sizeof *h);
  if (h == NULL)
    return NULL;
  uint64_t smallest_untrackable = SUB_COUNT;
  h->bucket_count = 1;
  while (smallest_untrackable <= HIST_MAX_NS)
    {
      smallest_untrackable <<= 1;
      h->bucket_count++;
    }
  h->counts_len = (h->bucket_count + 1) * SUB_HALF;
  h->counts = calloc ((size_t) h->counts_len, sizeof *h->counts);
  if (h->counts == NULL)
    {
      free (h);
      return NULL;
    }
  hist_reset (h);
  return h;
}

void
hist_free (struct hist *h)
{
  if (h)
    free (h->counts);
  free (h);
}

void
hist_reset (struct hist *h)
{
  memset (h->counts, 0, (size_t) h->counts_len * sizeof *h->counts);
  h->total = h->clamped = 0;
  h->min = UINT64_MAX;
  h->max = 0;
  h->sum = h->sum_sq = 0;
}

void
hist_record (struct hist *h, uint64_t ns)
{
  if (ns > HIST_MAX_NS)
    {
      ns = HIST_MAX_NS;
      h->clamped++;
    }
  h->counts[index_of (ns)]++;
  h->total++;
  if (ns < h->min)
    h->min = ns;
  if (ns > h->max)
    h->max = ns;
  h->sum += ns;
  h->sum_sq += (long double) ns * ns;
}

void
hist_merge (struct hist *dst, const struct hist *src)
{
  for (int i = 0; i < src->counts_len; i++)
    dst->counts[i] += src->counts[i];
  dst->total += src->total;
  dst->clamped += src->clamped;
  if (src->total && src->min < dst->min)
    dst->min = src->min;
  if (src->max > dst->max)
    dst->max = src->max;
  dst->sum += src->sum;
  dst->sum_sq += src->sum_sq;
}

uint64_t
hist_value_at (const struct hist *h, double p)
{
  if (h->total == 0)
    return 0;
  if (p > 100)
    p = 100;
  uint64_t want = (uint64_t) ceil (p / 100.0 * (double) h->total);
  if (want == 0)
    want = 1;
  uint64_t seen = 0;
  for (int i = 0; i < h->counts_len; i++)
    {
      seen += h->counts[i];
      if (seen >= want)
        {
          uint64_t v = hist_highest_equivalent (value_of (i));
          return v < h->max ? v : h->max; /* never above the exact maximum */
        }
    }
  return h->max;
}

double
hist_mean (const struct hist *h)
{
  return h->total ? (double) (h->sum / h->total) : 0;
}

double
hist_stddev (const struct hist *h)
{
  if (h->total == 0)
    return 0;
  long double m = h->sum / h->total, var = h->sum_sq / h->total - m * m;
  return var > 0 ? sqrt ((double) var) : 0;
}

/* HdrHistogram's percentile iterator: report at percentile 0, then at
   steps that halve the remaining distance to 100%, 5 ticks per half. */
int
hist_write_hgrm (const struct hist *h, FILE *f)
{
  const double scale = 1e6; /* ns -> ms */
  const int ticks = 5;
  double next = 0;
  uint64_t seen = 0;

  fprintf (f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  for (int i = 0; i < h->counts_len && h->total; i++)
    {
      if (h->counts[i] == 0)
        continue;
      seen += h->counts[i];
      double cur = 100.0 * (double) seen / (double) h->total;
      uint64_t v = hist_highest_equivalent (value_of (i));
      if (v > h->max)
        v = h->max;
      while (next <= cur && next < 100)
        {
          fprintf (f, "%12.3f %2.12f %10llu %14.2f\n", (double) v / scale, next / 100, (unsigned long long) seen,
                   1.0 / (1.0 - next / 100));
          double half = pow (2, floor (log (100 / (100 - next)) / log (2)) + 1);
          next += 100.0 / (ticks * half);
          if (seen == h->total)
            break; /* the last bucket: one line, then the 100% line */
        }
    }
  if (h->total)
    fprintf (f, "%12.3f %2.12f %10llu\n", (double) h->max / scale, 1.0, (unsigned long long) h->total);
  fprintf (f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", hist_mean (h) / scale, hist_stddev (h) / scale);
  fprintf (f, "#[Max     = %12.3f, Total count    = %12llu]\n", (double) h->max / scale,
           (unsigned long long) h->total);
  fprintf (f, "#[Buckets = %12d, SubBuckets     = %12d]\n", h->bucket_count, SUB_COUNT);
  return ferror (f) ? -1 : 0;
}
