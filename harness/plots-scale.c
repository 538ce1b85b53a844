/*
 * plots-scale.c - memory over time for `memory` and `pressure` (plot hooks,
 * see plot-hooks.h): for each variant, plots/<exp>-mem-time-<variant>.png
 * from points/<id>.samples.csv (the sandbox writes it: sandbox.h samples_path) of its largest-n point: RSS, VmSwap
 * (the workload's swapped-out pages), cgroup memory, cgroup swap and host
 * swap used (SwapTotal - SwapFree: the /proc/swaps figure), in MiB against
 * seconds since the point started.  A pressure point's swap-out shows as
 * the swap lines rising while RSS and cgroup memory stay at the limit; the
 * wake phase as swap falling while each task reads its memory back.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "plot-hooks.h"
#include "utils.h"

static int
mem_time (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  struct json_object *points = NULL;
  lab_error_t e = NULL;
  int ret = 0;

  if (lab_points_load (ctx->dir, &points, &e) < 0)
    {
      lab_error_release (&e);
      return 0;
    }
  for (int v = 0; v < ctx->n_run_variants && ret == 0; v++)
    {
      const char *variant = ctx->run_variants[v], *id = NULL;
      long best = -1;
      char csv[4200], name[128], title[256], body[2048], data[300];
      for (size_t i = 0; i < json_object_array_length (points); i++)
        {
          struct json_object *p = json_object_array_get_idx (points, i), *x;
          const char *pid = json_object_object_get_ex (p, "id", &x) ? json_object_get_string (x) : "";
          long n = json_object_object_get_ex (p, "n", &x) ? json_object_get_int64 (x) : -1;
          if (!json_object_object_get_ex (p, "experiment", &x) || strcmp (json_object_get_string (x), ctx->exp) != 0
              || !json_object_object_get_ex (p, "variant", &x) || strcmp (json_object_get_string (x), variant) != 0)
            continue;
          snprintf (csv, sizeof csv, "%s/points/%s.samples.csv", ctx->dir, pid);
          if (n > best && access (csv, R_OK) == 0)
            {
              best = n;
              id = pid;
            }
        }
      if (id == NULL)
        continue;
      snprintf (name, sizeof name, "mem-time-%s", variant);
      snprintf (title, sizeof title, "memory over time, %s n=%ld", variant, best);
      snprintf (data, sizeof data, "../points/%s.samples.csv", id);
      snprintf (body, sizeof body,
                "set datafile separator ','\nset xlabel 's since the point started'\nset ylabel 'MiB'\n"
                "set yrange [0:*]\nM = 1048576.0\nd = '%s'\n"
                "plot d every ::1 using 1:($2/M) with lines lw 2 lc rgb '#0072B2' title 'RSS', \\\n"
                "     d every ::1 using 1:($4/M) with lines lw 2 lc rgb '#D55E00' title 'VmSwap', \\\n"
                "     d every ::1 using 1:($5/M) with lines lc rgb '#009E73' title 'cgroup memory', \\\n"
                "     d every ::1 using 1:($6/M) with lines dt 2 lc rgb '#CC79A7' title 'cgroup swap', \\\n"
                "     d every ::1 using 1:($7/M) with lines dt 3 lc rgb '#000000' title 'host swap used'\n",
                data);
      const char *files[] = { data, NULL };
      ret = lab_plot_gnuplot (ctx, name, title,
                              "Memory of one point as the harness sampled it (every 20 ms): RSS and VmSwap of the "
                              "workload, the cgroup's memory and swap, and the host's swap used (/proc/swaps); "
                              "swap rising while RSS holds at the cgroup limit is the swap-out.",
                              body, files, err);
    }
  json_object_put (points);
  return ret;
}

int
plot_memory (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  return mem_time (ctx, err);
}

int
plot_pressure (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  return mem_time (ctx, err);
}
