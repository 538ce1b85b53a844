/*
 * send.c - udp variants `sendto` (one system call per datagram) and
 * `sendmmsg` (up to `batch` datagrams per call).  Both on the connected,
 * non-blocking socket: an EAGAIN (send buffer full) is counted, the sender
 * waits in poll(POLLOUT) and offers the same datagram again.
 */
#include "udp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

int
udp_send_sendto (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                 struct udp_counts *c, char *err, size_t len)
{
  char *buf = calloc (1, (size_t) o->size);

  if (buf == NULL)
    return snprintf (err, len, "out of memory"), -1;
  for (long i = 0; i < count;)
    {
      udp_fill (buf, o->size, seq0 + i);
      c->attempts++, c->syscalls++;
      if (sendto (fd, buf, (size_t) o->size, 0, NULL, 0) == o->size)
        i++;
      else if (errno == EAGAIN)
        c->eagain++, udp_wait_writable (fd, c);
      else
        {
          snprintf (err, len, "sendto: %s", strerror (errno));
          free (buf);
          return -1;
        }
    }
  free (buf);
  return 0;
}

int
udp_send_sendmmsg (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                   struct udp_counts *c, char *err, size_t len)
{
  char *bufs = calloc ((size_t) batch, (size_t) o->size);
  struct mmsghdr *m = calloc ((size_t) batch, sizeof *m);
  struct iovec *iov = calloc ((size_t) batch, sizeof *iov);
  int rc = 0;

  if (!bufs || !m || !iov)
    {
      snprintf (err, len, "out of memory");
      rc = -1;
    }
  for (long i = 0; rc == 0 && i < count;)
    {
      long k = count - i < batch ? count - i : batch;
      for (long j = 0; j < k; j++)
        {
          iov[j] = (struct iovec){ bufs + j * o->size, (size_t) o->size };
          m[j] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[j], .msg_iovlen = 1 } };
          udp_fill (bufs + j * o->size, o->size, seq0 + i + j);
        }
      c->syscalls++;
      int sent = sendmmsg (fd, m, (unsigned) k, 0);
      if (sent > 0)
        {
          /* a short count means the kernel stopped at a datagram it could not
             take (EAGAIN after the first is not reported); that one is offered
             again by the next call, so it is not an attempt yet */
          c->attempts += sent;
          i += sent;
        }
      else if (errno == EAGAIN)
        c->attempts++, c->eagain++, udp_wait_writable (fd, c);
      else
        {
          snprintf (err, len, "sendmmsg: %s", strerror (errno));
          rc = -1;
        }
    }
  free (bufs);
  free (m);
  free (iov);
  return rc;
}
