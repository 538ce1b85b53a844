/*
 * report.c - DIR/report.md, presented as libaco presents its benchmarks: the
 * environment (date, machine, OS, build flags, exact command) first, bold
 * headline numbers, the claims of shared/CLAIMS.md with a verdict computed
 * from this run's data, then per experiment a table, the plots, and the points
 * that did not end ok with their reasons.  Nothing here is a constant: every
 * figure is read from the run's points.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "plot.h"
#include "results.h"
#include "utils.h"

static const char *
jstr (struct json_object *o, const char *path)
{
  char key[128];
  const char *dot;
  struct json_object *v = o;

  while (v && !json_object_object_get_ex (v, path, NULL) && (dot = strchr (path, '.')))
    {
      snprintf (key, sizeof (key), "%.*s", (int) (dot - path), path);
      v = json_object_object_get (v, key);
      path = dot + 1;
    }
  v = v ? json_object_object_get (v, path) : NULL;
  return v ? json_object_get_string (v) : "?";
}

static double
wnum (const struct lab_agg *g, const char *key)
{
  struct json_object *v = g && g->workload ? json_object_object_get (g->workload, key) : NULL;
  return v ? json_object_get_double (v) : -1;
}

static const struct lab_agg *
find (const struct lab_agg *agg, int n, const char *exp, const char *variant, long at)
{
  const struct lab_agg *best = NULL;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && strcmp (agg[i].variant, variant) == 0
        && (at < 0 ? (best == NULL || agg[i].n > best->n) : agg[i].n == at))
      best = &agg[i];
  return best;
}

/* Largest n at which both variants ended ok. */
static long
largest_common (const struct lab_agg *agg, int n, const char *exp, const char *a, const char *b)
{
  long best = -1;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && strcmp (agg[i].variant, a) == 0 && agg[i].n_ok)
      {
        const struct lab_agg *o = find (agg, n, exp, b, agg[i].n);
        if (o && o->n_ok && agg[i].n > best)
          best = agg[i].n;
      }
  return best;
}

static void
human_bytes (char *buf, size_t len, double b)
{
  if (b < 0)
    snprintf (buf, len, "-");
  else if (b >= 1 << 30)
    snprintf (buf, len, "%.2f GiB", b / (1 << 30));
  else if (b >= 1 << 20)
    snprintf (buf, len, "%.1f MiB", b / (1 << 20));
  else if (b >= 1024)
    snprintf (buf, len, "%.1f KiB", b / 1024);
  else
    snprintf (buf, len, "%.0f B", b);
}

static void
why_not (FILE *f, const struct lab_agg *g, const char *variant, long n)
{
  if (g == NULL)
    fprintf (f, "%s was not run at n=%ld", variant, n);
  else
    fprintf (f, "%s ended `%s` at n=%ld (%s)", variant, g->status, n, g->detail);
}

static void
claim_c1 (FILE *f, const struct lab_agg *agg, int n)
{
  const long target = 1000000;
  const struct lab_agg *p = find (agg, n, "spawn", "pthread", target), *c = find (agg, n, "spawn", "coro", target);
  long common = largest_common (agg, n, "spawn", "pthread", "coro");

  fprintf (f, "- **C1** (1M tasks sleeping 1 ms: pthreads 3.82 s vs goroutines 0.47 s, 8.1x): ");
  if (find (agg, n, "spawn", "pthread", -1) == NULL && find (agg, n, "spawn", "coro", -1) == NULL)
    {
      fprintf (f, "not measured in this run (`lab run spawn --scale full`).\n");
      return;
    }
  if (p && c && p->n_ok && c->n_ok)
    fprintf (f, "measured pthread %.3f s vs coro %.3f s at n=1,000,000, ratio %.1fx: %s.\n", p->wall_med,
             c->wall_med, p->wall_med / c->wall_med,
             c->wall_med < p->wall_med ? "the direction holds here" : "FAILS here: pthreads were not slower");
  else
    {
      fprintf (f, "cannot be tested at n=1,000,000 here: ");
      if (!(p && p->n_ok))
        why_not (f, p, "pthread", target);
      if (!(p && p->n_ok) && !(c && c->n_ok))
        fprintf (f, "; ");
      if (!(c && c->n_ok))
        why_not (f, c, "coro", target);
      fprintf (f, ".");
      if (common > 0)
        {
          p = find (agg, n, "spawn", "pthread", common);
          c = find (agg, n, "spawn", "coro", common);
          fprintf (f, " At the largest n both completed (%ld): pthread %.3f s vs coro %.3f s (%.1fx).", common,
                   p->wall_med, c->wall_med, p->wall_med / c->wall_med);
        }
      fprintf (f, "\n");
    }
}

