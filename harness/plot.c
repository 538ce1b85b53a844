/*
 * plot.c - aggregates a run's points and draws them with gnuplot (see plot.h).
 *
 * For each experiment, per variant, one data file plots/<exp>-<variant>.dat:
 *   n  wall_median wall_min wall_max  rss/task cgroup/task kernel/task  ns_per_op
 *   rss_peak cgroup_peak kernel
 * (only ok repeats; "NaN" where not measured, which gnuplot skips), then:
 *   plots/<exp>-wall.png          wall time vs n, log-log, min-max error bars
 *   plots/<exp>-mem.png           cgroup memory peak, RSS peak and kernel memory vs n
 *   plots/<exp>-mem-per-task.png  the same divided by n (where all n tasks live at once)
 *   plots/<exp>-ns-per-op.png     ns per operation vs n (switch)
 * Which of these an experiment gets is its catalog entry's `plots`.
 * Each .png has its .gp script beside it, so a user can restyle and re-run it.
 */
#include "plot.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "catalog.h"
#include "results.h"
#include "signals.h"
#include "utils.h"

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
          snprintf (path, sizeof (path), "%s/points/%s", dir, names[i]->d_name);
          lab_error_t e = NULL;
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

/* Median of the ok repeats' values of `key` (in the summary). */
static double
median_of (struct json_object **reps, int n, const char *key, double div)
{
  double v[1024];
  int k = 0;
  for (int i = 0; i < n && k < 1024; i++)
    {
      double x = num (json_object_object_get (reps[i], "summary"), key);
      if (x >= 0)
        v[k++] = x / div;
    }
  if (k == 0)
    return -1;
  qsort (v, (size_t) k, sizeof (double), cmp_double);
  return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
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
      int found = 0;

      for (int a = 0; a < na; a++)
        if (strcmp (agg[a].experiment, e) == 0 && strcmp (agg[a].variant, v) == 0 && agg[a].n == n)
          found = 1;
      if (found)
        continue;
      {
        struct lab_agg *g = &agg[na++];
        int nr = 0, nok = 0;
        double walls[1024];
        g->experiment = e;
        g->variant = v;
        g->n = n;
        for (size_t j = i; j < np; j++)
          {
            struct json_object *q = json_object_array_get_idx (points, j);
            if (strcmp (str (q, "experiment"), e) || strcmp (str (q, "variant"), v) || (long) num (q, "n") != n)
              continue;
            g->n_total++;
            g->status = str (q, "status");
            g->detail = str (q, "detail");
            if (strcmp (g->status, "ok") == 0)
              {
                reps[nr++] = q;
                if (nok < 1024)
                  walls[nok++] = num (json_object_object_get (q, "summary"), "wall_s");
              }
          }
        g->n_ok = nr;
        g->wall_med = g->wall_min = g->wall_max = -1;
        g->rss_per_task = g->cg_per_task = g->kernel_per_task = g->ops_per_s = g->p50_ns = g->p99_ns = -1;
        if (nr == 0)
          continue;
        g->status = "ok";
        g->detail = "";
        qsort (walls, (size_t) nok, sizeof (double), cmp_double);
        g->wall_min = walls[0];
        g->wall_max = walls[nok - 1];
        g->wall_med = median_of (reps, nr, "wall_s", 1);
        g->rss_per_task = median_of (reps, nr, "rss_peak_bytes", (double) n);
        g->cg_per_task = median_of (reps, nr, "cgroup_mem_peak_bytes", (double) n);
        g->kernel_per_task = median_of (reps, nr, "kernel_mem_bytes", (double) n);
        g->ops_per_s = median_of (reps, nr, "ops_per_s", 1);
        g->p50_ns = median_of (reps, nr, "lat_p50_ns", 1);
        g->p99_ns = median_of (reps, nr, "lat_p99_ns", 1);
        /* The workload figures quoted in the report come from the repeat
           whose wall time is the median, so they agree with the table. */
        {
          int mid = 0;
          double best = -1;
          for (int q = 0; q < nr; q++)
            {
              double d = fabs (num (json_object_object_get (reps[q], "summary"), "wall_s") - g->wall_med);
              if (best < 0 || d < best)
                best = d, mid = q;
            }
          g->workload = json_object_object_get (reps[mid], "workload");
        }
      }
    }
  free (reps);
  *out = agg;
  *n_out = na;
  return 0;
}

static void
dat_value (FILE *f, double v)
{
  if (v < 0 || !isfinite (v))
    fputs (" NaN", f);
  else
    fprintf (f, " %.9g", v);
}

