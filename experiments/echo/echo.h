/*
 * echo.h - experiment `echo`: one server, five ways of doing the same work.
 *
 * The server listens on 127.0.0.1:PORT inside the point's network namespace,
 * prints `@lab-ready {"port":P,...}` (wl_ready) once it accepts, and serves
 * until SIGTERM (the harness sends it when the load generator - the point's
 * companion, harness/companion.c - has finished).  Then it prints its report:
 * connections accepted, bytes in/out, requests answered, the largest number
 * of connections open at once, and for io_uring variants the features used.
 *
 * The work, identical in every variant (proto.c):
 *   proto=echo  read what arrives, write the same bytes back;
 *   proto=http  for every complete HTTP/1.1 request (headers ending in an
 *               empty line) write one fixed keep-alive response.
 * Variants: thread (a pthread per connection, blocking I/O), epoll (a
 * non-blocking reactor per server CPU), uring (an io_uring loop per server
 * CPU: multishot accept into registered files, multishot recv with provided
 * buffers), coro-epoll and coro-uring (a coroutine per connection on our
 * runtime, experiments/runtime/, with its epoll or io_uring backend).
 * "Per server CPU" = the CPUs in the server's affinity mask (its cpuset).
 */
#ifndef LAB_ECHO_H
#define LAB_ECHO_H

#include <stddef.h>
#include <stdint.h>

#include "wl.h"

enum echo_proto { ECHO_PROTO_ECHO, ECHO_PROTO_HTTP };

#define ECHO_BUF 4096 /* bytes read at once */

struct echo_server
{
  const struct wl_args *a;
  enum echo_proto proto;
  int listen_fd;          /* blocking; variants set O_NONBLOCK if they need it */
  int port;
  int cpus;               /* CPUs in the affinity mask: event loops / workers */
  long n;                 /* connections the run is sized for */
  const char *backend;    /* coro variants: the runtime's I/O backend */
  char features[256];     /* io_uring features in use, comma-separated */
  char error[256];        /* set by a variant's start() on failure */
  const char *limit;      /* a host limit stopped the variant (e.g. "RLIMIT_NOFILE") */
  char limit_detail[256];
};

/* Counters every variant updates (relaxed atomics). */
struct echo_stats
{
  uint64_t accepted, closed, resets, refused, bytes_in, bytes_out, requests;
  int64_t open, open_max;
};
extern struct echo_stats echo_stats;
void echo_count_open (int delta);
void echo_count (uint64_t *counter, uint64_t v);

/* Protocol state of one connection (http: how much of "\r\n\r\n" matched). */
struct echo_proto_state
{
  uint8_t match;
};
/* Feeds `len` received bytes; returns how many responses to send (http), or
   `len` (echo: the same bytes go back). */
size_t echo_proto_feed (enum echo_proto p, struct echo_proto_state *st, const char *buf, size_t len);
/* The http response repeated `k` times: *len bytes at the returned address
   (k <= ECHO_HTTP_BATCH). */
#define ECHO_HTTP_BATCH 64
const char *echo_http_responses (size_t k, size_t *len);
/* Writes all `len` bytes with `op` (a blocking write: write(2) for thread,
   coro_send for the coroutine variants), counting them; -1 on error. */
typedef ssize_t (*echo_send_op) (int fd, const void *buf, size_t len, int flags);
int echo_write_all (int fd, const char *buf, size_t len, echo_send_op op);

/* A variant: starts serving on srv->listen_fd in background threads and
   returns 0, or -1 with srv->error (or srv->limit) set. */
int echo_thread_start (struct echo_server *srv);
int echo_epoll_start (struct echo_server *srv);
int echo_uring_start (struct echo_server *srv);
int echo_coro_start (struct echo_server *srv); /* backend from srv->backend */
/* Extra figures of a variant for the report (may be NULL). */
void echo_coro_report (struct wl_report *r);

#endif
