/*
 * coro.c - wakeup variant `coro`: a waiter coroutine parks on an unbuffered
 * channel; a signaler coroutine sleeps WAKEUP_GAP_NS (so the waiter is
 * parked), takes t0 and sends; the waiter takes t1 when it runs again and
 * answers on a second channel.  Both are copy-stack coroutines spawned from
 * outside the runtime, which homes them on the workers in turn, so with two
 * or more workers (--threads; default one per CPU the sandbox allows, but at
 * least 2, since the point is a wake-up from another worker, which then is
 * another thread even on one CPU) the waiter is woken by another worker;
 * `cross_worker` counts the wake-ups where the waiter ran on another worker
 * thread than the signaler's send, as measured; `cpus` says how many CPUs
 * the workers had.
 */
#include "wakeup.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "coro.h"

struct cw
{
  long n;
  struct coro_chan *ch, *ack;
  uint64_t t0, *lat;
  pthread_t sig_thread;
  long cross, woken;
  struct coro_wg wg;
};

static void
waiter (void *arg)
{
  struct cw *c = arg;
  void *v;
  for (long i = 0; i < c->n; i++)
    {
      if (coro_chan_recv (c->ch, &v) < 0)
        break;
      uint64_t t1 = wl_now_ns ();
      c->lat[i] = t1 - c->t0;
      c->woken++;
      c->cross += !pthread_equal (pthread_self (), c->sig_thread);
      coro_chan_send (c->ack, NULL);
    }
  coro_wg_done (&c->wg);
}

static void
signaler (void *arg)
{
  struct cw *c = arg;
  void *v;
  for (long i = 0; i < c->n; i++)
    {
      coro_sleep_ns (WAKEUP_GAP_NS);
      c->sig_thread = pthread_self ();
      c->t0 = wl_now_ns ();
      coro_chan_send (c->ch, c);
      coro_chan_recv (c->ack, &v);
    }
  coro_wg_done (&c->wg);
}

int
wakeup_coro (const struct wl_args *a, struct wl_report *r)
{
  struct cw c = { .n = a->n, .wg = CORO_WG_INIT };
  struct coro_config cfg = { .workers = a->threads, .stack_size = (size_t) a->stack_size,
                             .backend = a->backend };
  char err[256];

  cpu_set_t cpus;
  int ncpu = sched_getaffinity (0, sizeof cpus, &cpus) == 0 ? CPU_COUNT (&cpus) : 1;
  if (cfg.workers == 0)
    cfg.workers = ncpu < 2 ? 2 : ncpu;
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  c.lat = calloc ((size_t) a->n, sizeof *c.lat);
  if (c.lat == NULL)
    return wl_report_error (r, "out of memory for the latencies");
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  c.ch = coro_chan_new (0);
  c.ack = coro_chan_new (0);
  if (!c.ch || !c.ack)
    return wl_report_error (r, "coro_chan_new failed");
  uint64_t t_start = wl_now_ns ();
  coro_wg_add (&c.wg, 2);
  if (coro_spawn_ex (waiter, &c, CORO_COPYSTACK) < 0 || coro_spawn_ex (signaler, &c, CORO_COPYSTACK) < 0)
    return wl_report_error (r, "coro_spawn failed");
  coro_wg_wait (&c.wg);
  double wall = (double) (wl_now_ns () - t_start) / 1e9;
  wl_report_str (r, "backend", coro_backend_name ());
  wl_report_int (r, "workers", coro_nworkers ());
  wl_report_int (r, "cpus", ncpu);
  coro_runtime_stop ();
  coro_chan_free (c.ch);
  coro_chan_free (c.ack);
  wl_report_num (r, "wall_s", wall);
  wl_report_int (r, "ops", a->n);
  wl_report_num (r, "ops_per_s", (double) a->n / wall);
  wl_report_int (r, "woken", c.woken);
  wl_report_int (r, "missed", a->n - c.woken);
  wl_report_int (r, "cross_worker", c.cross);
  wl_report_int (r, "gap_ns", WAKEUP_GAP_NS);
  wl_report_latencies (r, c.lat, (size_t) a->n);
  free (c.lat);
  return wl_report_ok (r);
}
