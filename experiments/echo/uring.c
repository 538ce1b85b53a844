/*
 * uring.c - echo variant `uring`: a hand-written io_uring event loop, the
 * io_uring counterpart of epoll.c (no coroutines).
 *
 * One loop thread per server CPU, each with its own ring, created in that
 * thread (IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN where the kernel has
 * them, else COOP_TASKRUN).  What each ring uses, all recorded in the report
 * as `uring_features`:
 *   - multishot accept straight into a sparse registered file table
 *     (io_uring_prep_multishot_accept_direct): connections never enter the
 *     process's fd table;
 *   - one multishot recv per connection, on the fixed file, picking its
 *     buffer from a provided buffer ring (1024 x 4 KiB per loop);
 *   - send on the fixed file; close with io_uring_prep_close_direct.
 * Echo sends straight from the provided buffer and gives it back to the
 * ring when the send completed; http gives it back at once and sends the
 * static responses.  Sends of a connection go out one at a time, in order
 * (a short send is resubmitted for the rest).  A multishot recv that ends
 * with -ENOBUFS (all buffers out) parks the connection on a list re-armed
 * when a buffer comes back.  A connection is freed when it is closing and
 * none of its requests is in flight.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <liburing.h>

#include "echo.h"

#define NBUFS 1024
#define BGID 1
#define SQ_ENTRIES 4096
#define CQ_ENTRIES 16384

enum { TAG_ACCEPT = 1, TAG_RECV, TAG_SEND, TAG_CLOSE, TAG_CANCEL };

struct pend
{
  struct pend *next;
  const char *buf;
  size_t len, off;
  int bid;            /* provided buffer to give back, or -1 */
};

struct conn
{
  int fi;             /* index in the registered file table */
  int inflight;       /* requests of this connection the kernel holds */
  int closing, recv_armed, starved;
  struct echo_proto_state st;
  struct pend *head, *tail;
  struct conn *next_starved;
};

struct loop
{
  struct io_uring ring;
  struct io_uring_buf_ring *br;
  char *bufs;
  struct conn *starved;
  int id;
  const char *taskrun;
};

static struct echo_server *S;
static sem_t started;
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static int start_failed;

static void
fail (const char *what, int e)
{
  pthread_mutex_lock (&err_lock);
  if (!start_failed)
    snprintf (S->error, sizeof S->error, "%s: %s", what, strerror (e));
  start_failed = 1;
  pthread_mutex_unlock (&err_lock);
}

static struct io_uring_sqe *
sqe_get (struct loop *l)
{
  struct io_uring_sqe *sqe;
  while ((sqe = io_uring_get_sqe (&l->ring)) == NULL)
    io_uring_submit (&l->ring);
  return sqe;
}

static void
set_data (struct io_uring_sqe *sqe, void *p, int tag)
{
  io_uring_sqe_set_data64 (sqe, (uint64_t) (uintptr_t) p | (uint64_t) tag);
}

static void
arm_accept (struct loop *l)
{
  struct io_uring_sqe *sqe = sqe_get (l);
  io_uring_prep_multishot_accept_direct (sqe, S->listen_fd, NULL, NULL, 0);
  set_data (sqe, NULL, TAG_ACCEPT);
}

static void
arm_recv (struct loop *l, struct conn *c)
{
  struct io_uring_sqe *sqe = sqe_get (l);
  io_uring_prep_recv_multishot (sqe, c->fi, NULL, 0, 0);
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
  sqe->buf_group = BGID;
  set_data (sqe, c, TAG_RECV);
  c->inflight++;
  c->recv_armed = 1;
}

static void
give_back (struct loop *l, int bid)
{
  io_uring_buf_ring_add (l->br, l->bufs + (size_t) bid * ECHO_BUF, ECHO_BUF, (unsigned short) bid,
                         io_uring_buf_ring_mask (NBUFS), 0);
  io_uring_buf_ring_advance (l->br, 1);
  while (l->starved)
    {
      struct conn *c = l->starved;
      l->starved = c->next_starved;
      c->starved = 0;
      if (!c->closing && !c->recv_armed)
        arm_recv (l, c);
    }
}

static void
send_head (struct loop *l, struct conn *c)
{
  struct pend *p = c->head;
  struct io_uring_sqe *sqe = sqe_get (l);
  io_uring_prep_send (sqe, c->fi, p->buf + p->off, p->len - p->off, MSG_NOSIGNAL);
  sqe->flags |= IOSQE_FIXED_FILE;
  set_data (sqe, c, TAG_SEND);
  c->inflight++;
}

