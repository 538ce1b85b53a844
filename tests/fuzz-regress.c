/* Description: replays through both fuzz targets (tests/fuzz/profile.c and seccomp.c,
   built here without libFuzzer) every seed (containers/NAME.json, seccomp/NAME.json) and every
   input under tests/fuzz-regress/profile/ and tests/fuzz-regress/seccomp/: crashes and
   hangs `make fuzz` found, and hostile inputs written by hand (duplicate keys, clamped
   integers, NUL in keys, deep nesting).  Each must load or fail with a usage error
   (exit 2) carrying a message; the shipped seeds must load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/profile.c"
#include "fuzz/seccomp.c"
#include "json-util.h"
#include "profile.h"
#include "utils.h"

/* Feeds every regular file of `dir` to `fn`; returns how many. */
static int
replay_dir (const char *dir, int (*fn) (const uint8_t *, size_t))
{
  DIR *d = opendir (dir);
  struct dirent *e;
  int n = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir (d)) != NULL)
    {
      char path[4096];
      char *text = NULL;
      size_t len = 0;

      if (e->d_name[0] == '.' || strcmp (e->d_name, "README.md") == 0)
        continue;
      snprintf (path, sizeof (path), "%s/%s", dir, e->d_name);
      assert_int_equal (lab_read_file (path, &text, &len, NULL), 0);
      print_message ("replay %s (%zu bytes)\n", path, len);
      fn ((const uint8_t *) text, len);
      free (text);
      n++;
    }
  closedir (d);
  return n;
}

static void
test_regress_profile (void **state)
{
  assert_true (replay_dir ("tests/fuzz-regress/profile", lab_fuzz_profile) > 0);
}

static void
test_regress_seccomp (void **state)
{
  assert_true (replay_dir ("tests/fuzz-regress/seccomp", lab_fuzz_seccomp) > 0);
}

static void
test_seeds (void **state)
{
  assert_true (replay_dir ("containers", lab_fuzz_profile) > 0);
  assert_true (replay_dir ("seccomp", lab_fuzz_seccomp) > 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seeds),
    cmocka_unit_test (test_regress_profile),
    cmocka_unit_test (test_regress_seccomp),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
