/*
 * tune-swap.c - swap files for `lab tune --swap SIZE [--swap-dir DIR]`.
 *
 * Checks first, so a bad directory is a clear usage error rather than a
 * swapon EINVAL: the directory must exist, be on a filesystem that can hold a
 * swap file (not tmpfs/ramfs, overlayfs, network or read-only filesystems;
 * btrfs only with nocow set on the directory: `chattr +C DIR`), and have room
 * for SIZE plus 1 GiB.  Then: create the file (mode 0600, fallocate, or
 * zeros where fallocate is not supported), `mkswap` it (util-linux), swapon(2).
 * Removal: swapoff(2) when /proc/swaps lists it, then unlink.
 */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utils.h"

#define SWAP_MIN (1L << 20)
#define FREE_RESERVE (1LL << 30)

extern char **environ;

static const struct
{
  long magic;
  const char *name;
} no_swap_fs[] = {
  { TMPFS_MAGIC, "tmpfs (its pages live in memory: swapping to it makes no sense)" },
  { RAMFS_MAGIC, "ramfs" },
  { OVERLAYFS_SUPER_MAGIC, "overlayfs" },
  { NFS_SUPER_MAGIC, "nfs" },
  { SQUASHFS_MAGIC, "squashfs" },
  { 0x65735546, "fuse" },
  { 0x01021997, "9p" },
};

int
lab_swap_check_dir (const char *dir, lab_error_t *err)
{
  struct stat st;
  struct statfs fs;
  if (stat (dir, &st) < 0)
    return lab_usage_error (err, "--swap-dir `%s`: %s", dir, strerror (errno));
  if (!S_ISDIR (st.st_mode))
    return lab_usage_error (err, "--swap-dir `%s`: not a directory", dir);
  if (statfs (dir, &fs) < 0)
    return lab_error (err, errno, "statfs `%s`", dir);
  for (size_t i = 0; i < ARRAY_SIZE (no_swap_fs); i++)
    if ((long) fs.f_type == no_swap_fs[i].magic)
      return lab_usage_error (err, "--swap-dir `%s` is on %s, which cannot hold a swap file; "
                                   "name a directory on a disk filesystem such as ext4 or xfs",
                              dir, no_swap_fs[i].name);
  if ((long) fs.f_type == (long) BTRFS_SUPER_MAGIC)
    {
      cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      int flags = 0;
      if (fd < 0 || ioctl (fd, FS_IOC_GETFLAGS, &flags) < 0 || !(flags & FS_NOCOW_FL))
        return lab_usage_error (err, "--swap-dir `%s` is on btrfs without nocow: a swap file there must not be "
                                     "copy-on-write; run `chattr +C %s` on the (empty) directory first",
                                dir, dir);
    }
  if (fs.f_flags & ST_RDONLY)
    return lab_usage_error (err, "--swap-dir `%s`: read-only filesystem", dir);
  return 0;
}

static int
run_mkswap (const char *file, lab_error_t *err)
{
  static const char *const paths[] = { "/usr/sbin/mkswap", "/sbin/mkswap" };
  for (size_t i = 0; i < ARRAY_SIZE (paths); i++)
    {
      char *argv[] = { (char *) paths[i], (char *) "-q", (char *) file, NULL };
      pid_t pid;
      int ws;
      if (access (paths[i], X_OK) < 0)
        continue;
      if ((errno = posix_spawn (&pid, paths[i], NULL, NULL, argv, environ)) != 0)
        return lab_error (err, errno, "running `%s`", paths[i]);
      while (waitpid (pid, &ws, 0) < 0 && errno == EINTR)
        ;
      if (!WIFEXITED (ws) || WEXITSTATUS (ws) != 0)
        return lab_error (err, 0, "`mkswap %s` failed", file);
      return 0;
    }
  return lab_error (err, 0, "`mkswap` not found (Debian package util-linux)");
}

static int
fill (int fd, int64_t bytes, lab_error_t *err)
{
  if (fallocate (fd, 0, 0, bytes) == 0)
    return 0;
  if (errno != EOPNOTSUPP)
    return lab_error (err, errno, "fallocate %lld bytes", (long long) bytes);
  static char zero[1 << 16];
  for (int64_t done = 0; done < bytes;)
    {
      ssize_t w = write (fd, zero, (size_t) (bytes - done < (int64_t) sizeof zero ? bytes - done : (int64_t) sizeof zero));
      if (w < 0)
        return lab_error (err, errno, "writing zeros");
      done += w;
    }
  return fsync (fd) < 0 ? lab_error (err, errno, "fsync") : 0;
}

int
lab_swap_create (const char *file, int64_t bytes, lab_error_t *err)
{
  char dir[PATH_MAX];
  struct statvfs vfs;
  snprintf (dir, sizeof dir, "%s", file);
  *strrchr (dir, '/') = '\0';
  if (bytes < SWAP_MIN)
    return lab_usage_error (err, "--swap: %lld bytes is too small (at least 1M)", (long long) bytes);
  if (statvfs (dir, &vfs) == 0 && (int64_t) vfs.f_bavail * (int64_t) vfs.f_frsize < bytes + FREE_RESERVE)
    return lab_usage_error (err, "--swap: `%s` has %lld MiB free; a %lld MiB swap file would leave less than 1 GiB",
                            dir, (long long) ((int64_t) vfs.f_bavail * (int64_t) vfs.f_frsize >> 20),
                            (long long) (bytes >> 20));
  cleanup_close int fd = open (file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return lab_error (err, errno, "creating swap file `%s`", file);
  if (fill (fd, bytes, err) < 0 || run_mkswap (file, err) < 0)
    return lab_error_prepend (err, "swap file `%s`", file);
  if (swapon (file, 0) < 0)
    return lab_error (err, errno, "swapon `%s`", file);
  return 0;
}

static int
swap_listed (const char *file)
{
  char line[PATH_MAX + 128], name[PATH_MAX];
  cleanup_file FILE *f = fopen ("/proc/swaps", "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "%4095s", name) == 1 && strcmp (name, file) == 0)
      return 1;
  return 0;
}

int
lab_swap_remove (const char *file, lab_error_t *err)
{
  if (swap_listed (file) && swapoff (file) < 0)
    return lab_error (err, errno, "swapoff `%s`", file);
  if (unlink (file) < 0 && errno != ENOENT)
    return lab_error (err, errno, "removing swap file `%s`", file);
  return 0;
}
