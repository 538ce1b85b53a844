/* Description: the workloads' common flags (wl_parse_args): good input fills
 * struct wl_args (K/M counts, KiB sizes, repeated --opt); bad input exits 2
 * with a message on stderr naming the flag. */
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

#include "wl.h"

static const char *const variants[] = { "pthread", "coro", NULL };

static void
test_good (void **state)
{
  char *argv[] = { "wl-spawn", "--variant", "coro", "--n", "10K", "--stack", "64KiB",
                   "--threads", "2", "--duration", "1.5", "--backend", "epoll",
                   (char[]) { "--opt" }, (char[]) { "join=after" },
                   (char[]) { "--opt" }, (char[]) { "join=reaper" },
                   (char[]) { "--opt" }, (char[]) { "pin=3" }, NULL };
  struct wl_args a;

  wl_parse_args (19, argv, "spawn", variants, &a);
  assert_string_equal (a.experiment, "spawn");
  assert_string_equal (a.variant, "coro");
  assert_int_equal (a.n, 10000);
  assert_int_equal (a.stack_size, 65536);
  assert_int_equal (a.threads, 2);
  assert_true (a.duration_s == 1.5);
  assert_string_equal (a.backend, "epoll");
  assert_int_equal (a.n_opts, 3);
  assert_string_equal (wl_opt (&a, "join", "x"), "reaper"); /* last one wins */
  assert_int_equal (wl_opt_long (&a, "pin", -1), 3);
  assert_string_equal (wl_opt (&a, "missing", "dflt"), "dflt");
  assert_int_equal (wl_opt_long (&a, "missing", 9), 9);
}

static void
test_defaults (void **state)
{
  char *argv[] = { "wl-spawn", "--n", "2M", "--variant", "pthread", NULL };
  struct wl_args a;

  wl_parse_args (5, argv, "spawn", variants, &a);
  assert_int_equal (a.n, 2000000);
  assert_int_equal (a.stack_size, 0);
  assert_int_equal (a.threads, 0);
  assert_string_equal (a.backend, "io_uring");
  assert_int_equal (a.n_opts, 0);
}

/* Parses argv in a child; returns its exit code and its stderr in err. */
static int
parse_in_child (char **argv, char *err, size_t len)
{
  int p[2], st, argc = 0;
  ssize_t got;
  size_t used = 0;
  pid_t pid;

  while (argv[argc])
    argc++;
  assert_int_equal (pipe (p), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      struct wl_args a;
      dup2 (p[1], 2);
      close (p[0]);
      if (freopen ("/dev/null", "w", stdout) == NULL)
        _exit (99);
      wl_parse_args (argc, argv, "spawn", variants, &a);
      _exit (0);
    }
  close (p[1]);
  while (used < len - 1 && (got = read (p[0], err + used, len - 1 - used)) > 0)
    used += (size_t) got;
  err[used] = '\0';
  close (p[0]);
  assert_int_equal (waitpid (pid, &st, 0), pid);
  assert_true (WIFEXITED (st));
  return WEXITSTATUS (st);
}

#define BAD(expect, ...)                                                                        \
  do                                                                                            \
    {                                                                                           \
      char *argv_[] = { "wl-spawn", __VA_ARGS__, NULL };                                        \
      char err_[1024];                                                                          \
      assert_int_equal (parse_in_child (argv_, err_, sizeof err_), 2);                          \
      if (strstr (err_, expect) == NULL)                                                        \
        fail_msg ("stderr `%s` does not name `%s`", err_, expect);                              \
    }                                                                                           \
  while (0)

static void
test_bad (void **state)
{
  BAD ("`--n`", "--variant", "pthread", "--n", "abc");
  BAD ("`--n`", "--variant", "pthread", "--n", "0");
  BAD ("`--n`", "--variant", "pthread", "--n", "-5");
  BAD ("`--n`", "--variant", "pthread", "--n", "10X");
  BAD ("`--n`", "--variant", "pthread", "--n");          /* missing value */
  BAD ("`--n` is required", "--variant", "pthread");
  BAD ("`--variant` is required", "--n", "5");
  BAD ("unknown variant `fiber`", "--variant", "fiber", "--n", "5");
  BAD ("`--stack`", "--variant", "pthread", "--n", "5", "--stack", "12Q");
  BAD ("`--threads`", "--variant", "pthread", "--n", "5", "--threads", "x");
  BAD ("`--duration`", "--variant", "pthread", "--n", "5", "--duration", "-1");
  BAD ("`--backend`", "--variant", "pthread", "--n", "5", "--backend", "kqueue");
  BAD ("`--opt`", "--variant", "pthread", "--n", "5", "--opt", "novalue");
  BAD ("`--bogus`", "--variant", "pthread", "--n", "5", "--bogus");
  BAD ("`extra`", "--variant", "pthread", "--n", "5", "extra");
}

static void
test_good_in_child_exits_0 (void **state)
{
  char *argv[] = { "wl-spawn", "--variant", "pthread", "--n", "5", NULL };
  char err[256];

  /* the harness of the check above works: a good parse exits 0, silently */
  assert_int_equal (parse_in_child (argv, err, sizeof err), 0);
  assert_string_equal (err, "");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_good),
    cmocka_unit_test (test_defaults),
    cmocka_unit_test (test_bad),
    cmocka_unit_test (test_good_in_child_exits_0),
  };
  return cmocka_run_group_tests (tests, NULL, NULL) ? 1 : 0;
}
