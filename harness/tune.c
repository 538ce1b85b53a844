/*
 * tune.c - the settings table behind `lab tune` (see tune.h): for the tasks
 * the asked experiments keep alive at once, what each host setting must be
 * and why.  Numbers needed:
 *   kernel.pid_max, kernel.threads-max  (live tasks + the host's threads now +
 *       10000 spare) x 8/7 (each live thread holds a pid and a task_struct;
 *       the profiles' pids.max `auto` keeps 1/8 of them for the host);
 *   vm.max_map_count  2 mappings per live task (a pthread stack and its guard
 *       page; a coroutine stack with guard=mprotect) + 10000 spare;
 *   vm.overcommit_memory  not 2: in strict mode every reserved stack counts
 *       against the commit limit (500K x 16 KiB stacks = 8 GiB of VSS);
 *   THP  not `always`: huge pages would back stacks and arenas with 2 MiB
 *       pages and the per-task figures would measure THP, not the model;
 *   RLIMIT_NPROC  threads per user (root is exempt; the profile sets it);
 *   RLIMIT_NOFILE  the hard limit caps what a profile can grant;
 *   swap  the pressure experiment needs swap on the host (--swap SIZE).
 * --apply writes only settings that are short and have a file (`path`).
 */
#include "tune.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup.h"
#include "hostinfo.h"
#include "utils.h"

#define PID_MAX_LIMIT 4194304L /* the kernel's ceiling for pid_max on 64-bit */
#define SPARE_TASKS 10000L

const char *
lab_tune_state_name (enum lab_tune_state st)
{
  static const char *const names[] = { "ok", "RAISE", "MANUAL", "info" };
  return names[st];
}

int
lab_tune_read (const char *path, char *out, size_t len)
{
  cleanup_free char *buf = NULL;
  out[0] = '\0';
  if (lab_read_file (path, &buf, NULL, NULL) < 0)
    return -1;
  buf[strcspn (buf, "\n")] = '\0';
  /* THP prints every mode with the active one in brackets. */
  char *lb = strchr (buf, '['), *rb = lb ? strchr (lb, ']') : NULL;
  if (lb && rb)
    {
      *rb = '\0';
      snprintf (out, len, "%s", lb + 1);
    }
  else
    snprintf (out, len, "%s", buf);
  return 0;
}

static long
host_threads (void)
{
  long running, total;
  cleanup_file FILE *f = fopen ("/proc/loadavg", "re");
  if (f && fscanf (f, "%*s %*s %*s %ld/%ld", &running, &total) == 2)
    return total;
  return 0;
}

static long
round_up (long v, long to)
{
  return (v + to - 1) / to * to;
}

/* A sysctl that must be at least `want`. */
static void
at_least (struct lab_tune_item *it, const char *name, const char *path, long want, long ceiling, const char *why)
{
  it->name = name;
  it->path = path;
  lab_tune_read (path, it->now, sizeof it->now);
  long now = atol (it->now);
  snprintf (it->why, sizeof it->why, "%s", why);
  if (want <= 0)
    {
      snprintf (it->need, sizeof it->need, "-");
      it->state = LAB_TUNE_OK;
      return;
    }
  snprintf (it->need, sizeof it->need, ">= %ld", want);
  if (now >= want)
    it->state = LAB_TUNE_OK;
  else if (ceiling > 0 && want > ceiling)
    {
      it->state = LAB_TUNE_MANUAL;
      snprintf (it->why, sizeof it->why, "%s; above the kernel's ceiling %ld: cannot be set", why, ceiling);
    }
  else
    {
      it->state = LAB_TUNE_RAISE;
      snprintf (it->value, sizeof it->value, "%ld", want);
    }
}

/* A mode that must not be `bad`; --apply sets `good`. */
static void
not_mode (struct lab_tune_item *it, const char *name, const char *path, int matters, const char *bad,
          const char *good, const char *why)
{
  it->name = name;
  it->path = path;
  lab_tune_read (path, it->now, sizeof it->now);
  snprintf (it->need, sizeof it->need, matters ? "not %s" : "-", bad);
  snprintf (it->why, sizeof it->why, "%s", why);
  it->state = LAB_TUNE_OK;
  if (matters && strcmp (it->now, bad) == 0)
    {
      it->state = LAB_TUNE_RAISE;
      snprintf (it->value, sizeof it->value, "%s", good);
    }
}

static void
fmt_rlim (char *out, size_t len, rlim_t v)
{
  if (v == RLIM_INFINITY)
    snprintf (out, len, "unlimited");
  else
    snprintf (out, len, "%llu", (unsigned long long) v);
}