static void
claim_c3 (FILE *f, const struct lab_agg *agg, int n)
{
  const struct lab_agg *p = find (agg, n, "spawn", "pthread", -1), *c = find (agg, n, "spawn", "coro", -1);
  const struct lab_agg *sp = find (agg, n, "switch", "pthread", -1), *sc = find (agg, n, "switch", "coro", -1);
  long common = largest_common (agg, n, "spawn", "pthread", "coro");

  fprintf (f, "- **C3** (creation ~1 us vs tens of us; thread switch 1.42 us): ");
  if (common > 0)
    {
      p = find (agg, n, "spawn", "pthread", common);
      c = find (agg, n, "spawn", "coro", common);
      fprintf (f, "creation at n=%ld: pthread %.0f ns/task vs coro %.0f ns/task. ", common,
               wnum (p, "spawn_ns_per_task"), wnum (c, "spawn_ns_per_task"));
    }
  else
    fprintf (f, "creation not compared in this run (needs both `spawn` variants ok at one n). ");
  if (sp && sc && sp->n_ok && sc->n_ok && sp->ops_per_s > 0 && sc->ops_per_s > 0)
    fprintf (f, "Switch: pthread futex handoff %.0f ns vs coro %.1f ns (%.0fx).\n", 1e9 / sp->ops_per_s,
             1e9 / sc->ops_per_s, sc->ops_per_s / sp->ops_per_s);
  else
    fprintf (f, "Switch not compared in this run (needs `switch` pthread and coro ok).\n");
  (void) p;
  (void) c;
}

static void
claim_c2 (FILE *f, const struct lab_agg *agg, int n)
{
  static const char *const variants[] = { "pthread", "coro", "coro-copystack" };
  char a[32], b[32], k[32];
  int any = 0;

  fprintf (f, "- **C2** (5M goroutines 1.2 GB RSS = 240 B each; 500K pthreads 4.8 GB RSS = 9.6 KB each): ");
  for (size_t v = 0; v < ARRAY_SIZE (variants); v++)
    {
      const struct lab_agg *best = NULL, *stop = NULL;
      for (int i = 0; i < n; i++)
        if (strcmp (agg[i].experiment, "memory") == 0 && strcmp (agg[i].variant, variants[v]) == 0)
          {
            if (agg[i].n_ok && (!best || agg[i].n > best->n))
              best = &agg[i];
            if (!agg[i].n_ok && strcmp (agg[i].status, "skipped") && (!stop || agg[i].n < stop->n))
              stop = &agg[i];
          }
      if (best)
        {
          human_bytes (a, sizeof (a), best->rss_per_task);
          human_bytes (b, sizeof (b), best->cg_per_task);
          human_bytes (k, sizeof (k), best->kernel_per_task);
          fprintf (f, "%s%s at n=%ld", any ? "; " : "", variants[v], best->n);
          if (wnum (best, "stack_bytes") > 0)
            fprintf (f, " with %.0f KiB stacks", wnum (best, "stack_bytes") / 1024);
          fprintf (f, ": RSS %s/task, cgroup %s/task (kernel %s/task)", a, b, k);
          if (wnum (best, "spawn_ns_per_task") > 0)
            fprintf (f, ", spawned in %.3g s (%.0f ns/task", wnum (best, "spawn_s"), wnum (best, "spawn_ns_per_task"));
          if (wnum (best, "spawn_ns_per_task") > 0 && wnum (best, "page_first_touch_ns") > 0)
            fprintf (f, "; a first-touch page fault costs %.0f ns here", wnum (best, "page_first_touch_ns"));
          if (wnum (best, "spawn_ns_per_task") > 0)
            fprintf (f, ")");
          any = 1;
        }
      if (stop)
        {
          fprintf (f, "%s%s stopped at n=%ld: `%s` (%s)", any ? "; " : "", variants[v], stop->n, stop->status,
                   stop->detail);
          any = 1;
        }
    }
  if (!any)
    {
      fprintf (f, "not measured in this run (`lab run memory`).\n");
      return;
    }
  fprintf (f, ". The published 240 B per goroutine is below Go's own 2 KB minimum stack, so it cannot hold as "
              "stated; compare the per-task figures measured here.\n");
}

