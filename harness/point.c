/*
 * point.c - runs one experiment point (see point.h).
 *
 * Status: the sandbox decides oom, timeout, seccomp and crashed from how the
 * workload ended; a workload that exited reports `ok` or `limit` (a host limit
 * stopped it: data, not a failure).  A workload that exits without a report,
 * or reports an error, is `crashed` with the reason in `detail`.
 * Figures (summary.csv; make_summary): every column is the workload's own,
 * over the window its wall_s claims.
 *   wall_s, ops, ops_per_s, lat_*     the workload's report: its measured
 *                                     region (empty when it reports none; the
 *                                     sandbox's whole-point time is
 *                                     sandbox.point_wall_s in the point JSON)
 *   cpu_user_s, cpu_sys_s,            the workload's getrusage deltas over that
 *   vol_ctxsw, invol_ctxsw            region (region_*); the reaped init's
 *                                     rusage (init + workload + setup) stays in
 *                                     the JSON under sandbox.
 *   rss_peak_bytes, vss_peak_bytes    the larger of the harness's samples of
 *                                     the workload's processes (after exec; never
 *                                     init, a copy of the harness) and the
 *                                     workload's own VmHWM/VmPeak at its report
 *   swap_peak_bytes                   samples
 *   cgroup_mem_peak_bytes,            the cgroup (peak; kernel part at the
 *   kernel_mem_bytes                  sampled peak)
 *   rss_baseline_bytes,               the workload's baseline before its tasks
 *   cgroup_baseline_bytes             (per-task figures subtract it)
 *   start_lat_p50_ns, _p99_ns         spawn: task created -> first run
 * A point with a client (companion.h, e.g. echo) takes ops, ops_per_s and
 * lat_* from the client's figures (its load generator's report) instead:
 * the server measures neither; every other column stays the server's.
 */
#include "point.h"
#include "peers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "companion.h"
#include "results.h"
#include "sandbox.h"
#include "utils.h"

struct json_object *
lab_point_read_report (const char *stdout_path)
{
  FILE *f = fopen (stdout_path, "re");
  char *line = NULL, *last = NULL;
  size_t cap = 0;
  struct json_object *o = NULL;

  if (f == NULL)
    return NULL;
  while (getline (&line, &cap, f) > 0)
    if (strncmp (line, "@lab-report ", 12) == 0)
      {
        free (last);
        last = strdup (line + 12);
      }
  free (line);
  fclose (f);
  if (last)
    o = json_tokener_parse (last);
  free (last);
  if (o && !json_object_is_type (o, json_type_object))
    {
      json_object_put (o);
      o = NULL;
    }
  return o;
}

static void
add_num (struct json_object *row, const char *key, int64_t v)
{
  json_object_object_add (row, key, v >= 0 ? json_object_new_int64 (v) : NULL);
}

/* row[as] = report[key], or null. */
static void
copy_key_as (struct json_object *row, struct json_object *report, const char *key, const char *as)
{
  struct json_object *v = NULL;
  if (report && json_object_object_get_ex (report, key, &v) && v)
    json_object_object_add (row, as, json_object_get (v));
  else
    json_object_object_add (row, as, NULL);
}

static void
copy_key (struct json_object *row, struct json_object *report, const char *key)
{
  copy_key_as (row, report, key, key);
}

static const char *
report_str (struct json_object *report, const char *key)
{
  struct json_object *v = NULL;
  if (report && json_object_object_get_ex (report, key, &v) && json_object_is_type (v, json_type_string))
    return json_object_get_string (v);
  return NULL;
}

/* Decides the point's status from the sandbox's verdict and the workload's report. */
const char *
lab_point_decide_status (const struct lab_sandbox_result *res, struct json_object *report, char *detail, size_t len)
{
  const char *rs = report_str (report, "status"), *rd = report_str (report, "detail");

  if (res->status != LAB_ST_OK)
    {
      snprintf (detail, len, "%s", res->detail);
      return lab_status_name (res->status);
    }
  if (rs && strcmp (rs, "limit") == 0)
    {
      snprintf (detail, len, "%s: %s", report_str (report, "limit") ? report_str (report, "limit") : "limit",
                rd ? rd : "");
      return lab_status_name (LAB_ST_LIMIT);
    }
  if (rs && strcmp (rs, "ok") == 0 && res->exit_code == 0)
    {
      detail[0] = '\0';
      return lab_status_name (LAB_ST_OK);
    }
  if (rs)
    snprintf (detail, len, "workload reported `%s` (exit code %d): %s", rs, res->exit_code, rd ? rd : "");
  else
    snprintf (detail, len, "workload exited with code %d without a report", res->exit_code);
  return lab_status_name (LAB_ST_CRASHED);
}

static int64_t
report_i64 (struct json_object *report, const char *key)
{
  struct json_object *v = NULL;
  if (report && json_object_object_get_ex (report, key, &v) && v
      && (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)))
    return json_object_get_int64 (v);
  return -1;
}

static int64_t
max_i64 (int64_t a, int64_t b)
{
  return a > b ? a : b;
}

