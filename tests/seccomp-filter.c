/* Description: the loaded filters really filter.  In forked children (the filter is per
   process): deny-openat makes open("/etc/hostname") fail with EPERM while getpid works;
   kill-getppid kills with SIGSYS; strict kills on ptrace and still lets /bin/true exec and run;
   default denies namespace creation (unshare, clone with CLONE_NEWNET: EPERM; clone3: ENOSYS)
   while pthread_create still works; pthread denies io_uring_setup; a Docker-style profile
   evaluated without CAP_SYS_ADMIN gets Docker's clone/clone3 rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lab-test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp-profile.h"

/* Child side: load and apply `profile`, then run `body`, whose return value is the exit code
   (0 = all checks held; otherwise the number of the failed check). */
static int
run_in_child (const char *profile, int (*body) (void))
{
  pid_t pid;
  int status;

  fflush (NULL);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      scmp_filter_ctx ctx;
      lab_error_t err = NULL;

      if (lab_seccomp_load (profile, 1, &ctx, &err) < 0 || lab_seccomp_apply (ctx, &err) < 0)
        {
          fprintf (stderr, "%s\n", err->msg);
          _exit (100);
        }
      _exit (body ());
    }
  assert_int_equal (waitpid (pid, &status, 0), pid);
  return status;
}

#define CHECK(n, cond)                                                                     \
  do                                                                                       \
    {                                                                                      \
      if (!(cond))                                                                         \
        {                                                                                  \
          fprintf (stderr, "check %d failed: %s (errno %d %s)\n", n, #cond, errno, strerror (errno)); \
          return n;                                                                        \
        }                                                                                  \
    }                                                                                      \
  while (0)

static int
deny_openat_body (void)
{
  int fd;

  errno = 0;
  fd = open ("/etc/hostname", O_RDONLY);
  CHECK (1, fd < 0 && errno == EPERM);
  CHECK (2, getpid () > 0);
  /* the rule looks at the flags: with O_CLOEXEC (as the dynamic loader opens) it passes */
  fd = open ("/etc/hostname", O_RDONLY | O_CLOEXEC);
  CHECK (3, fd >= 0);
  close (fd);
  return 0;
}

static void
test_deny_openat (void **state)
{
  int st = run_in_child ("seccomp/deny-openat.json", deny_openat_body);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
  /* and without the filter the same open works (the test would be void otherwise) */
  int fd = open ("/etc/hostname", O_RDONLY);
  assert_true (fd >= 0);
  close (fd);
}

static int
getppid_body (void)
{
  (void) syscall (SYS_getppid);
  return 0; /* not reached: killed */
}

static void
test_kill_process (void **state)
{
  int st = run_in_child ("seccomp/kill-getppid.json", getppid_body);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGSYS);
}

static int
ptrace_body (void)
{
  (void) ptrace (PTRACE_TRACEME, 0, NULL, NULL);
  return 0;
}

static int
exec_true_body (void)
{
  char *argv[] = { (char *) "/bin/true", NULL };
  execv ("/bin/true", argv);
  return 50;
}

static void
test_strict (void **state)
{
  int st = run_in_child ("seccomp/strict.json", ptrace_body);
  assert_true (WIFSIGNALED (st));
  assert_int_equal (WTERMSIG (st), SIGSYS);
  st = run_in_child ("seccomp/strict.json", exec_true_body);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
}

static void *
thread_fn (void *arg)
{
  return arg;
}

static int
default_body (void)
{
  pthread_t t;
  void *ret = NULL;
  long r;

  errno = 0;
  CHECK (1, unshare (CLONE_NEWNET) < 0 && errno == EPERM);
  errno = 0;
  r = syscall (SYS_clone, (unsigned long) (CLONE_NEWPID | SIGCHLD), 0, 0, 0, 0);
  if (r == 0)
    _exit (0);
  CHECK (2, r < 0 && errno == EPERM);
  errno = 0;
  CHECK (3, syscall (SYS_clone3, NULL, 0) < 0 && errno == ENOSYS);
  /* glibc falls back from clone3 to clone for threads */
  CHECK (4, pthread_create (&t, NULL, thread_fn, (void *) 42) == 0);
  CHECK (5, pthread_join (t, &ret) == 0 && ret == (void *) 42);
  /* plain fork still works (clone without namespace flags) */
  r = fork ();
  if (r == 0)
    _exit (7);
  CHECK (6, r > 0);
  int st;
  CHECK (7, waitpid ((pid_t) r, &st, 0) == r && WIFEXITED (st) && WEXITSTATUS (st) == 7);
  return 0;
}