/* Writes plots/<exp>-<variant>.dat for every variant of `exp`; returns how many have data. */
static int
write_dat (const char *dir, const char *exp, const struct lab_agg *agg, int n_agg, const char **variants,
           int *n_var)
{
  int with_data = 0;
  *n_var = 0;
  for (int a = 0; a < n_agg; a++)
    {
      int seen = 0;
      if (strcmp (agg[a].experiment, exp))
        continue;
      for (int v = 0; v < *n_var; v++)
        seen |= strcmp (variants[v], agg[a].variant) == 0;
      if (!seen && *n_var < 16)
        variants[(*n_var)++] = agg[a].variant;
    }
  for (int v = 0; v < *n_var; v++)
    {
      char path[4096];
      FILE *f;
      int rows = 0;
      snprintf (path, sizeof (path), "%s/plots/%s-%s.dat", dir, exp, variants[v]);
      f = fopen (path, "we");
      if (f == NULL)
        continue;
      fprintf (f, "# n wall_median_s wall_min_s wall_max_s rss_per_task_B cgroup_per_task_B kernel_per_task_B ns_per_op "
                 "rss_peak_B cgroup_peak_B kernel_B\n");
      for (int a = 0; a < n_agg; a++)
        {
          const struct lab_agg *g = &agg[a];
          if (strcmp (g->experiment, exp) || strcmp (g->variant, variants[v]) || g->n_ok == 0)
            continue;
          fprintf (f, "%ld", g->n);
          dat_value (f, g->wall_med);
          dat_value (f, g->wall_min);
          dat_value (f, g->wall_max);
          dat_value (f, g->rss_per_task);
          dat_value (f, g->cg_per_task);
          dat_value (f, g->kernel_per_task);
          dat_value (f, g->ops_per_s > 0 ? 1e9 / g->ops_per_s : -1);
          dat_value (f, g->rss_per_task >= 0 ? g->rss_per_task * (double) g->n : -1);
          dat_value (f, g->cg_per_task >= 0 ? g->cg_per_task * (double) g->n : -1);
          dat_value (f, g->kernel_per_task >= 0 ? g->kernel_per_task * (double) g->n : -1);
          fputc ('\n', f);
          rows++;
        }
      fclose (f);
      if (rows > 0) /* only variants with data get a line */
        variants[with_data++] = variants[v];
    }
  *n_var = with_data;
  return with_data;
}

static int
run_gnuplot (const char *script, lab_error_t *err)
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
      int fd = open ("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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
    return lab_error (err, 0, "gnuplot failed on `%s` (see plots/gnuplot.log)", script);
  return 0;
}

/* One plot: `ycol` of each variant's .dat against n. */
static int
plot_one (const char *dir, const char *exp, const char *xrange, const char *name, const char *title, const char *ylabel, int logy,
          const char *const *using, const char **variants, int n_var, lab_error_t *err)
{
  char gp[4096];
  FILE *f;

  snprintf (gp, sizeof (gp), "%s/plots/%s-%s.gp", dir, exp, name);
  f = fopen (gp, "we");
  if (f == NULL)
    return lab_error (err, errno, "writing `%s`", gp);
  fprintf (f, "# %s: re-run with `gnuplot %s-%s.gp` inside plots/\n", title, exp, name);
  fprintf (f, "set terminal pngcairo size 900,560 font 'sans,10'\nset output '%s-%s.png'\n", exp, name);
  {
    const struct lab_experiment *e = lab_experiment_find (exp);
    fprintf (f, "set title \"%s: %s\"\nset xlabel 'n (%s)'\nset ylabel \"%s\"\nset logscale x\n%s\n", exp, title,
             e ? e->n_means : "n", ylabel, logy ? "set logscale y" : "set yrange [0:*]");
  }
  fprintf (f, "%s\nset termoption noenhanced\n", xrange);
  fprintf (f, "set grid\nset key outside right top\nset format x '%%.0f'\nset datafile missing 'NaN'\n");
  fprintf (f, "plot ");
  for (int v = 0, first = 1; v < n_var; v++)
    for (int u = 0; using[u]; u += 2)
      {
        fprintf (f, "%s'%s-%s.dat' using %s lc %d title '%s%s'", first ? "" : ", \\\n     ", exp, variants[v],
                 using[u], v + 1, variants[v], using[u + 1]);
        first = 0;
      }
  fprintf (f, "\n");
  fclose (f);
  {
    char cwd[4096], pdir[4096];
    int ret;
    if (getcwd (cwd, sizeof (cwd)) == NULL)
      return lab_error (err, errno, "getcwd");
    snprintf (pdir, sizeof (pdir), "%s/plots", dir);
    if (chdir (pdir) < 0)
      return lab_error (err, errno, "chdir `%s`", pdir);
    snprintf (gp, sizeof (gp), "%s-%s.gp", exp, name);
    ret = run_gnuplot (gp, err);
    if (chdir (cwd) < 0)
      return lab_error (err, errno, "chdir `%s`", cwd);
    return ret;
  }
}

