/*
 * utils.h - small helpers shared by the harness: cleanup attributes (after
 * crun's utils.h) so early returns are safe, and ownership handed out
 * explicitly with take_ptr()/take_fd().
 */
#ifndef LAB_UTILS_H
#define LAB_UTILS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"

static inline void cleanup_freep (void *p) { free (*(void **) p); }
static inline void cleanup_closep (int *fd) { if (*fd >= 0) close (*fd); }
static inline void cleanup_fclosep (FILE **f) { if (*f) fclose (*f); }

#define cleanup_free __attribute__ ((cleanup (cleanup_freep)))
#define cleanup_close __attribute__ ((cleanup (cleanup_closep)))
#define cleanup_file __attribute__ ((cleanup (cleanup_fclosep)))

#define take_ptr(p) ({ __typeof__ (p) _t = (p); (p) = NULL; _t; })
#define take_fd(fd) ({ int _t = (fd); (fd) = -1; _t; })

#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

/* Parses a size such as "512M", "2G", "4096", "1.5G", or "max" (-> INT64_MAX).
   Suffixes K/M/G/T (powers of 1024, optional trailing "i"/"iB"/"B").  Returns -1
   with a usage error naming `what` on bad input. */
int lab_parse_size (const char *s, const char *what, int64_t *out, lab_error_t *err);
/* Parses a non-negative integer with optional K/M suffix (powers of 1000: 1K = 1000,
   1M = 1000000), for task counts. */
int lab_parse_count (const char *s, const char *what, long *out, lab_error_t *err);
/* Writes `len` bytes to `path` atomically: temp file in the same directory,
   fsync, rename. */
int lab_write_file_atomic (const char *path, const char *data, size_t len, lab_error_t *err);
/* Reads a whole file (NUL-terminated).  Returns -1 with errno-style error. */
int lab_read_file (const char *path, char **out, size_t *len, lab_error_t *err);
/* Monotonic clock in seconds. */
double lab_now (void);
/* Flushes stdout; fails ("writing to standard output: Broken pipe") when
   any write to it failed so far.  SIGPIPE is ignored (main.c), so a closed
   pipe is this error, handled like any other. */
int lab_stdout_check (lab_error_t *err);
/* mkdir -p */
int lab_mkdir_p (const char *path, int mode, lab_error_t *err);

#endif
