/*
 * common.h - shared by the fuzz targets (tests/fuzz/profile.c, seccomp.c).
 *
 * Each target feeds one input to a loader through a real file, as `lab` reads
 * it (lab_profile_load / lab_seccomp_load take a path), and checks the one
 * property bad input must keep: the load either succeeds or fails with a usage
 * error (exit 2) that has a message.  Anything else - a crash, a sanitizer
 * report, a hang, a harness error for what is only bad input - is a finding.
 *
 * Built two ways: by tools/fuzz/run.sh with clang -fsanitize=fuzzer,address
 * and -DLAB_FUZZ_MAIN (the libFuzzer entry point), and into the ordinary test
 * tests/fuzz-regress.c, which includes the targets and replays the seeds and
 * every input under tests/fuzz-regress/.
 */
#ifndef LAB_FUZZ_COMMON_H
#define LAB_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "error.h"

/* Writes the input to a private file; returns its path. */
static const char *
fuzz_input_file (const char *name, const uint8_t *data, size_t size)
{
  static char path[256];
  int fd;

  if (path[0] == '\0')
    {
      const char *dir = getenv ("LAB_TMP");
      if (dir && *dir)
        mkdir (dir, 0755); /* the runner makes it; a hand run may not have */
      snprintf (path, sizeof (path), "%s/lab-fuzz-%s-%d.json", dir && *dir ? dir : "/tmp", name, (int) getpid ());
    }
  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || (size && write (fd, data, size) != (ssize_t) size))
    {
      perror (path);
      abort ();
    }
  close (fd);
  return path;
}

/* A failed load must be a usage error with a message. */
static void
fuzz_check_error (const char *what, int ret, lab_error_t *err)
{
  if (ret == 0)
    return;
  if (*err == NULL || (*err)->msg == NULL || (*err)->msg[0] == '\0')
    {
      fprintf (stderr, "%s: failed without a message\n", what);
      abort ();
    }
  if ((*err)->exit_code != LAB_EXIT_USAGE)
    {
      fprintf (stderr, "%s: bad input reported as a harness failure (exit %d): %s\n", what, (*err)->exit_code,
               (*err)->msg);
      abort ();
    }
  lab_error_release (err);
}

#endif
