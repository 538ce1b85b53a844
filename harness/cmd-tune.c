/*
 * cmd-tune.c - `lab tune`: which host settings cap the asked experiments at
 * the asked scales, and (as root) reversible changes to them.
 *
 *   lab tune [EXPERIMENT...] [--scale quick|full|N[,N...]] [--opt KEY=VALUE]...
 *            show each setting: now, needed, ok/RAISE/MANUAL, why (exit 0)
 *   ... --apply       save the old values (state file), then set the RAISE ones
 *   ... --swap SIZE [--swap-dir DIR]   create and enable a swap file
 *   lab tune --undo   restore exactly what was saved; swapoff and remove swap files
 *
 * No experiment named: all of them.  No --scale: their `full` scale.  The
 * numbers come from tune.c; the state file and swap files from
 * tune-state.c and tune-swap.c.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "pressure.h"
#include "tune.h"
#include "utils.h"

#define MAX_N 32

struct tune_opts
{
  const struct lab_experiment *exps[16];
  int n_exps;
  long ns[MAX_N];
  int n_ns, full, apply, undo;
  int64_t swap;
  const char *swap_dir, *state;
  char *wl_opts[17];
  int n_wl_opts;
};

static void
usage (FILE *f)
{
  fprintf (f, "usage: lab tune [EXPERIMENT...] [--scale quick|full|N[,N...]] [--opt KEY=VALUE]...\n"
              "                [--apply] [--swap SIZE [--swap-dir DIR]] [--state FILE]\n"
              "       lab tune --undo [--state FILE]\n\n"
              "Shows which host settings cap the experiments at these scales (default: every\n"
              "experiment at its full scale): kernel.pid_max, kernel.threads-max,\n"
              "vm.max_map_count, vm.overcommit_memory, transparent hugepages, RLIMIT_NPROC,\n"
              "RLIMIT_NOFILE and swap, each with its value now, the value needed and why.\n\n"
              "--apply     (root) save the old values to the state file, then set the short ones\n"
              "--swap SIZE (root) create and enable a swap file of SIZE (e.g. 2G) in --swap-dir\n"
              "            (default: results/ under the lab); not on tmpfs, nor btrfs without nocow\n"
              "--undo      (root) restore every saved value exactly, swapoff and delete the swap files\n"
              "--state FILE  where the old values are kept (default: results/.lab-tune.json)\n"
              "--opt kib=K,fraction=F  the pressure experiment's sizes (for the swap it needs)\n\n"
              "`lab run` never changes these; it records them in meta.json (`tune`).\n");
}

static int
parse_scale (struct tune_opts *o, const char *s, lab_error_t *err)
{
  if (strcmp (s, "quick") == 0 || strcmp (s, "full") == 0)
    {
      o->full = s[0] == 'f';
      o->n_ns = 0;
      return 0;
    }
  cleanup_free char *copy = strdup (s);
  for (char *save = NULL, *tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
    {
      long v;
      if (o->n_ns == MAX_N)
        return lab_usage_error (err, "--scale: more than %d entries", MAX_N);
      if (strspn (tok, "0123456789.kKmM") != strlen (tok) || lab_parse_count (tok, "--scale", &v, err) < 0)
        {
          lab_error_release (err);
          return lab_usage_error (err, "--scale: bad number `%s` (expected quick, full or task counts such as 1000,1M)",
                                  tok);
        }
      if (v < 1 || v > LAB_MAX_SCALE)
        return lab_usage_error (err, "--scale: impossible scale `%s` (n must be 1..%ld)", tok, LAB_MAX_SCALE);
      o->ns[o->n_ns++] = v;
    }
  if (o->n_ns == 0)
    return lab_usage_error (err, "--scale: empty list");
  return 0;
}

static int
parse_args (int argc, char **argv, struct tune_opts *o, lab_error_t *err)
{
  static const struct option opts[] = {
    { "help", no_argument, 0, 'h' },  { "scale", required_argument, 0, 's' }, { "apply", no_argument, 0, 'a' },
    { "undo", no_argument, 0, 'u' },  { "swap", required_argument, 0, 'w' },  { "swap-dir", required_argument, 0, 'd' },
    { "state", required_argument, 0, 'S' }, { "opt", required_argument, 0, 'O' }, { 0, 0, 0, 0 },
  };
  int c;
  o->full = 1;
  o->swap = -1;
  while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1)
    switch (c)
      {
      case 'h': usage (stdout); return 1;
      case 's':
        if (parse_scale (o, optarg, err) < 0)
          return -1;
        break;
      case 'a': o->apply = 1; break;
      case 'u': o->undo = 1; break;
      case 'w':
        if (lab_parse_size (optarg, "--swap", &o->swap, err) < 0)
          return -1;
        if (o->swap == INT64_MAX)
          return lab_usage_error (err, "--swap: `max` is not a size; give one such as 2G");
        break;
      case 'd': o->swap_dir = optarg; break;
      case 'S': o->state = optarg; break;
      case 'O':
        if (o->n_wl_opts == 16)
          return lab_usage_error (err, "--opt: more than 16");
        if (strchr (optarg, '=') == NULL)
          return lab_usage_error (err, "--opt: expected KEY=VALUE, got `%s`", optarg);
        o->wl_opts[o->n_wl_opts++] = optarg;
        break;
      default: return lab_usage_error (err, "see `lab tune --help`");
      }
  for (int i = optind; i < argc; i++)
    {
      const struct lab_experiment *x = lab_experiment_find (argv[i]);
      if (x == NULL)
        return lab_usage_error (err, "unknown experiment `%s` (see `lab list`)", argv[i]);
      if (o->n_exps == (int) ARRAY_SIZE (o->exps))
        return lab_usage_error (err, "too many experiments");
      o->exps[o->n_exps++] = x;
    }
  if (o->undo && (o->apply || o->swap >= 0 || o->n_exps || o->n_ns || o->swap_dir || o->n_wl_opts))
    return lab_usage_error (err, "--undo takes no experiments, --scale, --apply, --swap or --opt: it restores "
                                 "everything the state file holds");
  if (o->swap_dir && o->swap < 0)
    return lab_usage_error (err, "--swap-dir needs --swap SIZE");
  if (o->n_exps == 0)
    for (const struct lab_experiment *x = lab_experiments; x->name; x++)
      o->exps[o->n_exps++] = x;
  return 0;
}

/* The largest live task count and the swap the asked experiments need. */
static int
build_req (const struct tune_opts *o, struct lab_tune_req *req, char *why, size_t whylen, char *swhy, size_t swlen,
           lab_error_t *err)
{
  memset (req, 0, sizeof *req);
  req->fds = 64; /* the sandbox's own and a coroutine runtime's rings */
  for (int e = 0; e < o->n_exps; e++)
    {
      const struct lab_experiment *x = o->exps[e];
      const long *ns = o->n_ns ? o->ns : (o->full ? x->full : x->quick);
      int count = o->n_ns ? o->n_ns : 0;
      long max = 0;
      if (!o->n_ns)
        while (ns[count])
          count++;
      for (int i = 0; i < count; i++)
        max = ns[i] > max ? ns[i] : max;
      /* spawn's reaper joins threads as they end: only join=after keeps all n alive. */
      int all_alive = strcmp (x->name, "spawn") != 0;
      for (int k = 0; k < o->n_wl_opts; k++)
        all_alive |= strcmp (o->wl_opts[k], "join=after") == 0;
      if (strcmp (x->n_means, "tasks") == 0 && all_alive && max > req->live_tasks)
        {
          req->live_tasks = max;
          snprintf (why, whylen, "%s keeps up to %ld tasks alive", x->name, max);
          req->live_why = why;
        }
      if (strcmp (x->name, "pressure") == 0)
        {
          struct lab_pressure_cfg pc;
          if (lab_pressure_cfg ((char *const *) o->wl_opts, &pc, err) < 0)
            return -1;
          req->swap_bytes = lab_pressure_swap_need (&pc, max);
          snprintf (swhy, swlen, "pressure at n=%ld, kib=%ld, fraction=%.2f pushes up to this out of its cgroup's limit",
                    max, pc.kib, pc.fraction);
          req->swap_why = swhy;
        }
    }
  return 0;
}

