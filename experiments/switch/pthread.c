/*
 * pthread.c - switch, variant `pthread`: two threads hand a turn back and
 * forth through a futex, `n` round trips (2n switches).
 *
 * Protocol on one 32-bit word `turn` (0 = ping's turn, 1 = pong's):
 *   1. wait: while turn != me, FUTEX_WAIT(&turn, other) (sleeps only if the
 *      word still says `other`, so a hand-over between the check and the
 *      wait is never lost);
 *   2. hand over: turn = other, then FUTEX_WAKE(&turn, 1).
 * Ping runs n hand-overs and then waits for the last one back; pong runs n.
 *
 * Placement (--opt pin=MODE): `same` (default) pins both threads to one CPU,
 * so each hand-over is a real context switch on that CPU; `split` pins them to
 * two CPUs (a cross-CPU wake-up, no switch between them); `none` leaves it to
 * the scheduler.  Figures: ops = 2n switches, ops_per_s, ns_per_switch (wall
 * time / switches), vol_ctxsw/invol_ctxsw from getrusage(RUSAGE_SELF) deltas.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "switch.h"
#include "wl.h"

struct pingpong
{
  _Atomic uint32_t turn;
  long n;
  int cpu; /* -1: not pinned */
  pthread_barrier_t start;
  uint64_t t0, t1;
};

struct side
{
  struct pingpong *pp;
  uint32_t me;
  int cpu;
};

static void
await_turn (struct pingpong *pp, uint32_t me)
{
  uint32_t t;

  while ((t = atomic_load_explicit (&pp->turn, memory_order_acquire)) != me)
    wl_futex_wait ((uint32_t *) &pp->turn, t);
}

static void
hand_over (struct pingpong *pp, uint32_t other)
{
  atomic_store_explicit (&pp->turn, other, memory_order_release);
  wl_futex_wake ((uint32_t *) &pp->turn, 1);
}

static int
pin (int cpu)
{
  cpu_set_t set;

  if (cpu < 0)
    return 0;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return pthread_setaffinity_np (pthread_self (), sizeof set, &set);
}

static void *
run_side (void *arg)
{
  struct side *s = arg;
  struct pingpong *pp = s->pp;

  pin (s->cpu);
  pthread_barrier_wait (&pp->start);
  if (s->me == 0)
    {
      wl_region_begin ();
      pp->t0 = wl_now_ns ();
    }
  for (long i = 0; i < pp->n; i++)
    {
      await_turn (pp, s->me);
      hand_over (pp, !s->me);
    }
  if (s->me == 0)
    {
      await_turn (pp, 0);
      pp->t1 = wl_now_ns ();
      wl_region_end ();
    }
  return NULL;
}

/* The first two CPUs we may run on, or -1. */
static void
pick_cpus (int *c0, int *c1)
{
  cpu_set_t set;
  int found = 0;

  *c0 = *c1 = -1;
  if (sched_getaffinity (0, sizeof set, &set) != 0)
    return;
  for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
    if (CPU_ISSET (c, &set))
      *(found++ ? c1 : c0) = c;
}

int
switch_pthread (const struct wl_args *a, struct wl_report *r)
{
  const char *mode = wl_opt (a, "pin", "same");
  struct pingpong pp = { .n = a->n };
  struct side sides[2] = { { &pp, 0, -1 }, { &pp, 1, -1 } };
  struct rusage ru0, ru1;
  pthread_t tid[2];
  int c0, c1;
  double wall;

  pick_cpus (&c0, &c1);
  if (strcmp (mode, "same") == 0)
    sides[0].cpu = sides[1].cpu = c0;
  else if (strcmp (mode, "split") == 0)
    {
      if (c1 < 0)
        return wl_report_error (r, "`--opt pin=split` needs two CPUs, one is allowed");
      sides[0].cpu = c0, sides[1].cpu = c1;
    }
  else if (strcmp (mode, "none") != 0)
    return wl_report_error (r, "option `--opt pin`: expected `same`, `split` or `none`");
  pthread_barrier_init (&pp.start, NULL, 2);
  getrusage (RUSAGE_SELF, &ru0);
  for (int i = 0; i < 2; i++)
    if (pthread_create (&tid[i], NULL, run_side, &sides[i]))
      return wl_report_error (r, "creating the ping-pong threads failed");
  for (int i = 0; i < 2; i++)
    pthread_join (tid[i], NULL);
  getrusage (RUSAGE_SELF, &ru1);
  pthread_barrier_destroy (&pp.start);

  wall = (double) (pp.t1 - pp.t0) / 1e9;
  wl_report_str (r, "pin", mode);
  wl_report_switches (r, 2 * a->n, wall, &ru0, &ru1);
  return wl_report_ok (r);
}
