/*
 * cmd-run.c - `lab run`: plans the points of the named experiments (variant x
 * n x repeat), runs each in its own sandbox (point.c), keeps summary.csv
 * current after every point, then renders plots and the report (plot.c,
 * report.c).  Interrupted runs keep every finished point; `--resume DIR` (or
 * `--out DIR` on a directory that has points) runs only what is missing.
 *
 * Order: per experiment, n ascending, then repeat, then variant: repeats are
 * interleaved across variants (A B A B, as hyperfine and BenchExec do), so
 * a slow drift of the machine touches every variant alike, and a partial run
 * already compares the variants.  A variant stopped by a host limit or the OOM
 * killer at some n is recorded `skipped` (with the reason) at larger n rather
 * than run into the same wall again.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "companion.h"
#include "commands.h"
#include "meta.h"
#include "plot.h"
#include "point.h"
#include "point-file.h"
#include "pressure.h"
#include "profile.h"
#include "progress.h"
#include "peers.h"
#include "results.h"
#include "run-dir.h"
#include "sandbox.h"
#include "seccomp-bpf.h"
#include "seccomp-cache.h"
#include "seccomp-profile.h"
#include "signals.h"
#include "size.h"
#include "utils.h"

#define MAX_EXPS 16
#define MAX_SCALE 32
#define MAX_VARIANTS 16

struct run_opts
{
  const struct lab_experiment *exps[MAX_EXPS];
  int n_exps;
  const char *scale;
  long ns[MAX_SCALE];
  int n_ns;               /* 0 = quick/full from the catalog */
  int full;
  const char *variants[MAX_VARIANTS];
  int n_variants;
  int repeat;
  char out[PATH_MAX];
  int default_out;
  const char *profile;
  double timeout_s;
  char *wl_opts[17];       /* --opt KEY=VALUE, passed to every workload */
  const char *backend, *stack;
  int n_wl_opts;
};

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: lab run EXPERIMENT... [--scale quick|full|N[,N...]] [--variants A,B] [--repeat K]\n"
           "               [--out DIR] [--profile FILE] [--timeout SECONDS] [--backend io_uring|epoll]\n"
           "               [--stack SIZE] [--opt KEY=VALUE]...\n"
           "       lab run --resume DIR\n\n"
           "Runs every (variant, n, repeat) point of each EXPERIMENT (or `all`) in its own sandbox,\n"
           "writes DIR/summary.csv, DIR/points/*.json and DIR/meta.json, renders DIR/plots/ and\n"
           "DIR/report.md.  Default DIR: results/<UTC time>-<experiments>/, with results/latest\n"
           "pointing at it.  --scale: `quick` (default), `full`, or task counts such as 1000,1M.\n"
           "--profile: sandbox profile for every point (default: the experiment's, normally\n"
           "containers/default.json).  --resume DIR: run the points DIR does not have yet.\n"
           "--backend: the coroutine runtime's I/O backend; --stack: task stack size (both variants).\n"
           "--opt KEY=VALUE: passed to every workload (e.g. guard=none, join=after;\n"
           "see README.md).\n"
           "Exit 0 when every point ran (points ending oom, limit, timeout, seccomp or crashed are\n"
           "data); 1 on harness errors; 2 on bad use.  `lab list` shows experiments and variants.\n");
}

/* Splits a comma list (a copy: argv stays as the user typed it, for ps and
   meta.json).  An empty entry ("1,,2", ",1", "1,") is refused, not skipped. */
static int
parse_list (const char *arg, const char **out, int max, const char *what, lab_error_t *err)
{
  int n = 0;
  char *s = strdup (arg), *tok, *next;

  if (s == NULL)
    return lab_error (err, ENOMEM, "copying %s", what);
  if (*s == '\0')
    return lab_usage_error (err, "%s: empty list", what);
  for (tok = s; tok; tok = next)
    {
      next = strchr (tok, ',');
      if (next)
        *next++ = '\0';
      if (*tok == '\0')
        return lab_usage_error (err, "%s: empty entry in `%s`", what, arg);
      if (n == max)
        return lab_usage_error (err, "%s: more than %d entries", what, max);
      out[n++] = tok;
    }
  return n;
}

