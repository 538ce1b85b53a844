/* Description: io_uring is not checked by seccomp.  A forked child applies
   seccomp/deny-openat.json and execs wl-seccomp (so the workload really runs under the
   filter): the plain openat fails with EPERM while IORING_OP_OPENAT of the same file with the
   same flags succeeds and its read returns the file's bytes; with IORING_REGISTER_RESTRICTIONS
   (READ and NOP only) the ring itself refuses OPENAT with -EACCES and READ still works.  Without
   the filter the control openat succeeds.  Skips (77) when io_uring is unavailable here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "seccomp-profile.h"

static char wl_path[4096];
static const char *probe_file = "/etc/hostname";

/* Runs wl-seccomp --variant V, under deny-openat when `filtered`; returns its report. */
static struct json_object *
run_wl (const char *variant, int filtered)
{
  char out[8192] = "", *line;
  int pfd[2], st;
  size_t len = 0;
  ssize_t n;
  pid_t pid;

  assert_int_equal (pipe (pfd), 0);
  fflush (NULL);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      char opt[4200];
      scmp_filter_ctx ctx;
      lab_error_t err = NULL;

      dup2 (pfd[1], 1);
      close (pfd[0]);
      close (pfd[1]);
      snprintf (opt, sizeof opt, "file=%s", probe_file);
      if (filtered && (lab_seccomp_load ("seccomp/deny-openat.json", 1, &ctx, &err) < 0
                       || lab_seccomp_apply (ctx, &err) < 0))
        {
          fprintf (stderr, "%s\n", err->msg);
          _exit (100);
        }
      execl (wl_path, wl_path, "--variant", variant, "--n", "2", "--opt", opt, (char *) NULL);
      _exit (101);
    }
  close (pfd[1]);
  while (len < sizeof out - 1 && (n = read (pfd[0], out + len, sizeof out - 1 - len)) > 0)
    len += (size_t) n;
  out[len] = '\0';
  close (pfd[0]);
  assert_int_equal (waitpid (pid, &st, 0), pid);
  fprintf (stderr, "  %s %s: %s", variant, filtered ? "(deny-openat)" : "(no filter)", out);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
  line = strstr (out, "@lab-report ");
  assert_non_null (line);
  return json_tokener_parse (line + strlen ("@lab-report "));
}

static int64_t
get (struct json_object *o, const char *key)
{
  struct json_object *v;
  if (!json_object_object_get_ex (o, key, &v))
    fail_msg ("key `%s` missing", key);
  return json_object_get_int64 (v);
}

static void
test_control_without_filter (void **state)
{
  struct json_object *r = run_wl ("syscall", 0);
  assert_int_equal (get (r, "seccomp_mode"), 0);
  assert_int_equal (get (r, "syscall_openat_errno"), 0);
  assert_true (get (r, "syscall_read_bytes") > 0);
  json_object_put (r);
}

static void
test_syscall_denied (void **state)
{
  struct json_object *r = run_wl ("syscall", 1);
  assert_int_equal (get (r, "seccomp_mode"), 2);
  assert_int_equal (get (r, "syscall_openat_errno"), EPERM);
  assert_int_equal (get (r, "syscall_openat_ok"), 0);
  json_object_put (r);
}

static void
test_io_uring_not_filtered (void **state)
{
  struct json_object *r = run_wl ("io_uring", 1);
  assert_int_equal (get (r, "seccomp_mode"), 2);
  assert_int_equal (get (r, "syscall_openat_errno"), EPERM);
  assert_int_equal (get (r, "io_uring_setup_res"), 0);
  assert_true (get (r, "io_uring_openat_res") >= 0);
  assert_int_equal (get (r, "io_uring_openat_ok"), 2);
  assert_true (get (r, "io_uring_read_res") > 0);
  json_object_put (r);
}

static void
test_io_uring_restricted (void **state)
{
  struct json_object *r = run_wl ("io_uring-restricted", 1);
  assert_int_equal (get (r, "syscall_openat_errno"), EPERM);
  assert_int_equal (get (r, "io_uring_register_restrictions_res"), 0);
  assert_int_equal (get (r, "io_uring_openat_res"), -EACCES);
  assert_int_equal (get (r, "io_uring_openat_ok"), 0);
  assert_true (get (r, "io_uring_read_res") > 0);
  json_object_put (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_control_without_filter),
    cmocka_unit_test (test_syscall_denied),
    cmocka_unit_test (test_io_uring_not_filtered),
    cmocka_unit_test (test_io_uring_restricted),
  };
  const char *build = getenv ("LAB_BUILD");
  struct io_uring ring;
  struct stat sb;
  int ret;

  if (build && build[0] == '/')
    snprintf (wl_path, sizeof wl_path, "%s/bin/wl-seccomp", build);
  else
    snprintf (wl_path, sizeof wl_path, "%s/bin/wl-seccomp", build ? build : "build");
  if (stat (wl_path, &sb) < 0)
    {
      fprintf (stderr, "FAIL: `%s` not built\n", wl_path);
      return 1;
    }
  if (stat (probe_file, &sb) < 0 || sb.st_size == 0)
    probe_file = "/etc/passwd";
  ret = io_uring_queue_init (4, &ring, 0);
  if (ret < 0)
    {
      printf ("SKIP: io_uring unavailable here: io_uring_setup: %s\n", strerror (-ret));
      return 77;
    }
  io_uring_queue_exit (&ring);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