static void
claim_c12 (FILE *f, const struct lab_agg *agg, int n)
{
  const struct lab_agg *s = find (agg, n, "seccomp", "syscall", -1), *u = find (agg, n, "seccomp", "io_uring", -1);
  const struct lab_agg *r = find (agg, n, "seccomp", "io_uring-restricted", -1);

  fprintf (f, "- **C12** (a load-test container: cgroup v2 memory.max as a hard limit; seccomp allows openat, EPERM "
              "for clone, kill on ptrace; CLAIMS.md notes that io_uring operations are not checked by seccomp). "
              "memory.max, clone and ptrace are checked by the sandbox tests (`make test`, cgroup v2 in a VM); "
              "this run's `seccomp` experiment measures the io_uring gap: ");
  if (!(s && s->workload) && !(u && u->workload))
    {
      fprintf (f, "not measured in this run (`lab run seccomp`).\n");
      return;
    }
  if (s && s->workload)
    fprintf (f, "under a profile that denies openat, openat(2) %s", wnum (s, "syscall_openat_ok") > 0
             ? "SUCCEEDED (the filter did not hold)" : "was denied");
  if (s && s->workload && wnum (s, "syscall_openat_errno") > 0)
    fprintf (f, " (errno %.0f)", wnum (s, "syscall_openat_errno"));
  if (u && u->workload)
    fprintf (f, "; IORING_OP_OPENAT of the same file under the same profile %s",
             wnum (u, "io_uring_openat_ok") > 0 ? "succeeded: seccomp does not see io_uring operations"
                                                : "failed too");
  if (r && r->workload)
    fprintf (f, "; on a ring with IORING_REGISTER_RESTRICTIONS it %s",
             wnum (r, "io_uring_openat_ok") > 0 ? "still succeeded (restrictions did not hold)" : "was refused");
  if (r && r->workload && wnum (r, "io_uring_openat_errno") > 0)
    fprintf (f, " (errno %.0f)", wnum (r, "io_uring_openat_errno"));
  fprintf (f, ". Raw figures in points/seccomp-*.json.\n");
}

static void
table (FILE *f, const char *exp, const struct lab_agg *agg, int n)
{
  const struct lab_experiment *e = lab_experiment_find (exp);
  int per_task = e && (e->plots & LAB_PLOT_MEM_PER_TASK);
  double div;
  char r[32], c[32], k[32];

  if (per_task)
    fprintf (f, "| variant | n | status | ok/runs | wall (median) | RSS/task | cgroup/task | kernel/task | ops/s | p99 latency |\n");
  else
    fprintf (f, "| variant | n | status | ok/runs | wall (median) | RSS peak | cgroup peak | kernel | ops/s | p99 latency |\n");
  fprintf (f, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int i = 0; i < n; i++)
    {
      const struct lab_agg *g = &agg[i];
      if (strcmp (g->experiment, exp))
        continue;
      div = per_task ? 1 : (double) g->n; /* agg holds per-task figures */
      human_bytes (r, sizeof (r), g->rss_per_task < 0 ? -1 : g->rss_per_task * div);
      human_bytes (c, sizeof (c), g->cg_per_task < 0 ? -1 : g->cg_per_task * div);
      human_bytes (k, sizeof (k), g->kernel_per_task < 0 ? -1 : g->kernel_per_task * div);
      fprintf (f, "| %s | %ld | %s | %d/%d | ", g->variant, g->n, g->status, g->n_ok, g->n_total);
      if (g->wall_med >= 0)
        fprintf (f, "%.4f s", g->wall_med);
      else
        fprintf (f, "-");
      fprintf (f, " | %s | %s | %s | ", r, c, k);
      if (g->ops_per_s > 0)
        fprintf (f, "%.4g", g->ops_per_s);
      else
        fprintf (f, "-");
      if (g->p99_ns > 0)
        fprintf (f, " | %.0f us |\n", g->p99_ns / 1000);
      else
        fprintf (f, " | - |\n");
    }
  fprintf (f, "\n");
}

