/* Description: aggregation, per-task arithmetic, noise warnings and the
 * claims' verdicts on synthetic points with known answers (harness/
 * aggregate.c, noise.c, claims*.c): medians and min-max over ok repeats;
 * (peak - baseline) / n per task; spread and outlier detection; a verdict
 * on two figures needs at least two repeats each whose ranges do not
 * overlap, else "within noise"; C1, C2 (at one n, over the baseline), C3
 * (creation and switch) and C12 (from the sandbox probe points) computed
 * from the data, with no fixed verdict text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lab-test.h"
#include "aggregate.h"
#include "claims.h"
#include "noise.h"

/* One point: experiment, variant, n, repeat, status, and summary/workload JSON texts. */
static void
add_point (struct json_object *arr, const char *exp, const char *var, long n, int rep, const char *status,
           const char *summary, const char *workload)
{
  char buf[4096], id[128], ts[64];
  static int seq;
  snprintf (id, sizeof id, "%s-%s-n%ld-r%d", exp, var, n, rep);
  snprintf (ts, sizeof ts, "2026-01-01T00:00:%02d.%06dZ", seq / 1000000, seq % 1000000);
  seq++;
  snprintf (buf, sizeof buf,
            "{\"id\":\"%s\",\"experiment\":\"%s\",\"variant\":\"%s\",\"n\":%ld,\"repeat\":%d,\"status\":\"%s\","
            "\"detail\":\"%s\",\"started_at\":\"%s\",\"summary\":%s,\"workload\":%s}",
            id, exp, var, n, rep, status, strcmp (status, "ok") ? "synthetic" : "", ts, summary ? summary : "{}",
            workload ? workload : "null");
  struct json_object *o = json_tokener_parse (buf);
  if (o == NULL)
    fail_msg ("bad synthetic point: %s", buf);
  json_object_array_add (arr, o);
}

static void
wall_point (struct json_object *arr, const char *exp, const char *var, long n, int rep, double wall)
{
  char s[256];
  snprintf (s, sizeof s, "{\"wall_s\":%.9g,\"ops\":%ld,\"ops_per_s\":%.9g}", wall, n, n / wall);
  add_point (arr, exp, var, n, rep, "ok", s, "{}");
}

static char *
judge (enum lab_verdict (*fn) (const struct lab_agg *, int, FILE *), struct json_object *pts, enum lab_verdict *v)
{
  struct lab_agg *agg;
  int na;
  char *t = NULL;
  size_t tl = 0;
  FILE *f = open_memstream (&t, &tl);
  assert_int_equal (lab_agg_build (pts, &agg, &na), 0);
  *v = fn (agg, na, f);
  fclose (f);
  free (agg);
  print_message ("  %s: %s\n", lab_verdict_name (*v), t);
  assert_null (strstr (t, "cannot hold as stated"));
  return t;
}

static void
test_median_min_max (void **state)
{
  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg;
  int na;
  /* interleaved as lab run plans them: A B A B A B, plus a failed repeat */
  double pw[] = { 3.0, 1.0, 2.0 }, cw[] = { 0.30, 0.50, 0.40, 0.45 };
  for (int r = 0; r < 3; r++)
    {
      wall_point (pts, "spawn", "pthread", 1000, r + 1, pw[r]);
      wall_point (pts, "spawn", "coro", 1000, r + 1, cw[r]);
    }
  wall_point (pts, "spawn", "coro", 1000, 4, cw[3]);
  add_point (pts, "spawn", "coro", 1000, 5, "crashed", "{\"wall_s\":9}", NULL);
  assert_int_equal (lab_agg_build (pts, &agg, &na), 0);
  assert_int_equal (na, 2);
  const struct lab_agg *p = lab_agg_find (agg, na, "spawn", "pthread", 1000);
  const struct lab_agg *c = lab_agg_find (agg, na, "spawn", "coro", 1000);
  assert_non_null (p);
  assert_non_null (c);
  assert_float_equal (p->m[LAB_M_WALL].med, 2.0, 1e-12);
  assert_float_equal (p->m[LAB_M_WALL].min, 1.0, 1e-12);
  assert_float_equal (p->m[LAB_M_WALL].max, 3.0, 1e-12);
  assert_float_equal (p->m[LAB_M_WALL].spread_pct, 100.0, 1e-9);
  assert_int_equal (c->n_ok, 4);
  assert_int_equal (c->n_total, 5);
  assert_float_equal (c->m[LAB_M_WALL].med, 0.425, 1e-12); /* even count: mean of the middle two */
  assert_float_equal (c->m[LAB_M_NS_PER_OP].med, 1e9 / (1000 / 0.425), 1e-3 * 1e9 / (1000 / 0.425));
  free (agg);
  json_object_put (pts);
}

