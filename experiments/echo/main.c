/*
 * main.c - wl-echo: the common part of every variant (see echo.h).
 *
 * Order: parse options, size RLIMIT_NOFILE for n connections (a count the
 * host cannot hold ends `limit` naming RLIMIT_NOFILE or
 * net.ipv4.ip_local_port_range), block SIGTERM/SIGINT in every thread, bind
 * and listen on 127.0.0.1:port, start the variant, print `@lab-ready`, wait
 * for SIGTERM, print the report and _exit (connections still open are the
 * harness's to tear down with the sandbox; joining 10,000 blocked threads
 * would only measure teardown).
 *
 * Options (--opt): proto=echo|http, port=P (default 8080), and for the
 * tests of the harness's failure paths fault=no-ready (never prints
 * @lab-ready), crash (aborts 0.3 s after ready), port-in-use (binds the
 * port first with another socket), refuse (closes the listening socket right
 * after ready, so connects are refused).
 *
 * The ready line is {"port":P,"proto":...}; coroutine variants add
 * "idle_addr", the address of the runtime's idle-spin counter (coro-idle.h),
 * and their report `idle_spin_ns`, its total from start to SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coro-idle.h"
#include "echo.h"

#define FD_RESERVE 64 /* fds besides the connections: listen, rings, epoll, stdio */

static int
raise_nofile (long need, struct echo_server *srv)
{
  struct rlimit rl;
  getrlimit (RLIMIT_NOFILE, &rl);
  if ((rlim_t) need > rl.rlim_cur && rl.rlim_max > rl.rlim_cur)
    {
      rl.rlim_cur = (rlim_t) need < rl.rlim_max ? (rlim_t) need : rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
      getrlimit (RLIMIT_NOFILE, &rl);
    }
  if ((rlim_t) need > rl.rlim_cur)
    {
      srv->limit = "RLIMIT_NOFILE";
      snprintf (srv->limit_detail, sizeof srv->limit_detail,
                "%ld connections need %ld file descriptors; RLIMIT_NOFILE is %llu (hard %llu)", srv->n, need,
                (unsigned long long) rl.rlim_cur, (unsigned long long) rl.rlim_max);
      return -1;
    }
  return 0;
}

/* The client's ephemeral ports in this network namespace. */
static int
check_ports (struct echo_server *srv)
{
  long lo = 0, hi = 0;
  FILE *f = fopen ("/proc/sys/net/ipv4/ip_local_port_range", "re");
  if (f == NULL)
    return 0;
  int ok = fscanf (f, "%ld %ld", &lo, &hi) == 2;
  fclose (f);
  if (ok && hi >= lo && srv->n > hi - lo + 1)
    {
      srv->limit = "net.ipv4.ip_local_port_range";
      snprintf (srv->limit_detail, sizeof srv->limit_detail,
                "%ld connections from one client address need %ld ephemeral ports; the range %ld-%ld has %ld",
                srv->n, srv->n, lo, hi, hi - lo + 1);
      return -1;
    }
  return 0;
}

static int
listen_on (struct echo_server *srv, char *err, size_t len)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) srv->port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return snprintf (err, len, "socket: %s", strerror (errno)), -1;
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  /* Every variant answers small requests one write each: without
     TCP_NODELAY, Nagle holds an answer while the connection's previous one
     is unacknowledged, and the client acknowledges with its next request
     (its delayed-ACK timer, 40 ms, is longer than the gap between requests
     at 60K/s over 1000 connections, 16.7 ms), so one pair of answers sent
     back to back starts a chain in which every later answer waits one
     request interval.  Set on the listening socket, inherited by every
     accepted one (Linux copies it at accept; the uring variant's
     connections never enter the fd table to be set one by one). */
  if (setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
    {
      snprintf (err, len, "setsockopt TCP_NODELAY: %s", strerror (errno));
      close (fd);
      return -1;
    }
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      snprintf (err, len, "bind 127.0.0.1:%d: %s", srv->port, strerror (errno));
      close (fd);
      return -1;
    }
  int backlog = srv->n < 4096 ? 4096 : (int) srv->n;
  if (listen (fd, backlog) < 0)
    {
      snprintf (err, len, "listen 127.0.0.1:%d: %s", srv->port, strerror (errno));
      close (fd);
      return -1;
    }
  srv->listen_fd = fd;
  return 0;
}

