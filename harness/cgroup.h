/*
 * cgroup.h - one cgroup API, two backends (cgroup-v2.c, cgroup-v1.c), as
 * plain cgroupfs file operations (cgroup-utils.c).
 *
 * Layout: the harness never creates at a hierarchy root it is not in and never
 * touches cgroups it did not create.  It reads /proc/self/cgroup, creates
 * `lab-<pid>` under its own cgroup of each hierarchy it uses, and one child
 * `point-<id>` per sandbox.  On v2 the harness first moves itself into a leaf
 * `lab-<pid>/harness` (no-internal-process rule) and enables controllers in
 * `lab-<pid>/cgroup.subtree_control`.  Mode: v2, hybrid with an empty v2 mount
 * (treated as v1, like this lab's development host), v1.
 */
#ifndef LAB_CGROUP_H
#define LAB_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "profile.h"

enum lab_cgroup_mode { LAB_CG_NONE = 0, LAB_CG_V1, LAB_CG_HYBRID, LAB_CG_V2 };

struct lab_cgroup_info
{
  enum lab_cgroup_mode mode;
  const char *backend;       /* "v2" or "v1": what will drive the sandboxes */
  char controllers[256];     /* usable controllers, space-separated */
};

/* Figures read from a point's cgroup after (or while) it runs; -1 = not available. */
struct lab_cgroup_stats
{
  int64_t mem_current, mem_peak;     /* v2 memory.peak; v1 max_usage_in_bytes */
  int64_t swap_current, swap_peak;   /* v2 memory.swap.*; v1 memsw - mem */
  int64_t anon, file, kernel_stack, pagetables, sock, slab, kernel; /* memory.stat */
  int64_t oom_kill;                  /* memory.events oom_kill (v1: memory.oom_control) */
  int64_t high_events;               /* v2 memory.events high: times memory.high throttled; v1 -1 */
  int64_t cpu_usage_us, nr_throttled, throttled_us;
  int64_t pids_current, pids_peak;
};

struct lab_cgroup; /* opaque: one point's cgroup (all hierarchies) */

/* Mode and usable controllers of this host. */
int lab_cgroup_detect (struct lab_cgroup_info *info, lab_error_t *err);
/* Creates `name` (e.g. "point-3") under the harness's `lab-<pid>` group with the
   limits; on first use creates and locks `lab-<pid>` (and removes `lab-<N>`
   groups no live harness holds, saying so on stderr). */
int lab_cgroup_create (const char *name, const struct lab_limits *limits,
                       struct lab_cgroup **out, lab_error_t *err);
/* Moves `pid` into the cgroup (all hierarchies). */
int lab_cgroup_attach (struct lab_cgroup *cg, pid_t pid, lab_error_t *err);
/* Opens, in each hierarchy, the file a process writes "0" into to move
   itself there (v1 `tasks`: moving one thread skips the global threadgroup
   lock, whose RCU grace period made attaching cost ~10 ms; v2
   `cgroup.procs`), close-on-exec, write-only.  Returns how many (<= max). */
int lab_cgroup_self_attach_fds (struct lab_cgroup *cg, int *fds, int max, lab_error_t *err);
/* Reads the figures; any missing file leaves its fields at -1. */
int lab_cgroup_read_stats (struct lab_cgroup *cg, struct lab_cgroup_stats *st, lab_error_t *err);
/* Samples memory use now (for peaks where the kernel keeps none). */
int64_t lab_cgroup_mem_current (struct lab_cgroup *cg);
/* Pids of the processes in the cgroup (first hierarchy); count or -1. */
int lab_cgroup_procs (struct lab_cgroup *cg, pid_t *pids, int max);
/* Kills every process in the cgroup (cgroup.kill, else freeze + SIGKILL + thaw). */
int lab_cgroup_kill (struct lab_cgroup *cg, lab_error_t *err);
/* Kills what is left, waits until empty, removes the cgroup (all hierarchies), frees cg. */
int lab_cgroup_destroy (struct lab_cgroup *cg, lab_error_t *err);
/* Path(s) for the record, e.g. "memory:/a/lab-1/point-3 pids:/lab-1/point-3". */
const char *lab_cgroup_path (const struct lab_cgroup *cg);
const char *lab_cgroup_backend (const struct lab_cgroup *cg);
/* Removes the harness's `lab-<pid>` groups; called at exit. */
void lab_cgroup_cleanup_all (void);
/* Removes, in every hierarchy, the `lab-<N>` siblings of the harness's own
   cgroup that no live harness holds (a SIGKILLed harness's), saying so on
   stderr.  Every command calls it first (main.c); as root only. */
void lab_cgroup_remove_stale (void);

#endif
