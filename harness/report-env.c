/* report-env.c - the "environment:" line of the report from meta.json's
   `environment` (meta-env.c): what may have moved the figures. */
#include <stdio.h>
#include <string.h>

#include "report.h"

static const char *
s (struct json_object *o, const char *k, const char *def)
{
  struct json_object *v = NULL;
  if (o && json_object_object_get_ex (o, k, &v) && v)
    return json_object_get_string (v);
  return def;
}

static void
loadavg (FILE *f, struct json_object *snap)
{
  struct json_object *la = NULL;
  if (snap && json_object_object_get_ex (snap, "loadavg", &la) && la && json_object_array_length (la) == 3)
    fprintf (f, "%.2f", json_object_get_double (json_object_array_get_idx (la, 0)));
  else
    fprintf (f, "?");
}

static double
num (struct json_object *o, const char *k)
{
  struct json_object *v = NULL;
  return o && json_object_object_get_ex (o, k, &v) && v ? json_object_get_double (v) : -1;
}

/* "; stall floor: ..." from the probes at the start and the end (stall-probe.h). */
static void
stalls (FILE *f, struct json_object *start, struct json_object *end)
{
  struct json_object *snaps[2] = { start, end }, *st;
  double secs = 0, max_us = -1, o1 = 0, o5 = 0;
  int cpus = 0;

  for (int i = 0; i < 2; i++)
    if (snaps[i] && json_object_object_get_ex (snaps[i], "stalls", &st) && st)
      {
        secs += num (st, "secs");
        cpus = (int) num (st, "cpus");
        if (num (st, "max_gap_us") > max_us)
          max_us = num (st, "max_gap_us");
        o1 += num (st, "gaps_over_1ms");
        o5 += num (st, "gaps_over_5ms");
      }
  if (max_us < 0)
    return;
  fprintf (f, "; stall floor (a thread spinning on each of %d CPUs for %.3g s at the start and the end): "
              "longest gap %.2f ms, %.0f gaps over 1 ms, %.0f over 5 ms (latency tails measured here include such stalls)",
           cpus, secs / 2, max_us / 1e3, o1, o5);
}

void
lab_report_env_state (FILE *f, struct json_object *meta)
{
  struct json_object *env = NULL, *start = NULL, *end = NULL, *sets = NULL, *h = NULL;

  if (!json_object_object_get_ex (meta, "environment", &env) || env == NULL)
    return;
  json_object_object_get_ex (env, "start", &start);
  json_object_object_get_ex (env, "end", &end);
  fprintf (f, "environment: THP %s (defrag %s), cpufreq governor %s, clock source %s; load average (1 min) ",
           s (env, "thp_enabled", "?"), s (env, "thp_defrag", "?"), s (env, "cpufreq_governor", "not readable"),
           s (env, "clocksource", "?"));
  loadavg (f, start);
  fprintf (f, " at the start, ");
  loadavg (f, end);
  fprintf (f, " at the end");
  struct json_object *st = NULL;
  if (end && json_object_object_get_ex (end, "steal_pct_since_start", &st) && st)
    fprintf (f, "; steal time %.2f%% of CPU time during the run", json_object_get_double (st));
  stalls (f, start, end);
  if (json_object_object_get_ex (env, "cpusets", &sets) && sets && json_object_array_length (sets))
    {
      fprintf (f, "; workloads pinned to CPU");
      for (size_t i = 0; i < json_object_array_length (sets); i++)
        fprintf (f, "%s %s", i ? "," : "", json_object_get_string (json_object_array_get_idx (sets, i)));
    }
  if (json_object_object_get_ex (env, "harness_cpus", &h) && h && json_object_array_length (h))
    {
      fprintf (f, ", the harness's sampler on CPU");
      for (size_t i = 0; i < json_object_array_length (h); i++)
        fprintf (f, "%s %s", i ? "," : "", json_object_get_string (json_object_array_get_idx (h, i)));
    }
  fprintf (f, "\n");
}