static int
queue_send (struct loop *l, struct conn *c, const char *buf, size_t len, int bid)
{
  struct pend *p = malloc (sizeof *p);
  if (p == NULL)
    return -1;
  *p = (struct pend){ NULL, buf, len, 0, bid };
  if (c->tail)
    c->tail->next = p;
  else
    c->head = p;
  c->tail = p;
  if (c->head == p)
    send_head (l, c);
  return 0;
}

static void
maybe_free (struct loop *l, struct conn *c)
{
  if (!c->closing || c->inflight > 0 || c->starved)
    return;
  while (c->head)
    {
      struct pend *p = c->head;
      c->head = p->next;
      if (p->bid >= 0)
        give_back (l, p->bid);
      free (p);
    }
  free (c);
}

static void
start_close (struct loop *l, struct conn *c, int reset)
{
  if (c->closing)
    return;
  c->closing = 1;
  if (reset)
    echo_count (&echo_stats.resets, 1);
  echo_count_open (-1);
  struct io_uring_sqe *sqe;
  if (c->recv_armed)
    {
      sqe = sqe_get (l);
      io_uring_prep_cancel64 (sqe, (uint64_t) (uintptr_t) c | TAG_RECV, 0);
      set_data (sqe, NULL, TAG_CANCEL);
    }
  sqe = sqe_get (l);
  io_uring_prep_close_direct (sqe, (unsigned) c->fi);
  set_data (sqe, c, TAG_CLOSE);
  c->inflight++;
}

static void
on_recv (struct loop *l, struct conn *c, struct io_uring_cqe *cqe)
{
  int more = cqe->flags & IORING_CQE_F_MORE;
  if (!more)
    {
      c->inflight--;
      c->recv_armed = 0;
    }
  if (cqe->res > 0)
    {
      int bid = (int) (cqe->flags >> IORING_CQE_BUFFER_SHIFT);
      char *buf = l->bufs + (size_t) bid * ECHO_BUF;
      size_t k = echo_proto_feed (S->proto, &c->st, buf, (size_t) cqe->res), len;
      if (c->closing)
        give_back (l, bid);
      else if (S->proto == ECHO_PROTO_ECHO)
        {
          if (queue_send (l, c, buf, k, bid) < 0)
            {
              give_back (l, bid);
              start_close (l, c, 0);
            }
        }
      else
        {
          give_back (l, bid);
          for (; k > 0; k -= k < ECHO_HTTP_BATCH ? k : ECHO_HTTP_BATCH)
            {
              const char *out = echo_http_responses (k < ECHO_HTTP_BATCH ? k : ECHO_HTTP_BATCH, &len);
              if (queue_send (l, c, out, len, -1) < 0)
                {
                  start_close (l, c, 0);
                  break;
                }
            }
        }
      if (!more && !c->closing)
        arm_recv (l, c);
    }
  else if (cqe->res == -ENOBUFS && !c->closing)
    {
      if (!more && !c->starved)
        {
          c->starved = 1;
          c->next_starved = l->starved;
          l->starved = c;
        }
    }
  else if (!c->closing && !more)
    start_close (l, c, cqe->res == -ECONNRESET);
  maybe_free (l, c);
}

static void
on_send (struct loop *l, struct conn *c, int res)
{
  c->inflight--;
  struct pend *p = c->head;
  if (res > 0 && !c->closing)
    {
      echo_count (&echo_stats.bytes_out, (uint64_t) res);
      p->off += (size_t) res;
      if (p->off < p->len)
        send_head (l, c);
      else
        {
          c->head = p->next;
          if (c->head == NULL)
            c->tail = NULL;
          if (p->bid >= 0)
            give_back (l, p->bid);
          free (p);
          if (c->head)
            send_head (l, c);
        }
    }
  else if (!c->closing)
    start_close (l, c, res == -ECONNRESET || res == -EPIPE);
  maybe_free (l, c);
}

static void
on_accept (struct loop *l, struct io_uring_cqe *cqe)
{
  if (cqe->res >= 0)
    {
      struct conn *c = calloc (1, sizeof *c);
      if (c == NULL)
        {
          struct io_uring_sqe *sqe = sqe_get (l);
          io_uring_prep_close_direct (sqe, (unsigned) cqe->res);
          set_data (sqe, NULL, TAG_CANCEL);
          echo_count (&echo_stats.refused, 1);
        }
      else
        {
          c->fi = cqe->res;
          echo_count_open (1);
          arm_recv (l, c);
        }
    }
  else if (cqe->res == -ENFILE)
    echo_count (&echo_stats.refused, 1); /* the registered table is full */
  else
    fprintf (stderr, "wl-echo: multishot accept: %s\n", strerror (-cqe->res));
  if (!(cqe->flags & IORING_CQE_F_MORE))
    arm_accept (l);
}

