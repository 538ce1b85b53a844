/*
 * cgroup.c - the cgroup lifecycle of a point, over two backends (cgroup-v1.c,
 * cgroup-v2.c), as plain cgroupfs operations (a mkdir, a write per limit;
 * cgroup-utils.c).
 *
 * Layout (see cgroup.h): in every hierarchy the harness uses it creates
 * `lab-<pid>` under its OWN cgroup of that hierarchy (from /proc/self/cgroup)
 * and one `point-<id>` child per sandbox.  On v2 it first moves itself into
 * `lab-<pid>/harness` and enables the controllers in
 * `lab-<pid>/cgroup.subtree_control`.  It holds a record lock on every
 * `lab-<pid>` it makes, for as long as it lives; sibling `lab-<N>` groups nobody holds -
 * what a SIGKILLed harness leaves - are removed, with a message, the first
 * time it makes `lab-<pid>` in a hierarchy and at the start of every command
 * (lab_cgroup_remove_stale; liveness by lock: cgroup-stale.c).  It touches
 * nothing else.  lab_cgroup_cleanup_all() (atexit) removes every point still
 * alive and the `lab-<pid>` groups.
 *
 * Mode: v2 when /sys/fs/cgroup is cgroup2; hybrid when /sys/fs/cgroup is a
 * tmpfs with v1 hierarchies and a cgroup2 at /sys/fs/cgroup/unified - driven
 * as v1 when that v2 hierarchy has no controllers (this lab's development
 * host), refused otherwise (controllers split between v1 and v2 is a layout we
 * have no host to test on); v1 otherwise.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup-internal.h"
#include "utils.h"

#define CG_ROOT "/sys/fs/cgroup"

struct lab_dir
{
  char mount[PATH_MAX];
  char rel[PATH_MAX];  /* relative path of lab-<pid> */
  char ctl[32];        /* a controller of the hierarchy, for messages */
  int lock;            /* locked fd of lab-<pid>: this harness is alive */
};

static struct
{
  int detected;
  struct lab_cgroup_info info;
  const struct lab_cg_backend *ops;
  int atexit_done;
  struct lab_dir dirs[LAB_CG_MAX_HIER];
  int n_dirs;
  /* v2 */
  char v2_orig[PATH_MAX];      /* absolute dir of the harness's original cgroup */
  int v2_moved;
  char v2_enabled_orig[128];   /* controllers we enabled in the original's subtree_control */
  struct lab_cgroup *live;
  char *swept[LAB_CG_MAX_HIER * 2]; /* parents already swept of stale `lab-<N>` groups */
  int n_swept;
} S;

static int
is_fs (const char *path, long magic)
{
  struct statfs sf;
  return statfs (path, &sf) == 0 && (long) sf.f_type == magic;
}

static void
v1_controllers (char *out, size_t len)
{
  cleanup_file FILE *f = fopen ("/proc/cgroups", "re");
  out[0] = '\0';
  if (f == NULL)
    return;
  char line[256], name[64];
  int hier, num, enabled;
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "%63s %d %d %d", name, &hier, &num, &enabled) == 4 && hier != 0 && enabled)
      {
        char mnt[PATH_MAX];
        if (lab_cg_mount_of (name, mnt, sizeof mnt) < 0)
          continue;
        size_t l = strlen (out);
        snprintf (out + l, len - l, "%s%s", l ? " " : "", name);
      }
}

/* Removes the stale `lab-<N>` groups under `parent`, the first time only:
   every command sweeps at its start (lab_cgroup_remove_stale), and making a
   `lab-<pid>` sweeps its parent too, for callers that did not. */
static void
sweep_once (const char *parent, const char *mount, const char *ctl)
{
  for (int i = 0; i < S.n_swept; i++)
    if (strcmp (S.swept[i], parent) == 0)
      return;
  lab_cg_remove_stale_in (parent, mount, ctl);
  if (S.n_swept < (int) ARRAY_SIZE (S.swept) && (S.swept[S.n_swept] = strdup (parent)) != NULL)
    S.n_swept++;
}

