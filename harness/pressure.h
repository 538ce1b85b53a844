/*
 * pressure.h - the harness side of the `pressure` experiment: its sizes
 * (`--opt kib=K`, `--opt fraction=F`) and the per-point cgroup limit, a
 * fraction of the working set (N x K KiB), so parked tasks' stacks must go
 * to swap.  Points are `skipped` when the host has no swap.
 */
#ifndef LAB_PRESSURE_H
#define LAB_PRESSURE_H

#include <stdint.h>

#include "error.h"
#include "point.h"
#include "profile.h"

#define LAB_PRESSURE_KIB 128       /* the workload's default (experiments/pressure/pressure.h) */
#define LAB_PRESSURE_FRACTION 0.5
#define LAB_PRESSURE_BASE (8LL << 20) /* the process itself: binary, libc, runtime */

struct lab_pressure_cfg
{
  long kib;
  double fraction;
};

/* Reads kib= and fraction= from KEY=VALUE options (NULL-terminated, may be NULL);
   usage error on a bad value. */
int lab_pressure_cfg (char *const *opts, struct lab_pressure_cfg *c, lab_error_t *err);
/* memory limit for n tasks: fraction x n x K KiB + LAB_PRESSURE_BASE (8 MiB). */
int64_t lab_pressure_limit (const struct lab_pressure_cfg *c, long n);
/* Swap the host needs for n tasks: what does not fit under the limit, plus
   32 KiB a task of headroom (a thread's kernel stack cannot be swapped, so
   more of its user memory must go). */
int64_t lab_pressure_swap_need (const struct lab_pressure_cfg *c, long n);

/* The hook cmd-run.c calls before each point: for `pressure`, sets *skip when
   the host has no swap, else fills *tmp (a shallow copy of `in`) with the
   point's memory.high = memory limit and returns it; other experiments get
   `in` back unchanged. */
const struct lab_profile *lab_point_profile (const struct lab_point *pt, const struct lab_profile *in,
                                             struct lab_profile *tmp, const char **skip, lab_error_t *err);

#endif
