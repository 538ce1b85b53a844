/*
 * hostinfo.c - collects the host facts in hostinfo.h.  Everything is read at
 * run time from /proc, /sys, uname, rlimits and real probes (an io_uring ring
 * is set up, namespaces are unshared in a throwaway child), never assumed.
 */
#include "hostinfo.h"

#include <errno.h>
#include <json-c/json.h>
#include <liburing.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

int64_t
lab_read_int (const char *path)
{
  FILE *f = fopen (path, "re");
  long long v;

  if (f == NULL)
    return -1;
  if (fscanf (f, "%lld", &v) != 1)
    v = -1;
  fclose (f);
  return (int64_t) v;
}

static void
read_cpu_model (char *out, size_t len)
{
  char line[512];
  FILE *f = fopen ("/proc/cpuinfo", "re");

  snprintf (out, len, "unknown");
  if (f == NULL)
    return;
  while (fgets (line, sizeof (line), f))
    {
      char *colon = strchr (line, ':');
      if (strncmp (line, "model name", 10) == 0 && colon)
        {
          colon += 2;
          colon[strcspn (colon, "\n")] = '\0';
          snprintf (out, len, "%s", colon);
          break;
        }
    }
  fclose (f);
}

static int64_t
meminfo_bytes (const char *key)
{
  char line[256];
  long long kb = -1;
  size_t klen = strlen (key);
  FILE *f = fopen ("/proc/meminfo", "re");

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof (line), f))
    if (strncmp (line, key, klen) == 0 && line[klen] == ':')
      {
        sscanf (line + klen + 1, "%lld", &kb);
        break;
      }
  fclose (f);
  return kb < 0 ? -1 : (int64_t) kb * 1024;
}

static void
probe_io_uring (struct lab_hostinfo *h)
{
  struct io_uring ring;
  int64_t disabled = lab_read_int ("/proc/sys/kernel/io_uring_disabled");
  int ret = io_uring_queue_init (2, &ring, 0);

  if (ret == 0)
    {
      io_uring_queue_exit (&ring);
      h->io_uring = 1;
      snprintf (h->io_uring_detail, sizeof (h->io_uring_detail), "ring set up (io_uring_disabled=%lld)",
                (long long) disabled);
    }
  else
    snprintf (h->io_uring_detail, sizeof (h->io_uring_detail), "io_uring_setup: %s (io_uring_disabled=%lld)",
              strerror (-ret), (long long) disabled);
}