static int
parse_scale (struct run_opts *o, const char *s, lab_error_t *err)
{
  const char *items[MAX_SCALE];
  int n;

  o->scale = s;
  if (strcmp (s, "quick") == 0 || strcmp (s, "full") == 0)
    {
      o->full = s[0] == 'f';
      return 0;
    }
  n = parse_list (s, items, MAX_SCALE, "--scale", err);
  if (n < 0)
    return -1;
  for (int i = 0; i < n; i++)
    {
      long v;
      int dup = 0;
      if (strspn (items[i], "0123456789.kKmM") != strlen (items[i]))
        return lab_usage_error (err, "--scale: bad number `%s` (expected quick, full or task counts such as 1000,1M)",
                                items[i]);
      if (lab_parse_count (items[i], "--scale", &v, err) < 0)
        return -1;
      if (v < 1 || v > LAB_MAX_SCALE)
        return lab_usage_error (err, "--scale: impossible scale `%s` (n must be 1..%ld)", items[i], LAB_MAX_SCALE);
      for (int j = 0; j < o->n_ns; j++)
        dup |= o->ns[j] == v;
      if (!dup)
        o->ns[o->n_ns++] = v;
    }
  return 0;
}

/* A numeric option: a whole number (as the workload's strtol reads it) in its range. */
static int
check_wl_opt_range (const struct lab_wl_opt *opt, const char *val, lab_error_t *err)
{
  char *end = NULL;
  long v;

  errno = 0;
  v = strtol (val, &end, 0);
  if (errno || end == val || *end != '\0' || v < opt->min || v > opt->max)
    return lab_usage_error (err, "--opt: `%s=%s`: `%s` must be a whole number in %ld..%ld (%s)", opt->key, val,
                            opt->key, opt->min, opt->max, opt->help);
  return 0;
}

/* KEY=VALUE must name a known workload option and one of its values. */
static int
check_wl_opt (const char *kv, lab_error_t *err)
{
  const char *eq = strchr (kv, '=');
  char key[64], known[256] = "";
  const struct lab_wl_opt *opt;

  snprintf (key, sizeof (key), "%.*s", (int) (eq - kv), kv);
  if ((opt = lab_wl_opt_find (key)) == NULL)
    {
      for (const struct lab_wl_opt *k = lab_wl_opts; k->key; k++)
        snprintf (known + strlen (known), sizeof (known) - strlen (known), "%s%s", known[0] ? ", " : "", k->key);
      return lab_usage_error (err, "--opt: unknown option `%s` (known: %s)", key, known);
    }
  for (const char *const *v = opt->values; v && *v; v++)
    if (strcmp (*v, eq + 1) == 0)
      return 0;
  if (opt->max > 0)
    return check_wl_opt_range (opt, eq + 1, err);
  if (opt->values == NULL && eq[1])
    return 0;
  for (const char *const *v = opt->values; v && *v; v++)
    snprintf (known + strlen (known), sizeof (known) - strlen (known), "%s%s", known[0] ? ", " : "", *v);
  return lab_usage_error (err, "--opt: `%s` is not a value of `%s` (%s)", eq + 1, key, known[0] ? known : "needs a value");
}

