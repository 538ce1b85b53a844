/*
 * plots-io.c - the own plots of udp, wakeup and blocking (plot-hooks.h), one
 * file because the latter two share the percentile plot:
 *   udp-batch       datagrams/s vs batch size: each batched variant's
 *                   batch_sweep (largest ok n, median repeat), sendto as its
 *                   single point at batch 1;
 *   udp-cpu-per-datagram  sender CPU ns per datagram (user + sys, and sys) vs batch;
 *   wakeup-wake-latency   wake-up latency p50/p99/p99.9/max per variant;
 *   blocking-delay  waiters' delay p50/p99/p99.9/max and the CPU-bound tasks'
 *                   ready-not-running gap p50/p99/max per variant.
 * Data come from the points' workload reports only.  Names differ from the
 * generic plots' (udp-cpu, wakeup-latency, blocking-latency), which plot.c
 * draws beside these.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "out-file.h"
#include "plot-hooks.h"

static const struct lab_agg *
largest_ok (const struct lab_plot_ctx *ctx, const char *variant)
{
  const struct lab_agg *best = NULL;
  for (int i = 0; i < ctx->n_agg; i++)
    {
      const struct lab_agg *g = &ctx->agg[i];
      if (!strcmp (g->experiment, ctx->exp) && !strcmp (g->variant, variant) && g->n_ok && g->workload
          && (best == NULL || g->n > best->n))
        best = g;
    }
  return best;
}

static FILE *
open_dat (const struct lab_plot_ctx *ctx, const char *name, lab_error_t *err)
{
  char path[4096];
  FILE *f;
  snprintf (path, sizeof (path), "%s/plots/%s", ctx->dir, name);
  f = lab_out_open (path, err);
  return f;
}

static const char *
jget (struct json_object *o, const char *key)
{
  struct json_object *v = json_object_object_get (o, key);
  return v ? json_object_get_string (v) : "NaN";
}

/* ---------------------------------------------------------------- udp -- */

int
plot_udp (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  static const char *const vars[] = { "sendto", "sendmmsg", "uring", "coro-uring" };
  static char names[4][64];
  const char *have[4], *data[5];
  int nh = 0;

  for (size_t v = 0; v < 4; v++)
    {
      const struct lab_agg *g = largest_ok (ctx, vars[v]);
      struct json_object *sw = g ? json_object_object_get (g->workload, "batch_sweep") : NULL;
      FILE *f;
      if (g == NULL)
        continue;
      snprintf (names[nh], sizeof (names[nh]), "udp-batch-%s.dat", vars[v]);
      if ((f = open_dat (ctx, names[nh], err)) == NULL)
        return -1;
      fprintf (f, "# %s at n=%ld: batch datagrams_per_s user_ns_per_dgram sys_ns_per_dgram syscalls_per_dgram\n",
               vars[v], g->n);
      if (sw && json_object_array_length (sw) > 0)
        for (size_t i = 0; i < json_object_array_length (sw); i++)
          {
            struct json_object *p = json_object_array_get_idx (sw, i);
            fprintf (f, "%s %s %s %s %s\n", jget (p, "batch"), jget (p, "ops_per_s"), jget (p, "user_ns_per_dgram"),
                     jget (p, "sys_ns_per_dgram"), jget (p, "syscalls_per_dgram"));
          }
      else
        fprintf (f, "%s %s %s %s %s\n", jget (g->workload, "batch"), jget (g->workload, "ops_per_s"),
                 jget (g->workload, "sender_user_ns_per_dgram"), jget (g->workload, "sender_sys_ns_per_dgram"),
                 jget (g->workload, "syscalls_per_dgram"));
      if (lab_out_close (f, err) < 0)
        return -1;
      data[nh] = names[nh];
      have[nh++] = vars[v];
    }
  data[nh] = NULL;
  if (nh == 0)
    return 0;
  for (int which = 0; which < 2; which++)
    {
      char body[4096];
      size_t used = (size_t) snprintf (body, sizeof (body),
                                       "set xlabel 'datagrams per call or submit (coroutines for coro-uring)'\n"
                                       "set ylabel '%s'\nset logscale x 2\nset xrange [0.7:1500]\nset yrange [0:*]\n"
                                       "plot ",
                                       which ? "ns of sender CPU per datagram" : "datagrams per second");
      for (int v = 0; v < nh && used < sizeof (body); v++)
        {
          const char *st = lab_plot_style (ctx, have[v]);
          if (which == 0)
            used += (size_t) snprintf (body + used, sizeof (body) - used,
                                       "%s'%s' using 1:2 with linespoints lw 2%s title '%s'", v ? ", \\\n     " : "",
                                       data[v], st, have[v]);
          else
            used += (size_t) snprintf (body + used, sizeof (body) - used,
                                       "%s'%s' using 1:($3+$4) with linespoints lw 2%s title '%s user+sys', \\\n"
                                       "     '%s' using 1:4 with linespoints dt 2%s title '%s sys'",
                                       v ? ", \\\n     " : "", data[v], st, have[v], data[v], st, have[v]);
        }
      if (which == 0
          && lab_plot_gnuplot (ctx, "batch", "datagrams/s vs batch size",
                               "The batch sweep of the largest n (median repeat); sendto is its point at 1. "
                               "Higher is better.",
                               body, data, err) < 0)
        return -1;
      if (which == 1
          && lab_plot_gnuplot (ctx, "cpu-per-datagram", "sender CPU per datagram vs batch size",
                               "getrusage of the sender process over each phase, per datagram; on loopback the "
                               "sys part includes the receive path run in the sender's call. Lower is better.",
                               body, data, err) < 0)
        return -1;
    }
  return 0;
}

