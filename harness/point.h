/*
 * point.h - one experiment point: (experiment, variant, n, repeat) run once in
 * its own sandbox.  point.c builds the workload's command line, runs it with
 * lab_sandbox_run(), reads the workload's `@lab-report` line, decides the
 * status and writes DIR/points/<id>.json atomically.
 */
#ifndef LAB_POINT_H
#define LAB_POINT_H

#include <json-c/json.h>

#include "catalog.h"
#include "error.h"
#include "profile.h"

struct lab_point
{
  const struct lab_experiment *exp;
  const char *variant;
  long n;
  int repeat;           /* 1-based */
  char id[160];         /* <experiment>-<variant>-n<N>-r<K> */
  char *const *wl_opts; /* KEY=VALUE passed to the workload as --opt; NULL-terminated, may be NULL */
  const char *backend;  /* coroutine I/O backend (--backend), NULL = the workload's default */
  const char *stack;    /* stack size (--stack), NULL = the variant's default */
};

/* Runs the point and writes its JSON; *out gets the point object (owned by the caller).
   `skip_reason` non-NULL: records status `skipped` without running. */
int lab_point_run (const struct lab_point *pt, const struct lab_profile *profile, const char *dir,
                   double timeout_s, const char *skip_reason, struct json_object **out, lab_error_t *err);
/* The summary.csv row of a point object. */
struct json_object *lab_point_summary (struct json_object *point);
struct lab_sandbox_result;
/* The point's status ("ok", "limit", "oom", ...) from the sandbox's verdict and
   the workload's report (NULL = none); `detail` gets the reason. */
const char *lab_point_decide_status (const struct lab_sandbox_result *res, struct json_object *report,
                                     char *detail, size_t len);
/* The summary.csv row (a new object) of a point from its sandbox result and
   the workload's report (either may be NULL); see point.c for each column. */
struct json_object *lab_point_make_summary (const struct lab_point *pt, const char *status,
                                            const struct lab_sandbox_result *res, struct json_object *report);
/* Finds the `@lab-report {...}` line in a workload's stdout file; NULL if none. */
struct json_object *lab_point_read_report (const char *stdout_path);

#endif
