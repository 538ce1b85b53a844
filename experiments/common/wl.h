/*
 * wl.h - the workload side of the harness protocol.
 *
 * A workload binary `build/bin/wl-<experiment>` is exec'd by the harness inside
 * a sandbox as:  wl-<experiment> --variant V --n N [--stack SIZE] [--threads T]
 *                [--duration S] [--backend io_uring|epoll] [--opt KEY=VALUE]...
 * It does the work, then prints exactly one report line on stdout:
 *   @lab-report {"status":"ok","wall_s":1.23,"ops":1000,...}
 * Keys the harness puts into summary.csv: wall_s (the measured region), ops,
 * ops_per_s, lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns, region_cpu_user_s,
 * region_cpu_sys_s, region_vol_ctxsw, region_invol_ctxsw (wl_region_begin/end),
 * vm_hwm_bytes, vm_peak_bytes (added to every report), rss_baseline_bytes,
 * cgroup_baseline_bytes (wl_report_baseline), start_lat_p50_ns, start_lat_p99_ns.  Every other key lands in the point's
 * JSON under "workload".  A workload stopped by a host limit reports
 * status "limit" with "limit" naming it (pid_max, threads-max, max_map_count,
 * RLIMIT_NPROC, memory) and "detail", and exits 0: a limit is data, not a crash.
 * Figures must be measured in this run; never print a constant as a result.
 */
#ifndef LAB_WL_H
#define LAB_WL_H

#include <stddef.h>
#include <stdint.h>

#define WL_MAX_OPTS 16

struct wl_args
{
  const char *experiment; /* set by the caller of wl_parse_args */
  const char *variant;
  long n;                 /* tasks / connections / iterations: the scale */
  long stack_size;        /* bytes; 0 = variant default */
  int threads;            /* worker threads for M:N runtimes; 0 = one per CPU */
  double duration_s;      /* for time-bounded workloads; 0 = workload default */
  const char *backend;    /* coroutine I/O backend: "io_uring" (default) or "epoll" */
  int n_opts;
  const char *opt_key[WL_MAX_OPTS], *opt_val[WL_MAX_OPTS];
};

/* Parses the common flags; on bad use prints a message and exits 2. */
void wl_parse_args (int argc, char **argv, const char *experiment,
                    const char *const *variants, struct wl_args *a);
/* Value of --opt KEY=VALUE, or `def`. */
const char *wl_opt (const struct wl_args *a, const char *key, const char *def);
long wl_opt_long (const struct wl_args *a, const char *key, long def);

/* Report builder: collect key/values, then emit once. */
struct wl_report;
struct wl_report *wl_report_new (const struct wl_args *a);
void wl_report_num (struct wl_report *r, const char *key, double v);
void wl_report_int (struct wl_report *r, const char *key, int64_t v);
void wl_report_str (struct wl_report *r, const char *key, const char *v);
/* Adds a json-c value (object or array) under `key`; the report takes it. */
struct json_object;
void wl_report_json (struct wl_report *r, const char *key, struct json_object *v);
/* Sorts `ns` in place and reports lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns,
   lat_mean_ns and lat_samples. */
void wl_report_latencies (struct wl_report *r, uint64_t *ns, size_t n);
/* The same percentiles of another kind of latency: PREFIX_p50_ns ... PREFIX_samples. */
void wl_report_latencies_as (struct wl_report *r, const char *prefix, uint64_t *ns, size_t n);

/* The measured region: the window a workload's wall_s covers.  Between
   begin and end, getrusage(RUSAGE_SELF) deltas are taken; the report then
   carries region_wall_s, region_cpu_user_s, region_cpu_sys_s,
   region_vol_ctxsw, region_invol_ctxsw (what summary.csv's cpu_user_s,
   cpu_sys_s, vol_ctxsw, invol_ctxsw show).  Every report also carries
   vm_hwm_bytes and vm_peak_bytes: the process's own VmHWM/VmPeak at report
   time (since exec; VmHWM raised to the largest VmRSS wl_proc_status_kb
   read, as MADV_DONTNEED does not update it), which summary.csv's
   rss_peak_bytes/vss_peak_bytes take. */
void wl_region_begin (void);
double wl_region_end (void); /* seconds since wl_region_begin */
struct rusage;
struct wl_region_figures
{
  double cpu_user_s, cpu_sys_s;
  long vol_ctxsw, invol_ctxsw;
};
/* The arithmetic: ru1 - ru0 (exposed for the unit tests). */
void wl_region_deltas (const struct rusage *ru0, const struct rusage *ru1, struct wl_region_figures *f);
/* The baseline before the tasks: rss_baseline_bytes (VmRSS now) and, where the
   workload can read its own cgroup, cgroup_baseline_bytes.  The harness
   subtracts them for the per-task figures. */
