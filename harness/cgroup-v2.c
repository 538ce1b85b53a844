/*
 * cgroup-v2.c - the v2 backend: one hierarchy, one group per point under
 * `lab-<pid>` (whose subtree_control cgroup.c has set).
 *
 * Limits: memory.max, memory.high, memory.swap.max, memory.oom.group,
 * pids.max, cpu.max, cpuset.cpus (+ cpuset.mems from the parent).  Figures:
 * memory.current/peak, memory.swap.current/peak, memory.stat, memory.events
 * oom_kill, cpu.stat, pids.current/peak.  Kill: cgroup.kill (5.14+), else
 * cgroup.freeze, SIGKILL to every pid, thaw.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "utils.h"

static void
fmt_limit (char *buf, size_t len, int64_t v)
{
  if (v == LAB_LIMIT_MAX)
    snprintf (buf, len, "max");
  else
    snprintf (buf, len, "%" PRId64, v);
}

/* The controllers a point may use, enabled in lab-<pid> where available. */
static const char *const v2_ctls[] = { "memory", "pids", "cpu", "cpuset", NULL };

static int
v2_plan (struct lab_cgroup *cg, const struct lab_limits *l, lab_error_t *err)
{
  char mount[PATH_MAX], rel[PATH_MAX], labdir[PATH_MAX * 2], avail[256] = "";
  if (lab_cg_lab_dir ("memory", mount, sizeof mount, rel, sizeof rel, err) < 0)
    return -1;
  snprintf (labdir, sizeof labdir, "%s/%s", mount, rel);
  lab_cg_read_str (labdir, "cgroup.subtree_control", avail, sizeof avail);
  for (const char *const *c = v2_ctls; *c; c++)
    if (strstr (avail, *c) && lab_cg_add_ctl (cg, *c, err) < 0)
      return -1;
  if (cg->n_h == 0) /* no controller at all: still a group, for kill and procs */
    {
      struct lab_cg_hier *h = &cg->h[cg->n_h++];
      snprintf (h->mount, sizeof h->mount, "%s", mount);
      if (lab_cg_pathf (h->rel, sizeof h->rel, "%s/%s", rel, cg->name) < 0
          || lab_cg_pathf (h->dir, sizeof h->dir, "%s/%s", mount, h->rel) < 0)
        return lab_error (err, errno, "cgroup path of `%s`", cg->name);
    }
  char v[64];
  struct
  {
    const char *ctl, *file;
    int64_t val;
  } lim[] = {
    { "memory", "memory.max", l->memory_max },
    { "memory", "memory.high", l->memory_high },
    { "memory", "memory.swap.max", l->memory_swap_max },
    { "pids", "pids.max", l->pids_max },
  };
  for (size_t i = 0; i < ARRAY_SIZE (lim); i++)
    {
      if (lim[i].val == LAB_LIMIT_UNSET)
        continue;
      if (lab_cg_find (cg, lim[i].ctl) == NULL)
        return lab_error (err, 0, "cgroup v2: controller `%s` not available for `%s`", lim[i].ctl,
                          lim[i].file);
      if (strcmp (lim[i].file, "memory.swap.max") == 0 && !lab_cg_file_exists (labdir, "memory.swap.max"))
        continue; /* kernel without swap accounting */
      fmt_limit (v, sizeof v, lim[i].val);
      if (lab_cg_set (cg, lim[i].ctl, lim[i].file, v, err) < 0)
        return -1;
    }
  if (lab_cg_find (cg, "memory") && lab_cg_set (cg, "memory", "memory.oom.group", l->oom_group ? "1" : "0", err) < 0)
    return -1;
  if (l->cpu_quota_us != LAB_LIMIT_UNSET)
    {
      if (lab_cg_find (cg, "cpu") == NULL)
        return lab_error (err, 0, "cgroup v2: controller `cpu` not available for `cpu.max`");
      char q[32];
      fmt_limit (q, sizeof q, l->cpu_quota_us);
      snprintf (v, sizeof v, "%s %" PRId64, q, l->cpu_period_us > 0 ? l->cpu_period_us : 100000);
      if (lab_cg_set (cg, "cpu", "cpu.max", v, err) < 0)
        return -1;
    }
  if (l->cpuset_cpus)
    {
      if (lab_cg_find (cg, "cpuset") == NULL)
        return lab_error (err, 0, "cgroup v2: controller `cpuset` not available for `cpus`");
      if (lab_cg_set (cg, "cpuset", "cpuset.cpus", l->cpuset_cpus, err) < 0)
        return -1;
    }
  return 0;
}

static int
v2_read_stats (struct lab_cgroup *cg, struct lab_cgroup_stats *st)
{
  const char *d = cg->h[0].dir;
  st->mem_current = lab_cg_read_int (d, "memory.current");
  st->mem_peak = lab_cg_read_int (d, "memory.peak");
  st->swap_current = lab_cg_read_int (d, "memory.swap.current");
  st->swap_peak = lab_cg_read_int (d, "memory.swap.peak");
  st->anon = lab_cg_read_key (d, "memory.stat", "anon");
  st->file = lab_cg_read_key (d, "memory.stat", "file");
  st->kernel_stack = lab_cg_read_key (d, "memory.stat", "kernel_stack");
  st->pagetables = lab_cg_read_key (d, "memory.stat", "pagetables");
  st->sock = lab_cg_read_key (d, "memory.stat", "sock");
  st->slab = lab_cg_read_key (d, "memory.stat", "slab");
  st->kernel = lab_cg_read_key (d, "memory.stat", "kernel");
  st->oom_kill = lab_cg_read_key (d, "memory.events", "oom_kill");
  st->high_events = lab_cg_read_key (d, "memory.events", "high");
  st->cpu_usage_us = lab_cg_read_key (d, "cpu.stat", "usage_usec");
  st->nr_throttled = lab_cg_read_key (d, "cpu.stat", "nr_throttled");
  st->throttled_us = lab_cg_read_key (d, "cpu.stat", "throttled_usec");
  st->pids_current = lab_cg_read_int (d, "pids.current");
  st->pids_peak = lab_cg_read_int (d, "pids.peak");
  return 0;
}

static int64_t
v2_mem_current (struct lab_cgroup *cg)
{
  return lab_cg_read_int (cg->h[0].dir, "memory.current");
}

static int
v2_kill (struct lab_cgroup *cg, lab_error_t *err)
{
  const char *d = cg->h[0].dir;
  if (!cg->h[0].created)
    return 0;
  if (lab_cg_file_exists (d, "cgroup.kill"))
    return lab_cg_write (d, "cgroup.kill", "1", err);
  lab_error_t e = NULL;
  int frozen = lab_cg_write (d, "cgroup.freeze", "1", &e) == 0;
  lab_error_release (&e);
  lab_cg_kill_procs (d);
  if (frozen && lab_cg_write (d, "cgroup.freeze", "0", &e) < 0)
    lab_error_release (&e);
  return 0;
}

const struct lab_cg_backend lab_cg_backend_v2 = {
  .name = "v2",
  .ctls = v2_ctls,
  .plan = v2_plan,
  .read_stats = v2_read_stats,
  .mem_current = v2_mem_current,
  .kill = v2_kill,
};
