/* error.c - see error.h. */
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
make_error (lab_error_t *err, int errno_, int exit_code, const char *fmt, va_list ap)
{
  char *msg = NULL, *full = NULL;

  if (err == NULL)
    return -1;
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  if (msg && errno_ && asprintf (&full, "%s: %s", msg, strerror (errno_)) >= 0)
    {
      free (msg);
      msg = full;
    }
  lab_error_release (err);
  *err = calloc (1, sizeof (**err));
  if (*err == NULL)
    {
      free (msg);
      return -1;
    }
  (*err)->status = errno_;
  (*err)->exit_code = exit_code;
  (*err)->msg = msg ? msg : strdup ("out of memory while formatting an error");
  return -1;
}

int
lab_error (lab_error_t *err, int errno_, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  make_error (err, errno_, LAB_EXIT_FAIL, fmt, ap);
  va_end (ap);
  return -1;
}

int
lab_usage_error (lab_error_t *err, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  make_error (err, 0, LAB_EXIT_USAGE, fmt, ap);
  va_end (ap);
  return -1;
}

int
lab_error_prepend (lab_error_t *err, const char *fmt, ...)
{
  char *ctx = NULL, *full = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&ctx, fmt, ap) < 0)
    ctx = NULL;
  va_end (ap);
  if (ctx && asprintf (&full, "%s: %s", ctx, (*err)->msg ? (*err)->msg : "") >= 0)
    {
      free ((*err)->msg);
      (*err)->msg = full;
    }
  free (ctx);
  return -1;
}

void
lab_error_release (lab_error_t *err)
{
  if (err == NULL || *err == NULL)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}

int
lab_error_report (lab_error_t *err)
{
  int code = LAB_EXIT_FAIL;

  if (err && *err)
    {
      fprintf (stderr, "lab: %s\n", (*err)->msg ? (*err)->msg : "unknown error");
      code = (*err)->exit_code;
      lab_error_release (err);
    }
  return code;
}

void
lab_warn (const char *fmt, ...)
{
  va_list ap;
  fputs ("lab: warning: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}
