/* claims-seccomp.c - C12 (container isolation) from the `seccomp`
 * experiment's points in this run: the sandbox probes (memory-max,
 * clone-newns, ptrace: experiments/seccomp/probe.c) for the three parts of
 * the claim, and the openat variants for the io_uring gap CLAIMS.md notes.
 * Holds when all three parts hold in this run; fails when one does not;
 * not tested when a part's point is missing. */
#include <string.h>

#include "claims.h"

static enum lab_verdict
part (FILE *f, const struct lab_agg *g, const char *what, int held, const char *how)
{
  if (g == NULL)
    {
      fprintf (f, "%s: not run (`lab run seccomp`); ", what);
      return LAB_V_NOT_TESTED;
    }
  fprintf (f, "%s: %s (%d of %d runs `%s`%s%s); ", what, held ? "holds" : "DOES NOT HOLD", held ? g->n_total : 0,
           g->n_total, g->status, how && *how ? ", " : "", how ? how : "");
  return held ? LAB_V_HOLDS : LAB_V_FAILS;
}

enum lab_verdict
lab_claim_c12 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *s = lab_agg_find (agg, n, "seccomp", "syscall", -1);
  const struct lab_agg *u = lab_agg_find (agg, n, "seccomp", "io_uring", -1);
  const struct lab_agg *r = lab_agg_find (agg, n, "seccomp", "io_uring-restricted", -1);
  const struct lab_agg *mm = lab_agg_find (agg, n, "seccomp", "memory-max", -1);
  const struct lab_agg *cl = lab_agg_find (agg, n, "seccomp", "clone-newns", -1);
  const struct lab_agg *pt = lab_agg_find (agg, n, "seccomp", "ptrace", -1);
  enum lab_verdict v[3];
  char how[160];

  if (!mm && !cl && !pt && !s && !u)
    {
      fprintf (f, "not measured in this run (`lab run seccomp`).");
      return LAB_V_NOT_TESTED;
    }
  fprintf (f, "sandbox probes run in this run (cgroup backend of the point JSON; a v1 host enforces "
              "memory.limit_in_bytes): ");
  /* memory.max: every run of the probe ended `oom` (it touches up to 1 GiB under 64M). */
  v[0] = part (f, mm, "memory.max as a hard limit", mm && mm->n_ok == 0 && strcmp (mm->status, "oom") == 0,
               mm ? mm->detail : "");
  /* clone(CLONE_NEWNS) -> EPERM, and openat allowed, in every ok run (the median repeat's report). */
  snprintf (how, sizeof how, "clone errno %.0f, openat %s", lab_agg_wnum (cl, "clone_newns_errno"),
            lab_agg_wnum (cl, "openat_ok") > 0 ? "allowed" : "NOT allowed");
  v[1] = part (f, cl, "openat allowed, EPERM for clone(CLONE_NEWNS)",
               cl && cl->n_ok == cl->n_total && lab_agg_wnum (cl, "clone_newns_errno") == 1
                   && lab_agg_wnum (cl, "openat_ok") > 0,
               cl ? how : "");
  /* ptrace: every run killed by the filter. */
  v[2] = part (f, pt, "killed on ptrace", pt && pt->n_ok == 0 && strcmp (pt->status, "seccomp") == 0,
               pt ? pt->detail : "");
  if (s && s->workload)
    fprintf (f, "and the io_uring gap: under a profile that denies openat, openat(2) %s",
             lab_agg_wnum (s, "syscall_openat_ok") > 0 ? "SUCCEEDED (the filter did not hold)" : "was denied");
  if (s && s->workload && lab_agg_wnum (s, "syscall_openat_errno") > 0)
    fprintf (f, " (errno %.0f)", lab_agg_wnum (s, "syscall_openat_errno"));
  if (u && u->workload)
    fprintf (f, "; IORING_OP_OPENAT of the same file under the same profile %s",
             lab_agg_wnum (u, "io_uring_openat_ok") > 0 ? "succeeded: seccomp does not see io_uring operations"
                                                        : "failed too");
  if (r && r->workload)
    fprintf (f, "; on a ring with IORING_REGISTER_RESTRICTIONS it %s",
             lab_agg_wnum (r, "io_uring_openat_ok") > 0 ? "still succeeded (restrictions did not hold)"
                                                        : "was refused");
  if (r && r->workload && lab_agg_wnum (r, "io_uring_openat_errno") > 0)
    fprintf (f, " (errno %.0f)", lab_agg_wnum (r, "io_uring_openat_errno"));
  fprintf (f, ". Raw figures in points/seccomp-*.json.");
  for (int i = 0; i < 3; i++)
    if (v[i] == LAB_V_FAILS)
      return LAB_V_FAILS;
  for (int i = 0; i < 3; i++)
    if (v[i] == LAB_V_NOT_TESTED)
      return LAB_V_NOT_TESTED;
  return LAB_V_HOLDS;
}