int
lab_cgroup_detect (struct lab_cgroup_info *info, lab_error_t *err)
{
  if (S.detected)
    {
      *info = S.info;
      return 0;
    }
  memset (info, 0, sizeof *info);
  if (is_fs (CG_ROOT, CGROUP2_SUPER_MAGIC))
    {
      char self[PATH_MAX], dir[PATH_MAX * 2];
      if (lab_cg_self_path ("", self, sizeof self) < 0)
        return lab_error (err, 0, "cgroup v2: no `0::` line in `/proc/self/cgroup`");
      snprintf (dir, sizeof dir, CG_ROOT "%s", self);
      info->mode = LAB_CG_V2;
      info->backend = "v2";
      if (lab_cg_read_str (dir, "cgroup.controllers", info->controllers, sizeof info->controllers) < 0)
        return lab_error (err, errno, "reading `%s/cgroup.controllers`", dir);
      S.ops = &lab_cg_backend_v2;
    }
  else
    {
      info->mode = LAB_CG_V1;
      if (is_fs (CG_ROOT "/unified", CGROUP2_SUPER_MAGIC))
        {
          char ctl[256] = "", used[128] = "";
          info->mode = LAB_CG_HYBRID;
          lab_cg_read_str (CG_ROOT "/unified", "cgroup.controllers", ctl, sizeof ctl);
          /* Controllers the lab does not use (this host: hugetlb) may sit on
             the v2 side; the ones it uses must all be v1. */
          static const char *const ours[] = { "memory", "pids", "cpu", "cpuset" };
          char list[sizeof ctl + 2];
          snprintf (list, sizeof list, " %s ", ctl);
          for (size_t i = 0; i < ARRAY_SIZE (ours); i++)
            {
              char pat[16];
              snprintf (pat, sizeof pat, " %s ", ours[i]);
              if (strstr (list, pat))
                {
                  size_t l = strlen (used);
                  snprintf (used + l, sizeof used - l, "%s%s", l ? " " : "", ours[i]);
                }
            }
          if (used[0])
            return lab_error (err, 0,
                              "hybrid cgroup layout with controllers `%s` on the v2 hierarchy "
                              "`" CG_ROOT "/unified`: not supported (use a pure v2 or v1 host)",
                              used);
        }
      info->backend = "v1";
      v1_controllers (info->controllers, sizeof info->controllers);
      S.ops = &lab_cg_backend_v1;
    }
  S.info = *info;
  S.detected = 1;
  return 0;
}

static int
v1_make_lab_dir (const char *ctl, struct lab_dir *ld, lab_error_t *err)
{
  char self[PATH_MAX];
  if (lab_cg_self_path (ctl, self, sizeof self) < 0)
    return lab_error (err, 0, "controller `%s` not in `/proc/self/cgroup`", ctl);
  const char *s = self[0] == '/' ? self + 1 : self;
  lab_cg_pathf (ld->rel, sizeof ld->rel, "%s%s" "lab-%d", s, *s ? "/" : "", (int) getpid ());
  char parent[PATH_MAX * 2], dir[PATH_MAX * 2];
  snprintf (parent, sizeof parent, "%s%s%s", ld->mount, *s ? "/" : "", s);
  snprintf (dir, sizeof dir, "%s/%s", ld->mount, ld->rel);
  sweep_once (parent, ld->mount, ctl);
  /* EEXIST: a dead namesake's (a harness with our pid), adopted. */
  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return lab_error (err, errno, "creating cgroup `%s:/%s`", ctl, ld->rel);
  if (strcmp (ctl, "cpuset") == 0)
    {
      /* v1 cpuset: a new group has no cpus or mems; copy the parent's. */
      char cpus[256], mems[256];
      if (lab_cg_read_str (parent, "cpuset.cpus", cpus, sizeof cpus) < 0
          || lab_cg_read_str (parent, "cpuset.mems", mems, sizeof mems) < 0)
        return lab_error (err, errno, "reading cpuset of `%s`", parent);
      if (lab_cg_write (dir, "cpuset.cpus", cpus, err) < 0 || lab_cg_write (dir, "cpuset.mems", mems, err) < 0)
        return lab_error_prepend (err, "creating cgroup `%s:/%s`", ctl, ld->rel);
    }
  return 0;
}

