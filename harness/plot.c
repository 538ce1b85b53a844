/*
 * plot.c - draws a run's aggregates with gnuplot (see plot.h).
 *
 * Data: plots/<exp>-<variant>.dat, one row per n with, for every figure of
 * lab_metrics[] (aggregate.c), its median, min and max over the ok repeats
 * (the header names the columns; "NaN" where not measured, which gnuplot
 * skips).  Each generic plot below is a spec: which figures it draws (one
 * dash type each), its y label with the unit, a divisor for the unit, and a
 * sentence on how to read it.  Every .gp writes a PNG and an SVG.
 */
#include "plot.h"
#include "out-file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "plot-hooks.h"
#include "signals.h"
#include "utils.h"

/* Okabe-Ito colours (readable with colour blindness) and filled markers. */
static const char *const colours[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                       "#E69F00", "#56B4E9", "#000000", "#999999" };
static const int markers[] = { 7, 5, 9, 11, 13, 15, 4, 6 };
#define N_STYLES (int) ARRAY_SIZE (colours)

static int
variant_index (const char *const *vs, int n, const char *variant)
{
  for (int i = 0; i < n; i++)
    if (strcmp (vs[i], variant) == 0)
      return i;
  return n;
}

const char *
lab_plot_colour (const char *const *run_variants, int n, const char *variant)
{
  return colours[variant_index (run_variants, n, variant) % N_STYLES];
}

const char *
lab_plot_style (const struct lab_plot_ctx *ctx, const char *variant)
{
  static char buf[64];
  int i = variant_index (ctx->run_variants, ctx->n_run_variants, variant) % N_STYLES;
  snprintf (buf, sizeof (buf), " lc rgb '%s' pt %d ps 1.2", colours[i], markers[i]);
  return buf;
}

struct line
{
  enum lab_metric metric;
  const char *label; /* appended to the variant's name in the key */
};

struct spec
{
  const char *name, *title, *ylabel;
  unsigned when;   /* LAB_PLOT_* bit; 0 = wherever the figures were measured */
  double div;      /* values are divided by this for the axis' unit */
  const char *how; /* how to read it */
  struct line lines[5];
};

static const struct spec specs[] = {
  { "wall", "wall time vs n", "wall time (s)", LAB_PLOT_WALL, 1,
    "Wall time of the whole point (log-log where it spans decades). Lower is better; a line that stops early "
    "hit a host limit (the notes below the table name it).",
    { { LAB_M_WALL, "" }, { LAB_M__COUNT, NULL } } },
  { "mem", "peak memory vs n", "peak memory (MiB)", LAB_PLOT_MEM, 1 << 20,
    "Peak memory of the whole run: cgroup peak (solid; includes kernel memory such as thread stacks and page "
    "tables), RSS peak (dashed), the kernel part (dotted). Tasks come and go, so this is not per task.",
    { { LAB_M_CG_PEAK, " cgroup peak" }, { LAB_M_RSS_PEAK, " RSS peak" }, { LAB_M_KERNEL, " kernel" },
      { LAB_M__COUNT, NULL } } },
  { "mem-per-task", "memory per task vs n", "memory per task (KiB)", LAB_PLOT_MEM_PER_TASK, 1024,
    "Peak / n where all n tasks are alive at once: cgroup (solid, includes kernel stacks), RSS (dashed), kernel "
    "(dotted). Small n carries the process's fixed baseline, so read the largest n.",
    { { LAB_M_CG_PER_TASK, " cgroup" }, { LAB_M_RSS_PER_TASK, " RSS" }, { LAB_M_KERNEL_PER_TASK, " kernel" },
      { LAB_M__COUNT, NULL } } },
  { "ns-per-op", "time per operation vs n", "time per operation (ns)", LAB_PLOT_NS_PER_OP, 1,
    "Nanoseconds per operation (1 / the workload's ops per second). Lower is better.",
    { { LAB_M_NS_PER_OP, "" }, { LAB_M__COUNT, NULL } } },
  { "cpu", "CPU time per operation: user vs system", "CPU time per operation (ns)", 0, 1,
    "CPU time of the sandbox (rusage) divided by the operations: user (solid) and system (dashed). Where system "
    "time dominates, the kernel does the work (thread creation, futex waits).",
    { { LAB_M_CPU_USER_PER_OP, " user" }, { LAB_M_CPU_SYS_PER_OP, " system" }, { LAB_M__COUNT, NULL } } },
  { "ctxsw", "context switches per operation", "context switches per operation", 0, 1,
    "Kernel context switches (rusage) per operation: voluntary (solid; the task blocked) and involuntary "
    "(dashed; preempted). A user-space switch costs none, so coroutines sit near zero.",
    { { LAB_M_VOLCS_PER_OP, " voluntary" }, { LAB_M_INVOLCS_PER_OP, " involuntary" }, { LAB_M__COUNT, NULL } } },
  { "latency", "latency percentiles vs n", "latency (us)", 0, 1000,
    "Per-operation latency reported by the workload: median (p50, solid) and p99 (dashed) against n. The gap "
    "between them is the tail; the percentiles plot shows p99.9 and the maximum too.",
    { { LAB_M_LAT_P50, " p50" }, { LAB_M_LAT_P99, " p99" }, { LAB_M__COUNT, NULL } } },
};

