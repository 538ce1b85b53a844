/* Description: what the lab writes stays valid UTF-8 and what it reads back is checked:
   a string of invalid bytes (as a workload may print) written by lab_json_write reads
   back with the strict reader (json-util.h validates UTF-8) with each bad byte as U+FFFD,
   and lab_csv_write does the same in summary.csv; lab_utf8_seq_len refuses overlong
   forms, surrogates and code points above U+10FFFF; lab_point_file_load keeps only a
   finished point for --resume (empty, truncated, `{}`, another point's id, no
   finished_at are incomplete, with the reason). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "point-file.h"
#include "results.h"
#include "utf8.h"
#include "utils.h"
#include "lab-test.h"

static void
test_seq_len (void **state)
{
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "a", 1), 1);
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xc3\xa9", 2), 2);       /* é */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xe2\x82\xac", 3), 3);   /* € */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xf0\x9f\x98\x80", 4), 4);
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xc0\xaf", 2), 0);       /* overlong / */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xe0\x80\xaf", 3), 0);   /* overlong */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xed\xa0\x80", 3), 0);   /* surrogate */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xe2\x82", 2), 0);       /* cut short */
  assert_int_equal (lab_utf8_seq_len ((const unsigned char *) "\xff", 1), 0);
}

static void
test_json_write_valid (void **state)
{
  struct json_object *o = json_object_new_object (), *back = NULL, *v;
  lab_error_t err = NULL;
  char path[4200];

  snprintf (path, sizeof (path), "%s/p.json", lab_test_dir);
  json_object_object_add (o, "detail", json_object_new_string ("a\xff" "b\xc3\xa9\xed\xa0\x80"));
  assert_int_equal (lab_json_write (path, o, &err), 0);
  assert_int_equal (lab_json_read (path, &back, &err), 0);
  assert_true (json_object_object_get_ex (back, "detail", &v));
  /* \xff -> U+FFFD, é kept, the surrogate's three bytes -> three U+FFFD */
  assert_string_equal (json_object_get_string (v), "a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  json_object_put (o);
  json_object_put (back);
}

static void
test_csv_write_valid (void **state)
{
  struct json_object *row = json_object_new_object ();
  lab_error_t err = NULL;
  char path[4200], *text = NULL;
  size_t len = 0;

  snprintf (path, sizeof (path), "%s/s.csv", lab_test_dir);
  json_object_object_add (row, "variant", json_object_new_string ("x\xfe"));
  assert_int_equal (lab_csv_write (path, &row, 1, &err), 0);
  assert_int_equal (lab_read_file (path, &text, &len, &err), 0);
  assert_non_null (strstr (text, "x\xef\xbf\xbd"));
  assert_null (strchr (text, '\xfe'));
  free (text);
  json_object_put (row);
}

static void
expect_incomplete (const char *text, const char *reason)
{
  struct json_object *o = NULL;
  char why[512] = "";
  const char *path = write_tmp ("stub.json", text);

  assert_int_equal (lab_point_file_load (path, "spawn-coro-n10-r1", &o, why, sizeof (why)), LAB_POINT_INCOMPLETE);
  assert_null (o);
  print_message ("%s -> %s\n", text, why);
  assert_non_null (strstr (why, reason));
}

static void
test_point_file (void **state)
{
  struct json_object *o = NULL;
  char why[512] = "", path[4200];
  const char *done = "{\"id\":\"spawn-coro-n10-r1\",\"status\":\"ok\",\"summary\":{\"status\":\"ok\"},"
                     "\"finished_at\":\"2026-11-30T14:00:00Z\"}";

  snprintf (path, sizeof (path), "%s/absent.json", lab_test_dir);
  assert_int_equal (lab_point_file_load (path, "x", &o, why, sizeof (why)), LAB_POINT_ABSENT);
  expect_incomplete ("", "unexpected end of file");
  expect_incomplete ("{\"id\":\"spawn-coro-n10-r1\",\"status\":\"o", "unexpected end of file");
  expect_incomplete ("{}", "no `id`");
  expect_incomplete ("{\"id\":\"spawn-coro-n10-r2\"}", "another point");
  expect_incomplete ("{\"id\":\"spawn-coro-n10-r1\",\"status\":\"great\"}", "status");
  expect_incomplete ("{\"id\":\"spawn-coro-n10-r1\",\"status\":\"ok\",\"summary\":{\"status\":\"ok\"}}",
                     "finished_at");
  assert_int_equal (lab_point_file_load (write_tmp ("done.json", done), "spawn-coro-n10-r1", &o, why, sizeof (why)),
                    LAB_POINT_COMPLETE);
  assert_non_null (o);
  json_object_put (o);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seq_len),
    cmocka_unit_test (test_json_write_valid),
    cmocka_unit_test (test_csv_write_valid),
    cmocka_unit_test (test_point_file),
  };
  if (lab_test_dir_init ("results-utf8") < 0)
    return 1;
  return cmocka_run_group_tests (tests, NULL, NULL);
}