static int
setup (struct loop *l)
{
  struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                               .cq_entries = CQ_ENTRIES };
  int r = io_uring_queue_init_params (SQ_ENTRIES, &l->ring, &p);
  l->taskrun = "single_issuer+defer_taskrun";
  if (r == -EINVAL)
    {
      struct io_uring_params q = { .flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN, .cq_entries = CQ_ENTRIES };
      r = io_uring_queue_init_params (SQ_ENTRIES, &l->ring, &q);
      l->taskrun = "coop_taskrun";
    }
  if (r < 0)
    return fail ("io_uring_queue_init", -r), -1;
  unsigned files = (unsigned) S->n + 64;
  if ((r = io_uring_register_files_sparse (&l->ring, files)) < 0)
    return fail ("io_uring_register_files_sparse", -r), -1;
  size_t brlen = NBUFS * sizeof (struct io_uring_buf);
  l->br = mmap (NULL, brlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  l->bufs = malloc ((size_t) NBUFS * ECHO_BUF);
  if (l->br == MAP_FAILED || l->bufs == NULL)
    return fail ("allocating provided buffers", ENOMEM), -1;
  struct io_uring_buf_reg reg = { .ring_addr = (uint64_t) (uintptr_t) l->br, .ring_entries = NBUFS, .bgid = BGID };
  if ((r = io_uring_register_buf_ring (&l->ring, &reg, 0)) < 0)
    return fail ("io_uring_register_buf_ring", -r), -1;
  io_uring_buf_ring_init (l->br);
  for (int i = 0; i < NBUFS; i++)
    io_uring_buf_ring_add (l->br, l->bufs + (size_t) i * ECHO_BUF, ECHO_BUF, (unsigned short) i,
                           io_uring_buf_ring_mask (NBUFS), i);
  io_uring_buf_ring_advance (l->br, NBUFS);
  arm_accept (l);
  if ((r = io_uring_submit (&l->ring)) < 0)
    return fail ("io_uring_submit", -r), -1;
  return 0;
}

static void *
loop_main (void *arg)
{
  struct loop *l = arg;
  int ok = setup (l) == 0;
  if (l->id == 0 && ok)
    snprintf (S->features, sizeof S->features,
              "multishot_accept,registered_files,multishot_recv,provided_buffers,fixed_file_send,close_direct,%s",
              l->taskrun);
  sem_post (&started);
  if (!ok)
    return NULL;
  for (;;)
    {
      struct io_uring_cqe *cqe;
      unsigned head, seen = 0;
      int r = io_uring_submit_and_wait (&l->ring, 1);
      if (r < 0 && r != -EINTR && r != -EBUSY)
        {
          fprintf (stderr, "wl-echo: io_uring_submit_and_wait: %s\n", strerror (-r));
          abort ();
        }
      io_uring_for_each_cqe (&l->ring, head, cqe)
        {
          uint64_t ud = io_uring_cqe_get_data64 (cqe);
          void *ptr = (void *) (uintptr_t) (ud & ~(uint64_t) 7);
          seen++;
          switch (ud & 7)
            {
            case TAG_ACCEPT: on_accept (l, cqe); break;
            case TAG_RECV: on_recv (l, ptr, cqe); break;
            case TAG_SEND: on_send (l, ptr, cqe->res); break;
            case TAG_CLOSE:
              {
                struct conn *c = ptr;
                c->inflight--;
                maybe_free (l, c);
                break;
              }
            default: break; /* cancel, close of a refused connection */
            }
        }
      io_uring_cq_advance (&l->ring, seen);
    }
  return NULL;
}

int
echo_uring_start (struct echo_server *srv)
{
  S = srv;
  sem_init (&started, 0, 0);
  struct loop *loops = calloc ((size_t) srv->cpus, sizeof *loops);
  if (loops == NULL)
    return snprintf (srv->error, sizeof srv->error, "out of memory"), -1;
  for (int i = 0; i < srv->cpus; i++)
    {
      pthread_t t;
      loops[i].id = i;
      int e = pthread_create (&t, NULL, loop_main, &loops[i]);
      if (e)
        return snprintf (srv->error, sizeof srv->error, "event loop thread: %s", strerror (e)), -1;
    }
  for (int i = 0; i < srv->cpus; i++)
    sem_wait (&started);
  return start_failed ? -1 : 0;
}