static int
is_exp (const struct lab_agg *g, const char *exp)
{
  return strcmp (g->experiment, exp) == 0 && g->n_ok > 0;
}

static void
dat_value (FILE *f, double v)
{
  if (v < 0 || !isfinite (v))
    fputs (" NaN", f);
  else
    fprintf (f, " %.9g", v);
}

/* plots/<exp>-<variant>.dat for every variant of the experiment with an ok point. */
static int
write_dat (const struct lab_plot_ctx *ctx, const char *variant, lab_error_t *err)
{
  char path[4096];
  FILE *f;

  snprintf (path, sizeof (path), "%s/plots/%s-%s.dat", ctx->dir, ctx->exp, variant);
  f = lab_out_open (path, err);
  if (f == NULL)
    return -1;
  fprintf (f, "# %s %s: one row per n; for each figure its median, min and max over the ok repeats\n# n", ctx->exp,
           variant);
  for (int m = 0; m < LAB_M__COUNT; m++)
    fprintf (f, " %s %s_min %s_max", lab_metrics[m].name, lab_metrics[m].name, lab_metrics[m].name);
  fputc ('\n', f);
  for (int a = 0; a < ctx->n_agg; a++)
    {
      const struct lab_agg *g = &ctx->agg[a];
      if (!is_exp (g, ctx->exp) || strcmp (g->variant, variant))
        continue;
      fprintf (f, "%ld", g->n);
      for (int m = 0; m < LAB_M__COUNT; m++)
        {
          dat_value (f, g->m[m].med);
          dat_value (f, g->m[m].min);
          dat_value (f, g->m[m].max);
        }
      fputc ('\n', f);
    }
  return lab_out_close (f, err);
}

