/*
 * wl.c - the workload side of the harness protocol (see wl.h).
 *
 * Three parts, in this order:
 *   1. wl_parse_args: the common flags, getopt_long; bad use prints
 *      "wl-EXP: option `--n`: ..." to stderr and exits 2.
 *   2. The report: a json-c object filled key by key, printed once as
 *      `@lab-report {...}` on stdout and flushed.  "status" is the first key
 *      (added as "ok" by wl_report_new, replaced in place at the end).
 *   3. wl_which_limit: reads the host's counters (wl_limit_facts_read) and
 *      hands them to a pure decision (wl_limit_decide) that unit tests feed
 *      with made-up figures.
 */
#include "wl.h"
#include "size.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json.h>
#include <limits.h>
#include <sys/mman.h>
#include <pthread.h>
#include <linux/futex.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The largest VmRSS any wl_proc_status_kb call read (kB): the kernel's VmHWM
   is not raised for memory given back by MADV_DONTNEED (it is updated on
   munmap and exit), so a peak freed that way would be missed. */
static long rss_seen_kb = -1;

/* ---------------------------------------------------------------- args -- */

static const char *wl_prog = "wl";

static void __attribute__ ((noreturn, format (printf, 1, 2)))
usage_error (const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "%s: ", wl_prog);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, " (try `%s --help`)\n", wl_prog);
  exit (2);
}

static void
usage (const char *const *variants)
{
  printf ("usage: %s --variant V --n N [--stack SIZE] [--threads T] [--duration S]\n"
          "          [--backend io_uring|epoll] [--opt KEY=VALUE]...\n"
          "Prints one `@lab-report {json}` line on stdout.\nvariants:",
          wl_prog);
  for (size_t i = 0; variants[i]; i++)
    printf (" %s", variants[i]);
  printf ("\n");
}

/* Whole count, optional K/M suffix in powers of 1000 (like lab_parse_count). */
static long
parse_count (const char *flag, const char *s, long min)
{
  char *end = NULL;
  long mult = 1, v;

  errno = 0;
  v = strtol (s, &end, 10);
  if (end != s && (*end == 'k' || *end == 'K'))
    mult = 1000, end++;
  else if (end != s && (*end == 'm' || *end == 'M'))
    mult = 1000000, end++;
  if (errno || end == s || *end != '\0' || v < min || v > LONG_MAX / mult)
    usage_error ("option `%s`: bad value `%s` (a whole number >= %ld, K/M suffixes allowed)",
                 flag, s, min);
  return v * mult;
}

/* A stack size: size.h's grammar (the one lab uses), LAB_STACK_MIN..MAX. */
static long
parse_stack (const char *flag, const char *s)
{
  uint64_t v;
  const char *why = lab_size_parse (s, LAB_STACK_MAX, &v);

  if (why)
    usage_error ("option `%s`: bad size `%s` (%s; e.g. 16K, 64KiB, 1.5M, 4096)", flag, s, why);
  if (v < LAB_STACK_MIN)
    usage_error ("option `%s`: `%s` is below %ld bytes", flag, s, LAB_STACK_MIN);
  return (long) v;
}

static double
parse_seconds (const char *flag, const char *s)
{
  char *end = NULL;
  double v;

  errno = 0;
  v = strtod (s, &end);
  if (errno || end == s || *end != '\0' || !isfinite (v) || v < 0)
    usage_error ("option `%s`: bad duration `%s` (seconds, e.g. 2.5)", flag, s);
  return v;
}

static void
check_variant (const char *v, const char *experiment, const char *const *variants)
{
  char list[256] = "";
  size_t used = 0;

  for (size_t i = 0; variants[i]; i++)
    {
      if (strcmp (v, variants[i]) == 0)
        return;
      used += (size_t) snprintf (list + used, used < sizeof list ? sizeof list - used : 0,
                                 "%s%s", i ? ", " : "", variants[i]);
    }
  usage_error ("option `--variant`: unknown variant `%s` for `%s` (known: %s)", v, experiment,
               list);
}

