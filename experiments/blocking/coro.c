/*
 * coro.c - blocking variants `coro-blocking` and `coro-uring` (blocking.h):
 * N CPU-bound coroutines (a unit, then coro_yield) and M waiter coroutines
 * on the runtime's workers (--threads, default one per CPU).  The waiters
 * read their pipe with plain read(2) (coro-blocking: the worker thread
 * blocks in the kernel and runs nothing else meanwhile) or with coro_read
 * (coro-uring: an io_uring read; only the coroutine parks).  After each
 * message a waiter yields, as a handler that does some work would.
 */
#include "blocking.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coro.h"

struct carg
{
  struct blk *b;
  long i;
  int uring;
};

static struct coro_wg all_done = CORO_WG_INIT;

static void
cpu_coro (void *arg)
{
  struct blk *b = ((struct carg *) arg)->b;
  struct blk_gaps *g = &b->gaps[((struct carg *) arg)->i];
  uint64_t x = 1, end = wl_now_ns ();
  while (!b->stop)
    {
      uint64_t start = wl_now_ns ();
      blk_gap_add (g, start - end);
      x = blk_unit (x);
      atomic_fetch_add_explicit (&b->units, 1, memory_order_relaxed);
      end = wl_now_ns ();
      coro_yield ();
    }
  ((struct carg *) arg)->i = (long) (x & 1);
  coro_wg_done (&all_done);
}

static void
wait_coro (void *arg)
{
  struct carg *c = arg;
  int fd = c->b->pfd[c->i][0];
  for (long k = blk_share (c->b, c->i); k > 0; k--)
    {
      uint64_t written;
      ssize_t got = c->uring ? coro_read (fd, &written, sizeof written) : read (fd, &written, sizeof written);
      if (got != sizeof written)
        break;
      blk_record (c->b, written, wl_now_ns ());
      coro_yield ();
    }
  coro_wg_done (&all_done);
}

int
blocking_coro (const struct wl_args *a, struct wl_report *r)
{
  struct blk b;
  char err[256];
  pthread_t feeder;
  struct coro_config cfg = { .workers = a->threads, .stack_size = (size_t) a->stack_size,
                             .backend = a->backend };
  int uring = strcmp (a->variant, "coro-uring") == 0;

  if (blk_setup (a, &b, err, sizeof err) < 0)
    return wl_report_error (r, err);
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  long nt = b.cpu_tasks + b.waiters;
  struct carg *ca = calloc ((size_t) nt, sizeof *ca);
  if (!ca)
    return wl_report_error (r, "out of memory");
  coro_wg_add (&all_done, nt);
  for (long i = 0; i < nt; i++)
    {
      ca[i] = (struct carg){ &b, i < b.cpu_tasks ? i : i - b.cpu_tasks, uring };
      if (coro_spawn (i < b.cpu_tasks ? cpu_coro : wait_coro, &ca[i]) < 0)
        return wl_report_error (r, "coro_spawn failed");
    }
  if (pthread_create (&feeder, NULL, blk_feeder, &b) != 0)
    return wl_report_error (r, "pthread_create (feeder) failed");
  pthread_join (feeder, NULL);
  coro_wg_wait (&all_done);
  wl_report_str (r, "backend", uring ? coro_backend_name () : "none (plain read)");
  wl_report_int (r, "workers", coro_nworkers ());
  coro_runtime_stop ();
  free (ca);
  return blk_report (a, &b, r);
}
