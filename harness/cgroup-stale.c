/*
 * cgroup-stale.c - which `lab-<N>` groups belong to a live harness, and the
 * removal of the others (what a SIGKILLed harness leaves behind).
 *
 * Liveness is a lock, not a pid.  A harness holds a POSIX record lock
 * (fcntl F_SETLK, F_RDLCK) on each of its `lab-<pid>` directories (cgroupfs
 * directories take them) from when it creates them until it exits; the
 * kernel drops it when the harness dies, by SIGKILL too.  A sweep asks with
 * F_GETLK whether anyone holds it: a `lab-<N>` nobody holds has no harness,
 * whatever process has pid N now.  A record lock, not flock: it belongs to
 * the process, so the sandbox's init and workload (clones holding copies of
 * every fd until they close them) never keep a dead harness's groups alive.
 * The price: the harness must never close another fd of its own `lab-<pid>`
 * directory (that would drop the lock), so sweeps skip `lab-<own pid>`.
 * Making a directory and locking it are two steps, so a harness does both
 * under /run/lab/cgroups.lock (flock, LOCK_EX), and a sweep holds that lock
 * too: a sweep never sees a new group before its lock.
 *
 * A harness built before this lock existed holds none.  Its group is kept
 * while pid N runs a program named `lab` that started before the group was
 * made: a pid reused after the harness died started later.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-internal.h"
#include "utils.h"

#define SWEEP_DIR "/run/lab"
#define SWEEP_LOCK SWEEP_DIR "/cgroups.lock"

int
lab_cg_sweep_lock (void)
{
  int fd;

  if (mkdir (SWEEP_DIR, 0755) < 0 && errno != EEXIST)
    return -1;
  fd = open (SWEEP_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return -1;
  /* Holders keep it for a mkdir or a sweep: wait, but never forever (a
     holder stopped with SIGSTOP). */
  for (int i = 0; i < 1000; i++)
    {
      if (flock (fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
      if (errno != EWOULDBLOCK)
        break;
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      nanosleep (&ts, NULL);
    }
  lab_warn ("`" SWEEP_LOCK "` is held for more than 10 s; going on without it");
  close (fd);
  return -1;
}

void
lab_cg_sweep_unlock (int fd)
{
  if (fd >= 0)
    close (fd);
}

int
lab_cg_hold (const char *dir)
{
  struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0 && fcntl (fd, F_SETLK, &fl) < 0)
    {
      lab_warn ("cannot lock `%s`: %s", dir, strerror (errno));
      close (fd);
      return -1;
    }
  return fd;
}

/* Start of pid's process, in seconds since the epoch; -1 if unknown. */
static double
start_time (pid_t pid)
{
  char path[64], buf[1024], line[256];
  unsigned long long start = 0, btime = 0;
  FILE *f;
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  f = fopen (path, "re");
  if (f == NULL)
    return -1;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  char *p = strrchr (buf, ')'); /* comm may hold spaces and parentheses */
  for (int field = 2; p && field < 22; field++)
    p = strchr (p + 1, ' ');
  if (p == NULL || sscanf (p + 1, "%llu", &start) != 1)
    return -1;
  f = fopen ("/proc/stat", "re");
  while (f && fgets (line, sizeof line, f))
    if (sscanf (line, "btime %llu", &btime) == 1)
      break;
  if (f)
    fclose (f);
  return btime ? (double) btime + (double) start / (double) sysconf (_SC_CLK_TCK) : -1;
}

/* A harness of an older build (no lock): pid runs `lab`, started before
   the group was made (1 s of slack: btime has whole seconds). */
static int
unlocked_harness_alive (pid_t pid, const struct stat *st)
{
  char path[64], comm[32] = "";
  FILE *f;
  snprintf (path, sizeof path, "/proc/%d/comm", (int) pid);
  if ((f = fopen (path, "re")) == NULL)
    return 0;
  if (fgets (comm, sizeof comm, f) == NULL)
    comm[0] = '\0';
  fclose (f);
  if (strcmp (comm, "lab\n") != 0)
    return 0;
  double started = start_time (pid);
  return started >= 0 && started <= (double) st->st_mtim.tv_sec + 1;
}

/* 1 when a live harness holds `dir`; `fd` an open fd of it. */
static int
group_alive (int fd, pid_t pid)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  struct stat st;
  if (fcntl (fd, F_GETLK, &fl) < 0 || fl.l_type != F_UNLCK)
    return 1;
  return fstat (fd, &st) == 0 && unlocked_harness_alive (pid, &st);
}

void
lab_cg_remove_stale_in (const char *parent, const char *mount, const char *ctl)
{
  DIR *d = opendir (parent);
  if (d == NULL)
    return;
  struct dirent *de;
  while ((de = readdir (d)) != NULL)
    {
      if (de->d_type != DT_DIR || strncmp (de->d_name, "lab-", 4) != 0)
        continue;
      const char *p = de->d_name + 4;
      if (*p == '\0' || strspn (p, "0123456789") != strlen (p))
        continue;
      pid_t pid = (pid_t) atol (p);
      if (pid == getpid ())
        continue; /* ours (or a dead namesake we adopt and remove at exit) */
      char dir[PATH_MAX * 2];
      snprintf (dir, sizeof dir, "%s/%s", parent, de->d_name);
      cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0 || group_alive (fd, pid))
        continue;
      lab_error_t e = NULL;
      if (lab_cg_remove_tree (dir, &e) < 0)
        {
          lab_warn ("cannot remove cgroup left by a killed harness (pid %d): %s", (int) pid, e->msg);
          lab_error_release (&e);
          continue;
        }
      fprintf (stderr, "lab: removed cgroup `%s%s%s` left by a killed harness (pid %d)\n", ctl, *ctl ? ":" : "",
               dir + strlen (mount), (int) pid);
    }
  closedir (d);
}
