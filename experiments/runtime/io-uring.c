/*
 * io-uring.c - I/O backend: one io_uring per worker (liburing 2.3).
 *
 * An operation becomes one SQE whose user_data is the parked coroutine; the
 * worker submits SQEs in batches when it passes through its loop, and each
 * CQE readies its coroutine with the result in c->io_res.  Writes and sends
 * are first tried without blocking (pwritev2 RWF_NOWAIT, send MSG_DONTWAIT,
 * as Go's netpoller does): a socket with room takes the bytes at once and
 * the coroutine goes on without parking; only EAGAIN (or a file that cannot
 * say "would block") becomes an SQE; with coro_config.writes_via_ring every
 * write is an SQE, batched with the others (udp's coro-uring sender shows
 * io_uring's batching that way).  Reads go straight to an SQE: the
 * kernel tries the read itself when the SQE is submitted, before it arms a
 * poll, so a try from here would only add a system call.  coro_send_recv
 * (a request/response turn: the answer, then the next request) is a SEND
 * linked to a RECV, submitted with the batch: no system call of its own and
 * one park (echo's coro-uring at 1000 connections: 8% less server CPU per
 * request than a send tried first plus a recv SQE, and 10% more capacity).
 *
 * The ring.  Created with IORING_SETUP_R_DISABLED by the starting thread and
 * enabled by its worker on the first poll, so it can be SINGLE_ISSUER |
 * DEFER_TASKRUN (the worker is its only submitter): completions are never
 * signalled by an IPI to the worker's CPU; the kernel runs their task work
 * when the worker enters with GETEVENTS, and TASKRUN_FLAG tells the worker
 * when there is such work (IORING_SQ_TASKRUN).  Where the kernel lacks
 * DEFER_TASKRUN (5.19, 6.0): COOP_TASKRUN | TASKRUN_FLAG, the same protocol
 * (no IPI; the flag says when to enter).  Before 5.19: a plain ring, whose
 * completions are task work signalled to the worker; measured here (forced,
 * echo at 60K requests/s over 1000 connections), completions then waited
 * for the connection's next request: p50 16 ms, against 36 us in both
 * other modes (coop: 197-207K requests/s capacity, p99 4.3-4.6 ms, as
 * defer_taskrun).  Not fixed.  LAB_CORO_URING_MODE=K starts the search at
 * ring_modes[K], so tests can run the older modes on this kernel.  The ring
 * fd is registered (no fget per io_uring_enter).
 * One io_uring_enter per pass of the worker's loop submits the batch and
 * reaps what is ready together.
 *
 * Waking an idle worker: a READ on the worker's eventfd is kept armed;
 * coro_backend_wake() writes the eventfd, which completes it.  Timers: the
 * nearest deadline is the timeout of io_uring_submit_and_wait_timeout
 * (IORING_ENTER_EXT_ARG on this kernel, so no timeout SQE at all).
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coro-internal.h"

enum { RING_ENTRIES = 256, CQ_ENTRIES = 4096 };
#define TAG_EVENTFD 1ULL
#define TAG_LINKED 2ULL /* or'ed into a coroutine pointer: the send of a send+recv pair */

struct uring
{
  struct io_uring ring;
  uint64_t efd_buf;
  bool efd_armed;
  bool disabled;      /* created R_DISABLED: the worker enables it */
  bool started;       /* the worker's first poll set the ring up for its thread */
  char features[192]; /* write policy and ring setup, for coro_backend_features() */
};

/* The ring flags tried in order: the first the kernel takes wins. */
static const struct
{
  unsigned flags;
  const char *mode;
} ring_modes[] = {
  { IORING_SETUP_R_DISABLED | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
        | IORING_SETUP_TASKRUN_FLAG,
    "one-shot read/accept SQEs,single_issuer+defer_taskrun,registered_ring" },
  { IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, "one-shot read/accept SQEs,coop_taskrun,registered_ring" },
  { 0, "one-shot read/accept SQEs,registered_ring" },
};

static int
ring_create (struct uring *u)
{
  int r = -EINVAL;
  const char *first = getenv ("LAB_CORO_URING_MODE"); /* tests: skip the newer modes */
  for (size_t i = first ? (size_t) atoi (first) : 0; i < sizeof ring_modes / sizeof ring_modes[0]; i++)
    {
      struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE | ring_modes[i].flags, .cq_entries = CQ_ENTRIES };
      r = io_uring_queue_init_params (RING_ENTRIES, &u->ring, &p);
      if (r == -EINVAL)
        continue; /* an older kernel: fewer flags */
      if (r < 0)
        return r;
      snprintf (u->features, sizeof u->features, "%s,linked send+recv,%s",
                coro_S.writes_via_ring ? "write/send SQEs" : "try-write-first", ring_modes[i].mode);
      u->disabled = ring_modes[i].flags & IORING_SETUP_R_DISABLED;
      return 0;
    }
  return r;
}

/* On the worker's thread, before its first submission: SINGLE_ISSUER binds
   the ring to the thread that enables it, and a registered ring fd belongs to
   the thread that registered it. */
static void
ring_start (struct coro_worker *w, struct uring *u)
{
  u->started = true;
  if (u->disabled)
    {
      coro_count_syscall (w);
      /* liburing 2.3 declares io_uring_enable_rings but does not export it */
      if (syscall (__NR_io_uring_register, u->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0) < 0)
        abort (); /* a ring created R_DISABLED by us: cannot fail but for a kernel bug */
      u->disabled = false;
    }
  coro_count_syscall (w);
  io_uring_register_ring_fd (&u->ring); /* best effort: else entered by its fd */
}

