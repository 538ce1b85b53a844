/*
 * pressure.c - see pressure.h.  The limit is the SAME for every variant (a
 * fraction of the memory the tasks hold plus a fixed 8 MiB for the process),
 * so each model pays its own overheads from one budget: a pthread's kernel
 * stack and page tables (charged to the cgroup, never swapped) push more of
 * its stack memory out than a coroutine's few bytes of bookkeeping.
 * The profile (containers/swap.json) sets memory.swap.max; the point's
 * memory.high is set here.  On v2 memory.high throttles and reclaims into
 * swap; the v1 backend maps memory.high with swap allowed to its soft limit
 * and hard limit (cgroup-v1.c), since a v1 soft limit alone reclaims only
 * under host-wide pressure.
 */
#include "pressure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

int
lab_pressure_cfg (char *const *opts, struct lab_pressure_cfg *c, lab_error_t *err)
{
  c->kib = LAB_PRESSURE_KIB;
  c->fraction = LAB_PRESSURE_FRACTION;
  for (char *const *kv = opts; kv && *kv; kv++)
    {
      char *end = NULL;
      if (strncmp (*kv, "kib=", 4) == 0)
        {
          c->kib = strtol (*kv + 4, &end, 10);
          if (end == *kv + 4 || *end || c->kib < 4 || c->kib > 65536)
            return lab_usage_error (err, "--opt `%s`: kib must be a whole number 4..65536 (KiB per task)", *kv);
        }
      else if (strncmp (*kv, "fraction=", 9) == 0)
        {
          c->fraction = strtod (*kv + 9, &end);
          if (end == *kv + 9 || *end || !(c->fraction >= 0.05 && c->fraction <= 0.95))
            return lab_usage_error (err, "--opt `%s`: fraction must be 0.05..0.95 (of the working set)", *kv);
        }
    }
  return 0;
}

int64_t
lab_pressure_limit (const struct lab_pressure_cfg *c, long n)
{
  return (int64_t) (c->fraction * (double) n * (double) c->kib * 1024.0) + LAB_PRESSURE_BASE;
}

int64_t
lab_pressure_swap_need (const struct lab_pressure_cfg *c, long n)
{
  int64_t ws = (int64_t) n * c->kib * 1024;
  return (int64_t) ((1.0 - c->fraction) * (double) ws) + (int64_t) n * 32 * 1024;
}

const struct lab_profile *
lab_point_profile (const struct lab_point *pt, const struct lab_profile *in, struct lab_profile *tmp,
                   const char **skip, lab_error_t *err)
{
  struct lab_pressure_cfg c;
  if (strcmp (pt->exp->name, "pressure") != 0 || *skip)
    return in;
  if (lab_pressure_cfg (pt->wl_opts, &c, err) < 0)
    return NULL;
  if (lab_swap_total () <= 0)
    {
      *skip = "no swap: run lab tune --swap SIZE";
      return in;
    }
  *tmp = *in;
  tmp->limits.memory_high = lab_pressure_limit (&c, pt->n);
  return tmp;
}