void
wl_parse_args (int argc, char **argv, const char *experiment, const char *const *variants,
               struct wl_args *a)
{
  static char prog[64];
  static const struct option opts[] = {
    { "variant", required_argument, NULL, 'v' },  { "n", required_argument, NULL, 'n' },
    { "stack", required_argument, NULL, 's' },    { "threads", required_argument, NULL, 't' },
    { "duration", required_argument, NULL, 'd' }, { "backend", required_argument, NULL, 'b' },
    { "opt", required_argument, NULL, 'o' },      { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c, have_n = 0;

  snprintf (prog, sizeof prog, "wl-%s", experiment);
  wl_prog = prog;
  memset (a, 0, sizeof *a);
  a->experiment = experiment;
  a->backend = "io_uring";
  opterr = 0;
  optind = 0; /* full re-initialisation (glibc), so tests may call us twice */
  while ((c = getopt_long (argc, argv, ":", opts, NULL)) != -1)
    {
      const char *flag = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
      switch (c)
        {
        case 'v': check_variant (optarg, experiment, variants); a->variant = optarg; break;
        case 'n': a->n = parse_count ("--n", optarg, 1); have_n = 1; break;
        case 's': a->stack_size = parse_stack ("--stack", optarg); break;
        case 't': a->threads = (int) parse_count ("--threads", optarg, 0);
          if (a->threads > 4096)
            usage_error ("option `--threads`: `%s` is more than 4096", optarg);
          break;
        case 'd': a->duration_s = parse_seconds ("--duration", optarg); break;
        case 'b':
          if (strcmp (optarg, "io_uring") != 0 && strcmp (optarg, "epoll") != 0)
            usage_error ("option `--backend`: unknown backend `%s` (io_uring or epoll)", optarg);
          a->backend = optarg;
          break;
        case 'o':
          {
            char *eq = strchr (optarg, '=');
            if (eq == NULL || eq == optarg)
              usage_error ("option `--opt`: expected KEY=VALUE, got `%s`", optarg);
            if (a->n_opts >= WL_MAX_OPTS)
              usage_error ("option `--opt`: more than %d given", WL_MAX_OPTS);
            *eq = '\0'; /* argv is ours to split */
            a->opt_key[a->n_opts] = optarg;
            a->opt_val[a->n_opts++] = eq + 1;
            break;
          }
        case 'h': usage (variants); exit (0);
        case ':': usage_error ("option `%s` needs a value", flag);
        default:
          if (optopt)
            usage_error ("unknown option `-%c`", optopt);
          usage_error ("unknown option `%s`", flag);
        }
    }
  if (optind < argc)
    usage_error ("unexpected argument `%s`", argv[optind]);
  if (a->variant == NULL)
    usage_error ("option `--variant` is required");
  if (!have_n)
    usage_error ("option `--n` is required");
}

const char *
wl_opt (const struct wl_args *a, const char *key, const char *def)
{
  for (int i = a->n_opts - 1; i >= 0; i--) /* the last one given wins */
    if (strcmp (a->opt_key[i], key) == 0)
      return a->opt_val[i];
  return def;
}

long
wl_opt_long (const struct wl_args *a, const char *key, long def)
{
  const char *s = wl_opt (a, key, NULL);
  char *end = NULL;
  long v;

  if (s == NULL)
    return def;
  errno = 0;
  v = strtol (s, &end, 0);
  if (errno || end == s || *end != '\0')
    usage_error ("option `--opt %s=%s`: not an integer", key, s);
  return v;
}

/* -------------------------------------------------------------- report -- */

struct wl_report
{
  json_object *obj;
};

struct wl_report *
wl_report_new (const struct wl_args *a)
{
  struct wl_report *r = calloc (1, sizeof *r);

  if (r == NULL || (r->obj = json_object_new_object ()) == NULL)
    {
      fprintf (stderr, "%s: out of memory for the report\n", wl_prog);
      exit (1);
    }
  json_object_object_add (r->obj, "status", json_object_new_string ("ok"));
  if (a)
    {
      if (a->experiment)
        wl_report_str (r, "experiment", a->experiment);
      if (a->variant)
        wl_report_str (r, "variant", a->variant);
      wl_report_int (r, "n", a->n);
    }
  return r;
}

void
wl_report_num (struct wl_report *r, const char *key, double v)
{
  char buf[64];

  if (!isfinite (v)) /* JSON has no NaN/inf: say "not measured" */
    {
      json_object_object_add (r->obj, key, NULL);
      return;
    }
  snprintf (buf, sizeof buf, "%.9g", v);
  json_object_object_add (r->obj, key, json_object_new_double_s (v, buf));
}

void
wl_report_int (struct wl_report *r, const char *key, int64_t v)
{
  json_object_object_add (r->obj, key, json_object_new_int64 (v));
}

void
wl_report_str (struct wl_report *r, const char *key, const char *v)
{
  json_object_object_add (r->obj, key, v ? json_object_new_string (v) : NULL);
}

void
wl_report_json (struct wl_report *r, const char *key, struct json_object *v)
{
  json_object_object_add (r->obj, key, v);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* Nearest-rank percentile on sorted data: the smallest sample with at least
   permille/1000 of the samples at or below it (integer math, no rounding). */
static uint64_t
rank (const uint64_t *sorted, size_t n, unsigned permille)
{
  size_t k = (n * permille + 999) / 1000;
  return sorted[k ? k - 1 : 0];
}

void
wl_report_latencies_as (struct wl_report *r, const char *prefix, uint64_t *ns, size_t n)
{
  long double sum = 0;
  char k[64];

#define KEY(suffix) (snprintf (k, sizeof k, "%s_%s", prefix, suffix), k)
  wl_report_int (r, KEY ("samples"), (int64_t) n);
  if (n == 0)
    return;
  qsort (ns, n, sizeof *ns, cmp_u64);
  for (size_t i = 0; i < n; i++)
    sum += ns[i];
  wl_report_int (r, KEY ("p50_ns"), (int64_t) rank (ns, n, 500));
  wl_report_int (r, KEY ("p99_ns"), (int64_t) rank (ns, n, 990));
  wl_report_int (r, KEY ("p999_ns"), (int64_t) rank (ns, n, 999));
  wl_report_int (r, KEY ("max_ns"), (int64_t) ns[n - 1]);
  wl_report_num (r, KEY ("mean_ns"), (double) (sum / n));
#undef KEY
}

void
wl_report_latencies (struct wl_report *r, uint64_t *ns, size_t n)
{
  wl_report_latencies_as (r, "lat", ns, n);
}

/* ------------------------------------------------------ measured region -- */

/* One measured region per process: wall time and getrusage(RUSAGE_SELF) at
   its two ends (all threads, the ended ones included). */
static struct
{
  int begun, ended;
  uint64_t t0, t1;
  struct rusage ru0, ru1;
} region;

void
wl_region_begin (void)
{
  region.begun = 1;
  region.ended = 0;
  getrusage (RUSAGE_SELF, &region.ru0);
  region.t0 = wl_now_ns ();
}

double
wl_region_end (void)
{
  region.t1 = wl_now_ns ();
  getrusage (RUSAGE_SELF, &region.ru1);
  region.ended = region.begun;
  return (double) (region.t1 - region.t0) / 1e9;
}

static double
tv_s (struct timeval tv)
{
  return (double) tv.tv_sec + (double) tv.tv_usec / 1e6;
}

void
wl_region_deltas (const struct rusage *ru0, const struct rusage *ru1, struct wl_region_figures *f)
{
  f->cpu_user_s = tv_s (ru1->ru_utime) - tv_s (ru0->ru_utime);
  f->cpu_sys_s = tv_s (ru1->ru_stime) - tv_s (ru0->ru_stime);
  f->vol_ctxsw = ru1->ru_nvcsw - ru0->ru_nvcsw;
  f->invol_ctxsw = ru1->ru_nivcsw - ru0->ru_nivcsw;
}

/* The region's figures and the process's own memory high-water marks. */
static void
report_measured (struct wl_report *r)
{
  if (region.ended)
    {
      struct wl_region_figures f;
      wl_region_deltas (&region.ru0, &region.ru1, &f);
      wl_report_num (r, "region_wall_s", (double) (region.t1 - region.t0) / 1e9);
      wl_report_num (r, "region_cpu_user_s", f.cpu_user_s);
      wl_report_num (r, "region_cpu_sys_s", f.cpu_sys_s);
      wl_report_int (r, "region_vol_ctxsw", f.vol_ctxsw);
      wl_report_int (r, "region_invol_ctxsw", f.invol_ctxsw);
    }
  /* Since exec: the pre-exec image (a fork of the harness) is not in them.
     VmHWM, or the largest VmRSS read before when that is larger. */
  long hwm = wl_proc_status_kb ("VmHWM"), peak = wl_proc_status_kb ("VmPeak");
  if (rss_seen_kb > hwm)
    hwm = rss_seen_kb;
  if (hwm >= 0)
    wl_report_int (r, "vm_hwm_bytes", (int64_t) hwm * 1024);
  if (peak >= 0)
    wl_report_int (r, "vm_peak_bytes", (int64_t) peak * 1024);
}

/* The memory usage of our own cgroup, where we can see it and it is ours
   (its cgroup.procs lists us: true inside the sandbox's cgroup namespace). */
static int64_t
own_cgroup_memory (void)
{
  static const char *const dirs[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup" };
  static const char *const files[] = { "memory.usage_in_bytes", "memory.current" };
  char path[128], line[64];

  for (size_t i = 0; i < 2; i++)
    {
      int ours = 0;
      long long v = -1;
      FILE *f;
      snprintf (path, sizeof path, "%s/cgroup.procs", dirs[i]);
      if ((f = fopen (path, "re")) == NULL)
        continue;
      while (!ours && fgets (line, sizeof line, f))
        ours = atol (line) == (long) getpid ();
      fclose (f);
      snprintf (path, sizeof path, "%s/%s", dirs[i], files[i]);
      if (!ours || (f = fopen (path, "re")) == NULL)
        continue;
      if (fscanf (f, "%lld", &v) != 1)
        v = -1;
      fclose (f);
      if (v >= 0)
        return v;
    }
  return -1;
}

void
wl_report_baseline (struct wl_report *r)
{
  long rss = wl_proc_status_kb ("VmRSS");
  int64_t cg = own_cgroup_memory ();
  if (rss >= 0)
    wl_report_int (r, "rss_baseline_bytes", (int64_t) rss * 1024);
  if (cg >= 0)
    wl_report_int (r, "cgroup_baseline_bytes", cg);
}

static int
report_emit (struct wl_report *r, const char *status, int rc)
{
  report_measured (r);
  json_object_object_add (r->obj, "status", json_object_new_string (status));
  printf ("@lab-report %s\n",
          json_object_to_json_string_ext (r->obj, JSON_C_TO_STRING_PLAIN
                                                      | JSON_C_TO_STRING_NOSLASHESCAPE));
  fflush (stdout);
  json_object_put (r->obj);
  free (r);
  return rc;
}

void
wl_ready (const char *fmt, ...)
{
  va_list ap;

  printf ("@lab-ready ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

int
wl_report_ok (struct wl_report *r)
{
  return report_emit (r, "ok", 0);
}

int
wl_report_limit (struct wl_report *r, const char *limit, const char *detail)
{
  wl_report_str (r, "limit", limit);
  wl_report_str (r, "detail", detail);
  return report_emit (r, "limit", 0);
}

int
wl_report_error (struct wl_report *r, const char *detail)
{
  wl_report_str (r, "detail", detail);
  fprintf (stderr, "%s: %s\n", wl_prog, detail);
  return report_emit (r, "error", 1);
}

/* -------------------------------------------------------------- limits -- */

static long
read_long_file (const char *path)
{
  char buf[64];
  long v = -1;
  FILE *f = fopen (path, "re");

  if (f == NULL)
    return -1;
  if (fgets (buf, sizeof buf, f))
    v = strncmp (buf, "max", 3) == 0 ? -1 : strtol (buf, NULL, 10);
  fclose (f);
  return v;
}

long
wl_proc_status_kb (const char *key)
{
  char line[256];
  size_t klen = strlen (key);
  long v = -1;
  FILE *f = fopen ("/proc/self/status", "re");

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, key, klen) == 0 && line[klen] == ':')
      {
        v = strtol (line + klen + 1, NULL, 10);
        break;
      }
  fclose (f);
  if (strcmp (key, "VmRSS") == 0 && v > rss_seen_kb)
    rss_seen_kb = v;
  return v;
}

static long
count_lines (const char *path)
{
  char buf[65536];
  long lines = 0;
  ssize_t got;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  while ((got = read (fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < got; i++)
      lines += buf[i] == '\n';
  close (fd);
  return lines;
}

/* Threads of processes whose real uid is ours (what RLIMIT_NPROC counts). */
static long
count_uid_threads (void)
{
  DIR *d = opendir ("/proc");
  struct dirent *e;
  long total = 0;
  uid_t me = getuid ();

  if (d == NULL)
    return -1;
  while ((e = readdir (d)))
    {
      char path[300], line[256];
      long uid = -1, threads = 0;
      FILE *f;

      if (!isdigit ((unsigned char) e->d_name[0]))
        continue;
      snprintf (path, sizeof path, "/proc/%s/status", e->d_name);
      if ((f = fopen (path, "re")) == NULL)
        continue;
      while (fgets (line, sizeof line, f))
        if (strncmp (line, "Uid:", 4) == 0)
          uid = strtol (line + 4, NULL, 10);
        else if (strncmp (line, "Threads:", 8) == 0)
          threads = strtol (line + 8, NULL, 10);
      fclose (f);
      if (uid == (long) me)
        total += threads;
    }
  closedir (d);
  return total;
}

/* Root and CAP_SYS_RESOURCE/CAP_SYS_ADMIN holders are exempt (kernel/fork.c). */
static int
nproc_enforced (void)
{
  char line[256];
  unsigned long long cap = 0;
  FILE *f;

  if (getuid () == 0)
    return 0;
  if ((f = fopen ("/proc/self/status", "re")) == NULL)
    return 1;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "CapEff:", 7) == 0)
      cap = strtoull (line + 7, NULL, 16);
  fclose (f);
  return !(cap & (1ULL << 24)) && !(cap & (1ULL << 21));
}

/* Walks from our pids cgroup up to the root: the level with the least headroom
   (pids.max is hierarchical) gives pids_current/pids_max. */
static void
read_pids_cgroup (struct wl_limit_facts *f)
{
  char line[4096], cgpath[4096] = "", file[4400];
  const char *base = NULL;
  FILE *cg = fopen ("/proc/self/cgroup", "re");
  long best = LONG_MAX;

  f->pids_current = f->pids_max = -1;
  if (cg == NULL)
    return;
  while (fgets (line, sizeof line, cg))
    {
      char *c1 = strchr (line, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      const char *ctl;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      ctl = c1 + 1;
      c2[1 + strcspn (c2 + 1, "\n")] = '\0';
      if (strcmp (ctl, "pids") == 0 || strstr (ctl, ",pids") || strncmp (ctl, "pids,", 5) == 0)
        {
          base = "/sys/fs/cgroup/pids"; /* v1 wins over v2 */
          snprintf (cgpath, sizeof cgpath, "%s", c2 + 1);
          break;
        }
      if (*ctl == '\0' && base == NULL)
        {
          /* v2: mounted at /sys/fs/cgroup when pure, at .../unified when hybrid */
          base = access ("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "/sys/fs/cgroup"
                                                                           : "/sys/fs/cgroup/unified";
          snprintf (cgpath, sizeof cgpath, "%s", c2 + 1);
        }
    }
  fclose (cg);
  if (base == NULL)
    return;
  for (;;)
    {
      const char *p = strcmp (cgpath, "/") ? cgpath : "";
      long mx, cur;
      char *slash;

      snprintf (file, sizeof file, "%s%s/pids.max", base, p);
      mx = read_long_file (file);
      snprintf (file, sizeof file, "%s%s/pids.current", base, p);
      cur = read_long_file (file);
      if (mx >= 0 && cur >= 0 && mx - cur < best)
        best = mx - cur, f->pids_max = mx, f->pids_current = cur;
      else if (f->pids_current < 0 && cur >= 0)
        f->pids_current = cur;
      if (*p == '\0' || (slash = strrchr (cgpath, '/')) == NULL)
        break;
      if (slash == cgpath)
        strcpy (cgpath, "/");
      else
        *slash = '\0';
    }
}

void
wl_limit_facts_read (struct wl_limit_facts *f)
{
  struct rlimit rl;
  FILE *la = fopen ("/proc/loadavg", "re");

  f->host_tasks = -1;
  if (la)
    {
      if (fscanf (la, "%*f %*f %*f %*d/%ld", &f->host_tasks) != 1)
        f->host_tasks = -1;
      fclose (la);
    }
  f->threads_max = read_long_file ("/proc/sys/kernel/threads-max");
  f->pid_max = read_long_file ("/proc/sys/kernel/pid_max");
  f->max_map_count = read_long_file ("/proc/sys/vm/max_map_count");
  f->map_count = count_lines ("/proc/self/maps");
  f->nproc_limit = -1;
  if (getrlimit (RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    f->nproc_limit = (long) rl.rlim_cur;
  f->nproc_enforced = nproc_enforced ();
  f->nproc_used = f->nproc_limit >= 0 && f->nproc_enforced ? count_uid_threads () : -1;
  read_pids_cgroup (f);
}

/* The kernel never hands out pids below RESERVED_PIDS once it wraps. */
#define WL_RESERVED_PIDS 300

struct candidate
{
  const char *name;
  long used, limit;
};

/* Within 0.5% (at least 64) of a limit counts as "at" it: by the time the
   facts are read, a few tasks may have ended or started. */
static long
slack (long limit)
{
  return limit / 200 > 64 ? limit / 200 : 64;
}

const char *
wl_limit_decide (const struct wl_limit_facts *f, int err, long count, char *detail, size_t len)
{
  /* measured counters win; `count` stands in only where one is unknown (tasks
     created may have ended since, so it is not a lower bound) */
  long host = f->host_tasks >= 0 ? f->host_tasks : count;
  long pid_eff = f->pid_max > WL_RESERVED_PIDS ? f->pid_max - WL_RESERVED_PIDS : f->pid_max;
  struct candidate c[] = {
    { "pids.max", f->pids_current, f->pids_max },
    { "RLIMIT_NPROC", f->nproc_enforced ? (f->nproc_used >= 0 ? f->nproc_used : count) : -1,
      f->nproc_enforced ? f->nproc_limit : -1 },
    { "max_map_count", f->map_count, f->max_map_count },
    { "pid_max", host, pid_eff },
    { "threads-max", host, f->threads_max },
  };
  const struct candidate *best = NULL;
  double best_room = INFINITY;
  const char *en = strerrorname_np (err);

  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      double room;
      if (c[i].limit <= 0 || c[i].used < 0 || c[i].used < c[i].limit - slack (c[i].limit))
        continue;
      room = (double) (c[i].limit - c[i].used) / (double) c[i].limit;
      if (room < best_room) /* ties keep the earlier, more specific limit */
        best = &c[i], best_room = room;
    }
  if (best == NULL)
    {
      snprintf (detail, len,
                "%s after %ld tasks; no count limit near: %ld tasks on the host "
                "(kernel.threads-max=%ld, kernel.pid_max=%ld), %ld mappings "
                "(vm.max_map_count=%ld), pids cgroup %ld/%ld; so memory",
                en ? en : strerror (err), count, f->host_tasks, f->threads_max, f->pid_max,
                f->map_count, f->max_map_count, f->pids_current, f->pids_max);
      return "memory";
    }
  if (strcmp (best->name, "pids.max") == 0)
    snprintf (detail, len, "%s after %ld tasks; pids cgroup pids.current=%ld, pids.max=%ld",
              en ? en : strerror (err), count, best->used, best->limit);
  else if (strcmp (best->name, "RLIMIT_NPROC") == 0)
    snprintf (detail, len, "%s after %ld tasks; RLIMIT_NPROC=%ld, %ld threads of uid %ld",
              en ? en : strerror (err), count, best->limit, best->used, (long) getuid ());
  else if (strcmp (best->name, "max_map_count") == 0)
    snprintf (detail, len, "%s after %ld tasks; vm.max_map_count=%ld, %ld mappings",
              en ? en : strerror (err), count, best->limit, best->used);
  else if (strcmp (best->name, "pid_max") == 0)
    snprintf (detail, len, "%s after %ld tasks; kernel.pid_max=%ld, %ld tasks on the host",
              en ? en : strerror (err), count, f->pid_max, best->used);
  else
    snprintf (detail, len, "%s after %ld tasks; kernel.threads-max=%ld, %ld tasks on the host",
              en ? en : strerror (err), count, best->limit, best->used);
  return best->name;
}

const char *
wl_which_limit (int err, long count, char *detail, size_t len)
{
  struct wl_limit_facts f;

  wl_limit_facts_read (&f);
  return wl_limit_decide (&f, err, count, detail, len);
}

/* --------------------------------------------------------------- misc -- */

#define FIRST_TOUCH_WINDOW 16 /* pages */

uint64_t
wl_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void
wl_futex_wait (uint32_t *addr, uint32_t val)
{
  syscall (SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void
wl_futex_wake (uint32_t *addr, int n)
{
  syscall (SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

int
wl_main (int argc, char **argv, const char *experiment, const struct wl_variant *variants, size_t n)
{
  const char *names[64];
  struct wl_args a;
  struct wl_report *r;
  size_t i;

  for (i = 0; i < n && i < 63; i++)
    names[i] = variants[i].name;
  names[i] = NULL;
  wl_parse_args (argc, argv, experiment, names, &a);
  r = wl_report_new (&a);
  for (i = 0; strcmp (variants[i].name, a.variant) != 0; i++)
    ; /* wl_parse_args accepted only names from the table */
  if (variants[i].fn == NULL)
    {
      char msg[128];
      snprintf (msg, sizeof msg, "variant `%s` not built", a.variant);
      return wl_report_error (r, msg);
    }
  return variants[i].fn (&a, r);
}

long
wl_thread_stack_bytes (const struct wl_args *a, long def)
{
  long page = sysconf (_SC_PAGESIZE), min = PTHREAD_STACK_MIN;
  long s = a->stack_size ? a->stack_size : def;

  if (s < min)
    s = min;
  return (s + page - 1) / page * page;
}

double
wl_first_touch_ns (size_t pages)
{
  long page = sysconf (_SC_PAGESIZE);
  size_t len = FIRST_TOUCH_WINDOW * (size_t) page, done = 0;
  char *m = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  uint64_t total = 0;

  if (m == MAP_FAILED || pages == 0)
    return -1;
  madvise (m, len, MADV_NOHUGEPAGE); /* one fault per page, as a task's stack page takes */
  /* A small window touched, timed, then given back (MADV_DONTNEED: the next
     write faults in a fresh zeroed page again), so the process never holds
     more than the window: the calibration cannot raise the peak it sits beside. */
  while (done < pages)
    {
      size_t k = pages - done < FIRST_TOUCH_WINDOW ? pages - done : FIRST_TOUCH_WINDOW;
      uint64_t t0 = wl_now_ns ();
      for (size_t i = 0; i < k; i++)
        m[i * (size_t) page] = 1;
      total += wl_now_ns () - t0;
      madvise (m, len, MADV_DONTNEED);
      done += k;
    }
  munmap (m, len);
  return (double) total / (double) pages;
}

void
wl_report_switches (struct wl_report *r, long switches, double wall_s, const struct rusage *ru0,
                    const struct rusage *ru1)
{
  wl_report_num (r, "wall_s", wall_s);
  wl_report_int (r, "ops", switches);
  wl_report_num (r, "ops_per_s", (double) switches / wall_s);
  wl_report_num (r, "ns_per_switch", wall_s * 1e9 / (double) switches);
  wl_report_int (r, "vol_ctxsw", ru1->ru_nvcsw - ru0->ru_nvcsw);
  wl_report_int (r, "invol_ctxsw", ru1->ru_nivcsw - ru0->ru_nivcsw);
}