static void
test_per_task_over_baseline (void **state)
{
  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg;
  int na;
  /* peak 2,000,000 + k*1000, baseline 1,600,000: (400,000 + k*1000) / 1000 = 400 + k B/task */
  for (int r = 0; r < 3; r++)
    {
      char s[512];
      snprintf (s, sizeof s,
                "{\"wall_s\":0.01,\"rss_peak_bytes\":%d,\"rss_baseline_bytes\":1600000,"
                "\"cgroup_mem_peak_bytes\":%d,\"cgroup_baseline_bytes\":500000,\"kernel_mem_bytes\":100000}",
                2000000 + r * 1000, 3000000 + r * 2000);
      add_point (pts, "memory", "coro", 1000, r + 1, "ok", s, "{\"spawn_ns_per_task\":500}");
    }
  /* a repeat without a baseline gives no over-baseline figure (never peak/n in its place) */
  add_point (pts, "memory", "coro", 1000, 4, "ok", "{\"wall_s\":0.01,\"rss_peak_bytes\":2001000}", NULL);
  assert_int_equal (lab_agg_build (pts, &agg, &na), 0);
  const struct lab_agg *g = &agg[0];
  assert_int_equal (g->m[LAB_M_RSS_OVER_BASE_PER_TASK].n, 3);
  assert_float_equal (g->m[LAB_M_RSS_OVER_BASE_PER_TASK].med, 401, 1e-9);
  assert_float_equal (g->m[LAB_M_RSS_OVER_BASE_PER_TASK].min, 400, 1e-9);
  assert_float_equal (g->m[LAB_M_RSS_OVER_BASE_PER_TASK].max, 402, 1e-9);
  assert_float_equal (g->m[LAB_M_CG_OVER_BASE_PER_TASK].med, 2502, 1e-9);
  assert_int_equal (g->m[LAB_M_RSS_PER_TASK].n, 4);
  assert_float_equal (g->m[LAB_M_RSS_PER_TASK].med, 2001, 1e-9); /* peak / n: 2000, 2001, 2001, 2002 */
  assert_float_equal (g->m[LAB_M_KERNEL_PER_TASK].med, 100, 1e-9);
  assert_float_equal (g->m[LAB_M_SPAWN_NS_PER_TASK].med, 500, 1e-9);
  free (agg);
  json_object_put (pts);
}

static void
test_noise (void **state)
{
  double a[] = { 1.0, 1.01, 1.5 }, b[] = { 1.0, 1.01, 1.02 }, c[] = { 2.0, 2.0, 2.5 }, d[] = { 2.0, 2.0, 2.1 };
  assert_float_equal (lab_noise_outlier (a, 3, 1.01), 1.5, 0);
  assert_true (lab_noise_outlier (b, 3, 1.01) < 0);
  assert_float_equal (lab_noise_outlier (c, 3, 2.0), 2.5, 0); /* MAD 0: more than 10% off */
  assert_true (lab_noise_outlier (d, 3, 2.0) < 0);            /* MAD 0: 5% off is not */
  assert_true (lab_noise_outlier (a, 2, 1.0) < 0);            /* two repeats: no outlier test */
  double e[] = { 3.541, 3.540, 3.73 };                         /* z is large, but only 5% off */
  assert_true (lab_noise_outlier (e, 3, 3.541) < 0);

  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg;
  int na;
  char *t = NULL;
  size_t tl = 0;
  FILE *f = open_memstream (&t, &tl);
  for (int r = 0; r < 3; r++)
    {
      wall_point (pts, "spawn", "pthread", 1000, r + 1, a[r]);
      wall_point (pts, "spawn", "coro", 1000, r + 1, b[r]);
    }
  assert_int_equal (lab_agg_build (pts, &agg, &na), 0);
  assert_int_equal (lab_noise_report (f, agg, na, "spawn", LAB_M_WALL), 2); /* pthread: spread 49% and an outlier */
  fclose (f);
  print_message ("%s", t);
  assert_non_null (strstr (t, "pthread n=1000: `wall_s` spreads 50%"));
  assert_non_null (strstr (t, "of 1.5 is an outlier"));
  assert_null (strstr (t, "coro"));
  free (t);
  free (agg);
  json_object_put (pts);
}

