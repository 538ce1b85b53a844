/* Description: the workload report line (`@lab-report {json}`) is one line of
 * valid JSON with the protocol's keys; status ok/limit/error give exit codes
 * 0/0/1; NaN becomes null; latency percentiles are nearest-rank on known
 * arrays. */
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

#include "wl.h"

/* Runs fn in a child with stdout on a pipe; returns the output (malloc'd) and
   the child's exit code in *rc. */
static char *
capture (int (*fn) (void *), void *arg, int *rc)
{
  int p[2], st;
  size_t len = 0, cap = 1 << 16;
  char *buf = malloc (cap);
  ssize_t got;
  pid_t pid;

  assert_non_null (buf);
  assert_int_equal (pipe (p), 0);
  fflush (stdout);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      dup2 (p[1], 1);
      close (p[0]);
      _exit (fn (arg));
    }
  close (p[1]);
  while ((got = read (p[0], buf + len, cap - len - 1)) > 0)
    {
      len += (size_t) got;
      if (cap - len < 2)
        assert_non_null (buf = realloc (buf, cap *= 2));
    }
  buf[len] = '\0';
  close (p[0]);
  assert_int_equal (waitpid (pid, &st, 0), pid);
  assert_true (WIFEXITED (st));
  *rc = WEXITSTATUS (st);
  return buf;
}

/* Exactly one line, "@lab-report " + a JSON object. */
static json_object *
parse_report (const char *out)
{
  const char *prefix = "@lab-report ";
  size_t len = strlen (out);
  json_object *o;

  assert_true (strncmp (out, prefix, strlen (prefix)) == 0);
  assert_true (len > 0 && out[len - 1] == '\n');
  assert_ptr_equal (strchr (out, '\n'), out + len - 1); /* one line */
  o = json_tokener_parse (out + strlen (prefix));
  assert_non_null (o);
  assert_true (json_object_is_type (o, json_type_object));
  return o;
}

static const struct wl_args args = { .experiment = "spawn", .variant = "pthread", .n = 42 };

static int
emit_ok (void *arg)
{
  struct wl_report *r = wl_report_new (&args);
  wl_report_num (r, "wall_s", 1.5);
  wl_report_int (r, "ops", 42);
  wl_report_num (r, "ops_per_s", 28.0);
  wl_report_num (r, "nan_key", 0.0 / 0.0);
  wl_report_str (r, "quote", "a \"b\" / c\n");
  return wl_report_ok (r);
}

static void
test_ok_line (void **state)
{
  int rc;
  char *out = capture (emit_ok, NULL, &rc);
  json_object *o = parse_report (out), *v;

  assert_int_equal (rc, 0);
  assert_string_equal (json_object_get_string (json_object_object_get (o, "status")), "ok");
  assert_string_equal (json_object_get_string (json_object_object_get (o, "experiment")), "spawn");
  assert_string_equal (json_object_get_string (json_object_object_get (o, "variant")), "pthread");
  assert_int_equal (json_object_get_int64 (json_object_object_get (o, "n")), 42);
  assert_int_equal (json_object_get_int64 (json_object_object_get (o, "ops")), 42);
  assert_true (json_object_get_double (json_object_object_get (o, "wall_s")) == 1.5);
  assert_true (json_object_object_get_ex (o, "nan_key", &v));
  assert_null (v); /* NaN is not JSON: reported as null */
  assert_string_equal (json_object_get_string (json_object_object_get (o, "quote")), "a \"b\" / c\n");
  json_object_put (o);
  free (out);
}

static int
emit_limit (void *arg)
{
  struct wl_report *r = wl_report_new (&args);
  wl_report_int (r, "done", 7);
  return wl_report_limit (r, "pid_max", "EAGAIN after 7 tasks; kernel.pid_max=8");
}

static int
emit_error (void *arg)
{
  return wl_report_error (wl_report_new (&args), "it broke");
}

