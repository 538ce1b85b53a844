/* Description: which side limited echo's closed loop, from figures with
 * known answers (harness/echo-point.c lab_echo_judge_bound): a saturated
 * client beside an idling server is client-bound; a client starved by other
 * work on its CPU (low CPU, long run-queue wait) is saturated too; a
 * coroutine server's idle spinning is left out of its load, and without
 * that reading its point is undecided, not judged on CPU time; both sides
 * saturated is "both".  Then the aggregates count client-bound repeats and
 * report.md's echo section says what a capacity ratio can tell: ">= X" for a
 * client-bound capacity, a lower bound when only the faster side was
 * client-bound, undecided when the slower one or both were, no qualifier
 * when neither was; a side that waited on a run queue for a tenth of the
 * window marks its row CONTENDED.  Server CPU per request over the closed
 * loop: the server's CPU less a coroutine server's idle spinning, per
 * request (none without the spinning read); the report gives its median
 * and range beside each capacity ratio and in the table.  report.html carries
 * the same section, turned into HTML (a table, a list, paragraphs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lab-test.h"
#include "aggregate.h"
#include "echo-point.h"
#include "report-echo.h"
#include "report.h"
#include "utils.h"

static struct json_object *
figs (double client_busy, double client_wait, double server_busy, double server_wait, double idle)
{
  struct json_object *o = json_object_new_object ();
  /* a 1 s window, one CPU each: busy = CPU seconds */
  json_object_object_add (o, "client_busy", json_object_new_double (client_busy));
  json_object_object_add (o, "client_demand",
                          client_wait >= 0 ? json_object_new_double (client_busy + client_wait) : NULL);
  json_object_object_add (o, "client_runq_wait_s", client_wait >= 0 ? json_object_new_double (client_wait) : NULL);
  json_object_object_add (o, "server_busy", json_object_new_double (server_busy));
  json_object_object_add (o, "server_idle_spin_s", idle >= 0 ? json_object_new_double (idle) : NULL);
  json_object_object_add (o, "server_busy_net", json_object_new_double (server_busy - (idle > 0 ? idle : 0)));
  json_object_object_add (o, "server_runq_wait_s", server_wait >= 0 ? json_object_new_double (server_wait) : NULL);
  json_object_object_add (o, "server_demand", server_wait >= 0 ? json_object_new_double (server_busy - (idle > 0 ? idle : 0) + server_wait) : NULL);
  return o;
}

static const char *
bound_of (struct json_object *o)
{
  struct json_object *v = json_object_object_get (o, "bound");
  return v ? json_object_get_string (v) : "(null)";
}

static int
client_bound_of (struct json_object *o)
{
  struct json_object *v = NULL;
  if (!json_object_object_get_ex (o, "client_bound", &v) || v == NULL)
    return -1;
  return json_object_get_boolean (v);
}

