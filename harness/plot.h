/*
 * plot.h - gnuplot plots of a run's aggregates (aggregate.h).
 *
 * lab_plot_experiment() draws one experiment's plots under DIR/plots/: for
 * each plot a <exp>-<name>.gp script that writes both <exp>-<name>.png and
 * <exp>-<name>.svg, the .dat data it reads beside it (one per variant), and
 * an entry in the run's plot manifest (plots/plots.json, {"plots": [...]}:
 * title, how to read it, files) that report.md and report.html list.  Styling is the same in
 * every plot of a run: each variant keeps one colour and one marker
 * (lab_plot_style), series of one variant differ by dash type, every axis
 * names its unit, the y axis is logarithmic where the values span more than
 * a decade and a half, and error bars span the repeats' min..max around the
 * median.
 *
 * Which generic plots an experiment gets: the catalog's `plots` bits
 * (LAB_PLOT_*), plus CPU time, context switches and latency percentiles
 * wherever they were measured (plots == 0 turns all off).  An experiment's
 * own plots: write `int plot_<exp> (const struct lab_plot_ctx *, lab_error_t *)`
 * in harness/plots-<exp>.c using lab_plot_gnuplot(), declare it in
 * plot-hooks.h and add one line to lab_plot_hooks[] (plot-hooks.c).
 */
#ifndef LAB_PLOT_H
#define LAB_PLOT_H

#include <json-c/json.h>

#include "aggregate.h"
#include "error.h"

/* What a plot function is given. */
struct lab_plot_ctx
{
  const char *dir;                 /* results directory; plots go to dir/plots/ */
  const char *exp;
  const struct lab_agg *agg;       /* the whole run */
  int n_agg;
  const char *const *run_variants; /* every variant of the run, in plan order: fixes colours */
  int n_run_variants;
  struct json_object *manifest;    /* array the plots are listed in */
};

/* " lc rgb '#0072B2' pt 7" for `variant`: the same in every plot of the run. */
const char *lab_plot_style (const struct lab_plot_ctx *ctx, const char *variant);
/* The plain colour ("#0072B2") of `variant`, for the report's legend. */
const char *lab_plot_colour (const char *const *run_variants, int n, const char *variant);

/* Writes plots/<exp>-<name>.gp (a preamble with both terminals, the title,
   then `body`: labels, ranges and the `plot` command reading files relative to
   plots/), runs gnuplot on it, and lists the plot in the manifest with `how`
   (one or two sentences on how to read it) and `data` (file names beside it,
   NULL-terminated). */
int lab_plot_gnuplot (const struct lab_plot_ctx *ctx, const char *name, const char *title, const char *how,
                      const char *body, const char *const *data, lab_error_t *err);

/* Draws `ctx->exp`'s generic plots, then its hook's. */
int lab_plot_experiment (const struct lab_plot_ctx *ctx, lab_error_t *err);

/* 1 when gnuplot is on PATH. */
int lab_have_gnuplot (void);

/* Re-renders DIR: loads points and meta.json, aggregates, plots every
   experiment, writes plots/plots.json, report.md and report.html (render.c). */
int lab_plot_render (const char *dir, lab_error_t *err);

#endif
