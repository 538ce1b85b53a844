/* out-file.c - see out-file.h. */
#include "out-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "utils.h"

/* Open files: the harness is single-threaded and writes a few at a time. */
static struct
{
  FILE *f;
  char *path, *tmp;
} open_files[16];

FILE *
lab_out_open (const char *path, lab_error_t *err)
{
  size_t i;
  char *tmp = NULL;
  FILE *f;

  for (i = 0; i < ARRAY_SIZE (open_files) && open_files[i].f; i++)
    ;
  if (i == ARRAY_SIZE (open_files))
    return lab_error (err, EMFILE, "writing `%s`", path), NULL;
  if (asprintf (&tmp, "%s.tmp.%d", path, (int) getpid ()) < 0)
    return lab_error (err, ENOMEM, "writing `%s`", path), NULL;
  f = fopen (tmp, "we");
  if (f == NULL)
    {
      lab_error (err, errno, "writing `%s`", path);
      free (tmp);
      return NULL;
    }
  open_files[i].f = f;
  open_files[i].tmp = tmp;
  open_files[i].path = strdup (path);
  return f;
}

static size_t
slot (FILE *f)
{
  size_t i;
  for (i = 0; i < ARRAY_SIZE (open_files) && open_files[i].f != f; i++)
    ;
  return i;
}

static void
forget (size_t i)
{
  free (open_files[i].path);
  free (open_files[i].tmp);
  memset (&open_files[i], 0, sizeof (open_files[i]));
}

int
lab_out_close (FILE *f, lab_error_t *err)
{
  size_t i = slot (f);
  int e = 0;

  if (i == ARRAY_SIZE (open_files))
    return lab_error (err, EBADF, "closing a file lab_out_open did not open");
  /* ferror covers an earlier fprintf that failed; fflush and fsync the rest. */
  if (ferror (f))
    e = errno ? errno : EIO;
  if (fflush (f) != 0 && !e)
    e = errno;
  if (fsync (fileno (f)) != 0 && !e)
    e = errno;
  if (fclose (f) != 0 && !e)
    e = errno;
  if (!e && rename (open_files[i].tmp, open_files[i].path) != 0)
    e = errno;
  if (e)
    {
      unlink (open_files[i].tmp);
      lab_error (err, e, "writing `%s`", open_files[i].path ? open_files[i].path : "?");
    }
  forget (i);
  return e ? -1 : 0;
}

void
lab_out_abort (FILE *f)
{
  size_t i = slot (f);

  if (i == ARRAY_SIZE (open_files))
    return;
  fclose (f);
  unlink (open_files[i].tmp);
  forget (i);
}

int
lab_out_check_image (const char *path, lab_error_t *err)
{
  static const unsigned char iend[8] = { 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
  size_t n = strlen (path);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  unsigned char tail[64];
  struct stat st;
  ssize_t r;
  int ok;

  if (fd < 0)
    return lab_error (err, errno, "gnuplot did not write `%s`", path);
  if (fstat (fd, &st) < 0 || st.st_size < 16)
    goto cut;
  r = pread (fd, tail, sizeof (tail), st.st_size > (off_t) sizeof (tail) ? st.st_size - (off_t) sizeof (tail) : 0);
  if (r < 16)
    goto cut;
  if (n > 4 && strcmp (path + n - 4, ".png") == 0)
    ok = memcmp (tail + r - 8, iend, 8) == 0;
  else
    ok = memmem (tail, (size_t) r, "</svg>", 6) != NULL;
  if (ok)
    return 0;
cut:
  unlink (path);
  return lab_error (err, 0, "gnuplot wrote a cut `%s` (%lld bytes; disk full?): removed it", path,
                    (long long) st.st_size);
}
