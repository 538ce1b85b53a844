/* Description: the latency histogram (experiments/common/hist.c) against
 * exact nearest-rank percentiles of the same samples: within 1/1024 (3
 * significant digits) from 1 us to 60 s on log-uniform, clustered and tiny
 * sets; counts, min, max and mean exact; values above 60 s clamped and
 * counted; merge equals recording both; the .hgrm text is HdrHistogram's
 * percentile distribution (header, increasing percentiles and values, the
 * final 100% line at the maximum, the footer's count). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "lab-test.h"

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

static uint64_t
exact (const uint64_t *sorted, size_t n, double p)
{
  size_t k = (size_t) ceil (p / 100.0 * (double) n);
  return sorted[k ? k - 1 : 0];
}

static void
check_set (uint64_t *v, size_t n)
{
  struct hist *h = hist_new ();
  long double sum = 0;
  assert_non_null (h);
  for (size_t i = 0; i < n; i++)
    {
      hist_record (h, v[i]);
      sum += v[i];
    }
  qsort (v, n, sizeof *v, cmp_u64);
  assert_int_equal (h->total, n);
  assert_int_equal (h->min, v[0]);
  assert_int_equal (h->max, v[n - 1]);
  assert_true (fabs (hist_mean (h) - (double) (sum / n)) <= 1e-6 * (double) (sum / n) + 1);
  static const double ps[] = { 0, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
    {
      uint64_t want = exact (v, n, ps[i]), got = hist_value_at (h, ps[i]);
      /* the bucket holding `want`: reported at its highest equivalent value, never above the max */
      double err = fabs ((double) got - (double) want) / (double) (want ? want : 1);
      if (err > 1.0 / 1024)
        fail_msg ("p%g: histogram %llu, exact %llu (error %.5f)", ps[i], (unsigned long long) got,
                  (unsigned long long) want, err);
      assert_true (got >= want);
    }
  hist_free (h);
}

static uint64_t
rnd (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void
test_log_uniform (void **state)
{
  size_t n = 200000;
  uint64_t *v = malloc (n * sizeof *v), s = 88172645463325252ULL;
  for (size_t i = 0; i < n; i++)
    {
      double u = (double) (rnd (&s) >> 11) / 9007199254740992.0; /* [0,1) */
      v[i] = (uint64_t) (1000.0 * pow (6e7, u));                  /* 1 us .. 60 s */
    }
  check_set (v, n);
  free (v);
}

static void
test_clustered (void **state)
{
  size_t n = 100001;
  uint64_t *v = malloc (n * sizeof *v), s = 12345;
  for (size_t i = 0; i < n; i++)
    v[i] = i % 1000 == 0 ? 250000000 + rnd (&s) % 1000000 : 40000 + rnd (&s) % 5000; /* a stall tail */
  check_set (v, n);
  free (v);
}

static void
test_small (void **state)
{
  uint64_t v[] = { 1000, 1001, 2047, 2048, 2049, 123456789, 7, 0 };
  check_set (v, sizeof v / sizeof v[0]);
  uint64_t one[] = { 59999999999ULL };
  check_set (one, 1);
}

static void
test_clamp_merge (void **state)
{
  struct hist *a = hist_new (), *b = hist_new (), *c = hist_new ();
  hist_record (a, 70000000000ULL);
  assert_int_equal (a->clamped, 1);
  assert_int_equal (a->max, HIST_MAX_NS);
  for (uint64_t i = 1; i <= 1000; i++)
    {
      hist_record (b, i * 1000);
      hist_record (c, i * 1000);
    }
  hist_record (c, 70000000000ULL);
  hist_merge (b, a);
  assert_int_equal (b->total, c->total);
  assert_int_equal (b->clamped, 1);
  assert_memory_equal (b->counts, c->counts, (size_t) b->counts_len * sizeof *b->counts);
  assert_int_equal (hist_value_at (b, 50), hist_value_at (c, 50));
  hist_free (a);
  hist_free (b);
  hist_free (c);
}

static void
test_hgrm (void **state)
{
  struct hist *h = hist_new ();
  char *buf = NULL;
  size_t len = 0;
  for (uint64_t i = 1; i <= 10000; i++)
    hist_record (h, i * 1000); /* 1 us .. 10 ms */
  FILE *f = open_memstream (&buf, &len);
  assert_int_equal (hist_write_hgrm (h, f), 0);
  fclose (f);
  assert_non_null (strstr (buf, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"));
  assert_non_null (strstr (buf, "#[Max     =       10.000, Total count    =        10000]"));
  assert_non_null (strstr (buf, "#[Buckets =           26, SubBuckets     =         2048]"));
  double lastp = -1, lastv = -1, v, p, inv;
  unsigned long long cnt, lastc = 0;
  int rows = 0, final = 0;
  for (char *line = strtok (buf, "\n"); line; line = strtok (NULL, "\n"))
    {
      int k = sscanf (line, "%lf %lf %llu %lf", &v, &p, &cnt, &inv);
      if (line[0] == '#' || k < 3)
        continue;
      assert_true (p > lastp && v >= lastv && cnt >= lastc);
      if (k == 4)
        assert_true (fabs (inv - 1 / (1 - p)) < 0.01 * inv);
      else
        {
          final = 1;
          assert_true (p == 1.0 && cnt == 10000 && fabs (v - 10.0) < 1e-9);
        }
      /* the value at percentile p is the exact one within 0.1% */
      double want = ceil (p * 10000) / 1000; /* ms */
      if (p > 0 && k == 4)
        assert_true (fabs (v - want) <= want / 1024 + 0.0015);
      lastp = p, lastv = v, lastc = cnt;
      rows++;
    }
  assert_true (final);
  assert_true (rows > 50);
  free (buf);
  hist_free (h);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_log_uniform), cmocka_unit_test (test_clustered), cmocka_unit_test (test_small),
    cmocka_unit_test (test_clamp_merge), cmocka_unit_test (test_hgrm),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
