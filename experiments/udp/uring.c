/*
 * uring.c - udp variant `uring`: `batch` IORING_OP_SENDMSG entries per
 * io_uring_submit_and_wait, i.e. one io_uring_enter per batch that submits
 * the batch and waits for all of its completions.  A completion with -EAGAIN
 * (the socket is non-blocking and its send buffer full) is counted; the
 * sender waits in poll(POLLOUT) and puts those datagrams in the next batch.
 */
#include "udp.h"

#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

struct slot
{
  struct msghdr msg;
  struct iovec iov;
  long seq;
};

int
udp_send_uring (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                struct udp_counts *c, char *err, size_t len)
{
  struct io_uring ring;
  char *bufs = calloc ((size_t) batch, (size_t) o->size);
  struct slot *s = calloc ((size_t) batch, sizeof *s);
  long *retry = calloc ((size_t) batch, sizeof *retry), nretry = 0, next = 0, done = 0;
  int r, rc = 0;

  if (!bufs || !s || !retry)
    return snprintf (err, len, "out of memory"), free (bufs), free (s), free (retry), -1;
  if ((r = io_uring_queue_init ((unsigned) batch, &ring, 0)) < 0)
    return snprintf (err, len, "io_uring_queue_init (%ld entries): %s", batch, strerror (-r)), free (bufs),
           free (s), free (retry), -1;
  while (rc == 0 && done < count)
    {
      long k = 0;
      /* refused datagrams first, then new ones */
      while (k < batch && (nretry > 0 || next < count))
        {
          struct slot *sl = &s[k];
          sl->seq = nretry > 0 ? retry[--nretry] : seq0 + next++;
          sl->iov = (struct iovec){ bufs + k * o->size, (size_t) o->size };
          sl->msg = (struct msghdr){ .msg_iov = &sl->iov, .msg_iovlen = 1 };
          udp_fill (bufs + k * o->size, o->size, sl->seq);
          struct io_uring_sqe *sqe = io_uring_get_sqe (&ring);
          io_uring_prep_sendmsg (sqe, fd, &sl->msg, 0);
          io_uring_sqe_set_data (sqe, sl);
          k++;
        }
      c->syscalls++;
      if ((r = io_uring_submit_and_wait (&ring, (unsigned) k)) < 0)
        {
          snprintf (err, len, "io_uring_submit_and_wait: %s", strerror (-r));
          rc = -1;
          break;
        }
      long refused = 0;
      for (long j = 0; j < k; j++)
        {
          struct io_uring_cqe *cqe;
          if ((r = io_uring_wait_cqe (&ring, &cqe)) < 0)
            {
              snprintf (err, len, "io_uring_wait_cqe: %s", strerror (-r));
              rc = -1;
              break;
            }
          struct slot *sl = io_uring_cqe_get_data (cqe);
          int res = cqe->res;
          io_uring_cqe_seen (&ring, cqe);
          c->attempts++;
          if (res == o->size)
            done++;
          else if (res == -EAGAIN)
            c->eagain++, refused++, retry[nretry++] = sl->seq;
          else if (rc == 0)
            {
              snprintf (err, len, "sendmsg completion: %s", res < 0 ? strerror (-res) : "short send");
              rc = -1;
            }
        }
      if (refused)
        udp_wait_writable (fd, c);
    }
  io_uring_queue_exit (&ring);
  free (bufs);
  free (s);
  free (retry);
  return rc;
}