static int
v2_make_lab_dir (struct lab_dir *ld, lab_error_t *err)
{
  char self[PATH_MAX], dir[PATH_MAX * 2], leaf[PATH_MAX * 3], want[128] = "", have[256] = "";
  if (lab_cg_self_path ("", self, sizeof self) < 0)
    return lab_error (err, 0, "cgroup v2: no `0::` line in `/proc/self/cgroup`");
  const char *s = self[0] == '/' ? self + 1 : self;
  lab_cg_pathf (S.v2_orig, sizeof S.v2_orig, CG_ROOT "%s%s", *s ? "/" : "", s);
  lab_cg_pathf (ld->rel, sizeof ld->rel, "%s%s" "lab-%d", s, *s ? "/" : "", (int) getpid ());
  sweep_once (S.v2_orig, ld->mount, "");
  lab_cg_pathf (dir, sizeof dir, CG_ROOT "/%s", ld->rel);
  snprintf (leaf, sizeof leaf, "%s/harness", dir);
  /* Controllers are enabled in lab-<pid>'s subtree_control only (and in the
     original cgroup where not yet delegated), not up the whole tree. */
  if (mkdir (dir, 0755) < 0 && errno != EEXIST)
    return lab_error (err, errno, "creating cgroup `%s`", dir);
  if (mkdir (leaf, 0755) < 0 && errno != EEXIST)
    return lab_error (err, errno, "creating cgroup `%s`", leaf);
  char pid[32];
  snprintf (pid, sizeof pid, "%d", (int) getpid ());
  if (lab_cg_write (leaf, "cgroup.procs", pid, err) < 0)
    return lab_error_prepend (err, "moving the harness into its leaf cgroup");
  S.v2_moved = 1;
  lab_cg_self_changed ();
  const char *const *wanted = S.ops->ctls;
  lab_cg_read_str (dir, "cgroup.controllers", have, sizeof have);
  for (size_t i = 0; wanted[i]; i++)
    if (strstr (have, wanted[i]) == NULL && strstr (S.info.controllers, wanted[i]))
      {
        /* Available above but not delegated to lab-<pid>: enable it in the
           harness's original cgroup, now that the harness left it; undone
           at cleanup. */
        char v[40];
        snprintf (v, sizeof v, "+%s", wanted[i]);
        lab_error_t e = NULL;
        if (lab_cg_write (S.v2_orig, "cgroup.subtree_control", v, &e) == 0)
          {
            size_t l = strlen (S.v2_enabled_orig);
            snprintf (S.v2_enabled_orig + l, sizeof S.v2_enabled_orig - l, " %s", wanted[i]);
          }
        else
          {
            lab_warn ("controller `%s` unavailable to the sandboxes: %s", wanted[i], e->msg);
            lab_error_release (&e);
          }
      }
  lab_cg_read_str (dir, "cgroup.controllers", have, sizeof have);
  for (size_t i = 0; wanted[i]; i++)
    if (strstr (have, wanted[i]))
      {
        size_t l = strlen (want);
        snprintf (want + l, sizeof want - l, "%s+%s", l ? " " : "", wanted[i]);
      }
  if (want[0] && lab_cg_write (dir, "cgroup.subtree_control", want, err) < 0)
    return -1;
  return 0;
}

static void
cleanup_atexit (void)
{
  lab_cgroup_cleanup_all ();
}

int
lab_cg_lab_dir (const char *ctl, char *mount, size_t mount_len, char *rel, size_t rel_len,
                lab_error_t *err)
{
  char mp_buf[PATH_MAX];
  if (S.ops == &lab_cg_backend_v2)
    snprintf (mp_buf, sizeof mp_buf, CG_ROOT);
  else if (lab_cg_mount_of (ctl, mp_buf, sizeof mp_buf) < 0)
    return lab_error (err, 0, "cgroup controller `%s` is not mounted", ctl);
  for (int i = 0; i < S.n_dirs; i++)
    if (strcmp (S.dirs[i].mount, mp_buf) == 0)
      {
        snprintf (mount, mount_len, "%s", S.dirs[i].mount);
        snprintf (rel, rel_len, "%s", S.dirs[i].rel);
        return 0;
      }
  if (S.n_dirs == LAB_CG_MAX_HIER)
    return lab_error (err, 0, "too many cgroup hierarchies");
  if (!S.atexit_done)
    {
      atexit (cleanup_atexit);
      S.atexit_done = 1;
    }
  struct lab_dir *ld = &S.dirs[S.n_dirs];
  memset (ld, 0, sizeof *ld);
  snprintf (ld->mount, sizeof ld->mount, "%s", mp_buf);
  snprintf (ld->ctl, sizeof ld->ctl, "%s", S.ops == &lab_cg_backend_v2 ? "" : ctl);
  /* Made and locked under the sweep lock: no sweep sees it unlocked. */
  int sweep = lab_cg_sweep_lock ();
  int r = S.ops == &lab_cg_backend_v2 ? v2_make_lab_dir (ld, err) : v1_make_lab_dir (ctl, ld, err);
  if (r == 0)
    {
      char dir[PATH_MAX * 2];
      snprintf (dir, sizeof dir, "%s/%s", ld->mount, ld->rel);
      ld->lock = lab_cg_hold (dir);
    }
  lab_cg_sweep_unlock (sweep);
  if (r < 0)
    return -1;
  S.n_dirs++;
  snprintf (mount, mount_len, "%s", ld->mount);
  snprintf (rel, rel_len, "%s", ld->rel);
  return 0;
}

