/* loadgen.c - wl-loadgen (see loadgen.h for what it does). */
#include "loadgen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpuwin.h"
#include "hist.h"
#include "wl.h"

#define MAX_CONNECTING 256
#define HDR_MAX 512

static const char http_request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wl-loadgen\r\n\r\n";

struct conn
{
  int fd;
  uint32_t id;
  int connected;
  uint64_t queued_off, sent_off, recv_off; /* stream offsets of the request bytes / answers */
  /* intended (open) or actual (closed) send times of unanswered requests, FIFO */
  uint64_t *times;
  uint32_t t_head, t_len, t_cap;
  /* http answer parsing */
  char hdr[HDR_MAX];
  int hdr_len;
  long body_left; /* -1: reading headers */
  int want_out;   /* EPOLLOUT armed */
};

static struct
{
  const char *addr, *proto_name, *hgrm;
  int port, http;
  long conns;
  size_t size; /* echo request bytes; http: the request's length */
  double warmup_s, closed_s, open_s, rate, drain_s, connect_timeout_s;
  long server_pid;
  uintptr_t idle_addr;
} O = { "127.0.0.1", "echo", NULL, 0, 0, 0, 64, 1, 2, 2, 0, 10, 30, 0, 0 };

static struct conn *C;
static int ep;
static struct hist *h_closed, *h_open;
static char err_msg[512];

enum phase { PH_WARMUP, PH_CLOSED, PH_DRAIN, PH_OPEN, PH_END };
static enum phase phase;
static uint64_t closed_t0, closed_t1, closed_done, warm_done;
static uint64_t open_sent, open_done;
static uint64_t outstanding;

static void __attribute__ ((noreturn, format (printf, 1, 2)))
usage_error (const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "wl-loadgen: ");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, " (try `wl-loadgen --help`)\n");
  exit (2);
}

int
loadgen_is_loopback (const char *addr)
{
  struct in_addr in;
  return inet_pton (AF_INET, addr, &in) == 1 && (ntohl (in.s_addr) >> 24) == 127;
}

static double
num_arg (const char *flag, const char *s, double min, double max)
{
  char *end = NULL;
  errno = 0;
  double v = strtod (s, &end);
  if (errno || end == s || *end || !isfinite (v) || v < min || v > max)
    usage_error ("option `%s`: bad value `%s` (%g..%g)", flag, s, min, max);
  return v;
}

static void
parse (int argc, char **argv)
{
  static const struct option opts[] = {
    { "addr", required_argument, 0, 'a' },    { "port", required_argument, 0, 'p' },
    { "conns", required_argument, 0, 'n' },   { "proto", required_argument, 0, 'P' },
    { "size", required_argument, 0, 's' },    { "warmup", required_argument, 0, 'w' },
    { "closed", required_argument, 0, 'c' },  { "open", required_argument, 0, 'o' },
    { "rate", required_argument, 0, 'r' },    { "drain", required_argument, 0, 'd' },
    { "connect-timeout", required_argument, 0, 'T' }, { "hgrm", required_argument, 0, 'H' },
    { "server-pid", required_argument, 0, 'S' }, { "server-idle-addr", required_argument, 0, 'I' },
    { "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 },
  };
  int c;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":", opts, NULL)) != -1)
    switch (c)
      {
      case 'a': O.addr = optarg; break;
      case 'p': O.port = (int) num_arg ("--port", optarg, 1, 65535); break;
      case 'n': O.conns = (long) num_arg ("--conns", optarg, 1, 1000000); break;
      case 'P': O.proto_name = optarg; break;
      case 's': O.size = (size_t) num_arg ("--size", optarg, 1, 1 << 20); break;
      case 'w': O.warmup_s = num_arg ("--warmup", optarg, 0, 3600); break;
      case 'c': O.closed_s = num_arg ("--closed", optarg, 0, 3600); break;
      case 'o': O.open_s = num_arg ("--open", optarg, 0, 3600); break;
      case 'r': O.rate = num_arg ("--rate", optarg, 0, 1e8); break;
      case 'd': O.drain_s = num_arg ("--drain", optarg, 0, 3600); break;
      case 'T': O.connect_timeout_s = num_arg ("--connect-timeout", optarg, 0.01, 3600); break;
      case 'H': O.hgrm = optarg; break;
      case 'S': O.server_pid = (long) num_arg ("--server-pid", optarg, 1, 1 << 30); break;
      case 'I':
        {
          char *end = NULL;
          if (optarg[0] == '\0')
            break; /* none: a server without the counter (the harness substitutes "") */
          errno = 0;
          unsigned long long v = strtoull (optarg, &end, 0);
          if (errno || end == optarg || *end || v == 0)
            usage_error ("option `--server-idle-addr`: bad value `%s` (an address such as 0x55d0c0de1000)", optarg);
          O.idle_addr = (uintptr_t) v;
          break;
        }
      case 'h':
        printf ("usage: wl-loadgen --port P --conns N [--addr 127.0.0.1] [--proto echo|http] [--size B]\n"
                "       [--warmup S] [--closed S] [--open S] [--rate R] [--drain S] [--connect-timeout S]\n"
                "       [--hgrm FILE] [--server-pid PID [--server-idle-addr ADDR]]\nPrints one `@lab-report {json}` line (see experiments/loadgen/loadgen.h).\n");
        exit (0);
      case ':': usage_error ("option `%s` needs a value", argv[optind - 1]);
      default: usage_error ("unknown option `%s`", argv[optind - 1]);
      }
  if (optind < argc)
    usage_error ("unexpected argument `%s`", argv[optind]);
  if (O.port == 0 || O.conns == 0)
    usage_error ("--port and --conns are required");
  if (O.idle_addr && !O.server_pid)
    usage_error ("option `--server-idle-addr` needs `--server-pid`");
  if (!loadgen_is_loopback (O.addr))
    usage_error ("option `--addr`: `%s` is not a loopback address (127.0.0.0/8); the lab talks only on loopback",
                 O.addr);
  if (strcmp (O.proto_name, "http") == 0)
    {
      O.http = 1;
      O.size = sizeof http_request - 1;
    }
  else if (strcmp (O.proto_name, "echo") != 0)
    usage_error ("option `--proto`: `%s` is not echo or http", O.proto_name);
}

