/* Description: sandbox profiles (containers/<name>.json): every shipped profile loads with
   the values it states; malformed JSON names the file and line:column; unknown fields, wrong
   types, bad sizes, unknown namespaces and rlimits, a missing seccomp file are usage errors
   (exit 2) naming the file and the field's path; lab_profile_to_json round-trips the figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "profile.h"
#include "utils.h"
#include "lab-test.h"

/* Loads `text` expecting a usage error whose message holds every string in `needles`. */
static void
expect_error (const char *text, const char *const *needles)
{
  const char *path = write_tmp ("bad.json", text);
  struct lab_profile p;
  lab_error_t err = NULL;

  assert_int_equal (lab_profile_load (path, ".", &p, &err), -1);
  assert_non_null (err);
  assert_non_null (strstr (err->msg, "bad.json"));
  assert_usage_error (&err, needles);
}

static void
test_shipped_profiles (void **state)
{
  DIR *d = opendir ("containers");
  struct dirent *e;
  int n = 0;

  assert_non_null (d);
  while ((e = readdir (d)))
    {
      char path[512];
      struct lab_profile p;
      lab_error_t err = NULL;
      size_t len = strlen (e->d_name);

      if (len < 6 || strcmp (e->d_name + len - 5, ".json") != 0)
        continue;
      snprintf (path, sizeof (path), "containers/%s", e->d_name);
      if (lab_profile_load (path, ".", &p, &err) < 0)
        fail_msg ("%s", err->msg);
      assert_non_null (p.name);
      assert_non_null (p.seccomp_path);
      assert_true (p.clone_flags & CLONE_NEWPID);
      lab_profile_free (&p);
      n++;
    }
  closedir (d);
  assert_true (n >= 5);
}

static void
test_default_values (void **state)
{
  struct lab_profile p;
  lab_error_t err = NULL;
  int i, nofile = 0;

  assert_int_equal (lab_profile_load ("containers/default.json", ".", &p, &err), 0);
  assert_string_equal (p.name, "default");
  assert_int_equal (p.limits.memory_max, 16LL << 30);
  assert_int_equal (p.limits.memory_swap_max, 0);
  /* "auto": the host's pids less a reserve (pids-auto.c), never unlimited. */
  assert_int_equal (p.limits.pids_max, lab_pids_auto ());
  assert_true (p.limits.pids_max > 0 && p.limits.pids_max < LAB_LIMIT_MAX);
  assert_true (p.limits.cpu_quota_us == LAB_LIMIT_MAX);
  assert_int_equal (p.limits.cpu_period_us, 100000);
  assert_int_equal (p.limits.oom_group, 1);
  assert_int_equal (p.clone_flags, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC
                                       | CLONE_NEWUTS | CLONE_NEWCGROUP);
  assert_string_equal (p.hostname, "lab");
  assert_string_equal (p.seccomp_path, "./seccomp/default.json");
  for (i = 0; i < p.n_rlimits; i++)
    if (p.rlimits[i].resource == RLIMIT_NOFILE)
      nofile = (int) p.rlimits[i].soft;
  assert_int_equal (nofile, 1048576);
  assert_true (p.timeout_s == 600);
  lab_profile_free (&p);

  assert_int_equal (lab_profile_load ("containers/small.json", ".", &p, &err), 0);
  assert_int_equal (p.limits.memory_max, 64LL << 20);
  lab_profile_free (&p);

  assert_int_equal (lab_profile_load ("containers/strict.json", ".", &p, &err), 0);
  assert_int_equal (p.limits.pids_max, 64);
  assert_int_equal (p.limits.cpu_quota_us, 100000);
  lab_profile_free (&p);
}

static void
test_minimal_and_json (void **state)
{
  const char *path = write_tmp ("min.json", "{\"limits\": {\"memory.max\": 1048576, \"cpu.max\": \"50000\","
                                            " \"cpuset.cpus\": \"0,0-1\"}, \"namespaces\": [\"pid\"],"
                                            " \"seccomp\": null, \"rlimits\": {\"RLIMIT_MEMLOCK\":"
                                            " {\"soft\": \"64M\", \"hard\": \"unlimited\"}}}");
  struct lab_profile p;
  struct json_object *j, *lim, *v;
  lab_error_t err = NULL;

  if (lab_profile_load (path, ".", &p, &err) < 0)
    fail_msg ("%s", err->msg);
  assert_string_equal (p.name, "min"); /* from the file name */
  assert_int_equal (p.limits.memory_max, 1048576);
  assert_int_equal (p.limits.memory_high, LAB_LIMIT_UNSET);
  assert_int_equal (p.limits.pids_max, LAB_LIMIT_UNSET);
  assert_int_equal (p.limits.cpu_quota_us, 50000);
  assert_int_equal (p.limits.cpu_period_us, 100000);
  assert_string_equal (p.limits.cpuset_cpus, "0,0-1");
  assert_int_equal (p.clone_flags, CLONE_NEWPID);
  assert_null (p.seccomp_path);
  assert_int_equal (p.n_rlimits, 1);
  assert_int_equal (p.rlimits[0].soft, 64 << 20);
  assert_true (p.rlimits[0].hard == RLIM_INFINITY);
  j = lab_profile_to_json (&p);
  assert_true (json_object_object_get_ex (j, "limits", &lim));
  assert_true (json_object_object_get_ex (lim, "memory.max", &v));
  assert_int_equal (json_object_get_int64 (v), 1048576);
  assert_false (json_object_object_get_ex (lim, "pids.max", &v));
  fprintf (stderr, "  json: %s\n", json_object_to_json_string (j));
  json_object_put (j);
  lab_profile_free (&p);
}

