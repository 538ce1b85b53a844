/*
 * cgroup-utils.c - plain cgroupfs file operations for cgroup.c and the
 * backends: writing a value, reading single values and "key value" files
 * (memory.peak, memory.events, memory.stat, cpu.stat), cgroup.procs, the v1
 * freezer, removal that waits until a cgroup is empty; and where the
 * hierarchies are mounted and which cgroups the harness is in (read once,
 * from /proc/self/mountinfo and /proc/self/cgroup).
 *
 * No libcgroup: its cgroup_init zeroes an ~820 KB mount table and it rereads
 * /proc/mounts for every value it writes, which was most of a sandbox
 * launch's CPU; a group here is a mkdir and a write per limit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "utils.h"

int
lab_cg_pathf (char *buf, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int n = vsnprintf (buf, len, fmt, ap);
  va_end (ap);
  if (n < 0 || (size_t) n >= len)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  return 0;
}

static void
sleep_ms (int ms)
{
  struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
  nanosleep (&ts, NULL);
}

int
lab_cg_write (const char *dir, const char *file, const char *value, lab_error_t *err)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", dir, file);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return lab_error (err, errno, "opening `%s`", path);
  size_t len = strlen (value);
  if (write (fd, value, len) != (ssize_t) len)
    return lab_error (err, errno, "writing `%s` to `%s`", value, path);
  return 0;
}

int
lab_cg_read_str (const char *dir, const char *file, char *buf, size_t len)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", dir, file);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read (fd, buf, len - 1);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
    buf[--n] = '\0';
  return 0;
}

int64_t
lab_cg_read_int (const char *dir, const char *file)
{
  char buf[64];
  if (lab_cg_read_str (dir, file, buf, sizeof buf) < 0)
    return -1;
  if (strncmp (buf, "max", 3) == 0)
    return INT64_MAX;
  char *end;
  errno = 0;
  long long v = strtoll (buf, &end, 10);
  if (errno || end == buf)
    return -1;
  return v;
}

int64_t
lab_cg_read_key (const char *dir, const char *file, const char *key)
{
  char path[PATH_MAX], line[256];
  snprintf (path, sizeof path, "%s/%s", dir, file);
  cleanup_file FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  size_t klen = strlen (key);
  while (fgets (line, sizeof line, f))
    if (strncmp (line, key, klen) == 0 && line[klen] == ' ')
      return strtoll (line + klen + 1, NULL, 10);
  return -1;
}

int
lab_cg_file_exists (const char *dir, const char *file)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/%s", dir, file);
  return access (path, F_OK) == 0;
}

int
lab_cg_read_procs (const char *dir, pid_t *pids, int max)
{
  char path[PATH_MAX];
  snprintf (path, sizeof path, "%s/cgroup.procs", dir);
  cleanup_file FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  int n = 0;
  long v;
  while (n < max && fscanf (f, "%ld", &v) == 1)
    pids[n++] = (pid_t) v;
  return n;
}

int
lab_cg_kill_procs (const char *dir)
{
  pid_t pids[1024];
  for (int round = 0; round < 200; round++)
    {
      int n = lab_cg_read_procs (dir, pids, (int) ARRAY_SIZE (pids));
      if (n <= 0)
        return n;
      int others = 0;
      for (int i = 0; i < n; i++)
        if (pids[i] != getpid ()) /* never the harness itself */
          {
            kill (pids[i], SIGKILL);
            others++;
          }
      if (others == 0)
        return 0;
      sleep_ms (round < 10 ? 1 : 10);
    }
  return -1;
}

int
lab_cg_v1_freeze (const char *dir, int freeze)
{
  lab_error_t err = NULL;
  if (lab_cg_write (dir, "freezer.state", freeze ? "FROZEN" : "THAWED", &err) < 0)
    {
      lab_error_release (&err);
      return -1;
    }
  if (!freeze)
    return 0;
  char state[32];
  for (int i = 0; i < 500; i++) /* up to ~5 s: a frozen cgroup settles fast */
    {
      if (lab_cg_read_str (dir, "freezer.state", state, sizeof state) == 0
          && strcmp (state, "FROZEN") == 0)
        return 0;
      sleep_ms (10);
    }
  return -1;
}

int
lab_cg_rmdir_wait (const char *dir, lab_error_t *err)
{
  pid_t pids[16];
  /* A killed process leaves cgroup.procs only once it is reaped and its
     exit has been accounted; rmdir fails with EBUSY until then. */
  for (int i = 0; i < 1000; i++) /* ~10 s */
    {
      if (rmdir (dir) == 0 || errno == ENOENT)
        return 0;
      if (errno != EBUSY)
        return lab_error (err, errno, "removing cgroup `%s`", dir);
      if (lab_cg_read_procs (dir, pids, (int) ARRAY_SIZE (pids)) > 0)
        lab_cg_kill_procs (dir);
      sleep_ms (10);
    }
  return lab_error (err, EBUSY, "removing cgroup `%s`: still busy after 10 s", dir);
}