static int
parse_args (int argc, char **argv, struct run_opts *o, lab_error_t *err)
{
  static const struct option opts[] = {
    { "help", no_argument, 0, 'h' },         { "scale", required_argument, 0, 's' },
    { "variants", required_argument, 0, 'v' }, { "repeat", required_argument, 0, 'r' },
    { "out", required_argument, 0, 'o' },    { "profile", required_argument, 0, 'p' },
    { "timeout", required_argument, 0, 't' }, { "resume", required_argument, 0, 'R' },
    { "opt", required_argument, 0, 'O' },     { "backend", required_argument, 0, 'B' },
    { "stack", required_argument, 0, 'S' },
    { 0, 0, 0, 0 },
  };
  int c;
  long l;
  char *end;

  o->repeat = 1;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":hs:v:r:o:p:t:R:O:B:S:", opts, NULL)) != -1)
    switch (c)
      {
      case 'h': usage (stdout); exit (0);
      case 's': if (parse_scale (o, optarg, err) < 0) return -1; break;
      case 'v':
        o->n_variants = parse_list (optarg, o->variants, MAX_VARIANTS, "--variants", err);
        if (o->n_variants < 0)
          return -1;
        break;
      case 'r':
        if (lab_parse_count (optarg, "--repeat", &l, err) < 0)
          return -1;
        if (l < 1 || l > 1000)
          return lab_usage_error (err, "--repeat: `%s` is out of range 1..1000", optarg);
        o->repeat = (int) l;
        break;
      case 'o':
        if (optarg[0] == '\0')
          return lab_usage_error (err, "--out: empty directory name");
        if (strlen (optarg) >= sizeof (o->out))
          return lab_usage_error (err, "--out: directory name longer than %zu bytes", sizeof (o->out) - 1);
        snprintf (o->out, sizeof (o->out), "%s", optarg);
        break;
      case 'p':
        if (optarg[0] == '\0')
          return lab_usage_error (err, "--profile: empty file name");
        o->profile = optarg;
        break;
      case 't':
        o->timeout_s = strtod (optarg, &end);
        if (*end || end == optarg || !(o->timeout_s > 0 && o->timeout_s <= 86400))
          return lab_usage_error (err, "--timeout: bad number of seconds `%s`", optarg);
        break;
      case 'O':
        if (strchr (optarg, '=') == NULL || optarg[0] == '=')
          return lab_usage_error (err, "--opt: expected KEY=VALUE, got `%s`", optarg);
        if (check_wl_opt (optarg, err) < 0)
          return -1;
        if (o->n_wl_opts == 16)
          return lab_usage_error (err, "--opt: at most 16");
        o->wl_opts[o->n_wl_opts++] = optarg;
        break;
      case 'B':
        if (strcmp (optarg, "io_uring") && strcmp (optarg, "epoll"))
          return lab_usage_error (err, "--backend: `%s` is not `io_uring` or `epoll`", optarg);
        o->backend = optarg;
        break;
      case 'S':
        {
          int64_t sz;
          if (lab_parse_size (optarg, "--stack", &sz, err) < 0)
            return -1;
          if (sz < LAB_STACK_MIN || sz > LAB_STACK_MAX)
            return lab_usage_error (err, "--stack: `%s` is out of range 2K..1G", optarg);
          o->stack = optarg;
          break;
        }
      case 'R': return lab_usage_error (err, "--resume DIR must be used alone");
      case ':': return lab_usage_error (err, "option `%s` needs a value", argv[optind - 1]);
      default: return lab_usage_error (err, "unknown option `%s` (see `lab run --help`)", argv[optind - 1]);
      }
  for (int i = optind; i < argc; i++)
    {
      if (strcmp (argv[i], "all") == 0)
        {
          o->n_exps = 0;
          for (const struct lab_experiment *e = lab_experiments; e->name && o->n_exps < MAX_EXPS; e++)
            o->exps[o->n_exps++] = e;
          break;
        }
      const struct lab_experiment *e = lab_experiment_find (argv[i]);
      int dup = 0;
      if (e == NULL)
        return lab_usage_error (err, "unknown experiment `%s` (see `lab list`)", argv[i]);
      for (int j = 0; j < o->n_exps; j++)
        dup |= o->exps[j] == e;
      if (dup)
        continue;
      if (o->n_exps == MAX_EXPS)
        return lab_usage_error (err, "too many experiments");
      o->exps[o->n_exps++] = e;
    }
  if (o->n_exps == 0)
    return lab_usage_error (err, "no experiment named (see `lab list`)");
  for (int v = 0; v < o->n_variants; v++)
    {
      int found = 0;
      for (int e = 0; e < o->n_exps; e++)
        found |= lab_experiment_variant (o->exps[e], o->variants[v]) >= 0;
      if (!found)
        {
          char known[512] = "";
          for (int e = 0; e < o->n_exps; e++)
            for (int k = 0; o->exps[e]->variants[k]; k++)
              snprintf (known + strlen (known), sizeof (known) - strlen (known), "%s%s", known[0] ? ", " : "",
                        o->exps[e]->variants[k]);
          return lab_usage_error (err, "--variants: unknown variant `%s` (known: %s)", o->variants[v], known);
        }
    }
  return 0;
}

