/*
 * lab-test.h - what the C tests share: the scratch directory (LAB_TMP from
 * tests/run.sh, else a fresh one under /tmp) and writing a file into it.
 * Include after <cmocka.h>.
 */
#ifndef LAB_TEST_H
#define LAB_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"

static char lab_test_dir[4096];

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
