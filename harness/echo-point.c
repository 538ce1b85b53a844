/*
 * echo-point.c - what the `echo` experiment adds to a point: its client
 * (companion.h) and how the client's figures become the point's.
 *
 * Commands in the client cgroup, in the server's network namespace:
 *   --opt client=wrk (proto=http only): Debian's wrk for the closed-loop
 *     phase (-t1 -c N -d phase_s), then
 *   wl-loadgen: warm-up, closed loop, open loop at the run's rate, writing
 *     points/<id>.hgrm (experiments/loadgen/loadgen.h).
 * CPUs: server on `server_cpus` (default CPU 0), client on `client_cpus`
 * (default CPU 1) when the host has two or more CPUs; the same for every
 * variant.
 *
 * Open-loop rate: the same for every variant at a given n.  `--opt rate=R`,
 * or half the slowest variant's closed-loop capacity, measured before the
 * first point at that n by a calibration pass (every variant, closed loop
 * only, warm-up 0.5 s, 1 s) whose points go to DIR/calibration/points/ and
 * whose decision to DIR/calibration/rate-n<N>.json (reused by --resume).
 *
 * Phases: warm-up `warmup_s` (default 1 s), closed loop `phase_s` (default
 * 2 s), open loop `open_s` (default: phase_s when that is given, else
 * OPEN_S_DEFAULT, 5 s).
 *
 * Which side limited the closed loop: wl-loadgen reads both sides' CPU at
 * the closed window's edges (--server-pid {server_pid}, and for coroutine
 * servers --server-idle-addr {idle_addr} from the ready line; cpuwin.h);
 * lab_echo_judge_bound turns that into `bound` / `client_bound`
 * (echo-point.h), in the point's client_figures.
 *
 * Status: a client that fails makes the point `crashed` (or `limit` when it
 * names a host limit) with the client's own reason; a server that never
 * printed @lab-ready ends `timeout` and says so: after `--opt
 * ready_timeout_s` (default 30 s; the companion's ready timeout), or the
 * point's own --timeout if that comes first.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "companion.h"
#include "echo-point.h"
#include "point.h"
#include "results.h"
#include "utils.h"

#define WRK_PATH "/usr/bin/wrk"
#define RATE_FRACTION 0.5
#define READY_TIMEOUT_S 30 /* a server binds and listens in milliseconds */
/* The open loop's length when neither open_s nor phase_s is given.  Longer
   than the closed loop's 2 s: this VM's hypervisor stops a vCPU ~8-10 ms
   about once a second, and p99 at 60K req/s lands on those stalls' ramps;
   5 s averages more of them (n=1000, epoll and coro-uring, 12 interleaved
   repeats: the p99 interquartile range shrank 1.5-1.9x from 2 s to 5 s,
   for +3 s a point). */
#define OPEN_S_DEFAULT 5

static struct
{
  char lg[PATH_MAX], wrk_url[64], conns[32], rate[32], warm[32], closed[32], open[32], size[32];
  char hgrm[PATH_MAX + 200], out[2][PATH_MAX + 200], err[2][PATH_MAX + 200], name[200];
  char wrk_c[32], wrk_d[32], server_cpus[64], client_cpus[64];
  char *lg_argv[40], *wrk_argv[16];
} P;

static int calibrating;

static const char *
opts_get (char *const *wl_opts, const char *key, const char *def)
{
  size_t k = strlen (key);
  const char *v = def;
  for (char *const *kv = wl_opts; kv && *kv; kv++)
    if (strncmp (*kv, key, k) == 0 && (*kv)[k] == '=')
      v = *kv + k + 1; /* the last one given wins, as in the workload */
  return v;
}

#define opt(pt, key, def) opts_get ((pt)->wl_opts, (key), (def))

static int
opts_num (char *const *wl_opts, const char *key, double def, double min, double max, double *out, lab_error_t *err)
{
  const char *s = opts_get (wl_opts, key, NULL);
  char *end = NULL;
  if (s == NULL)
    {
      *out = def;
      return 0;
    }
  errno = 0;
  *out = strtod (s, &end);
  if (errno || end == s || *end || !isfinite (*out) || *out < min || *out > max)
    return lab_usage_error (err, "--opt %s=%s: expected a number in %g..%g", key, s, min, max);
  return 0;
}