static int64_t
kernel_mem (const struct lab_cgroup_stats *st)
{
  if (st->kernel >= 0)
    return st->kernel;
  if (st->kernel_stack < 0 && st->pagetables < 0)
    return -1;
  return (st->kernel_stack > 0 ? st->kernel_stack : 0) + (st->pagetables > 0 ? st->pagetables : 0)
         + (st->slab > 0 ? st->slab : 0);
}

/* `figs`: where ops, ops_per_s and the latencies come from (the workload's
   report, or, for a point with a client, the client's figures). */
static struct json_object *
make_summary (const struct lab_point *pt, const char *status, const struct lab_sandbox_result *res,
              struct json_object *report, struct json_object *figs)
{
  struct json_object *row = json_object_new_object ();
  int64_t kernel = -1;

  json_object_object_add (row, "experiment", json_object_new_string (pt->exp->name));
  json_object_object_add (row, "variant", json_object_new_string (pt->variant));
  json_object_object_add (row, "n", json_object_new_int64 (pt->n));
  json_object_object_add (row, "repeat", json_object_new_int (pt->repeat));
  json_object_object_add (row, "status", json_object_new_string (status));
  if (res == NULL)
    return row;
  /* The workload's measured region only; nothing stands in for it. */
  copy_key_as (row, report, "wall_s", "wall_s");
  copy_key_as (row, report, "region_cpu_user_s", "cpu_user_s");
  copy_key_as (row, report, "region_cpu_sys_s", "cpu_sys_s");
  /* The workload's own peaks: samples of its processes after exec (init, a
     fork of the harness, is never sampled) and its VmHWM/VmPeak at exit.
     Not ru_maxrss: init's includes the harness's pages, and the workload's
     own counts its pre-exec image. */
  add_num (row, "rss_peak_bytes", max_i64 (res->rss_peak, report_i64 (report, "vm_hwm_bytes")));
  add_num (row, "vss_peak_bytes", max_i64 (res->vss_peak, report_i64 (report, "vm_peak_bytes")));
  add_num (row, "swap_peak_bytes", res->swap_peak);
  add_num (row, "cgroup_mem_peak_bytes", res->cg.mem_peak >= 0 ? res->cg.mem_peak : res->cg_mem_peak_sampled);
  /* Kernel memory is gone once the workload exits, so the end-of-run figures
     only help where the kernel keeps a peak (v1 kmem max_usage); the figures
     read at the sampled memory peak are the measurement elsewhere. */
  kernel = kernel_mem (&res->cg);
  if (kernel_mem (&res->cg_at_peak) > kernel)
    kernel = kernel_mem (&res->cg_at_peak);
  add_num (row, "kernel_mem_bytes", kernel);
  add_num (row, "vol_ctxsw", report_i64 (report, "region_vol_ctxsw"));
  add_num (row, "invol_ctxsw", report_i64 (report, "region_invol_ctxsw"));
  for (const char *const *k = (const char *const[]){ "ops", "ops_per_s", "lat_p50_ns", "lat_p99_ns",
                                                     "lat_p999_ns", "lat_max_ns", NULL };
       *k; k++)
    copy_key (row, figs, *k);
  for (const char *const *k = (const char *const[]){ "rss_baseline_bytes", "cgroup_baseline_bytes",
                                                     "start_lat_p50_ns", "start_lat_p99_ns", NULL };
       *k; k++)
    copy_key (row, report, *k);
  return row;
}

struct json_object *
lab_point_make_summary (const struct lab_point *pt, const char *status, const struct lab_sandbox_result *res,
                        struct json_object *report)
{
  return make_summary (pt, status, res, report, report);
}

static int
open_log (const char *dir, const char *id, const char *ext, char *path, size_t len, lab_error_t *err)
{
  int fd;
  snprintf (path, len, "%s/points/%s.%s", dir, id, ext);
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return lab_error (err, errno, "creating `%s`", path);
  return fd;
}