void wl_report_baseline (struct wl_report *r);

/* Prints the report line with status "ok" and frees r.  Returns 0 (the exit code). */
int wl_report_ok (struct wl_report *r);
/* Status "limit": names the limit hit after `done` tasks; exits 0. */
int wl_report_limit (struct wl_report *r, const char *limit, const char *detail);
/* Status "error": the workload itself failed (exit 1). */
int wl_report_error (struct wl_report *r, const char *detail);

/* Which host limit most likely made a thread/mmap/fork fail with `err` (errno)
   after `count` live tasks: "threads-max", "pid_max", "max_map_count",
   "RLIMIT_NPROC", "pids.max" or "memory".  Reads /proc/sys and rlimits. */
const char *wl_which_limit (int err, long count, char *detail, size_t len);

/* A workload binary's variants: main() is `return wl_main (argc, argv, "spawn",
   variants, n)`.  It parses the flags, runs the named variant, and reports
   "variant `X` not built" for a NULL fn (coroutine variants are declared weak). */
struct wl_variant
{
  const char *name;
  int (*fn) (const struct wl_args *a, struct wl_report *r);
};
int wl_main (int argc, char **argv, const char *experiment, const struct wl_variant *variants, size_t n);

/* Thread stack size for a pthread variant: --stack, else `def`; at least
   PTHREAD_STACK_MIN, rounded up to whole pages. */
long wl_thread_stack_bytes (const struct wl_args *a, long def);

/* Mean cost in ns of the first write to a fresh anonymous page, measured now
   over `pages` faults in a 16-page window given back after each pass
   (MADV_DONTNEED), so it adds at most 64 KiB to the process's peak; -1 on
   failure.  A parked task with its own stack touches at least one such page,
   so this is the floor under its spawn cost on this machine.  Call it before
   wl_report_baseline. */
double wl_first_touch_ns (size_t pages);

/* The switch experiment's figures: wall_s, ops (= switches), ops_per_s,
   ns_per_switch, and vol/invol context switches between two getrusage calls. */
void wl_report_switches (struct wl_report *r, long switches, double wall_s, const struct rusage *ru0,
                         const struct rusage *ru1);

/* A server workload is ready for its companion (the harness's load
   generator, harness/companion.h): prints `@lab-ready {json}` on stdout and
   flushes.  The JSON (printf-formatted) says where to connect, e.g.
   {"port":8080}; the harness substitutes "{port}" in the companion's
   command with it. */
void wl_ready (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Monotonic ns. */
uint64_t wl_now_ns (void);

/* ---- Additions (workload engineer): helpers the variants share. ---- */

/* A field of /proc/self/status in kB (e.g. "VmRSS", "VmSize", "VmPTE",
   "Threads" as a plain number), or -1 if absent. */
long wl_proc_status_kb (const char *key);

/* Private futex on a 32-bit word: wait while *addr == val (returns on wake,
   on a changed value, or on a signal); wake up to `n` waiters. */
void wl_futex_wait (uint32_t *addr, uint32_t val);
void wl_futex_wake (uint32_t *addr, int n);

/* The figures wl_which_limit decides from; -1 = unknown or unlimited. */
struct wl_limit_facts
{
  long host_tasks;      /* threads on the host (/proc/loadavg 4th field) */
  long threads_max;     /* kernel.threads-max */
  long pid_max;         /* kernel.pid_max */
  long nproc_used;      /* threads owned by our real uid */
  long nproc_limit;     /* RLIMIT_NPROC soft limit, -1 = unlimited */
  int nproc_enforced;   /* 0 for root / CAP_SYS_RESOURCE / CAP_SYS_ADMIN */
  long pids_current;    /* pids cgroup: pids.current */
  long pids_max;        /* pids cgroup: pids.max, -1 = max */
  long map_count;       /* lines in /proc/self/maps */
  long max_map_count;   /* vm.max_map_count */
};
/* Reads the facts from /proc, /sys/fs/cgroup and getrlimit. */
void wl_limit_facts_read (struct wl_limit_facts *f);
/* The pure decision behind wl_which_limit: which limit the facts are at, with
   `count` live tasks after `err`; writes the numbers into detail. */
const char *wl_limit_decide (const struct wl_limit_facts *f, int err, long count,
                             char *detail, size_t len);

#endif