static void
test_malformed_json (void **state)
{
  expect_error ("{\n  \"name\": \"x\",\n  \"limits\": { \"memory.max\": \"1G\" ,, }\n}\n",
                (const char *const[]){ "line 3, column 35", "property name", NULL });
  expect_error ("{\n  \"name\": \"x\"\n", (const char *const[]){ "line 3", "end of file", NULL });
  expect_error ("{\"name\": \"x\"} trailing", (const char *const[]){ "line 1, column 15", NULL });
  expect_error ("[1, 2]", (const char *const[]){ "must be a JSON object", NULL });
}

static void
test_field_errors (void **state)
{
  expect_error ("{\"limits\": {\"memory.maxx\": \"1G\"}}",
                (const char *const[]){ "`limits.memory.maxx`", "unknown field", NULL });
  expect_error ("{\"nmae\": \"x\"}", (const char *const[]){ "`nmae`", "unknown field", NULL });
  expect_error ("{\"limits\": {\"memory.max\": \"12Q\"}}",
                (const char *const[]){ "`limits.memory.max`", "bad size `12Q`", NULL });
  expect_error ("{\"limits\": {\"memory.max\": true}}",
                (const char *const[]){ "`limits.memory.max`", "got boolean", NULL });
  expect_error ("{\"limits\": {\"pids.max\": \"lots\"}}",
                (const char *const[]){ "`limits.pids.max`", "\"max\"", NULL });
  expect_error ("{\"limits\": {\"cpu.max\": \"fast\"}}", (const char *const[]){ "`limits.cpu.max`", NULL });
  expect_error ("{\"limits\": {\"cpu.max\": {\"quota_us\": 500}}}",
                (const char *const[]){ "`limits.cpu.max`", "minimum", NULL });
  expect_error ("{\"limits\": {\"cpuset.cpus\": \"1-0\"}}",
                (const char *const[]){ "`limits.cpuset.cpus`", NULL });
  expect_error ("{\"limits\": {\"cpuset.cpus\": \"0-4095\"}}",
                (const char *const[]){ "`limits.cpuset.cpus`", "does not exist", NULL });
  expect_error ("{\"namespaces\": [\"pid\", \"time\"]}",
                (const char *const[]){ "`namespaces[1]`", "unknown namespace `time`", NULL });
  expect_error ("{\"namespaces\": [\"pid\", \"pid\"]}", (const char *const[]){ "twice", NULL });
  expect_error ("{\"namespaces\": \"pid\"}", (const char *const[]){ "`namespaces`", "an array", NULL });
  expect_error ("{\"rlimits\": {\"RLIMIT_FILES\": 10}}",
                (const char *const[]){ "`rlimits.RLIMIT_FILES`", "unknown rlimit", NULL });
  expect_error ("{\"rlimits\": {\"RLIMIT_NOFILE\": {\"soft\": 10, \"hard\": 5}}}",
                (const char *const[]){ "`rlimits.RLIMIT_NOFILE`", "above the hard", NULL });
  expect_error ("{\"seccomp\": \"seccomp/nonexistent.json\"}",
                (const char *const[]){ "`seccomp`", "seccomp/nonexistent.json", "does not exist", NULL });
  expect_error ("{\"timeout_s\": \"10\"}", (const char *const[]){ "`timeout_s`", "a number", NULL });
  expect_error ("{\"namespaces\": [\"pid\"], \"hostname\": \"h\"}",
                (const char *const[]){ "`hostname`", "uts", NULL });
}

static void
test_missing_file (void **state)
{
  struct lab_profile p;
  lab_error_t err = NULL;

  assert_int_equal (lab_profile_load ("containers/no-such-profile.json", ".", &p, &err), -1);
  assert_int_equal (err->exit_code, LAB_EXIT_USAGE);
  assert_non_null (strstr (err->msg, "containers/no-such-profile.json"));
  lab_error_release (&err);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shipped_profiles), cmocka_unit_test (test_default_values),
    cmocka_unit_test (test_minimal_and_json), cmocka_unit_test (test_malformed_json),
    cmocka_unit_test (test_field_errors),     cmocka_unit_test (test_missing_file),
  };
  if (lab_test_dir_init ("profile") < 0)
    return 1;
  return cmocka_run_group_tests (tests, NULL, NULL);
}
