/*
 * rootfs.c - read-only root, /tmp, /dev, masked and read-only paths inside
 * the sandbox's mount namespace (the steps are listed in rootfs.h).  Runs in
 * the clone, as root of its namespaces, before the capabilities are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs.h"
#include "utils.h"

static int
set_attr (const char *path, int recursive, uint64_t set, uint64_t clr, lab_error_t *err)
{
  struct mount_attr a = { .attr_set = set, .attr_clr = clr };
  if (mount_setattr (AT_FDCWD, path, AT_NO_AUTOMOUNT | (recursive ? AT_RECURSIVE : 0), &a, sizeof a) < 0)
    return lab_error (err, errno, "making `%s` %s", path, set & MOUNT_ATTR_RDONLY ? "read-only" : "writable");
  return 0;
}

int
lab_rootfs_readonly (lab_error_t *err)
{
  return set_attr ("/", 1, MOUNT_ATTR_RDONLY, 0, err);
}

static int
mount_tmpfs (const char *dir, unsigned long flags, const char *opts, lab_error_t *err)
{
  if (mount ("tmpfs", dir, "tmpfs", flags, opts) < 0)
    return lab_error (err, errno, "mounting a tmpfs on %s (%s)", dir, opts);
  return 0;
}

/* ---- /dev ------------------------------------------------------------------- */

