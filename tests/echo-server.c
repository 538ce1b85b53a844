/* Description: every wl-echo variant (thread, epoll, uring, coro-epoll,
 * coro-uring) does the same work, checked in a network namespace of the
 * test's own: bytes back equal bytes sent, written and read in odd-sized
 * pieces (partial reads and writes); 200 connections at once, each with its
 * own pattern; a peer that resets its connection (SO_LINGER 0) is counted
 * and the server keeps serving; proto=http answers two pipelined requests
 * with two responses; after SIGTERM the report's bytes_in equals bytes_out
 * and every connection was accepted and closed; every variant's connections
 * have TCP_NODELAY (inherited from the listening socket). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json.h>

#include "lab-test.h"

static const char *const variants[] = { "thread", "epoll", "uring", "coro-epoll", "coro-uring" };
static char wl[4096];

struct server
{
  pid_t pid;
  int out;
  int port;
};

static void
start (struct server *s, const char *variant, const char *proto, int port)
{
  int p[2];
  char po[32], pr[32];
  snprintf (po, sizeof po, "port=%d", port);
  snprintf (pr, sizeof pr, "proto=%s", proto);
  assert_int_equal (pipe (p), 0);
  s->port = port;
  s->pid = fork ();
  assert_true (s->pid >= 0);
  if (s->pid == 0)
    {
      dup2 (p[1], 1);
      close (p[0]);
      execl (wl, wl, "--variant", variant, "--n", "300", "--opt", po, "--opt", pr, (char *) NULL);
      _exit (127);
    }
  close (p[1]);
  s->out = p[0];
  char line[256];
  size_t k = 0;
  struct pollfd pf = { s->out, POLLIN, 0 };
  while (k < sizeof line - 1 && poll (&pf, 1, 10000) > 0 && read (s->out, line + k, 1) == 1 && line[k] != '\n')
    k++;
  line[k] = '\0';
  if (strncmp (line, "@lab-ready ", 11) != 0)
    fail_msg ("%s: no ready line, got `%s`", variant, line);
}

/* SIGTERM, then the report object. */
static json_object *
stop (struct server *s)
{
  static char buf[65536];
  size_t len = 0;
  ssize_t r;
  int st;
  kill (s->pid, SIGTERM);
  while ((r = read (s->out, buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t) r;
  buf[len] = '\0';
  close (s->out);
  assert_int_equal (waitpid (s->pid, &st, 0), s->pid);
  assert_true (WIFEXITED (st) && WEXITSTATUS (st) == 0);
  char *rep = strstr (buf, "@lab-report ");
  assert_non_null (rep);
  json_object *o = json_tokener_parse (rep + 12);
  assert_non_null (o);
  return o;
}

static int64_t
geti (json_object *o, const char *k)
{
  json_object *v = NULL;
  assert_true (json_object_object_get_ex (o, k, &v));
  return json_object_get_int64 (v);
}

static int
dial (int port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true (fd >= 0);
  assert_int_equal (connect (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  struct timeval tv = { 10, 0 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

static uint8_t
pat (int conn, size_t off)
{
  return (uint8_t) (off * 31 + (size_t) conn * 7 + (off >> 9));
}

/* Sends `total` bytes in pieces of 1..1500 and reads the echo back in pieces
   of 1..700, interleaved; checks every byte. */
static void
echo_conn (int fd, int conn, size_t total)
{
  size_t sent = 0, got = 0, step = 1;
  char buf[2048];
  while (got < total)
    {
      if (sent < total && sent - got < 8192)
        {
          size_t k = (step * 37) % 1500 + 1;
          if (k > total - sent)
            k = total - sent;
          for (size_t i = 0; i < k; i++)
            buf[i] = (char) pat (conn, sent + i);
          ssize_t w = write (fd, buf, k);
          assert_true (w > 0);
          sent += (size_t) w;
        }
      size_t want = (step * 13) % 700 + 1;
      if (want > sent - got)
        want = sent - got;
      if (want)
        {
          ssize_t r = read (fd, buf, want);
          if (r <= 0)
            fail_msg ("connection %d: read returned %zd after %zu of %zu bytes", conn, r, got, total);
          for (ssize_t i = 0; i < r; i++)
            if ((uint8_t) buf[i] != pat (conn, got + (size_t) i))
              fail_msg ("connection %d: byte %zu came back wrong", conn, got + (size_t) i);
          got += (size_t) r;
        }
      step++;
    }
}

static void
test_echo_variants (void **state)
{
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    {
      struct server s;
      start (&s, variants[v], "echo", 9000 + (int) v);
      /* partial reads and writes on one connection */
      int fd = dial (s.port);
      echo_conn (fd, 0, 300000);
      close (fd);
      /* many connections at once, each its own pattern */
      int fds[200];
      for (int i = 0; i < 200; i++)
        fds[i] = dial (s.port);
      for (int round = 0; round < 3; round++)
        for (int i = 0; i < 200; i++)
          echo_conn (fds[i], i + 1 + 1000 * round, 777 + (size_t) i);
      for (int i = 0; i < 200; i++)
        close (fds[i]);
      /* peer reset: data in flight, then RST */
      fd = dial (s.port);
      char junk[4096] = { 0 };
      assert_true (write (fd, junk, sizeof junk) > 0);
      struct linger lg = { 1, 0 };
      setsockopt (fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
      close (fd);
      /* and the server still serves */
      fd = dial (s.port);
      echo_conn (fd, 5, 10000);
      close (fd);
      usleep (200000); /* let the server see the closes */
      json_object *r = stop (&s);
      int64_t in = geti (r, "bytes_in"), out = geti (r, "bytes_out");
      int64_t expect = 300000 + 3 * (200 * 777 + 199 * 200 / 2) + 10000;
      /* every byte of the good connections back; the reset one's 4096 bytes
         may have reached the server (then maybe not back: its peer is gone) */
      if (!(out >= expect && out <= in && (in == expect || in == expect + 4096)))
        fail_msg ("%s: bytes_in %lld, bytes_out %lld, expected %lld (+4096 of the reset connection)", variants[v],
                  (long long) in, (long long) out, (long long) expect);
      assert_int_equal (geti (r, "accepted"), 203);
      assert_int_equal (geti (r, "closed"), 203);
      assert_true (geti (r, "open_max") >= 200);
      assert_int_equal (geti (r, "tcp_nodelay"), 1); /* no Nagle on the answers */
      if (strcmp (variants[v], "uring") == 0)
        {
          json_object *f = NULL;
          assert_true (json_object_object_get_ex (r, "uring_features", &f));
          assert_non_null (strstr (json_object_get_string (f), "multishot_recv"));
          assert_non_null (strstr (json_object_get_string (f), "provided_buffers"));
          assert_non_null (strstr (json_object_get_string (f), "registered_files"));
        }
      if (strcmp (variants[v], "coro-uring") == 0)
        {
          /* each answer goes out linked to the next receive (io-uring.c) */
          json_object *f = NULL;
          assert_true (json_object_object_get_ex (r, "uring_features", &f));
          assert_non_null (strstr (json_object_get_string (f), "linked send+recv"));
        }
      json_object_put (r);
    }
}

static void
test_http_variants (void **state)
{
  static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n";
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++)
    {
      struct server s;
      start (&s, variants[v], "http", 9100 + (int) v);
      int fd = dial (s.port);
      /* the two requests split mid-terminator: "\r\n\r" then "\n..." */
      size_t cut = strstr (req, "\r\n\r\n") - req + 3;
      assert_int_equal (write (fd, req, cut), (ssize_t) cut);
      usleep (20000);
      assert_int_equal (write (fd, req + cut, sizeof req - 1 - cut), (ssize_t) (sizeof req - 1 - cut));
      char buf[4096];
      size_t len = 0;
      int answers = 0;
      while (answers < 2)
        {
          ssize_t r = read (fd, buf + len, sizeof buf - 1 - len);
          assert_true (r > 0);
          len += (size_t) r;
          buf[len] = '\0';
          answers = 0;
          for (char *p = buf; (p = strstr (p, "HTTP/1.1 200 OK")); p++)
            answers++;
        }
      assert_int_equal (answers, 2);
      close (fd);
      usleep (100000);
      json_object *r = stop (&s);
      assert_int_equal (geti (r, "server_requests"), 2);
      json_object_put (r);
    }
}

static int
setup (void **state)
{
  snprintf (wl, sizeof wl, "%s/bin/wl-echo", getenv ("LAB_BUILD") ? getenv ("LAB_BUILD") : "build");
  if (access (wl, X_OK) < 0 || unshare (CLONE_NEWNET) < 0)
    return -1;
  /* lo up in our own network namespace */
  int s = socket (AF_INET, SOCK_DGRAM, 0);
  struct ifreq ifr = { 0 };
  snprintf (ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  if (s < 0 || ioctl (s, SIOCGIFFLAGS, &ifr) < 0)
    return -1;
  ifr.ifr_flags |= IFF_UP;
  if (ioctl (s, SIOCSIFFLAGS, &ifr) < 0)
    return -1;
  close (s);
  signal (SIGPIPE, SIG_IGN);
  return 0;
}

int
main (void)
{
  if (getuid () != 0)
    {
      printf ("SKIP: needs root for a network namespace of its own\n");
      return 77;
    }
  if (setup (NULL) < 0)
    {
      printf ("SKIP: no wl-echo or no network namespace (%s)\n", strerror (errno));
      return 77;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_echo_variants),
    cmocka_unit_test (test_http_variants),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