static void
test_default_denies_namespaces (void **state)
{
  if (geteuid () != 0)
    {
      skip_because ("not root, namespace creation fails without the filter too");
    }
  int st = run_in_child ("seccomp/default.json", default_body);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
}

static int
uring_body (void)
{
  char params[120] = { 0 }; /* struct io_uring_params */
  long fd;

  errno = 0;
  fd = syscall (__NR_io_uring_setup, 4, params);
  CHECK (1, fd < 0 && errno == EPERM);
  return 0;
}

static void
test_pthread_denies_io_uring (void **state)
{
  int st = run_in_child ("seccomp/pthread.json", uring_body);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
}

/* Without CAP_SYS_ADMIN, Docker's rules: clone only without namespace flags, clone3 ENOSYS. */
static const char docker_caps[] =
  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1,"
  " \"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": [\"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"]}],"
  " \"syscalls\": ["
  "  {\"names\": [\"exit_group\", \"exit\", \"write\", \"getpid\", \"capget\", \"wait4\"], \"action\": \"SCMP_ACT_ALLOW\"},"
  "  {\"names\": [\"clone\", \"clone3\", \"unshare\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}},"
  "  {\"names\": [\"clone\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 0, \"value\": 2114060288, \"op\": \"SCMP_CMP_MASKED_EQ\"}],"
  "   \"excludes\": {\"caps\": [\"CAP_SYS_ADMIN\"], \"arches\": [\"s390\", \"s390x\"]}},"
  "  {\"names\": [\"clone3\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38, \"excludes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}}"
  " ]}";

static int
docker_nocap_body (void)
{
  long r;
  int st;

  errno = 0;
  CHECK (1, syscall (SYS_unshare, CLONE_NEWNET) < 0 && errno == EPERM);
  errno = 0;
  CHECK (2, syscall (SYS_clone3, NULL, 0) < 0 && errno == ENOSYS);
  errno = 0;
  r = syscall (SYS_clone, (unsigned long) (CLONE_NEWNET | SIGCHLD), 0, 0, 0, 0);
  if (r == 0)
    _exit (0);
  CHECK (3, r < 0 && errno == EPERM);
  r = syscall (SYS_clone, (unsigned long) SIGCHLD, 0, 0, 0, 0);
  if (r == 0)
    syscall (SYS_exit_group, 9);
  CHECK (4, r > 0);
  CHECK (5, syscall (SYS_wait4, r, &st, 0, NULL) == r && WIFEXITED (st) && WEXITSTATUS (st) == 9);
  return 0;
}

static void
test_docker_caps_evaluated (void **state)
{
  const char *tmp = getenv ("LAB_TMP");
  char path[4200];
  FILE *f;
  pid_t pid;
  int st;

  if (geteuid () != 0)
    {
      skip_because ("not root, cannot show the CAP_SYS_ADMIN difference");
    }
  snprintf (path, sizeof (path), "%s/docker-caps.json", tmp ? tmp : "/tmp");
  f = fopen (path, "w");
  assert_non_null (f);
  fputs (docker_caps, f);
  fclose (f);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      /* drop CAP_SYS_ADMIN from the effective set, then load (evaluated against CapEff) */
      struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
      struct __user_cap_data_struct d[2];
      if (syscall (SYS_capget, &h, d) < 0)
        _exit (101);
      d[0].effective &= ~(1u << CAP_SYS_ADMIN);
      if (syscall (SYS_capset, &h, d) < 0)
        _exit (102);
      _exit (WEXITSTATUS (run_in_child (path, docker_nocap_body)));
    }
  assert_int_equal (waitpid (pid, &st, 0), pid);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_deny_openat),
    cmocka_unit_test (test_kill_process),
    cmocka_unit_test (test_strict),
    cmocka_unit_test (test_default_denies_namespaces),
    cmocka_unit_test (test_pthread_denies_io_uring),
    cmocka_unit_test (test_docker_caps_evaluated),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
