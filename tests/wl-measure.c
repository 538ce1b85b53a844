/* Description: what the workloads measure about themselves (experiments/
 * common/wl.c and the workloads): the first-touch calibration adds at most
 * its 64 KiB window to the process's peak (not 16 MiB), so it cannot enter a
 * memory figure; the measured region's getrusage arithmetic on known
 * rusage values; a report carries the region's figures and the process's own
 * VmHWM; wl-memory's peak over its baseline stays near what its tasks cost;
 * wl-spawn reports spawn->first-run latency (start_lat_*) apart from the
 * sleep (sleep_lat_*), and lat_* is the two together. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>
#include <json.h>

#include "lab-test.h"
#include "wl.h"

static long
status_kb (const char *key)
{
  return wl_proc_status_kb (key);
}

/* Defect 2: the calibration's pages are given back as it goes. */
static void
test_first_touch_bounded (void **state)
{
  int fd = open ("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0)
    skip_because ("/proc/self/clear_refs is not writable: cannot reset VmHWM");
  assert_int_equal (write (fd, "5", 1), 1); /* resets VmHWM to the current RSS */
  close (fd);
  long before = status_kb ("VmHWM");
  double ns = wl_first_touch_ns (4096);
  long after = status_kb ("VmHWM");
  print_message ("first touch %.0f ns/page; VmHWM %ld -> %ld kB\n", ns, before, after);
  assert_true (ns > 0);
  assert_true (after - before < 1024); /* 4096 pages = 16 MiB were touched */
}

static void
test_region_deltas (void **state)
{
  struct rusage a = { 0 }, b = { 0 };
  struct wl_region_figures f;
  a.ru_utime = (struct timeval){ 1, 250000 };
  b.ru_utime = (struct timeval){ 2, 100000 };
  a.ru_stime = (struct timeval){ 0, 999999 };
  b.ru_stime = (struct timeval){ 1, 1 };
  a.ru_nvcsw = 10, b.ru_nvcsw = 15;
  a.ru_nivcsw = 7, b.ru_nivcsw = 7;
  wl_region_deltas (&a, &b, &f);
  assert_float_equal (f.cpu_user_s, 0.85, 1e-9);
  assert_float_equal (f.cpu_sys_s, 0.000002, 1e-9);
  assert_int_equal (f.vol_ctxsw, 5);
  assert_int_equal (f.invol_ctxsw, 0);
}

/* Runs `$LAB_BUILD/bin/wl-EXP ARGS` and returns its report. */
static json_object *
run_report (const char *exp, const char *args)
{
  const char *build = getenv ("LAB_BUILD") ? getenv ("LAB_BUILD") : "build";
  char cmd[512], out[1 << 16];
  size_t len = 0, got;
  FILE *p;

  snprintf (cmd, sizeof cmd, "%s/bin/wl-%s %s 2>/dev/null", build, exp, args);
  p = popen (cmd, "r");
  assert_non_null (p);
  while ((got = fread (out + len, 1, sizeof out - 1 - len, p)) > 0)
    len += got;
  out[len] = '\0';
  if (pclose (p) != 0)
    fail_msg ("`%s` failed: %s", cmd, out);
  const char *line = strstr (out, "@lab-report ");
  assert_non_null (line);
  json_object *o = json_tokener_parse (line + 12);
  assert_non_null (o);
  return o;
}

static double
num (json_object *o, const char *k)
{
  json_object *v = NULL;
  if (!json_object_object_get_ex (o, k, &v) || v == NULL)
    fail_msg ("the report has no `%s`: %s", k, json_object_to_json_string (o));
  return json_object_get_double (v);
}

/* Defects 5 and 6 at the source: every report carries its region and peaks. */
static void
test_report_has_region (void **state)
{
  json_object *o = run_report ("switch", "--variant ucontext --n 1000");
  assert_true (num (o, "region_wall_s") > 0);
  assert_float_equal (num (o, "region_wall_s"), num (o, "wall_s"), num (o, "wall_s") * 0.5 + 1e-4);
  assert_true (num (o, "region_cpu_user_s") >= 0);
  assert_true (num (o, "region_cpu_sys_s") >= 0);
  assert_true (num (o, "region_vol_ctxsw") >= 0);
  assert_true (num (o, "vm_hwm_bytes") > 0);
  assert_true (num (o, "vm_peak_bytes") >= num (o, "vm_hwm_bytes"));
  json_object_put (o);
}

/* Defect 2, end to end: 1000 parked copy-stack coroutines cost well under
   1 MiB over the baseline; the 16 MiB calibration is not in the peak. */
static void
test_memory_peak_over_baseline (void **state)
{
  json_object *o = run_report ("memory", "--variant coro-copystack --n 1000 --duration 0");
  double over = num (o, "vm_hwm_bytes") - num (o, "rss_baseline_bytes");
  print_message ("peak %.0f B, baseline %.0f B: %.0f B over it, %.0f B per task\n", num (o, "vm_hwm_bytes"),
                 num (o, "rss_baseline_bytes"), over, over / 1000);
  assert_true (num (o, "page_first_touch_ns") > 0);
  assert_true (over > 0);
  assert_true (over < 8.0 * 1024 * 1024);
  assert_float_equal (num (o, "wall_s"), num (o, "spawn_s"), 1e-12); /* the region: creation */
  json_object_put (o);
}

/* Defect 7: spawn -> first run is reported, apart from the sleep. */
static void
check_spawn (const char *variant)
{
  char args[128];
  snprintf (args, sizeof args, "--variant %s --n 200", variant);
  json_object *o = run_report ("spawn", args);
  static const char *const q[] = { "p50_ns", "p99_ns", "max_ns" };
  for (size_t i = 0; i < 3; i++)
    {
      char s[64], l[64], st[64];
      snprintf (s, sizeof s, "sleep_lat_%s", q[i]);
      snprintf (l, sizeof l, "lat_%s", q[i]);
      snprintf (st, sizeof st, "start_lat_%s", q[i]);
      assert_true (num (o, st) > 0);
      assert_true (num (o, s) >= 1e6);      /* a 1 ms sleep lasts at least 1 ms */
      assert_true (num (o, l) >= num (o, s)); /* each task's lat = start + sleep >= sleep */
    }
  assert_true (num (o, "lat_max_ns") >= num (o, "start_lat_max_ns"));
  assert_int_equal ((long) num (o, "start_lat_samples"), 200);
  json_object_put (o);
}

static void
test_spawn_start_latency (void **state)
{
  check_spawn ("pthread");
  check_spawn ("coro");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_first_touch_bounded),
    cmocka_unit_test (test_region_deltas),
    cmocka_unit_test (test_report_has_region),
    cmocka_unit_test (test_memory_peak_over_baseline),
    cmocka_unit_test (test_spawn_start_latency),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