static void
judge_cases (void **state)
{
  struct json_object *o;
  (void) state;
  /* the lead's measurement: client 200/200 ticks, epoll server 182/200 */
  o = figs (1.0, 0.0, 0.91, 0.0, -1);
  lab_echo_judge_bound (o, "epoll");
  assert_string_equal (bound_of (o), "client");
  assert_int_equal (client_bound_of (o), 1);
  assert_true (json_object_get_double (json_object_object_get (o, "server_load")) < LAB_ECHO_SATURATED);
  json_object_put (o);
  /* a client starved by another process on its CPU: half the CPU, half waiting */
  o = figs (0.50, 0.49, 0.45, 0.01, -1);
  lab_echo_judge_bound (o, "epoll");
  assert_string_equal (bound_of (o), "client");
  assert_float_equal (json_object_get_double (json_object_object_get (o, "client_load")), 0.99, 1e-9);
  json_object_put (o);
  /* the same client, the run-queue wait not read: its CPU alone says not saturated */
  o = figs (0.50, -1, 0.45, -1, -1);
  lab_echo_judge_bound (o, "epoll");
  assert_string_equal (bound_of (o), "neither");
  assert_int_equal (client_bound_of (o), 0);
  json_object_put (o);
  /* the server saturated, the client waiting for it */
  o = figs (0.60, 0.0, 0.99, 0.0, -1);
  lab_echo_judge_bound (o, "uring");
  assert_string_equal (bound_of (o), "server");
  json_object_put (o);
  o = figs (0.97, 0.02, 0.96, 0.01, -1);
  lab_echo_judge_bound (o, "epoll");
  assert_string_equal (bound_of (o), "both");
  assert_int_equal (client_bound_of (o), 0);
  json_object_put (o);
  /* coro-uring: CPU 1.0 of which 0.3 s idle spinning -> load 0.7: client-bound */
  o = figs (1.0, 0.0, 1.0, 0.0, 0.3);
  lab_echo_judge_bound (o, "coro-uring");
  assert_string_equal (bound_of (o), "client");
  assert_float_equal (json_object_get_double (json_object_object_get (o, "server_load")), 0.7, 1e-9);
  json_object_put (o);
  /* ... and with the same CPU but no idle reading it is not judged */
  o = figs (1.0, 0.0, 1.0, 0.0, -1);
  lab_echo_judge_bound (o, "coro-uring");
  assert_string_equal (bound_of (o), "(null)");
  assert_int_equal (client_bound_of (o), -1);
  assert_non_null (strstr (json_object_get_string (json_object_object_get (o, "bound_note")), "spins"));
  json_object_put (o);
  /* other work on the client's CPU: 0.5 s of a 2 s window waiting -> contended */
  o = figs (0.50, 0.49, 0.45, 0.01, -1);
  json_object_object_add (o, "closed_cpu_window_s", json_object_new_double (2.0));
  json_object_object_add (o, "client_cpus", json_object_new_double (1));
  json_object_object_add (o, "server_cpus_allowed", json_object_new_double (1));
  json_object_object_add (o, "client_runq_wait_s", json_object_new_double (0.5));
  json_object_object_add (o, "server_runq_wait_s", json_object_new_double (0.1));
  lab_echo_judge_bound (o, "epoll");
  assert_float_equal (json_object_get_double (json_object_object_get (o, "client_wait_share")), 0.25, 1e-9);
  assert_float_equal (json_object_get_double (json_object_object_get (o, "server_wait_share")), 0.05, 1e-9);
  assert_true (json_object_get_boolean (json_object_object_get (o, "contended")));
  json_object_put (o);
  /* a missing reading: undecided */
  o = json_object_new_object ();
  lab_echo_judge_bound (o, "epoll");
  assert_int_equal (client_bound_of (o), -1);
  json_object_put (o);
}

static double
cpu_per_req (double cpu, double idle, double ops, const char *variant)
{
  struct json_object *o = json_object_new_object (), *v = NULL;
  json_object_object_add (o, "server_cpu_s", json_object_new_double (cpu));
  json_object_object_add (o, "server_idle_spin_s", idle >= 0 ? json_object_new_double (idle) : NULL);
  json_object_object_add (o, "ops", json_object_new_int64 ((int64_t) ops));
  lab_echo_server_cpu_per_req (o, variant);
  assert_true (json_object_object_get_ex (o, "server_cpu_per_req_ns", &v));
  double r = v ? json_object_get_double (v) : -1;
  json_object_put (o);
  return r;
}

static void
cpu_per_req_cases (void **state)
{
  (void) state;
  /* 1.9 s of server CPU, 0.1 s of it idle spinning, 500,000 requests: 3.6 us each */
  assert_float_equal (cpu_per_req (1.9, 0.1, 500000, "coro-uring"), 3600, 1e-6);
  /* an event loop does not spin: all its CPU counts (a stray reading is not used) */
  assert_float_equal (cpu_per_req (1.9, 0.1, 500000, "epoll"), 3800, 1e-6);
  /* a coroutine server whose spinning was not read, no requests, a spin over
     the CPU (readings from different moments): no figure */
  assert_float_equal (cpu_per_req (1.9, -1, 500000, "coro-uring"), -1, 0);
  assert_float_equal (cpu_per_req (1.9, 0.1, 0, "epoll"), -1, 0);
  assert_float_equal (cpu_per_req (0.1, 0.2, 500000, "coro-epoll"), -1, 0);
}