/* --resume DIR: the original command line from DIR/meta.json, with --out DIR. */
static int
resume_args (const char *dir, int *argc, char ***argv, lab_error_t *err)
{
  char path[PATH_MAX];
  struct json_object *meta, *args;
  int n, k = 0;
  char **v;

  snprintf (path, sizeof (path), "%s/meta.json", dir);
  if (lab_json_read (path, &meta, err) < 0)
    return lab_error_prepend (err, "--resume `%s`", dir);
  if (!json_object_object_get_ex (meta, "argv", &args) || !json_object_is_type (args, json_type_array))
    {
      json_object_put (meta);
      return lab_usage_error (err, "--resume: `%s` has no `argv`", path);
    }
  n = (int) json_object_array_length (args);
  v = calloc ((size_t) n + 3, sizeof (char *));
  for (int i = 1; i < n; i++) /* argv[0] "lab" is dropped; argv[1] "run" becomes our argv[0] */
    {
      const char *a = json_object_get_string (json_object_array_get_idx (args, i));
      if (strcmp (a, "--out") == 0 || strcmp (a, "-o") == 0)
        {
          i++;
          continue;
        }
      if (strncmp (a, "--out=", 6) == 0)
        continue;
      v[k++] = strdup (a);
    }
  v[k++] = strdup ("--out");
  v[k++] = strdup (dir);
  json_object_put (meta);
  *argc = k;
  *argv = v;
  return 0;
}

/* Makes (default: a new, unique name) and locks the results directory
   (run-dir.h; --resume locked it already); a new run refuses a directory
   that holds another run. */
static int
make_out_dir (struct run_opts *o, int resuming, const char *cmd, lab_error_t *err)
{
  char stamp[32], names[256] = "", base[PATH_MAX], p[PATH_MAX + 16];
  time_t t = time (NULL);
  struct tm tm;

  if (o->out[0] == '\0')
    {
      gmtime_r (&t, &tm);
      strftime (stamp, sizeof (stamp), "%Y%m%dT%H%M%SZ", &tm);
      for (int i = 0; i < o->n_exps; i++)
        snprintf (names + strlen (names), sizeof (names) - strlen (names), "%s%s", i ? "+" : "", o->exps[i]->name);
      snprintf (base, sizeof (base), "%s/results/%s-%s", lab_root_dir (), stamp, names);
      if (lab_run_dir_make_unique (base, o->out, sizeof (o->out), err) < 0)
        return -1;
      o->default_out = 1;
    }
  else if (lab_mkdir_p (o->out, 0755, err) < 0)
    return -1;
  if (!resuming)
    {
      /* The lock's fd stays open until the process exits: the run holds DIR. */
      int lock = lab_run_dir_lock (o->out, cmd, err);
      if (lock < 0)
        return -1;
      snprintf (p, sizeof (p), "%s/meta.json", o->out);
      if (!o->default_out && access (p, F_OK) == 0)
        {
          lab_run_dir_unlock (lock);
          return lab_usage_error (err, "`%s` already holds a run; continue it with `lab run --resume %s`, "
                                       "or choose another --out", o->out, o->out);
        }
    }
  snprintf (p, sizeof (p), "%s/points", o->out);
  return lab_mkdir_p (p, 0755, err);
}

/* A point that hit a wall (limit, oom, timeout): the reason the variant's
   larger n are recorded `skipped`, and *at = its n.  Repeats at the same n
   still run: they are data. */
static void
point_limit (struct json_object *pt, char *why, size_t len, long *at)
{
  struct json_object *s = NULL, *n = NULL;
  const char *st;

  if (!json_object_object_get_ex (pt, "status", &s))
    return;
  st = json_object_get_string (s);
  if (strcmp (st, lab_status_name (LAB_ST_LIMIT)) && strcmp (st, lab_status_name (LAB_ST_OOM))
      && strcmp (st, lab_status_name (LAB_ST_TIMEOUT)))
    return;
  json_object_object_get_ex (pt, "n", &n);
  if (*at >= 0 && *at <= (long) json_object_get_int64 (n))
    return; /* the first wall is the reason */
  *at = (long) json_object_get_int64 (n);
  snprintf (why, len, "variant ended `%s` at n=%lld; larger n not run", st, (long long) *at);
}

static int
want_variant (const struct run_opts *o, const char *v)
{
  if (o->n_variants == 0)
    return 1;
  for (int i = 0; i < o->n_variants; i++)
    if (strcmp (o->variants[i], v) == 0)
      return 1;
  return 0;
}

struct profile_cache
{
  char *path[MAX_VARIANTS * 2];
  struct lab_profile prof[MAX_VARIANTS * 2];
  int n;
};