/* A CPU list such as "1" or "0-1,3" whose CPUs exist here. */
static int
check_cpus (const char *key, const char *list, lab_error_t *err)
{
  long ncpu = sysconf (_SC_NPROCESSORS_CONF);
  const char *p = list;
  while (*p)
    {
      char *end;
      long a = strtol (p, &end, 10), b = a;
      if (end == p)
        goto bad;
      if (*end == '-')
        {
          p = end + 1;
          b = strtol (p, &end, 10);
          if (end == p)
            goto bad;
        }
      if (a < 0 || b < a || b >= ncpu)
        return lab_usage_error (err, "--opt %s=%s: CPU %ld does not exist (this host has 0-%ld)", key, list,
                                b >= ncpu ? b : a, ncpu - 1);
      p = end;
      if (*p == ',')
        p++;
      else if (*p)
        goto bad;
    }
  return 0;
bad:
  return lab_usage_error (err, "--opt %s=%s: expected a CPU list such as 1 or 0-1,3", key, list);
}

static double
get_num (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  if (o && json_object_object_get_ex (o, key, &v) && v
      && (json_object_is_type (v, json_type_double) || json_object_is_type (v, json_type_int)))
    return json_object_get_double (v);
  return -1;
}

static const char *
get_str (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  if (o && json_object_object_get_ex (o, key, &v) && json_object_is_type (v, json_type_string))
    return json_object_get_string (v);
  return NULL;
}

/* The open-loop rate at pt->n: measured once per n (see the top comment). */
static int
calibrate (const struct lab_point *pt, const char *dir, const struct lab_profile *profile, double timeout_s,
           double *rate, lab_error_t *err)
{
  char cdir[PATH_MAX], path[PATH_MAX + 64];
  struct json_object *dec = NULL, *caps;
  snprintf (cdir, sizeof cdir, "%s/calibration", dir);
  snprintf (path, sizeof path, "%s/rate-n%ld.json", cdir, pt->n);
  if (access (path, F_OK) == 0 && lab_json_read (path, &dec, NULL) == 0)
    {
      *rate = get_num (dec, "rate");
      json_object_put (dec);
      return 0;
    }
  snprintf (path, sizeof path, "%s/points", cdir);
  if (lab_mkdir_p (path, 0755, err) < 0)
    return -1;
  double slowest = -1;
  const char *slowest_v = NULL;
  caps = json_object_new_object ();
  for (int v = 0; pt->exp->variants[v]; v++)
    {
      struct lab_point cp = *pt;
      struct json_object *res = NULL;
      cp.variant = pt->exp->variants[v];
      cp.repeat = 1;
      snprintf (cp.id, sizeof cp.id, "calib-%s-n%ld", cp.variant, cp.n);
      calibrating = 1;
      int r = lab_point_run (&cp, profile, cdir, timeout_s, NULL, &res, err);
      calibrating = 0;
      if (r < 0)
        {
          json_object_put (caps);
          return lab_error_prepend (err, "calibrating the open-loop rate");
        }
      double ops = get_num (lab_point_summary (res), "ops_per_s");
      const char *st = get_str (res, "status");
      json_object_object_add (caps, cp.variant, ops > 0 && st && strcmp (st, "ok") == 0 ? json_object_new_double (ops) : NULL);
      if (ops > 0 && st && strcmp (st, "ok") == 0 && (slowest < 0 || ops < slowest))
        {
          slowest = ops;
          slowest_v = pt->exp->variants[v];
        }
      json_object_put (res);
    }
  *rate = slowest > 0 ? floor (slowest * RATE_FRACTION) : 0;
  dec = json_object_new_object ();
  json_object_object_add (dec, "n", json_object_new_int64 (pt->n));
  json_object_object_add (dec, "rate", json_object_new_double (*rate));
  json_object_object_add (dec, "fraction", json_object_new_double (RATE_FRACTION));
  json_object_object_add (dec, "slowest_variant", slowest_v ? json_object_new_string (slowest_v) : NULL);
  json_object_object_add (dec, "capacities_ops_per_s", caps);
  snprintf (path, sizeof path, "%s/rate-n%ld.json", cdir, pt->n);
  int r = lab_json_write (path, dec, err);
  json_object_put (dec);
  return r;
}

/* The options that must agree with each other or name real CPUs: checked
   by `lab run` before anything runs (exit 2), and again by each plan. */
