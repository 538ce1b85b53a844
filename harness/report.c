/*
 * report.c - DIR/report.md, presented as libaco presents its benchmarks: the
 * environment (date, machine, OS, build flags, exact command) first, bold
 * headline numbers, the claims of shared/CLAIMS.md with the verdicts
 * claims-*.c compute from this run's data, then per experiment a table, the
 * plots listed in plots/plots.json, and the points that did not end ok with
 * their reasons.  Nothing here is a constant: every figure is read from the
 * run's points.  Also the content helpers report-html.c shares (report.h).
 */
#include "report.h"
#include "report-scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "claims.h"
#include "noise.h"
#include "results.h"
#include "report-echo.h"
#include "report-io.h"
#include "status.h"
#include "utils.h"

const char *
lab_report_meta (struct json_object *o, const char *path)
{
  char key[128];
  const char *dot;
  struct json_object *v = o;

  while (v && !json_object_object_get_ex (v, path, NULL) && (dot = strchr (path, '.')))
    {
      snprintf (key, sizeof (key), "%.*s", (int) (dot - path), path);
      v = json_object_object_get (v, key);
      path = dot + 1;
    }
  v = v ? json_object_object_get (v, path) : NULL;
  return v ? json_object_get_string (v) : "?";
}

void
lab_report_env (FILE *f, struct json_object *meta)
{
  struct json_object *argv = json_object_object_get (meta, "argv");
  const char *m = "host.limits.";

  fprintf (f, "date: %s\n", lab_report_meta (meta, "date"));
  fprintf (f, "host: %s, %s cores, %s, %.1f GiB memory, %.1f GiB swap\n", lab_report_meta (meta, "host.hostname"),
           lab_report_meta (meta, "host.cores"), lab_report_meta (meta, "host.cpu_model"),
           atof (lab_report_meta (meta, "host.mem_total_bytes")) / (1 << 30),
           atof (lab_report_meta (meta, "host.swap_total_bytes")) / (1 << 30));
  fprintf (f, "kernel: %s; cgroup %s (backend %s); io_uring %s\n", lab_report_meta (meta, "host.kernel"),
           lab_report_meta (meta, "host.cgroup.mode"), lab_report_meta (meta, "host.cgroup.backend"),
           lab_report_meta (meta, "host.io_uring"));
  {
    struct json_object *host = json_object_object_get (meta, "host");
    struct json_object *lim = host ? json_object_object_get (host, "limits") : NULL;
    (void) m;
    fprintf (f, "limits: pid_max %s, threads-max %s, max_map_count %s, RLIMIT_NPROC %s\n",
             lab_report_meta (lim, "kernel.pid_max"), lab_report_meta (lim, "kernel.threads-max"),
             lab_report_meta (lim, "vm.max_map_count"), lab_report_meta (lim, "RLIMIT_NPROC"));
  }
  lab_report_tune_line (f, meta); /* report-scale.c */
  lab_report_env_state (f, meta);
  fprintf (f, "lab revision %s; build: `%s`\n", lab_report_meta (meta, "lab_revision"),
           lab_report_meta (meta, "build_flags"));
  fprintf (f, "command: `");
  for (size_t i = 0; argv && i < json_object_array_length (argv); i++)
    fprintf (f, "%s%s", i ? " " : "", json_object_get_string (json_object_array_get_idx (argv, i)));
  fprintf (f, "`\n");
}

/* The figure each experiment's headline shows; experiments not listed show wall time. */
static const struct
{
  const char *experiment;
  enum lab_metric metric;
} headlines[] = {
  { "switch", LAB_M_NS_PER_OP },
  { "memory", LAB_M_CG_PER_TASK },
  { "echo", LAB_M_OPS_PER_S }, /* closed-loop capacity */
  { "udp", LAB_M_OPS_PER_S },
  { "wakeup", LAB_M_LAT_P50 },
  { "blocking", LAB_M_LAT_P99 },
};

enum lab_metric
lab_report_headline_metric (const char *exp)
{
  for (size_t i = 0; i < ARRAY_SIZE (headlines); i++)
    if (strcmp (headlines[i].experiment, exp) == 0)
      return headlines[i].metric;
  return LAB_M_WALL;
}

void
lab_report_figure (char *buf, size_t len, enum lab_metric m, double v)
{
  const char *unit = lab_metrics[m].unit;
  if (v < 0)
    snprintf (buf, len, "-");
  else if (strcmp (unit, "bytes") == 0)
    lab_human_bytes (buf, len, v);
  else if (strcmp (unit, "ns") == 0 && v >= 1e6)
    snprintf (buf, len, "%.2f ms", v / 1e6);
  else if (strcmp (unit, "ns") == 0 && v >= 1e4)
    snprintf (buf, len, "%.1f us", v / 1e3);
  else if (strcmp (unit, "ns") == 0)
    snprintf (buf, len, "%.1f ns", v);
  else if (strcmp (unit, "s") == 0)
    snprintf (buf, len, "%.4g s", v);
  else if (strcmp (unit, "1/s") == 0 && v >= 1e6)
    snprintf (buf, len, "%.3f M/s", v / 1e6);
  else if (strcmp (unit, "1/s") == 0 && v >= 1e3)
    snprintf (buf, len, "%.1f K/s", v / 1e3);
  else if (strcmp (unit, "1/s") == 0)
    snprintf (buf, len, "%.0f /s", v);
  else
    snprintf (buf, len, "%.4g %s", v, unit);
}

