/*
 * io-uring.c - I/O backend: one io_uring per worker (liburing 2.3).
 *
 * An operation becomes one SQE whose user_data is the parked coroutine; the
 * worker submits SQEs in batches when it passes through its loop, and each
 * CQE readies its coroutine with the result in c->io_res.  Waking an idle
 * worker: a READ on the worker's eventfd is kept armed; coro_backend_wake()
 * writes the eventfd, which completes it.  Timers: the nearest deadline is
 * the timeout of io_uring_submit_and_wait_timeout (IORING_ENTER_EXT_ARG on
 * this kernel, so no timeout SQE at all).
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "coro-internal.h"

enum { RING_ENTRIES = 256, CQ_ENTRIES = 4096 };
#define TAG_EVENTFD 1ULL

struct uring
{
  struct io_uring ring;
  uint64_t efd_buf;
  bool efd_armed;
};

static int
uring_init (struct coro_worker *w)
{
  struct uring *u = calloc (1, sizeof *u);
  if (!u)
    return -ENOMEM;
  struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE, .cq_entries = CQ_ENTRIES };
  int r = io_uring_queue_init_params (RING_ENTRIES, &u->ring, &p);
  if (r < 0)
    {
      free (u);
      return r;
    }
  w->efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (w->efd < 0)
    {
      r = -errno;
      io_uring_queue_exit (&u->ring);
      free (u);
      return r;
    }
  w->be = u;
  return 0;
}

static void
uring_fini (struct coro_worker *w)
{
  struct uring *u = w->be;
  if (!u)
    return;
  io_uring_queue_exit (&u->ring);
  free (u);
  w->be = NULL;
  close (w->efd);
  w->efd = -1;
}

static struct io_uring_sqe *
get_sqe (struct coro_worker *w)
{
  struct uring *u = w->be;
  struct io_uring_sqe *sqe;
  while (!(sqe = io_uring_get_sqe (&u->ring)))
    {
      coro_count_syscall (w);
      io_uring_submit (&u->ring);
    }
  return sqe;
}

static const char *
prep (struct io_uring_sqe *sqe, const struct coro_io_req *q)
{
  switch (q->op)
    {
    case CIO_READ:
      io_uring_prep_read (sqe, q->fd, q->buf, (unsigned) q->len, (uint64_t) -1);
      return "read";
    case CIO_WRITE:
      io_uring_prep_write (sqe, q->fd, q->buf, (unsigned) q->len, (uint64_t) -1);
      return "write";
    case CIO_RECV:
      io_uring_prep_recv (sqe, q->fd, q->buf, q->len, q->flags);
      return "recv";
    case CIO_SEND:
      io_uring_prep_send (sqe, q->fd, q->buf, q->len, q->flags);
      return "send";
    case CIO_ACCEPT:
      io_uring_prep_accept (sqe, q->fd, q->out_addr, q->out_len, q->flags);
      return "accept";
    case CIO_CONNECT:
      io_uring_prep_connect (sqe, q->fd, q->addr, q->addrlen);
      return "connect";
    case CIO_POLL:
      io_uring_prep_poll_add (sqe, q->fd, (unsigned) q->flags);
      return "poll";
    }
  return "?";
}

static long
uring_op (struct coro_worker *w, struct coro *self, const struct coro_io_req *q)
{
  struct io_uring_sqe *sqe = get_sqe (w);
  const char *reason = prep (sqe, q);
  io_uring_sqe_set_data64 (sqe, (uint64_t) (uintptr_t) self);
  coro_park (self, NULL, reason); /* submitted by the worker loop */
  return self->io_res;
}

static void
uring_poll (struct coro_worker *w, int64_t timeout_ns)
{
  struct uring *u = w->be;
  if (timeout_ns != 0)
    {
      if (!u->efd_armed)
        {
          struct io_uring_sqe *sqe = get_sqe (w);
          io_uring_prep_read (sqe, w->efd, &u->efd_buf, sizeof u->efd_buf, 0);
          io_uring_sqe_set_data64 (sqe, TAG_EVENTFD);
          u->efd_armed = true;
        }
      struct io_uring_cqe *cqe;
      struct __kernel_timespec ts = { .tv_sec = timeout_ns / 1000000000,
                                      .tv_nsec = timeout_ns % 1000000000 };
      coro_count_syscall (w);
      io_uring_submit_and_wait_timeout (&u->ring, &cqe, 1, timeout_ns > 0 ? &ts : NULL, NULL);
    }
  else if (io_uring_sq_ready (&u->ring))
    {
      coro_count_syscall (w);
      io_uring_submit (&u->ring);
    }
  unsigned head, n = 0;
  struct io_uring_cqe *cqe;
  io_uring_for_each_cqe (&u->ring, head, cqe)
    {
      n++;
      if (cqe->user_data == TAG_EVENTFD)
        {
          u->efd_armed = false;
          continue;
        }
      struct coro *c = (struct coro *) (uintptr_t) cqe->user_data;
      c->io_res = cqe->res;
      coro_ready (c);
    }
  io_uring_cq_advance (&u->ring, n);
}

const struct coro_backend coro_backend_io_uring = {
  .name = "io_uring",
  .init = uring_init,
  .fini = uring_fini,
  .op = uring_op,
  .poll = uring_poll,
};
