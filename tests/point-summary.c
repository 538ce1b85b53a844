/* Description: summary.csv rows and point statuses from synthetic sandbox
 * results and workload reports with known answers (harness/point.c,
 * harness/sandbox.c): rss_peak_bytes is the workload's own peak, never the
 * reaped init's ru_maxrss (a copy of the harness); vss_peak_bytes is kept
 * whatever the RSS; wall_s is the workload's measured region only (empty when
 * it reports none, never the sandbox's lifetime); cpu_user_s/cpu_sys_s and
 * the context switches are the workload's region deltas, not init's rusage;
 * the baseline columns come from the report; and status classification
 * (ok, oom, timeout, seccomp, crashed, limit) from wait statuses. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lab-test.h"
#include "catalog.h"
#include "point.h"
#include "sandbox.h"

#define MiB (1024 * 1024)

/* A result as lab_sandbox_run leaves it for a short workload: init's rusage
   says 3.7 MiB (the harness's pages) and 11 ms of CPU over 40 ms. */
static void
fake_result (struct lab_sandbox_result *res)
{
  memset (res, 0, sizeof *res);
  memset (&res->cg, 0xff, sizeof res->cg); /* all -1: not read */
  memset (&res->cg_at_peak, 0xff, sizeof res->cg_at_peak);
  res->status = LAB_ST_OK;
  res->exit_code = 0;
  res->wall_s = 0.040;
  res->cpu_user_s = 0.011;
  res->cpu_sys_s = 0.004;
  res->vol_ctxsw = 40;
  res->invol_ctxsw = 9;
  res->max_rss_bytes = 3700 * 1024; /* init's ru_maxrss */
  res->rss_peak = 2 * MiB;          /* sampled, the workload's processes */
  res->vss_peak = 2600 * 1024;      /* sampled VmPeak: below init's RSS */
  res->swap_peak = 0;
  res->cg.mem_peak = 512 * 1024;
  res->cg_mem_peak_sampled = 500 * 1024;
}

static struct json_object *
report (const char *json)
{
  struct json_object *o = json_tokener_parse (json);
  assert_non_null (o);
  return o;
}

static struct json_object *
summary (const struct lab_sandbox_result *res, struct json_object *rep)
{
  struct lab_point pt = { lab_experiment_find ("switch"), "coro", 1000, 1, "switch-coro-n1000-r1", NULL, NULL, NULL };
  assert_non_null (pt.exp);
  return lab_point_make_summary (&pt, "ok", res, rep);
}

static int64_t
i64 (struct json_object *row, const char *k)
{
  struct json_object *v = NULL;
  assert_true (json_object_object_get_ex (row, k, &v));
  return v ? json_object_get_int64 (v) : -1;
}

static double
dbl (struct json_object *row, const char *k)
{
  struct json_object *v = NULL;
  assert_true (json_object_object_get_ex (row, k, &v));
  return v ? json_object_get_double (v) : -1;
}

static int
is_null (struct json_object *row, const char *k)
{
  struct json_object *v = NULL;
  assert_true (json_object_object_get_ex (row, k, &v));
  return v == NULL;
}

/* Defect 1: the larger of the sampled peak and the workload's VmHWM; init's
   3.7 MiB ru_maxrss is never taken. */
static void
test_rss_peak_is_the_workloads (void **state)
{
  struct lab_sandbox_result res;
  fake_result (&res);
  struct json_object *rep = report ("{\"status\":\"ok\",\"wall_s\":0.0015,\"vm_hwm_bytes\":2170880}");
  struct json_object *row = summary (&res, rep);
  assert_int_equal (i64 (row, "rss_peak_bytes"), 2170880);
  json_object_put (row);
  /* ended before any sample after exec: its own VmHWM alone */
  res.rss_peak = -1;
  row = summary (&res, rep);
  assert_int_equal (i64 (row, "rss_peak_bytes"), 2170880);
  json_object_put (row);
  /* no report and no sample: not measured (empty), not init's figure */
  row = summary (&res, NULL);
  assert_true (is_null (row, "rss_peak_bytes"));
  json_object_put (row);
  json_object_put (rep);
}

