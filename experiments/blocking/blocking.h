/*
 * blocking.h - the blocking experiment (claim C4): N CPU-bound tasks share
 * the CPUs with M tasks that each wait on their own pipe; a feeder thread
 * writes one 8-byte timestamp at a time into the pipes in turn at a fixed
 * rate (--opt rate, per second, all pipes together) until n messages are
 * written.  A waiter's scheduling delay is from the write (the moment it
 * becomes ready) to the moment it runs with the message in hand (lat_*).
 * The CPU-bound tasks count work units (a few us each) as their progress,
 * and time the gap between the end of one unit and the start of the next:
 * the time they were ready but not running (a coroutine between its yield
 * and its return, a thread while preempted), in a histogram (cpu_gap_*).
 *
 * Variants: `pthread` (N + M threads, the kernel schedules), `coro-blocking`
 * (coroutines; the waiters call plain read(2), which blocks the whole worker
 * thread), `coro-uring` (coroutines; coro_read parks only the waiter, the
 * runtime's io_uring path).  Coroutine waiters coro_yield after each message
 * (their "handling"), CPU-bound coroutines after each unit.  Options:
 * cpu_tasks=N (0..4096, default 2), waiters=M (1..4096, default 4),
 * rate=R (1..1000000, default 2000).
 */
#ifndef LAB_BLOCKING_H
#define LAB_BLOCKING_H

#include <stdatomic.h>
#include <stdint.h>

#include "wl.h"

/* Gap histogram: 4 bins per power of two (upper edges within 25%). */
enum { BLK_BINS = 64 * 4 };
struct blk_gaps
{
  uint64_t bin[BLK_BINS];
  uint64_t count, max;
};
void blk_gap_add (struct blk_gaps *g, uint64_t ns);

struct blk
{
  long n, cpu_tasks, waiters, rate;
  int (*pfd)[2];        /* one pipe per waiter */
  uint64_t *delay;      /* n samples, filled by the waiters */
  _Atomic long next;    /* next free slot of delay[] */
  _Atomic int stop;     /* set when every message was handled */
  _Atomic long units;   /* CPU-bound work done */
  uint64_t t_first, t_last; /* feeder's first write, last sample */
  long late_writes;     /* feeder writes more than 1 ms behind schedule */
  struct blk_gaps *gaps; /* one per CPU-bound task */
};

/* What every variant shares (feed.c). */
int blk_setup (const struct wl_args *a, struct blk *b, char *err, size_t len);
/* The feeder thread: n writes at the rate, then returns. */
void *blk_feeder (void *arg);
/* Messages waiter `i` will receive. */
long blk_share (const struct blk *b, long i);
/* One work unit (~10 us of arithmetic); returns a value to keep it live. */
uint64_t blk_unit (uint64_t x);
/* Takes the message off `v`, records its delay. */
void blk_record (struct blk *b, uint64_t written, uint64_t now);
/* Report: delays (lat_*), progress, wall. */
int blk_report (const struct wl_args *a, struct blk *b, struct wl_report *r);

int blocking_pthread (const struct wl_args *a, struct wl_report *r);
int blocking_coro (const struct wl_args *a, struct wl_report *r);

#endif