static void
show (const struct lab_tune_item *items, int n)
{
  printf ("%-22s %-14s %-20s %-7s %s\n", "setting", "now", "needed", "status", "why");
  for (int i = 0; i < n; i++)
    printf ("%-22s %-14s %-20s %-7s %s\n", items[i].name, items[i].now, items[i].need,
            lab_tune_state_name (items[i].state), items[i].why);
}

static int
need_root (const char *what, lab_error_t *err)
{
  if (geteuid () == 0)
    return 0;
  return lab_usage_error (err, "lab tune %s changes host settings and must run as root: run `sudo ./lab tune %s`",
                          what, what);
}

static int
make_swap (const struct tune_opts *o, const char *state, lab_error_t *err)
{
  char dir[PATH_MAX], file[PATH_MAX + 32];
  snprintf (dir, sizeof dir, "%s", o->swap_dir ? o->swap_dir : "");
  if (!o->swap_dir)
    {
      snprintf (dir, sizeof dir, "%s/results", lab_root_dir ());
      if (lab_mkdir_p (dir, 0755, err) < 0)
        return -1;
    }
  if (lab_swap_check_dir (dir, err) < 0)
    return -1;
  char *abs = realpath (dir, NULL);
  if (abs == NULL)
    return lab_usage_error (err, "--swap-dir `%s`: cannot resolve", dir);
  for (int i = 1;; i++)
    {
      snprintf (file, sizeof file, "%s/lab-swap-%d.swap", abs, i);
      if (access (file, F_OK) < 0)
        break;
    }
  free (abs);
  /* Recorded first: an interrupted creation is still removed by --undo. */
  if (lab_tune_state_add_swap (state, file, o->swap, err) < 0 || lab_swap_create (file, o->swap, err) < 0)
    return -1;
  printf ("swap file %s: %lld MiB, enabled (host swap now %lld MiB); `lab tune --undo` removes it\n", file,
          (long long) (o->swap >> 20), (long long) (lab_swap_total () >> 20));
  return 0;
}

