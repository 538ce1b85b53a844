/*
 * net.c - the udp experiment's frame (udp.h): options, the two sockets, the
 * receiver process, the kernel's counters, the phases and the account.
 *
 * Order of a point:
 *   1. a receiving socket bound to 127.0.0.1:0 (SO_RCVBUF from --opt rcvbuf),
 *      a sending socket, non-blocking, SO_SNDBUF from --opt sndbuf, connected
 *      to it; the namespace's Udp counters (/proc/net/snmp) and lo's drop
 *      counters (/proc/net/dev) are read;
 *   2. fork: the child receives with recvmmsg until told to drain;
 *   3. the main phase: n datagrams at --opt batch, timed, CPU from
 *      getrusage(RUSAGE_SELF) of the sender process (the receiver is another
 *      process, so apart); then, for the batched variants, a sweep over batch
 *      sizes (1 .. UIO_MAXIOV), each phase timed the same way;
 *   4. the child is told how many datagrams the kernel accepted, drains its
 *      socket until received + kernel drops reach that (or 3 s pass), and
 *      sends back its count and its CPU;
 *   5. the account: attempts = received + kernel drops + EAGAIN refusals.
 * On loopback the receive path (softirq) mostly runs inside the sender's
 * send call, so the sender's sys time includes most of the receiving kernel
 * work; the receiver's CPU is its recvmmsg loop.
 */
#include "udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define UDP_MAX_SIZE 65507 /* 65535 - 8 (UDP) - 20 (IPv4) */

/* ------------------------------------------------------------ options -- */

static void __attribute__ ((noreturn, format (printf, 2, 3)))
opt_error (const char *key, const char *fmt, ...)
{
  va_list ap;

  fprintf (stderr, "wl-udp: option `--opt %s`: ", key);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (2);
}

static long
opt_range (const struct wl_args *a, const char *key, long def, long lo, long hi)
{
  long v = wl_opt_long (a, key, def);
  if (v < lo || v > hi)
    opt_error (key, "%ld is out of range %ld..%ld", v, lo, hi);
  return v;
}

static void
parse_opts (const struct wl_args *a, struct udp_opts *o)
{
  o->size = opt_range (a, "size", 1024, 8, UDP_MAX_SIZE);
  o->batch = opt_range (a, "batch", 64, 1, UIO_MAXIOV);
  o->sndbuf = opt_range (a, "sndbuf", 4096, 1, 1L << 30);
  o->rcvbuf = opt_range (a, "rcvbuf", 0, 0, 1L << 30);
}

/* ----------------------------------------------------- kernel counters -- */

struct udp_kstats
{
  long in_datagrams, no_ports, in_errors, out_datagrams, rcvbuf_errors, sndbuf_errors;
  long lo_rx_drop, lo_tx_drop;
};

/* Value under `name` in /proc/net/snmp's "Udp:" header/value line pair. */
static int
snmp_read (struct udp_kstats *k)
{
  char hdr[1024], val[1024];
  FILE *f = fopen ("/proc/net/snmp", "re");
  int found = 0;

  memset (k, 0, sizeof *k);
  if (f == NULL)
    return -1;
  while (!found && fgets (hdr, sizeof hdr, f))
    if (strncmp (hdr, "Udp:", 4) == 0 && fgets (val, sizeof val, f))
      {
        char *hs, *vs, *h = strtok_r (hdr + 4, " \n", &hs), *v = strtok_r (val + 4, " \n", &vs);
        for (; h && v; h = strtok_r (NULL, " \n", &hs), v = strtok_r (NULL, " \n", &vs))
          {
            long x = strtol (v, NULL, 10);
            if (!strcmp (h, "InDatagrams")) k->in_datagrams = x;
            else if (!strcmp (h, "NoPorts")) k->no_ports = x;
            else if (!strcmp (h, "InErrors")) k->in_errors = x;
            else if (!strcmp (h, "OutDatagrams")) k->out_datagrams = x;
            else if (!strcmp (h, "RcvbufErrors")) k->rcvbuf_errors = x;
            else if (!strcmp (h, "SndbufErrors")) k->sndbuf_errors = x;
          }
        found = 1;
      }
  fclose (f);
  if (!found)
    return -1;
  /* lo's line in /proc/net/dev: rx bytes packets errs drop ... tx bytes packets errs drop */
  if ((f = fopen ("/proc/net/dev", "re")) == NULL)
    return -1;
  while (fgets (hdr, sizeof hdr, f))
    {
      char *p = hdr + strspn (hdr, " ");
      if (strncmp (p, "lo:", 3) == 0)
        sscanf (p + 3, "%*d %*d %*d %ld %*d %*d %*d %*d %*d %*d %*d %ld", &k->lo_rx_drop,
                &k->lo_tx_drop);
    }
  fclose (f);
  return 0;
}

