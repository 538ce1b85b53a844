/* Description: aggregation of a run's points (harness/aggregate.c): repeats grouped by
   (experiment, variant, n) in plan order; medians of odd and even counts; min-max spreads;
   per-task figures (/ n) and per-operation figures (/ ops, / n when a workload reports no ops)
   computed per repeat before the median; repeats that did not end ok left out, with the status
   of the last one kept when none was ok; the workload report quoted is the median repeat's; and
   the claim verdict helper (holds / fails / within noise / not tested) judged by the spreads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "aggregate.h"
#include "claims.h"

/* A point object as point.c writes it: summary figures given as "key=value" strings. */
static struct json_object *
point (const char *exp, const char *variant, long n, int rep, const char *status, const char *figures)
{
  struct json_object *p = json_object_new_object (), *s = json_object_new_object (), *w = json_object_new_object ();
  char buf[512], *save = NULL;

  json_object_object_add (p, "experiment", json_object_new_string (exp));
  json_object_object_add (p, "variant", json_object_new_string (variant));
  json_object_object_add (p, "n", json_object_new_int64 (n));
  json_object_object_add (p, "repeat", json_object_new_int (rep));
  json_object_object_add (p, "status", json_object_new_string (status));
  json_object_object_add (p, "detail", json_object_new_string (strcmp (status, "ok") ? "why" : ""));
  snprintf (buf, sizeof (buf), "%s", figures);
  for (char *t = strtok_r (buf, " ", &save); t; t = strtok_r (NULL, " ", &save))
    {
      char *eq = strchr (t, '=');
      *eq = '\0';
      json_object_object_add (s, t, json_object_new_double (strtod (eq + 1, NULL)));
    }
  json_object_object_add (w, "repeat_seen", json_object_new_int (rep));
  json_object_object_add (p, "summary", s);
  json_object_object_add (p, "workload", w);
  return p;
}

static void
test_grouping_and_medians (void **state)
{
  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg = NULL;
  int n = 0;

  /* Interleaved repeats of two variants; three repeats of pthread, two of coro. */
  json_object_array_add (pts, point ("spawn", "pthread", 1000, 1, "ok", "wall_s=3 ops=1000 cpu_sys_s=0.002"));
  json_object_array_add (pts, point ("spawn", "coro", 1000, 1, "ok", "wall_s=1 cgroup_mem_peak_bytes=4000"));
  json_object_array_add (pts, point ("spawn", "pthread", 1000, 2, "ok", "wall_s=1 ops=1000 cpu_sys_s=0.004"));
  json_object_array_add (pts, point ("spawn", "coro", 1000, 2, "ok", "wall_s=2 cgroup_mem_peak_bytes=6000"));
  json_object_array_add (pts, point ("spawn", "pthread", 1000, 3, "ok", "wall_s=2 ops=1000 cpu_sys_s=0.009"));
  json_object_array_add (pts, point ("spawn", "pthread", 10000, 1, "limit", "wall_s=9"));
  assert_int_equal (lab_agg_build (pts, &agg, &n), 0);
  assert_int_equal (n, 3);
  /* Plan order: first appearance. */
  assert_string_equal (agg[0].variant, "pthread");
  assert_string_equal (agg[1].variant, "coro");
  assert_int_equal (agg[2].n, 10000);

  /* Odd count: the middle one; spread min-max. */
  assert_int_equal (agg[0].n_ok, 3);
  assert_int_equal (agg[0].m[LAB_M_WALL].n, 3);
  assert_true (agg[0].m[LAB_M_WALL].med == 2);
  assert_true (agg[0].m[LAB_M_WALL].min == 1 && agg[0].m[LAB_M_WALL].max == 3);
  assert_true (agg[0].wall_med == 2 && agg[0].wall_min == 1 && agg[0].wall_max == 3);
  /* Per op, per repeat, then the median: 0.002, 0.004, 0.009 s over 1000 ops = 2000, 4000, 9000 ns. */
  assert_true (fabs (agg[0].m[LAB_M_CPU_SYS_PER_OP].med - 4000) < 1e-6);
  assert_true (fabs (agg[0].m[LAB_M_CPU_SYS_PER_OP].min - 2000) < 1e-6);
  assert_true (fabs (agg[0].m[LAB_M_CPU_SYS_PER_OP].max - 9000) < 1e-6);
  /* The quoted workload is the median-wall repeat's (repeat 3, wall 2). */
  assert_int_equal (json_object_get_int (json_object_object_get (agg[0].workload, "repeat_seen")), 3);

  /* Even count: mean of the two; per task = peak / n for each repeat. */
  assert_true (agg[1].m[LAB_M_WALL].med == 1.5);
  assert_true (agg[1].m[LAB_M_CG_PER_TASK].med == 5);
  assert_true (agg[1].m[LAB_M_CG_PER_TASK].min == 4 && agg[1].m[LAB_M_CG_PER_TASK].max == 6);
  assert_true (agg[1].cg_per_task == 5);
  /* Not measured: n == 0 and -1 everywhere. */
  assert_int_equal (agg[1].m[LAB_M_LAT_P99].n, 0);
  assert_true (agg[1].m[LAB_M_LAT_P99].med < 0 && agg[1].p99_ns < 0);

  /* No ok repeat: the status and detail of the last one, no figures. */
  assert_int_equal (agg[2].n_ok, 0);
  assert_int_equal (agg[2].n_total, 1);
  assert_string_equal (agg[2].status, "limit");
  assert_string_equal (agg[2].detail, "why");
  assert_true (agg[2].wall_med < 0);
  free (agg);
  json_object_put (pts);
}