/* A point as lab_points_load gives it: ok, capacity `ops`, client_bound `cb` (-1 null). */
static struct json_object *
point (const char *variant, int repeat, double ops, int cb)
{
  struct json_object *p = json_object_new_object (), *s = json_object_new_object (), *f = json_object_new_object ();
  char id[64];
  snprintf (id, sizeof id, "echo-%s-n1000-r%d", variant, repeat);
  json_object_object_add (p, "id", json_object_new_string (id));
  json_object_object_add (p, "experiment", json_object_new_string ("echo"));
  json_object_object_add (p, "variant", json_object_new_string (variant));
  json_object_object_add (p, "n", json_object_new_int (1000));
  json_object_object_add (p, "repeat", json_object_new_int (repeat));
  json_object_object_add (p, "status", json_object_new_string ("ok"));
  json_object_object_add (s, "ops_per_s", json_object_new_double (ops));
  json_object_object_add (s, "wall_s", json_object_new_double (4.0));
  json_object_object_add (p, "summary", s);
  json_object_object_add (f, "client_bound", cb < 0 ? NULL : json_object_new_boolean (cb));
  json_object_object_add (f, "client_load", json_object_new_double (cb == 1 ? 0.99 : 0.8));
  json_object_object_add (f, "server_load", json_object_new_double (0.8));
  json_object_object_add (f, "client_wait_share", json_object_new_double (repeat == 1 && cb == 1 ? 0.3 : 0.01));
  json_object_object_add (f, "server_wait_share", json_object_new_double (0.02));
  json_object_object_add (p, "client_figures", f);
  json_object_object_add (p, "workload", json_object_new_object ());
  return p;
}

/* report.md's echo section for the given points, in a buffer. */
static char *
section (struct json_object *pts)
{
  struct lab_agg *agg = NULL;
  int n = 0;
  char *buf = NULL;
  size_t len = 0;
  assert_int_equal (lab_agg_build (pts, &agg, &n), 0);
  FILE *f = open_memstream (&buf, &len);
  lab_report_echo_section (f, "echo", agg, n);
  fclose (f);
  free (agg);
  return buf;
}

