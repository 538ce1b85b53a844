/*
 * ns.h - namespace setup inside the sandbox child, between release and exec.
 */
#ifndef LAB_NS_H
#define LAB_NS_H

#include "error.h"
#include "profile.h"

struct lab_ns_config
{
  int clone_flags;              /* the namespaces the child was cloned into (+ CLONE_NEWCGROUP) */
  const char *hostname;         /* NULL = leave */
  const struct lab_rlimit *rlimits;
  int n_rlimits;
  int stdout_fd, stderr_fd;     /* -1 = inherit */
  long host_pid_max;            /* the harness's kernel.pid_max, for a namespaced pid_max */
  const struct lab_security *sec; /* read-only root, /tmp, /dev, masked paths (rootfs.h) */
  const char *command_dir;      /* bound read-only when under the private /tmp; NULL = none */
  const char *cwd_dir;          /* the same for the working directory; NULL = none */
};

/* In the child (the sandbox's init, pid 1), after it is in its cgroup: cgroup
   namespace (unshared here, so its root is the point's cgroup), / made
   rprivate and read-only, fresh /proc (new pid ns) and /sys (new net ns),
   /tmp, /dev, masked and read-only paths (rootfs.h), `lo` up, hostname,
   rlimits (inherited by the workload it forks).  Errors say which step failed. */
int lab_ns_setup_child (const struct lab_ns_config *c, lab_error_t *err);
/* In the workload process, before its exec: stdout/stderr, every other fd
   marked close-on-exec. */
int lab_ns_setup_fds (const struct lab_ns_config *c, lab_error_t *err);
/* Brings the loopback interface of the current net namespace up. */
int lab_ns_loopback_up (lab_error_t *err);

#endif
