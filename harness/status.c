/* status.c - the table of point statuses (see status.h). */
#include "status.h"

#include <stddef.h>
#include <string.h>

const struct lab_status_info lab_statuses[LAB_ST__COUNT] = {
  [LAB_ST_OK] = { LAB_ST_OK, "ok", "the workload ran to the end and reported its figures", 0 },
  [LAB_ST_OOM] = { LAB_ST_OOM, "oom", "the cgroup's OOM killer ended it (SIGKILL) at the memory limit", 137 },
  [LAB_ST_TIMEOUT] = { LAB_ST_TIMEOUT, "timeout", "the harness killed it (SIGKILL) after the point's time limit", 137 },
  [LAB_ST_SECCOMP] = { LAB_ST_SECCOMP, "seccomp",
                       "the seccomp filter killed it (SIGSYS); the point JSON names the syscall", 128 + 31 },
  [LAB_ST_CRASHED] = { LAB_ST_CRASHED, "crashed",
                       "a signal, a nonzero exit, or an exit without a report", -1 },
  [LAB_ST_LIMIT] = { LAB_ST_LIMIT, "limit",
                     "a host limit (pid_max, threads-max, max_map_count, RLIMIT_NPROC, memory) stopped the "
                     "workload, which names it and exits 0",
                     0 },
  [LAB_ST_SKIPPED] = { LAB_ST_SKIPPED, "skipped",
                       "not run: the same variant already ended limit, oom or timeout at a smaller n", -1 },
};

const char *
lab_status_name (enum lab_status st)
{
  return (unsigned) st < LAB_ST__COUNT ? lab_statuses[st].name : "unknown";
}

const struct lab_status_info *
lab_status_find (const char *name)
{
  for (int i = 0; name && i < LAB_ST__COUNT; i++)
    if (strcmp (lab_statuses[i].name, name) == 0)
      return &lab_statuses[i];
  return NULL;
}

const char *
lab_status_meaning (const char *name)
{
  const struct lab_status_info *s = lab_status_find (name);
  return s ? s->meaning : "unknown status";
}

int
lab_status_is_ok (const char *name)
{
  return name && strcmp (name, lab_statuses[LAB_ST_OK].name) == 0;
}
