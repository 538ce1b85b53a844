/*
 * companion.h - a point's companion process: a client (load generator) that
 * runs beside the sandboxed workload (a server), in a sibling cgroup of its
 * own, joined to the workload's network namespace.
 *
 * Life of a companion (driven from the sandbox's wait loop, sandbox.c):
 *   1. the workload prints `@lab-ready {json}` on stdout (wl_ready, wl.h);
 *      lab_companion_step() finds that line in the workload's stdout file
 *      (or, after spec->ready_timeout_s without it, asks the sandbox to end
 *      the point as a timeout);
 *   2. it creates cgroup `<name>` (a sibling of the point's, under the
 *      harness's lab-<pid>; cpuset = spec->cpus), forks the client, puts it
 *      in that cgroup before releasing it, and the client setns()es into the
 *      network namespace of the workload (/proc/<host pid>/ns/net), so both
 *      talk over that namespace's loopback only; then it execs.
 *      "{KEY}" in an argument is replaced with the ready JSON's KEY (e.g.
 *      "{port}"; "" if absent), "{server_pid}" with the workload's host pid
 *      (one substitution per argument);
 *   3. the commands run one after another (e.g. wrk, then wl-loadgen), each
 *      reaped with wait4 (its rusage is its own);
 *   4. after the last one, the workload gets spec->stop_signal (SIGTERM):
 *      it prints its report and exits, and the sandbox ends as usual.
 * lab_companion_finish() is called on every path after the sandbox returned
 * (end, timeout, crash of the workload, interrupt): it kills what still runs
 * in the companion's cgroup, reaps it, reads the cgroup's figures, removes
 * the cgroup.  If the harness itself dies, the client dies with it
 * (PR_SET_PDEATHSIG) and lab_cgroup_cleanup_all removes the cgroup.
 *
 * The workload's own figures (sandbox.c) never include the companion's: it
 * is in another cgroup and is not a descendant of the sandbox's init.
 */
#ifndef LAB_COMPANION_H
#define LAB_COMPANION_H

#include <json-c/json.h>
#include <sys/types.h>

#include "cgroup.h"
#include "error.h"

#define LAB_COMPANION_MAX_CMDS 4

struct lab_companion_cmd
{
  const char *label;       /* for the record, e.g. "loadgen", "wrk" */
  char *const *argv;       /* argv[0] absolute; "{port}", "{server_pid}"... substituted */
  const char *out_path;    /* its stdout and stderr files */
  const char *err_path;
};

struct lab_companion_spec
{
  const char *name;        /* cgroup leaf, e.g. "<point id>-client" */
  const char *cpus;        /* cpuset.cpus of the client; NULL = unrestricted */
  const char *ready_path;  /* the workload's stdout file */
  struct lab_companion_cmd cmds[LAB_COMPANION_MAX_CMDS];
  int n_cmds;
  int stop_signal;         /* sent to the workload when the last command ended; 0 = none */
  double ready_timeout_s;  /* the workload's time to print @lab-ready; 0 = the point's timeout only */
};

/* How one command ended. */
struct lab_companion_run
{
  int started;
  int exit_code;           /* -1 unless it exited */
  int term_signal;
  double wall_s, cpu_user_s, cpu_sys_s;
  long vol_ctxsw, invol_ctxsw, max_rss_kb;
};

struct lab_companion
{
  struct lab_companion_spec spec;
  struct json_object *ready;          /* the parsed @lab-ready JSON, NULL until seen */
  int cur;                            /* index of the running command, -1 none yet */
  pid_t pid;                          /* running command, 0 none */
  int pidfd;
  double t_start;
  int done;                           /* every command ended */
  int stopped_workload;               /* stop_signal sent */
  struct lab_cgroup *cg;
  struct lab_cgroup_stats cg_stats;
  char cgroup_path[512];
  struct lab_companion_run runs[LAB_COMPANION_MAX_CMDS];
  char detail[512];                   /* why a command did not start or was killed */
  long ready_off;
  double t_init;                      /* lab_companion_init's time: the ready timeout counts from it */
  int ready_timed_out;                /* no @lab-ready within spec.ready_timeout_s */
};

/* What an experiment with a companion provides (catalog.c `companions`).
   check: the --opt values as a whole, before the run.
   plan: fills `spec` for the point (commands, cpus; strings it owns stay
   valid until the next plan) and the server's cpuset (NULL = the profile's);
   may run other sandboxes first (echo's rate calibration).
   judge: after the run, the figures for summary.csv (the client's report
   keys ops, ops_per_s, lat_*; a new object) and, when the client failed,
   the point's status and detail. */
struct lab_point;
struct lab_profile;
struct lab_companion_ops
{
  /* Options that only make sense together (`lab run` checks them before
     the run starts; a usage error exits 2); NULL = none. */
  int (*check) (char *const *wl_opts, lab_error_t *err);
  int (*plan) (const struct lab_point *pt, const char *dir, const struct lab_profile *profile, double timeout_s,
               struct lab_companion_spec *spec, const char **server_cpus, lab_error_t *err);
  struct json_object *(*judge) (const struct lab_companion *c, const struct lab_point *pt, const char *dir,
                                const char **status, char *detail, size_t len);
};

/* Copies the spec (the strings must outlive the companion). */
void lab_companion_init (struct lab_companion *c, const struct lab_companion_spec *spec);
/* One step, from the sandbox's wait loop: `wpid` is the workload's host pid
   (0 while unknown).  Never blocks.  Returns -1 when the workload has not
   printed @lab-ready within spec.ready_timeout_s (c->ready_timed_out): the
   caller ends the point as a timeout; else 0. */
int lab_companion_step (struct lab_companion *c, pid_t wpid);
/* Ends whatever still runs, reaps, reads the cgroup, removes it. */
void lab_companion_finish (struct lab_companion *c);
/* The companion as JSON: ready line, per command how it ended and its
   figures, the cgroup's memory peak and CPU. */
struct json_object *lab_companion_to_json (const struct lab_companion *c);

#endif