/* Tries unshare(flags) in a throwaway child: 1 if it works. */
static int
probe_unshare (int flags)
{
  int status;
  pid_t pid = fork ();

  if (pid < 0)
    return 0;
  if (pid == 0)
    _exit (unshare (flags) == 0 ? 0 : 1);
  if (waitpid (pid, &status, 0) < 0)
    return 0;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

void
lab_hostinfo_collect (struct lab_hostinfo *h)
{
  struct utsname u;
  struct rlimit rl;
  lab_error_t err = NULL;

  memset (h, 0, sizeof (*h));
  if (uname (&u) == 0)
    {
      snprintf (h->hostname, sizeof (h->hostname), "%s", u.nodename);
      snprintf (h->kernel, sizeof (h->kernel), "%s", u.release);
      snprintf (h->kernel_version, sizeof (h->kernel_version), "%s", u.version);
      snprintf (h->machine, sizeof (h->machine), "%s", u.machine);
    }
  read_cpu_model (h->cpu_model, sizeof (h->cpu_model));
  h->cores = (int) sysconf (_SC_NPROCESSORS_ONLN);
  h->mem_total = meminfo_bytes ("MemTotal");
  h->swap_total = meminfo_bytes ("SwapTotal");
  h->pid_max = lab_read_int ("/proc/sys/kernel/pid_max");
  h->threads_max = lab_read_int ("/proc/sys/kernel/threads-max");
  h->max_map_count = lab_read_int ("/proc/sys/vm/max_map_count");
  h->overcommit_memory = lab_read_int ("/proc/sys/vm/overcommit_memory");
#define RL(res, s, hd)                                                                        \
  if (getrlimit (res, &rl) == 0)                                                              \
    {                                                                                         \
      h->s = rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t) rl.rlim_cur;                       \
      h->hd = rl.rlim_max == RLIM_INFINITY ? -1 : (int64_t) rl.rlim_max;                      \
    }
  RL (RLIMIT_NPROC, nproc_soft, nproc_hard);
  RL (RLIMIT_NOFILE, nofile_soft, nofile_hard);
  RL (RLIMIT_MEMLOCK, memlock_soft, memlock_hard);
#undef RL
  if (lab_cgroup_detect (&h->cg, &err) == 0)
    h->cg_ok = 1;
  else
    {
      snprintf (h->cg_error, sizeof (h->cg_error), "%s", err && err->msg ? err->msg : "unknown");
      lab_error_release (&err);
    }
  probe_io_uring (h);
  h->seccomp = prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && access ("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
  h->pidns = probe_unshare (CLONE_NEWPID);
  h->netns = probe_unshare (CLONE_NEWNET);
  h->userns = probe_unshare (CLONE_NEWUSER);
  lab_container_detect (&h->ct);
  h->is_root = geteuid () == 0;
}

static const char *
cg_mode_name (enum lab_cgroup_mode m)
{
  switch (m)
    {
    case LAB_CG_V2: return "v2";
    case LAB_CG_HYBRID: return "hybrid";
    case LAB_CG_V1: return "v1";
    default: return "none";
    }
}

struct json_object *
lab_hostinfo_to_json (const struct lab_hostinfo *h)
{
  struct json_object *o = json_object_new_object (), *lim = json_object_new_object ();
  struct json_object *cg = json_object_new_object ();

  json_object_object_add (o, "hostname", json_object_new_string (h->hostname));
  json_object_object_add (o, "kernel", json_object_new_string (h->kernel));
  json_object_object_add (o, "kernel_version", json_object_new_string (h->kernel_version));
  json_object_object_add (o, "machine", json_object_new_string (h->machine));
  json_object_object_add (o, "cpu_model", json_object_new_string (h->cpu_model));
  json_object_object_add (o, "cores", json_object_new_int (h->cores));
  json_object_object_add (o, "mem_total_bytes", json_object_new_int64 (h->mem_total));
  json_object_object_add (o, "swap_total_bytes", json_object_new_int64 (h->swap_total));
  json_object_object_add (lim, "kernel.pid_max", json_object_new_int64 (h->pid_max));
  json_object_object_add (lim, "kernel.threads-max", json_object_new_int64 (h->threads_max));
  json_object_object_add (lim, "vm.max_map_count", json_object_new_int64 (h->max_map_count));
  json_object_object_add (lim, "vm.overcommit_memory", json_object_new_int64 (h->overcommit_memory));
  json_object_object_add (lim, "RLIMIT_NPROC", json_object_new_int64 (h->nproc_soft));
  json_object_object_add (lim, "RLIMIT_NOFILE", json_object_new_int64 (h->nofile_soft));
  json_object_object_add (lim, "RLIMIT_MEMLOCK", json_object_new_int64 (h->memlock_soft));
  json_object_object_add (o, "limits", lim);
  json_object_object_add (cg, "mode", json_object_new_string (cg_mode_name (h->cg.mode)));
  json_object_object_add (cg, "backend", json_object_new_string (h->cg.backend ? h->cg.backend : ""));
  json_object_object_add (cg, "controllers", json_object_new_string (h->cg.controllers));
  if (!h->cg_ok)
    json_object_object_add (cg, "error", json_object_new_string (h->cg_error));
  json_object_object_add (o, "cgroup", cg);
  json_object_object_add (o, "container", lab_container_to_json (&h->ct));
  json_object_object_add (o, "io_uring", json_object_new_boolean (h->io_uring));
  json_object_object_add (o, "seccomp", json_object_new_boolean (h->seccomp));
  json_object_object_add (o, "namespaces_pid_net", json_object_new_boolean (h->pidns && h->netns));
  return o;
}
