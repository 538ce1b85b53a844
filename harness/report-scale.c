/*
 * report-scale.c - the report's sections for scale and memory pressure (see
 * report-scale.h), written from the point JSONs of the run:
 *   memory    per task with all n parked: RSS, VSS, cgroup memory and its
 *             kernel part (v1: kmem peak; v2: memory.stat at the sampled
 *             peak), with the kernel part split into kernel stacks and page
 *             tables (v2: memory.stat kernel_stack/pagetables; v1: the
 *             host's /proc/meminfo KernelStack delta and the process' VmPTE);
 *   pressure  swap from three readings (the workload's sampled VmSwap peak,
 *             the cgroup's swap peak, the host's swap used), major faults and
 *             the wake latency per task;
 * The memory-over-time plots are plot hooks (plots-scale.c).
 */
#include "report-scale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "utils.h"

static struct json_object *
at (struct json_object *o, const char *path)
{
  char buf[256];
  snprintf (buf, sizeof buf, "%s", path);
  for (char *save = NULL, *k = strtok_r (buf, ".", &save); k && o; k = strtok_r (NULL, ".", &save))
    if (!json_object_object_get_ex (o, k, &o))
      return NULL;
  return o;
}

static double
dnum (struct json_object *o, const char *path)
{
  struct json_object *v = at (o, path);
  if (v == NULL || json_object_is_type (v, json_type_null) || json_object_is_type (v, json_type_string))
    return NAN;
  return json_object_get_double (v);
}

static const char *
dstr (struct json_object *o, const char *path)
{
  struct json_object *v = at (o, path);
  return v ? json_object_get_string (v) : "";
}

/* Bytes as "12.3 KiB"/"4.5 MiB"; "-" when not measured. */
static const char *
b (char *buf, size_t len, double v)
{
  if (isnan (v) || v < 0)
    return "-";
  if (v >= 1 << 30)
    snprintf (buf, len, "%.2f GiB", v / (1 << 30));
  else if (v >= 1 << 20)
    snprintf (buf, len, "%.1f MiB", v / (1 << 20));
  else if (v >= 1024)
    snprintf (buf, len, "%.1f KiB", v / 1024);
  else
    snprintf (buf, len, "%.0f B", v);
  return buf;
}

/* o[key] as a string, for keys that hold dots ("kernel.pid_max"). */
static const char *
kstr (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  return o && json_object_object_get_ex (o, key, &v) && v ? json_object_get_string (v) : "?";
}

void
lab_report_tune_line (FILE *f, struct json_object *meta)
{
  struct json_object *t = at (meta, "tune");
  if (t == NULL)
    return;
  struct json_object *st = at (t, "settings");
  fprintf (f, "host settings in force: pid_max %s, threads-max %s, max_map_count %s, overcommit %s, THP %s, "
              "swap %s; set by `lab tune`: %s\n",
           kstr (st, "kernel.pid_max"), kstr (st, "kernel.threads-max"), kstr (st, "vm.max_map_count"),
           kstr (st, "vm.overcommit_memory"), kstr (st, "transparent_hugepage"), kstr (st, "swap"),
           json_object_get_boolean (at (t, "applied_by_lab_tune")) ? "yes" : "no");
}

