/*
 * render.c - `lab plot DIR` and the end of `lab run`: from DIR's recorded
 * points to plots and reports, in four steps with one file each:
 *   aggregate.c  points/<id>.json -> per (experiment, variant, n) medians and spreads
 *   plot.c       aggregates -> plots/<exp>-<name>.{png,svg,gp} + .dat, listed in plots/plots.json
 *   report.c     -> report.md;  report-html.c -> report.html
 * It only uses the data in DIR, so any run can be re-rendered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "plot.h"
#include "report.h"
#include "results.h"
#include "utils.h"

static int
plot_all (const char *dir, const struct lab_agg *agg, int n_agg, lab_error_t *err)
{
  const char *exps[32], *vs[64];
  int n_exps = lab_agg_experiments (agg, n_agg, exps, 32), ret = 0;
  struct lab_plot_ctx ctx = { .dir = dir, .agg = agg, .n_agg = n_agg, .run_variants = vs };
  char path[4096];

  ctx.n_run_variants = lab_agg_variants (agg, n_agg, NULL, vs, 64);
  ctx.manifest = json_object_new_array ();
  snprintf (path, sizeof (path), "%s/plots/gnuplot.log", dir);
  if (truncate (path, 0) < 0)
    {
      /* absent: nothing to clear */
    }
  if (!lab_have_gnuplot ())
    lab_warn ("gnuplot is not installed (`make deps` installs gnuplot-nox): no plots, data and report only");
  for (int e = 0; e < n_exps && ret == 0 && lab_have_gnuplot (); e++)
    {
      ctx.exp = exps[e];
      ret = lab_plot_experiment (&ctx, err);
    }
  snprintf (path, sizeof (path), "%s/plots/plots.json", dir);
  if (ret == 0)
    {
      struct json_object *top = json_object_new_object ();
      json_object_object_add (top, "plots", ctx.manifest);
      ret = lab_json_write (path, top, err);
      json_object_put (top);
    }
  else
    json_object_put (ctx.manifest);
  return ret;
}

int
lab_plot_render (const char *dir, lab_error_t *err)
{
  struct json_object *points = NULL, *meta = NULL;
  struct lab_agg *agg = NULL;
  int n_agg = 0, ret;
  char path[4096];

  if (lab_points_load (dir, &points, err) < 0)
    return -1;
  snprintf (path, sizeof (path), "%s/plots", dir);
  ret = lab_mkdir_p (path, 0755, err);
  snprintf (path, sizeof (path), "%s/meta.json", dir);
  if (lab_json_read (path, &meta, NULL) < 0)
    meta = json_object_new_object ();
  lab_agg_build (points, &agg, &n_agg);
  if (ret == 0)
    ret = plot_all (dir, agg, n_agg, err);
  if (ret == 0)
    ret = lab_report_write (dir, meta, agg, n_agg, err);
  if (ret == 0)
    ret = lab_report_html_write (dir, meta, agg, n_agg, err);
  free (agg);
  json_object_put (meta);
  json_object_put (points);
  return ret;
}