static uint64_t
now_ns (void)
{
  return wl_now_ns ();
}

static void
fail (const char *fmt, ...)
{
  va_list ap;
  if (err_msg[0])
    return;
  va_start (ap, fmt);
  vsnprintf (err_msg, sizeof err_msg, fmt, ap);
  va_end (ap);
}

/* ---- request bytes out ---------------------------------------------------- */

static void
fill (struct conn *c, uint64_t off, char *buf, size_t len)
{
  for (size_t i = 0; i < len; i++)
    buf[i] = O.http ? http_request[(off + i) % O.size] : (char) loadgen_pattern (c->id, off + i);
}

static void
set_out (struct conn *c, int on)
{
  if (c->want_out == on)
    return;
  struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };
  epoll_ctl (ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->want_out = on;
}

static void
flush (struct conn *c)
{
  char buf[4096];
  while (c->sent_off < c->queued_off)
    {
      size_t len = c->queued_off - c->sent_off < sizeof buf ? (size_t) (c->queued_off - c->sent_off) : sizeof buf;
      fill (c, c->sent_off, buf, len);
      ssize_t w = send (c->fd, buf, len, MSG_NOSIGNAL);
      if (w > 0)
        {
          c->sent_off += (uint64_t) w;
          continue;
        }
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0 && errno == EAGAIN)
        break;
      fail ("connection %u: send: %s", c->id, w < 0 ? strerror (errno) : "closed");
      return;
    }
  set_out (c, c->sent_off < c->queued_off);
}

static void
push_time (struct conn *c, uint64_t t)
{
  if (c->t_len == c->t_cap)
    {
      uint32_t cap = c->t_cap ? c->t_cap * 2 : 4;
      uint64_t *n = malloc (cap * sizeof *n);
      if (n == NULL)
        {
          fail ("out of memory for send times");
          return;
        }
      for (uint32_t i = 0; i < c->t_len; i++)
        n[i] = c->times[(c->t_head + i) % c->t_cap];
      free (c->times);
      c->times = n;
      c->t_head = 0;
      c->t_cap = cap;
    }
  c->times[(c->t_head + c->t_len) % c->t_cap] = t;
  c->t_len++;
}

static void
send_request (struct conn *c, uint64_t t)
{
  push_time (c, t);
  c->queued_off += O.size;
  outstanding++;
  flush (c);
}

/* ---- answers in ------------------------------------------------------------ */

