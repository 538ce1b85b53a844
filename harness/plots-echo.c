/*
 * plots-echo.c - the own plots of `echo` (plot hook, see plot-hooks.h):
 *   echo-latency-n<N>   the open-loop latency distribution of every variant
 *                       at n = N, from the median repeat's points/<id>.hgrm
 *                       (HdrHistogram's percentile-distribution text): x is
 *                       1/(1-p) on a log axis, labelled 50% .. 99.999%;
 *   echo-throughput     closed-loop capacity (requests/s) vs connections,
 *                       median and min-max of the repeats; with
 *                       --opt client=wrk, wrk's figure (the ops_per_s) and
 *                       our generator's on the same server, dashed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot-hooks.h"

static const char *
point_id (const struct lab_agg *g)
{
  struct json_object *v = NULL;
  if (g && g->median_point && json_object_object_get_ex (g->median_point, "id", &v))
    return json_object_get_string (v);
  return NULL;
}

/* .hgrm -> "value_ms percentile inverse" rows (the last, 100%, line has no
   finite inverse and is left out). */
static int
hgrm_to_dat (const char *hgrm, const char *dat)
{
  FILE *in = fopen (hgrm, "re"), *out;
  char line[256];
  int rows = 0;
  if (in == NULL)
    return 0;
  if ((out = fopen (dat, "we")) == NULL)
    {
      fclose (in);
      return -1;
    }
  fprintf (out, "# from %s: latency_ms percentile 1/(1-percentile)\n", hgrm);
  while (fgets (line, sizeof line, in))
    {
      double v, p, inv;
      unsigned long long c;
      if (line[0] == '#' || sscanf (line, "%lf %lf %llu %lf", &v, &p, &c, &inv) != 4)
        continue;
      fprintf (out, "%.6f %.12f %.4f\n", v, p, inv);
      rows++;
    }
  fclose (in);
  fclose (out);
  return rows;
}

static int
latency_plot (const struct lab_plot_ctx *ctx, long n, lab_error_t *err)
{
  static char names[16][128];
  const char *data[17];
  char body[8192], name[64], title[128], path[4300];
  size_t used = (size_t) snprintf (body, sizeof body,
                                   "set xlabel 'percentile'\nset ylabel 'latency from the intended send time (ms)'\n"
                                   "set logscale x\nset logscale y\nset xrange [1:100000]\n"
                                   "set xtics ('0%%%%' 1, '50%%%%' 2, '90%%%%' 10, '99%%%%' 100, '99.9%%%%' 1000, "
                                   "'99.99%%%%' 10000, '99.999%%%%' 100000)\nset key top left\nplot ");
  int nd = 0;
  double rate = -1;
  for (int v = 0; v < ctx->n_run_variants && nd < 16; v++)
    {
      const struct lab_agg *g = lab_agg_find (ctx->agg, ctx->n_agg, ctx->exp, ctx->run_variants[v], n);
      const char *id = point_id (g);
      if (g == NULL || !g->n_ok || id == NULL)
        continue;
      snprintf (path, sizeof path, "%s/points/%s.hgrm", ctx->dir, id);
      snprintf (names[nd], sizeof names[nd], "echo-latency-n%ld-%s.dat", n, ctx->run_variants[v]);
      char dat[4400];
      snprintf (dat, sizeof dat, "%s/plots/%s", ctx->dir, names[nd]);
      int rows = hgrm_to_dat (path, dat);
      if (rows < 0)
        return lab_error (err, errno, "writing `%s`", dat);
      if (rows == 0)
        continue;
      if (rate < 0)
        rate = lab_agg_cnum (g, "rate");
      used += (size_t) snprintf (body + used, used < sizeof body ? sizeof body - used : 0,
                                 "%s'%s' using 3:1 with linespoints pi 6 lw 2%s title '%s'", nd ? ", \\\n     " : "", names[nd],
                                 lab_plot_style (ctx, ctx->run_variants[v]), ctx->run_variants[v]);
      data[nd] = names[nd];
      nd++;
    }
  data[nd] = NULL;
  if (nd == 0)
    return 0;
  snprintf (name, sizeof name, "latency-n%ld", n);
  snprintf (title, sizeof title, "open-loop latency distribution, %ld connections, %.0f requests/s", n, rate);
  return lab_plot_gnuplot (ctx, name, title,
                           "Every request's latency counts from when it was due to be sent (a fixed total rate, "
                           "the same for every variant), so a stall shows here instead of being hidden. Read "
                           "across: the tail the variant gives at each percentile. Lower is better.",
                           body, data, err);
}