static void
test_limit_and_error (void **state)
{
  int rc;
  char *out = capture (emit_limit, NULL, &rc);
  json_object *o = parse_report (out);

  assert_int_equal (rc, 0); /* a limit is data */
  assert_string_equal (json_object_get_string (json_object_object_get (o, "status")), "limit");
  assert_string_equal (json_object_get_string (json_object_object_get (o, "limit")), "pid_max");
  assert_non_null (strstr (json_object_get_string (json_object_object_get (o, "detail")), "pid_max=8"));
  json_object_put (o);
  free (out);

  out = capture (emit_error, NULL, &rc);
  o = parse_report (out);
  assert_int_equal (rc, 1);
  assert_string_equal (json_object_get_string (json_object_object_get (o, "status")), "error");
  assert_string_equal (json_object_get_string (json_object_object_get (o, "detail")), "it broke");
  json_object_put (o);
  free (out);
}

struct lat_case
{
  uint64_t *ns;
  size_t n;
};

static int
emit_lat (void *arg)
{
  struct lat_case *c = arg;
  struct wl_report *r = wl_report_new (&args);
  wl_report_latencies (r, c->ns, c->n);
  return wl_report_ok (r);
}

static json_object *
lat_report (uint64_t *ns, size_t n)
{
  struct lat_case c = { ns, n };
  int rc;
  char *out = capture (emit_lat, &c, &rc);
  json_object *o = parse_report (out);

  assert_int_equal (rc, 0);
  free (out);
  return o;
}

static int64_t
geti (json_object *o, const char *k)
{
  json_object *v;
  assert_true (json_object_object_get_ex (o, k, &v));
  return json_object_get_int64 (v);
}

static void
test_percentiles (void **state)
{
  uint64_t *a = malloc (1000 * sizeof *a);
  json_object *o;

  /* 1..1000 in a scrambled order (743 is prime to 1000: a permutation) */
  for (size_t i = 0; i < 1000; i++)
    a[i] = (i * 743) % 1000 + 1;
  o = lat_report (a, 1000);
  assert_int_equal (geti (o, "lat_samples"), 1000);
  assert_int_equal (geti (o, "lat_p50_ns"), 500);
  assert_int_equal (geti (o, "lat_p99_ns"), 990);
  assert_int_equal (geti (o, "lat_p999_ns"), 999);
  assert_int_equal (geti (o, "lat_max_ns"), 1000);
  assert_true (json_object_get_double (json_object_object_get (o, "lat_mean_ns")) == 500.5);
  json_object_put (o);

  /* 10 samples: nearest rank puts p99 and p99.9 on the maximum */
  for (size_t i = 0; i < 10; i++)
    a[i] = 100 - 10 * i; /* 100, 90, ..., 10 */
  o = lat_report (a, 10);
  assert_int_equal (geti (o, "lat_p50_ns"), 50);
  assert_int_equal (geti (o, "lat_p99_ns"), 100);
  assert_int_equal (geti (o, "lat_p999_ns"), 100);
  assert_true (json_object_get_double (json_object_object_get (o, "lat_mean_ns")) == 55.0);
  json_object_put (o);

  /* one sample: every percentile is it */
  a[0] = 7;
  o = lat_report (a, 1);
  assert_int_equal (geti (o, "lat_p50_ns"), 7);
  assert_int_equal (geti (o, "lat_p999_ns"), 7);
  assert_int_equal (geti (o, "lat_max_ns"), 7);
  json_object_put (o);

  /* no samples: only the count */
  o = lat_report (a, 0);
  assert_int_equal (geti (o, "lat_samples"), 0);
  assert_false (json_object_object_get_ex (o, "lat_p50_ns", NULL));
  json_object_put (o);
  free (a);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_ok_line),
    cmocka_unit_test (test_limit_and_error),
    cmocka_unit_test (test_percentiles),
  };
  return cmocka_run_group_tests (tests, NULL, NULL) ? 1 : 0;
}