/* Defect 4: VSS is reported even when below init's ru_maxrss. */
static void
test_vss_peak_kept (void **state)
{
  struct lab_sandbox_result res;
  fake_result (&res);
  struct json_object *rep = report ("{\"status\":\"ok\",\"wall_s\":0.0015}");
  struct json_object *row = summary (&res, rep);
  assert_int_equal (i64 (row, "vss_peak_bytes"), 2600 * 1024);
  json_object_put (row);
  json_object_put (rep);
  rep = report ("{\"status\":\"ok\",\"vm_peak_bytes\":212439040}");
  row = summary (&res, rep);
  assert_int_equal (i64 (row, "vss_peak_bytes"), 212439040);
  json_object_put (row);
  json_object_put (rep);
}

/* Defect 5: wall_s is the workload's region; the sandbox's 40 ms never stands in. */
static void
test_wall_is_the_region (void **state)
{
  struct lab_sandbox_result res;
  fake_result (&res);
  struct json_object *rep = report ("{\"status\":\"ok\",\"wall_s\":0.0015}");
  struct json_object *row = summary (&res, rep);
  assert_float_equal (dbl (row, "wall_s"), 0.0015, 1e-12);
  json_object_put (row);
  json_object_put (rep);
  rep = report ("{\"status\":\"ok\",\"ops\":5}");
  row = summary (&res, rep);
  assert_true (is_null (row, "wall_s"));
  json_object_put (row);
  json_object_put (rep);
}

/* Defect 6: CPU and context switches over the region, from the workload. */
static void
test_cpu_is_the_region (void **state)
{
  struct lab_sandbox_result res;
  fake_result (&res);
  struct json_object *rep = report ("{\"status\":\"ok\",\"wall_s\":0.0015,\"region_cpu_user_s\":0.0014,"
                                    "\"region_cpu_sys_s\":0.0001,\"region_vol_ctxsw\":0,\"region_invol_ctxsw\":2}");
  struct json_object *row = summary (&res, rep);
  assert_float_equal (dbl (row, "cpu_user_s"), 0.0014, 1e-12);
  assert_float_equal (dbl (row, "cpu_sys_s"), 0.0001, 1e-12);
  assert_int_equal (i64 (row, "vol_ctxsw"), 0);
  assert_int_equal (i64 (row, "invol_ctxsw"), 2);
  json_object_put (row);
  json_object_put (rep);
  /* a workload without a region: empty, not init's whole-process rusage */
  rep = report ("{\"status\":\"ok\",\"wall_s\":0.0015}");
  row = summary (&res, rep);
  assert_true (is_null (row, "cpu_user_s"));
  assert_true (is_null (row, "vol_ctxsw"));
  json_object_put (row);
  json_object_put (rep);
}

/* Defect 3 (the CSV side): the baseline is in the row, from the report. */
static void
test_baseline_columns (void **state)
{
  struct lab_sandbox_result res;
  fake_result (&res);
  struct json_object *rep = report ("{\"status\":\"ok\",\"rss_baseline_bytes\":1945600,\"cgroup_baseline_bytes\":598016,"
                                    "\"start_lat_p50_ns\":1500,\"start_lat_p99_ns\":9000}");
  struct json_object *row = summary (&res, rep);
  assert_int_equal (i64 (row, "rss_baseline_bytes"), 1945600);
  assert_int_equal (i64 (row, "cgroup_baseline_bytes"), 598016);
  assert_int_equal (i64 (row, "start_lat_p50_ns"), 1500);
  assert_int_equal (i64 (row, "start_lat_p99_ns"), 9000);
  assert_int_equal (i64 (row, "cgroup_mem_peak_bytes"), 512 * 1024);
  json_object_put (row);
  json_object_put (rep);
}

