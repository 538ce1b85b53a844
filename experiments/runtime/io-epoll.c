/*
 * io-epoll.c - I/O backend: one epoll set per worker.
 *
 * An operation is tried first without blocking (preadv2/pwritev2 with
 * RWF_NOWAIT, recv/send with MSG_DONTWAIT, connect on a socket made
 * non-blocking for the call); when it would block, the coroutine waits for
 * readiness: the fd is armed EPOLLONESHOT in the worker's set with a reader
 * and a writer slot per fd (so one coroutine may read while another writes the
 * same fd), then the call is retried.  coro_send_recv sends the same way,
 * then waits for readiness BEFORE its receive: the peer has only just been
 * sent what it answers, so a first try would find nothing (one failed
 * recvfrom per request turn saved).  The worker's eventfd sits in the set
 * for wake-ups; timers become epoll_pwait2's nanosecond timeout (epoll_wait's
 * millisecond one, rounded up, where epoll_pwait2 is missing).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coro-internal.h"

#define TAG_EVENTFD UINT64_MAX

struct fdwait
{
  struct coro *rd, *wr;
  bool added; /* fd is in this epoll set */
};

struct ep
{
  int epfd;
  long nwait;
  struct coro_worker *w; /* owner, for coro_count_syscall */
  struct fdwait *tab;
  size_t ntab;
};

static int
ep_init (struct coro_worker *w)
{
  struct ep *e = calloc (1, sizeof *e);
  if (!e)
    return -ENOMEM;
  e->w = w;
  e->epfd = epoll_create1 (EPOLL_CLOEXEC);
  w->efd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_EVENTFD };
  if (e->epfd < 0 || w->efd < 0 || epoll_ctl (e->epfd, EPOLL_CTL_ADD, w->efd, &ev) < 0)
    {
      int r = -errno;
      if (e->epfd >= 0)
        close (e->epfd);
      if (w->efd >= 0)
        close (w->efd);
      w->efd = -1;
      free (e);
      return r;
    }
  w->be = e;
  return 0;
}

static void
ep_fini (struct coro_worker *w)
{
  struct ep *e = w->be;
  if (!e)
    return;
  close (e->epfd);
  close (w->efd);
  w->efd = -1;
  free (e->tab);
  free (e);
  w->be = NULL;
}

static struct fdwait *
slot (struct ep *e, int fd)
{
  if ((size_t) fd >= e->ntab)
    {
      size_t n = e->ntab ? e->ntab : 64;
      while (n <= (size_t) fd)
        n *= 2;
      struct fdwait *t = realloc (e->tab, n * sizeof *t);
      if (!t)
        return NULL;
      memset (t + e->ntab, 0, (n - e->ntab) * sizeof *t);
      e->tab = t;
      e->ntab = n;
    }
  return &e->tab[fd];
}

