/*
 * coro.c - udp variant `coro-uring`: `batch` coroutines share the sending;
 * each sends its part with coro_send on the same connected, non-blocking
 * socket, so a worker's ring collects up to `batch` SEND entries between two
 * submits (the runtime submits when it passes through its loop).  A -EAGAIN
 * completion is counted and the coroutine waits with coro_poll(POLLOUT).
 * System calls: the runtime's own count (coro_stats.backend_syscalls: every
 * io_uring_enter and eventfd wake-up), taken before and after the phase.
 */
#include "udp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coro.h"

struct sender
{
  int fd;
  long size, seq0, count;
  long attempts, eagain, polls;
  int err;
  struct coro_wg *wg;
};

static void
sender_main (void *arg)
{
  struct sender *s = arg;
  char *buf = calloc (1, (size_t) s->size);

  for (long i = 0; buf && i < s->count;)
    {
      udp_fill (buf, s->size, s->seq0 + i);
      s->attempts++;
      ssize_t r = coro_send (s->fd, buf, (size_t) s->size, 0);
      int e = errno;
      if (r == s->size)
        i++;
      else if (r < 0 && e == EAGAIN)
        s->eagain++, s->polls++, coro_poll (s->fd, POLLOUT);
      else
        {
          s->err = r < 0 ? e : EMSGSIZE;
          break;
        }
    }
  if (buf == NULL)
    s->err = ENOMEM;
  free (buf);
  coro_wg_done (s->wg);
}

int
udp_coro_start (const struct wl_args *a, char *err, size_t len)
{
  /* writes_via_ring: every coro_send an SQE, so a submit carries a batch */
  struct coro_config cfg = { .workers = a->threads, .stack_size = (size_t) a->stack_size, .writes_via_ring = true,
                             .backend = a->backend };
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  return coro_runtime_start (&cfg, err, len);
}

static uint64_t
backend_syscalls (void)
{
  struct coro_stats st;
  coro_stats (&st);
  return st.backend_syscalls;
}

int
udp_send_coro (int fd, const struct udp_opts *o, long batch, long seq0, long count,
               struct udp_counts *c, char *err, size_t len)
{
  struct coro_wg wg = CORO_WG_INIT;
  struct sender *s = calloc ((size_t) batch, sizeof *s);
  long next = 0;
  int rc = 0;

  if (s == NULL)
    return snprintf (err, len, "out of memory"), -1;
  uint64_t sys0 = backend_syscalls ();
  for (long i = 0; i < batch; i++)
    {
      long part = count / batch + (i < count % batch);
      s[i] = (struct sender){ .fd = fd, .size = o->size, .seq0 = seq0 + next, .count = part, .wg = &wg };
      next += part;
      coro_wg_add (&wg, 1);
      if (coro_spawn (sender_main, &s[i]) < 0)
        {
          coro_wg_done (&wg);
          snprintf (err, len, "coro_spawn: %s", strerror (errno));
          rc = -1;
          break;
        }
    }
  coro_wg_wait (&wg);
  c->syscalls += (long) (backend_syscalls () - sys0);
  for (long i = 0; i < batch; i++)
    {
      c->attempts += s[i].attempts;
      c->eagain += s[i].eagain;
      if (s[i].err && rc == 0)
        {
          snprintf (err, len, "coro_send: %s", strerror (s[i].err));
          rc = -1;
        }
    }
  free (s);
  return rc;
}

void
udp_coro_stop (struct wl_report *r)
{
  wl_report_str (r, "backend", coro_backend_name ());
  wl_report_int (r, "workers", coro_nworkers ());
  coro_runtime_stop ();
}