static int
throughput_plot (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  static char names[16][128];
  const char *data[17];
  char body[8192];
  size_t used = (size_t) snprintf (body, sizeof body,
                                   "set xlabel 'connections'\nset ylabel 'requests per second (closed loop)'\n"
                                   "set logscale x\nset yrange [0:*]\nset key bottom left\nplot ");
  int nd = 0, bound_titled = 0;
  for (int v = 0; v < ctx->n_run_variants && nd < 16; v++)
    {
      const char *var = ctx->run_variants[v];
      char path[4400];
      int rows = 0, wrk = 0, bound = 0;
      snprintf (names[nd], sizeof names[nd], "echo-throughput-%s.dat", var);
      snprintf (path, sizeof path, "%s/plots/%s", ctx->dir, names[nd]);
      FILE *f = fopen (path, "we");
      if (f == NULL)
        return lab_error (err, errno, "writing `%s`", path);
      fprintf (f, "# %s: n ops_per_s_median min max loadgen_ops_per_s wrk_ops_per_s (median repeat) "
                  "client_bound_ops_per_s (the median where a repeat was client-bound)\n", var);
      for (int i = 0; i < ctx->n_agg; i++)
        {
          const struct lab_agg *g = &ctx->agg[i];
          if (strcmp (g->experiment, ctx->exp) || strcmp (g->variant, var) || !g->n_ok)
            continue;
          const struct lab_stat *s = &g->m[LAB_M_OPS_PER_S];
          double lg = lab_agg_cnum (g, "loadgen_ops_per_s"), w = lab_agg_cnum (g, "wrk_ops_per_s");
          wrk |= w > 0;
          fprintf (f, "%ld %.6g %.6g %.6g %s%.6g %s%.6g %s%.6g\n", g->n, s->med, s->min, s->max, lg > 0 ? "" : "NaN#",
                   lg, w > 0 ? "" : "NaN#", w, g->n_client_bound ? "" : "NaN#", s->med);
          bound |= g->n_client_bound > 0;
          rows++;
        }
      fclose (f);
      if (rows == 0)
        continue;
      const char *st = lab_plot_style (ctx, var);
      used += (size_t) snprintf (body + used, used < sizeof body ? sizeof body - used : 0,
                                 "%s'%s' using 1:2:3:4 with yerrorlines lw 2%s title '%s%s'", nd ? ", \\\n     " : "",
                                 names[nd], st, var, wrk ? " (wrk)" : "");
      if (wrk)
        used += (size_t) snprintf (body + used, used < sizeof body ? sizeof body - used : 0,
                                   ", \\\n     '%s' using 1:5 with linespoints dt 2%s title '%s (wl-loadgen)'",
                                   names[nd], st, var);
      if (bound)
        used += (size_t) snprintf (body + used, used < sizeof body ? sizeof body - used : 0,
                                   ", \\\n     '%s' using 1:7 with points pt 6 ps 2.5 lc rgb 'black' %s", names[nd],
                                   bound_titled++ ? "notitle" : "title 'client-bound: capacity >= this'");
      data[nd] = names[nd];
      nd++;
    }
  data[nd] = NULL;
  if (nd == 0)
    return 0;
  return lab_plot_gnuplot (ctx, "throughput", "capacity vs connections",
                           "Requests answered per second with every connection sending its next request as soon "
                           "as the last was answered, after a warm-up; median of the repeats, bars min-max. "
                           "Circled: a repeat was client-bound (the load generator, not the server, was "
                           "saturated), so the server's capacity is at least that. Higher is better.",
                           body, data, err);
}

int
plot_echo (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  long ns[32];
  int k = 0;
  for (int i = 0; i < ctx->n_agg && k < 32; i++)
    if (strcmp (ctx->agg[i].experiment, ctx->exp) == 0)
      {
        int seen = 0;
        for (int j = 0; j < k; j++)
          seen |= ns[j] == ctx->agg[i].n;
        if (!seen)
          ns[k++] = ctx->agg[i].n;
      }
  for (int j = 0; j < k; j++)
    if (latency_plot (ctx, ns[j], err) < 0)
      return -1;
  return throughput_plot (ctx, err);
}
