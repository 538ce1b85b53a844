/*
 * tune.h - the host settings that cap experiments at scale, and `lab tune`'s
 * reversible changes to them.
 *
 * tune.c      the settings table: what each setting is now, what the asked
 *             experiments and scales need and why (kernel.pid_max,
 *             kernel.threads-max, vm.max_map_count, vm.overcommit_memory,
 *             THP, RLIMIT_NPROC/NOFILE, swap), and the JSON `lab run` records.
 * tune-state.c the state file: old values saved BEFORE anything changes,
 *             --apply and --undo (restores exactly the saved text).
 * tune-swap.c  swap files: filesystem checks, create, enable, disable, remove.
 *
 * Only `lab tune --apply`, `--swap` and `--undo` change the host; `lab run`
 * reads the settings (lab_tune_to_json) and records them in meta.json.
 */
#ifndef LAB_TUNE_H
#define LAB_TUNE_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

#define LAB_TUNE_MAX 16

/* What the asked experiments need at their largest scale. */
struct lab_tune_req
{
  long live_tasks;      /* tasks alive at once (pthreads in the worst case) */
  const char *live_why; /* e.g. "memory parks 500000 tasks alive" */
  long fds;             /* file descriptors per point */
  int64_t swap_bytes;   /* swap the asked experiments want (pressure), 0 = none */
  const char *swap_why;
};

enum lab_tune_state
{
  LAB_TUNE_OK = 0,   /* enough already */
  LAB_TUNE_RAISE,    /* --apply changes it */
  LAB_TUNE_MANUAL,   /* short, but not something --apply sets (swap, rlimit hard limit) */
  LAB_TUNE_INFO,     /* shown for the record */
};

struct lab_tune_item
{
  const char *name;     /* "kernel.pid_max" */
  const char *path;     /* file --apply writes; NULL = not written by --apply */
  char now[64];         /* current value as the file shows it */
  char need[96];        /* what the experiments need ("> 510000", "not 2") */
  char value[64];       /* what --apply writes (LAB_TUNE_RAISE) */
  enum lab_tune_state state;
  char why[256];
};

/* Fills items (at most LAB_TUNE_MAX) for `req`; returns how many. */
int lab_tune_plan (const struct lab_tune_req *req, struct lab_tune_item *items);
const char *lab_tune_state_name (enum lab_tune_state st);
/* Current value of a setting file (first line, trimmed): THP's "[madvise]" -> "madvise". */
int lab_tune_read (const char *path, char *out, size_t len);

/* Default state file: <root>/results/.lab-tune.json. */
void lab_tune_default_state (char *out, size_t len);

/* Saves the old values of every RAISE item (keeping values an earlier --apply
   saved), then writes the new ones. */
int lab_tune_apply (const char *state, const struct lab_tune_item *items, int n, lab_error_t *err);
/* Restores every saved value, disables and removes the swap files, then
   deletes the state file.  No state file: nothing to do (prints so). */
int lab_tune_undo (const char *state, lab_error_t *err);
/* Records a swap file in the state file (before it is created). */
int lab_tune_state_add_swap (const char *state, const char *file, int64_t bytes, lab_error_t *err);

/* Swap file: refuses filesystems that cannot hold one (tmpfs, btrfs without
   nocow, ...) with a usage error naming the directory; creates DIR/lab-swap-<N>.swap. */
int lab_swap_check_dir (const char *dir, lab_error_t *err);
int lab_swap_create (const char *file, int64_t bytes, lab_error_t *err);
int lab_swap_remove (const char *file, lab_error_t *err);
/* Bytes of swap enabled on the host (SwapTotal) and used (SwapTotal - SwapFree). */
int64_t lab_swap_total (void);
int64_t lab_swap_used (void);
/* For the sandbox's samples CSV: ",CGROUP_SWAP,HOST_SWAP_USED" (bytes): the
   cgroup's swap now (v2 memory.swap.current; v1 memsw - usage; 0 when the host
   has no swap, without reading the cgroup) and SwapTotal - SwapFree, the
   figure /proc/swaps sums.  Empty cells when unreadable. */
struct lab_cgroup;
void lab_swap_sample_cols (FILE *f, struct lab_cgroup *cg);

/* For meta.json: {"settings": {name: value}, "applied_by_lab_tune": bool,
   "state_file": path, "changed": {name: {"old","new"}}, "swap_files": [...]}. */
struct json_object *lab_tune_to_json (void);

#endif