static int
plot_experiment (const char *dir, const char *exp, const struct lab_agg *agg, int n_agg, lab_error_t *err)
{
  const char *variants[16];
  int n_var, have_mem = 0, have_ops = 0;
  static const char *const wall[] = { "1:2:3:4 with yerrorlines", "", NULL };
  static const char *const mem_per_task[] = { "1:6 with linespoints", " cgroup peak", "1:5 with linespoints dt 2", " RSS",
                                              "1:7 with linespoints dt 3", " kernel", NULL };
  static const char *const mem[] = { "1:10 with linespoints", " cgroup peak", "1:9 with linespoints dt 2", " RSS peak",
                                     "1:11 with linespoints dt 3", " kernel", NULL };
  static const char *const ops[] = { "1:8 with linespoints", "", NULL };
  const struct lab_experiment *e = lab_experiment_find (exp);
  unsigned plots = e ? e->plots : LAB_PLOT_WALL | LAB_PLOT_MEM;
  long min_n = -1, max_n = -1;
  char xrange[64];

  if (plots == 0 || write_dat (dir, exp, agg, n_agg, variants, &n_var) == 0)
    return 0;
  for (int a = 0; a < n_agg; a++)
    if (strcmp (agg[a].experiment, exp) == 0 && agg[a].n_ok)
      {
        if (min_n < 0 || agg[a].n < min_n)
          min_n = agg[a].n;
        if (agg[a].n > max_n)
          max_n = agg[a].n;
        have_mem |= agg[a].cg_per_task > 0 || agg[a].rss_per_task > 0;
        have_ops |= agg[a].ops_per_s > 0;
      }
  /* The data's own range with a margin (gnuplot would round a log axis out to
     whole decades, or warn on a single n). */
  snprintf (xrange, sizeof (xrange), "set xrange [%g:%g]", min_n / 1.6, max_n * 1.6);
  if ((plots & LAB_PLOT_WALL)
      && plot_one (dir, exp, xrange, "wall", "wall time vs n (median, min-max bars)", "seconds", 1, wall, variants,
                   n_var, err) < 0)
    return -1;
  if ((plots & LAB_PLOT_MEM) && have_mem
      && plot_one (dir, exp, xrange, "mem", "peak memory vs n (cgroup peak includes kernel memory)", "bytes", 1, mem,
                   variants, n_var, err) < 0)
    return -1;
  if ((plots & LAB_PLOT_MEM_PER_TASK) && have_mem
      && plot_one (dir, exp, xrange, "mem-per-task", "memory per task vs n (cgroup peak includes kernel memory)",
                   "bytes per task", 1, mem_per_task, variants, n_var, err) < 0)
    return -1;
  if ((plots & LAB_PLOT_NS_PER_OP) && have_ops
      && plot_one (dir, exp, xrange, "ns-per-op", "time per switch vs n", "ns per switch", 1, ops, variants, n_var,
                   err) < 0)
    return -1;
  return 0;
}

/* gnuplot on PATH?  Without it the data and the report are still written. */
static int
have_gnuplot (void)
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

int
lab_plot_render (const char *dir, lab_error_t *err)
{
  struct json_object *points = NULL, *meta = NULL;
  struct lab_agg *agg = NULL;
  int n_agg = 0, ret = 0;
  char path[4096];
  const char *done[32];
  int n_done = 0;

  if (lab_points_load (dir, &points, err) < 0)
    return -1;
  snprintf (path, sizeof (path), "%s/plots", dir);
  if (lab_mkdir_p (path, 0755, err) < 0)
    goto out;
  snprintf (path, sizeof (path), "%s/plots/gnuplot.log", dir);
  truncate (path, 0);
  snprintf (path, sizeof (path), "%s/meta.json", dir);
  if (lab_json_read (path, &meta, NULL) < 0)
    meta = json_object_new_object ();
  lab_agg_build (points, &agg, &n_agg);
  if (!have_gnuplot ())
    lab_warn ("gnuplot is not installed (`make deps` installs gnuplot-nox): no plots, data and report only");
  for (int a = 0; a < n_agg && ret == 0 && have_gnuplot (); a++)
    {
      int seen = 0;
      for (int d = 0; d < n_done; d++)
        seen |= strcmp (done[d], agg[a].experiment) == 0;
      if (seen || n_done == 32)
        continue;
      done[n_done++] = agg[a].experiment;
      ret = plot_experiment (dir, agg[a].experiment, agg, n_agg, err);
    }
  if (ret == 0)
    ret = lab_report_write (dir, meta, agg, n_agg, err);
out:
  free (agg);
  json_object_put (meta);
  json_object_put (points);
  return ret;
}
