/*
 * cgroup-v1.c - the v1 backend (also hybrid hosts whose v2 hierarchy holds no
 * controller).  Each controller may be its own hierarchy with its own parent
 * (this lab's host: memory under /process_api/<id>, the others at /), so a
 * point is one group per hierarchy (cgroup.c).
 *
 * Controllers: memory (limits, peak, oom kills), pids, cpu + cpuacct (quota,
 * throttling, usage), freezer (to kill a point without races), cpuset only
 * when the profile sets cpus (v1 cpuset needs cpus and mems before attach).
 * Limits: memory.limit_in_bytes, memory.memsw.limit_in_bytes (= memory +
 * swap limit, where the kernel accounts swap), pids.max, cpu.cfs_period_us /
 * cfs_quota_us, cpuset.cpus/mems.  v1 has no memory.high nor oom.group: the
 * pid namespace stands in for oom.group (its init dying kills the rest);
 * memory.high with swap allowed becomes the soft and hard limit (v1_plan).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "utils.h"

static int
has_ctl (const char *ctl)
{
  struct lab_cgroup_info info;
  lab_error_t e = NULL;
  if (lab_cgroup_detect (&info, &e) < 0)
    {
      lab_error_release (&e);
      return 0;
    }
  char list[sizeof info.controllers + 2];
  snprintf (list, sizeof list, " %s ", info.controllers);
  char pat[40];
  snprintf (pat, sizeof pat, " %s ", ctl);
  return strstr (list, pat) != NULL;
}

static int
add (struct lab_cgroup *cg, const char *ctl, const char *file, int64_t v, lab_error_t *err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRId64, v);
  return lab_cg_set (cg, ctl, file, buf, err);
}

static int
v1_plan (struct lab_cgroup *cg, const struct lab_limits *l, lab_error_t *err)
{
  if (!has_ctl ("memory"))
    return lab_error (err, 0, "cgroup v1: the `memory` controller is not available");
  if (lab_cg_add_ctl (cg, "memory", err) < 0)
    return -1;
  /* v1 has no memory.high.  With swap allowed, memory.high becomes the soft
     limit AND the hard limit: a soft limit alone reclaims only under
     host-wide pressure, the hard limit reclaims into swap (the memsw limit
     above it), which is what v2's memory.high does (pressure.c). */
  int high_as_limit = l->memory_high >= 0 && l->memory_high != LAB_LIMIT_MAX && l->memory_swap_max != 0
                      && l->memory_swap_max != LAB_LIMIT_UNSET;
  if (high_as_limit && add (cg, "memory", "memory.soft_limit_in_bytes", l->memory_high, err) < 0)
    return -1;
  if (l->memory_max != LAB_LIMIT_UNSET || high_as_limit)
    {
      int64_t max = l->memory_max == LAB_LIMIT_MAX || l->memory_max == LAB_LIMIT_UNSET ? -1 : l->memory_max;
      if (high_as_limit && (max < 0 || l->memory_high < max))
        max = l->memory_high;
      if (add (cg, "memory", "memory.limit_in_bytes", max, err) < 0)
        return -1;
      /* memsw exists when the kernel accounts swap; it must stay >= the
         memory limit, so it is written after it (values keep their order). */
      struct lab_cg_hier *h = lab_cg_find (cg, "memory");
      char parent[PATH_MAX];
      snprintf (parent, sizeof parent, "%s", h->dir);
      *strrchr (parent, '/') = '\0';
      if (l->memory_swap_max != LAB_LIMIT_UNSET && lab_cg_file_exists (parent, "memory.memsw.limit_in_bytes"))
        {
          int64_t sw = (max < 0 || l->memory_swap_max == LAB_LIMIT_MAX) ? -1 : max + l->memory_swap_max;
          if (add (cg, "memory", "memory.memsw.limit_in_bytes", sw, err) < 0)
            return -1;
        }
    }
  if (has_ctl ("pids"))
    {
      if (lab_cg_add_ctl (cg, "pids", err) < 0)
        return -1;
      if (l->pids_max != LAB_LIMIT_UNSET)
        {
          char v[32];
          if (l->pids_max == LAB_LIMIT_MAX)
            snprintf (v, sizeof v, "max");
          else
            snprintf (v, sizeof v, "%" PRId64, l->pids_max);
          if (lab_cg_set (cg, "pids", "pids.max", v, err) < 0)
            return -1;
        }
    }
  else if (l->pids_max != LAB_LIMIT_UNSET && l->pids_max != LAB_LIMIT_MAX)
    return lab_error (err, 0, "cgroup v1: the `pids` controller is not available for `pids.max`");
  if (has_ctl ("cpu") && lab_cg_add_ctl (cg, "cpu", err) < 0)
    return -1;
  if (has_ctl ("cpuacct") && lab_cg_add_ctl (cg, "cpuacct", err) < 0)
    return -1;
  if (l->cpu_quota_us != LAB_LIMIT_UNSET)
    {
      if (lab_cg_find (cg, "cpu") == NULL)
        return lab_error (err, 0, "cgroup v1: the `cpu` controller is not available for `cpu.max`");
      int64_t period = l->cpu_period_us > 0 ? l->cpu_period_us : 100000;
      int64_t quota = l->cpu_quota_us == LAB_LIMIT_MAX ? -1 : l->cpu_quota_us;
      if (add (cg, "cpu", "cpu.cfs_period_us", period, err) < 0
          || add (cg, "cpu", "cpu.cfs_quota_us", quota, err) < 0)
        return -1;
    }
  if (l->cpuset_cpus)
    {
      if (!has_ctl ("cpuset"))
        return lab_error (err, 0, "cgroup v1: the `cpuset` controller is not available for `cpus`");
      if (lab_cg_add_ctl (cg, "cpuset", err) < 0)
        return -1;
      struct lab_cg_hier *h = lab_cg_find (cg, "cpuset");
      char parent[PATH_MAX], mems[256];
      snprintf (parent, sizeof parent, "%s", h->dir);
      *strrchr (parent, '/') = '\0';
      if (lab_cg_read_str (parent, "cpuset.mems", mems, sizeof mems) < 0)
        return lab_error (err, errno, "reading `%s/cpuset.mems`", parent);
      if (lab_cg_set (cg, "cpuset", "cpuset.cpus", l->cpuset_cpus, err) < 0
          || lab_cg_set (cg, "cpuset", "cpuset.mems", mems, err) < 0)
        return -1;
    }
  if (has_ctl ("freezer") && lab_cg_add_ctl (cg, "freezer", err) < 0)
    return -1;
  return 0;
}

