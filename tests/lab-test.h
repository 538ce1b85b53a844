/*
 * lab-test.h - what the C tests share: the scratch directory (LAB_TMP from
 * tests/run.sh, else a fresh one under /tmp), writing a file into it, and
 * the exit code liburing's runner expects (T_EXIT_PASS 0, T_EXIT_FAIL 1,
 * T_EXIT_SKIP 77).  Include after <cmocka.h>.
 *
 * Skips: cmocka's skip() marks a test skipped but cmocka_run_group_tests()
 * still returns 0, so a file whose tests skipped would reach tests/run.sh as
 * a PASS.  This header wraps both: skip() (or skip_because("why")) records
 * the skip, and `return cmocka_run_group_tests (...)` then returns
 * T_EXIT_FAIL if a test failed, else T_EXIT_SKIP (77) with "SKIP: <reason>"
 * printed if any test skipped, else T_EXIT_PASS.
 */
#ifndef LAB_TEST_H
#define LAB_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"

enum t_exit { T_EXIT_PASS = 0, T_EXIT_FAIL = 1, T_EXIT_SKIP = 77 };

static int lab_test_skips;
static char lab_test_skip_reason[512];

/* Records a skip with its reason, then lets cmocka skip the test. */
static inline void
lab_test_skip (const char *file, int line, const char *why)
{
  lab_test_skips++;
  if (why)
    snprintf (lab_test_skip_reason, sizeof (lab_test_skip_reason), "%s", why);
  else
    snprintf (lab_test_skip_reason, sizeof (lab_test_skip_reason), "a test skipped at %s:%d", file, line);
  fprintf (stderr, "skip: %s\n", lab_test_skip_reason);
  _skip (file, line);
}
#undef skip
#define skip() lab_test_skip (__FILE__, __LINE__, NULL)
#define skip_because(why) lab_test_skip (__FILE__, __LINE__, (why))

/* cmocka's failed-test count -> the runner's exit code. */
static inline int
lab_test_exit (int failed)
{
  if (failed)
    return T_EXIT_FAIL;
  if (lab_test_skips)
    {
      printf ("SKIP: %d test%s skipped: %s\n", lab_test_skips, lab_test_skips == 1 ? "" : "s",
              lab_test_skip_reason);
      return T_EXIT_SKIP;
    }
  return T_EXIT_PASS;
}
#undef cmocka_run_group_tests
#define cmocka_run_group_tests(group_tests, group_setup, group_teardown)                                   \
  lab_test_exit (_cmocka_run_group_tests (#group_tests, group_tests, sizeof (group_tests) / sizeof ((group_tests)[0]), \
                                          group_setup, group_teardown))

static char lab_test_dir[4096] __attribute__ ((unused));

/* Sets lab_test_dir; returns -1 if no directory could be had. */
static inline int
lab_test_dir_init (const char *name)
{
  const char *tmp = getenv ("LAB_TMP");
  char templ[128];

  if (tmp)
    {
      snprintf (lab_test_dir, sizeof (lab_test_dir), "%s", tmp);
      return lab_mkdir_p (lab_test_dir, 0755, NULL);
    }
  snprintf (templ, sizeof (templ), "/tmp/lab-%s-XXXXXX", name);
  if (mkdtemp (templ) == NULL)
    return -1;
  snprintf (lab_test_dir, sizeof (lab_test_dir), "%s", templ);
  return 0;
}

/* Writes `text` to <lab_test_dir>/<name> and returns the path (static buffer). */
static inline const char *
write_tmp (const char *name, const char *text)
{
  static char path[4200];
  lab_error_t err = NULL;

  snprintf (path, sizeof (path), "%s/%s", lab_test_dir, name);
  assert_int_equal (lab_write_file_atomic (path, text, strlen (text), &err), 0);
  return path;
}

/* Asserts a usage error (exit 2) whose message holds every string in the
   NULL-terminated `needles`; releases it. */
static inline void
assert_usage_error (lab_error_t *err, const char *const *needles)
{
  assert_non_null (*err);
  fprintf (stderr, "  message: %s\n", (*err)->msg);
  assert_int_equal ((*err)->exit_code, LAB_EXIT_USAGE);
  for (; *needles; needles++)
    if (strstr ((*err)->msg, *needles) == NULL)
      fail_msg ("`%s` not in `%s`", *needles, (*err)->msg);
  lab_error_release (err);
}

#endif