int
cmd_tune (int argc, char **argv)
{
  struct tune_opts o = { 0 };
  struct lab_tune_req req;
  struct lab_tune_item items[LAB_TUNE_MAX] = { 0 };
  char why[160], swhy[200], state[PATH_MAX];
  lab_error_t err = NULL;
  int r, n, raise = 0;

  r = parse_args (argc, argv, &o, &err);
  if (r != 0)
    return r > 0 ? 0 : lab_error_report (&err);
  if (o.state)
    snprintf (state, sizeof state, "%s", o.state);
  else
    lab_tune_default_state (state, sizeof state);
  if (o.undo)
    {
      if (need_root ("--undo", &err) < 0 || lab_tune_undo (state, &err) < 0)
        return lab_error_report (&err);
      return 0;
    }
  if (build_req (&o, &req, why, sizeof why, swhy, sizeof swhy, &err) < 0)
    return lab_error_report (&err);
  if ((o.apply || o.swap >= 0) && need_root (o.apply ? "--apply" : "--swap", &err) < 0)
    return lab_error_report (&err);
  n = lab_tune_plan (&req, items);
  show (items, n);
  for (int i = 0; i < n; i++)
    raise += items[i].state == LAB_TUNE_RAISE;
  if (o.apply)
    {
      if (raise == 0)
        printf ("nothing to change\n");
      else if (lab_tune_apply (state, items, n, &err) < 0)
        return lab_error_report (&err);
      else
        printf ("old values saved in %s; `lab tune --undo` restores them\n", state);
    }
  else if (raise)
    printf ("the same command with --apply (as root) sets the RAISE ones; `lab tune --undo` restores them\n");
  if (o.swap >= 0 && make_swap (&o, state, &err) < 0)
    return lab_error_report (&err);
  return 0;
}