/* Datagrams the kernel dropped between two readings.  InErrors already
   includes RcvbufErrors (and checksum errors), so RcvbufErrors is not added
   again; SndbufErrors and NoPorts are counted apart by the kernel. */
static long
kdrops (const struct udp_kstats *a, const struct udp_kstats *b)
{
  return (b->in_errors - a->in_errors) + (b->sndbuf_errors - a->sndbuf_errors)
         + (b->no_ports - a->no_ports) + (b->lo_rx_drop - a->lo_rx_drop) + (b->lo_tx_drop - a->lo_tx_drop);
}

/* ------------------------------------------------------------ receiver -- */

struct udp_rx_result
{
  long received, bad_size, drained_ms;
  long user_ns, sys_ns;
};

enum { RX_BATCH = 64 };

static long
rx_burst (int fd, long size, char *bufs, long *bad, int flags)
{
  struct mmsghdr m[RX_BATCH];
  struct iovec iov[RX_BATCH];

  for (int i = 0; i < RX_BATCH; i++)
    {
      iov[i] = (struct iovec){ bufs + (size_t) i * (size_t) (size + 1), (size_t) size + 1 };
      m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
    }
  int got = recvmmsg (fd, m, RX_BATCH, flags, NULL);
  for (int i = 0; i < got; i++)
    *bad += m[i].msg_len != (unsigned) size;
  return got;
}

static long
ru_ns (struct timeval tv)
{
  return tv.tv_sec * 1000000000L + tv.tv_usec * 1000L;
}

/* The child: receives until the control pipe says how many the kernel
   accepted, then drains until that many are received or dropped. */
static void __attribute__ ((noreturn))
receiver (int fd, int ctl, int res, long size, const struct udp_kstats *k0)
{
  char *bufs = malloc ((size_t) RX_BATCH * (size_t) (size + 1));
  struct udp_rx_result out = { 0 };
  long accepted = -1;

  if (bufs == NULL)
    _exit (1);
  for (;;)
    {
      struct pollfd p[2] = { { fd, POLLIN, 0 }, { ctl, POLLIN, 0 } };
      if (poll (p, 2, -1) < 0 && errno != EINTR)
        _exit (1);
      if (p[0].revents & POLLIN)
        {
          long got;
          while ((got = rx_burst (fd, size, bufs, &out.bad_size, MSG_DONTWAIT)) > 0)
            out.received += got;
        }
      if (p[1].revents & (POLLIN | POLLHUP))
        {
          if (read (ctl, &accepted, sizeof accepted) != sizeof accepted)
            accepted = -1;
          break;
        }
    }
  uint64_t t0 = wl_now_ns ();
  for (;;)
    {
      struct udp_kstats k;
      long got;
      while ((got = rx_burst (fd, size, bufs, &out.bad_size, MSG_DONTWAIT)) > 0)
        out.received += got;
      if (snmp_read (&k) < 0 || accepted < 0 || out.received + kdrops (k0, &k) >= accepted
          || wl_now_ns () - t0 > 3000000000ull)
        break;
      struct pollfd p = { fd, POLLIN, 0 };
      poll (&p, 1, 10);
    }
  out.drained_ms = (long) ((wl_now_ns () - t0) / 1000000);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  out.user_ns = ru_ns (ru.ru_utime);
  out.sys_ns = ru_ns (ru.ru_stime);
  _exit (write (res, &out, sizeof out) == sizeof out ? 0 : 1);
}

