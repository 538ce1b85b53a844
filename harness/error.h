/*
 * error.h - the lab's one error path (after crun's libcrun/error.h).
 *
 * Every fallible function returns a negative value and takes `lab_error_t *err`
 * last.  The first failure creates the error with lab_error()/lab_usage_error();
 * callers on the way up add context with lab_error_prepend(), so the user reads
 * e.g. "profile `containers/x.json`: field `memory.max`: bad size `12Q`".
 *
 * Two kinds of error decide the exit code:
 *   - LAB_EXIT_USAGE (2): bad input from the user (malformed profile, unknown
 *     experiment, impossible scale, bad flag).
 *   - LAB_EXIT_FAIL  (1): the host or the harness failed (mkdir, clone, ...).
 *
 * Messages are lowercase, names in backticks.  Best-effort cleanup uses its own
 * error object and releases it, so it never masks the first error.
 */
#ifndef LAB_ERROR_H
#define LAB_ERROR_H

#include <stdarg.h>

enum { LAB_EXIT_OK = 0, LAB_EXIT_FAIL = 1, LAB_EXIT_USAGE = 2 };

struct lab_error_s {
  int status; /* errno, or 0 */
  int exit_code; /* LAB_EXIT_FAIL or LAB_EXIT_USAGE */
  char *msg;
};
typedef struct lab_error_s *lab_error_t;

/* Host/harness failure; errno_ (0 for none) is appended as ": strerror".  Returns -1. */
int lab_error (lab_error_t *err, int errno_, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Bad user input (exit 2).  Returns -1. */
int lab_usage_error (lab_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* Adds "context: " in front of the message.  Returns -1. */
int lab_error_prepend (lab_error_t *err, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
void lab_error_release (lab_error_t *err);
/* Prints "lab: MESSAGE" to stderr; returns the exit code for it. */
int lab_error_report (lab_error_t *err);
/* Prints a warning "lab: warning: ..." to stderr. */
void lab_warn (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

#endif
