/* meta.h - DIR/meta.json (see results.h for the layout). */
#ifndef LAB_META_H
#define LAB_META_H

#include "error.h"

#include <json-c/json.h>

/* argv: the exact command line (argv[0] = "lab" ...).  Writes "environment":
   the static facts (lab_env_static) and "start": lab_env_snapshot(). */
int lab_meta_write (const char *dir, int argc, char **argv, lab_error_t *err);

/* meta-env.c: what changes results.  THP mode, cpufreq governor (NULL where
   unreadable), clock source: */
struct json_object *lab_env_static (void);
/* Load average, /proc/stat CPU and steal ticks, and the stall probe (stall-probe.h) now. */
struct json_object *lab_env_snapshot (void);
/* /proc/stat's total and steal ticks (all CPUs); -1 when unreadable. */
int lab_env_cpu_ticks (long long *total, long long *steal);
/* Steal time between two snapshots as % of all CPU time; -1 if unknown. */
double lab_env_steal_pct (struct json_object *start, struct json_object *end);
/* At the end of a run: environment.end (snapshot, steal % since start), the
   cpusets the points ran on and where the harness ran (environment.cpusets,
   environment.harness_cpus), written back into DIR/meta.json. */
int lab_meta_finish (const char *dir, struct json_object *points, lab_error_t *err);

#endif