static const char *
dir_of (struct lab_cgroup *cg, const char *ctl)
{
  struct lab_cg_hier *h = lab_cg_find (cg, ctl);
  return h && h->created ? h->dir : NULL;
}

static int64_t
rd (const char *dir, const char *file)
{
  return dir ? lab_cg_read_int (dir, file) : -1;
}

static int64_t
key (const char *dir, const char *file, const char *k)
{
  return dir ? lab_cg_read_key (dir, file, k) : -1;
}

static int
v1_read_stats (struct lab_cgroup *cg, struct lab_cgroup_stats *st)
{
  const char *m = dir_of (cg, "memory");
  st->mem_current = rd (m, "memory.usage_in_bytes");
  st->mem_peak = rd (m, "memory.max_usage_in_bytes");
  int64_t sw = rd (m, "memory.memsw.usage_in_bytes"), swp = rd (m, "memory.memsw.max_usage_in_bytes");
  if (sw >= 0 && st->mem_current >= 0)
    st->swap_current = sw > st->mem_current ? sw - st->mem_current : 0;
  /* v1 keeps no swap peak; memsw peak minus memory peak is a lower bound. */
  if (swp >= 0 && st->mem_peak >= 0)
    st->swap_peak = swp > st->mem_peak ? swp - st->mem_peak : 0;
  st->anon = key (m, "memory.stat", "total_rss");
  st->file = key (m, "memory.stat", "total_cache");
  st->kernel = rd (m, "memory.kmem.max_usage_in_bytes"); /* v1: the kernel part's peak */
  st->oom_kill = key (m, "memory.oom_control", "oom_kill");
  const char *a = dir_of (cg, "cpuacct"), *c = dir_of (cg, "cpu"), *p = dir_of (cg, "pids");
  int64_t ns = rd (a, "cpuacct.usage");
  st->cpu_usage_us = ns >= 0 ? ns / 1000 : -1;
  st->nr_throttled = key (c, "cpu.stat", "nr_throttled");
  int64_t tns = key (c, "cpu.stat", "throttled_time");
  st->throttled_us = tns >= 0 ? tns / 1000 : -1;
  st->pids_current = rd (p, "pids.current");
  st->pids_peak = rd (p, "pids.peak");
  return 0;
}

static int64_t
v1_mem_current (struct lab_cgroup *cg)
{
  return rd (dir_of (cg, "memory"), "memory.usage_in_bytes");
}

static int
v1_kill (struct lab_cgroup *cg, lab_error_t *err)
{
  const char *fz = dir_of (cg, "freezer"), *m = dir_of (cg, "memory");
  pid_t pids[1024];
  const char *d = fz ? fz : m;
  if (d == NULL)
    return 0;
  /* Already empty (the usual end: init reaped): nothing can fork in there,
     so no freezing, whose first FROZEN flips a kernel static key (text
     patching: milliseconds per point). */
  if (lab_cg_read_procs (d, pids, (int) ARRAY_SIZE (pids)) == 0)
    return 0;
  /* Freeze first so nothing forks while we kill; SIGKILL to a frozen task
     takes effect at thaw. */
  int frozen = fz && lab_cg_v1_freeze (fz, 1) == 0;
  int n = lab_cg_read_procs (d, pids, (int) ARRAY_SIZE (pids));
  for (int i = 0; i < n; i++)
    if (pids[i] != getpid ())
      kill (pids[i], SIGKILL);
  if (fz)
    lab_cg_v1_freeze (fz, 0);
  (void) frozen;
  for (int i = 0; i < cg->n_h; i++)
    if (cg->h[i].created)
      lab_cg_kill_procs (cg->h[i].dir);
  return 0;
}

static const char *const v1_ctls[] = { "memory", "pids", "cpu", "cpuacct", "cpuset", "freezer", NULL };

const struct lab_cg_backend lab_cg_backend_v1 = {
  .name = "v1",
  .ctls = v1_ctls,
  .plan = v1_plan,
  .read_stats = v1_read_stats,
  .mem_current = v1_mem_current,
  .kill = v1_kill,
};