static int
arm (struct ep *e, int fd, struct fdwait *s)
{
  struct epoll_event ev = { .events = EPOLLONESHOT, .data.u64 = (uint64_t) fd };
  if (s->rd)
    ev.events |= EPOLLIN | EPOLLRDHUP;
  if (s->wr)
    ev.events |= EPOLLOUT;
  coro_count_syscall (e->w);
  if (s->added && epoll_ctl (e->epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
    return 0;
  coro_count_syscall (e->w);
  if (epoll_ctl (e->epfd, EPOLL_CTL_ADD, fd, &ev) == 0
      || (errno == EEXIST && (coro_count_syscall (e->w), epoll_ctl (e->epfd, EPOLL_CTL_MOD, fd, &ev) == 0)))
    {
      s->added = true;
      return 0;
    }
  return -errno;
}

/* Parks self until fd is ready for `events`; returns revents or -errno. */
static long
wait_ready (struct coro_worker *w, struct coro *self, int fd, short events)
{
  struct ep *e = w->be;
  struct fdwait *s = slot (e, fd);
  if (!s)
    return -ENOMEM;
  bool write = (events & POLLOUT) && !(events & POLLIN);
  if (write ? s->wr : s->rd)
    return -EBUSY; /* one reader and one writer per fd and worker */
  if (write)
    s->wr = self;
  else
    s->rd = self;
  int r = arm (e, fd, s);
  if (r < 0)
    {
      if (write)
        s->wr = NULL;
      else
        s->rd = NULL;
      return r;
    }
  e->nwait++;
  coro_park (self, NULL, "epoll");
  return self->io_res;
}

static long
try_op (const struct coro_io_req *q)
{
  struct iovec iov = { q->buf, q->len };
  long r;
  switch (q->op)
    {
    /* Raw system calls, not libc's: its wrappers are cancellation points,
       two locked CASes on the thread's cancel state around each call. */
    case CIO_READ: r = syscall (SYS_preadv2, q->fd, &iov, 1, -1L, 0L, RWF_NOWAIT); break;
    case CIO_WRITE: r = syscall (SYS_pwritev2, q->fd, &iov, 1, -1L, 0L, RWF_NOWAIT); break;
    case CIO_RECV: r = syscall (SYS_recvfrom, q->fd, q->buf, q->len, q->flags | MSG_DONTWAIT, NULL, NULL); break;
    case CIO_SEND: r = syscall (SYS_sendto, q->fd, q->buf, q->len, q->flags | MSG_DONTWAIT, NULL, 0); break;
    case CIO_ACCEPT: r = syscall (SYS_accept4, q->fd, q->out_addr, q->out_len, q->flags); break;
    default: errno = EINVAL; r = -1;
    }
  return r < 0 ? -errno : r;
}

static long
ep_connect (struct coro_worker *w, struct coro *self, const struct coro_io_req *q)
{
  int fl = fcntl (q->fd, F_GETFL);
  if (fl < 0)
    return -errno;
  if (!(fl & O_NONBLOCK))
    fcntl (q->fd, F_SETFL, fl | O_NONBLOCK);
  long r = connect (q->fd, q->addr, q->addrlen) < 0 ? -errno : 0;
  if (r == -EINPROGRESS)
    {
      r = wait_ready (w, self, q->fd, POLLOUT);
      int err = 0;
      socklen_t len = sizeof err;
      if (r >= 0)
        r = getsockopt (q->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ? -errno : -err;
    }
  if (!(fl & O_NONBLOCK))
    fcntl (q->fd, F_SETFL, fl);
  return r;
}

static long
ep_op (struct coro_worker *w, struct coro *self, const struct coro_io_req *q)
{
  if (q->op == CIO_POLL)
    return wait_ready (w, self, q->fd, (short) q->flags);
  if (q->op == CIO_CONNECT)
    return ep_connect (w, self, q);
  short events = (q->op == CIO_WRITE || q->op == CIO_SEND) ? POLLOUT : POLLIN;
  bool accept_first_wait = q->op == CIO_ACCEPT; /* accept4 has no "don't wait" flag */
  for (;;)
    {
      if (!accept_first_wait)
        {
          coro_count_syscall (w);
          long r = try_op (q);
          if (r == -EOPNOTSUPP && (q->op == CIO_READ || q->op == CIO_WRITE))
            {
              /* no RWF_NOWAIT here: wait for readiness, then the plain call */
              r = wait_ready (w, self, q->fd, events);
              if (r < 0)
                return r;
              coro_count_syscall (w);
              r = q->op == CIO_READ ? read (q->fd, q->buf, q->len) : write (q->fd, q->buf, q->len);
              return r < 0 ? -errno : r;
            }
          if (r != -EAGAIN)
            return r;
        }
      accept_first_wait = false;
      long r = wait_ready (w, self, q->fd, events);
      if (r < 0)
        return r;
      self = coro_self (); /* still us; w may differ after a migration */
      w = self->w;
    }
}

/* coro_send_recv: all of q's bytes as ep_op sends them, then a wait for
   readable before the one receive (see the top of this file). */
static long
ep_send_recv (struct coro_worker *w, struct coro *self, const struct coro_io_req *q, void *in, size_t inlen,
              size_t *sent)
{
  long r = coro_io_send_rest (self, q, sent);
  if (r < 0)
    return r;
  r = wait_ready (self->w, self, q->fd, POLLIN);
  if (r < 0)
    return r;
  return ep_op (self->w, self, &(struct coro_io_req){ .op = CIO_RECV, .fd = q->fd, .buf = in, .len = inlen });
}

static void
dispatch (struct coro_worker *w, struct ep *e, int fd, uint32_t ev)
{
  struct fdwait *s = &e->tab[fd];
  int revents = (int) (ev & (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLRDHUP));
  if (s->rd && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)))
    {
      struct coro *c = s->rd;
      s->rd = NULL;
      c->io_res = revents;
      e->nwait--;
      coro_ready (c);
    }
  if (s->wr && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
    {
      struct coro *c = s->wr;
      s->wr = NULL;
      c->io_res = revents;
      e->nwait--;
      coro_ready (c);
    }
  if (s->rd || s->wr)
    arm (e, fd, s); /* the other direction still waits */
}

static void
ep_poll (struct coro_worker *w, int64_t timeout_ns)
{
  struct ep *e = w->be;
  if (timeout_ns == 0 && e->nwait == 0)
    return;
  struct epoll_event evs[64];
  struct timespec ts = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
  static bool no_pwait2; /* valgrind 3.19, seccomp profiles without it */
  int n = -1;
  if (!no_pwait2)
    {
      coro_count_syscall (w);
      n = epoll_pwait2 (e->epfd, evs, 64, timeout_ns < 0 ? NULL : &ts, NULL);
      if (n < 0 && errno == ENOSYS)
        no_pwait2 = true;
    }
  if (no_pwait2) /* millisecond timeout, rounded up so sleeps never end early */
    coro_count_syscall (w), n = epoll_wait (e->epfd, evs, 64,
                    timeout_ns < 0 ? -1 : (int) ((timeout_ns + 999999) / 1000000));
  for (int i = 0; i < n; i++)
    {
      if (evs[i].data.u64 == TAG_EVENTFD)
        {
          uint64_t v;
          coro_count_syscall (w);
          if (read (w->efd, &v, sizeof v) < 0)
            continue; /* EAGAIN: already drained */
          continue;
        }
      dispatch (w, e, (int) evs[i].data.u64, evs[i].events);
    }
}

static const char *
ep_features (struct coro_worker *w)
{
  (void) w;
  return "try-first,epoll oneshot on EAGAIN,send+recv waits before its recv";
}

const struct coro_backend coro_backend_epoll = {
  .name = "epoll",
  .features = ep_features,
  .init = ep_init,
  .fini = ep_fini,
  .op = ep_op,
  .send_recv = ep_send_recv,
  .poll = ep_poll,
};