static const struct lab_profile *
get_profile (struct profile_cache *pc, const char *path, lab_error_t *err)
{
  char full[PATH_MAX];

  if (path[0] == '/' || access (path, F_OK) == 0)
    snprintf (full, sizeof (full), "%s", path);
  else
    snprintf (full, sizeof (full), "%s/%s", lab_root_dir (), path);
  for (int i = 0; i < pc->n; i++)
    if (strcmp (pc->path[i], full) == 0)
      return &pc->prof[i];
  if (pc->n == (int) ARRAY_SIZE (pc->path))
    {
      lab_error (err, 0, "too many profiles");
      return NULL;
    }
  if (lab_profile_load (full, lab_root_dir (), &pc->prof[pc->n], err) < 0)
    return NULL;
  pc->path[pc->n] = strdup (full);
  return &pc->prof[pc->n++];
}

static int
write_summary (const char *dir, struct json_object *points, lab_error_t *err)
{
  size_t n = json_object_array_length (points);
  struct json_object **rows = calloc (n + 1, sizeof (*rows));
  char path[PATH_MAX + 16];
  int ret;

  for (size_t i = 0; i < n; i++)
    rows[i] = lab_point_summary (json_object_array_get_idx (points, i));
  snprintf (path, sizeof (path), "%s/summary.csv", dir);
  ret = lab_csv_write (path, rows, n, err);
  free (rows);
  return ret;
}

static void
update_latest (const struct run_opts *o)
{
  char link[PATH_MAX], tmp[PATH_MAX + 8];
  const char *base = strrchr (o->out, '/');

  if (!o->default_out || base == NULL)
    return;
  snprintf (link, sizeof (link), "%s/results/latest", lab_root_dir ());
  snprintf (tmp, sizeof (tmp), "%s.tmp.%d", link, (int) getpid ());
  unlink (tmp);
  if (symlink (base + 1, tmp) == 0 && rename (tmp, link) < 0)
    unlink (tmp);
}

/* The sandbox profile of variant v of experiment x. */
static const char *
profile_path (const struct run_opts *o, const struct lab_experiment *x, int v)
{
  return o->profile ? o->profile : (x->profiles && x->profiles[v]) ? x->profiles[v] : x->profile;
}

/* Loads every profile (and compiles its seccomp filter) the run will use, so
   bad input is reported before anything is created or run. */
static int
check_profiles (const struct run_opts *o, struct profile_cache *pc, lab_error_t *err)
{
  for (int e = 0; e < o->n_exps; e++)
    for (int v = 0; o->exps[e]->variants[v]; v++)
      {
        const struct lab_profile *p;
        if (!want_variant (o, o->exps[e]->variants[v]))
          continue;
        if ((p = get_profile (pc, profile_path (o, o->exps[e], v), err)) == NULL)
          return -1;
        /* Parsed once here with warnings; the points reuse it (seccomp-bpf.h). */
        if (p->seccomp_path && lab_seccomp_cached (p->seccomp_path, p->sec.caps, 0, err) == NULL)
          return lab_error_prepend (err, "profile `%s`", p->path);
      }
  return 0;
}

/* How many points the plan has (experiments x n x wanted variants x repeats). */
static int
plan_size (const struct run_opts *o)
{
  int total = 0;
  for (int e = 0; e < o->n_exps; e++)
    {
      const long *ns = o->n_ns ? o->ns : (o->full ? o->exps[e]->full : o->exps[e]->quick);
      int count = o->n_ns, nv = 0;
      if (!o->n_ns)
        while (ns[count])
          count++;
      for (int v = 0; o->exps[e]->variants[v]; v++)
        nv += want_variant (o, o->exps[e]->variants[v]);
      total += count * nv * o->repeat;
    }
  return total;
}