static int
echo_check (char *const *wl_opts, double *rate, double *warm, double *phase, double *open, double *size,
            double *ready, lab_error_t *err)
{
  const char *proto = opts_get (wl_opts, "proto", "echo"), *client = opts_get (wl_opts, "client", "loadgen");
  const char *sc = opts_get (wl_opts, "server_cpus", NULL), *cc = opts_get (wl_opts, "client_cpus", NULL);
  if (strcmp (client, "wrk") == 0 && strcmp (proto, "http") != 0)
    return lab_usage_error (err, "--opt client=wrk needs --opt proto=http (wrk speaks HTTP only)");
  if (opts_num (wl_opts, "rate", -1, 1, 1e8, rate, err) < 0 || opts_num (wl_opts, "warmup_s", 1, 0, 600, warm, err) < 0
      || opts_num (wl_opts, "phase_s", 2, 0.1, 600, phase, err) < 0
      || opts_num (wl_opts, "size", 64, 1, 65536, size, err) < 0
      || opts_num (wl_opts, "ready_timeout_s", READY_TIMEOUT_S, 0.1, 86400, ready, err) < 0
      || opts_num (wl_opts, "open_s", opts_get (wl_opts, "phase_s", NULL) ? *phase : OPEN_S_DEFAULT, 0.1, 600,
                   open, err) < 0)
    return -1;
  if ((sc && check_cpus ("server_cpus", sc, err) < 0) || (cc && check_cpus ("client_cpus", cc, err) < 0))
    return -1;
  return 0;
}

static int
echo_precheck (char *const *wl_opts, lab_error_t *err)
{
  double r, w, p, o, s, rt;
  return echo_check (wl_opts, &r, &w, &p, &o, &s, &rt, err);
}

static int
echo_plan (const struct lab_point *pt, const char *dir, const struct lab_profile *profile, double timeout_s,
           struct lab_companion_spec *spec, const char **server_cpus, lab_error_t *err)
{
  const char *proto = opt (pt, "proto", "echo"), *client = opt (pt, "client", "loadgen");
  int wrk = strcmp (client, "wrk") == 0 && !calibrating;
  double rate, warm, phase, open, size, ready;
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);

  if (echo_check (pt->wl_opts, &rate, &warm, &phase, &open, &size, &ready, err) < 0)
    return -1;
  if (wrk && access (WRK_PATH, X_OK) < 0)
    return lab_error (err, errno, "--opt client=wrk: `%s` (Debian package wrk; `make deps` installs it)", WRK_PATH);
  if (calibrating)
    {
      rate = 0;
      warm = 0.5;
      phase = 1;
    }
  else if (rate < 0 && calibrate (pt, dir, profile, timeout_s, &rate, err) < 0)
    return -1;

  /* P is filled only now: calibrate() plans points of its own with it. */
  snprintf (P.server_cpus, sizeof P.server_cpus, "%s", opt (pt, "server_cpus", ncpu >= 2 ? "0" : ""));
  snprintf (P.client_cpus, sizeof P.client_cpus, "%s", opt (pt, "client_cpus", ncpu >= 2 ? "1" : ""));
  *server_cpus = P.server_cpus[0] ? P.server_cpus : NULL;
  snprintf (P.lg, sizeof P.lg, "%s/wl-loadgen", lab_bin_dir ());
  snprintf (P.conns, sizeof P.conns, "%ld", pt->n);
  snprintf (P.rate, sizeof P.rate, "%.0f", rate);
  snprintf (P.warm, sizeof P.warm, "%g", warm);
  snprintf (P.closed, sizeof P.closed, "%g", phase);
  snprintf (P.open, sizeof P.open, "%g", rate > 0 ? open : 0);
  snprintf (P.size, sizeof P.size, "%.0f", size);
  snprintf (P.hgrm, sizeof P.hgrm, "%s/points/%s.hgrm", dir, pt->id);
  char **a = P.lg_argv;
  *a++ = P.lg;
  *a++ = (char *) "--port", *a++ = (char *) "{port}";
  *a++ = (char *) "--conns", *a++ = P.conns;
  *a++ = (char *) "--proto", *a++ = (char *) proto;
  *a++ = (char *) "--size", *a++ = P.size;
  *a++ = (char *) "--warmup", *a++ = P.warm;
  *a++ = (char *) "--closed", *a++ = P.closed;
  *a++ = (char *) "--open", *a++ = P.open;
  *a++ = (char *) "--rate", *a++ = P.rate;
  *a++ = (char *) "--server-pid", *a++ = (char *) "{server_pid}";
  *a++ = (char *) "--server-idle-addr", *a++ = (char *) "{idle_addr}";
  if (rate > 0)
    *a++ = (char *) "--hgrm", *a++ = P.hgrm;
  *a = NULL;

  int n = 0;
  if (wrk)
    {
      snprintf (P.wrk_c, sizeof P.wrk_c, "%ld", pt->n);
      snprintf (P.wrk_d, sizeof P.wrk_d, "%.0fs", ceil (phase));
      snprintf (P.wrk_url, sizeof P.wrk_url, "http://127.0.0.1:{port}/");
      char **w = P.wrk_argv;
      *w++ = (char *) WRK_PATH;
      *w++ = (char *) "-t1", *w++ = (char *) "-c", *w++ = P.wrk_c, *w++ = (char *) "-d", *w++ = P.wrk_d;
      *w++ = (char *) "--latency", *w++ = P.wrk_url;
      *w = NULL;
      snprintf (P.out[n], sizeof P.out[n], "%s/points/%s.wrk.out", dir, pt->id);
      snprintf (P.err[n], sizeof P.err[n], "%s/points/%s.wrk.err", dir, pt->id);
      spec->cmds[n] = (struct lab_companion_cmd){ "wrk", P.wrk_argv, P.out[n], P.err[n] };
      n++;
    }
  snprintf (P.out[n], sizeof P.out[n], "%s/points/%s.client.out", dir, pt->id);
  snprintf (P.err[n], sizeof P.err[n], "%s/points/%s.client.err", dir, pt->id);
  spec->cmds[n] = (struct lab_companion_cmd){ "loadgen", P.lg_argv, P.out[n], P.err[n] };
  n++;
  spec->n_cmds = n;
  snprintf (P.name, sizeof P.name, "%s-client", pt->id);
  spec->name = P.name;
  spec->cpus = P.client_cpus[0] ? P.client_cpus : NULL;
  spec->stop_signal = SIGTERM;
  spec->ready_timeout_s = ready;
  return 0;
}