static void
memory_rows (FILE *f, struct json_object *pts)
{
  char s[8][32];
  fprintf (f, "Per task, all n parked at once (cgroup figures include what RSS hides: kernel stacks, "
              "page tables, task structs):\n\n"
              "| variant | n | status | RSS/task | VSS/task | cgroup/task | kernel/task | kernel stack/task | "
              "page tables/task | split from |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < json_object_array_length (pts); i++)
    {
      struct json_object *p = json_object_array_get_idx (pts, i);
      double n = dnum (p, "n"), ks = dnum (p, "sandbox.cgroup.at_sampled_peak.kernel_stack_bytes") / n,
             pt = dnum (p, "sandbox.cgroup.at_sampled_peak.pagetables_bytes") / n;
      const char *src = "cgroup memory.stat";
      if (isnan (ks))
        {
          ks = dnum (p, "workload.kernel_stack_per_task");
          pt = dnum (p, "workload.pte_bytes") / n;
          src = "host KernelStack delta, VmPTE";
        }
      fprintf (f, "| %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |\n", dstr (p, "variant"), n, dstr (p, "status"),
               b (s[0], 32, dnum (p, "summary.rss_peak_bytes") / n), b (s[1], 32, dnum (p, "summary.vss_peak_bytes") / n),
               b (s[2], 32, dnum (p, "summary.cgroup_mem_peak_bytes") / n),
               b (s[3], 32, dnum (p, "summary.kernel_mem_bytes") / n), b (s[4], 32, ks), b (s[5], 32, pt), src);
    }
  fprintf (f, "\n");
}

static void
pressure_rows (FILE *f, struct json_object *pts)
{
  char s[8][32];
  fprintf (f, "Swap, three readings: the workload's VmSwap (sampled peak), the cgroup's swap peak (v2 "
              "memory.swap.peak; v1 memsw max usage minus memory max usage), the host's swap used once all were "
              "parked minus before (/proc/meminfo, what /proc/swaps sums). Wake = the main thread wakes each task "
              "once and waits until it has read back its K KiB.\n\n"
              "| variant | n | status | held | limit | VmSwap peak | cgroup swap peak | host swap used | RSS peak | "
              "major faults (pressure/wake) | memory.high events | wake p50 | wake p99 | wake max |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < json_object_array_length (pts); i++)
    {
      struct json_object *p = json_object_array_get_idx (pts, i);
      double hs = dnum (p, "workload.host_swap_used_parked_bytes") - dnum (p, "workload.host_swap_used_before_bytes");
      double hev = dnum (p, "sandbox.cgroup.end.memory_high_events");
      char hevs[32] = "- (v1)";
      if (!isnan (hev) && hev >= 0)
        snprintf (hevs, sizeof hevs, "%.0f", hev);
      fprintf (f, "| %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %.0f / %.0f | %s | %.2f ms | %.2f ms | %.2f ms |\n",
               dstr (p, "variant"), dnum (p, "n"), dstr (p, "status"), b (s[0], 32, dnum (p, "workload.working_set_bytes")),
               b (s[1], 32, json_object_get_double (json_object_object_get (at (p, "profile.limits"), "memory.high"))), b (s[2], 32, dnum (p, "summary.swap_peak_bytes")),
               b (s[3], 32, dnum (p, "sandbox.cgroup.end.swap_peak_bytes")), b (s[4], 32, hs),
               b (s[5], 32, dnum (p, "summary.rss_peak_bytes")), dnum (p, "workload.majflt_pressure"),
               dnum (p, "workload.majflt_wake"), hevs, dnum (p, "summary.lat_p50_ns") / 1e6,
               dnum (p, "summary.lat_p99_ns") / 1e6, dnum (p, "summary.lat_max_ns") / 1e6);
    }
  fprintf (f, "\n");
}

void
lab_report_scale (FILE *f, const char *dir, const char *exp)
{
  struct json_object *all = NULL, *pts;
  lab_error_t e = NULL;
  int memory = strcmp (exp, "memory") == 0, pressure = strcmp (exp, "pressure") == 0;

  if (!memory && !pressure)
    return;
  if (lab_points_load (dir, &all, &e) < 0)
    {
      lab_error_release (&e);
      return;
    }
  pts = json_object_new_array ();
  for (size_t i = 0; i < json_object_array_length (all); i++)
    {
      struct json_object *p = json_object_array_get_idx (all, i);
      if (strcmp (dstr (p, "experiment"), exp) == 0 && strcmp (dstr (p, "status"), "skipped") != 0)
        json_object_array_add (pts, json_object_get (p));
    }
  if (json_object_array_length (pts) > 0)
    (memory ? memory_rows : pressure_rows) (f, pts);
  json_object_put (pts);
  json_object_put (all);
}