static int
run_points (struct run_opts *o, struct profile_cache *pc, struct json_object *points, int *n_run, int *n_reused,
            lab_error_t *err)
{
  int ret = 0;

  lab_progress_begin (plan_size (o), 0);
  for (int e = 0; e < o->n_exps && ret == 0; e++)
    {
      const struct lab_experiment *x = o->exps[e];
      const long *ns = o->n_ns ? o->ns : (o->full ? x->full : x->quick);
      int count = 0;
      char stop[MAX_VARIANTS][160];
      long stop_n[MAX_VARIANTS];

      memset (stop, 0, sizeof (stop));
      for (int v = 0; v < MAX_VARIANTS; v++)
        stop_n[v] = -1;
      if (!o->n_ns)
        while (ns[count])
          count++;
      else
        count = o->n_ns;
      for (int i = 0; i < count && ret == 0; i++)
        for (int r = 1; r <= o->repeat && ret == 0; r++)
          for (int v = 0; x->variants[v] && ret == 0; v++)
            {
              struct lab_point pt = { x, x->variants[v], ns[i], r, "", o->wl_opts, o->backend, o->stack };
              const char *ppath = profile_path (o, x, v);
              const struct lab_profile *prof;
              struct json_object *res = NULL;
              char jp[PATH_MAX + 200];

              if (!want_variant (o, x->variants[v]))
                continue;
              snprintf (pt.id, sizeof (pt.id), "%s-%s-n%ld-r%d", x->name, pt.variant, pt.n, r);
              snprintf (jp, sizeof (jp), "%s/points/%s.json", o->out, pt.id);
              {
                char why[512];
                enum lab_point_file pf = lab_point_file_load (jp, pt.id, &res, why, sizeof (why));
                if (pf == LAB_POINT_INCOMPLETE)
                  lab_warn ("`%s` is not a finished point (%s): running it again", jp, why);
                if (pf != LAB_POINT_COMPLETE)
                  res = NULL;
              }
              if (res)
                {
                  (*n_reused)++;
                  lab_progress_reused ();
                  json_object_array_add (points, res);
                  point_limit (res, stop[v], sizeof (stop[v]), &stop_n[v]);
                  continue;
                }
              if (lab_signals_poll ())
                {
                  ret = lab_error (err, 0, "interrupted by signal SIG%s", sigabbrev_np (lab_signals_caught ()));
                  break;
                }
              if ((prof = get_profile (pc, ppath, err)) == NULL)
                {
                  ret = -1;
                  break;
                }
              const char *skip = stop[v][0] && ns[i] > stop_n[v] ? stop[v] : NULL;
              char peer_why[256];
              if (skip == NULL && lab_peer_unavailable (x->name, pt.variant, peer_why, sizeof (peer_why)))
                skip = peer_why;
              struct lab_profile point_prof;
              if ((prof = lab_point_profile (&pt, prof, &point_prof, &skip, err)) == NULL)
                {
                  ret = -1;
                  break;
                }
              lab_progress_point_start (pt.id);
              if (lab_stdout_check (err) < 0)
                {
                  ret = -1;
                  break;
                }
              if (lab_point_run (&pt, prof, o->out, o->timeout_s > 0 ? o->timeout_s : x->timeout_s, skip, &res,
                                 err) < 0)
                {
                  lab_progress_point_abort (lab_signals_caught () ? "interrupted" : "error");
                  ret = -1;
                  break;
                }
              {
                struct json_object *s = lab_point_summary (res), *st = NULL, *w = NULL, *d = NULL;
                json_object_object_get_ex (s, "status", &st);
                json_object_object_get_ex (s, "wall_s", &w);
                json_object_object_get_ex (res, "detail", &d);
                lab_progress_point_end (pt.id, json_object_get_string (st), w ? json_object_get_double (w) : -1,
                                        d ? json_object_get_string (d) : "");
              }
              (*n_run)++;
              point_limit (res, stop[v], sizeof (stop[v]), &stop_n[v]);
              json_object_array_add (points, res);
              if (write_summary (o->out, points, err) < 0 || lab_stdout_check (err) < 0)
                ret = -1;
            }
    }
  lab_progress_end ();
  return ret;
}

static void
profile_cache_free (struct profile_cache *pc)
{
  for (int i = 0; i < pc->n; i++)
    {
      lab_profile_free (&pc->prof[i]);
      free (pc->path[i]);
    }
}