char *
lab_report_headline_text (const struct lab_agg *agg, int n, const char *exp, long *at)
{
  char *h = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&h, &len);

  *at = -1;
  if (f == NULL)
    return NULL;
  *at = lab_report_headline (f, agg, n, exp);
  if (fclose (f) != 0 || *at < 0)
    {
      free (h);
      *at = -1;
      return NULL;
    }
  return h;
}

long
lab_report_headline (FILE *f, const struct lab_agg *agg, int n, const char *exp)
{
  const struct lab_experiment *e = lab_experiment_find (exp);
  enum lab_metric hm = lab_report_headline_metric (exp);
  long best = -1;
  int first = 1;

  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && agg[i].n_ok && agg[i].n > best)
      best = agg[i].n;
  if (best < 0)
    return -1;
  for (int i = 0; i < n; i++)
    {
      const struct lab_agg *g = &agg[i];
      char a[32], lo[32], hi[32];
      if (strcmp (g->experiment, exp) || g->n != best)
        continue;
      fprintf (f, "%s", first ? "" : ", ");
      first = 0;
      if (!g->n_ok)
        fprintf (f, "%s `%s`", g->variant, g->status);
      else if (e && e->plots == 0)
        fprintf (f, "%s ok", g->variant);
      else
        {
          lab_report_figure (a, sizeof (a), hm, g->m[hm].med);
          lab_report_figure (lo, sizeof (lo), hm, g->m[hm].min);
          lab_report_figure (hi, sizeof (hi), hm, g->m[hm].max);
          fprintf (f, "**%s %s**", g->variant, a);
          if (g->m[hm].n > 1)
            fprintf (f, " (%s-%s)", lo, hi);
        }
    }
  return best;
}

void
lab_report_table_header (const char *exp, const char *c[LAB_REPORT_NCOLS])
{
  const struct lab_experiment *e = lab_experiment_find (exp);
  int per_task = e && (e->plots & LAB_PLOT_MEM_PER_TASK);
  static const char *const h[LAB_REPORT_NCOLS] = { "variant", "n", "status", "ok/runs", "wall (median, min-max)",
                                                   "RSS peak", "cgroup peak", "kernel", "ops/s", "p99 latency" };
  for (int i = 0; i < LAB_REPORT_NCOLS; i++)
    c[i] = h[i];
  if (per_task)
    c[5] = "RSS/task (over baseline)", c[6] = "cgroup/task (over baseline)", c[7] = "kernel/task";
}

void
lab_report_table_row (const struct lab_agg *g, char c[LAB_REPORT_NCOLS][64])
{
  const struct lab_experiment *e = lab_experiment_find (g->experiment);
  int per_task = e && (e->plots & LAB_PLOT_MEM_PER_TASK);
  const struct lab_stat *w = &g->m[LAB_M_WALL];

  snprintf (c[0], 64, "%s", g->variant);
  snprintf (c[1], 64, "%ld", g->n);
  snprintf (c[2], 64, "%s", g->status);
  snprintf (c[3], 64, "%d/%d", g->n_ok, g->n_total);
  if (w->n > 1)
    snprintf (c[4], 64, "%.4f s (%.4f-%.4f)", w->med, w->min, w->max);
  else if (w->n == 1)
    snprintf (c[4], 64, "%.4f s", w->med);
  else
    snprintf (c[4], 64, "-");
  lab_report_figure (c[5], 64, LAB_M_RSS_PEAK, g->m[per_task ? LAB_M_RSS_PER_TASK : LAB_M_RSS_PEAK].med);
  lab_report_figure (c[6], 64, LAB_M_CG_PEAK, g->m[per_task ? LAB_M_CG_PER_TASK : LAB_M_CG_PEAK].med);
  if (per_task)
    {
      /* peak / n, and (peak - the workload's baseline) / n beside it */
      char o[32];
      lab_report_figure (o, sizeof o, LAB_M_RSS_PEAK, g->m[LAB_M_RSS_OVER_BASE_PER_TASK].med);
      snprintf (c[5] + strlen (c[5]), 64 - strlen (c[5]), " (%s)", o);
      lab_report_figure (o, sizeof o, LAB_M_CG_PEAK, g->m[LAB_M_CG_OVER_BASE_PER_TASK].med);
      snprintf (c[6] + strlen (c[6]), 64 - strlen (c[6]), " (%s)", o);
    }
  lab_report_figure (c[7], 64, LAB_M_KERNEL, g->m[per_task ? LAB_M_KERNEL_PER_TASK : LAB_M_KERNEL].med);
  lab_report_figure (c[8], 64, LAB_M_OPS_PER_S, g->ops_per_s > 0 ? g->ops_per_s : -1);
  lab_report_figure (c[9], 64, LAB_M_LAT_P99, g->p99_ns);
}

