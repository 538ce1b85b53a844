/*
 * feed.c - what the blocking variants share (blocking.h): options, pipes,
 * the feeder thread, the samples and the report.
 */
#include "blocking.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long
opt_range (const struct wl_args *a, const char *key, long def, long lo, long hi)
{
  long v = wl_opt_long (a, key, def);
  if (v < lo || v > hi)
    {
      fprintf (stderr, "wl-blocking: option `--opt %s`: %ld is out of range %ld..%ld\n", key, v, lo, hi);
      exit (2);
    }
  return v;
}

int
blk_setup (const struct wl_args *a, struct blk *b, char *err, size_t len)
{
  memset (b, 0, sizeof *b);
  b->n = a->n;
  b->cpu_tasks = opt_range (a, "cpu_tasks", 2, 0, 4096);
  b->waiters = opt_range (a, "waiters", 4, 1, 4096);
  b->rate = opt_range (a, "rate", 2000, 1, 1000000);
  b->pfd = calloc ((size_t) b->waiters, sizeof *b->pfd);
  b->delay = calloc ((size_t) b->n, sizeof *b->delay);
  b->gaps = calloc ((size_t) (b->cpu_tasks ? b->cpu_tasks : 1), sizeof *b->gaps);
  if (!b->pfd || !b->delay || !b->gaps)
    return snprintf (err, len, "out of memory"), -1;
  for (long i = 0; i < b->waiters; i++)
    if (pipe2 (b->pfd[i], O_CLOEXEC) < 0)
      return snprintf (err, len, "pipe2 (waiter %ld): %s", i, strerror (errno)), -1;
  return 0;
}

long
blk_share (const struct blk *b, long i)
{
  return b->n / b->waiters + (i < b->n % b->waiters);
}

/* Writes message k at t_first + k / rate, to pipe k % waiters. */
void *
blk_feeder (void *arg)
{
  struct blk *b = arg;
  uint64_t start = wl_now_ns () + 1000000; /* 1 ms for the tasks to settle */

  for (long k = 0; k < b->n; k++)
    {
      uint64_t due = start + (uint64_t) ((double) k * 1e9 / (double) b->rate);
      struct timespec ts = { (time_t) (due / 1000000000u), (long) (due % 1000000000u) };
      while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
      uint64_t now = wl_now_ns ();
      if (k == 0)
        b->t_first = now;
      b->late_writes += now > due + 1000000;
      if (write (b->pfd[k % b->waiters][1], &now, sizeof now) != sizeof now)
        break; /* not reached with 8-byte writes into a pipe that is read */
    }
  return NULL;
}

uint64_t
blk_unit (uint64_t x)
{
  for (int i = 0; i < 4000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      __asm__ volatile ("" : "+r"(x)); /* keeps every step: no closed form, no removal */
    }
  return x;
}

void
blk_record (struct blk *b, uint64_t written, uint64_t now)
{
  long slot = atomic_fetch_add (&b->next, 1);
  if (slot < b->n)
    b->delay[slot] = now - written;
  if (slot == b->n - 1)
    {
      b->t_last = now;
      b->stop = 1;
    }
}

static unsigned
gap_bin (uint64_t ns)
{
  if (ns < 4)
    return (unsigned) ns;
  unsigned k = 63u - (unsigned) __builtin_clzll (ns);
  return k * 4 + (unsigned) ((ns >> (k - 2)) & 3);
}

/* Upper edge of a bin: the largest value that falls into it. */
static uint64_t
gap_edge (unsigned bin)
{
  if (bin < 4)
    return bin;
  unsigned k = bin / 4, sub = bin % 4;
  return (((uint64_t) (4 + sub + 1)) << (k - 2)) - 1;
}

void
blk_gap_add (struct blk_gaps *g, uint64_t ns)
{
  g->bin[gap_bin (ns)]++;
  g->count++;
  if (ns > g->max)
    g->max = ns;
}

static uint64_t
gap_pct (const struct blk_gaps *g, unsigned permille)
{
  uint64_t want = (g->count * permille + 999) / 1000, seen = 0;
  for (unsigned i = 0; i < BLK_BINS; i++)
    if ((seen += g->bin[i]) >= want && want > 0)
      return gap_edge (i) < g->max ? gap_edge (i) : g->max;
  return g->max;
}

static void
report_gaps (struct blk *b, struct wl_report *r)
{
  struct blk_gaps all = { { 0 }, 0, 0 };
  for (long t = 0; t < b->cpu_tasks; t++)
    {
      for (unsigned i = 0; i < BLK_BINS; i++)
        all.bin[i] += b->gaps[t].bin[i];
      all.count += b->gaps[t].count;
      all.max = b->gaps[t].max > all.max ? b->gaps[t].max : all.max;
    }
  wl_report_int (r, "cpu_gap_samples", (int64_t) all.count);
  if (all.count == 0)
    return;
  wl_report_int (r, "cpu_gap_p50_ns", (int64_t) gap_pct (&all, 500));
  wl_report_int (r, "cpu_gap_p99_ns", (int64_t) gap_pct (&all, 990));
  wl_report_int (r, "cpu_gap_max_ns", (int64_t) all.max);
}

int
blk_report (const struct wl_args *a, struct blk *b, struct wl_report *r)
{
  double window = (double) (b->t_last - b->t_first) / 1e9;
  /* the unit's cost, measured alone now: how much CPU the progress stands for */
  uint64_t t0 = wl_now_ns (), x = blk_unit (1);
  for (int i = 0; i < 99; i++)
    x = blk_unit (x);
  double unit_ns = (double) (wl_now_ns () - t0) / 100;
  __asm__ volatile ("" : : "r"(x));

  wl_report_num (r, "wall_s", window);
  wl_report_int (r, "ops", b->n);
  wl_report_num (r, "ops_per_s", (double) b->n / window);
  wl_report_int (r, "cpu_tasks", b->cpu_tasks);
  wl_report_int (r, "waiters", b->waiters);
  wl_report_int (r, "rate", b->rate);
  wl_report_int (r, "cpu_units", b->units);
  wl_report_num (r, "cpu_units_per_s", (double) b->units / window);
  wl_report_num (r, "unit_ns", unit_ns);
  /* CPU-seconds of work units per wall second: 2.0 = two CPUs busy with them */
  wl_report_num (r, "cpu_progress", (double) b->units * unit_ns / 1e9 / window);
  wl_report_int (r, "late_writes", b->late_writes);
  report_gaps (b, r);
  wl_report_latencies (r, b->delay, (size_t) b->n);
  return wl_report_ok (r);
}