static void
answered (struct conn *c, uint64_t t)
{
  if (c->t_len == 0)
    {
      fail ("connection %u: an answer nobody asked for", c->id);
      return;
    }
  uint64_t sent = c->times[c->t_head];
  c->t_head = (c->t_head + 1) % c->t_cap;
  c->t_len--;
  outstanding--;
  uint64_t lat = t > sent ? t - sent : 0;
  switch (phase)
    {
    case PH_WARMUP:
      warm_done++;
      break;
    case PH_CLOSED:
      if (t < closed_t1)
        {
          closed_done++;
          hist_record (h_closed, lat);
        }
      break;
    case PH_OPEN:
    case PH_END:
      if (sent >= closed_t1) /* a request of the open phase */
        {
          open_done++;
          hist_record (h_open, lat);
        }
      break;
    default:
      break;
    }
  /* Closed loop: the next request right away. */
  if (phase == PH_WARMUP || phase == PH_CLOSED)
    send_request (c, t);
}

static void
http_bytes (struct conn *c, const char *p, size_t n, uint64_t t)
{
  while (n > 0)
    {
      if (c->body_left > 0)
        {
          size_t k = (size_t) c->body_left < n ? (size_t) c->body_left : n;
          c->body_left -= (long) k;
          p += k;
          n -= k;
          if (c->body_left == 0)
            {
              c->body_left = -1;
              answered (c, t);
            }
          continue;
        }
      if (c->hdr_len == HDR_MAX)
        {
          fail ("connection %u: an HTTP header longer than %d bytes", c->id, HDR_MAX);
          return;
        }
      c->hdr[c->hdr_len++] = *p++;
      n--;
      if (c->hdr_len >= 4 && memcmp (c->hdr + c->hdr_len - 4, "\r\n\r\n", 4) == 0)
        {
          c->hdr[c->hdr_len] = '\0';
          if (strncmp (c->hdr, "HTTP/1.1 200", 12) != 0)
            {
              fail ("connection %u: answer `%.40s` is not HTTP/1.1 200", c->id, c->hdr);
              return;
            }
          const char *cl = strcasestr (c->hdr, "\r\nContent-Length:");
          long len = cl ? strtol (cl + 17, NULL, 10) : 0;
          c->hdr_len = 0;
          c->body_left = len;
          if (len == 0)
            {
              c->body_left = -1;
              answered (c, t);
            }
        }
    }
}

