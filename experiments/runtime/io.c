/*
 * io.c - the coroutine I/O API over the backend chosen at start.
 *
 * In a coroutine each call builds a struct coro_io_req and hands it to the
 * backend (io-uring.c or io-epoll.c), which parks the coroutine until the
 * operation is done; the worker meanwhile runs other coroutines.  Outside a
 * coroutine the calls fall back to the plain blocking system call.  errno is
 * set after the coroutine resumed, in coro_set_errno() (see sched.c, "errno
 * and TLS").
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "coro-internal.h"

__attribute__ ((noipa)) static long
coro_set_errno (long r)
{
  if (r < 0)
    {
      errno = (int) -r;
      return -1;
    }
  return r;
}

static long
blocking (const struct coro_io_req *q)
{
  switch (q->op)
    {
    case CIO_READ: return read (q->fd, q->buf, q->len);
    case CIO_WRITE: return write (q->fd, q->buf, q->len);
    case CIO_RECV: return recv (q->fd, q->buf, q->len, q->flags);
    case CIO_SEND: return send (q->fd, q->buf, q->len, q->flags);
    case CIO_ACCEPT: return accept4 (q->fd, q->out_addr, q->out_len, q->flags);
    case CIO_CONNECT: return connect (q->fd, q->addr, q->addrlen);
    case CIO_POLL:
      {
        struct pollfd p = { .fd = q->fd, .events = (short) q->flags };
        int r = poll (&p, 1, -1);
        return r < 0 ? -1 : p.revents;
      }
    }
  errno = EINVAL;
  return -1;
}

static long
submit (const struct coro_io_req *q)
{
  struct coro *self = coro_self ();
  if (!self)
    return blocking (q);
  long r = coro_S.be->op (self->w, self, q);
  return coro_set_errno (r);
}

ssize_t
coro_read (int fd, void *buf, size_t len)
{
  return submit (&(struct coro_io_req){ .op = CIO_READ, .fd = fd, .buf = buf, .len = len });
}

ssize_t
coro_write (int fd, const void *buf, size_t len)
{
  return submit (&(struct coro_io_req){ .op = CIO_WRITE, .fd = fd, .buf = (void *) buf, .len = len });
}

ssize_t
coro_recv (int fd, void *buf, size_t len, int flags)
{
  return submit (&(struct coro_io_req){ .op = CIO_RECV, .fd = fd, .buf = buf, .len = len, .flags = flags });
}

ssize_t
coro_send (int fd, const void *buf, size_t len, int flags)
{
  return submit (&(struct coro_io_req){ .op = CIO_SEND, .fd = fd, .buf = (void *) buf, .len = len,
                                        .flags = flags | MSG_NOSIGNAL });
}

int
coro_accept (int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
  return (int) submit (&(struct coro_io_req){ .op = CIO_ACCEPT, .fd = fd, .out_addr = addr,
                                              .out_len = addrlen, .flags = flags });
}

int
coro_connect (int fd, const struct sockaddr *addr, socklen_t addrlen)
{
  return (int) submit (&(struct coro_io_req){ .op = CIO_CONNECT, .fd = fd, .addr = addr,
                                              .addrlen = addrlen });
}

long
coro_io_send_rest (struct coro *self, const struct coro_io_req *q, size_t *sent)
{
  while (*sent < q->len)
    {
      struct coro_io_req rest = *q;
      rest.buf = (char *) q->buf + *sent;
      rest.len = q->len - *sent;
      long n = coro_S.be->op (self->w, self, &rest);
      if (n == -EINTR)
        continue;
      if (n < 0)
        return n;
      if (n == 0)
        return -EPIPE;
      *sent += (size_t) n;
    }
  return 0;
}

ssize_t
coro_send_recv (int fd, const void *out, size_t outlen, size_t *sent, void *in, size_t inlen)
{
  struct coro *self = coro_self ();
  *sent = 0;
  if (self && coro_S.be->send_recv)
    {
      struct coro_io_req q = { .op = CIO_SEND, .fd = fd, .buf = (void *) out, .len = outlen,
                               .flags = MSG_NOSIGNAL };
      return coro_set_errno (coro_S.be->send_recv (self->w, self, &q, in, inlen, sent));
    }
  while (*sent < outlen)
    {
      ssize_t n = coro_send (fd, (const char *) out + *sent, outlen - *sent, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        {
          errno = EPIPE; /* a stream socket never takes 0 of a non-empty send */
          return -1;
        }
      *sent += (size_t) n;
    }
  return coro_recv (fd, in, inlen, 0);
}

int
coro_poll (int fd, short events)
{
  return (int) submit (&(struct coro_io_req){ .op = CIO_POLL, .fd = fd, .flags = events });
}

void
coro_backend_wake (struct coro_worker *w)
{
  uint64_t one = 1;
  __atomic_add_fetch (&w->wake_syscalls, 1, __ATOMIC_RELAXED); /* any thread: not coro_count_syscall */
  if (w->efd >= 0 && write (w->efd, &one, sizeof one) < 0 && errno != EAGAIN)
    return; /* EAGAIN: the counter is saturated, a wake-up is pending anyway */
}

const char *
coro_backend_features (void)
{
  return coro_S.be && coro_S.workers ? coro_S.be->features (&coro_S.workers[0]) : NULL;
}
