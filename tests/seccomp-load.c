/* Description: Docker-format seccomp profiles (seccomp/<name>.json): every shipped profile
   loads without warnings; a profile written the way Docker's own default is written (archMap
   with null subArchitectures, includes/excludes on caps, arches and minKernel, args without
   valueTwo, the same syscall in several rules) loads; unknown syscall names are one warning, not
   an error; malformed JSON, unknown actions and operators, wrong types, index > 5, NOTIFY and
   errnoRet on a non-errno action are usage errors naming the file, the position and the value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seccomp-profile.h"
#include "utils.h"
#include "lab-test.h"

/* Runs lab_seccomp_load (not quiet) with stderr captured into `warn`. */
static int
load_capturing (const char *path, char *warn, size_t len, lab_error_t *err)
{
  char wpath[4200];
  scmp_filter_ctx ctx = NULL;
  int saved = dup (2), fd, ret;
  ssize_t n;

  snprintf (wpath, sizeof (wpath), "%s/stderr.txt", lab_test_dir);
  fd = open (wpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
  assert_true (fd >= 0 && saved >= 0);
  fflush (stderr);
  dup2 (fd, 2);
  ret = lab_seccomp_load (path, 0, &ctx, err);
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  n = pread (fd, warn, len - 1, 0);
  warn[n > 0 ? n : 0] = '\0';
  close (fd);
  if (ctx)
    seccomp_release (ctx);
  return ret;
}

static void
expect_error (const char *text, const char *const *needles)
{
  const char *path = write_tmp ("bad.json", text);
  char warn[4096];
  lab_error_t err = NULL;

  assert_int_equal (load_capturing (path, warn, sizeof (warn), &err), -1);
  assert_non_null (err);
  assert_non_null (err);
  assert_non_null (strstr (err->msg, "seccomp profile `"));
  assert_non_null (strstr (err->msg, "bad.json"));
  assert_usage_error (&err, needles);
}

static void
test_shipped_profiles (void **state)
{
  DIR *d = opendir ("seccomp");
  struct dirent *e;
  int n = 0;

  assert_non_null (d);
  while ((e = readdir (d)))
    {
      char path[512], warn[4096];
      lab_error_t err = NULL;
      size_t len = strlen (e->d_name);

      if (len < 6 || strcmp (e->d_name + len - 5, ".json") != 0)
        continue;
      snprintf (path, sizeof (path), "seccomp/%s", e->d_name);
      if (load_capturing (path, warn, sizeof (warn), &err) < 0)
        fail_msg ("%s", err->msg);
      if (warn[0])
        fail_msg ("%s: unexpected warning: %s", path, warn);
      n++;
    }
  closedir (d);
  assert_true (n >= 6);
}

/* Written the way moby's profiles/seccomp/default.json is (structure, not its list). */
static const char docker_style[] =
  "{\n"
  "\t\"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
  "\t\"defaultErrnoRet\": 1,\n"
  "\t\"archMap\": [\n"
  "\t\t{ \"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": [ \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\" ] },\n"
  "\t\t{ \"architecture\": \"SCMP_ARCH_AARCH64\", \"subArchitectures\": [ \"SCMP_ARCH_ARM\" ] },\n"
  "\t\t{ \"architecture\": \"SCMP_ARCH_S390X\", \"subArchitectures\": [ \"SCMP_ARCH_S390\" ] },\n"
  "\t\t{ \"architecture\": \"SCMP_ARCH_RISCV64\", \"subArchitectures\": null },\n"
  "\t\t{ \"architecture\": \"SCMP_ARCH_LOONGARCH64\", \"subArchitectures\": null }\n"
  "\t],\n"
  "\t\"syscalls\": [\n"
  "\t\t{ \"names\": [ \"read\", \"write\", \"exit_group\", \"chown32\", \"fstat64\", \"_llseek\", \"socketcall\","
  " \"arch_prctl\", \"futex_time64\", \"ptrace\" ], \"action\": \"SCMP_ACT_ALLOW\" },\n"
  "\t\t{ \"names\": [ \"ptrace\", \"process_vm_readv\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"minKernel\": \"4.8\" } },\n"
  "\t\t{ \"names\": [ \"socket\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_NE\" } ] },\n"
  "\t\t{ \"names\": [ \"personality\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
  "\t\t{ \"names\": [ \"personality\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"value\": 8, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
  "\t\t{ \"names\": [ \"personality\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"value\": 4294967295, \"op\": \"SCMP_CMP_EQ\" } ] },\n"
  "\t\t{ \"names\": [ \"arm_fadvise64_64\", \"set_tls\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"arches\": [ \"arm\", \"arm64\" ] } },\n"
  "\t\t{ \"names\": [ \"modify_ldt\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"arches\": [ \"amd64\", \"x32\", \"x86\" ] } },\n"
  "\t\t{ \"names\": [ \"bpf\", \"clone\", \"clone3\", \"mount\", \"setns\", \"syslog\", \"unshare\" ], \"action\": \"SCMP_ACT_ALLOW\","
  " \"includes\": { \"caps\": [ \"CAP_SYS_ADMIN\" ] } },\n"
  "\t\t{ \"names\": [ \"clone\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 0, \"value\": 2114060288,"
  " \"op\": \"SCMP_CMP_MASKED_EQ\" } ], \"excludes\": { \"caps\": [ \"CAP_SYS_ADMIN\" ], \"arches\": [ \"s390\", \"s390x\" ] } },\n"
  "\t\t{ \"names\": [ \"clone\" ], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [ { \"index\": 1, \"value\": 2114060288,"
  " \"op\": \"SCMP_CMP_MASKED_EQ\" } ], \"comment\": \"s390 parameter ordering for clone is different\","
  " \"includes\": { \"arches\": [ \"s390\", \"s390x\" ] }, \"excludes\": { \"caps\": [ \"CAP_SYS_ADMIN\" ] } },\n"
  "\t\t{ \"names\": [ \"clone3\" ], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38, \"excludes\": { \"caps\": [ \"CAP_SYS_ADMIN\" ] } },\n"
  "\t\t{ \"names\": [ \"syslog\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"caps\": [ \"CAP_SYSLOG\" ] } },\n"
  "\t\t{ \"names\": [ \"bpf\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"caps\": [ \"CAP_BPF\" ] } },\n"
  "\t\t{ \"names\": [ \"kcmp\", \"ptrace\" ], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": { \"caps\": [ \"CAP_SYS_PTRACE\" ] } },\n"
  "\t\t{ \"names\": [ \"getppid\" ], \"action\": \"SCMP_ACT_ERRNO\", \"includes\": {}, \"excludes\": {} }\n"
  "\t]\n"
  "}\n";

static void
test_docker_style (void **state)
{
  const char *path = write_tmp ("docker-style.json", docker_style);
  char warn[4096];
  lab_error_t err = NULL;

  if (load_capturing (path, warn, sizeof (warn), &err) < 0)
    fail_msg ("%s", err->msg);
  fprintf (stderr, "  warnings: %s", warn[0] ? warn : "(none)\n");
  /* caps conditions are evaluated and said so, once; nothing else is warned about */
  assert_non_null (strstr (warn, "caps"));
  assert_null (strstr (strstr (warn, "caps") + 1, "lab: warning"));
  assert_null (strstr (warn, "unknown"));
}

static void
test_unknown_syscall_is_a_warning (void **state)
{
  const char *path = write_tmp ("unknown.json",
                                "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
                                "{\"names\": [\"getpid\", \"no_such_syscall\", \"another_fake\"],"
                                " \"action\": \"SCMP_ACT_ERRNO\"},"
                                "{\"name\": \"no_such_syscall\", \"action\": \"SCMP_ACT_KILL\"}]}");
  char warn[4096];
  lab_error_t err = NULL;

  if (load_capturing (path, warn, sizeof (warn), &err) < 0)
    fail_msg ("%s", err->msg);
  fprintf (stderr, "  warning: %s", warn);
  assert_non_null (strstr (warn, "`no_such_syscall`"));
  assert_non_null (strstr (warn, "`another_fake`"));
  assert_non_null (strstr (warn, "2 syscall names"));
  assert_null (strstr (strstr (warn, "lab: warning") + 1, "lab: warning")); /* one warning */
}

static void
test_errors (void **state)
{
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\",\n \"syscalls\": [ {\"names\": [\"read\"]\n \"action\": 1} ]}",
                (const char *const[]){ "line 3, column 2", NULL });
  expect_error ("{\"syscalls\": []}", (const char *const[]){ "`defaultAction`", "missing", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLWO\"}",
                (const char *const[]){ "`defaultAction`", "unknown action `SCMP_ACT_ALLWO`", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\"},"
                " {\"names\": [\"write\"], \"action\": \"SCMP_ACT_DENY\"}]}",
                (const char *const[]){ "`syscalls[1].action`", "`SCMP_ACT_DENY`", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
                " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}, {\"index\": 1, \"value\": 1, \"op\": \"SCMP_CMP_LIKE\"}]}]}",
                (const char *const[]){ "`syscalls[0].args[1].op`", "unknown operator `SCMP_CMP_LIKE`", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
                " \"args\": [{\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
                (const char *const[]){ "`syscalls[0].args[0].index`", "6", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
                " \"args\": [{\"index\": 0, \"value\": -1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
                (const char *const[]){ "`syscalls[0].args[0].value`", "non-negative", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": \"read\", \"action\": \"SCMP_ACT_ERRNO\"}]}",
                (const char *const[]){ "`syscalls[0].names`", "an array", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", 3], \"action\": \"SCMP_ACT_ERRNO\"}]}",
                (const char *const[]){ "`syscalls[0].names[1]`", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
                (const char *const[]){ "`syscalls[0].action`", "unsupported", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_KILL\", \"errnoRet\": 1}]}",
                (const char *const[]){ "`syscalls[0].action`", "errno", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"nmaes\": []}]}",
                (const char *const[]){ "`syscalls[0].nmaes`", "unknown field", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\","
                " \"includes\": {\"caps\": [\"CAP_SYS_ADMINN\"]}}]}",
                (const char *const[]){ "`syscalls[0].includes.caps[0]`", "CAP_SYS_ADMINN", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"x86_64\"]}",
                (const char *const[]){ "`architectures[0]`", "x86_64", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_X86_64\"],"
                " \"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": null}]}",
                (const char *const[]){ "`archMap`", NULL });
  expect_error ("{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/x.sock\"}",
                (const char *const[]){ "`listenerPath`", NULL });
}

static void
test_rule_equal_to_default_is_skipped (void **state)
{
  /* libseccomp rejects a rule whose action is the default one; the loader skips it. */
  const char *path = write_tmp ("same.json",
                                "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
                                "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1},"
                                "{\"names\": [\"write\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 13}]}");
  char warn[4096];
  lab_error_t err = NULL;

  if (load_capturing (path, warn, sizeof (warn), &err) < 0)
    fail_msg ("%s", err->msg);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shipped_profiles),
    cmocka_unit_test (test_docker_style),
    cmocka_unit_test (test_unknown_syscall_is_a_warning),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_rule_equal_to_default_is_skipped),
  };
  if (lab_test_dir_init ("seccomp") < 0)
    return 1;
  return cmocka_run_group_tests (tests, NULL, NULL);
}
