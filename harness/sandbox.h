/*
 * sandbox.h - run one command in an isolated sandbox and measure it.
 *
 * lab_sandbox_run() is the whole lifecycle of one point:
 *   1. clone a child into new namespaces (pid, mount, ipc, uts, user as the
 *      profile says), which makes its network namespace itself meanwhile;
 *   2. create the point's cgroup with the profile's limits (cgroup.h) and
 *      hand it to the child, which moves itself into it and waits on the
 *      `go` socket (its cgroup namespace comes in step 4, once it is there);
 *   3. the parent writes the user namespace's maps, releases the child and
 *      compiles the seccomp filter, which it sends after the release;
 *   4. the child unshares its cgroup namespace, sets up its mounts (read-only root, /proc, /sys, /tmp, /dev,
 *      masked paths), brings `lo` up, sets the hostname and rlimits, drops
 *      its capabilities to the profile's, then forks the workload and stays as the
 *      sandbox's init (pid 1: forwards SIGTERM/SIGINT/SIGHUP/SIGUSR1/SIGUSR2,
 *      reaps orphans, reports the workload's wait status to the parent and
 *      exits when it ends); the workload (pid 2) sets up its fds, loads the
 *      seccomp filter (last step), execs;
 *   5. the parent samples /proc/<pid>/status (VmRSS, VmSize, VmSwap; summed over
 *      the cgroup's processes but init) and cgroup memory every sample_ms,
 *      enforces the timeout (kills the whole cgroup), steps the point's
 *      companion if it has one (spec->companion: a client started in a
 *      sibling cgroup once the workload prints @lab-ready, companion.h),
 *      reaps init with wait4 (rusage of init and the workload it reaped);
 *   6. reads the cgroup's figures, classifies the end by the workload's
 *      status (init's own when init was killed) (ok, oom, timeout,
 *      seccomp, crashed), kills what is left, removes the cgroup - also on
 *      errors.  A signal to the harness (signals.h: an event on a signalfd
 *      polled in step 5) kills the running point the same way; the run
 *      then fails "interrupted by signal SIGx" and the caller exits 128+x.
 */
#ifndef LAB_SANDBOX_H
#define LAB_SANDBOX_H

#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "companion.h"
#include "error.h"
#include "profile.h"
#include "status.h" /* enum lab_status, lab_status_name() */


struct lab_sandbox_spec
{
  const struct lab_profile *profile;
  char *const *argv;      /* argv[0] is an absolute path */
  char *const *envp;      /* NULL = a minimal environment (PATH, HOME=/, LANG=C) */
  const char *name;       /* cgroup leaf name, e.g. "point-3" */
  int stdout_fd;          /* child's stdout/stderr; -1 = inherit */
  int stderr_fd;
  double timeout_s;       /* overrides profile->timeout_s when > 0 */
  int sample_ms;          /* /proc sampling period; 0 = 20 ms */
  const char *seccomp_override; /* path; overrides profile->seccomp_path */
  int seccomp_log;        /* record syscalls used (SCMP_ACT_LOG) instead of enforcing */
  const char *samples_path; /* NULL, or a CSV file for every sample: t_s,rss_bytes,vss_bytes,swap_bytes,cgroup_mem_bytes,
                               cgroup_swap_bytes,host_swap_used_bytes (the last two: lab_swap_sample_cols) */
  struct lab_companion *companion; /* stepped from the wait loop (companion.h); NULL = none */
};

/* A process of the sandbox a seccomp KILL action killed (seccomp-kills.h). */
struct lab_seccomp_kill
{
  int pid;        /* host pid */
  int nr;         /* syscall number */
  char name[64];  /* its name, "" if unknown */
  char comm[32];  /* the process's comm */
};
#define LAB_SECCOMP_KILLS_MAX 16

struct lab_sandbox_result
{
  enum lab_status status;
  int exit_code;          /* when exited normally, else -1 */
  int term_signal;        /* when killed, else 0 */
  double wall_s;          /* from release to reap, measured by the harness (JSON: point_wall_s) */
  double cpu_user_s, cpu_sys_s;   /* rusage of the reaped init + workload (whole process tree, setup included) */
  int64_t vol_ctxsw, invol_ctxsw; /* rusage */
  int64_t max_rss_bytes;          /* rusage ru_maxrss */
  int64_t rss_peak, vss_peak, swap_peak; /* /proc samples; -1 = none taken */
  int n_samples;
  struct lab_cgroup_stats cg;     /* figures read at the end (peaks) */
  int64_t cg_mem_peak_sampled;    /* max of sampled cgroup memory */
  int seccomp_nr;                 /* syscall that killed it, -1 if unknown/none */
  char seccomp_name[64];
  char cgroup_path[512];
  char cgroup_backend[8];
  char detail[256];               /* human-readable reason for a non-ok status */
  /* Added by the sandbox runtime: */
  int host_pid;                   /* the workload's pid in the harness's pid namespace */
  struct lab_cgroup_stats cg_at_peak; /* cgroup figures read at the largest sampled memory */
#define LAB_SYSCALLS_MAX 1024
  unsigned char syscalls_used[LAB_SYSCALLS_MAX]; /* seccomp_log: 1 = the workload made it */
  uint32_t syscalls_arch;         /* seccomp_log: audit arch of those numbers */
  char warnings[512];             /* e.g. an rlimit clamped to what the harness may grant */
  char harness_cpus[128];         /* where the harness (sampler) ran; "" = not moved */
  struct lab_seccomp_kill kills[LAB_SECCOMP_KILLS_MAX]; /* every process seccomp killed, the top included */
  int n_kills, kills_dropped;     /* kills[] used; more kills than it holds */
  int kills_attributed;           /* 1: the audit session tagged the whole sandbox; 0: the top only */
};

/* What a progress display may show of the running command: called from the
   wait loop after each sample (every 1..20 ms; throttle in the observer). */
struct lab_sandbox_live
{
  double elapsed_s;     /* since the command was released */
  int64_t rss_bytes;    /* its processes' RSS now, -1 = unreadable */
  int64_t cgroup_bytes; /* the cgroup's memory now, -1 = unreadable */
};
/* Sets (fn != NULL) or clears the observer of every later lab_sandbox_run. */
void lab_sandbox_set_observer (void (*fn) (const struct lab_sandbox_live *live, void *arg), void *arg);

int lab_sandbox_run (const struct lab_sandbox_spec *spec, struct lab_sandbox_result *res,
                     lab_error_t *err);
/* How the point ended, from the wait status of the workload (init's when init
   was killed), whether the harness timed it out, and res->cg.oom_kill and
   res->seccomp_*: sets status, exit_code, term_signal, detail. */
void lab_sandbox_classify (int wstatus, int timed_out, struct lab_sandbox_result *res);
/* The result as a JSON object (status, figures, sandbox description). */
struct json_object *lab_sandbox_result_to_json (const struct lab_sandbox_spec *spec,
                                                const struct lab_sandbox_result *res);

#endif