static void
test_verdict_lower (void **state)
{
  struct lab_stat one_a = { 1, 1, 1, 1, 0, -1 }, one_b = { 10, 10, 10, 1, 0, -1 };
  struct lab_stat a = { 1, 0.9, 1.1, 3, 20, -1 }, b = { 2, 1.9, 2.2, 3, 15, -1 }, c = { 1.2, 1.0, 2.0, 3, 83, -1 };
  struct lab_stat none = { -1, -1, -1, 0, 0, -1 };
  assert_int_equal (lab_verdict_lower (&a, &b), LAB_V_HOLDS);
  assert_int_equal (lab_verdict_lower (&b, &a), LAB_V_FAILS);
  assert_int_equal (lab_verdict_lower (&c, &b), LAB_V_NOISE);   /* ranges overlap */
  assert_int_equal (lab_verdict_lower (&one_a, &one_b), LAB_V_NOISE); /* one run each: no spread */
  assert_int_equal (lab_verdict_lower (&none, &b), LAB_V_NOT_TESTED);
  assert_non_null (strstr (lab_verdict_why_noise (&one_a, &one_b), "single run"));
}

static void
test_c1 (void **state)
{
  struct json_object *pts = json_object_new_array ();
  enum lab_verdict v;
  for (int r = 1; r <= 3; r++)
    {
      wall_point (pts, "spawn", "pthread", 1000000, r, 3.8 + 0.01 * r);
      wall_point (pts, "spawn", "coro", 1000000, r, 0.47 + 0.01 * r);
    }
  free (judge (lab_claim_c1, pts, &v));
  assert_int_equal (v, LAB_V_HOLDS);
  json_object_put (pts);
  /* close figures whose ranges overlap */
  pts = json_object_new_array ();
  for (int r = 1; r <= 3; r++)
    {
      wall_point (pts, "spawn", "pthread", 1000000, r, 1.0 + 0.2 * r);
      wall_point (pts, "spawn", "coro", 1000000, r, 1.1 + 0.2 * r);
    }
  char *t = judge (lab_claim_c1, pts, &v);
  assert_int_equal (v, LAB_V_NOISE);
  assert_non_null (strstr (t, "overlap"));
  free (t);
  json_object_put (pts);
  /* one run each, however far apart: within noise */
  pts = json_object_new_array ();
  wall_point (pts, "spawn", "pthread", 1000000, 1, 3.8);
  wall_point (pts, "spawn", "coro", 1000000, 1, 0.47);
  free (judge (lab_claim_c1, pts, &v));
  assert_int_equal (v, LAB_V_NOISE);
  json_object_put (pts);
}

static void
mem_point (struct json_object *pts, const char *var, long n, int r, double per_task)
{
  char s[512];
  snprintf (s, sizeof s,
            "{\"wall_s\":0.1,\"rss_peak_bytes\":%.0f,\"rss_baseline_bytes\":2000000,"
            "\"cgroup_mem_peak_bytes\":%.0f,\"cgroup_baseline_bytes\":600000}",
            2000000 + per_task * (double) n, 600000 + per_task * (double) n);
  add_point (pts, "memory", var, n, r, "ok", s, "{\"stack_bytes\":4096}");
}

static void
test_c2_same_n (void **state)
{
  struct json_object *pts = json_object_new_array ();
  enum lab_verdict v;
  for (int r = 1; r <= 3; r++)
    {
      mem_point (pts, "pthread", 10000, r, 30000 + r);
      mem_point (pts, "coro", 10000, r, 4200 + r);
      mem_point (pts, "coro-copystack", 10000, r, 330 + r);
      mem_point (pts, "coro", 100000, r, 4100 + r); /* coro alone at a larger n: not the comparison */
    }
  add_point (pts, "memory", "pthread", 100000, 1, "limit", "{}", NULL);
  char *t = judge (lab_claim_c2, pts, &v);
  assert_int_equal (v, LAB_V_HOLDS);
  assert_non_null (strstr (t, "at n=10000"));
  assert_non_null (strstr (t, "4.1 KiB/task (4.1 KiB-4.1 KiB, 3 runs) over its baseline")); /* 4202 B */
  assert_non_null (strstr (t, "A thread costs 7.1x a coroutine")); /* 30002 / 4202 */
  assert_non_null (strstr (t, "pthread stopped at n=100000: `limit`"));
  free (t);
  json_object_put (pts);
}

