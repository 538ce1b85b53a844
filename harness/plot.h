/*
 * plot.h - plots (gnuplot) and the report of a results directory.
 *
 * lab_plot_render(DIR) reads DIR/summary.csv, DIR/points/<id>.json and
 * DIR/meta.json, writes per-variant data files and gnuplot scripts under
 * DIR/plots/, runs gnuplot on them (PNG), and writes DIR/report.md.  It only
 * uses the data in DIR, so `lab plot DIR` re-renders any run.
 */
#ifndef LAB_PLOT_H
#define LAB_PLOT_H

#include <json-c/json.h>

#include "error.h"

int lab_plot_render (const char *dir, lab_error_t *err);

/* Aggregated figures of one (experiment, variant, n) over its ok repeats. */
struct lab_agg
{
  const char *experiment, *variant;
  long n;
  int n_ok, n_total;
  const char *status;          /* of the last repeat when none was ok */
  const char *detail;
  double wall_med, wall_min, wall_max;
  double rss_per_task, cg_per_task, kernel_per_task; /* bytes; <0 = not measured */
  double ops_per_s, p50_ns, p99_ns;                  /* <0 = not measured */
  struct json_object *workload;                      /* of the repeat with the median wall; borrowed */
};

/* Groups the points (array of point objects) into aggregates, in plan order. */
int lab_agg_build (struct json_object *points, struct lab_agg **out, int *n_out);
/* Loads DIR/points/<id>.json, sorted by start time. */
int lab_points_load (const char *dir, struct json_object **out, lab_error_t *err);
/* Writes DIR/report.md. */
int lab_report_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n_agg,
                      lab_error_t *err);

#endif