struct lab_cg_hier *
lab_cg_find (struct lab_cgroup *cg, const char *ctl)
{
  for (int i = 0; i < cg->n_h; i++)
    for (int j = 0; j < cg->h[i].n_ctl; j++)
      if (strcmp (cg->h[i].ctl[j], ctl) == 0)
        return &cg->h[i];
  return NULL;
}

int
lab_cg_add_ctl (struct lab_cgroup *cg, const char *ctl, lab_error_t *err)
{
  char mount[PATH_MAX], rel[PATH_MAX];
  if (lab_cg_lab_dir (ctl, mount, sizeof mount, rel, sizeof rel, err) < 0)
    return -1;
  struct lab_cg_hier *h = NULL;
  for (int i = 0; i < cg->n_h; i++)
    if (strcmp (cg->h[i].mount, mount) == 0)
      h = &cg->h[i];
  if (h == NULL)
    {
      if (cg->n_h == LAB_CG_MAX_HIER)
        return lab_error (err, 0, "too many cgroup hierarchies");
      h = &cg->h[cg->n_h++];
      snprintf (h->mount, sizeof h->mount, "%s", mount);
      if (lab_cg_pathf (h->rel, sizeof h->rel, "%s/%s", rel, cg->name) < 0
          || lab_cg_pathf (h->dir, sizeof h->dir, "%s/%s", mount, h->rel) < 0)
        return lab_error (err, errno, "cgroup path of `%s`", cg->name);
    }
  if (h->n_ctl == LAB_CG_MAX_CTL)
    return lab_error (err, 0, "too many controllers in `%s`", mount);
  h->ctl[h->n_ctl++] = ctl;
  return 0;
}

int
lab_cg_set (struct lab_cgroup *cg, const char *ctl, const char *file, const char *value, lab_error_t *err)
{
  struct lab_cg_hier *h = lab_cg_find (cg, ctl);
  if (h == NULL)
    return lab_error (err, 0, "cgroup controller `%s` not available for `%s`", ctl, file);
  if (h->n_values == LAB_CG_MAX_VALUES)
    return lab_error (err, 0, "too many limits for cgroup `%s`", h->dir);
  struct lab_cg_value *v = &h->values[h->n_values];
  if (lab_cg_pathf (v->value, sizeof v->value, "%s", value) < 0)
    return lab_error (err, 0, "`%s`: value `%.40s...` too long", file, value);
  v->file = file;
  h->n_values++;
  return 0;
}

static void
describe (struct lab_cgroup *cg)
{
  size_t l = 0;
  cg->path_desc[0] = '\0';
  for (int i = 0; i < cg->n_h; i++)
    {
      char ctls[128] = "";
      for (int j = 0; j < cg->h[i].n_ctl; j++)
        {
          size_t k = strlen (ctls);
          snprintf (ctls + k, sizeof ctls - k, "%s%s", j ? "," : "", cg->h[i].ctl[j]);
        }
      if (S.ops == &lab_cg_backend_v2)
        ctls[0] = '\0';
      /* v1: "memory:/a/lab-1/p pids:/lab-1/p"; v2: the one path, "/lab-1/p". */
      l += (size_t) snprintf (cg->path_desc + l, l < sizeof cg->path_desc ? sizeof cg->path_desc - l : 0,
                              "%s%s%s/%s", i ? " " : "", ctls, ctls[0] ? ":" : "", cg->h[i].rel);
      if (l >= sizeof cg->path_desc)
        break;
    }
}

static void
unlink_live (struct lab_cgroup *cg)
{
  for (struct lab_cgroup **p = &S.live; *p; p = &(*p)->next)
    if (*p == cg)
      {
        *p = cg->next;
        return;
      }
}

