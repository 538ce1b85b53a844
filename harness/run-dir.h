/*
 * run-dir.h - the results directory of one `lab run`: a unique name when the
 * user gave none, and a lock held for the whole run.
 *
 * Unique: results/<UTC second>-<experiments>, or with -2, -3 ... appended
 * when that name exists; the directory is made with mkdir (exclusive), so
 * two runs started in the same second never share one.
 *
 * Lock: DIR/.lock, flock(LOCK_EX) taken before anything in DIR is read or
 * written and held until the process exits (the kernel drops it when the
 * harness dies, even by SIGKILL).  The holder writes "pid N: COMMAND" into
 * the file; a second `lab run --out DIR` or `--resume DIR` that finds the lock
 * taken is refused (exit 2) with that line.  Once it holds the lock, a run
 * removes the NAME.tmp.<pid> files a killed run left half-written in DIR,
 * DIR/points and DIR/plots (nothing else can be writing them).
 */
#ifndef LAB_RUN_DIR_H
#define LAB_RUN_DIR_H

#include <stddef.h>

#include "error.h"

/* Makes `base` (or base-2, base-3 ...) with mkdir, parents as needed; the
   name made goes to out. */
int lab_run_dir_make_unique (const char *base, char *out, size_t len, lab_error_t *err);
/* Locks `dir` for this process (see above); `cmd` is the command line shown
   to a second run.  Returns the lock's fd (keep it open), or -1: a usage
   error (exit 2) naming the holder when taken. */
int lab_run_dir_lock (const char *dir, const char *cmd, lab_error_t *err);
/* Gives up a lock taken by lab_run_dir_lock (a run refused after all). */
void lab_run_dir_unlock (int fd);

#endif
