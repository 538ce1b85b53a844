/*
 * thread.c - echo variant `thread`: one pthread per connection, blocking I/O.
 *
 * The acceptor thread accepts and creates a detached thread per connection
 * with a small stack (--stack, default 64 KiB, as in `spawn`), which reads
 * into a buffer on its stack and writes the answer back until EOF or error.
 * A thread that cannot be created is a host limit (wl_which_limit names it):
 * the connection is closed and the acceptor stops accepting; the run goes on
 * with the connections it has, and the report says how many were refused.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "echo.h"

#define THREAD_STACK_DEFAULT (64 * 1024)

static struct echo_server *S;
static pthread_attr_t conn_attr;

/* write(2), as echo_write_all's op: the thread variant's blocking write. */
static ssize_t
write_op (int fd, const void *buf, size_t len, int flags)
{
  (void) flags;
  return write (fd, buf, len);
}

static void *
conn_main (void *arg)
{
  int fd = (int) (intptr_t) arg;
  struct echo_proto_state st = { 0 };
  char buf[ECHO_BUF];

  for (;;)
    {
      ssize_t n = read (fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n < 0 && errno == ECONNRESET)
            echo_count (&echo_stats.resets, 1);
          break;
        }
      size_t k = echo_proto_feed (S->proto, &st, buf, (size_t) n), len;
      const char *out = buf;
      if (S->proto == ECHO_PROTO_HTTP)
        {
          out = echo_http_responses (k < ECHO_HTTP_BATCH ? k : ECHO_HTTP_BATCH, &len);
          for (; k > ECHO_HTTP_BATCH; k -= ECHO_HTTP_BATCH)
            if (echo_write_all (fd, out, len, write_op) < 0)
              goto done;
          out = echo_http_responses (k, &len);
        }
      else
        len = k;
      if (len && echo_write_all (fd, out, len, write_op) < 0)
        break;
    }
done:
  close (fd);
  echo_count_open (-1);
  return NULL;
}

static void *
acceptor (void *arg)
{
  for (;;)
    {
      int fd = accept4 (S->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          perror ("wl-echo: accept");
          usleep (1000); /* EMFILE and friends: do not spin */
          continue;
        }
      echo_count_open (1);
      pthread_t t;
      int e = pthread_create (&t, &conn_attr, conn_main, (void *) (intptr_t) fd);
      if (e)
        {
          char detail[256];
          const char *lim = wl_which_limit (e, (long) echo_stats.open, detail, sizeof detail);
          fprintf (stderr, "wl-echo: thread for connection %ld: %s (%s: %s)\n", (long) echo_stats.open,
                   strerror (e), lim, detail);
          close (fd);
          echo_count_open (-1);
          echo_count (&echo_stats.refused, 1);
        }
    }
  return NULL;
}

int
echo_thread_start (struct echo_server *srv)
{
  pthread_t t;
  S = srv;
  pthread_attr_init (&conn_attr);
  pthread_attr_setdetachstate (&conn_attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize (&conn_attr, (size_t) wl_thread_stack_bytes (srv->a, THREAD_STACK_DEFAULT));
  int e = pthread_create (&t, NULL, acceptor, NULL);
  if (e)
    {
      snprintf (srv->error, sizeof srv->error, "acceptor thread: %s", strerror (e));
      return -1;
    }
  return 0;
}