int
lab_cgroup_create (const char *name, const struct lab_limits *limits, struct lab_cgroup **out,
                   lab_error_t *err)
{
  struct lab_cgroup_info info;
  if (lab_cgroup_detect (&info, err) < 0)
    return -1;
  struct lab_cgroup *cg = calloc (1, sizeof *cg);
  if (cg == NULL)
    return lab_error (err, errno, "allocating a cgroup");
  cg->ops = S.ops;
  snprintf (cg->name, sizeof cg->name, "%s", name);
  cg->next = S.live;
  S.live = cg;
  if (cg->ops->plan (cg, limits, err) < 0)
    goto fail;
  for (int i = 0; i < cg->n_h; i++)
    {
      struct lab_cg_hier *h = &cg->h[i];
      /* EEXIST: a group of the same name that a failed destroy left. */
      if (mkdir (h->dir, 0755) < 0 && errno != EEXIST)
        {
          lab_error (err, errno, "creating cgroup `%s`", h->dir);
          goto fail;
        }
      h->created = 1;
      for (int j = 0; j < h->n_values; j++)
        if (lab_cg_write (h->dir, h->values[j].file, h->values[j].value, err) < 0)
          {
            lab_error_prepend (err, "setting the limits of cgroup `%s`", h->dir);
            goto fail;
          }
    }
  describe (cg);
  *out = cg;
  return 0;
fail:
  {
    lab_error_t e = NULL;
    if (lab_cgroup_destroy (cg, &e) < 0)
      lab_error_release (&e);
  }
  return -1;
}

int
lab_cgroup_attach (struct lab_cgroup *cg, pid_t pid, lab_error_t *err)
{
  /* v1: `tasks`, the one thread (see lab_cgroup_self_attach_fds). */
  const char *file = cg->ops == &lab_cg_backend_v2 ? "cgroup.procs" : "tasks";
  char v[32];
  snprintf (v, sizeof v, "%d", (int) pid);
  for (int i = 0; i < cg->n_h; i++)
    if (lab_cg_write (cg->h[i].dir, file, v, err) < 0)
      return lab_error_prepend (err, "moving pid %d into cgroup `%s`", (int) pid, cg->h[i].dir);
  return 0;
}

int
lab_cgroup_self_attach_fds (struct lab_cgroup *cg, int *fds, int max, lab_error_t *err)
{
  const char *file = cg->ops == &lab_cg_backend_v2 ? "cgroup.procs" : "tasks";
  char path[PATH_MAX];
  int n = 0;
  for (int i = 0; i < cg->n_h && n < max; i++)
    {
      if (lab_cg_pathf (path, sizeof path, "%s/%s", cg->h[i].dir, file) < 0
          || (fds[n] = open (path, O_WRONLY | O_CLOEXEC)) < 0)
        {
          lab_error (err, errno, "opening `%s`", path);
          while (n > 0)
            close (fds[--n]);
          return -1;
        }
      n++;
    }
  return n;
}

static void
stats_init (struct lab_cgroup_stats *st)
{
  int64_t *f = (int64_t *) st;
  for (size_t i = 0; i < sizeof *st / sizeof (int64_t); i++)
    f[i] = -1;
}

int
lab_cgroup_read_stats (struct lab_cgroup *cg, struct lab_cgroup_stats *st, lab_error_t *err)
{
  stats_init (st);
  return cg->ops->read_stats (cg, st);
}

int64_t
lab_cgroup_mem_current (struct lab_cgroup *cg)
{
  return cg->ops->mem_current (cg);
}

int
lab_cgroup_procs (struct lab_cgroup *cg, pid_t *pids, int max)
{
  return cg->n_h > 0 && cg->h[0].created ? lab_cg_read_procs (cg->h[0].dir, pids, max) : -1;
}

int
lab_cgroup_kill (struct lab_cgroup *cg, lab_error_t *err)
{
  return cg->ops->kill (cg, err);
}

int
lab_cgroup_destroy (struct lab_cgroup *cg, lab_error_t *err)
{
  if (cg == NULL)
    return 0;
  int ret = 0;
  lab_error_t e = NULL;
  if (cg->ops->kill (cg, &e) < 0)
    lab_error_release (&e);
  for (int i = 0; i < cg->n_h; i++)
    {
      struct lab_cg_hier *h = &cg->h[i];
      /* Usually empty by now (init reaped): one rmdir.  Else what is left
         is killed; nothing is ever migrated to the parent, and an rmdir
         that still finds the group busy (a task not yet reaped) is retried. */
      if (h->created && rmdir (h->dir) < 0 && errno != ENOENT)
        {
          lab_cg_kill_procs (h->dir);
          if (lab_cg_rmdir_wait (h->dir, ret < 0 ? &e : err) < 0)
            {
              if (ret < 0)
                lab_error_release (&e);
              ret = -1;
            }
        }
    }
  unlink_live (cg);
  free (cg);
  return ret;
}