/* wrk's "Requests/sec:  12345.67" line; -1 if absent. */
double
lab_echo_wrk_rate (const char *path)
{
  FILE *f = fopen (path, "re");
  char line[512];
  double v = -1;
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "Requests/sec:", 13) == 0)
      v = strtod (line + 13, NULL);
  fclose (f);
  return v;
}

static void
describe_run (const struct lab_companion *c, int i, char *buf, size_t len)
{
  const struct lab_companion_run *r = &c->runs[i];
  if (!r->started)
    snprintf (buf, len, "did not start");
  else if (r->term_signal)
    snprintf (buf, len, "killed by SIG%s", sigabbrev_np (r->term_signal));
  else
    snprintf (buf, len, "exited with code %d", r->exit_code);
}

/* Which side limited the closed loop (see echo-point.h): from each side's
   load over the closed window, its demand (CPU, less a coroutine server's
   idle spinning, plus run-queue wait) where the wait was read, else its
   busy fraction (CPU only). */
void
lab_echo_judge_bound (struct json_object *figs, const char *variant)
{
  int coro = strncmp (variant, "coro-", 5) == 0;
  double cl = get_num (figs, "client_demand"), sl = get_num (figs, "server_demand");
  double idle = get_num (figs, "server_idle_spin_s");
  const char *bound = NULL, *why = NULL;
  if (cl < 0)
    cl = get_num (figs, "client_busy");
  if (sl < 0 || get_num (figs, "server_runq_wait_s") < 0)
    sl = get_num (figs, coro ? "server_busy_net" : "server_busy");
  if (cl < 0 || sl < 0)
    why = "a CPU reading of the closed window is missing";
  else if (coro && idle < 0)
    why = "a coroutine server spins when idle and its idle spinning was not read: its CPU time says nothing";
  else
    {
      int c = cl >= LAB_ECHO_SATURATED, s = sl >= LAB_ECHO_SATURATED;
      bound = c && s ? "both" : c ? "client" : s ? "server" : "neither";
    }
  json_object_object_add (figs, "saturated_at", json_object_new_double (LAB_ECHO_SATURATED));
  json_object_object_add (figs, "client_load", cl >= 0 && why == NULL ? json_object_new_double (cl) : NULL);
  json_object_object_add (figs, "server_load", sl >= 0 && why == NULL ? json_object_new_double (sl) : NULL);
  json_object_object_add (figs, "bound", bound ? json_object_new_string (bound) : NULL);
  json_object_object_add (figs, "bound_note", why ? json_object_new_string (why) : NULL);
  json_object_object_add (figs, "client_bound", bound ? json_object_new_boolean (strcmp (bound, "client") == 0) : NULL);
  /* Other work took a side's CPU for a noticeable share of the window: the
     capacity measures the machine's load as much as the variant. */
  double win = get_num (figs, "closed_cpu_window_s"), cw = get_num (figs, "client_runq_wait_s");
  double sw = get_num (figs, "server_runq_wait_s"), cc = get_num (figs, "client_cpus"), sc = get_num (figs, "server_cpus_allowed");
  double cws = win > 0 && cw >= 0 && cc > 0 ? cw / (win * cc) : -1, sws = win > 0 && sw >= 0 && sc > 0 ? sw / (win * sc) : -1;
  json_object_object_add (figs, "client_wait_share", cws >= 0 ? json_object_new_double (cws) : NULL);
  json_object_object_add (figs, "server_wait_share", sws >= 0 ? json_object_new_double (sws) : NULL);
  json_object_object_add (figs, "contended",
                          cws < 0 && sws < 0 ? NULL : json_object_new_boolean (cws > LAB_ECHO_CONTENDED || sws > LAB_ECHO_CONTENDED));
}

