/*
 * epoll.c - echo variant `epoll`: the classic non-blocking reactor.
 *
 * One event loop thread per server CPU, each with its own epoll set; the
 * listening socket is in every set with EPOLLEXCLUSIVE (one loop wakes per
 * new connection), and a loop keeps the connections it accepted.  Reads go
 * into the loop's one buffer and are answered at once; only bytes the socket
 * would not take are copied into a per-connection pending buffer, and the
 * connection then waits for EPOLLOUT instead of EPOLLIN (back-pressure: a
 * client that does not read stops being read).  Level-triggered.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "echo.h"

struct conn
{
  int fd;
  struct echo_proto_state st;
  char *pending;     /* bytes still to write, or NULL */
  size_t pend_off, pend_len;
};

static struct echo_server *S;

static void
conn_close (int ep, struct conn *c, int reset)
{
  epoll_ctl (ep, EPOLL_CTL_DEL, c->fd, NULL);
  close (c->fd);
  if (reset)
    echo_count (&echo_stats.resets, 1);
  echo_count_open (-1);
  free (c->pending);
  free (c);
}

/* Writes what it can; keeps the rest.  -1: the connection failed. */
static int
send_or_keep (int ep, struct conn *c, const char *buf, size_t len)
{
  size_t done = 0;
  while (done < len)
    {
      ssize_t w = send (c->fd, buf + done, len - done, MSG_NOSIGNAL);
      if (w > 0)
        {
          echo_count (&echo_stats.bytes_out, (uint64_t) w);
          done += (size_t) w;
          continue;
        }
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0 && errno == EAGAIN)
        break;
      return -1;
    }
  if (done == len)
    return 0;
  size_t rest = len - done;
  char *p = realloc (c->pending, c->pend_len + rest);
  if (p == NULL)
    return -1;
  memcpy (p + c->pend_len, buf + done, rest);
  c->pending = p;
  c->pend_len += rest;
  struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
  epoll_ctl (ep, EPOLL_CTL_MOD, c->fd, &ev);
  return 0;
}

static int
answer (int ep, struct conn *c, const char *buf, size_t n)
{
  size_t k = echo_proto_feed (S->proto, &c->st, buf, n), len;
  if (S->proto == ECHO_PROTO_ECHO)
    return send_or_keep (ep, c, buf, k);
  for (; k > 0; k -= k < ECHO_HTTP_BATCH ? k : ECHO_HTTP_BATCH)
    {
      const char *out = echo_http_responses (k < ECHO_HTTP_BATCH ? k : ECHO_HTTP_BATCH, &len);
      if (send_or_keep (ep, c, out, len) < 0)
        return -1;
    }
  return 0;
}

static void
on_readable (int ep, struct conn *c, char *buf)
{
  for (int rounds = 0; rounds < 4 && c->pending == NULL; rounds++)
    {
      ssize_t n = recv (c->fd, buf, ECHO_BUF, 0);
      if (n > 0)
        {
          if (answer (ep, c, buf, (size_t) n) < 0)
            {
              conn_close (ep, c, 0);
              return;
            }
          if (n < ECHO_BUF)
            return;
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
      conn_close (ep, c, n < 0 && errno == ECONNRESET);
      return;
    }
}

static void
on_writable (int ep, struct conn *c)
{
  while (c->pend_off < c->pend_len)
    {
      ssize_t w = send (c->fd, c->pending + c->pend_off, c->pend_len - c->pend_off, MSG_NOSIGNAL);
      if (w > 0)
        {
          echo_count (&echo_stats.bytes_out, (uint64_t) w);
          c->pend_off += (size_t) w;
          continue;
        }
      if (w < 0 && (errno == EAGAIN || errno == EINTR))
        return;
      conn_close (ep, c, w < 0 && errno == ECONNRESET);
      return;
    }
  free (c->pending);
  c->pending = NULL;
  c->pend_off = c->pend_len = 0;
  struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
  epoll_ctl (ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void
on_accept (int ep)
{
  for (int i = 0; i < 64; i++)
    {
      int fd = accept4 (S->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0)
        {
          if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            perror ("wl-echo: accept");
          return;
        }
      struct conn *c = calloc (1, sizeof *c);
      struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
      if (c == NULL || (c->fd = fd, epoll_ctl (ep, EPOLL_CTL_ADD, fd, &ev) < 0))
        {
          close (fd);
          free (c);
          echo_count (&echo_stats.refused, 1);
          continue;
        }
      echo_count_open (1);
    }
}

static void *
loop (void *arg)
{
  int ep = (int) (intptr_t) arg;
  struct epoll_event evs[256];
  char *buf = malloc (ECHO_BUF);

  for (;;)
    {
      int n = epoll_wait (ep, evs, 256, -1);
      for (int i = 0; i < n; i++)
        {
          if (evs[i].data.ptr == NULL) /* the listening socket */
            {
              on_accept (ep);
              continue;
            }
          struct conn *c = evs[i].data.ptr;
          if (evs[i].events & EPOLLOUT)
            on_writable (ep, c);
          else if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            on_readable (ep, c, buf);
        }
    }
  return NULL;
}

int
echo_epoll_start (struct echo_server *srv)
{
  S = srv;
  fcntl (srv->listen_fd, F_SETFL, fcntl (srv->listen_fd, F_GETFL) | O_NONBLOCK);
  for (int i = 0; i < srv->cpus; i++)
    {
      int ep = epoll_create1 (EPOLL_CLOEXEC);
      if (ep < 0)
        {
          snprintf (srv->error, sizeof srv->error, "epoll_create1: %s", strerror (errno));
          return -1;
        }
      struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = NULL };
      if (epoll_ctl (ep, EPOLL_CTL_ADD, srv->listen_fd, &ev) < 0)
        {
          snprintf (srv->error, sizeof srv->error, "epoll_ctl(listen): %s", strerror (errno));
          return -1;
        }
      pthread_t t;
      int e = pthread_create (&t, NULL, loop, (void *) (intptr_t) ep);
      if (e)
        {
          snprintf (srv->error, sizeof srv->error, "event loop thread: %s", strerror (e));
          return -1;
        }
    }
  return 0;
}
