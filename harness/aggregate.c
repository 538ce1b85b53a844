/*
 * aggregate.c - groups a run's points and computes each figure's median and
 * spread over the ok repeats (see aggregate.h).
 *
 * Each figure is computed per repeat first (e.g. cgroup peak / n, CPU user
 * time / ops), then the median and min..max are taken over the repeats, so
 * the spread of a derived figure is the spread of that figure, not of its
 * inputs.  A median of an even count is the mean of the middle two.
 */
#include "aggregate.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "results.h"
#include "status.h"
#include "utils.h"

const struct lab_metric_info lab_metrics[LAB_M__COUNT] = {
  [LAB_M_WALL] = { LAB_M_WALL, "wall_s", "wall_s", LAB_PER_NONE, 1, "s", 1 },
  [LAB_M_OPS_PER_S] = { LAB_M_OPS_PER_S, "ops_per_s", "ops_per_s", LAB_PER_NONE, 1, "1/s", 0 },
  [LAB_M_NS_PER_OP] = { LAB_M_NS_PER_OP, "ns_per_op", "ops_per_s", LAB_PER_INVERSE, 1e9, "ns", 1 },
  [LAB_M_RSS_PEAK] = { LAB_M_RSS_PEAK, "rss_peak_B", "rss_peak_bytes", LAB_PER_NONE, 1, "bytes", 1 },
  [LAB_M_CG_PEAK] = { LAB_M_CG_PEAK, "cgroup_peak_B", "cgroup_mem_peak_bytes", LAB_PER_NONE, 1, "bytes", 1 },
  [LAB_M_KERNEL] = { LAB_M_KERNEL, "kernel_B", "kernel_mem_bytes", LAB_PER_NONE, 1, "bytes", 1 },
  [LAB_M_RSS_PER_TASK] = { LAB_M_RSS_PER_TASK, "rss_per_task_B", "rss_peak_bytes", LAB_PER_TASK, 1, "bytes", 1 },
  [LAB_M_CG_PER_TASK] = { LAB_M_CG_PER_TASK, "cgroup_per_task_B", "cgroup_mem_peak_bytes", LAB_PER_TASK, 1, "bytes",
                          1 },
  [LAB_M_KERNEL_PER_TASK] = { LAB_M_KERNEL_PER_TASK, "kernel_per_task_B", "kernel_mem_bytes", LAB_PER_TASK, 1,
                              "bytes", 1 },
  [LAB_M_CPU_USER_PER_OP] = { LAB_M_CPU_USER_PER_OP, "cpu_user_ns_per_op", "cpu_user_s", LAB_PER_OP, 1e9, "ns", 1 },
  [LAB_M_CPU_SYS_PER_OP] = { LAB_M_CPU_SYS_PER_OP, "cpu_sys_ns_per_op", "cpu_sys_s", LAB_PER_OP, 1e9, "ns", 1 },
  [LAB_M_VOLCS_PER_OP] = { LAB_M_VOLCS_PER_OP, "vol_ctxsw_per_op", "vol_ctxsw", LAB_PER_OP, 1, "per op", 1 },
  [LAB_M_INVOLCS_PER_OP] = { LAB_M_INVOLCS_PER_OP, "invol_ctxsw_per_op", "invol_ctxsw", LAB_PER_OP, 1, "per op", 1 },
  [LAB_M_LAT_P50] = { LAB_M_LAT_P50, "lat_p50_ns", "lat_p50_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_LAT_P99] = { LAB_M_LAT_P99, "lat_p99_ns", "lat_p99_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_LAT_P999] = { LAB_M_LAT_P999, "lat_p999_ns", "lat_p999_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_LAT_MAX] = { LAB_M_LAT_MAX, "lat_max_ns", "lat_max_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_RSS_OVER_BASE_PER_TASK] = { LAB_M_RSS_OVER_BASE_PER_TASK, "rss_over_baseline_per_task_B", "rss_peak_bytes",
                                     LAB_PER_TASK, 1, "bytes", 1, "rss_baseline_bytes" },
  [LAB_M_CG_OVER_BASE_PER_TASK] = { LAB_M_CG_OVER_BASE_PER_TASK, "cgroup_over_baseline_per_task_B",
                                    "cgroup_mem_peak_bytes", LAB_PER_TASK, 1, "bytes", 1, "cgroup_baseline_bytes" },
  [LAB_M_SPAWN_NS_PER_TASK] = { LAB_M_SPAWN_NS_PER_TASK, "spawn_ns_per_task", "workload.spawn_ns_per_task",
                                LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_START_P50] = { LAB_M_START_P50, "start_lat_p50_ns", "start_lat_p50_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_START_P99] = { LAB_M_START_P99, "start_lat_p99_ns", "start_lat_p99_ns", LAB_PER_NONE, 1, "ns", 1 },
  [LAB_M_SERVER_CPU_PER_REQ] = { LAB_M_SERVER_CPU_PER_REQ, "server_cpu_ns_per_req",
                                 "client_figures.server_cpu_per_req_ns", LAB_PER_NONE, 1, "ns", 1 },
};

/* A number from o[key] (numbers, or strings as summary.csv gives them); -1 when absent or empty. */
static double
num (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  if (o == NULL || !json_object_object_get_ex (o, key, &v) || v == NULL)
    return -1;
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      return *s ? strtod (s, NULL) : -1;
    }
  return json_object_get_double (v);
}

