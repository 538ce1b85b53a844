/* skip-probe.c - a cmocka test file written as the lab's tests are (plain
   skip(), `return cmocka_run_group_tests (...)`), built by tests/test-skip.sh
   with tests/lab-test.h: one test passes, one skips (argv[1] = "skip") or
   passes, so the file must exit 77 with the reason, or 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lab-test.h"

static int want_skip;

static void
test_passes (void **state)
{
  assert_int_equal (1 + 1, 2);
}

static void
test_maybe_skips (void **state)
{
  if (want_skip)
    skip ();
  assert_true (1);
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_passes),
    cmocka_unit_test (test_maybe_skips),
  };
  want_skip = argc > 1 && strcmp (argv[1], "skip") == 0;
  return cmocka_run_group_tests (tests, NULL, NULL);
}