static int
run_gnuplot (const char *pdir, const char *script, lab_error_t *err)
{
  char *argv[] = { (char *) "gnuplot", (char *) script, NULL };
  int status;
  pid_t pid = fork ();

  if (pid < 0)
    return lab_error (err, errno, "fork for gnuplot");
  if (pid == 0)
    {
      /* gnuplot's warnings (e.g. an empty range for a single point) go to
         plots/gnuplot.log, not the user's terminal; on failure we say where. */
      int fd;
      if (chdir (pdir) < 0)
        _exit (127);
      fd = open ("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0)
        dup2 (fd, 2);
      lab_signals_child_reset ();
      execvp ("gnuplot", argv);
      fprintf (stderr, "lab: cannot run gnuplot (install gnuplot-nox, or `make deps`): %s\n", strerror (errno));
      _exit (127);
    }
  if (waitpid (pid, &status, 0) < 0)
    return lab_error (err, errno, "waiting for gnuplot");
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return lab_error (err, 0, "gnuplot failed on `%s/%s` (see plots/gnuplot.log)", pdir, script);
  return 0;
}

int
lab_plot_gnuplot (const struct lab_plot_ctx *ctx, const char *name, const char *title, const char *how,
                  const char *body, const char *const *data, lab_error_t *err)
{
  char gp[4096], pdir[4096], stem[512];
  struct json_object *o, *d;
  FILE *f;

  snprintf (stem, sizeof (stem), "%s-%s", ctx->exp, name);
  snprintf (pdir, sizeof (pdir), "%s/plots", ctx->dir);
  snprintf (gp, sizeof (gp), "%s/%s.gp", pdir, stem);
  f = lab_out_open (gp, err);
  if (f == NULL)
    return -1;
  fprintf (f, "# %s: %s\n# Re-run inside plots/ with `gnuplot %s.gp`: writes %s.png and %s.svg.\n", ctx->exp, title,
           stem, stem, stem);
  fprintf (f, "set termoption noenhanced\nset title \"%s: %s\"\nset grid\nset key outside right top\n"
              "set datafile missing 'NaN'\nset bars small\n",
           ctx->exp, title);
  fprintf (f, "set terminal pngcairo size 900,540 font 'sans,10' noenhanced\nset output '%s.png'\n", stem);
  fprintf (f, "%s\n", body);
  fprintf (f, "set terminal svg size 900,540 font 'sans,10' noenhanced background '#ffffff'\nset output '%s.svg'\n"
              "replot\nunset output\n",
           stem);
  if (lab_out_close (f, err) < 0)
    return -1;
  snprintf (gp, sizeof (gp), "%s.gp", stem);
  if (run_gnuplot (pdir, gp, err) < 0)
    return -1;
  {
    /* gnuplot exits 0 even when the disk filled under it. */
    char png[4200], svg[4200];
    snprintf (png, sizeof (png), "%s/%s.png", pdir, stem);
    snprintf (svg, sizeof (svg), "%s/%s.svg", pdir, stem);
    if (lab_out_check_image (png, err) < 0)
      {
        unlink (svg); /* written after the PNG: cut too, or never */
        return -1;
      }
    if (lab_out_check_image (svg, err) < 0)
      return -1;
  }
  o = json_object_new_object ();
  json_object_object_add (o, "experiment", json_object_new_string (ctx->exp));
  json_object_object_add (o, "name", json_object_new_string (name));
  json_object_object_add (o, "title", json_object_new_string (title));
  json_object_object_add (o, "how", json_object_new_string (how ? how : ""));
  json_object_object_add (o, "stem", json_object_new_string (stem));
  d = json_object_new_array ();
  for (int i = 0; data && data[i]; i++)
    json_object_array_add (d, json_object_new_string (data[i]));
  json_object_object_add (o, "data", d);
  json_object_array_add (ctx->manifest, o);
  return 0;
}

/* The range of the plotted medians (after `div`); 0 when nothing is measured. */
static int
value_range (const struct lab_plot_ctx *ctx, const struct spec *s, double *lo, double *hi)
{
  int any = 0;
  for (int a = 0; a < ctx->n_agg; a++)
    for (int l = 0; s->lines[l].label; l++)
      {
        const struct lab_stat *st = &ctx->agg[a].m[s->lines[l].metric];
        if (!is_exp (&ctx->agg[a], ctx->exp) || st->n == 0)
          continue;
        if (!any || st->min < *lo)
          *lo = st->min;
        if (!any || st->max > *hi)
          *hi = st->max;
        any = 1;
      }
  return any;
}

static const char *const dashes[] = { "dt 1", "dt 2", "dt 3", "dt 4", "dt 5" };

static int
plot_spec (const struct lab_plot_ctx *ctx, const struct spec *s, const char **vs, int nv, long min_n, long max_n,
           lab_error_t *err)
{
  const struct lab_experiment *e = lab_experiment_find (ctx->exp);
  const char *data[17];
  char *body = NULL;
  size_t len = 0;
  double lo = 0, hi = 0;
  int logy, ret, first = 1, nd = 0;
  FILE *f;

  if (!value_range (ctx, s, &lo, &hi))
    return 0;
  /* Log y where the values span decades (and none is zero, which a log axis cannot show). */
  logy = lo > 0 && hi / lo > 30;
  f = open_memstream (&body, &len);
  fprintf (f, "set xlabel 'n (%s, log scale)'\nset ylabel \"%s%s\"\nset logscale x\nset format x '%%.0f'\n",
           e ? e->n_means : "n", s->ylabel, logy ? ", log scale" : "");
  fprintf (f, "set xrange [%g:%g]\n", min_n / 1.6, max_n * 1.6);
  if (logy)
    fprintf (f, "set logscale y\nset format y '%%g'\n");
  else
    fprintf (f, "set yrange [0:*]\n");
  fprintf (f, "plot ");
  for (int v = 0; v < nv; v++)
    for (int l = 0; s->lines[l].label; l++)
      {
        int c = 2 + 3 * (int) s->lines[l].metric;
        fprintf (f, "%s'%s-%s.dat' using 1:($%d/%g):($%d/%g):($%d/%g) with yerrorlines %s%s title '%s%s'",
                 first ? "" : ", \\\n     ", ctx->exp, vs[v], c, s->div, c + 1, s->div, c + 2, s->div, dashes[l],
                 lab_plot_style (ctx, vs[v]), vs[v], s->lines[l].label);
        first = 0;
      }
  fprintf (f, "\n");
  fclose (f);
  for (int v = 0; v < nv && nd < 16; v++)
    {
      static char names[16][256];
      snprintf (names[nd], sizeof (names[nd]), "%s-%s.dat", ctx->exp, vs[v]);
      data[nd] = names[nd];
      nd++;
    }
  data[nd] = NULL;
  ret = lab_plot_gnuplot (ctx, s->name, s->title, s->how, body, data, err);
  free (body);
  return ret;
}

/* Latency percentiles at each variant's largest ok n with latencies: x is
   1 / (1 - percentile) on a log axis (p50 at 2, p99 at 100, p99.9 at 1000,
   max drawn at 10000), as HdrHistogram plots them; data in
   plots/<exp>-<variant>-percentiles.dat. */
static int
plot_percentiles (const struct lab_plot_ctx *ctx, const char **vs, int nv, lab_error_t *err)
{
  static const struct
  {
    enum lab_metric m;
    double x;
    const char *label;
  } pct[] = { { LAB_M_LAT_P50, 2, "p50" }, { LAB_M_LAT_P99, 100, "p99" }, { LAB_M_LAT_P999, 1000, "p99.9" },
              { LAB_M_LAT_MAX, 10000, "max" } };
  static char names[16][256];
  const char *data[17];
  char *body = NULL;
  size_t len = 0;
  int nd = 0, ret;
  FILE *f;

  for (int v = 0; v < nv && nd < 16; v++)
    {
      const struct lab_agg *best = NULL;
      char path[4096];
      FILE *d;
      for (int a = 0; a < ctx->n_agg; a++)
        if (is_exp (&ctx->agg[a], ctx->exp) && strcmp (ctx->agg[a].variant, vs[v]) == 0
            && ctx->agg[a].m[LAB_M_LAT_P50].n > 0 && (!best || ctx->agg[a].n > best->n))
          best = &ctx->agg[a];
      if (!best)
        continue;
      snprintf (names[nd], sizeof (names[nd]), "%s-%s-percentiles.dat", ctx->exp, vs[v]);
      snprintf (path, sizeof (path), "%s/plots/%s", ctx->dir, names[nd]);
      if ((d = fopen (path, "we")) == NULL)
        return lab_error (err, errno, "writing `%s`", path);
      fprintf (d, "# %s %s at n=%ld: x = 1/(1-percentile), latency median min max (ns) over the ok repeats\n",
               ctx->exp, vs[v], best->n);
      for (size_t i = 0; i < ARRAY_SIZE (pct); i++)
        {
          fprintf (d, "%g %s", pct[i].x, pct[i].label);
          dat_value (d, best->m[pct[i].m].med);
          dat_value (d, best->m[pct[i].m].min);
          dat_value (d, best->m[pct[i].m].max);
          fputc ('\n', d);
        }
      if (fclose (d) != 0)
        return lab_error (err, errno, "writing `%s`", path);
      data[nd] = names[nd];
      nd++;
    }
  if (nd == 0)
    return 0;
  data[nd] = NULL;
  f = open_memstream (&body, &len);
  fprintf (f, "set xlabel 'percentile (log scale of 1/(1-p))'\nset ylabel 'latency (us), log scale'\n"
              "set logscale xy\nset format y '%%g'\nset xrange [1.4:14000]\n"
              "set xtics ('p50' 2, 'p90' 10, 'p99' 100, 'p99.9' 1000, 'max' 10000)\nplot ");
  for (int i = 0; i < nd; i++)
    {
      const char *variant = data[i] + strlen (ctx->exp) + 1;
      int vl = (int) (strlen (variant) - strlen ("-percentiles.dat"));
      char vname[128];
      snprintf (vname, sizeof (vname), "%.*s", vl, variant);
      fprintf (f, "%s'%s' using 1:($3/1000):($4/1000):($5/1000) with yerrorlines%s title '%s'", i ? ", \\\n     " : "",
               data[i], lab_plot_style (ctx, vname), vname);
    }
  fprintf (f, "\n");
  fclose (f);
  ret = lab_plot_gnuplot (ctx, "percentiles", "latency percentiles at the largest n",
                          "Latency at p50, p99, p99.9 and the maximum, at each variant's largest n that has "
                          "latencies; the x axis stretches the tail (1/(1-p)), so a flat line means no tail and a "
                          "line that climbs to the right is a tail of slow operations.",
                          body, data, err);
  free (body);
  return ret;
}

int
lab_plot_experiment (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  const struct lab_experiment *e = lab_experiment_find (ctx->exp);
  unsigned plots = e ? e->plots : LAB_PLOT_WALL | LAB_PLOT_MEM;
  const char *vs[16];
  int nv = 0;
  long min_n = -1, max_n = -1;

  if (plots == 0)
    return 0;
  for (int a = 0; a < ctx->n_agg; a++)
    if (is_exp (&ctx->agg[a], ctx->exp))
      {
        int seen = 0;
        for (int v = 0; v < nv; v++)
          seen |= strcmp (vs[v], ctx->agg[a].variant) == 0;
        if (!seen && nv < 16)
          vs[nv++] = ctx->agg[a].variant;
        if (min_n < 0 || ctx->agg[a].n < min_n)
          min_n = ctx->agg[a].n;
        if (ctx->agg[a].n > max_n)
          max_n = ctx->agg[a].n;
      }
  if (nv == 0)
    return 0;
  for (int v = 0; v < nv; v++)
    if (write_dat (ctx, vs[v], err) < 0)
      return -1;
  for (size_t s = 0; s < ARRAY_SIZE (specs); s++)
    if ((specs[s].when == 0 || (plots & specs[s].when)) && plot_spec (ctx, &specs[s], vs, nv, min_n, max_n, err) < 0)
      return -1;
  if (plot_percentiles (ctx, vs, nv, err) < 0)
    return -1;
  for (const struct lab_plot_hook *h = lab_plot_hooks; h->experiment; h++)
    if (strcmp (h->experiment, ctx->exp) == 0 && h->plot (ctx, err) < 0)
      return -1;
  return 0;
}

int
lab_have_gnuplot (void)
{
  const char *path = getenv ("PATH");
  char buf[4096];

  for (const char *p = path ? path : "/usr/bin:/bin"; *p;)
    {
      size_t l = strcspn (p, ":");
      snprintf (buf, sizeof (buf), "%.*s/gnuplot", (int) l, p);
      if (access (buf, X_OK) == 0)
        return 1;
      p += l + (p[l] == ':');
    }
  return 0;
}
