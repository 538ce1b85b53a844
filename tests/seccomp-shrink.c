/* Description: the shrunk seccomp program (harness/seccomp-shrink.c) decides exactly as
   libseccomp's.  For every profile under seccomp/ (with Docker's default capabilities and
   with all of them) and for synthetic lists (mixed errno values per syscall, a kill list,
   duplicate-free runs of every length), both programs run through a classic-BPF interpreter
   over every syscall number 0-1023 of x86_64, i386, x32 (0x40000000+), aarch64 and an unknown
   architecture, with arguments 0, 1, ~0, clone's namespace flags and 64-bit patterns; every
   verdict must match.  Also: Docker's default list shrinks by more than half, the kernel
   accepts the shrunk program (loaded in a child, which then runs getpid and is denied
   unshare), and an invalid program (a jump past its end) or one with nothing to gain is left
   unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lab-test.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "caps.h"
#include "seccomp-bpf.h"
#include "seccomp-profile.h"
#include "seccomp-shrink.h"
#include "helpers/bpf-run.h"

/* The interpreter, failing the test on what it does not know. */
static uint32_t
run_bpf (const struct sock_filter *p, uint32_t n, const struct seccomp_data *d)
{
  int bad = 0;
  uint32_t r = lab_bpf_run (p, n, d, &bad);
  if (bad)
    fail_msg ("the interpreter cannot run this program (nr %d)", d->nr);
  return r;
}

static const uint64_t args[] = { 0, 1, ~0ULL, CLONE_NEWUSER, CLONE_NEWNET | CLONE_NEWNS, 0x7e020000,
                                 0x100000000ULL, 0xffffffff00000000ULL, 2, 0x28, 0xffffffff, 16 };

/* Same verdict for every input; returns how many inputs were compared. */
static long
compare (const struct sock_filter *a, uint32_t na, const struct sock_filter *b, uint32_t nb)
{
  static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, 0x12345678 };
  long n = 0;
  for (size_t ai = 0; ai < sizeof arches / sizeof arches[0]; ai++)
    for (uint32_t nr = 0; nr < 2048; nr++)
      for (size_t v = 0; v < sizeof args / sizeof args[0]; v++)
        {
          struct seccomp_data d = { .nr = (int) (nr < 1024 ? nr : 0x40000000 + (nr - 1024)),
                                    .arch = arches[ai], .instruction_pointer = 0x401000 };
          for (int i = 0; i < 6; i++)
            d.args[i] = args[(v + (size_t) i) % (sizeof args / sizeof args[0])];
          uint32_t ra = run_bpf (a, na, &d), rb = run_bpf (b, nb, &d);
          if (ra != rb)
            fail_msg ("arch %#x nr %#x args[0] %#llx: %#x before, %#x shrunk", arches[ai], (unsigned) d.nr,
                      (unsigned long long) d.args[0], ra, rb);
          n++;
        }
  return n;
}

static void
check_ctx (scmp_filter_ctx ctx, const char *what, uint32_t *before, uint32_t *after)
{
  struct lab_bpf b;
  lab_error_t err = NULL;
  /* lab_seccomp_export shrinks; libseccomp's own program, for comparison: */
  FILE *f = tmpfile ();
  assert_non_null (f);
  assert_int_equal (seccomp_export_bpf (ctx, fileno (f)), 0);
  long len = lseek (fileno (f), 0, SEEK_END);
  assert_true (len > 0 && len % 8 == 0);
  struct sock_filter *orig = malloc ((size_t) len);
  assert_int_equal (pread (fileno (f), orig, (size_t) len, 0), len);
  fclose (f);
  if (lab_seccomp_export (ctx, &b, &err) < 0)
    fail_msg ("%s: %s", what, err->msg);
  *before = (uint32_t) (len / 8);
  *after = b.h.n_insns;
  long n = compare (orig, *before, b.insns, b.h.n_insns);
  printf ("%-34s %4u -> %4u instructions, %ld inputs agree\n", what, *before, *after, n);
  free (orig);
  lab_bpf_free (&b);
}

static void
test_profiles (void **state)
{
  static const char *const profiles[] = { "seccomp/default.json", "seccomp/deny-openat.json",
                                          "seccomp/io_uring.json", "seccomp/kill-getppid.json",
                                          "seccomp/pthread.json", "seccomp/strict.json" };
  (void) state;
  for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
    for (int all = 0; all < 2; all++)
      {
        scmp_filter_ctx ctx;
        lab_error_t err = NULL;
        char what[96];
        uint32_t before, after;
        if (lab_seccomp_load_caps (profiles[i], 1, all ? lab_caps_all () : lab_caps_default (), &ctx, &err) < 0)
          fail_msg ("%s: %s", profiles[i], err->msg);
        snprintf (what, sizeof what, "%s%s", profiles[i], all ? " (all caps)" : "");
        check_ctx (ctx, what, &before, &after);
        if (i == 0 && !all)
          assert_true (after * 2 < before); /* Docker's list: the reason this exists */
        seccomp_release (ctx);
      }
}