/* -------------------------------------------------------------- sockets -- */

struct udp_net
{
  int rx, tx;
  pid_t child;
  int ctl, res; /* our ends: control (write), result (read) */
  struct udp_kstats k0;
  long rcvbuf_bytes, sndbuf_bytes; /* what the kernel granted (getsockopt) */
};

static int
net_open (const struct udp_opts *o, struct udp_net *u, char *err, size_t len)
{
  struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t alen = sizeof addr, ilen = sizeof (int);
  int v, ctl[2], res[2];

  u->rx = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  u->tx = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (u->rx < 0 || u->tx < 0)
    return snprintf (err, len, "socket: %s", strerror (errno)), -1;
  v = o->rcvbuf ? (int) o->rcvbuf : 1 << 30; /* capped by net.core.rmem_max */
  setsockopt (u->rx, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
  v = (int) o->sndbuf;
  setsockopt (u->tx, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
  getsockopt (u->rx, SOL_SOCKET, SO_RCVBUF, &v, &ilen);
  u->rcvbuf_bytes = v;
  getsockopt (u->tx, SOL_SOCKET, SO_SNDBUF, &v, &ilen);
  u->sndbuf_bytes = v;
  if (bind (u->rx, (struct sockaddr *) &addr, sizeof addr) < 0
      || getsockname (u->rx, (struct sockaddr *) &addr, &alen) < 0
      || connect (u->tx, (struct sockaddr *) &addr, sizeof addr) < 0)
    return snprintf (err, len, "binding or connecting on 127.0.0.1: %s", strerror (errno)), -1;
  if (snmp_read (&u->k0) < 0)
    return snprintf (err, len, "reading /proc/net/snmp and /proc/net/dev: %s", strerror (errno)), -1;
  if (pipe2 (ctl, O_CLOEXEC) < 0 || pipe2 (res, O_CLOEXEC) < 0)
    return snprintf (err, len, "pipe2: %s", strerror (errno)), -1;
  fflush (stdout);
  if ((u->child = fork ()) < 0)
    return snprintf (err, len, "fork (the receiver): %s", strerror (errno)), -1;
  if (u->child == 0)
    {
      close (ctl[1]);
      close (res[0]);
      close (u->tx);
      receiver (u->rx, ctl[0], res[1], o->size, &u->k0);
    }
  close (ctl[0]);
  close (res[1]);
  u->ctl = ctl[1];
  u->res = res[0];
  return 0;
}

/* Tells the receiver how many the kernel accepted; collects its result. */
static int
net_finish (struct udp_net *u, long accepted, struct udp_rx_result *rx, char *err, size_t len)
{
  int st = 0;
  ssize_t got = -1;

  if (write (u->ctl, &accepted, sizeof accepted) == sizeof accepted)
    got = read (u->res, rx, sizeof *rx);
  close (u->ctl);
  close (u->res);
  if (got != (ssize_t) sizeof *rx)
    kill (u->child, SIGKILL);
  while (waitpid (u->child, &st, 0) < 0 && errno == EINTR)
    ;
  if (got != (ssize_t) sizeof *rx)
    return snprintf (err, len, "the receiver process ended without its count (status 0x%x)", st), -1;
  return 0;
}

/* -------------------------------------------------------------- sending -- */

void
udp_fill (char *buf, long size, long seq)
{
  uint64_t s = (uint64_t) seq;
  memcpy (buf, &s, size >= 8 ? 8 : (size_t) size);
}

void
udp_wait_writable (int fd, struct udp_counts *c)
{
  struct pollfd p = { fd, POLLOUT, 0 };
  poll (&p, 1, 1000);
  c->syscalls++;
}

struct phase
{
  long batch, count;
  struct udp_counts c;
  double wall_s;
  long user_ns, sys_ns;
};

static int
run_phase (udp_send_fn send, int fd, const struct udp_opts *o, long seq0, struct phase *ph, char *err,
           size_t len)
{
  struct rusage r0, r1;

  memset (&ph->c, 0, sizeof ph->c);
  getrusage (RUSAGE_SELF, &r0);
  uint64_t t0 = wl_now_ns ();
  int rc = send (fd, o, ph->batch, seq0, ph->count, &ph->c, err, len);
  ph->wall_s = (double) (wl_now_ns () - t0) / 1e9;
  getrusage (RUSAGE_SELF, &r1);
  ph->user_ns = ru_ns (r1.ru_utime) - ru_ns (r0.ru_utime);
  ph->sys_ns = ru_ns (r1.ru_stime) - ru_ns (r0.ru_stime);
  return rc;
}

static struct json_object *
phase_json (const struct phase *ph)
{
  double n = (double) ph->count;
  struct json_object *o = json_object_new_object ();
  json_object_object_add (o, "batch", json_object_new_int64 (ph->batch));
  json_object_object_add (o, "datagrams", json_object_new_int64 (ph->count));
  json_object_object_add (o, "wall_s", json_object_new_double (ph->wall_s));
  json_object_object_add (o, "ops_per_s", json_object_new_double (n / ph->wall_s));
  json_object_object_add (o, "user_ns_per_dgram", json_object_new_double ((double) ph->user_ns / n));
  json_object_object_add (o, "sys_ns_per_dgram", json_object_new_double ((double) ph->sys_ns / n));
  json_object_object_add (o, "syscalls_per_dgram", json_object_new_double ((double) ph->c.syscalls / n));
  json_object_object_add (o, "eagain", json_object_new_int64 (ph->c.eagain));
  return o;
}

static void
report_main (struct wl_report *r, const struct phase *ph)
{
  double n = (double) ph->count;
  wl_report_num (r, "wall_s", ph->wall_s);
  wl_report_int (r, "ops", ph->count);
  wl_report_num (r, "ops_per_s", n / ph->wall_s);
  wl_report_int (r, "batch", ph->batch);
  wl_report_num (r, "sender_user_ns_per_dgram", (double) ph->user_ns / n);
  wl_report_num (r, "sender_sys_ns_per_dgram", (double) ph->sys_ns / n);
  wl_report_num (r, "sender_cpu_pct", 100.0 * (double) (ph->user_ns + ph->sys_ns) / (ph->wall_s * 1e9));
  wl_report_num (r, "syscalls_per_dgram", (double) ph->c.syscalls / n);
  wl_report_int (r, "syscalls", ph->c.syscalls);
  wl_report_int (r, "eagain", ph->c.eagain);
}

static void
report_account (struct wl_report *r, long attempts, long eagain, const struct udp_rx_result *rx,
                const struct udp_kstats *k0, const struct udp_kstats *k1, int *balanced)
{
  long drops = kdrops (k0, k1);
  struct json_object *acc = json_object_new_object ();

  *balanced = attempts == rx->received + drops + eagain;
#define ADD(k, v) json_object_object_add (acc, k, json_object_new_int64 (v))
  ADD ("attempts", attempts);
  ADD ("received", rx->received);
  ADD ("kernel_drops", drops);
  ADD ("eagain_retried", eagain);
  ADD ("udp_InErrors", k1->in_errors - k0->in_errors);
  ADD ("udp_RcvbufErrors", k1->rcvbuf_errors - k0->rcvbuf_errors);
  ADD ("udp_SndbufErrors", k1->sndbuf_errors - k0->sndbuf_errors);
  ADD ("udp_NoPorts", k1->no_ports - k0->no_ports);
  ADD ("lo_drops", (k1->lo_rx_drop - k0->lo_rx_drop) + (k1->lo_tx_drop - k0->lo_tx_drop));
  ADD ("udp_OutDatagrams", k1->out_datagrams - k0->out_datagrams);
  ADD ("udp_InDatagrams", k1->in_datagrams - k0->in_datagrams);
  ADD ("bad_size", rx->bad_size);
#undef ADD
  json_object_object_add (acc, "balanced", json_object_new_boolean (*balanced));
  wl_report_json (r, "account", acc);
}

/* Batch sizes of the sweep: powers of 4 up to UIO_MAXIOV. */
static const long sweep_batches[] = { 1, 4, 16, 64, 256, UIO_MAXIOV };

int
udp_run (const struct wl_args *a, struct wl_report *r, udp_send_fn send, int batched)
{
  struct udp_opts o;
  struct udp_net u;
  struct udp_rx_result rx;
  struct udp_kstats k1;
  struct phase main_ph = { 0 };
  char err[256] = "";
  long seq = 0, eagain = 0, attempts = 0;
  int balanced = 0;

  parse_opts (a, &o);
  if (net_open (&o, &u, err, sizeof err) < 0)
    return wl_report_error (r, err);
  /* the runtime's threads start after the fork: the receiver is forked from
     a single-threaded process */
  if (send == udp_send_coro && udp_coro_start (a, err, sizeof err) < 0)
    {
      char err2[256];
      net_finish (&u, 0, &rx, err2, sizeof err2);
      return wl_report_error (r, err);
    }
  main_ph.batch = batched ? o.batch : 1;
  main_ph.count = a->n;
  wl_region_begin (); /* the main phase is the measured region (summary.csv's CPU figures) */
  int rc = run_phase (send, u.tx, &o, seq, &main_ph, err, sizeof err);
  wl_region_end ();
  seq += main_ph.c.attempts - main_ph.c.eagain;
  attempts += main_ph.c.attempts, eagain += main_ph.c.eagain;
  struct json_object *sweep = json_object_new_array ();
  if (batched && rc == 0)
    for (size_t i = 0; i < sizeof sweep_batches / sizeof sweep_batches[0] && rc == 0; i++)
      {
        struct phase ph = { .batch = sweep_batches[i], .count = a->n / 4 };
        ph.count = ph.count < 1000 ? 1000 : ph.count > 100000 ? 100000 : ph.count;
        rc = run_phase (send, u.tx, &o, seq, &ph, err, sizeof err);
        seq += ph.c.attempts - ph.c.eagain;
        attempts += ph.c.attempts, eagain += ph.c.eagain;
        json_object_array_add (sweep, phase_json (&ph));
      }
  if (send == udp_send_coro)
    udp_coro_stop (r);
  char err2[256];
  if (net_finish (&u, attempts - eagain, &rx, err2, sizeof err2) < 0 && rc == 0)
    rc = -1, snprintf (err, sizeof err, "%s", err2);
  if (rc < 0)
    {
      json_object_put (sweep);
      return wl_report_error (r, err);
    }
  snmp_read (&k1);
  report_main (r, &main_ph);
  wl_report_json (r, "batch_sweep", sweep);
  wl_report_int (r, "size", o.size);
  wl_report_int (r, "sndbuf_bytes", u.sndbuf_bytes);
  wl_report_int (r, "rcvbuf_bytes", u.rcvbuf_bytes);
  wl_report_num (r, "receiver_user_s", (double) rx.user_ns / 1e9);
  wl_report_num (r, "receiver_sys_s", (double) rx.sys_ns / 1e9);
  wl_report_int (r, "receiver_drain_ms", rx.drained_ms);
  report_account (r, attempts, eagain, &rx, &u.k0, &k1, &balanced);
  close (u.rx);
  close (u.tx);
  if (!balanced)
    return wl_report_error (r, "the account does not balance: attempts != received + kernel drops + "
                               "EAGAIN retried (see `account`)");
  return wl_report_ok (r);
}