int
lab_cg_remove_tree (const char *dir, lab_error_t *err)
{
  DIR *d = opendir (dir);
  if (d == NULL)
    return errno == ENOENT ? 0 : lab_error (err, errno, "opening `%s`", dir);
  struct dirent *de;
  int ret = 0;
  while ((de = readdir (d)) != NULL)
    {
      if (de->d_type != DT_DIR || de->d_name[0] == '.')
        continue;
      char sub[PATH_MAX];
      snprintf (sub, sizeof sub, "%s/%s", dir, de->d_name);
      if (lab_cg_remove_tree (sub, err) < 0)
        {
          ret = -1;
          break;
        }
    }
  closedir (d);
  if (ret < 0)
    return ret;
  if (lab_cg_file_exists (dir, "cgroup.kill"))
    {
      lab_error_t e = NULL;
      if (lab_cg_write (dir, "cgroup.kill", "1", &e) < 0)
        lab_error_release (&e);
    }
  lab_cg_kill_procs (dir);
  return lab_cg_rmdir_wait (dir, err);
}

/* ---- the cgroup mounts and the harness's own cgroups, read once ---------- */

/* One cgroup or cgroup2 mount of /proc/self/mountinfo. */
struct cg_mount
{
  char *mnt;   /* where it is mounted, e.g. /sys/fs/cgroup/memory */
  char *root;  /* the 4th field: the group mounted there ("/" unless in a container) */
  char *ctls;  /* v1: its super options (",rw,memory,"); NULL for cgroup2 */
};

static struct
{
  int read;
  struct cg_mount m[32];
  int n;
  char self[8192];  /* /proc/self/cgroup as last read; "" = read it again */
} C;

/* The mounts do not change while the harness runs: read them once. */
static void
read_mounts (void)
{
  if (C.read)
    return;
  C.read = 1;
  cleanup_file FILE *f = fopen ("/proc/self/mountinfo", "re");
  char line[PATH_MAX * 2 + 512];
  while (f && C.n < (int) ARRAY_SIZE (C.m) && fgets (line, sizeof line, f))
    {
      char root[PATH_MAX], mnt[PATH_MAX], fstype[64], opts[512];
      char *dash = strstr (line, " - ");
      if (dash == NULL || sscanf (line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2
          || sscanf (dash + 3, "%63s %*s %511s", fstype, opts) != 2)
        continue;
      int v2 = strcmp (fstype, "cgroup2") == 0;
      if (!v2 && strcmp (fstype, "cgroup") != 0)
        continue;
      char ctls[sizeof opts + 2];
      snprintf (ctls, sizeof ctls, ",%s,", opts);
      struct cg_mount *m = &C.m[C.n];
      m->mnt = strdup (mnt);
      m->root = strdup (root);
      m->ctls = v2 ? NULL : strdup (ctls);
      if (m->mnt == NULL || m->root == NULL || (!v2 && m->ctls == NULL))
        {
          free (m->mnt), free (m->root), free (m->ctls);
          continue;
        }
      C.n++;
    }
}

/* The first mount holding `ctl` (v1: a `cgroup` mount whose options name it;
   "": the cgroup2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified). */
static const struct cg_mount *
find_mount (const char *ctl)
{
  char pat[64];
  read_mounts ();
  snprintf (pat, sizeof pat, ",%s,", ctl);
  for (int i = 0; i < C.n; i++)
    {
      const struct cg_mount *m = &C.m[i];
      if (ctl[0] == '\0' ? m->ctls == NULL
                             && (strcmp (m->mnt, "/sys/fs/cgroup") == 0
                                 || strcmp (m->mnt, "/sys/fs/cgroup/unified") == 0)
                         : m->ctls != NULL && strstr (m->ctls, pat) != NULL)
        return m;
    }
  return NULL;
}

int
lab_cg_mount_of (const char *ctl, char *out, size_t len)
{
  const struct cg_mount *m = find_mount (ctl);
  if (m == NULL)
    return -1;
  snprintf (out, len, "%s", m->mnt);
  return 0;
}

void
lab_cg_self_changed (void)
{
  C.self[0] = '\0';
}

int
lab_cg_self_path (const char *ctl, char *out, size_t len)
{
  if (C.self[0] == '\0')
    {
      cleanup_close int fd = open ("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
      ssize_t n = fd >= 0 ? read (fd, C.self, sizeof C.self - 1) : -1;
      C.self[n > 0 ? n : 0] = '\0';
      if (n <= 0)
        return -1;
    }
  char copy[sizeof C.self];
  snprintf (copy, sizeof copy, "%s", C.self);
  for (char *save, *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *c1 = strchr (line, ':');
      char *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      const char *ctls = c1 + 1, *path = c2 + 1;
      int match = 0;
      if (ctl[0] == '\0')
        match = ctls[0] == '\0';
      else
        {
          char tmp[256];
          snprintf (tmp, sizeof tmp, "%s", ctls);
          for (char *save2, *t = strtok_r (tmp, ",", &save2); t; t = strtok_r (NULL, ",", &save2))
            if (strcmp (t, ctl) == 0)
              match = 1;
        }
      if (match)
        {
          const struct cg_mount *m = find_mount (ctl);
          size_t rl;
          /* Inside a container whose cgroup hierarchy is mounted at its own
             group (e.g. podman on v1 with the host's cgroup namespace), the
             path is the host's and the mount's root is that group: strip the
             mount root so the path is relative to what we see mounted. */
          if (m && strcmp (m->root, "/") != 0 && strncmp (path, m->root, rl = strlen (m->root)) == 0
              && (path[rl] == '/' || path[rl] == '\0'))
            path = path[rl] ? path + rl : "/";
          snprintf (out, len, "%s", path);
          return 0;
        }
    }
  return -1;
}