/* ------------------------------------------------- percentile plots -- */

struct pct_col
{
  const char *label, *key;
};

static int
plot_pcts (const struct lab_plot_ctx *ctx, const char *const *vars, const struct pct_col *cols, int ncols,
           const char *name, const char *title, const char *how, lab_error_t *err)
{
  char dat[128], body[4096];
  const char *data[2] = { dat, NULL };
  int rows = 0;
  size_t used;
  FILE *f;

  snprintf (dat, sizeof (dat), "%s-%s.dat", ctx->exp, name);
  if ((f = open_dat (ctx, dat, err)) == NULL)
    return -1;
  fprintf (f, "# percentile, then microseconds per variant:");
  for (int v = 0; vars[v]; v++)
    fprintf (f, " %s", vars[v]);
  fprintf (f, "\n");
  for (int c = 0; c < ncols; c++)
    {
      fprintf (f, "\"%s\"", cols[c].label);
      for (int v = 0; vars[v]; v++)
        {
          double x = lab_agg_wnum (largest_ok (ctx, vars[v]), cols[c].key);
          fprintf (f, x > 0 ? " %.6g" : " NaN", x / 1000);
          rows += x > 0;
        }
      fprintf (f, "\n");
    }
  if (lab_out_close (f, err) < 0)
    return -1;
  if (rows == 0)
    return 0;
  used = (size_t) snprintf (body, sizeof (body),
                            "set xlabel 'percentile (largest n that ended ok)'\nset ylabel 'microseconds (log)'\n"
                            "set logscale y\nset xrange [-0.3:%d.3]\nplot ",
                            ncols - 1);
  for (int v = 0; vars[v] && used < sizeof (body); v++)
    used += (size_t) snprintf (body + used, sizeof (body) - used,
                               "%s'%s' using 0:%d:xtic(1) with linespoints lw 2%s title '%s'", v ? ", \\\n     " : "",
                               dat, v + 2, lab_plot_style (ctx, vars[v]), vars[v]);
  return lab_plot_gnuplot (ctx, name, title, how, body, data, err);
}

int
plot_wakeup (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  static const char *const vars[] = { "condvar", "eventfd", "pipe", "coro", NULL };
  static const struct pct_col cols[] = {
    { "p50", "lat_p50_ns" }, { "p99", "lat_p99_ns" }, { "p99.9", "lat_p999_ns" }, { "max", "lat_max_ns" },
  };
  return plot_pcts (ctx, vars, cols, 4, "wake-latency", "latency from the signal to the waiter running",
                    "condvar's wake-ups are all missed: its latency is the epoll_wait timeout. Lower is better.",
                    err);
}

int
plot_blocking (const struct lab_plot_ctx *ctx, lab_error_t *err)
{
  static const char *const vars[] = { "pthread", "coro-blocking", "coro-uring", NULL };
  static const struct pct_col cols[] = {
    { "waiter p50", "lat_p50_ns" },       { "waiter p99", "lat_p99_ns" },       { "waiter p99.9", "lat_p999_ns" },
    { "waiter max", "lat_max_ns" },       { "cpu-task p50", "cpu_gap_p50_ns" }, { "cpu-task p99", "cpu_gap_p99_ns" },
    { "cpu-task max", "cpu_gap_max_ns" },
  };
  return plot_pcts (ctx, vars, cols, 7, "delay", "scheduling delay, ready to running",
                    "Waiters: from the pipe write to running with the message. CPU tasks: the gap between two "
                    "work units, when they were ready but not running (histogram bins within 25%). Lower is "
                    "better.",
                    err);
}
