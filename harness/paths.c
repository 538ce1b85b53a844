/*
 * paths.c - where the lab lives.  `./lab` is a symlink to build/bin/lab; the
 * workloads sit beside the real binary (build/bin/wl-*), and the repository
 * root (containers/, seccomp/, results/) is two levels above it.  LAB_ROOT
 * overrides the root (used by the VM tests, where the tree is laid out flat).
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static char bin_dir[PATH_MAX], root_dir[PATH_MAX];

static void
resolve (void)
{
  char exe[PATH_MAX];
  ssize_t n;

  if (bin_dir[0])
    return;
  n = readlink ("/proc/self/exe", exe, sizeof (exe) - 1);
  if (n <= 0)
    {
      strcpy (bin_dir, ".");
      strcpy (root_dir, ".");
      return;
    }
  exe[n] = '\0';
  strncpy (bin_dir, dirname (exe), sizeof (bin_dir) - 1);
  if (getenv ("LAB_ROOT"))
    strncpy (root_dir, getenv ("LAB_ROOT"), sizeof (root_dir) - 1);
  else
    {
      char tmp[PATH_MAX];
      /* build/bin -> build -> root */
      snprintf (tmp, sizeof (tmp), "%s/../..", bin_dir);
      if (realpath (tmp, root_dir) == NULL)
        strcpy (root_dir, ".");
    }
}

const char *
lab_bin_dir (void)
{
  resolve ();
  return bin_dir;
}

const char *
lab_root_dir (void)
{
  resolve ();
  return root_dir;
}