static void
report_cases (void **state)
{
  struct json_object *pts = json_object_new_array ();
  struct lab_agg *agg = NULL;
  int n = 0;
  (void) state;
  /* epoll client-bound in 2 of 3 repeats, the third not judged */
  json_object_array_add (pts, point ("epoll", 1, 200000, 1));
  json_object_array_add (pts, point ("epoll", 2, 210000, 1));
  json_object_array_add (pts, point ("epoll", 3, 190000, -1));
  json_object_array_add (pts, point ("coro-uring", 1, 150000, 0));
  json_object_array_add (pts, point ("coro-uring", 2, 150000, 0));
  json_object_array_add (pts, point ("coro-uring", 3, 150000, 0));
  assert_int_equal (lab_agg_build (pts, &agg, &n), 0);
  assert_int_equal (n, 2);
  assert_int_equal (agg[0].n_ok, 3);
  assert_int_equal (agg[0].n_bound_known, 2);
  assert_int_equal (agg[0].n_client_bound, 2);
  assert_int_equal (agg[1].n_client_bound, 0);
  free (agg);
  char *s = section (pts);
  /* the faster (epoll) client-bound: coro-uring / epoll = 0.75x, epoll at least 1.33x */
  assert_non_null (strstr (s, "| epoll | 1000 | 200000 (2 of 3 repeats client-bound) |"));
  assert_non_null (strstr (s, "coro-uring / epoll = **0.75x**. epoll was client-bound: its capacity is a lower bound, "
                              "so epoll is at least 1.33x coro-uring."));
  free (s);
  json_object_put (pts);

  /* the slower side client-bound: undecided */
  pts = json_object_new_array ();
  json_object_array_add (pts, point ("epoll", 1, 100000, 1));
  json_object_array_add (pts, point ("coro-uring", 1, 150000, 0));
  s = section (pts);
  assert_non_null (strstr (s, "| epoll | 1000 | >= 100000 (client-bound) |"));
  assert_non_null (strstr (s, "| 0.99 / 0.80; CONTENDED: waited for CPU 30% / 2% |"));
  assert_null (strstr (s, "0.80 (idle spin left out); CONTENDED"));
  assert_non_null (strstr (s, "Undecided: epoll was client-bound, so its capacity is only a lower bound and the ratio "
                              "may be smaller or reversed. CONTENDED: other work took CPU from epoll (run-queue waits "
                              "over 10% of the window)"));
  assert_non_null (strstr (s, "coro-uring / epoll = **1.50x**. Undecided: epoll was client-bound"));
  free (s);
  json_object_put (pts);

  /* both client-bound: undecided; neither: no qualifier */
  pts = json_object_new_array ();
  json_object_array_add (pts, point ("epoll", 1, 100000, 1));
  json_object_array_add (pts, point ("coro-uring", 1, 101000, 1));
  json_object_array_add (pts, point ("thread", 1, 50000, 0));
  s = section (pts);
  assert_non_null (strstr (s, "coro-uring / epoll = **1.01x**. Undecided: both coro-uring and epoll were client-bound"));
  assert_non_null (strstr (s, "coro-uring / thread = **2.02x**. coro-uring was client-bound: its capacity is a "
                              "lower bound, so coro-uring is at least 2.02x thread."));
  free (s);
  json_object_put (pts);

  pts = json_object_new_array ();
  json_object_array_add (pts, point ("thread", 1, 50000, 0));
  json_object_array_add (pts, point ("coro-uring", 1, 101000, 0));
  s = section (pts);
  assert_non_null (strstr (s, "coro-uring / thread = **2.02x**. Neither point's capacity was limited by the client."));
  assert_non_null (strstr (s, "| coro-uring | 1000 | 101000 |"));
  free (s);
  json_object_put (pts);

  /* server CPU per request: median and range of the repeats, in the ratio
     sentence and the table's last column; "-" where no repeat had it */
  pts = json_object_new_array ();
  double ns[] = { 3700, 3500, 3600, 4000, 4400, 4200 };
  for (int i = 0; i < 6; i++)
    {
      struct json_object *p = point (i < 3 ? "coro-uring" : "epoll", 1 + i % 3, 200000, 1), *f = NULL;
      json_object_object_get_ex (p, "client_figures", &f);
      json_object_object_add (f, "server_cpu_per_req_ns", json_object_new_double (ns[i]));
      json_object_array_add (pts, p);
    }
  json_object_array_add (pts, point ("thread", 1, 100000, 0));
  s = section (pts);
  assert_non_null (strstr (s, "Server CPU per request over the closed loop: coro-uring 3.60 us (3.50-3.70), "
                              "epoll 4.20 us (4.00-4.40): coro-uring's server spends 0.86x epoll's per request."));
  assert_non_null (strstr (s, "| 3.60 |\n"));
  assert_non_null (strstr (s, "| 4.20 |\n"));
  assert_non_null (strstr (s, "| - |\n")); /* thread's row */
  /* thread has no figure: its ratio sentence says nothing of it */
  const char *t = strstr (s, "coro-uring / thread");
  assert_non_null (t);
  assert_true (strstr (t, "Server CPU") == NULL || strstr (t, "Server CPU") > strchr (t, '\n'));
  free (s);
  json_object_put (pts);
}

/* report.md's p99 ratios: medians, the repeats' ranges, the claims' verdict. */
static struct json_object *
p99_point (const char *variant, int repeat, double p99_ms, double rate)
{
  struct json_object *p = point (variant, repeat, 200000, 0), *s = NULL, *f = NULL;
  json_object_object_get_ex (p, "summary", &s);
  json_object_object_get_ex (p, "client_figures", &f);
  json_object_object_add (s, "lat_p99_ns", json_object_new_double (p99_ms * 1e6));
  json_object_object_add (f, "rate", json_object_new_double (rate));
  return p;
}

static char *
p99_section (const double *a, const double *b, int repeats, double rate_b)
{
  struct json_object *pts = json_object_new_array ();
  for (int i = 0; i < repeats; i++)
    {
      json_object_array_add (pts, p99_point ("coro-uring", i + 1, a[i], 60000));
      json_object_array_add (pts, p99_point ("epoll", i + 1, b[i], rate_b));
    }
  char *s = section (pts);
  json_object_put (pts);
  return s;
}

