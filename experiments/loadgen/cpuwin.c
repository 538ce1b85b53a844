/* cpuwin.c - CPU readings at the edges of a window (see cpuwin.h). */
#include "cpuwin.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static const char *const v1_roots[] = { "/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct",
                                        "/sys/fs/cgroup/cpuacct,cpu", NULL };

/* 1 if the comma-separated list has `name`. */
static int
has_ctl (const char *list, const char *name)
{
  size_t k = strlen (name);
  for (const char *p = list; p && *p;)
    {
      if (strncmp (p, name, k) == 0 && (p[k] == ',' || p[k] == '\0'))
        return 1;
      p = strchr (p, ',');
      p = p ? p + 1 : NULL;
    }
  return 0;
}

/* The CPU-usage file of `pid`'s cgroup (pid 0: our own): v1 cpuacct.usage
   where the cpuacct hierarchy is mounted, else v2 cpu.stat.  0 if found. */
static int
find_cg (pid_t pid, char *out, size_t len, int *v2)
{
  char path[64], line[1024], v1[512] = "", u[512] = "";
  int have_v1 = 0, have_u = 0;
  if (pid)
    snprintf (path, sizeof path, "/proc/%d/cgroup", (int) pid);
  else
    snprintf (path, sizeof path, "/proc/self/cgroup");
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    {
      line[strcspn (line, "\n")] = '\0';
      char *c1 = strchr (line, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      if (has_ctl (c1 + 1, "cpuacct"))
        have_v1 = snprintf (v1, sizeof v1, "%s", c2 + 1) > 0;
      else if (c1 == line + 1 && line[0] == '0' && c1[1] == '\0')
        have_u = snprintf (u, sizeof u, "%s", c2 + 1) > 0;
    }
  fclose (f);
  for (int i = 0; have_v1 && v1_roots[i]; i++)
    {
      snprintf (out, len, "%s%s/cpuacct.usage", v1_roots[i], strcmp (v1, "/") ? v1 : "");
      if (access (out, R_OK) == 0)
        {
          *v2 = 0;
          return 0;
        }
    }
  if (have_u)
    {
      const char *root = access ("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
      snprintf (out, len, "%s%s/cpu.stat", root, strcmp (u, "/") ? u : "");
      if (access (out, R_OK) == 0)
        {
          *v2 = 1;
          return 0;
        }
    }
  out[0] = '\0';
  return -1;
}

/* The start of a small file, NUL-terminated: its length, or -1. */
static ssize_t
slurp (const char *path, char *buf, size_t len)
{
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  size_t n = fread (buf, 1, len - 1, f);
  fclose (f);
  buf[n] = '\0';
  return (ssize_t) n;
}

/* ns of CPU from a cgroup file, -1 if unreadable. */
static int64_t
read_cg (const char *path, int v2)
{
  char buf[4096];
  ssize_t n;
  if (!path[0] || (n = slurp (path, buf, sizeof buf)) < 0)
    return -1;
  if (!v2)
    return n ? strtoll (buf, NULL, 10) : -1;
  const char *p = strstr (buf, "usage_usec ");
  return p ? strtoll (p + 11, NULL, 10) * 1000 : -1;
}

/* utime + stime of every thread of pid, from /proc/PID/stat, in ns; -1 if gone. */
static int64_t
read_proc (pid_t pid)
{
  char path[64], buf[1024];
  unsigned long long ut, st;
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (slurp (path, buf, sizeof buf) < 0)
    return -1;
  const char *p = strrchr (buf, ')'); /* the name may hold spaces and parentheses */
  /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
  if (p == NULL || sscanf (p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
    return -1;
  return (int64_t) ((ut + st) * (1000000000ULL / (unsigned long long) sysconf (_SC_CLK_TCK)));
}

/* run_delay (ns waiting on a run queue) of one thread; -1 if unreadable. */
static int64_t
read_delay (const char *path)
{
  unsigned long long run, delay;
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  int k = fscanf (f, "%llu %llu", &run, &delay);
  fclose (f);
  return k == 2 ? (int64_t) delay : -1;
}

/* Summed over pid's threads; -1 if more than CPUWIN_MAX_TASKS or unreadable. */
static int64_t
read_delay_all (pid_t pid)
{
  char path[128];
  int64_t sum = 0;
  pid_t tids[CPUWIN_MAX_TASKS];
  int nt = 0;
  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  DIR *d = opendir (path);
  struct dirent *e;
  if (d == NULL)
    return -1;
  while ((e = readdir (d)))
    if (e->d_name[0] != '.')
      {
        if (nt == CPUWIN_MAX_TASKS)
          {
            closedir (d);
            return -1;
          }
        tids[nt++] = (pid_t) atoi (e->d_name);
      }
  closedir (d);
  for (int i = 0; i < nt; i++)
    {
      snprintf (path, sizeof path, "/proc/%d/task/%d/schedstat", (int) pid, (int) tids[i]);
      int64_t v = read_delay (path);
      if (v < 0)
        return -1;
      sum += v;
    }
  return sum;
}

static int
ncpus (pid_t pid)
{
  cpu_set_t set;
  if (sched_getaffinity (pid, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return CPU_COUNT (&set);
  return -1;
}

void
cpuwin_init (struct cpuwin *w, pid_t server, uintptr_t idle_addr)
{
  memset (w, 0, sizeof *w);
  w->server = server;
  w->idle_addr = idle_addr;
  if (find_cg (0, w->self_cg, sizeof w->self_cg, &w->self_cg_v2) < 0)
    snprintf (w->note, sizeof w->note, "no cgroup CPU file for the client");
  w->self_cpus = ncpus (0);
  w->server_cpus = -1;
  if (server > 0)
    {
      if (find_cg (server, w->server_cg, sizeof w->server_cg, &w->server_cg_v2) < 0)
        snprintf (w->note, sizeof w->note, "no cgroup CPU file for server pid %d", (int) server);
      w->server_cpus = ncpus (server);
    }
}

void
cpuwin_snap (const struct cpuwin *w, struct cpuwin_snap *s)
{
  struct timespec ts;
  struct rusage ru;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  s->t_ns = (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
  s->self_rusage_ns = -1;
  if (getrusage (RUSAGE_SELF, &ru) == 0)
    s->self_rusage_ns = ((int64_t) ru.ru_utime.tv_sec + (int64_t) ru.ru_stime.tv_sec) * 1000000000
                        + ((int64_t) ru.ru_utime.tv_usec + (int64_t) ru.ru_stime.tv_usec) * 1000;
  s->self_cgroup_ns = read_cg (w->self_cg, w->self_cg_v2);
  s->server_cgroup_ns = w->server > 0 ? read_cg (w->server_cg, w->server_cg_v2) : -1;
  s->server_proc_ns = w->server > 0 ? read_proc (w->server) : -1;
  s->self_wait_ns = read_delay ("/proc/thread-self/schedstat");
  s->server_wait_ns = w->server > 0 ? read_delay_all (w->server) : -1;
  s->server_idle_ns = -1;
  if (w->server > 0 && w->idle_addr)
    {
      uint64_t v;
      struct iovec l = { &v, sizeof v }, r = { (void *) w->idle_addr, sizeof v };
      if (process_vm_readv (w->server, &l, 1, &r, 1, 0) == (ssize_t) sizeof v)
        s->server_idle_ns = (int64_t) v;
    }
}