int
lab_tune_plan (const struct lab_tune_req *req, struct lab_tune_item *items)
{
  int n = 0;
  long live = req->live_tasks, host = host_threads ();
  /* The profiles' pids.max `auto` (pids-auto.c) keeps max(1024, 1/8) of
     min(pid_max, threads-max) in reserve for the host: size both so that
     what is left still holds the live tasks. */
  long base = live + host + SPARE_TASKS, want_tasks = 0;
  if (live > 0)
    want_tasks = round_up (base + (base / 7 > 1024 ? base / 7 : 1024), 1000);
  char why[256];
  struct rlimit rl;

  snprintf (why, sizeof why, "each live thread holds a pid: %s, %ld threads on the host now, %ld spare, "
            "+1/7 for pids.max auto's reserve",
            req->live_why ? req->live_why : "no tasks", host, SPARE_TASKS);
  at_least (&items[n++], "kernel.pid_max", "/proc/sys/kernel/pid_max", want_tasks, PID_MAX_LIMIT, why);
  snprintf (why, sizeof why, "threads system-wide (one task_struct and kernel stack each): %s",
            req->live_why ? req->live_why : "no tasks");
  at_least (&items[n++], "kernel.threads-max", "/proc/sys/kernel/threads-max", want_tasks, 0x3fffffffL, why);
  at_least (&items[n++], "vm.max_map_count", "/proc/sys/vm/max_map_count",
            live > 0 ? round_up (2 * live + SPARE_TASKS, 1000) : 0, 0x7fffffffL,
            "2 mappings per live task (a pthread stack + its guard page; coroutine stacks with guard=mprotect)");
  not_mode (&items[n++], "vm.overcommit_memory", "/proc/sys/vm/overcommit_memory", live > 0, "2", "0",
            "strict accounting (2) counts every reserved stack against the commit limit");
  not_mode (&items[n++], "transparent_hugepage", "/sys/kernel/mm/transparent_hugepage/enabled", live > 0, "always",
            "madvise", "`always` backs stacks and arenas with 2 MiB pages: per-task memory would measure THP");

  struct lab_tune_item *it = &items[n++];
  it->name = "RLIMIT_NPROC";
  getrlimit (RLIMIT_NPROC, &rl);
  fmt_rlim (it->now, sizeof it->now, rl.rlim_cur);
  snprintf (it->need, sizeof it->need, live > 0 ? ">= %ld or root" : "-", live + host);
  it->state = (live == 0 || geteuid () == 0 || rl.rlim_cur == RLIM_INFINITY || (long) rl.rlim_cur >= live + host)
                  ? LAB_TUNE_OK : LAB_TUNE_MANUAL;
  snprintf (it->why, sizeof it->why, "threads per user; root is exempt, the profile sets the points' limit");

  it = &items[n++];
  it->name = "RLIMIT_NOFILE";
  getrlimit (RLIMIT_NOFILE, &rl);
  fmt_rlim (it->now, sizeof it->now, rl.rlim_max);
  snprintf (it->need, sizeof it->need, req->fds > 0 ? "hard >= %ld" : "-", req->fds);
  it->state = (req->fds <= 0 || rl.rlim_max == RLIM_INFINITY || (long) rl.rlim_max >= req->fds) ? LAB_TUNE_OK
                                                                                                 : LAB_TUNE_MANUAL;
  snprintf (it->why, sizeof it->why, "the hard limit (shown) caps what a profile's RLIMIT_NOFILE can grant; "
                                     "raising it needs CAP_SYS_RESOURCE");

  it = &items[n++];
  it->name = "swap";
  int64_t total = lab_swap_total ();
  snprintf (it->now, sizeof it->now, "%lld MiB", (long long) (total > 0 ? total >> 20 : 0));
  if (req->swap_bytes > 0)
    snprintf (it->need, sizeof it->need, ">= %lld MiB", (long long) ((req->swap_bytes + (1 << 20) - 1) >> 20));
  else
    snprintf (it->need, sizeof it->need, "-");
  it->state = req->swap_bytes > 0 && total < req->swap_bytes ? LAB_TUNE_MANUAL : LAB_TUNE_OK;
  snprintf (it->why, sizeof it->why, "%s", req->swap_bytes > 0 ? req->swap_why : "no asked experiment swaps");
  return n;
}

static int64_t
meminfo (const char *key)
{
  char line[256];
  long long kb;
  size_t kl = strlen (key);
  cleanup_file FILE *f = fopen ("/proc/meminfo", "re");
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, key, kl) == 0 && line[kl] == ':' && sscanf (line + kl + 1, "%lld", &kb) == 1)
      return kb * 1024;
  return -1;
}

int64_t
lab_swap_total (void)
{
  return meminfo ("SwapTotal");
}

int64_t
lab_swap_used (void)
{
  int64_t t = meminfo ("SwapTotal"), f = meminfo ("SwapFree");
  return t >= 0 && f >= 0 ? t - f : -1;
}

void
lab_swap_sample_cols (FILE *f, struct lab_cgroup *cg)
{
  int64_t total = meminfo ("SwapTotal"), free_ = meminfo ("SwapFree"), cg_swap = 0;
  if (total > 0)
    {
      struct lab_cgroup_stats st;
      lab_error_t e = NULL;
      memset (&st, 0, sizeof st);
      cg_swap = lab_cgroup_read_stats (cg, &st, &e) == 0 ? st.swap_current : -1;
      lab_error_release (&e);
    }
  fputc (',', f);
  if (cg_swap >= 0 && total >= 0)
    fprintf (f, "%lld", (long long) cg_swap);
  fputc (',', f);
  if (total >= 0 && free_ >= 0)
    fprintf (f, "%lld", (long long) (total - free_));
}
