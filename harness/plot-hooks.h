/*
 * plot-hooks.h - experiments' own plots, beyond plot.c's generic ones.
 *
 * To add one: a function `int plot_<exp> (const struct lab_plot_ctx *ctx,
 * lab_error_t *err)` in harness/plots-<exp>.c that writes its data under
 * ctx->dir/plots/ and calls lab_plot_gnuplot(); its prototype here; one line
 * in lab_plot_hooks[] (plot-hooks.c).  lab_plot_experiment() calls it after
 * the generic plots.
 */
#ifndef LAB_PLOT_HOOKS_H
#define LAB_PLOT_HOOKS_H

#include "plot.h"

struct lab_plot_hook
{
  const char *experiment;
  int (*plot) (const struct lab_plot_ctx *ctx, lab_error_t *err);
};

/* plots-io.c */
int plot_udp (const struct lab_plot_ctx *ctx, lab_error_t *err);
int plot_wakeup (const struct lab_plot_ctx *ctx, lab_error_t *err);
int plot_blocking (const struct lab_plot_ctx *ctx, lab_error_t *err);
/* plots-scale.c */
int plot_memory (const struct lab_plot_ctx *ctx, lab_error_t *err);
int plot_pressure (const struct lab_plot_ctx *ctx, lab_error_t *err);

/* plots-echo.c */
int plot_echo (const struct lab_plot_ctx *ctx, lab_error_t *err);

extern const struct lab_plot_hook lab_plot_hooks[]; /* ends with { NULL, NULL } */

#endif
