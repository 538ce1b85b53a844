/*
 * status.h - the one table of point statuses: name, meaning, exit code.
 *
 * The sandbox classifies how a command ended (ok, oom, timeout, seccomp,
 * crashed), the harness adds `limit` (from the workload's report) and
 * `skipped`; point JSON, summary.csv, report.md/html and `lab compare` all
 * print the names from this table, and the report's legend prints the
 * meanings.  `exit_code` is how the sandboxed command's end looks from outside
 * (what `lab sandbox` exits with): -1 where it varies (the command's own code,
 * or 128+signal) or where nothing ran.
 */
#ifndef LAB_STATUS_H
#define LAB_STATUS_H

enum lab_status
{
  LAB_ST_OK = 0,
  LAB_ST_OOM,
  LAB_ST_TIMEOUT,
  LAB_ST_SECCOMP,
  LAB_ST_CRASHED,
  LAB_ST_LIMIT,   /* set by the harness from the workload's report */
  LAB_ST_SKIPPED, /* set by the harness */
  LAB_ST__COUNT,
};

struct lab_status_info
{
  enum lab_status status;
  const char *name;    /* as written in point JSON and summary.csv */
  const char *meaning; /* one sentence for readers of the report */
  int exit_code;       /* the sandboxed command's exit status, -1 = varies / not run */
};

/* Indexed by enum lab_status. */
extern const struct lab_status_info lab_statuses[LAB_ST__COUNT];

const char *lab_status_name (enum lab_status st);
/* The entry named `name`, or NULL. */
const struct lab_status_info *lab_status_find (const char *name);
/* The meaning of the status named `name` ("unknown status" if none). */
const char *lab_status_meaning (const char *name);
/* 1 when `name` is ok. */
int lab_status_is_ok (const char *name);

#endif