struct json_object *
lab_report_manifest (const char *dir)
{
  char path[4096];
  struct json_object *top = NULL, *m = NULL;

  snprintf (path, sizeof (path), "%s/plots/plots.json", dir);
  if (lab_json_read (path, &top, NULL) == 0 && json_object_object_get_ex (top, "plots", &m)
      && json_object_is_type (m, json_type_array))
    json_object_get (m);
  else
    m = json_object_new_array ();
  json_object_put (top);
  return m;
}

static void
md_table (FILE *f, const char *exp, const struct lab_agg *agg, int n)
{
  const char *h[LAB_REPORT_NCOLS];
  char c[LAB_REPORT_NCOLS][64];

  lab_report_table_header (exp, h);
  for (int i = 0; i < LAB_REPORT_NCOLS; i++)
    fprintf (f, "| %s ", h[i]);
  fprintf (f, "|\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n; i++)
    {
      if (strcmp (agg[i].experiment, exp))
        continue;
      lab_report_table_row (&agg[i], c);
      for (int k = 0; k < LAB_REPORT_NCOLS; k++)
        fprintf (f, "| %s ", c[k]);
      fprintf (f, "|\n");
    }
  fprintf (f, "\n");
}

static void
md_plots (FILE *f, struct json_object *manifest, const char *exp)
{
  for (size_t i = 0; i < json_object_array_length (manifest); i++)
    {
      struct json_object *p = json_object_array_get_idx (manifest, i);
      const char *stem = lab_report_meta (p, "stem");
      if (strcmp (lab_report_meta (p, "experiment"), exp))
        continue;
      fprintf (f, "![%s](plots/%s.png)\n\n%s ([SVG](plots/%s.svg), [script](plots/%s.gp))\n\n",
               lab_report_meta (p, "title"), stem, lab_report_meta (p, "how"), stem, stem);
    }
}

int
lab_report_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n, lab_error_t *err)
{
  char *buf = NULL, *env = NULL, path[4096];
  size_t len = 0, elen = 0;
  FILE *f = open_memstream (&buf, &len), *ef = open_memstream (&env, &elen);
  const char *exps[32];
  int n_exps = lab_agg_experiments (agg, n, exps, 32), ret;
  struct json_object *manifest = lab_report_manifest (dir);

  lab_report_env (ef, meta);
  fclose (ef);
  fprintf (f, "# Lab report\n\n");
  for (char *line = strtok (env, "\n"); line; line = strtok (NULL, "\n"))
    fprintf (f, "- %s\n", line);
  free (env);
  fprintf (f, "- raw data: [summary.csv](summary.csv), one JSON per point in points/, environment in meta.json; "
              "the same report with plots inline: [report.html](report.html)\n\n");
  fprintf (f, "## Headlines\n\n");
  for (int e = 0; e < n_exps; e++)
    {
      long at;
      char *h = lab_report_headline_text (agg, n, exps[e], &at);
      if (h)
        fprintf (f, "- %s at n=%ld: %s\n", exps[e], at, h);
      free (h);
    }
  fprintf (f, "\n## Published claims (shared/CLAIMS.md), re-measured here\n\n");
  for (const struct lab_claim *c = lab_claims; c->id; c++)
    {
      enum lab_verdict v;
      char *t = lab_claim_text (c, agg, n, &v);
      fprintf (f, "- **%s** (%s): **%s**. %s\n", c->id, c->published, lab_verdict_name (v), t ? t : "(out of memory)");
      free (t);
    }
  for (int e = 0; e < n_exps; e++)
    {
      fprintf (f, "\n## %s\n\n", exps[e]);
      md_table (f, exps[e], agg, n);
      lab_report_io_section (f, exps[e], agg, n);
      lab_report_echo_section (f, exps[e], agg, n); /* claims-echo.c */
      md_plots (f, manifest, exps[e]);
      lab_report_scale (f, dir, exps[e]); /* memory: kernel part per task; pressure: swap (report-scale.c) */
      for (int i = 0; i < n; i++)
        if (strcmp (agg[i].experiment, exps[e]) == 0 && agg[i].n_ok < agg[i].n_total)
          fprintf (f, "- %s n=%ld: %d of %d runs ended `%s`: %s\n", agg[i].variant, agg[i].n,
                   agg[i].n_total - agg[i].n_ok, agg[i].n_total, agg[i].n_ok ? "not ok" : agg[i].status,
                   agg[i].detail);
      lab_noise_report (f, agg, n, exps[e], lab_report_headline_metric (exps[e]));
    }
  fprintf (f, "\n## Statuses\n\n");
  for (int s = 0; s < LAB_ST__COUNT; s++)
    fprintf (f, "- `%s`: %s\n", lab_statuses[s].name, lab_statuses[s].meaning);
  fclose (f);
  json_object_put (manifest);
  snprintf (path, sizeof (path), "%s/report.md", dir);
  ret = lab_write_file_atomic (path, buf, len, err);
  free (buf);
  return ret;
}
