/* Description: the stall probe (harness/stall-probe.c) measures a stall it is
   given: its process is stopped (SIGSTOP) for 150 ms mid-probe, and every CPU's
   thread reports a gap of at least 100 ms (a stop takes effect when each thread
   takes the signal, a little after kill() returns: the gap can be shorter than
   the parent's sleep: by 0-4 ms here); an undisturbed probe reports one entry
   per allowed CPU with consistent counts (gaps over 5 ms <= over 1 ms, the
   longest gap within the call's wall time); LAB_STALL_PROBE_S sets the time, 0 turns
   it off, a bad value keeps the default. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "stall-probe.h"
#include "lab-test.h"

static double
num (struct json_object *o, const char *k)
{
  struct json_object *v = NULL;
  assert_true (json_object_object_get_ex (o, k, &v));
  return json_object_get_double (v);
}

static int
allowed_cpus (void)
{
  cpu_set_t s;
  assert_int_equal (sched_getaffinity (0, sizeof s, &s), 0);
  return CPU_COUNT (&s);
}

static void
test_undisturbed_shape (void **state)
{
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  struct json_object *o = lab_stall_probe (0.1), *per = NULL;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  double wall_us = (double) (t1.tv_sec - t0.tv_sec) * 1e6 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e3;
  assert_non_null (o);
  assert_int_equal ((int) num (o, "cpus"), allowed_cpus ());
  assert_true (json_object_object_get_ex (o, "per_cpu", &per));
  assert_int_equal ((int) json_object_array_length (per), allowed_cpus ());
  assert_true (num (o, "gaps_over_5ms") <= num (o, "gaps_over_1ms"));
  assert_true (num (o, "max_gap_us") >= 0 && num (o, "max_gap_us") <= wall_us); /* a gap lies within the call */
  for (size_t i = 0; i < json_object_array_length (per); i++)
    assert_true (num (json_object_array_get_idx (per, i), "max_gap_us") <= num (o, "max_gap_us"));
  json_object_put (o);
  assert_null (lab_stall_probe (0));
}

/* A child runs a 3 s probe and prints its JSON; the parent stops the child for
   150 ms once the probe has run 0.8 s (told through a pipe just before the
   probe starts): each CPU's thread sees one gap of >= 100 ms. */
static void
test_sees_a_stop (void **state)
{
  int out[2], ready[2];
  char buf[8192] = "";
  ssize_t n, got = 0;
  pid_t pid;
  int status;

  assert_int_equal (pipe (out), 0);
  assert_int_equal (pipe (ready), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      struct json_object *o;
      close (out[0]);
      close (ready[0]);
      if (write (ready[1], "g", 1) != 1)
        _exit (3);
      o = lab_stall_probe (3.0);
      if (o == NULL)
        _exit (2);
      dprintf (out[1], "%s", json_object_to_json_string (o));
      _exit (0);
    }
  close (out[1]);
  close (ready[1]);
  assert_int_equal (read (ready[0], buf, 1), 1);
  struct timespec t = { 0, 800 * 1000 * 1000 }, stop = { 0, 150 * 1000 * 1000 };
  nanosleep (&t, NULL);
  assert_int_equal (kill (pid, SIGSTOP), 0);
  nanosleep (&stop, NULL);
  assert_int_equal (kill (pid, SIGCONT), 0);
  while ((n = read (out[0], buf + got, sizeof buf - 1 - (size_t) got)) > 0)
    got += n;
  buf[got] = '\0';
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  struct json_object *o = json_tokener_parse (buf), *per = NULL;
  assert_non_null (o);
  print_message ("probe under a 150 ms stop: %s\n", buf);
  assert_true (num (o, "max_gap_us") >= 100e3);
  assert_true (json_object_object_get_ex (o, "per_cpu", &per));
  for (size_t i = 0; i < json_object_array_length (per); i++)
    {
      struct json_object *c = json_object_array_get_idx (per, i);
      assert_true (num (c, "max_gap_us") >= 100e3);
      assert_true (num (c, "gaps_over_5ms") >= 1);
    }
  json_object_put (o);
}

static void
test_secs_from_env (void **state)
{
  setenv ("LAB_STALL_PROBE_S", "0", 1);
  assert_true (lab_stall_probe_secs () == 0);
  setenv ("LAB_STALL_PROBE_S", "0.25", 1);
  assert_true (lab_stall_probe_secs () == 0.25);
  setenv ("LAB_STALL_PROBE_S", "soon", 1);
  assert_true (lab_stall_probe_secs () == 0.5);
  unsetenv ("LAB_STALL_PROBE_S");
  assert_true (lab_stall_probe_secs () == 0.5);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_undisturbed_shape),
    cmocka_unit_test (test_sees_a_stop),
    cmocka_unit_test (test_secs_from_env),
  };
  if (lab_test_dir_init ("stall-probe") < 0)
    return 1;
  return cmocka_run_group_tests (tests, NULL, NULL);
}
