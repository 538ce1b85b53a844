/*
 * profile.h - sandbox profiles (`containers/<name>.json`).
 *
 * A sandbox profile says what a point may use: cgroup limits, namespaces,
 * rlimits, CPU set, confinement (capabilities, user namespace, read-only root,
 * /tmp, /dev, masked paths: profile-security.h), the seccomp profile (a Docker-format `seccomp/<name>.json`,
 * path relative to the repository root or absolute), and a default timeout.
 * Format and fields: containers/README.md.  Unknown fields are errors (a typo
 * must not silently drop a limit).  Every error names the file and the field.
 */
#ifndef LAB_PROFILE_H
#define LAB_PROFILE_H

#include <stdint.h>
#include <sys/resource.h>

#include "error.h"
#include "profile-security.h"

#define LAB_LIMIT_UNSET (-1)  /* a limit the profile leaves alone */
#define LAB_LIMIT_MAX INT64_MAX /* "max": explicitly unlimited */
/* The kernel's PID_MAX_LIMIT on 64-bit: a pids.max above it means nothing. */
#define LAB_PIDS_MAX 4194304

struct lab_limits
{
  int64_t memory_max;      /* bytes; v2 memory.max, v1 memory.limit_in_bytes */
  int64_t memory_high;     /* bytes; v2 only */
  int64_t memory_swap_max; /* bytes of swap (v2 memory.swap.max; v1 memsw = max + this) */
  int64_t pids_max;
  int64_t cpu_quota_us;    /* with cpu_period_us: v2 cpu.max, v1 cfs_quota/period */
  int64_t cpu_period_us;
  char *cpuset_cpus;       /* e.g. "0-1"; NULL = unset */
  int oom_group;           /* v2 memory.oom.group; default 1 */
};

struct lab_rlimit
{
  int resource; /* RLIMIT_* */
  rlim_t soft, hard;
};

struct lab_profile
{
  char *path;          /* file it was loaded from */
  char *name;
  struct lab_limits limits;
  int clone_flags;     /* CLONE_NEWPID|CLONE_NEWNS|CLONE_NEWNET|CLONE_NEWIPC|CLONE_NEWUTS|CLONE_NEWCGROUP */
  char *hostname;      /* for the uts namespace; default "lab" */
  char *seccomp_path;  /* resolved path of the Docker-format profile; NULL = no filter */
  struct lab_rlimit *rlimits;
  int n_rlimits;
  double timeout_s;    /* 0 = none */
  struct lab_security sec; /* capabilities, user ns, mounts (profile-security.h) */
};

/* Loads and validates `path`.  `root` is the directory relative seccomp paths
   are resolved against (the repository root).  Usage errors (exit 2) for bad
   content, naming file and field. */
int lab_profile_load (const char *path, const char *root, struct lab_profile *out, lab_error_t *err);
void lab_profile_free (struct lab_profile *p);
/* Writes the profile as a JSON object (for the point JSON): returns a json_object*. */
struct json_object *lab_profile_to_json (const struct lab_profile *p);

/* pids.max "auto" (pids-auto.c): min(kernel.pid_max, kernel.threads-max)
   minus a reserve of max(1024, 1/8) left to the host. */
int64_t lab_pids_auto (void);

#endif