static void
p99_cases (void **state)
{
  (void) state;
  /* ranges overlap: the medians' ratio, within noise */
  char *s = p99_section ((double[]){ 0.8, 1.2, 1.6 }, (double[]){ 0.5, 1.5, 4.0 }, 3, 60000);
  assert_non_null (strstr (s, "- n=1000: coro-uring / epoll = **0.80x** (1.200 against 1.500 ms; repeats "
                              "0.800-1.600 and 0.500-4.000 ms) at 60000 requests/s: within noise: the repeats' "
                              "min-max ranges overlap.\n"));
  free (s);
  /* apart: lower, or higher */
  s = p99_section ((double[]){ 0.4, 0.5, 0.45 }, (double[]){ 0.6, 0.9, 0.7 }, 3, 60000);
  assert_non_null (strstr (s, "coro-uring / epoll = **0.64x** (0.450 against 0.700 ms; repeats 0.400-0.500 and "
                              "0.600-0.900 ms) at 60000 requests/s: lower, every repeat of coro-uring under every "
                              "repeat of epoll."));
  free (s);
  s = p99_section ((double[]){ 2.0, 2.2, 2.1 }, (double[]){ 0.6, 0.9, 0.7 }, 3, 60000);
  assert_non_null (strstr (s, "**3.00x**"));
  assert_non_null (strstr (s, "higher, every repeat of coro-uring over every repeat of epoll."));
  free (s);
  /* one repeat each: no spread to judge by */
  s = p99_section ((double[]){ 0.4 }, (double[]){ 0.8 }, 1, 60000);
  assert_non_null (strstr (s, "**0.50x** (0.400 against 0.800 ms, one repeat each) at 60000"));
  assert_non_null (strstr (s, "within noise: a single run on one side has no spread to judge by"));
  free (s);
  /* different open-loop rates: no verdict */
  s = p99_section ((double[]){ 0.4, 0.5, 0.45 }, (double[]){ 0.6, 0.9, 0.7 }, 3, 30000);
  assert_non_null (strstr (s, "at different rates (60000 and 30000 requests/s): not comparable.\n"));
  assert_null (strstr (s, "lower, every repeat"));
  free (s);
}

/* The HTML report of two points: the echo section as HTML. */
static void
html_cases (void **state)
{
  struct json_object *pts = json_object_new_array (), *meta = json_object_new_object ();
  struct lab_agg *agg = NULL;
  int n = 0;
  lab_error_t err = NULL;
  char path[4200], *html = NULL;
  (void) state;
  json_object_array_add (pts, point ("epoll", 1, 100000, 1));
  json_object_array_add (pts, point ("coro-uring", 1, 150000, 0));
  assert_int_equal (lab_test_dir_init ("echo-bound"), 0);
  assert_int_equal (lab_agg_build (pts, &agg, &n), 0);
  assert_int_equal (lab_report_html_write (lab_test_dir, meta, agg, n, &err), 0);
  snprintf (path, sizeof path, "%s/report.html", lab_test_dir);
  assert_int_equal (lab_read_file (path, &html, NULL, NULL), 0);
  assert_non_null (strstr (html, "<th>capacity req/s</th>"));
  assert_non_null (strstr (html, "<th>server CPU/req us</th>"));
  assert_non_null (strstr (html, "<tr><td>epoll</td><td>1000</td><td>&gt;= 100000 (client-bound)</td>"));
  assert_null (strstr (html, "|---"));
  assert_non_null (strstr (html, "<li>n=1000: coro-uring / epoll = <b>1.50x</b>. Undecided: epoll was client-bound"));
  assert_non_null (strstr (html, "<p>Load = (CPU time over the closed loop"));
  free (html);
  free (agg);
  json_object_put (pts);
  json_object_put (meta);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (judge_cases),
    cmocka_unit_test (cpu_per_req_cases),
    cmocka_unit_test (p99_cases),
    cmocka_unit_test (report_cases),
    cmocka_unit_test (html_cases),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