static const char *
str (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  if (o && json_object_object_get_ex (o, key, &v) && v)
    return json_object_get_string (v);
  return "";
}

static int
by_start (const void *a, const void *b)
{
  struct json_object *x = *(struct json_object *const *) a, *y = *(struct json_object *const *) b;
  int c = strcmp (str (x, "started_at"), str (y, "started_at"));
  return c ? c : strcmp (str (x, "id"), str (y, "id"));
}

int
lab_points_load (const char *dir, struct json_object **out, lab_error_t *err)
{
  char path[4096];
  struct dirent **names = NULL;
  struct json_object **arr;
  int n, k = 0;

  snprintf (path, sizeof (path), "%s/points", dir);
  n = scandir (path, &names, NULL, alphasort);
  if (n < 0)
    return lab_usage_error (err, "`%s` is not a results directory (no points/): %s", dir, strerror (errno));
  arr = calloc ((size_t) n + 1, sizeof (*arr));
  for (int i = 0; i < n; i++)
    {
      size_t l = strlen (names[i]->d_name);
      struct json_object *o = NULL;
      if (l > 5 && strcmp (names[i]->d_name + l - 5, ".json") == 0)
        {
          lab_error_t e = NULL;
          snprintf (path, sizeof (path), "%s/points/%s", dir, names[i]->d_name);
          if (lab_json_read (path, &o, &e) == 0)
            arr[k++] = o;
          else
            {
              lab_warn ("point left out of plots and report: %s", e ? e->msg : path);
              lab_error_release (&e);
            }
        }
      free (names[i]);
    }
  free (names);
  qsort (arr, (size_t) k, sizeof (*arr), by_start);
  *out = json_object_new_array ();
  for (int i = 0; i < k; i++)
    json_object_array_add (*out, arr[i]);
  free (arr);
  return 0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
lab_median (double *v, int n)
{
  if (n <= 0)
    return -1;
  qsort (v, (size_t) n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void
lab_stat_of (struct lab_stat *s, double *v, int n)
{
  s->n = n;
  s->med = lab_median (v, n);
  s->min = n ? v[0] : -1;
  s->max = n ? v[n - 1] : -1;
  s->spread_pct = n && s->med > 0 ? 100 * (s->max - s->min) / s->med : 0;
  s->outlier = lab_noise_outlier (v, n, s->med);
}

/* One repeat's value of metric `m`, or -1 when not measured.  A key
   "workload.K" is K of the workload's own report, "client_figures.K" K of
   the point's client figures; others are summary columns. */
static double
metric_value (const struct lab_metric_info *m, struct json_object *point, long n)
{
  struct json_object *s = json_object_object_get (point, "summary");
  double x, div = 1;

  if (strncmp (m->key, "workload.", 9) == 0)
    x = num (json_object_object_get (point, "workload"), m->key + 9);
  else if (strncmp (m->key, "client_figures.", 15) == 0)
    x = num (json_object_object_get (point, "client_figures"), m->key + 15);
  else
    x = num (s, m->key);
  if (x < 0 || !isfinite (x))
    return -1;
  if (m->base)
    {
      double b = num (s, m->base);
      if (b < 0 || b > x)
        return -1; /* no baseline, or one above the peak: not a figure */
      x -= b;
    }
  switch (m->per)
    {
    case LAB_PER_NONE: break;
    case LAB_PER_TASK: div = (double) n; break;
    case LAB_PER_OP: div = num (s, "ops") > 0 ? num (s, "ops") : (double) n; break;
    case LAB_PER_INVERSE:
      if (x <= 0)
        return -1;
      x = 1 / x;
      break;
    }
  if (div <= 0)
    return -1;
  return x / div * m->scale;
}

static int
same_point (struct json_object *p, const char *e, const char *v, long n)
{
  return strcmp (str (p, "experiment"), e) == 0 && strcmp (str (p, "variant"), v) == 0 && (long) num (p, "n") == n;
}

/* The figures of `g` from its ok repeats reps[0..nr). */
static void
agg_fill (struct lab_agg *g, struct json_object **reps, int nr)
{
  double *v = calloc ((size_t) nr + 1, sizeof (double));
  int mid = 0;
  double best = -1;

  for (int m = 0; m < LAB_M__COUNT; m++)
    {
      int k = 0;
      for (int i = 0; i < nr; i++)
        {
          double x = metric_value (&lab_metrics[m], reps[i], g->n);
          if (x >= 0)
            v[k++] = x;
        }
      lab_stat_of (&g->m[m], v, k);
    }
  free (v);
  /* The workload figures quoted in the report come from the repeat whose
     wall time is the median, so they agree with the table. */
  for (int q = 0; q < nr; q++)
    {
      double d = fabs (metric_value (&lab_metrics[LAB_M_WALL], reps[q], g->n) - g->m[LAB_M_WALL].med);
      if (best < 0 || d < best)
        best = d, mid = q;
    }
  g->median_point = reps[mid];
  g->workload = json_object_object_get (reps[mid], "workload");
}

static void
agg_shorthands (struct lab_agg *g)
{
  g->wall_med = g->m[LAB_M_WALL].med;
  g->wall_min = g->m[LAB_M_WALL].min;
  g->wall_max = g->m[LAB_M_WALL].max;
  g->rss_per_task = g->m[LAB_M_RSS_PER_TASK].med;
  g->cg_per_task = g->m[LAB_M_CG_PER_TASK].med;
  g->kernel_per_task = g->m[LAB_M_KERNEL_PER_TASK].med;
  g->ops_per_s = g->m[LAB_M_OPS_PER_S].med;
  g->p50_ns = g->m[LAB_M_LAT_P50].med;
  g->p99_ns = g->m[LAB_M_LAT_P99].med;
}

int
lab_agg_build (struct json_object *points, struct lab_agg **out, int *n_out)
{
  size_t np = json_object_array_length (points);
  struct lab_agg *agg = calloc (np + 1, sizeof (*agg));
  struct json_object **reps = calloc (np + 1, sizeof (*reps));
  int na = 0;

  for (size_t i = 0; i < np; i++)
    {
      struct json_object *p = json_object_array_get_idx (points, i);
      const char *e = str (p, "experiment"), *v = str (p, "variant");
      long n = (long) num (p, "n");
      struct lab_agg *g;
      int nr = 0, seen = 0;

      for (int a = 0; a < na && !seen; a++)
        seen = strcmp (agg[a].experiment, e) == 0 && strcmp (agg[a].variant, v) == 0 && agg[a].n == n;
      if (seen)
        continue;
      g = &agg[na++];
      g->experiment = e;
      g->variant = v;
      g->n = n;
      for (size_t j = i; j < np; j++)
        {
          struct json_object *q = json_object_array_get_idx (points, j);
          if (!same_point (q, e, v, n))
            continue;
          g->n_total++;
          g->status = str (q, "status");
          g->detail = str (q, "detail");
          if (lab_status_is_ok (g->status))
            {
              struct json_object *f = NULL, *cb = NULL;
              reps[nr++] = q;
              if (json_object_object_get_ex (q, "client_figures", &f) && json_object_object_get_ex (f, "client_bound", &cb)
                  && cb)
                {
                  g->n_bound_known++;
                  g->n_client_bound += json_object_get_boolean (cb);
                }
            }
        }
      g->n_ok = nr;
      for (int m = 0; m < LAB_M__COUNT; m++)
        g->m[m] = (struct lab_stat){ -1, -1, -1, 0, 0, -1 };
      if (nr > 0)
        {
          g->status = lab_status_name (LAB_ST_OK);
          g->detail = "";
          agg_fill (g, reps, nr);
        }
      agg_shorthands (g);
    }
  free (reps);
  *out = agg;
  *n_out = na;
  return 0;
}

const struct lab_agg *
lab_agg_find (const struct lab_agg *agg, int n, const char *exp, const char *variant, long at)
{
  const struct lab_agg *best = NULL;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && strcmp (agg[i].variant, variant) == 0
        && (at < 0 ? (best == NULL || agg[i].n > best->n) : agg[i].n == at))
      best = &agg[i];
  return best;
}

long
lab_agg_largest_common (const struct lab_agg *agg, int n, const char *exp, const char *a, const char *b)
{
  long best = -1;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && strcmp (agg[i].variant, a) == 0 && agg[i].n_ok)
      {
        const struct lab_agg *o = lab_agg_find (agg, n, exp, b, agg[i].n);
        if (o && o->n_ok && agg[i].n > best)
          best = agg[i].n;
      }
  return best;
}

double
lab_agg_wnum (const struct lab_agg *g, const char *key)
{
  struct json_object *v = g && g->workload ? json_object_object_get (g->workload, key) : NULL;
  return v ? json_object_get_double (v) : -1;
}

double
lab_agg_cnum (const struct lab_agg *g, const char *key)
{
  struct json_object *f = NULL, *v = NULL;
  if (g && g->median_point && json_object_object_get_ex (g->median_point, "client_figures", &f)
      && json_object_object_get_ex (f, key, &v) && v)
    return json_object_get_double (v);
  return -1;
}

static int
add_name (const char **names, int k, int max, const char *s)
{
  for (int i = 0; i < k; i++)
    if (strcmp (names[i], s) == 0)
      return k;
  if (k < max)
    names[k++] = s;
  return k;
}

int
lab_agg_experiments (const struct lab_agg *agg, int n, const char **names, int max)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    k = add_name (names, k, max, agg[i].experiment);
  return k;
}

int
lab_agg_variants (const struct lab_agg *agg, int n, const char *exp, const char **names, int max)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (exp == NULL || strcmp (agg[i].experiment, exp) == 0)
      k = add_name (names, k, max, agg[i].variant);
  return k;
}

const struct lab_metric_info *
lab_metric_find (const char *name)
{
  for (int m = 0; m < LAB_M__COUNT; m++)
    if (strcmp (lab_metrics[m].name, name) == 0)
      return &lab_metrics[m];
  return NULL;
}
