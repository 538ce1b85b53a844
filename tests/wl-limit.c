/* Description: wl_which_limit names the host limit that stopped thread
 * creation.  The decision (wl_limit_decide) is fed made-up counters for each
 * limit; then, for real, a child running as `nobody` with a low RLIMIT_NPROC
 * creates threads until pthread_create fails and must be told RLIMIT_NPROC
 * (skipped, 77, when not root: we cannot switch to another uid). */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab-test.h"

#include "wl.h"

/* A host far from every limit. */
static struct wl_limit_facts
roomy (void)
{
  return (struct wl_limit_facts){
    .host_tasks = 500, .threads_max = 192730, .pid_max = 32768,
    .nproc_used = 400, .nproc_limit = -1, .nproc_enforced = 0,
    .pids_current = 300, .pids_max = -1, .map_count = 300, .max_map_count = 65530,
  };
}

static const char *
decide (const struct wl_limit_facts *f, long count, char *detail)
{
  return wl_limit_decide (f, EAGAIN, count, detail, 512);
}

static void
test_decide (void **state)
{
  char d[512];
  struct wl_limit_facts f = roomy ();

  assert_string_equal (decide (&f, 100, d), "memory");
  assert_non_null (strstr (d, "EAGAIN after 100 tasks"));

  f = roomy (); /* unjoined threads: 2 mappings each */
  f.map_count = 65529;
  f.host_tasks = 400;
  assert_string_equal (decide (&f, 32700, d), "max_map_count");
  assert_non_null (strstr (d, "vm.max_map_count=65530, 65529 mappings"));

  f = roomy (); /* pids wrap below 300 never: the effective ceiling is pid_max - 300 */
  f.host_tasks = 32460;
  assert_string_equal (decide (&f, 32000, d), "pid_max");
  assert_non_null (strstr (d, "kernel.pid_max=32768, 32460 tasks on the host"));

  f = roomy ();
  f.pid_max = 4194304;
  f.host_tasks = 192700;
  assert_string_equal (decide (&f, 192000, d), "threads-max");
  assert_non_null (strstr (d, "kernel.threads-max=192730"));

  f = roomy ();
  f.pids_max = 1000, f.pids_current = 1000;
  assert_string_equal (decide (&f, 990, d), "pids.max");
  assert_non_null (strstr (d, "pids.current=1000, pids.max=1000"));

  f = roomy ();
  f.nproc_limit = 64, f.nproc_used = 64, f.nproc_enforced = 1;
  assert_string_equal (decide (&f, 60, d), "RLIMIT_NPROC");
  assert_non_null (strstr (d, "RLIMIT_NPROC=64, 64 threads"));

  f.nproc_enforced = 0; /* root is exempt: the same numbers are not the cause */
  assert_string_equal (decide (&f, 60, d), "memory");

  /* two limits reached: the one with the least room (relative) wins */
  f = roomy ();
  f.map_count = 65530;
  f.host_tasks = 32400;
  assert_string_equal (decide (&f, 32000, d), "max_map_count");
  f.map_count = 65300; /* 0.35% room, pid_max has 0.2% */
  assert_string_equal (decide (&f, 32000, d), "pid_max");

  /* unknown counters never trigger a limit */
  f = roomy ();
  f.host_tasks = f.threads_max = f.pid_max = f.map_count = f.max_map_count = -1;
  assert_string_equal (decide (&f, 5, d), "memory");
}

static void
test_facts_read (void **state)
{
  struct wl_limit_facts f;

  wl_limit_facts_read (&f);
  /* this process has at least its own mappings and thread */
  assert_true (f.map_count > 10);
  assert_true (f.host_tasks >= 1);
  assert_true (f.pid_max > 300);
  assert_true (f.threads_max > 0);
  assert_true (f.max_map_count > 0);
  assert_int_equal (f.nproc_enforced, getuid () == 0 ? 0 : f.nproc_enforced);
}

static void *
idle (void *arg)
{
  pause ();
  return NULL;
}

/* Child: as `nobody` with RLIMIT_NPROC = its current threads + 20, creates
   threads until one fails; writes wl_which_limit's answer to fd. */
static void
nproc_child (int fd, uid_t uid, gid_t gid)
{
  struct wl_limit_facts f;
  struct rlimit rl;
  char detail[512], out[700];
  const char *limit = "none";
  pthread_attr_t attr;
  pthread_t t;
  long n = 0;
  int err = 0;

  if (setgid (gid) || setuid (uid))
    _exit (3);
  wl_limit_facts_read (&f); /* threads `nobody` has already */
  rl.rlim_cur = rl.rlim_max = (rlim_t) (f.nproc_used + 20);
  if (setrlimit (RLIMIT_NPROC, &rl))
    _exit (4);
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, 65536);
  while (n < 1000 && (err = pthread_create (&t, &attr, idle, NULL)) == 0)
    n++;
  if (err)
    limit = wl_which_limit (err, n, detail, sizeof detail);
  snprintf (out, sizeof out, "%s|%ld|%s", limit, n, err ? detail : "");
  if (write (fd, out, strlen (out)) < 0)
    _exit (5);
  _exit (0);
}

static void
test_real_rlimit_nproc (void **state)
{
  struct passwd *pw = getpwnam ("nobody");
  char buf[800] = "";
  int p[2], st;
  ssize_t got;
  pid_t pid;

  if (getuid () != 0 || pw == NULL)
    skip_because ("the real RLIMIT_NPROC check needs root (to become `nobody`)");
  assert_int_equal (pipe (p), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      close (p[0]);
      nproc_child (p[1], pw->pw_uid, pw->pw_gid);
    }
  close (p[1]);
  got = read (p[0], buf, sizeof buf - 1);
  close (p[0]);
  assert_int_equal (waitpid (pid, &st, 0), pid);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
  assert_true (got > 0);
  buf[got] = '\0';
  print_message ("child as nobody: %s\n", buf);
  assert_true (strncmp (buf, "RLIMIT_NPROC|", 13) == 0);
  assert_true (atol (buf + 13) >= 1 && atol (buf + 13) <= 20);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_decide),
    cmocka_unit_test (test_facts_read),
    cmocka_unit_test (test_real_rlimit_nproc),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