static const char *
classify (int wstatus, int timed_out, int64_t oom_kills, int seccomp_nr)
{
  static struct lab_sandbox_result res;
  fake_result (&res);
  res.cg.oom_kill = oom_kills;
  res.seccomp_nr = seccomp_nr;
  snprintf (res.seccomp_name, sizeof res.seccomp_name, "%s", seccomp_nr >= 0 ? "ptrace" : "");
  lab_sandbox_classify (wstatus, timed_out, &res);
  return lab_status_name (res.status);
}

#define EXITED(code) (((code) & 0xff) << 8)
#define KILLED(sig) ((sig) & 0x7f)

static void
test_classify (void **state)
{
  assert_string_equal (classify (EXITED (0), 0, 0, -1), "ok");
  assert_string_equal (classify (EXITED (3), 0, 0, -1), "ok"); /* the point decides from the report */
  assert_string_equal (classify (EXITED (1), 0, 1, -1), "oom");
  assert_string_equal (classify (EXITED (0), 0, 1, -1), "ok"); /* an oom kill it survived */
  assert_string_equal (classify (KILLED (SIGKILL), 0, 2, -1), "oom");
  assert_string_equal (classify (KILLED (SIGKILL), 0, 0, -1), "crashed");
  assert_string_equal (classify (KILLED (SIGKILL), 1, 0, -1), "timeout");
  assert_string_equal (classify (EXITED (0), 1, 0, -1), "timeout");
  assert_string_equal (classify (KILLED (SIGSYS), 0, 0, 101), "seccomp");
  assert_string_equal (classify (KILLED (SIGSYS), 0, 0, -1), "seccomp");
  assert_string_equal (classify (KILLED (SIGSEGV), 0, 0, -1), "crashed");

  struct lab_sandbox_result res;
  fake_result (&res);
  res.seccomp_nr = 101;
  snprintf (res.seccomp_name, sizeof res.seccomp_name, "ptrace");
  lab_sandbox_classify (KILLED (SIGSYS), 0, &res);
  assert_non_null (strstr (res.detail, "`ptrace` (101)"));
  assert_int_equal (res.term_signal, SIGSYS);
}

/* The point's status from the sandbox's and the workload's word. */
static void
test_decide_status (void **state)
{
  struct lab_sandbox_result res;
  char detail[512];
  struct json_object *ok = report ("{\"status\":\"ok\"}"), *lim = report ("{\"status\":\"limit\",\"limit\":\"pid_max\","
                                                                          "\"detail\":\"EAGAIN after 32397 tasks\"}");
  struct json_object *bad = report ("{\"status\":\"error\",\"detail\":\"no ring\"}");

  fake_result (&res);
  assert_string_equal (lab_point_decide_status (&res, ok, detail, sizeof detail), "ok");
  assert_string_equal (lab_point_decide_status (&res, lim, detail, sizeof detail), "limit");
  assert_non_null (strstr (detail, "pid_max: EAGAIN after 32397 tasks"));
  assert_string_equal (lab_point_decide_status (&res, NULL, detail, sizeof detail), "crashed");
  assert_non_null (strstr (detail, "without a report"));
  res.exit_code = 1;
  assert_string_equal (lab_point_decide_status (&res, bad, detail, sizeof detail), "crashed");
  assert_non_null (strstr (detail, "no ring"));
  res.status = LAB_ST_OOM;
  snprintf (res.detail, sizeof res.detail, "killed by the oom killer");
  assert_string_equal (lab_point_decide_status (&res, ok, detail, sizeof detail), "oom");
  json_object_put (ok);
  json_object_put (lim);
  json_object_put (bad);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rss_peak_is_the_workloads),
    cmocka_unit_test (test_vss_peak_kept),
    cmocka_unit_test (test_wall_is_the_region),
    cmocka_unit_test (test_cpu_is_the_region),
    cmocka_unit_test (test_baseline_columns),
    cmocka_unit_test (test_classify),
    cmocka_unit_test (test_decide_status),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