void
lab_echo_server_cpu_per_req (struct json_object *figs, const char *variant)
{
  double cpu = get_num (figs, "server_cpu_s"), ops = get_num (figs, "ops");
  double idle = strncmp (variant, "coro-", 5) == 0 ? get_num (figs, "server_idle_spin_s") : 0;
  double v = cpu >= 0 && idle >= 0 && idle <= cpu && ops > 0 ? (cpu - idle) / ops * 1e9 : -1;
  json_object_object_add (figs, "server_cpu_per_req_ns", v >= 0 ? json_object_new_double (v) : NULL);
}

static struct json_object *
echo_judge (const struct lab_companion *c, const struct lab_point *pt, const char *dir, const char **status,
            char *detail, size_t len)
{
  int lg = c->spec.n_cmds - 1; /* wl-loadgen is the last command */
  struct json_object *rep = lab_point_read_report (c->spec.cmds[lg].out_path);
  struct json_object *figs = rep ? rep : json_object_new_object ();
  char how[128];

  if (c->spec.n_cmds > 1)
    {
      double w = lab_echo_wrk_rate (c->spec.cmds[0].out_path), ours = get_num (rep, "ops_per_s");
      json_object_object_add (figs, "loadgen_ops_per_s", ours > 0 ? json_object_new_double (ours) : NULL);
      json_object_object_add (figs, "wrk_ops_per_s", w > 0 ? json_object_new_double (w) : NULL);
      /* The closed-loop phase of a client=wrk point is wrk's. */
      json_object_object_add (figs, "ops_per_s", w > 0 ? json_object_new_double (w) : NULL);
    }
  if (rep)
    {
      lab_echo_judge_bound (figs, pt->variant);
      lab_echo_server_cpu_per_req (figs, pt->variant);
    }
  if (strcmp (*status, "ok") != 0)
    {
      if (strcmp (*status, "timeout") == 0 && c->ready_timed_out)
        snprintf (detail, len,
                  "the server never reported ready (no @lab-ready line on its stdout within the ready timeout, "
                  "%g s: --opt ready_timeout_s)", c->spec.ready_timeout_s);
      else if (strcmp (*status, "timeout") == 0 && c->ready == NULL)
        snprintf (detail, len, "the server never reported ready (no @lab-ready line on its stdout)");
      else if (c->cur >= 0 && c->cur < c->spec.n_cmds && c->runs[c->cur].started)
        {
          size_t l = strlen (detail);
          describe_run (c, c->cur, how, sizeof how);
          snprintf (detail + l, len - l, "%sclient `%s` %s, reaped", l ? "; " : "", c->spec.cmds[c->cur].label, how);
        }
      return figs;
    }
  if (c->ready == NULL)
    {
      *status = "crashed";
      snprintf (detail, len, "the server ended without reporting ready");
      return figs;
    }
  for (int i = 0; i < c->spec.n_cmds; i++)
    if (c->runs[i].exit_code != 0)
      {
        const char *rs = get_str (rep, "status"), *rd = get_str (rep, "detail");
        describe_run (c, i, how, sizeof how);
        if (i == lg && rs && strcmp (rs, "limit") == 0)
          {
            *status = "limit";
            snprintf (detail, len, "client: %s: %s", get_str (rep, "limit") ? get_str (rep, "limit") : "limit", rd ? rd : "");
          }
        else
          {
            *status = "crashed";
            snprintf (detail, len, "client `%s` %s%s%s%s%s", c->spec.cmds[i].label, how, i == lg && rd ? ": " : "",
                      i == lg && rd ? rd : "", c->detail[0] ? "; " : "", c->detail);
          }
        return figs;
      }
  if (c->runs[lg].exit_code != 0 || !c->runs[lg].started)
    {
      *status = "crashed";
      snprintf (detail, len, "client did not run: %s", c->detail);
    }
  return figs;
}

const struct lab_companion_ops lab_echo_companion = { echo_precheck, echo_plan, echo_judge };