static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static int
setup_dev (int64_t shm_size, lab_error_t *err)
{
  int trees[ARRAY_SIZE (dev_nodes)];
  char path[64], opts[64];
  int ret = -1;

  /* The host's nodes, taken as detached bind mounts before /dev is covered:
     binding works in a user namespace too, where mknod does not. */
  for (size_t i = 0; i < ARRAY_SIZE (dev_nodes); i++)
    {
      snprintf (path, sizeof path, "/dev/%s", dev_nodes[i]);
      trees[i] = open_tree (AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
      if (trees[i] < 0 && errno != ENOENT && errno != ENXIO)
        {
          lab_error (err, errno, "taking %s", path);
          for (size_t j = 0; j < i; j++)
            if (trees[j] >= 0)
              close (trees[j]);
          return -1;
        }
    }
  if (mount_tmpfs ("/dev", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=755", err) < 0)
    goto out;
  for (size_t i = 0; i < ARRAY_SIZE (dev_nodes); i++)
    {
      if (trees[i] < 0)
        continue;
      snprintf (path, sizeof path, "/dev/%s", dev_nodes[i]);
      int fd = open (path, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
      if (fd < 0)
        {
          lab_error (err, errno, "creating %s", path);
          goto out;
        }
      close (fd);
      if (move_mount (trees[i], "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        {
          lab_error (err, errno, "binding the host's %s", path);
          goto out;
        }
    }
  static const char *const links[][2] = { { "/proc/self/fd", "/dev/fd" }, { "/proc/self/fd/0", "/dev/stdin" },
                                          { "/proc/self/fd/1", "/dev/stdout" },
                                          { "/proc/self/fd/2", "/dev/stderr" }, { "pts/ptmx", "/dev/ptmx" } };
  for (size_t i = 0; i < ARRAY_SIZE (links); i++)
    if (symlink (links[i][0], links[i][1]) < 0)
      {
        lab_error (err, errno, "linking %s", links[i][1]);
        goto out;
      }
  if (mkdir ("/dev/pts", 0755) < 0 || mkdir ("/dev/shm", 01777) < 0)
    {
      lab_error (err, errno, "creating /dev/pts and /dev/shm");
      goto out;
    }
  if (mount ("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") < 0)
    {
      lab_error (err, errno, "mounting a devpts instance on /dev/pts");
      goto out;
    }
  snprintf (opts, sizeof opts, "size=%lld,mode=1777", (long long) shm_size);
  if (mount_tmpfs ("/dev/shm", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts, err) < 0)
    goto out;
  ret = set_attr ("/dev", 0, MOUNT_ATTR_RDONLY, 0, err);
out:
  for (size_t i = 0; i < ARRAY_SIZE (dev_nodes); i++)
    if (trees[i] >= 0)
      close (trees[i]);
  return ret;
}

/* ---- masked, read-only and writable paths ----------------------------------- */

static int
mask (const char *path, lab_error_t *err)
{
  struct stat st;
  if (stat (path, &st) < 0)
    return errno == ENOENT || errno == ENOTDIR ? 0 : lab_error (err, errno, "masking %s", path);
  if (S_ISDIR (st.st_mode))
    {
      if (mount ("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,nr_inodes=1") < 0)
        return lab_error (err, errno, "masking %s with an empty tmpfs", path);
    }
  else if (mount ("/dev/null", path, NULL, MS_BIND, NULL) < 0)
    return lab_error (err, errno, "masking %s with /dev/null", path);
  return 0;
}

/* A read-only path: bound over itself, then flagged; absent ones skipped. */
static int
bind_self (const char *path, uint64_t set, lab_error_t *err)
{
  if (mount (path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
    {
      if (errno == ENOENT || errno == ENOTDIR)
        return 0;
      return lab_error (err, errno, "binding %s over itself", path);
    }
  return set_attr (path, 1, set, 0, err);
}

/* A host directory as a detached copy of its mount tree, taken before /tmp
   and /dev are covered; placed (and made read-only or writable) after. */
struct bind
{
  const char *path;
  int tree;
  int writable;
};

static int
take (struct bind *b, lab_error_t *err)
{
  b->tree = open_tree (AT_FDCWD, b->path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  if (b->tree < 0)
    return lab_error (err, errno, "%s `%s`", b->writable ? "`writable`:" : "`binds`:", b->path);
  return 0;
}

static int
mkdir_p (char *path)
{
  for (char *c = path + 1; *c; c++)
    if (*c == '/')
      {
        *c = '\0';
        int r = mkdir (path, 0755);
        *c = '/';
        if (r < 0 && errno != EEXIST)
          return -1;
      }
  return mkdir (path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int
place (struct bind *b, lab_error_t *err)
{
  char dir[4096];
  struct mount_attr a = { .attr_set = b->writable ? 0 : MOUNT_ATTR_RDONLY,
                          .attr_clr = b->writable ? MOUNT_ATTR_RDONLY : 0 };
  snprintf (dir, sizeof dir, "%s", b->path);
  if (mount_setattr (b->tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0)
    return lab_error (err, errno, "making `%s` %s", b->path, b->writable ? "writable" : "read-only");
  if (mkdir_p (dir) < 0 || move_mount (b->tree, "", AT_FDCWD, b->path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    return lab_error (err, errno, "binding `%s`", b->path);
  return 0;
}

static int
by_length (const void *a, const void *b)
{
  size_t la = strlen (((const struct bind *) a)->path), lb = strlen (((const struct bind *) b)->path);
  return la < lb ? -1 : la > lb;
}

int
lab_rootfs_finish (const struct lab_security *s, const char *extra_bind, const char *extra_bind2,
                   lab_error_t *err)
{
  char opts[64];
  int n = 0, ret = -1;
  cleanup_free struct bind *binds = calloc ((size_t) (s->n_binds + s->n_writable + 2), sizeof *binds);

  if (binds == NULL)
    return lab_error (err, ENOMEM, "allocating the binds");
  for (int i = 0; i < s->n_binds; i++)
    binds[n++] = (struct bind){ s->binds[i], -1, 0 };
  if (extra_bind)
    binds[n++] = (struct bind){ extra_bind, -1, 0 };
  if (extra_bind2 && !(extra_bind && strcmp (extra_bind, extra_bind2) == 0))
    binds[n++] = (struct bind){ extra_bind2, -1, 0 };
  for (int i = 0; i < s->n_writable; i++)
    binds[n++] = (struct bind){ s->writable[i], -1, 1 };
  /* A parent before its children, or it would cover them. */
  qsort (binds, (size_t) n, sizeof *binds, by_length);
  for (int i = 0; i < n; i++)
    if (take (&binds[i], err) < 0)
      goto out;
  if (s->tmp_size > 0)
    {
      snprintf (opts, sizeof opts, "size=%lld,mode=1777", (long long) s->tmp_size);
      if (mount_tmpfs ("/tmp", MS_NOSUID | MS_NODEV, opts, err) < 0)
        goto out;
    }
  for (int i = 0; i < n; i++)
    if (place (&binds[i], err) < 0)
      goto out;
  if (s->dev_minimal && setup_dev (s->tmp_size > 0 ? s->tmp_size : 64LL << 20, err) < 0)
    goto out;
  for (int i = 0; i < s->n_masked; i++)
    if (mask (s->masked_paths[i], err) < 0)
      goto out;
  for (int i = 0; i < s->n_readonly; i++)
    if (bind_self (s->readonly_paths[i], MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err) < 0)
      goto out;
  ret = 0;
out:
  for (int i = 0; i < n; i++)
    if (binds[i].tree >= 0)
      close (binds[i].tree);
  return ret;
}
