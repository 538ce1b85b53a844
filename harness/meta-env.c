/*
 * meta-env.c - the machine's state that changes results, for meta.json
 * (see meta.h): transparent huge pages, the CPU frequency governor where
 * cpufreq is readable, the clock source, and at the start and the end of a
 * run the load average, the steal time (/proc/stat) and the stall floor
 * (stall-probe.c: a spinning thread per CPU), plus the cpusets the
 * points ran on and where the harness sampled from (from the points).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta.h"
#include "results.h"
#include "stall-probe.h"
#include "utils.h"

/* First line of a file, newline stripped; "" when unreadable. */
static void
first_line (const char *path, char *buf, size_t len)
{
  FILE *f = fopen (path, "re");
  buf[0] = '\0';
  if (f == NULL)
    return;
  if (fgets (buf, (int) len, f) == NULL)
    buf[0] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  fclose (f);
}

/* "always [madvise] never" -> "madvise". */
static struct json_object *
selected (const char *path)
{
  char buf[256], *a, *b;
  first_line (path, buf, sizeof buf);
  if ((a = strchr (buf, '[')) && (b = strchr (a, ']')))
    {
      *b = '\0';
      return json_object_new_string (a + 1);
    }
  return buf[0] ? json_object_new_string (buf) : NULL;
}

/* Each CPU's scaling governor: one string when they agree, else an object; NULL without cpufreq. */
static struct json_object *
governors (void)
{
  struct json_object *per = json_object_new_object ();
  char first[64] = "", path[128], buf[64];
  int n = 0, same = 1;
  long ncpu = sysconf (_SC_NPROCESSORS_CONF);

  for (long c = 0; c < ncpu; c++)
    {
      snprintf (path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
      first_line (path, buf, sizeof buf);
      if (!buf[0])
        continue;
      if (n++ == 0)
        snprintf (first, sizeof first, "%s", buf);
      same &= strcmp (first, buf) == 0;
      snprintf (path, sizeof path, "cpu%ld", c);
      json_object_object_add (per, path, json_object_new_string (buf));
    }
  if (n == 0 || same)
    {
      json_object_put (per);
      return n ? json_object_new_string (first) : NULL;
    }
  return per;
}

int
lab_env_cpu_ticks (long long *total, long long *steal)
{
  long long v[10] = { 0 };
  FILE *f = fopen ("/proc/stat", "re");
  int got;

  *total = *steal = -1;
  if (f == NULL)
    return -1;
  got = fscanf (f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
                &v[5], &v[6], &v[7], &v[8], &v[9]);
  fclose (f);
  if (got < 8)
    return -1;
  *total = 0;
  for (int i = 0; i < 8; i++) /* guest time is already in user */
    *total += v[i];
  *steal = v[7];
  return 0;
}

struct json_object *
lab_env_snapshot (void)
{
  struct json_object *o = json_object_new_object (), *la = json_object_new_array ();
  double l[3];
  long long total, steal;
  FILE *f = fopen ("/proc/loadavg", "re");

  if (f && fscanf (f, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
    for (int i = 0; i < 3; i++)
      json_object_array_add (la, json_object_new_double (l[i]));
  if (f)
    fclose (f);
  json_object_object_add (o, "loadavg", la);
  if (lab_env_cpu_ticks (&total, &steal) == 0)
    {
      json_object_object_add (o, "cpu_ticks", json_object_new_int64 (total));
      json_object_object_add (o, "steal_ticks", json_object_new_int64 (steal));
    }
  json_object_object_add (o, "stalls", lab_stall_probe (lab_stall_probe_secs ()));
  return o;
}

struct json_object *
lab_env_static (void)
{
  struct json_object *o = json_object_new_object ();
  char buf[128];

  json_object_object_add (o, "thp_enabled", selected ("/sys/kernel/mm/transparent_hugepage/enabled"));
  json_object_object_add (o, "thp_defrag", selected ("/sys/kernel/mm/transparent_hugepage/defrag"));
  json_object_object_add (o, "cpufreq_governor", governors ());
  first_line ("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof buf);
  json_object_object_add (o, "clocksource", buf[0] ? json_object_new_string (buf) : NULL);
  return o;
}

/* Steal over the run as a share of all CPU time, from two snapshots; -1 if unknown. */
double
lab_env_steal_pct (struct json_object *start, struct json_object *end)
{
  struct json_object *t0, *s0, *t1, *s1;
  if (!json_object_object_get_ex (start, "cpu_ticks", &t0) || !json_object_object_get_ex (start, "steal_ticks", &s0)
      || !json_object_object_get_ex (end, "cpu_ticks", &t1) || !json_object_object_get_ex (end, "steal_ticks", &s1))
    return -1;
  long long dt = json_object_get_int64 (t1) - json_object_get_int64 (t0);
  long long ds = json_object_get_int64 (s1) - json_object_get_int64 (s0);
  return dt > 0 ? 100.0 * (double) ds / (double) dt : -1;
}

/* Adds `cpusets` (distinct sandbox cpusets of the points) and `harness_cpus`. */
static void
add_cpusets (struct json_object *meta, struct json_object *points)
{
  struct json_object *sets = json_object_new_array (), *h = json_object_new_array ();
  for (size_t i = 0; points && i < json_object_array_length (points); i++)
    {
      struct json_object *sb = NULL, *v = NULL;
      if (!json_object_object_get_ex (json_object_array_get_idx (points, i), "sandbox", &sb))
        continue;
      struct json_object *lists[2] = { sets, h };
      const char *keys[2] = { "cpuset", "harness_cpus" };
      for (int k = 0; k < 2; k++)
        {
          int seen = 0;
          if (!json_object_object_get_ex (sb, keys[k], &v) || v == NULL)
            continue;
          for (size_t j = 0; j < json_object_array_length (lists[k]); j++)
            seen |= strcmp (json_object_get_string (json_object_array_get_idx (lists[k], j)),
                            json_object_get_string (v)) == 0;
          if (!seen)
            json_object_array_add (lists[k], json_object_new_string (json_object_get_string (v)));
        }
    }
  json_object_object_add (meta, "cpusets", sets);
  json_object_object_add (meta, "harness_cpus", h);
}

int
lab_meta_finish (const char *dir, struct json_object *points, lab_error_t *err)
{
  char path[4096];
  struct json_object *meta = NULL, *env = NULL, *start = NULL, *end;
  int ret;

  snprintf (path, sizeof path, "%s/meta.json", dir);
  if (lab_json_read (path, &meta, err) < 0)
    return -1;
  if (!json_object_object_get_ex (meta, "environment", &env) || env == NULL)
    {
      env = json_object_new_object ();
      json_object_object_add (meta, "environment", env);
    }
  end = lab_env_snapshot ();
  if (json_object_object_get_ex (env, "start", &start) && start)
    {
      double pct = lab_env_steal_pct (start, end);
      json_object_object_add (end, "steal_pct_since_start", pct >= 0 ? json_object_new_double (pct) : NULL);
    }
  json_object_object_add (env, "end", end);
  add_cpusets (env, points);
  ret = lab_json_write (path, meta, err);
  json_object_put (meta);
  return ret;
}