static int
serve (const struct wl_args *a, struct wl_report *r, int (*start) (struct echo_server *), const char *backend)
{
  static struct echo_server srv;
  char err[256];
  const char *proto = wl_opt (a, "proto", "echo");
  sigset_t stop;

  srv.a = a;
  srv.backend = backend;
  srv.n = a->n;
  srv.listen_fd = -1;
  srv.port = (int) wl_opt_long (a, "port", 8080);
  if (strcmp (proto, "echo") == 0)
    srv.proto = ECHO_PROTO_ECHO;
  else if (strcmp (proto, "http") == 0)
    srv.proto = ECHO_PROTO_HTTP;
  else
    {
      fprintf (stderr, "wl-echo: option `--opt proto=%s`: expected echo or http\n", proto);
      exit (2);
    }
  if (srv.port < 1 || srv.port > 65535)
    {
      fprintf (stderr, "wl-echo: option `--opt port=%d`: expected 1..65535\n", srv.port);
      exit (2);
    }
  cpu_set_t cs;
  srv.cpus = sched_getaffinity (0, sizeof cs, &cs) == 0 ? CPU_COUNT (&cs) : 1;
  wl_report_str (r, "proto", proto);
  wl_report_int (r, "port", srv.port);
  wl_report_int (r, "server_cpus", srv.cpus);
  if (raise_nofile (a->n + FD_RESERVE, &srv) < 0 || check_ports (&srv) < 0)
    return wl_report_limit (r, srv.limit, srv.limit_detail);
  (void) echo_http_responses (0, &(size_t){ 0 }); /* fills the batch before any thread runs */
  /* Threads inherit the mask: only this thread takes SIGTERM, in sigwait. */
  sigemptyset (&stop);
  sigaddset (&stop, SIGTERM);
  sigaddset (&stop, SIGINT);
  pthread_sigmask (SIG_BLOCK, &stop, NULL);
  signal (SIGPIPE, SIG_IGN);
  const char *fault = wl_opt (a, "fault", "none");
  if (strcmp (fault, "port-in-use") == 0)
    {
      /* a squatter: the real listener below finds the port taken */
      if (listen_on (&srv, err, sizeof err) < 0)
        return wl_report_error (r, err);
    }
  if (listen_on (&srv, err, sizeof err) < 0)
    return wl_report_error (r, err);
  if (start (&srv) < 0)
    {
      if (srv.limit)
        return wl_report_limit (r, srv.limit, srv.limit_detail);
      return wl_report_error (r, srv.error[0] ? srv.error : "the variant failed to start");
    }
  wl_report_baseline (r); /* before any connection: per-connection figures subtract it */
  wl_region_begin ();     /* the measured region: from ready to SIGTERM */
  /* coroutine variants: where the runtime's idle-spin counter is
     (coro-idle.h), for the load generator to read it at its window's edges */
  if (strcmp (fault, "no-ready") != 0 && start == echo_coro_start)
    wl_ready ("{\"port\":%d,\"proto\":\"%s\",\"idle_addr\":\"%p\"}", srv.port, proto,
              (void *) &coro_idle_spin_ns);
  else if (strcmp (fault, "no-ready") != 0)
    wl_ready ("{\"port\":%d,\"proto\":\"%s\"}", srv.port, proto);
  if (strcmp (fault, "crash") == 0)
    {
      usleep (300000);
      abort ();
    }
  if (strcmp (fault, "refuse") == 0)
    shutdown (srv.listen_fd, SHUT_RDWR);
  int sig = 0;
  sigwait (&stop, &sig);
  wl_report_num (r, "wall_s", wl_region_end ());
  wl_report_str (r, "stopped_by", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  wl_report_int (r, "accepted", (int64_t) __atomic_load_n (&echo_stats.accepted, __ATOMIC_RELAXED));
  wl_report_int (r, "closed", (int64_t) __atomic_load_n (&echo_stats.closed, __ATOMIC_RELAXED));
  wl_report_int (r, "refused", (int64_t) __atomic_load_n (&echo_stats.refused, __ATOMIC_RELAXED));
  wl_report_int (r, "resets", (int64_t) __atomic_load_n (&echo_stats.resets, __ATOMIC_RELAXED));
  wl_report_int (r, "open_max", __atomic_load_n (&echo_stats.open_max, __ATOMIC_RELAXED));
  wl_report_int (r, "bytes_in", (int64_t) __atomic_load_n (&echo_stats.bytes_in, __ATOMIC_RELAXED));
  wl_report_int (r, "bytes_out", (int64_t) __atomic_load_n (&echo_stats.bytes_out, __ATOMIC_RELAXED));
  wl_report_int (r, "server_requests", (int64_t) __atomic_load_n (&echo_stats.requests, __ATOMIC_RELAXED));
  wl_report_str (r, "uring_features", srv.features[0] ? srv.features : NULL);
  int nodelay = 0;
  socklen_t nlen = sizeof nodelay;
  getsockopt (srv.listen_fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &nlen);
  wl_report_int (r, "tcp_nodelay", nodelay); /* what every accepted connection inherited */
  if (start == echo_coro_start)
    {
      echo_coro_report (r);
      wl_report_int (r, "idle_spin_ns", (int64_t) coro_idle_spin_total ());
    }
  wl_report_ok (r);
  _exit (0);
}

static int
v_thread (const struct wl_args *a, struct wl_report *r)
{
  return serve (a, r, echo_thread_start, NULL);
}

static int
v_epoll (const struct wl_args *a, struct wl_report *r)
{
  return serve (a, r, echo_epoll_start, NULL);
}

static int
v_uring (const struct wl_args *a, struct wl_report *r)
{
  return serve (a, r, echo_uring_start, NULL);
}

static int
v_coro_epoll (const struct wl_args *a, struct wl_report *r)
{
  return serve (a, r, echo_coro_start, "epoll");
}

static int
v_coro_uring (const struct wl_args *a, struct wl_report *r)
{
  return serve (a, r, echo_coro_start, "io_uring");
}

int
main (int argc, char **argv)
{
  static const struct wl_variant variants[] = {
    { "thread", v_thread }, { "epoll", v_epoll }, { "uring", v_uring },
    { "coro-epoll", v_coro_epoll }, { "coro-uring", v_coro_uring },
  };
  return wl_main (argc, argv, "echo", variants, sizeof variants / sizeof variants[0]);
}
