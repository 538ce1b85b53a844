/*
 * common.c - the pressure experiment's phases and figures, shared by the
 * variants (see pressure.h).  Host swap used is SwapTotal - SwapFree from
 * /proc/meminfo (host-wide: the same figure /proc/swaps sums), read from
 * inside the sandbox, where /proc/meminfo is the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pressure.h"

#define PAGE 4096

static uint32_t
word_of (uint32_t seed, size_t page)
{
  return (seed * 2654435761u) ^ (uint32_t) (page * 40503u) ^ 0x5a5a5a5au;
}

void
pressure_touch (char *buf, size_t bytes, uint32_t seed)
{
  for (size_t off = 0; off + sizeof (uint32_t) <= bytes; off += PAGE)
    *(volatile uint32_t *) (buf + off) = word_of (seed, off / PAGE);
}

long
pressure_check (char *buf, size_t bytes, uint32_t seed)
{
  long bad = 0;
  for (size_t off = 0; off + sizeof (uint32_t) <= bytes; off += PAGE)
    {
      volatile uint32_t *w = (volatile uint32_t *) (buf + off);
      uint32_t want = word_of (seed, off / PAGE);
      bad += *w != want;
      *w = want;
    }
  return bad;
}

long
pressure_kib (const struct wl_args *a)
{
  long k = wl_opt_long (a, "kib", PRESSURE_DEFAULT_KIB);
  if (k < 4 || k > 64 * 1024)
    {
      fprintf (stderr, "wl-pressure: option `--opt kib=%ld`: must be 4..65536 (KiB per task)\n", k);
      exit (2);
    }
  return k;
}

static long
majflt (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_majflt;
}

static int64_t
host_swap_used (void)
{
  char line[256];
  long long total = -1, free_ = -1, v;
  FILE *f = fopen ("/proc/meminfo", "re");
  while (f && fgets (line, sizeof line, f))
    {
      if (sscanf (line, "SwapTotal: %lld kB", &v) == 1)
        total = v;
      else if (sscanf (line, "SwapFree: %lld kB", &v) == 1)
        free_ = v;
    }
  if (f)
    fclose (f);
  return total >= 0 && free_ >= 0 ? (total - free_) * 1024 : -1;
}

void
pressure_begin (struct pressure_run *p, const struct wl_args *a)
{
  memset (p, 0, sizeof *p);
  p->n = a->n;
  p->kib = pressure_kib (a);
  p->lat = calloc ((size_t) a->n, sizeof *p->lat);
  p->majflt0 = majflt ();
  p->host_swap0 = host_swap_used ();
  p->t0 = wl_now_ns ();
}

void
pressure_parked (struct pressure_run *p, const struct wl_args *a)
{
  double hold = a->duration_s > 0 ? a->duration_s : 1.0;
  struct timespec ts = { (time_t) hold, (long) ((hold - (double) (time_t) hold) * 1e9) };
  p->t_parked = wl_now_ns ();
  p->majflt_parked = majflt ();
  p->host_swap_parked = host_swap_used ();
  p->vmswap_parked = wl_proc_status_kb ("VmSwap") * 1024;
  p->rss_parked = wl_proc_status_kb ("VmRSS") * 1024;
  p->vss_parked = wl_proc_status_kb ("VmSize") * 1024;
  fprintf (stderr, "pressure: %ld tasks x %ld KiB parked: VmRSS %lld MiB, VmSwap %lld MiB, host swap used %lld MiB "
           "(was %lld MiB)\n", p->n, p->kib, (long long) (p->rss_parked >> 20), (long long) (p->vmswap_parked >> 20),
           (long long) (p->host_swap_parked >> 20), (long long) (p->host_swap0 >> 20));
  printf ("%s\n", PRESSURE_PARKED_LINE);
  fflush (stdout);
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

void
pressure_woken (struct pressure_run *p)
{
  p->majflt_woken = majflt ();
  p->host_swap_woken = host_swap_used ();
}

void
pressure_report (struct pressure_run *p, struct wl_report *r, long done, long corrupt)
{
  wl_report_int (r, "kib_per_task", p->kib);
  wl_report_int (r, "working_set_bytes", (int64_t) p->n * p->kib * 1024);
  wl_report_int (r, "done", done);
  wl_report_int (r, "ops", done);
  wl_report_num (r, "spawn_s", (double) (p->t_parked - p->t0) / 1e9);
  wl_report_num (r, "wall_s", (double) (wl_now_ns () - p->t0) / 1e9);
  wl_report_int (r, "vmswap_parked_bytes", p->vmswap_parked);
  wl_report_int (r, "rss_parked_bytes", p->rss_parked);
  wl_report_int (r, "vss_parked_bytes", p->vss_parked);
  wl_report_int (r, "host_swap_used_before_bytes", p->host_swap0);
  wl_report_int (r, "host_swap_used_parked_bytes", p->host_swap_parked);
  wl_report_int (r, "host_swap_used_woken_bytes", p->host_swap_woken);
  wl_report_int (r, "majflt_pressure", p->majflt_parked - p->majflt0);
  wl_report_int (r, "majflt_wake", p->majflt_woken - p->majflt_parked);
  wl_report_int (r, "corrupt_pages", corrupt);
  /* lat_* (summary.csv): the wake round trip per task, phase 3. */
  wl_report_latencies (r, p->lat, (size_t) done);
  free (p->lat);
}