int
cmd_run (int argc, char **argv)
{
  struct run_opts o = { 0 };
  lab_error_t err = NULL;
  struct json_object *points;
  char **rargv = NULL;
  int rargc = 0, n_run = 0, n_reused = 0, ret, resuming = 0;
  struct profile_cache pc = { 0 };
  char *orig_cmd[256], cmdline[1024] = "lab";
  int orig_n = 0;

  /* As typed, for the lock (a second run names who holds the directory). */
  for (int i = 0; i < argc; i++)
    snprintf (cmdline + strlen (cmdline), sizeof (cmdline) - strlen (cmdline), " %s", argv[i]);
  if (argc >= 2 && (strcmp (argv[1], "--resume") == 0 || strncmp (argv[1], "--resume=", 9) == 0))
    {
      const char *dir = argv[1][8] == '=' ? argv[1] + 9 : argc > 2 ? argv[2] : NULL;
      if (dir == NULL)
        {
          fprintf (stderr, "lab run: --resume needs a results directory\n");
          return 2;
        }
      if (argc > (argv[1][8] == '=' ? 2 : 3))
        {
          fprintf (stderr, "lab run: --resume DIR takes no other arguments: it reruns DIR's own command\n");
          return 2;
        }
      resuming = 1;
      /* Locked before its meta.json is read: a run still writing it is
         named as the holder. */
      if ((access (dir, F_OK) == 0 && lab_run_dir_lock (dir, cmdline, &err) < 0)
          || resume_args (dir, &rargc, &rargv, &err) < 0)
        return lab_error_report (&err);
      argc = rargc;
      argv = rargv;
    }
  /* The exact command line for meta.json, before getopt permutes argv and
     strtok splits its values. */
  orig_cmd[orig_n++] = (char *) "lab";
  for (int i = 0; i < argc && orig_n < 250; i++)
    orig_cmd[orig_n++] = strdup (argv[i]);
  if (parse_args (argc, argv, &o, &err) < 0)
    {
      fprintf (stderr, "lab run: %s\n", err->msg);
      ret = err->exit_code;
      lab_error_release (&err);
      return ret;
    }
  if (check_profiles (&o, &pc, &err) < 0)
    {
      profile_cache_free (&pc);
      return lab_error_report (&err);
    }
  for (int e = 0; e < o.n_exps; e++) /* a point's client checks its options (companion.h) */
    {
      const struct lab_companion_ops *co = lab_experiment_companion (o.exps[e]);
      if (co && co->check && co->check (o.wl_opts, &err) < 0)
        {
          profile_cache_free (&pc);
          return lab_error_report (&err);
        }
    }
  if (make_out_dir (&o, resuming, cmdline, &err) < 0)
    {
      profile_cache_free (&pc);
      return lab_error_report (&err);
    }
  {
    char mp[PATH_MAX + 16];
    int has_meta;
    snprintf (mp, sizeof (mp), "%s/meta.json", o.out);
    has_meta = access (mp, F_OK) == 0;
    if (!has_meta && lab_meta_write (o.out, orig_n, orig_cmd, &err) < 0)
      return lab_error_report (&err);
  }
  printf ("lab: results in %s\n", o.out);
  points = json_object_new_array ();
  /* Signals are events from here on (signals.h): a run stopped by one keeps
     its finished points and says how to resume.  Before, nothing needs
     cleaning and a signal ends the harness at once (a hang on bad input stays
     interruptible). */
  ret = lab_signals_init (&err);
  if (ret == 0)
    ret = lab_stdout_check (&err);
  if (ret == 0)
    ret = run_points (&o, &pc, points, &n_run, &n_reused, &err);
  profile_cache_free (&pc);
  /* summary.csv holds every finished point, also when the run stopped. */
  if (ret == 0 && write_summary (o.out, points, &err) < 0)
    ret = -1;
  else if (ret < 0)
    {
      lab_error_t e = NULL;
      if (write_summary (o.out, points, &e) < 0)
        lab_error_release (&e);
    }
  {
    lab_error_t e = NULL;
    if (lab_meta_finish (o.out, points, &e) < 0)
      {
        lab_warn ("meta.json: the end-of-run environment was not recorded: %s", e->msg);
        lab_error_release (&e);
      }
  }
  if (n_reused)
    printf ("lab: resumed: %d point%s already done, %d run now\n", n_reused, n_reused == 1 ? " was" : "s were",
            n_run);
  if (ret == 0 && lab_plot_render (o.out, &err) < 0)
    ret = -1;
  if (ret == 0 && lab_signals_poll ())
    ret = lab_error (&err, 0, "interrupted by signal SIG%s while rendering", sigabbrev_np (lab_signals_caught ()));
  json_object_put (points);
  update_latest (&o);
  if (ret < 0)
    {
      int sig = lab_signals_caught ();
      ret = lab_error_report (&err);
      fprintf (stderr, "lab: the %d points finished are kept in %s; continue with `lab run --resume %s`\n",
               n_run + n_reused, o.out, o.out);
      return sig ? 128 + sig : ret;
    }
  printf ("lab: summary  %s/summary.csv\nlab: report   %s/report.md\nlab: report   %s/report.html\n"
          "lab: plots    %s/plots/\n", o.out, o.out, o.out, o.out);
  return 0;
}
