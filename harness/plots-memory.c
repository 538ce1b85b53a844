/*
 * plots-memory.c - the memory experiment's own plot (plot-hooks.h):
 *   memory-time  memory over time of each variant's median repeat at the
 *                largest n it ended ok: the workload's RSS (solid) and its
 *                cgroup's memory (dashed), from points/<id>.samples.csv (the
 *                harness's samples), copied to plots/memory-time-<variant>.csv.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot-hooks.h"
#include "utils.h"

/* Copies points/<id>.samples.csv to plots/<name>; 1 when it had rows. */
static int
copy_samples (const char *dir, const char *id, const char *name, lab_error_t *err)
{
  char src[4096], dst[4096];
  char *data = NULL;
  size_t len = 0;

  snprintf (src, sizeof (src), "%s/points/%s.samples.csv", dir, id);
  if (lab_read_file (src, &data, &len, NULL) < 0)
    return 0; /* a run from before samples were kept */
  snprintf (dst, sizeof (dst), "%s/plots/%s", dir, name);
  int rows = (int) (len > 0 && strchr (data, '\n') && strchr (data, '\n')[1] != '\0');
  if (lab_write_file_atomic (dst, data, len, err) < 0)
    rows = -1;
  free (data);
  return rows;
}

static const char *
colour (const struct lab_plot_ctx *ctx, const char *variant)
{
  return lab_plot_colour (ctx->run_variants, ctx->n_run_variants, variant);
}

int
plot_memory (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  static char names[16][96];
  const char *data[17], *vars[16];
  char body[8192];
  size_t used;
  int nv = 0;

  for (int v = 0; v < ctx->n_run_variants && nv < 16; v++)
    {
      const struct lab_agg *best = NULL;
      struct json_object *id = NULL;
      for (int i = 0; i < ctx->n_agg; i++)
        {
          const struct lab_agg *g = &ctx->agg[i];
          if (!strcmp (g->experiment, ctx->exp) && !strcmp (g->variant, ctx->run_variants[v]) && g->n_ok
              && g->median_point && (best == NULL || g->n > best->n))
            best = g;
        }
      if (best == NULL || !json_object_object_get_ex (best->median_point, "id", &id))
        continue;
      snprintf (names[nv], sizeof (names[nv]), "memory-time-%s.csv", best->variant);
      int r = copy_samples (ctx->dir, json_object_get_string (id), names[nv], err);
      if (r < 0)
        return -1;
      if (r == 0)
        continue;
      vars[nv] = best->variant;
      data[nv] = names[nv];
      nv++;
    }
  data[nv] = NULL;
  if (nv == 0)
    return 0;
  used = (size_t) snprintf (body, sizeof (body),
                            "set datafile separator ','\nset key autotitle columnhead\n"
                            "set xlabel 'seconds since the sandbox released the workload'\n"
                            "set ylabel 'MiB'\nset yrange [0:*]\nplot ");
  for (int v = 0; v < nv && used < sizeof (body); v++)
    used += (size_t) snprintf (body + used, sizeof (body) - used,
                               "%s'%s' using 1:($2/1048576) with lines lw 2 lc rgb '%s' title '%s RSS', \\\n"
                               "     '%s' using 1:($5/1048576) with lines dt 2 lc rgb '%s' title '%s cgroup'",
                               v ? ", \\\n     " : "", data[v], colour (ctx, vars[v]), vars[v], data[v],
                               colour (ctx, vars[v]), vars[v]);
  return lab_plot_gnuplot (ctx, "time", "memory over time (median repeat at the largest n ok)",
                           "The harness's samples while the point ran: the workload's RSS (solid) and its "
                           "cgroup's memory, kernel part included (dashed). The plateau is the tasks parked.",
                           body, data, err);
}