static void
utc_now (char *buf, size_t len)
{
  struct timespec ts;
  struct tm tm;
  char sec[32];
  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  strftime (sec, sizeof (sec), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf (buf, len, "%s.%06ldZ", sec, ts.tv_nsec / 1000); /* sortable: points load in run order */
}

int
lab_point_run (const struct lab_point *pt, const struct lab_profile *profile, const char *dir,
               double timeout_s, const char *skip_reason, struct json_object **out, lab_error_t *err)
{
  char wl[4096], nbuf[32], outp[4096], samplesp[4200], errp[4096], jsonp[4096], started[48], finished[48], detail[512];
  char *argv[64] = { wl, (char *) "--variant", (char *) pt->variant, (char *) "--n", nbuf, NULL };
  int argc = 5;
  struct lab_sandbox_spec spec = { 0 };
  struct lab_sandbox_result res;
  struct json_object *o, *report = NULL, *cmd, *figs = NULL;
  const struct lab_companion_ops *cops = lab_experiment_companion (pt->exp);
  struct lab_companion comp;
  struct lab_companion_spec cspec;
  struct lab_profile server_prof;
  const char *server_cpus = NULL;
  cleanup_close int outfd = -1, errfd = -1;
  const char *status;

  lab_variant_binary (pt->exp->name, pt->variant, wl, sizeof (wl));
  snprintf (nbuf, sizeof (nbuf), "%ld", pt->n);
  if (pt->backend)
    {
      argv[argc++] = (char *) "--backend";
      argv[argc++] = (char *) pt->backend;
    }
  if (pt->stack)
    {
      argv[argc++] = (char *) "--stack";
      argv[argc++] = (char *) pt->stack;
    }
  for (char *const *kv = pt->wl_opts; kv && *kv && argc < 60; kv++)
    {
      argv[argc++] = (char *) "--opt";
      argv[argc++] = *kv;
    }
  argv[argc] = NULL;
  snprintf (jsonp, sizeof (jsonp), "%s/points/%s.json", dir, pt->id);
  utc_now (started, sizeof (started));
  o = json_object_new_object ();
  json_object_object_add (o, "id", json_object_new_string (pt->id));
  json_object_object_add (o, "experiment", json_object_new_string (pt->exp->name));
  json_object_object_add (o, "variant", json_object_new_string (pt->variant));
  json_object_object_add (o, "n", json_object_new_int64 (pt->n));
  json_object_object_add (o, "repeat", json_object_new_int (pt->repeat));
  cmd = json_object_new_array ();
  for (char **a = argv; *a; a++)
    json_object_array_add (cmd, json_object_new_string (*a));
  json_object_object_add (o, "command", cmd);
  json_object_object_add (o, "started_at", json_object_new_string (started));
  if (skip_reason)
    {
      json_object_object_add (o, "status", json_object_new_string (lab_status_name (LAB_ST_SKIPPED)));
      json_object_object_add (o, "detail", json_object_new_string (skip_reason));
      json_object_object_add (o, "summary", make_summary (pt, lab_status_name (LAB_ST_SKIPPED), NULL, NULL, NULL));
      goto write;
    }
  if (access (wl, X_OK) < 0)
    {
      json_object_put (o);
      return lab_error (err, errno, "workload `%s` (run `make`)", wl);
    }
  outfd = open_log (dir, pt->id, "out", outp, sizeof (outp), err);
  if (outfd < 0)
    goto fail;
  errfd = open_log (dir, pt->id, "err", errp, sizeof (errp), err);
  if (errfd < 0)
    goto fail;
  spec.profile = profile;
  spec.argv = argv;
  spec.name = pt->id;
  spec.stdout_fd = outfd;
  spec.stderr_fd = errfd;
  spec.timeout_s = timeout_s;
  snprintf (samplesp, sizeof (samplesp), "%s/points/%s.samples.csv", dir, pt->id);
  spec.samples_path = samplesp;
  if (cops)
    {
      /* A client beside the server (companion.h): planned, then stepped
         from the sandbox's wait loop, finished on every path. */
      memset (&cspec, 0, sizeof cspec);
      if (cops->plan (pt, dir, profile, timeout_s, &cspec, &server_cpus, err) < 0)
        {
          lab_error_prepend (err, "point `%s`", pt->id);
          goto fail;
        }
      cspec.ready_path = outp;
      lab_companion_init (&comp, &cspec);
      spec.companion = &comp;
      if (server_cpus)
        {
          server_prof = *profile;
          server_prof.limits.cpuset_cpus = (char *) server_cpus;
          spec.profile = &server_prof;
        }
    }
  int rc = lab_sandbox_run (&spec, &res, err);
  if (cops)
    lab_companion_finish (&comp);
  if (rc < 0)
    {
      lab_error_prepend (err, "point `%s`", pt->id);
      goto fail;
    }
  report = lab_point_read_report (outp);
  status = lab_point_decide_status (&res, report, detail, sizeof (detail));
  if (cops)
    {
      figs = cops->judge (&comp, pt, dir, &status, detail, sizeof (detail));
      json_object_object_add (o, "client", lab_companion_to_json (&comp));
      json_object_object_add (o, "client_figures", figs);
      json_object_put (comp.ready);
    }
  json_object_object_add (o, "status", json_object_new_string (status));
  json_object_object_add (o, "detail", json_object_new_string (detail));
  json_object_object_add (o, "summary", make_summary (pt, status, &res, report, cops ? figs : report));
  json_object_object_add (o, "workload", report ? report : NULL);
  json_object_object_add (o, "sandbox", lab_sandbox_result_to_json (&spec, &res));
  json_object_object_add (o, "profile", lab_profile_to_json (spec.profile));
write:
  utc_now (finished, sizeof (finished));
  json_object_object_add (o, "finished_at", json_object_new_string (finished));
  if (lab_json_write (jsonp, o, err) < 0)
    goto fail;
  *out = o;
  return 0;
fail:
  json_object_put (o);
  return -1;
}

struct json_object *
lab_point_summary (struct json_object *point)
{
  struct json_object *s = NULL;
  json_object_object_get_ex (point, "summary", &s);
  return s;
}