static void
on_readable (struct conn *c)
{
  char buf[16384];
  for (;;)
    {
      ssize_t n = recv (c->fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return;
      if (n <= 0)
        {
          fail ("connection %u: %s by the server after %llu bytes", c->id,
                n == 0 ? "closed" : strerror (errno), (unsigned long long) c->recv_off);
          return;
        }
      uint64_t t = now_ns ();
      if (O.http)
        http_bytes (c, buf, (size_t) n, t);
      else
        {
          if (c->recv_off + (uint64_t) n > c->sent_off)
            {
              fail ("connection %u: %zd bytes back, more than were sent", c->id, n);
              return;
            }
          for (ssize_t i = 0; i < n; i++)
            if ((uint8_t) buf[i] != loadgen_pattern (c->id, c->recv_off + (uint64_t) i))
              {
                fail ("connection %u: byte %llu came back wrong", c->id, (unsigned long long) (c->recv_off + (uint64_t) i));
                return;
              }
          uint64_t before = c->recv_off / O.size;
          c->recv_off += (uint64_t) n;
          for (uint64_t k = c->recv_off / O.size - before; k > 0; k--)
            answered (c, t);
        }
      if (err_msg[0])
        return;
      if ((size_t) n < sizeof buf)
        return;
    }
}

/* ---- connecting ----------------------------------------------------------- */

static int
connect_all (struct sockaddr_in *sa, double *took)
{
  uint64_t t0 = now_ns (), deadline = t0 + (uint64_t) (O.connect_timeout_s * 1e9);
  long next = 0, done = 0, inflight = 0;
  struct epoll_event evs[256];
  while (done < O.conns)
    {
      while (next < O.conns && inflight < MAX_CONNECTING)
        {
          struct conn *c = &C[next];
          c->id = (uint32_t) next;
          c->body_left = -1;
          c->fd = socket (AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
          if (c->fd < 0)
            {
              fail ("socket for connection %ld: %s", next, strerror (errno));
              return -1;
            }
          int one = 1;
          setsockopt (c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          if (connect (c->fd, (struct sockaddr *) sa, sizeof *sa) < 0 && errno != EINPROGRESS)
            {
              fail ("cannot connect to %s:%d (connection %ld): %s", O.addr, O.port, next, strerror (errno));
              return -1;
            }
          struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
          epoll_ctl (ep, EPOLL_CTL_ADD, c->fd, &ev);
          next++;
          inflight++;
        }
      uint64_t now = now_ns ();
      if (now >= deadline)
        {
          fail ("cannot connect to %s:%d: %ld of %ld connections after %.1f s", O.addr, O.port, done, O.conns,
                O.connect_timeout_s);
          return -1;
        }
      int n = epoll_wait (ep, evs, 256, (int) ((deadline - now) / 1000000) + 1);
      for (int i = 0; i < n; i++)
        {
          struct conn *c = evs[i].data.ptr;
          int e = 0;
          socklen_t l = sizeof e;
          getsockopt (c->fd, SOL_SOCKET, SO_ERROR, &e, &l);
          if (e)
            {
              fail ("cannot connect to %s:%d (connection %u): %s", O.addr, O.port, c->id, strerror (e));
              return -1;
            }
          c->connected = 1;
          c->want_out = 1;
          set_out (c, 0);
          inflight--;
          done++;
        }
    }
  *took = (double) (now_ns () - t0) / 1e9;
  return 0;
}

/* ---- the run ---------------------------------------------------------------- */

static void
poll_once (int timeout_ns)
{
  struct epoll_event evs[512];
  struct timespec ts = { timeout_ns / 1000000000, timeout_ns % 1000000000 };
  int n = epoll_pwait2 (ep, evs, 512, timeout_ns >= 0 ? &ts : NULL, NULL);
  for (int i = 0; i < n && !err_msg[0]; i++)
    {
      struct conn *c = evs[i].data.ptr;
      if (evs[i].events & EPOLLOUT)
        flush (c);
      if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
        on_readable (c);
    }
}

/* Runs the loop until `until` (ns) or, with `until_idle`, until nothing is outstanding. */
static void
run_until (uint64_t until, int until_idle)
{
  for (;;)
    {
      uint64_t now = now_ns ();
      if (err_msg[0] || now >= until || (until_idle && outstanding == 0))
        return;
      uint64_t left = until - now;
      poll_once (left > 100000000 ? 100000000 : (int) left);
    }
}

static uint64_t late_max, late_over_1ms;
static struct hist *h_late;

static void
open_phase (uint64_t t0, uint64_t t1)
{
  double step = 1e9 / O.rate;
  uint64_t k = 0;
  for (;;)
    {
      uint64_t now = now_ns ();
      if (err_msg[0])
        return;
      /* every request whose intended time has come, on its connection; at
         the end, every one due before t1 (none is left out) */
      for (;;)
        {
          uint64_t due = t0 + (uint64_t) ((double) k * step);
          if (due > now || due >= t1)
            break;
          struct conn *c = &C[k % (uint64_t) O.conns];
          uint64_t late = now - due;
          hist_record (h_late, late);
          if (late > late_max)
            late_max = late;
          if (late > 1000000)
            late_over_1ms++;
          send_request (c, due);
          open_sent++;
          k++;
        }
      if (now >= t1)
        return;
      uint64_t due = t0 + (uint64_t) ((double) k * step);
      uint64_t wait = due > now ? due - now : 0;
      if (due >= t1)
        wait = t1 - now;
      poll_once ((int) (wait > 100000000 ? 100000000 : wait));
    }
}

/* The closed window's CPU figures (cpuwin.h): seconds, or null where a
   reading is missing at either edge. */
static double
delta_s (int64_t a, int64_t b)
{
  return a >= 0 && b >= a ? (double) (b - a) / 1e9 : NAN;
}

static void
report_cpu (struct wl_report *r, const struct cpuwin *w, const struct cpuwin_snap *s0, const struct cpuwin_snap *s1)
{
  double win = (double) (s1->t_ns - s0->t_ns) / 1e9;
  double cl = delta_s (s0->self_rusage_ns, s1->self_rusage_ns), clg = delta_s (s0->self_cgroup_ns, s1->self_cgroup_ns);
  double sv = delta_s (s0->server_cgroup_ns, s1->server_cgroup_ns), svp = delta_s (s0->server_proc_ns, s1->server_proc_ns);
  double idle = delta_s (s0->server_idle_ns, s1->server_idle_ns);
  double cw = delta_s (s0->self_wait_ns, s1->self_wait_ns), sw = delta_s (s0->server_wait_ns, s1->server_wait_ns);
  double sc = w->server_cpus > 0 ? w->server_cpus : NAN, cc = w->self_cpus > 0 ? w->self_cpus : NAN;
  if (isnan (sv))
    sv = svp;
  wl_report_int (r, "closed_t0_ns", (int64_t) s0->t_ns);
  wl_report_int (r, "closed_t1_ns", (int64_t) s1->t_ns);
  wl_report_num (r, "closed_cpu_window_s", win);
  wl_report_num (r, "client_cpu_s", cl);
  wl_report_num (r, "client_cgroup_cpu_s", clg);
  wl_report_num (r, "client_cpus", cc);
  wl_report_num (r, "client_busy", cl / (win * cc));
  wl_report_num (r, "server_cpu_s", sv);
  wl_report_num (r, "server_proc_cpu_s", svp);
  wl_report_num (r, "server_cpus_allowed", sc);
  wl_report_num (r, "server_busy", sv / (win * sc));
  wl_report_num (r, "server_idle_spin_s", idle);
  wl_report_num (r, "server_busy_net", (sv - (isnan (idle) ? 0 : idle)) / (win * sc));
  wl_report_num (r, "client_runq_wait_s", cw);
  wl_report_num (r, "client_demand", (cl + cw) / (win * cc));
  wl_report_num (r, "server_runq_wait_s", sw);
  wl_report_num (r, "server_demand", (sv - (isnan (idle) ? 0 : idle) + sw) / (win * sc));
  wl_report_str (r, "cpu_note", w->note[0] ? w->note : NULL);
}

static int
write_hgrm (const char *path)
{
  char tmp[4200];
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen (tmp, "we");
  if (f == NULL)
    return -1;
  int r = hist_write_hgrm (h_open, f);
  if (fclose (f) != 0 || r < 0 || rename (tmp, path) < 0)
    {
      unlink (tmp);
      return -1;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct wl_args a = { .experiment = "loadgen", .variant = "loadgen" };
  parse (argc, argv);
  signal (SIGPIPE, SIG_IGN);
  a.n = O.conns;
  struct wl_report *r = wl_report_new (&a);
  wl_report_str (r, "generator", "wl-loadgen");
  wl_report_str (r, "proto", O.proto_name);
  wl_report_int (r, "request_bytes", (int64_t) O.size);
  wl_report_num (r, "warmup_s", O.warmup_s);
  wl_report_num (r, "closed_s", O.closed_s);
  wl_report_num (r, "open_s", O.rate > 0 ? O.open_s : 0);
  wl_report_num (r, "rate", O.rate);

  struct rlimit rl;
  getrlimit (RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit (RLIMIT_NOFILE, &rl);
  if ((rlim_t) O.conns + 16 > rl.rlim_cur)
    {
      char d[200];
      snprintf (d, sizeof d, "%ld connections need %ld file descriptors in the client; RLIMIT_NOFILE is %llu",
                O.conns, O.conns + 16, (unsigned long long) rl.rlim_cur);
      return wl_report_limit (r, "RLIMIT_NOFILE", d);
    }
  C = calloc ((size_t) O.conns, sizeof *C);
  h_closed = hist_new ();
  h_open = hist_new ();
  h_late = hist_new ();
  ep = epoll_create1 (EPOLL_CLOEXEC);
  if (C == NULL || h_closed == NULL || h_open == NULL || h_late == NULL || ep < 0)
    return wl_report_error (r, "out of memory");
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) O.port) };
  inet_pton (AF_INET, O.addr, &sa.sin_addr);

  double connect_s = 0;
  if (connect_all (&sa, &connect_s) < 0)
    return wl_report_error (r, err_msg);
  wl_report_num (r, "connect_s", connect_s);

  /* warm-up and closed loop */
  uint64_t t = now_ns ();
  phase = PH_WARMUP;
  for (long i = 0; i < O.conns; i++)
    send_request (&C[i], t);
  run_until (t + (uint64_t) (O.warmup_s * 1e9), 0);
  struct cpuwin cw;
  struct cpuwin_snap s0, s1;
  cpuwin_init (&cw, (pid_t) O.server_pid, O.idle_addr);
  cpuwin_snap (&cw, &s0);
  closed_t0 = s0.t_ns; /* the same clock as now_ns(): CLOCK_MONOTONIC */
  closed_t1 = closed_t0 + (uint64_t) (O.closed_s * 1e9);
  phase = PH_CLOSED;
  run_until (closed_t1, 0);
  cpuwin_snap (&cw, &s1);
  double closed_len = (double) (now_ns () - closed_t0) / 1e9;
  if (closed_len > O.closed_s && O.closed_s > 0)
    closed_len = O.closed_s; /* completions are counted up to closed_t1 only */
  phase = PH_DRAIN;
  run_until (now_ns () + (uint64_t) (O.drain_s * 1e9), 1);
  if (err_msg[0])
    return wl_report_error (r, err_msg);
  if (outstanding)
    {
      snprintf (err_msg, sizeof err_msg, "%llu closed-loop requests unanswered %.1f s after the phase",
                (unsigned long long) outstanding, O.drain_s);
      return wl_report_error (r, err_msg);
    }
  wl_report_int (r, "warmup_ops", (int64_t) warm_done);
  wl_report_int (r, "ops", (int64_t) closed_done);
  wl_report_num (r, "ops_per_s", closed_len > 0 ? (double) closed_done / closed_len : NAN);
  wl_report_int (r, "closed_lat_p50_ns", (int64_t) hist_value_at (h_closed, 50));
  wl_report_int (r, "closed_lat_p99_ns", (int64_t) hist_value_at (h_closed, 99));
  report_cpu (r, &cw, &s0, &s1);

  if (O.rate > 0 && O.open_s > 0)
    {
      uint64_t t0 = now_ns (), t1 = t0 + (uint64_t) (O.open_s * 1e9);
      closed_t1 = t0; /* answers to requests sent from here on are the open phase's */
      phase = PH_OPEN;
      open_phase (t0, t1);
      phase = PH_END;
      run_until (now_ns () + (uint64_t) (O.drain_s * 1e9), 1);
      if (err_msg[0])
        return wl_report_error (r, err_msg);
      uint64_t end = now_ns ();
      /* what never came back counts at its age now: a lower bound */
      for (long i = 0; i < O.conns; i++)
        for (uint32_t j = 0; j < C[i].t_len; j++)
          hist_record (h_open, end - C[i].times[(C[i].t_head + j) % C[i].t_cap]);
      wl_report_int (r, "open_sent", (int64_t) open_sent);
      wl_report_int (r, "open_done", (int64_t) open_done);
      wl_report_int (r, "open_unanswered", (int64_t) outstanding);
      wl_report_num (r, "open_achieved_rate", (double) open_sent / O.open_s);
      wl_report_int (r, "lat_samples", (int64_t) h_open->total);
      wl_report_int (r, "lat_p50_ns", (int64_t) hist_value_at (h_open, 50));
      wl_report_int (r, "lat_p90_ns", (int64_t) hist_value_at (h_open, 90));
      wl_report_int (r, "lat_p99_ns", (int64_t) hist_value_at (h_open, 99));
      wl_report_int (r, "lat_p999_ns", (int64_t) hist_value_at (h_open, 99.9));
      wl_report_int (r, "lat_max_ns", (int64_t) h_open->max);
      wl_report_num (r, "lat_mean_ns", hist_mean (h_open));
      wl_report_int (r, "send_late_p99_ns", (int64_t) hist_value_at (h_late, 99));
      wl_report_int (r, "send_late_max_ns", (int64_t) late_max);
      wl_report_int (r, "send_late_p50_ns", (int64_t) hist_value_at (h_late, 50));
      wl_report_int (r, "send_late_over_1ms", (int64_t) late_over_1ms);
      /* requests are due evenly over the window: the share sent > 1 ms
         late is the share of the window the client itself was behind */
      wl_report_num (r, "send_late_frac", open_sent ? (double) late_over_1ms / (double) open_sent : NAN);
      if (O.hgrm && write_hgrm (O.hgrm) < 0)
        {
          snprintf (err_msg, sizeof err_msg, "writing `%s`: %s", O.hgrm, strerror (errno));
          return wl_report_error (r, err_msg);
        }
    }
  return wl_report_ok (r);
}