/* Lists built here: runs of every length, holes, several errno values, kills. */
static void
test_synthetic (void **state)
{
  (void) state;
  for (int shape = 0; shape < 6; shape++)
    {
      scmp_filter_ctx ctx = seccomp_init (shape == 5 ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO (EPERM));
      assert_non_null (ctx);
      assert_int_equal (seccomp_arch_add (ctx, SCMP_ARCH_X86), 0);
      for (int nr = 0; nr < 450; nr++)
        {
          int keep = shape == 0 ? nr % 3 != 0 : shape == 1 ? (nr / 7) % 2 == 0 : shape == 2 ? nr % 2 : shape == 3 ? 1 : 1;
          if (!keep)
            continue;
          uint32_t act = shape == 4 ? SCMP_ACT_ERRNO ((uint32_t) (1 + nr % 4))
                         : shape == 5 ? (nr % 5 == 0 ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO (EACCES))
                                      : SCMP_ACT_ALLOW;
          /* Syscalls unknown to an arch are skipped by libseccomp (negative rc). */
          seccomp_rule_add (ctx, act, nr, 0);
        }
      /* An argument rule in the middle of a run. */
      seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EINVAL), SCMP_SYS (personality), 1, SCMP_A0 (SCMP_CMP_NE, 0));
      char what[64];
      uint32_t before, after;
      snprintf (what, sizeof what, "synthetic shape %d", shape);
      check_ctx (ctx, what, &before, &after);
      assert_true (after <= before);
      seccomp_release (ctx);
    }
}

/* What is not a valid program, or too short to gain, is left as it was. */
static void
test_left_alone (void **state)
{
  (void) state;
  /* A jump past the end. */
  struct sock_filter bad[5] = { BPF_STMT (BPF_LD | BPF_W | BPF_ABS, 0), BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 1, 9, 0),
                                BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 2, 8, 0), BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 3, 7, 0),
                                BPF_STMT (BPF_RET | BPF_K, 0) };
  struct sock_filter copy[5];
  uint32_t m = 5;
  memcpy (copy, bad, sizeof bad);
  assert_int_equal (lab_bpf_shrink (copy, &m), 0);
  assert_int_equal (m, 5);
  assert_memory_equal (copy, bad, sizeof bad);
  /* Three members that are not consecutive numbers: no shorter rewrite. */
  struct sock_filter p[6] = { BPF_STMT (BPF_LD | BPF_W | BPF_ABS, 0), BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 1, 3, 0),
                              BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 5, 2, 0), BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 9, 1, 0),
                              BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  struct sock_filter q[6];
  memcpy (q, p, sizeof p);
  m = 6;
  assert_int_equal (lab_bpf_shrink (q, &m), 0);
  assert_memory_equal (q, p, sizeof p);
  /* Consecutive numbers: 3 compares become 2, same verdicts. */
  p[2].k = 2;
  p[3].k = 3;
  memcpy (q, p, sizeof p);
  m = 6;
  assert_int_equal (lab_bpf_shrink (q, &m), 1);
  assert_int_equal (m, 5);
  compare (p, 6, q, m);
}

/* The kernel takes the shrunk program and it filters. */
static void
test_kernel_loads (void **state)
{
  (void) state;
  scmp_filter_ctx ctx;
  lab_error_t err = NULL;
  struct lab_bpf b;
  if (lab_seccomp_load_caps ("seccomp/default.json", 1, lab_caps_default (), &ctx, &err) < 0
      || lab_seccomp_export (ctx, &b, &err) < 0)
    fail_msg ("%s", err->msg);
  seccomp_release (ctx);
  fflush (NULL);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      if (lab_seccomp_load_bpf (&b, &err) < 0)
        _exit (10);
      if (syscall (SYS_getpid) <= 0)
        _exit (11);
      if (unshare (CLONE_NEWNET) == 0 || errno != EPERM)
        _exit (12);
      _exit (0);
    }
  int st;
  assert_int_equal (waitpid (pid, &st, 0), pid);
  lab_bpf_free (&b);
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_profiles),
    cmocka_unit_test (test_synthetic),
    cmocka_unit_test (test_left_alone),
    cmocka_unit_test (test_kernel_loads),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