const char *
lab_cgroup_path (const struct lab_cgroup *cg)
{
  return cg->path_desc;
}

const char *
lab_cgroup_backend (const struct lab_cgroup *cg)
{
  return cg->ops->name;
}

void
lab_cgroup_cleanup_all (void)
{
  lab_error_t e = NULL;
  while (S.live)
    if (lab_cgroup_destroy (S.live, &e) < 0)
      {
        lab_warn ("%s", e->msg);
        lab_error_release (&e);
      }
  if (S.v2_moved)
    {
      char pid[32];
      snprintf (pid, sizeof pid, "%d", (int) getpid ());
      if (S.v2_enabled_orig[0])
        {
          char v[160] = "";
          for (char *save, *t = strtok_r (S.v2_enabled_orig, " ", &save); t; t = strtok_r (NULL, " ", &save))
            {
              size_t l = strlen (v);
              snprintf (v + l, sizeof v - l, "%s-%s", l ? " " : "", t);
            }
          if (lab_cg_write (S.v2_orig, "cgroup.subtree_control", v, &e) < 0)
            lab_error_release (&e);
          S.v2_enabled_orig[0] = '\0';
        }
      if (lab_cg_write (S.v2_orig, "cgroup.procs", pid, &e) < 0)
        {
          /* Still inside lab-<pid>/harness: removing it would kill us. */
          lab_warn ("moving the harness back to `%s`: %s; its cgroups stay", S.v2_orig, e->msg);
          lab_error_release (&e);
          return;
        }
      S.v2_moved = 0;
      lab_cg_self_changed ();
    }
  for (int i = S.n_dirs - 1; i >= 0; i--)
    {
      char dir[PATH_MAX * 2];
      snprintf (dir, sizeof dir, "%s/%s", S.dirs[i].mount, S.dirs[i].rel);
      /* Empty once its points are gone (v1): one rmdir; else the tree. */
      if (rmdir (dir) < 0 && errno != ENOENT && lab_cg_remove_tree (dir, &e) < 0)
        {
          lab_warn ("%s", e->msg);
          lab_error_release (&e);
        }
      if (S.dirs[i].lock >= 0)
        close (S.dirs[i].lock);
    }
  S.n_dirs = 0;
}

void
lab_cgroup_remove_stale (void)
{
  struct lab_cgroup_info info;
  lab_error_t e = NULL;
  char done[LAB_CG_MAX_HIER * 2][PATH_MAX];
  int n_done = 0;

  if (geteuid () != 0 || lab_cgroup_detect (&info, &e) < 0)
    {
      lab_error_release (&e);
      return;
    }
  int sweep = lab_cg_sweep_lock ();
  char ctls[sizeof info.controllers];
  snprintf (ctls, sizeof ctls, "%s", S.ops == &lab_cg_backend_v2 ? "" : info.controllers);
  char *save = NULL, *ctl = S.ops == &lab_cg_backend_v2 ? (char *) "" : strtok_r (ctls, " ", &save);
  for (; ctl && n_done < (int) ARRAY_SIZE (done); ctl = ctl[0] ? strtok_r (NULL, " ", &save) : NULL)
    {
      char mount[PATH_MAX], self[PATH_MAX], parent[PATH_MAX * 2 + 2];
      int ours = ctl[0] == '\0';
      for (const char *const *c = S.ops->ctls; !ours && *c; c++)
        ours = strcmp (*c, ctl) == 0;
      if (!ours)
        continue; /* a hierarchy no lab group is ever made in (blkio, devices) */
      if (ctl[0] == '\0')
        snprintf (mount, sizeof mount, CG_ROOT);
      else if (lab_cg_mount_of (ctl, mount, sizeof mount) < 0)
        continue;
      if (lab_cg_self_path (ctl, self, sizeof self) < 0)
        continue;
      const char *rel = self[0] == '/' ? self + 1 : self;
      snprintf (parent, sizeof parent, "%s%s%s", mount, *rel ? "/" : "", rel);
      int seen = 0;
      for (int i = 0; i < n_done; i++)
        seen |= strcmp (done[i], parent) == 0;
      if (seen)
        continue;
      snprintf (done[n_done++], sizeof done[0], "%s", parent);
      sweep_once (parent, mount, ctl);
    }
  lab_cg_sweep_unlock (sweep);
}