static void
test_c3 (void **state)
{
  struct json_object *pts = json_object_new_array ();
  enum lab_verdict v;
  for (int r = 1; r <= 3; r++)
    {
      char w[128];
      snprintf (w, sizeof w, "{\"spawn_ns_per_task\":%d}", 30000 + r * 100);
      add_point (pts, "spawn", "pthread", 1000, r, "ok", "{\"wall_s\":1,\"start_lat_p50_ns\":50000}", w);
      snprintf (w, sizeof w, "{\"spawn_ns_per_task\":%d}", 500 + r * 10);
      add_point (pts, "spawn", "coro", 1000, r, "ok", "{\"wall_s\":0.1,\"start_lat_p50_ns\":2000}", w);
      wall_point (pts, "switch", "pthread", 100000, r, 0.2 + 0.001 * r); /* ops = n */
      wall_point (pts, "switch", "coro", 100000, r, 0.001 + 0.0001 * r);
    }
  char *t = judge (lab_claim_c3, pts, &v);
  assert_int_equal (v, LAB_V_HOLDS);
  assert_non_null (strstr (t, "pthread 30200 ns/task (30100-30300) vs coro 520 ns/task (510-530)"));
  free (t);
  json_object_put (pts);
  /* creation holds, switch overlaps: within noise */
  pts = json_object_new_array ();
  for (int r = 1; r <= 3; r++)
    {
      char w[128];
      snprintf (w, sizeof w, "{\"spawn_ns_per_task\":%d}", 30000 + r * 100);
      add_point (pts, "spawn", "pthread", 1000, r, "ok", "{\"wall_s\":1}", w);
      snprintf (w, sizeof w, "{\"spawn_ns_per_task\":%d}", 500 + r * 10);
      add_point (pts, "spawn", "coro", 1000, r, "ok", "{\"wall_s\":0.1}", w);
      wall_point (pts, "switch", "pthread", 100000, r, 0.2 + 0.01 * r);
      wall_point (pts, "switch", "coro", 100000, r, 0.21 + 0.01 * r);
    }
  free (judge (lab_claim_c3, pts, &v));
  assert_int_equal (v, LAB_V_NOISE);
  json_object_put (pts);
}

static void
c12_points (struct json_object *pts, const char *mem_status)
{
  for (int r = 1; r <= 3; r++)
    {
      add_point (pts, "seccomp", "memory-max", 1, r, mem_status, "{}",
                 strcmp (mem_status, "ok") ? NULL : "{\"memory_touched_bytes\":1073741824}");
      add_point (pts, "seccomp", "clone-newns", 1, r, "ok", "{\"wall_s\":0.0001}",
                 "{\"openat_ok\":1,\"clone_newns_ok\":0,\"clone_newns_errno\":1}");
      add_point (pts, "seccomp", "ptrace", 1, r, "seccomp", "{}", NULL);
      add_point (pts, "seccomp", "syscall", 1, r, "ok", "{\"wall_s\":0.0001}",
                 "{\"syscall_openat_ok\":0,\"syscall_openat_errno\":1}");
      add_point (pts, "seccomp", "io_uring", 1, r, "ok", "{\"wall_s\":0.0001}", "{\"io_uring_openat_ok\":1}");
    }
}

static void
test_c12 (void **state)
{
  struct json_object *pts = json_object_new_array ();
  enum lab_verdict v;
  c12_points (pts, "oom");
  char *t = judge (lab_claim_c12, pts, &v);
  assert_int_equal (v, LAB_V_HOLDS);
  assert_non_null (strstr (t, "memory.max as a hard limit: holds (3 of 3 runs `oom`"));
  assert_non_null (strstr (t, "EPERM for clone(CLONE_NEWNS): holds"));
  assert_non_null (strstr (t, "killed on ptrace: holds"));
  assert_non_null (strstr (t, "seccomp does not see io_uring operations"));
  free (t);
  json_object_put (pts);
  /* the probe ran past 64M: the limit did not hold */
  pts = json_object_new_array ();
  c12_points (pts, "ok");
  t = judge (lab_claim_c12, pts, &v);
  assert_int_equal (v, LAB_V_FAILS);
  assert_non_null (strstr (t, "memory.max as a hard limit: DOES NOT HOLD"));
  free (t);
  json_object_put (pts);
  /* no probe points: not tested, never a fixed verdict */
  pts = json_object_new_array ();
  wall_point (pts, "spawn", "coro", 1000, 1, 0.1);
  free (judge (lab_claim_c12, pts, &v));
  assert_int_equal (v, LAB_V_NOT_TESTED);
  json_object_put (pts);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_median_min_max),  cmocka_unit_test (test_per_task_over_baseline),
    cmocka_unit_test (test_noise),           cmocka_unit_test (test_verdict_lower),
    cmocka_unit_test (test_c1),              cmocka_unit_test (test_c2_same_n),
    cmocka_unit_test (test_c3),              cmocka_unit_test (test_c12),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
