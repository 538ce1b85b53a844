/* Description: summary.csv and point JSON writers: exact header and column order, empty cells
   for figures not measured, CSV quoting, atomic replace, round trip through the reader, and JSON
   syntax errors reported with line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"
#include "utils.h"

static char dir[4096];

static void
test_header_and_empty_cells (void **state)
{
  char path[4200], *data = NULL;
  struct json_object *row = json_object_new_object ();
  lab_error_t err = NULL;

  json_object_object_add (row, "experiment", json_object_new_string ("spawn"));
  json_object_object_add (row, "variant", json_object_new_string ("coro"));
  json_object_object_add (row, "n", json_object_new_int64 (1000));
  json_object_object_add (row, "repeat", json_object_new_int (1));
  json_object_object_add (row, "status", json_object_new_string ("ok"));
  json_object_object_add (row, "wall_s", json_object_new_double (0.25));
  json_object_object_add (row, "rss_peak_bytes", json_object_new_int64 (123456789012LL));
  json_object_object_add (row, "vss_peak_bytes", NULL);
  snprintf (path, sizeof (path), "%s/summary.csv", dir);
  assert_int_equal (lab_csv_write (path, &row, 1, &err), 0);
  assert_int_equal (lab_read_file (path, &data, NULL, &err), 0);
  assert_string_equal (data,
                       "experiment,variant,n,repeat,status,wall_s,cpu_user_s,cpu_sys_s,rss_peak_bytes,"
                       "vss_peak_bytes,swap_peak_bytes,cgroup_mem_peak_bytes,kernel_mem_bytes,vol_ctxsw,"
                       "invol_ctxsw,ops,ops_per_s,lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,rss_baseline_bytes,"
                       "cgroup_baseline_bytes,start_lat_p50_ns,start_lat_p99_ns\n"
                       "spawn,coro,1000,1,ok,0.25,,,123456789012,,,,,,,,,,,,,,,,\n");
  free (data);
  json_object_put (row);
}

static void
test_quoting_round_trip (void **state)
{
  char path[4200];
  struct json_object *row = json_object_new_object (), *rows = NULL, *r0;
  lab_error_t err = NULL;

  json_object_object_add (row, "experiment", json_object_new_string ("a,b"));
  json_object_object_add (row, "variant", json_object_new_string ("say \"hi\""));
  json_object_object_add (row, "status", json_object_new_string ("line\nbreak"));
  snprintf (path, sizeof (path), "%s/q.csv", dir);
  assert_int_equal (lab_csv_write (path, &row, 1, &err), 0);
  assert_int_equal (lab_csv_read (path, &rows, &err), 0);
  assert_int_equal (json_object_array_length (rows), 1);
  r0 = json_object_array_get_idx (rows, 0);
  assert_string_equal (json_object_get_string (json_object_object_get (r0, "experiment")), "a,b");
  assert_string_equal (json_object_get_string (json_object_object_get (r0, "variant")), "say \"hi\"");
  assert_string_equal (json_object_get_string (json_object_object_get (r0, "status")), "line\nbreak");
  assert_string_equal (json_object_get_string (json_object_object_get (r0, "wall_s")), "");
  json_object_put (rows);
  json_object_put (row);
}

static void
test_atomic_replace_leaves_no_temp (void **state)
{
  char path[4200], cmd[4300];
  lab_error_t err = NULL;
  struct json_object *o = json_object_new_object (), *back = NULL;

  json_object_object_add (o, "k", json_object_new_int (7));
  snprintf (path, sizeof (path), "%s/p.json", dir);
  assert_int_equal (lab_json_write (path, o, &err), 0);
  assert_int_equal (lab_json_write (path, o, &err), 0);
  assert_int_equal (lab_json_read (path, &back, &err), 0);
  assert_int_equal (json_object_get_int (json_object_object_get (back, "k")), 7);
  snprintf (cmd, sizeof (cmd), "ls %s | grep -q tmp", dir);
  assert_int_not_equal (system (cmd), 0);
  json_object_put (o);
  json_object_put (back);
}

static void
test_json_error_position (void **state)
{
  char path[4200];
  FILE *f;
  lab_error_t err = NULL;
  struct json_object *o = NULL;

  snprintf (path, sizeof (path), "%s/bad.json", dir);
  f = fopen (path, "w");
  assert_non_null (f);
  fputs ("{\n  \"a\": 1,\n  \"b\": ]\n}\n", f);
  fclose (f);
  assert_int_equal (lab_json_read (path, &o, &err), -1);
  assert_non_null (err);
  assert_int_equal (err->exit_code, LAB_EXIT_USAGE);
  assert_non_null (strstr (err->msg, "bad.json"));
  assert_non_null (strstr (err->msg, "line 3"));
  lab_error_release (&err);
}

static void
test_parse_size_and_count (void **state)
{
  int64_t v;
  long n;
  lab_error_t err = NULL;

  assert_int_equal (lab_parse_size ("512M", "x", &v, &err), 0);
  assert_int_equal (v, 512LL << 20);
  assert_int_equal (lab_parse_size ("2GiB", "x", &v, &err), 0);
  assert_int_equal (v, 2LL << 30);
  assert_int_equal (lab_parse_size ("max", "x", &v, &err), 0);
  assert_true (v == INT64_MAX);
  assert_int_equal (lab_parse_size ("12Q", "memory.max", &v, &err), -1);
  assert_non_null (strstr (err->msg, "memory.max"));
  assert_int_equal (err->exit_code, LAB_EXIT_USAGE);
  lab_error_release (&err);
  assert_int_equal (lab_parse_size ("-1", "x", &v, &err), -1);
  lab_error_release (&err);
  assert_int_equal (lab_parse_count ("1M", "n", &n, &err), 0);
  assert_int_equal (n, 1000000);
  assert_int_equal (lab_parse_count ("2.5k", "n", &n, &err), 0);
  assert_int_equal (n, 2500);
  assert_int_equal (lab_parse_count ("1.5", "n", &n, &err), -1);
  lab_error_release (&err);
  assert_int_equal (lab_parse_count ("abc", "n", &n, &err), -1);
  lab_error_release (&err);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_header_and_empty_cells), cmocka_unit_test (test_quoting_round_trip),
    cmocka_unit_test (test_atomic_replace_leaves_no_temp), cmocka_unit_test (test_json_error_position),
    cmocka_unit_test (test_parse_size_and_count),
  };
  const char *t = getenv ("LAB_TMP");
  snprintf (dir, sizeof (dir), "%s/results-csv", t ? t : "/tmp");
  if (lab_mkdir_p (dir, 0755, NULL) < 0)
    return 1;
  return cmocka_run_group_tests (tests, NULL, NULL) ? 1 : 0;
}
