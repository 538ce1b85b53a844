/* utils.c - see utils.h. */
#include "utils.h"

#include "size.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

int
lab_parse_size (const char *s, const char *what, int64_t *out, lab_error_t *err)
{
  uint64_t v;
  const char *why;

  if (s && (strcasecmp (s, "max") == 0 || strcasecmp (s, "unlimited") == 0))
    {
      *out = INT64_MAX;
      return 0;
    }
  /* INT64_MAX stands for "max": a size must stay below it. */
  why = lab_size_parse (s, INT64_MAX - 1, &v);
  if (why)
    return lab_usage_error (err, "%s: bad size `%s` (%s; expected e.g. 512M, 1.5G, 4096 or max)", what,
                            s ? s : "", why);
  *out = (int64_t) v;
  return 0;
}

int
lab_parse_count (const char *s, const char *what, long *out, lab_error_t *err)
{
  char *end = NULL;
  double v, mult = 1;

  if (s == NULL || *s == '\0')
    return lab_usage_error (err, "%s: empty number", what);
  /* Digits, an optional fraction and K/M: no sign, exponent, hex, inf or nan. */
  if (strspn (s, "0123456789.") != strcspn (s, "kKmM") || s[0] < '0' || s[0] > '9')
    return lab_usage_error (err, "%s: bad number `%s` (expected e.g. 1000, 10K, 1.5M)", what, s);
  errno = 0;
  v = strtod (s, &end);
  if (errno || end == s || !isfinite (v) || v < 0)
    return lab_usage_error (err, "%s: bad number `%s`", what, s);
  if (*end == 'k' || *end == 'K')
    mult = 1e3, end++;
  else if (*end == 'm' || *end == 'M')
    mult = 1e6, end++;
  if (*end != '\0')
    return lab_usage_error (err, "%s: bad number `%s` (trailing `%s`)", what, s, end);
  v *= mult;
  if (v > (double) LONG_MAX / 2 || v != floor (v))
    return lab_usage_error (err, "%s: `%s` is not a whole number in range", what, s);
  *out = (long) v;
  return 0;
}

int
lab_write_file_atomic (const char *path, const char *data, size_t len, lab_error_t *err)
{
  cleanup_free char *tmp = NULL;
  cleanup_close int fd = -1;
  size_t off = 0;

  if (asprintf (&tmp, "%s.tmp.%d", path, (int) getpid ()) < 0)
    return lab_error (err, ENOMEM, "writing `%s`", path);
  fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return lab_error (err, errno, "creating `%s`", tmp);
  while (off < len)
    {
      ssize_t w = write (fd, data + off, len - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        {
          int e = errno;
          unlink (tmp);
          return lab_error (err, e, "writing `%s`", tmp);
        }
      off += (size_t) w;
    }
  if (fsync (fd) < 0 || close (take_fd (fd)) < 0)
    {
      int e = errno;
      unlink (tmp);
      return lab_error (err, e, "flushing `%s`", tmp);
    }
  if (rename (tmp, path) < 0)
    {
      int e = errno;
      unlink (tmp);
      return lab_error (err, e, "renaming `%s` to `%s`", tmp, path);
    }
  return 0;
}

int
lab_read_file (const char *path, char **out, size_t *len, lab_error_t *err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  size_t cap = 4096, n = 0;
  char *buf;

  if (fd < 0)
    return lab_error (err, errno, "opening `%s`", path);
  buf = malloc (cap + 1);
  if (buf == NULL)
    return lab_error (err, ENOMEM, "reading `%s`", path);
  for (;;)
    {
      ssize_t r;
      if (n == cap)
        {
          char *nb = realloc (buf, cap * 2 + 1);
          if (nb == NULL)
            {
              free (buf);
              return lab_error (err, ENOMEM, "reading `%s`", path);
            }
          buf = nb;
          cap *= 2;
        }
      r = read (fd, buf + n, cap - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int e = errno;
          free (buf);
          return lab_error (err, e, "reading `%s`", path);
        }
      if (r == 0)
        break;
      n += (size_t) r;
    }
  buf[n] = '\0';
  *out = buf;
  if (len)
    *len = n;
  return 0;
}

double
lab_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int
lab_mkdir_p (const char *path, int mode, lab_error_t *err)
{
  cleanup_free char *p = strdup (path);
  char *s;

  if (p == NULL)
    return lab_error (err, ENOMEM, "mkdir `%s`", path);
  for (s = p + 1; *s; s++)
    {
      if (*s != '/')
        continue;
      *s = '\0';
      if (mkdir (p, (mode_t) mode) < 0 && errno != EEXIST)
        return lab_error (err, errno, "creating directory `%s`", p);
      *s = '/';
    }
  if (mkdir (p, (mode_t) mode) < 0 && errno != EEXIST)
    return lab_error (err, errno, "creating directory `%s`", p);
  return 0;
}

int
lab_stdout_check (lab_error_t *err)
{
  struct pollfd pf = { STDOUT_FILENO, POLLOUT, 0 };
  int e;

  errno = 0;
  if (fflush (stdout) == 0 && !ferror (stdout))
    return 0;
  /* A failed write left the error flag; the errno of that write is gone
     unless this flush failed too.  A pipe without readers polls POLLERR. */
  e = errno;
  if (e == 0 && poll (&pf, 1, 0) == 1 && (pf.revents & POLLERR))
    e = EPIPE;
  if (e)
    return lab_error (err, e, "writing to standard output");
  return lab_error (err, 0, "writing to standard output failed");
}
