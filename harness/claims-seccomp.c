/* claims-seccomp.c - C12 (container isolation) from the `seccomp` experiment. */
#include "claims.h"

enum lab_verdict
lab_claim_c12 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *s = lab_agg_find (agg, n, "seccomp", "syscall", -1);
  const struct lab_agg *u = lab_agg_find (agg, n, "seccomp", "io_uring", -1);
  const struct lab_agg *r = lab_agg_find (agg, n, "seccomp", "io_uring-restricted", -1);
  enum lab_verdict v = LAB_V_NOT_TESTED;

  fprintf (f, "memory.max, clone and ptrace are checked by the sandbox tests (`make test`, cgroup v2 in a VM); this "
              "run's `seccomp` experiment measures the io_uring gap: ");
  if (!(s && s->workload) && !(u && u->workload))
    {
      fprintf (f, "not measured in this run (`lab run seccomp`).");
      return LAB_V_NOT_TESTED;
    }
  if (s && s->workload)
    {
      int ok = lab_agg_wnum (s, "syscall_openat_ok") > 0;
      v = ok ? LAB_V_FAILS : LAB_V_HOLDS;
      fprintf (f, "under a profile that denies openat, openat(2) %s",
               ok ? "SUCCEEDED (the filter did not hold)" : "was denied");
    }
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
  return v;
}
