/*
 * cgroup-internal.h - what cgroup.c shares with its two backends
 * (cgroup-v1.c, cgroup-v2.c) and with cgroup-utils.c.
 *
 * A point's cgroup is a list of "hierarchies": one entry per mounted hierarchy
 * the point uses, each a directory of its own with the limit files to write
 * into it.  On a v1 host the harness's own cgroups differ per hierarchy (this
 * lab's host: memory at /process_api/<id>, pids and cpu at /), so each
 * point's group sits under the harness's own cgroup of that hierarchy.  On v2
 * there is one hierarchy.  The backend contract is small (after redis'
 * ae_*.c): plan the limits, read the figures, sample memory, kill.
 */
#ifndef LAB_CGROUP_INTERNAL_H
#define LAB_CGROUP_INTERNAL_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "cgroup.h"
#include "error.h"
#include "profile.h"

#define LAB_CG_MAX_HIER 8
#define LAB_CG_MAX_CTL 4
#define LAB_CG_MAX_VALUES 8

/* A limit: `value` written into `file` right after the group is made. */
struct lab_cg_value
{
  const char *file;                /* e.g. "memory.max" (a string constant) */
  char value[256];
};

struct lab_cg_hier
{
  const char *ctl[LAB_CG_MAX_CTL]; /* controllers of this hierarchy the point uses */
  int n_ctl;
  char mount[PATH_MAX];            /* e.g. /sys/fs/cgroup/memory */
  char rel[PATH_MAX];              /* relative to the mount, no leading slash */
  char dir[PATH_MAX];              /* mount + "/" + rel */
  struct lab_cg_value values[LAB_CG_MAX_VALUES]; /* written in this order */
  int n_values;
  int created;
};

struct lab_cgroup
{
  const struct lab_cg_backend *ops;
  char name[64];
  struct lab_cg_hier h[LAB_CG_MAX_HIER];
  int n_h;
  char path_desc[1024];
  struct lab_cgroup *next;         /* list of live points, for cleanup_all */
};

struct lab_cg_backend
{
  const char *name;
  /* The controllers whose hierarchies may hold lab groups (v1: where the
     stale-group sweep looks), NULL-terminated. */
  const char *const *ctls;
  /* Fills cg->h (controllers, mount, rel under `lab-<pid>`) for `limits` and
     adds the limit values to each hierarchy (lab_cg_set). */
  int (*plan) (struct lab_cgroup *cg, const struct lab_limits *limits, lab_error_t *err);
  int (*read_stats) (struct lab_cgroup *cg, struct lab_cgroup_stats *st);
  int64_t (*mem_current) (struct lab_cgroup *cg);
  int (*kill) (struct lab_cgroup *cg, lab_error_t *err);
};

extern const struct lab_cg_backend lab_cg_backend_v1;
extern const struct lab_cg_backend lab_cg_backend_v2;

/* cgroup.c: the harness's `lab-<pid>` group in the hierarchy of `ctl`, created
   on first use (v1); its path relative to the mount and the mount.  */
int lab_cg_lab_dir (const char *ctl, char *mount, size_t mount_len, char *rel, size_t rel_len,
                    lab_error_t *err);
/* The hierarchy entry of cg holding `ctl`, or NULL. */
struct lab_cg_hier *lab_cg_find (struct lab_cgroup *cg, const char *ctl);
/* Adds `ctl` to cg: a new hierarchy entry, or the one sharing its mount. */
int lab_cg_add_ctl (struct lab_cgroup *cg, const char *ctl, lab_error_t *err);
/* Adds a limit to the hierarchy holding `ctl`: `file` (a string constant)
   gets `value` when the group is made, after the limits added before it. */
int lab_cg_set (struct lab_cgroup *cg, const char *ctl, const char *file, const char *value,
                lab_error_t *err);

/* cgroup-utils.c: plain cgroupfs file operations. */
/* snprintf for paths; a truncated path is an error (-1, errno ENAMETOOLONG). */
int lab_cg_pathf (char *buf, size_t len, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
int lab_cg_write (const char *dir, const char *file, const char *value, lab_error_t *err);
int lab_cg_read_str (const char *dir, const char *file, char *buf, size_t len);
int64_t lab_cg_read_int (const char *dir, const char *file);           /* -1 if absent; "max" -> INT64_MAX */
int64_t lab_cg_read_key (const char *dir, const char *file, const char *key); /* "key value" lines */
int lab_cg_file_exists (const char *dir, const char *file);
/* Pids in dir/cgroup.procs; returns count (<= max), -1 when unreadable. */
int lab_cg_read_procs (const char *dir, pid_t *pids, int max);
/* SIGKILL every process in dir/cgroup.procs until it reads empty (bounded). */
int lab_cg_kill_procs (const char *dir);
/* Waits until dir/cgroup.procs is empty, then rmdir, retrying on EBUSY. */
int lab_cg_rmdir_wait (const char *dir, lab_error_t *err);
/* Removes a directory tree of cgroups bottom-up, killing what is inside. */
int lab_cg_remove_tree (const char *dir, lab_error_t *err);
/* Own cgroup path (from /proc/self/cgroup) in the hierarchy holding `ctl`
   ("" for v2's unified line), relative to what is mounted.  The file is read
   once and kept until lab_cg_self_changed (the harness moved itself). */
int lab_cg_self_path (const char *ctl, char *out, size_t len);
void lab_cg_self_changed (void);
/* Where the hierarchy holding `ctl` is mounted ("": the cgroup2 mount), from
   /proc/self/mountinfo, read once; -1 when it is not mounted. */
int lab_cg_mount_of (const char *ctl, char *out, size_t len);
int lab_cg_v1_freeze (const char *freezer_dir, int freeze);

/* cgroup-stale.c: liveness of `lab-<N>` groups by lock, not by pid. */
/* Takes /run/lab/cgroups.lock (a sweep, or a group made and locked); its fd,
   or -1 where unavailable (then going on without it). */
int lab_cg_sweep_lock (void);
void lab_cg_sweep_unlock (int fd);
/* Opens `dir` (a `lab-<pid>` the harness made) and takes a record lock on
   it: the fd to keep open while the group lives (closing any fd of `dir`
   drops the lock), or -1. */
int lab_cg_hold (const char *dir);
/* Removes the `lab-<N>` groups under `parent` that no live harness holds,
   saying so on stderr; `ctl` names the hierarchy in the message ("" on v2). */
void lab_cg_remove_stale_in (const char *parent, const char *mount, const char *ctl);

#endif