int
lab_report_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n, lab_error_t *err)
{
  char *buf = NULL, path[4096];
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  const char *exps[32];
  int n_exps = 0, ret;
  struct json_object *argv = json_object_object_get (meta, "argv");

  for (int i = 0; i < n; i++)
    {
      int seen = 0;
      for (int e = 0; e < n_exps; e++)
        seen |= strcmp (exps[e], agg[i].experiment) == 0;
      if (!seen && n_exps < 32)
        exps[n_exps++] = agg[i].experiment;
    }
  fprintf (f, "# Lab report\n\n");
  fprintf (f, "- date: %s\n- host: %s, %s cores, %s, %.1f GiB memory, %.1f GiB swap\n", jstr (meta, "date"),
           jstr (meta, "host.hostname"), jstr (meta, "host.cores"), jstr (meta, "host.cpu_model"),
           atof (jstr (meta, "host.mem_total_bytes")) / (1 << 30), atof (jstr (meta, "host.swap_total_bytes")) / (1 << 30));
  fprintf (f, "- kernel: %s; cgroup %s (backend %s); io_uring %s\n", jstr (meta, "host.kernel"),
           jstr (meta, "host.cgroup.mode"), jstr (meta, "host.cgroup.backend"), jstr (meta, "host.io_uring"));
  {
    struct json_object *host = json_object_object_get (meta, "host");
    struct json_object *lim = host ? json_object_object_get (host, "limits") : NULL;
    fprintf (f, "- limits: pid_max %s, threads-max %s, max_map_count %s, RLIMIT_NPROC %s\n",
             jstr (lim, "kernel.pid_max"), jstr (lim, "kernel.threads-max"), jstr (lim, "vm.max_map_count"),
             jstr (lim, "RLIMIT_NPROC"));
  }
  fprintf (f, "- lab revision %s; build: `%s`\n- command: `", jstr (meta, "lab_revision"), jstr (meta, "build_flags"));
  for (size_t i = 0; argv && i < json_object_array_length (argv); i++)
    fprintf (f, "%s%s", i ? " " : "", json_object_get_string (json_object_array_get_idx (argv, i)));
  fprintf (f, "`\n- raw data: [summary.csv](summary.csv), one JSON per point in points/, environment in meta.json\n\n");

  fprintf (f, "## Headlines\n\n");
  for (int e = 0; e < n_exps; e++)
    {
      long best = -1;
      for (int i = 0; i < n; i++)
        if (strcmp (agg[i].experiment, exps[e]) == 0 && agg[i].n_ok && agg[i].n > best)
          best = agg[i].n;
      if (best < 0)
        continue;
      fprintf (f, "- %s at n=%ld: ", exps[e], best);
      for (int i = 0, first = 1; i < n; i++)
        if (strcmp (agg[i].experiment, exps[e]) == 0 && agg[i].n == best)
          {
            char mem[32];
            human_bytes (mem, sizeof (mem), agg[i].cg_per_task);
            if (agg[i].n_ok && strcmp (exps[e], "switch") == 0 && agg[i].ops_per_s > 0)
              fprintf (f, "%s**%s %.1f ns/switch**", first ? "" : ", ", agg[i].variant, 1e9 / agg[i].ops_per_s);
            else if (agg[i].n_ok && strcmp (exps[e], "memory") == 0 && agg[i].cg_per_task > 0)
              fprintf (f, "%s**%s %s/task**", first ? "" : ", ", agg[i].variant, mem);
            else if (agg[i].n_ok && lab_experiment_find (exps[e]) && lab_experiment_find (exps[e])->plots == 0)
              fprintf (f, "%s%s ok", first ? "" : ", ", agg[i].variant);
            else if (agg[i].n_ok)
              fprintf (f, "%s**%s %.3f s**", first ? "" : ", ", agg[i].variant, agg[i].wall_med);
            else
              fprintf (f, "%s%s `%s`", first ? "" : ", ", agg[i].variant, agg[i].status);
            first = 0;
          }
      fprintf (f, "\n");
    }
  fprintf (f, "\n## Published claims (shared/CLAIMS.md), re-measured here\n\n");
  claim_c1 (f, agg, n);
  claim_c2 (f, agg, n);
  claim_c3 (f, agg, n);
  claim_c12 (f, agg, n);
  for (int e = 0; e < n_exps; e++)
    {
      static const char *const plots[] = { "wall", "mem", "mem-per-task", "ns-per-op" };
      fprintf (f, "\n## %s\n\n", exps[e]);
      table (f, exps[e], agg, n);
      for (size_t p = 0; p < ARRAY_SIZE (plots); p++)
        {
          char png[4096];
          snprintf (png, sizeof (png), "%s/plots/%s-%s.png", dir, exps[e], plots[p]);
          if (access (png, F_OK) == 0)
            fprintf (f, "![%s %s](plots/%s-%s.png)\n\n", exps[e], plots[p], exps[e], plots[p]);
        }
      for (int i = 0; i < n; i++)
        if (strcmp (agg[i].experiment, exps[e]) == 0 && agg[i].n_ok < agg[i].n_total)
          fprintf (f, "- %s n=%ld: %d of %d runs ended `%s`: %s\n", agg[i].variant, agg[i].n,
                   agg[i].n_total - agg[i].n_ok, agg[i].n_total, agg[i].n_ok ? "not ok" : agg[i].status,
                   agg[i].detail);
    }
  fclose (f);
  snprintf (path, sizeof (path), "%s/report.md", dir);
  ret = lab_write_file_atomic (path, buf, len, err);
  free (buf);
  return ret;
}
