/* run-dir.c - see run-dir.h. */
#include "run-dir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "utils.h"

int
lab_run_dir_make_unique (const char *base, char *out, size_t len, lab_error_t *err)
{
  char parent[PATH_MAX];
  const char *slash = strrchr (base, '/');

  if (slash && slash != base)
    {
      snprintf (parent, sizeof parent, "%.*s", (int) (slash - base), base);
      if (lab_mkdir_p (parent, 0755, err) < 0)
        return -1;
    }
  for (int i = 1; i < 1000; i++)
    {
      if (i == 1)
        snprintf (out, len, "%s", base);
      else
        snprintf (out, len, "%s-%d", base, i);
      if (mkdir (out, 0755) == 0)
        return 0;
      if (errno != EEXIST)
        return lab_error (err, errno, "creating directory `%s`", out);
    }
  return lab_error (err, EEXIST, "creating a directory named `%s-N`", base);
}

/* The holder's line, waiting briefly for a holder that has the lock but has
   not written it yet. */
static void
read_holder (int fd, char *buf, size_t len)
{
  for (int tries = 0; tries < 50; tries++)
    {
      ssize_t n = pread (fd, buf, len - 1, 0);
      buf[n > 0 ? n : 0] = '\0';
      buf[strcspn (buf, "\n")] = '\0';
      if (buf[0])
        return;
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      nanosleep (&ts, NULL);
    }
  snprintf (buf, len, "another process");
}

/* NAME.tmp.<digits>: a file lab_write_file_atomic or lab_out_open was
   writing when its run died (SIGKILL gives no chance to unlink it). */
static int
is_partial (const char *name)
{
  const char *t = strstr (name, ".tmp.");
  const char *d;

  if (t == NULL || t == name)
    return 0;
  for (d = t + 5; *d; d++)
    if (!isdigit ((unsigned char) *d))
      return 0;
  return d > t + 5;
}

/* Removes the partial files of dead runs from DIR and its points/ and plots/.
   Called with the lock held: no other run can be writing them. */
static void
sweep_partials (const char *dir)
{
  static const char *const subs[] = { "", "/points", "/plots" };
  char path[PATH_MAX];
  int removed = 0;

  for (size_t i = 0; i < ARRAY_SIZE (subs); i++)
    {
      DIR *d;
      struct dirent *e;

      snprintf (path, sizeof path, "%s%s", dir, subs[i]);
      d = opendir (path);
      if (d == NULL)
        continue;
      while ((e = readdir (d)))
        if (is_partial (e->d_name))
          {
            if (unlinkat (dirfd (d), e->d_name, 0) == 0)
              removed++;
            else
              lab_warn ("removing the partial file `%s/%s`: %s", path, e->d_name, strerror (errno));
          }
      closedir (d);
    }
  if (removed)
    fprintf (stderr, "lab: removed %d partial file%s left in `%s` by an interrupted run\n", removed,
             removed == 1 ? "" : "s", dir);
}

int
lab_run_dir_lock (const char *dir, const char *cmd, lab_error_t *err)
{
  char path[PATH_MAX + 16], line[1024];
  int fd;

  snprintf (path, sizeof path, "%s/.lock", dir);
  /* Kept open (close-on-exec) until exit: closing it would drop the lock. */
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return lab_error (err, errno, "opening the lock `%s`", path);
  if (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      int e = errno;
      if (e != EWOULDBLOCK)
        {
          close (fd);
          return lab_error (err, e, "locking `%s`", path);
        }
      read_holder (fd, line, sizeof line);
      close (fd);
      return lab_usage_error (err, "results directory `%s` is in use by %s; wait for that run to end, "
                                   "or choose another --out", dir, line);
    }
  snprintf (line, sizeof line, "pid %d: %s\n", (int) getpid (), cmd);
  if (ftruncate (fd, 0) < 0 || pwrite (fd, line, strlen (line), 0) != (ssize_t) strlen (line))
    lab_warn ("writing `%s`: %s", path, strerror (errno));
  sweep_partials (dir);
  return fd;
}

void
lab_run_dir_unlock (int fd)
{
  if (ftruncate (fd, 0) < 0)
    lab_warn ("clearing a results directory's lock: %s", strerror (errno));
  close (fd);
}
