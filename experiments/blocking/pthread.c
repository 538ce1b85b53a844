/*
 * pthread.c - blocking variant `pthread` (blocking.h): N threads run work
 * units until told to stop, M threads block in read(2) on their pipes; the
 * kernel schedules them all.
 */
#include "blocking.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct targ
{
  struct blk *b;
  long i;
};

static void *
cpu_thread (void *arg)
{
  struct blk *b = ((struct targ *) arg)->b;
  struct blk_gaps *g = &b->gaps[((struct targ *) arg)->i];
  uint64_t x = 1, end = wl_now_ns ();
  while (!b->stop)
    {
      uint64_t start = wl_now_ns ();
      blk_gap_add (g, start - end);
      x = blk_unit (x);
      end = wl_now_ns ();
      atomic_fetch_add_explicit (&b->units, 1, memory_order_relaxed);
    }
  return (void *) (uintptr_t) (x & 1);
}

static void *
wait_thread (void *arg)
{
  struct targ *t = arg;
  for (long k = blk_share (t->b, t->i); k > 0; k--)
    {
      uint64_t written;
      if (read (t->b->pfd[t->i][0], &written, sizeof written) != sizeof written)
        break;
      blk_record (t->b, written, wl_now_ns ());
    }
  return NULL;
}

int
blocking_pthread (const struct wl_args *a, struct wl_report *r)
{
  struct blk b;
  char err[256];
  pthread_t feeder;

  if (blk_setup (a, &b, err, sizeof err) < 0)
    return wl_report_error (r, err);
  long nt = b.cpu_tasks + b.waiters;
  pthread_t *th = calloc ((size_t) nt, sizeof *th);
  struct targ *ta = calloc ((size_t) nt, sizeof *ta);
  if (!th || !ta)
    return wl_report_error (r, "out of memory");
  for (long i = 0; i < nt; i++)
    {
      ta[i] = (struct targ){ &b, i < b.cpu_tasks ? i : i - b.cpu_tasks };
      if (pthread_create (&th[i], NULL, i < b.cpu_tasks ? cpu_thread : wait_thread, &ta[i]) != 0)
        return wl_report_error (r, "pthread_create failed");
    }
  if (pthread_create (&feeder, NULL, blk_feeder, &b) != 0)
    return wl_report_error (r, "pthread_create (feeder) failed");
  pthread_join (feeder, NULL);
  for (long i = 0; i < nt; i++)
    pthread_join (th[i], NULL);
  free (th);
  free (ta);
  return blk_report (a, &b, r);
}
