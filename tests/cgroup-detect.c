/*
 * Description: cgroup mode detection and one point's cgroup lifecycle on the
 * host: the mode matches the mounts (this lab's host: hybrid with an empty v2
 * hierarchy, driven by the v1 backend); a point's cgroup is created under the
 * harness's own cgroup as lab-<pid>/point-test with the limits written
 * (memory 32 MiB, pids 17), a process attached to it is listed and killed by
 * lab_cgroup_kill, and destroy + cleanup_all leave no lab-<pid> group.
 * Skips (77) without root or without a memory controller.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include <cmocka.h>

#include "cgroup.h"
#include "utils.h"

static int
is_fs (const char *path, long magic)
{
  struct statfs sf;
  return statfs (path, &sf) == 0 && (long) sf.f_type == magic;
}

static void
test_mode (void **state)
{
  struct lab_cgroup_info info;
  lab_error_t err = NULL;
  (void) state;
  int r = lab_cgroup_detect (&info, &err);
  if (r < 0)
    fail_msg ("detect: %s", err->msg);
  if (is_fs ("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
    {
      assert_int_equal (info.mode, LAB_CG_V2);
      assert_string_equal (info.backend, "v2");
    }
  else if (is_fs ("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
    {
      assert_int_equal (info.mode, LAB_CG_HYBRID);
      assert_string_equal (info.backend, "v1");
    }
  else
    {
      assert_int_equal (info.mode, LAB_CG_V1);
      assert_string_equal (info.backend, "v1");
    }
  assert_non_null (strstr (info.controllers, "memory"));
  printf ("mode %d backend %s controllers `%s`\n", info.mode, info.backend, info.controllers);
}

/* The point's memory dir: on v1 under the harness's memory cgroup. */
static void
point_dir (const struct lab_cgroup_info *info, const char *name, char *out, size_t len)
{
  char line[PATH_MAX], self[PATH_MAX] = "";
  FILE *f = fopen ("/proc/self/cgroup", "re");
  assert_non_null (f);
  while (fgets (line, sizeof line, f))
    {
      line[strcspn (line, "\n")] = '\0';
      char *c1 = strchr (line, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      if ((info->mode == LAB_CG_V2 && c1[1] == '\0') || (info->mode != LAB_CG_V2 && strstr (c1 + 1, "memory")))
        snprintf (self, sizeof self, "%s", c2 + 1);
    }
  fclose (f);
  const char *s = strcmp (self, "/") == 0 ? "" : self;
  if (info->mode == LAB_CG_V2)
    snprintf (out, len, "/sys/fs/cgroup%s/lab-%d/%s", s, (int) getpid (), name);
  else
    snprintf (out, len, "/sys/fs/cgroup/memory%s/lab-%d/%s", s, (int) getpid (), name);
}

static long long
read_ll (const char *dir, const char *file)
{
  char path[PATH_MAX + 64];
  long long v = -2;
  snprintf (path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  if (fscanf (f, "%lld", &v) != 1)
    v = -3;
  fclose (f);
  return v;
}

static void
test_lifecycle (void **state)
{
  struct lab_cgroup_info info;
  lab_error_t err = NULL;
  struct lab_limits lim = { .memory_max = 32 << 20, .memory_high = LAB_LIMIT_UNSET,
                            .memory_swap_max = LAB_LIMIT_UNSET, .pids_max = 17,
                            .cpu_quota_us = LAB_LIMIT_UNSET, .cpu_period_us = LAB_LIMIT_UNSET,
                            .oom_group = 1 };
  struct lab_cgroup *cg = NULL;
  char dir[PATH_MAX];
  (void) state;
  assert_int_equal (lab_cgroup_detect (&info, &err), 0);
  if (lab_cgroup_create ("point-test", &lim, &cg, &err) < 0)
    fail_msg ("create: %s", err->msg);
  point_dir (&info, "point-test", dir, sizeof dir);
  printf ("path `%s`, checking `%s`\n", lab_cgroup_path (cg), dir);
  assert_int_equal (access (dir, F_OK), 0);
  assert_int_equal (read_ll (dir, info.mode == LAB_CG_V2 ? "memory.max" : "memory.limit_in_bytes"), 32 << 20);
  assert_non_null (strstr (lab_cgroup_path (cg), "/point-test"));

  pid_t pid = fork ();
  if (pid == 0)
    {
      pause ();
      _exit (0);
    }
  if (lab_cgroup_attach (cg, pid, &err) < 0)
    fail_msg ("attach: %s", err->msg);
  pid_t pids[8];
  int n = lab_cgroup_procs (cg, pids, 8);
  assert_int_equal (n, 1);
  assert_int_equal (pids[0], pid);
  struct lab_cgroup_stats st;
  assert_int_equal (lab_cgroup_read_stats (cg, &st, &err), 0);
  assert_true (st.mem_current >= 0);
  assert_int_equal (st.pids_current, 1);
  assert_int_equal (st.oom_kill, 0);
  assert_int_equal (lab_cgroup_kill (cg, &err), 0);
  int ws;
  assert_int_equal (waitpid (pid, &ws, 0), pid);
  assert_true (WIFSIGNALED (ws) && WTERMSIG (ws) == SIGKILL);
  if (lab_cgroup_destroy (cg, &err) < 0)
    fail_msg ("destroy: %s", err->msg);
  assert_int_equal (access (dir, F_OK), -1);
  lab_cgroup_cleanup_all ();
  *strrchr (dir, '/') = '\0';
  assert_int_equal (access (dir, F_OK), -1); /* lab-<pid> gone too */
}

int
main (void)
{
  if (geteuid () != 0)
    {
      printf ("SKIP: cgroup tests need root\n");
      return 77;
    }
  struct lab_cgroup_info info;
  lab_error_t err = NULL;
  if (lab_cgroup_detect (&info, &err) < 0)
    {
      printf ("SKIP: %s\n", err->msg);
      return 77;
    }
  if (strstr (info.controllers, "memory") == NULL)
    {
      printf ("SKIP: no cgroup memory controller\n");
      return 77;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_mode),
    cmocka_unit_test (test_lifecycle),
  };
  return cmocka_run_group_tests (tests, NULL, NULL) ? 1 : 0;
}