static int
uring_init (struct coro_worker *w)
{
  struct uring *u = calloc (1, sizeof *u);
  if (!u)
    return -ENOMEM;
  int r = ring_create (u);
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

/* A write or send tried without waiting: bytes taken or an error, else
   -EAGAIN (also where the file cannot tell: then the SQE does it).  errno is
   read here, before any park (see sched.c, "errno and TLS"). */
static __attribute__ ((noinline)) long
try_write (struct coro_worker *w, const struct coro_io_req *q)
{
  long r;
  coro_count_syscall (w);
  /* Raw system calls: libc's send and pwritev2 are cancellation points,
     each wrapping the call in two locked CASes on the thread's cancel
     state; a coroutine is never cancelled that way. */
  if (q->op == CIO_SEND)
    r = syscall (SYS_sendto, q->fd, q->buf, q->len, q->flags | MSG_DONTWAIT, NULL, 0);
  else
    r = syscall (SYS_pwritev2, q->fd, &(struct iovec){ q->buf, q->len }, 1, -1L, 0L, RWF_NOWAIT);
  if (r >= 0)
    return r;
  return errno == EOPNOTSUPP ? -EAGAIN : -errno;
}

static long
uring_op (struct coro_worker *w, struct coro *self, const struct coro_io_req *q)
{
  if ((q->op == CIO_WRITE || q->op == CIO_SEND) && !coro_S.writes_via_ring)
    {
      long r = try_write (w, q);
      if (r != -EAGAIN)
        return r;
    }
  struct io_uring_sqe *sqe = get_sqe (w);
  const char *reason = prep (sqe, q);
  io_uring_sqe_set_data64 (sqe, (uint64_t) (uintptr_t) self);
  coro_park (self, NULL, reason); /* submitted by the worker loop */
  return self->io_res;
}

/* coro_send_recv: SEND (MSG_WAITALL: the kernel retries a short send until
   all went or it fails) linked to a RECV into `in`, one park for both.  Each
   posts its CQE (the send's tagged TAG_LINKED), and the coroutine is readied
   by the second of the two, in whichever order they come, counted in
   c->io_pending by this worker's CQE loop only.  If the send fails, the recv
   ends -ECANCELED.  Both SQEs go into the ring together: an SQE flagged
   IOSQE_IO_LINK as the last of a submission would end the chain there. */
static long
uring_send_recv (struct coro_worker *w, struct coro *self, const struct coro_io_req *q, void *in, size_t inlen,
                 size_t *sent)
{
  struct uring *u = w->be;
  if (io_uring_sq_space_left (&u->ring) < 2)
    {
      coro_count_syscall (w);
      io_uring_submit (&u->ring);
    }
  struct io_uring_sqe *s = io_uring_get_sqe (&u->ring), *r = io_uring_get_sqe (&u->ring);
  io_uring_prep_send (s, q->fd, q->buf, q->len, q->flags | MSG_WAITALL);
  s->flags |= IOSQE_IO_LINK;
  io_uring_sqe_set_data64 (s, (uint64_t) (uintptr_t) self | TAG_LINKED);
  io_uring_prep_recv (r, q->fd, in, inlen, 0);
  io_uring_sqe_set_data64 (r, (uint64_t) (uintptr_t) self);
  self->io_pending = 2;
  coro_park (self, NULL, "send+recv");
  long sr = self->io_res_link;
  if (sr < 0)
    return sr;
  *sent = (size_t) sr;
  if (*sent == q->len)
    return self->io_res;
  /* short without an error (MSG_WAITALL should rule it out): the rest and
     the recv as plain calls; resumed, maybe on another worker: self->w */
  long rest = coro_io_send_rest (self, q, sent);
  if (rest < 0)
    return rest;
  return uring_op (self->w, self, &(struct coro_io_req){ .op = CIO_RECV, .fd = q->fd, .buf = in, .len = inlen });
}

/* Task work the kernel holds for this ring (DEFER_TASKRUN with TASKRUN_FLAG). */
static inline bool
taskrun_pending (struct uring *u)
{
  return IO_URING_READ_ONCE (*u->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW);
}

static void
uring_poll (struct coro_worker *w, int64_t timeout_ns)
{
  struct uring *u = w->be;
  if (__builtin_expect (!u->started, 0))
    ring_start (w, u);
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
  else if (io_uring_sq_ready (&u->ring) || taskrun_pending (u))
    {
      coro_count_syscall (w);
      io_uring_submit_and_get_events (&u->ring); /* one enter: submit, run task work */
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
      struct coro *c = (struct coro *) (uintptr_t) (cqe->user_data & ~TAG_LINKED);
      if (cqe->user_data & TAG_LINKED)
        c->io_res_link = cqe->res;
      else
        c->io_res = cqe->res;
      if (c->io_pending == 0 || --c->io_pending == 0)
        coro_ready (c);
    }
  io_uring_cq_advance (&u->ring, n);
}

static const char *
uring_features (struct coro_worker *w)
{
  return ((struct uring *) w->be)->features;
}

const struct coro_backend coro_backend_io_uring = {
  .name = "io_uring",
  .features = uring_features,
  .init = uring_init,
  .fini = uring_fini,
  .op = uring_op,
  .send_recv = uring_send_recv,
  .poll = uring_poll,
};