static void
test_failed_repeats_left_out (void **state)
{
  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg = NULL;
  int n = 0;

  json_object_array_add (pts, point ("switch", "coro", 100, 1, "ok", "wall_s=1 ops_per_s=1e8 vol_ctxsw=5"));
  json_object_array_add (pts, point ("switch", "coro", 100, 2, "timeout", "wall_s=600 ops_per_s=1"));
  json_object_array_add (pts, point ("switch", "coro", 100, 3, "ok", "wall_s=3 ops_per_s=5e7 vol_ctxsw=15"));
  assert_int_equal (lab_agg_build (pts, &agg, &n), 0);
  assert_int_equal (n, 1);
  assert_int_equal (agg[0].n_ok, 2);
  assert_int_equal (agg[0].n_total, 3);
  assert_string_equal (agg[0].status, "ok");
  assert_true (agg[0].m[LAB_M_WALL].max == 3); /* the timeout's 600 s is not in the spread */
  /* ns per op is 1e9 / ops_per_s of each repeat: 10 and 20 ns. */
  assert_true (fabs (agg[0].m[LAB_M_NS_PER_OP].med - 15) < 1e-9);
  assert_true (fabs (agg[0].m[LAB_M_NS_PER_OP].min - 10) < 1e-9);
  /* No ops reported: per op falls back to n (5/100, 15/100). */
  assert_true (fabs (agg[0].m[LAB_M_VOLCS_PER_OP].med - 0.1) < 1e-12);
  free (agg);
  json_object_put (pts);
}

static void
test_median_and_lookup (void **state)
{
  double v[] = { 5, 1, 4, 2 }, one[] = { 7 };
  struct lab_stat s;
  assert_true (lab_median (v, 4) == 3);
  assert_true (lab_median (one, 1) == 7);
  assert_true (lab_median (NULL, 0) == -1);
  lab_stat_of (&s, v, 4);
  assert_true (s.min == 1 && s.max == 5 && s.n == 4);
  assert_non_null (lab_metric_find ("cpu_sys_ns_per_op"));
  assert_null (lab_metric_find ("nope"));
  for (int m = 0; m < LAB_M__COUNT; m++)
    assert_int_equal (lab_metrics[m].id, m); /* the table is indexed by its enum */
}

static void
test_verdicts (void **state)
{
  struct lab_stat fast = { 1, 0.9, 1.1, 3, 20, -1 }, slow = { 2, 1.8, 2.2, 3, 20, -1 }, wide = { 1.5, 1, 2, 3, 67, -1 },
                  none = { -1, -1, -1, 0, 0, -1 };
  assert_int_equal (lab_verdict_lower (&fast, &slow), LAB_V_HOLDS);
  assert_int_equal (lab_verdict_lower (&slow, &fast), LAB_V_FAILS);
  assert_int_equal (lab_verdict_lower (&fast, &wide), LAB_V_NOISE);
  assert_int_equal (lab_verdict_lower (&fast, &none), LAB_V_NOT_TESTED);
  assert_string_equal (lab_verdict_name (LAB_V_NOISE), "within noise");
  assert_string_equal (lab_verdict_name (LAB_V_NOT_TESTED), "not tested here");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_grouping_and_medians),
    cmocka_unit_test (test_failed_repeats_left_out),
    cmocka_unit_test (test_median_and_lookup),
    cmocka_unit_test (test_verdicts),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
