/* Description: the pthread/ucontext workload binaries, run as the harness runs
 * them ($LAB_BUILD/bin/wl-*, default build/): each prints one `@lab-report`
 * line with status ok and figures that fit what was asked (task counts,
 * switch counts, 1 ms sleeps that last at least 1 ms), and wl-memory prints
 * `@lab-parked` before its report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json.h>

/* Runs `$LAB_BUILD/bin/wl-EXP ARGS`, checks exit 0; returns stdout. */
static char *
run (const char *exp, const char *args)
{
  const char *build = getenv ("LAB_BUILD") ? getenv ("LAB_BUILD") : "build";
  char cmd[512], *out = calloc (1, 1 << 16);
  size_t len = 0, got;
  FILE *p;

  assert_non_null (out);
  snprintf (cmd, sizeof cmd, "%s/bin/wl-%s", build, exp);
  if (access (cmd, X_OK) != 0)
    fail_msg ("`%s` is not built (LAB_BUILD=%s)", cmd, build);
  snprintf (cmd, sizeof cmd, "%s/bin/wl-%s %s", build, exp, args);
  p = popen (cmd, "r");
  assert_non_null (p);
  while ((got = fread (out + len, 1, (1 << 16) - 1 - len, p)) > 0)
    len += got;
  if (pclose (p) != 0)
    fail_msg ("`%s` failed; output: %s", cmd, out);
  return out;
}

static json_object *
report_of (const char *out)
{
  const char *line = strstr (out, "@lab-report ");
  json_object *o, *st;

  assert_non_null (line);
  assert_null (strstr (line + 1, "@lab-report ")); /* exactly one */
  o = json_tokener_parse (line + strlen ("@lab-report "));
  assert_non_null (o);
  assert_true (json_object_object_get_ex (o, "status", &st));
  if (strcmp (json_object_get_string (st), "ok") != 0)
    fail_msg ("status is not ok: %s", line);
  return o;
}

static double
num (json_object *o, const char *k)
{
  json_object *v;
  if (!json_object_object_get_ex (o, k, &v) || v == NULL)
    fail_msg ("report lacks `%s`", k);
  return json_object_get_double (v);
}

static void
test_spawn_pthread (void **state)
{
  char *out = run ("spawn", "--variant pthread --n 1000");
  json_object *o = report_of (out);

  assert_true (num (o, "ops") == 1000);
  assert_true (num (o, "lat_samples") == 1000);
  assert_true (num (o, "spawn_s") > 0 && num (o, "spawn_s") <= num (o, "wall_s"));
  assert_true (num (o, "wall_s") >= 0.001); /* at least one 1 ms sleep */
  assert_true (num (o, "ops_per_s") > 0);
  /* every task slept at least 1 ms, and p50 <= p99 <= p999 <= max */
  assert_true (num (o, "lat_p50_ns") >= 1e6);
  assert_true (num (o, "lat_p50_ns") <= num (o, "lat_p99_ns"));
  assert_true (num (o, "lat_p99_ns") <= num (o, "lat_p999_ns"));
  assert_true (num (o, "lat_p999_ns") <= num (o, "lat_max_ns"));
  assert_true (num (o, "peak_live_threads") >= 1 && num (o, "peak_live_threads") <= 1000);
  json_object_put (o);
  free (out);

  out = run ("spawn", "--variant pthread --n 200 --opt join=after --stack 16K");
  o = report_of (out);
  assert_true (num (o, "ops") == 200);
  assert_true (num (o, "stack_bytes") == 16384);
  json_object_put (o);
  free (out);
}

static void
test_switch (void **state)
{
  char *out = run ("switch", "--variant pthread --n 2000");
  json_object *o = report_of (out);

  assert_true (num (o, "ops") == 4000);
  assert_true (num (o, "ns_per_switch") > 0);
  /* pinned to one CPU, every hand-over blocks one thread: >= 1 switch each */
  assert_true (num (o, "vol_ctxsw") + num (o, "invol_ctxsw") >= 4000 * 0.9);
  json_object_put (o);
  free (out);

  out = run ("switch", "--variant ucontext --n 20000");
  o = report_of (out);
  assert_true (num (o, "ops") == 40000);
  assert_true (num (o, "ns_per_switch") > 0);
  assert_true (num (o, "vol_ctxsw") < 100); /* one thread, it never blocks */
  json_object_put (o);
  free (out);
}

static void
test_memory_pthread (void **state)
{
  char *out = run ("memory", "--variant pthread --n 500 --duration 0.1");
  const char *parked = strstr (out, "@lab-parked\n");
  json_object *o;

  assert_non_null (parked);
  assert_true (parked < strstr (out, "@lab-report "));
  o = report_of (out);
  assert_true (num (o, "done") == 500);
  assert_true (num (o, "threads_seen") == 501); /* all parked at once, + main */
  assert_true (num (o, "bytes_per_task") > 4096); /* at least a stack page each */
  assert_true (num (o, "vss_bytes") > 500 * 16384.0);
  json_object_put (o);
  free (out);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_spawn_pthread),
    cmocka_unit_test (test_switch),
    cmocka_unit_test (test_memory_pthread),
  };
  return cmocka_run_group_tests (tests, NULL, NULL) ? 1 : 0;
}
