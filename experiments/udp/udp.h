/*
 * udp.h - the udp experiment (claims C6, C11): send n datagrams of `size`
 * bytes over loopback inside the point's network namespace, one system call
 * per datagram (sendto), a batch per call (sendmmsg), a batch per io_uring
 * submit (uring), or from many coroutines through the runtime (coro-uring).
 *
 * A receiver process forked at the start (net.c) counts what arrives with
 * recvmmsg; its CPU is reported apart from the sender's.  Nothing is lost
 * silently: every send attempt ends as received, dropped by the kernel (that
 * namespace's /proc/net/snmp Udp InErrors + SndbufErrors, and lo's receive
 * drops in /proc/net/dev), or refused with EAGAIN and retried; the point
 * reports the account and is `ok` only when it balances.
 */
#ifndef LAB_UDP_H
#define LAB_UDP_H

#include <stdint.h>

#include "wl.h"

struct udp_opts
{
  long size;   /* bytes per datagram, 1..65507 */
  long batch;  /* datagrams per call / submit; coroutines for coro-uring */
  long sndbuf; /* SO_SNDBUF asked for (the kernel doubles it) */
  long rcvbuf; /* receiver's SO_RCVBUF; 0 = as large as net.core.rmem_max allows */
};

/* What one sending phase counted. */
struct udp_counts
{
  long attempts; /* datagrams offered to the kernel, EAGAIN refusals included */
  long eagain;   /* refusals with EAGAIN (each datagram was then offered again) */
  long syscalls; /* system calls the sender made for this phase */
};

/* A sender: sends `count` datagrams numbered from `seq0` on the connected,
   non-blocking socket `fd`, batching by `batch`; fills c.  Returns 0, or -1
   with a message in err. */
typedef int (*udp_send_fn) (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                            struct udp_counts *c, char *err, size_t len);

int udp_send_sendto (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                     struct udp_counts *c, char *err, size_t len);
int udp_send_sendmmsg (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                       struct udp_counts *c, char *err, size_t len);
int udp_send_uring (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                    struct udp_counts *c, char *err, size_t len);
int udp_send_coro (int fd, const struct udp_opts *o, long batch, long seq0, long count,
                   struct udp_counts *c, char *err, size_t len);
/* coro-uring starts the runtime once per point (before, after the phases). */
int udp_coro_start (const struct wl_args *a, char *err, size_t len);
void udp_coro_stop (struct wl_report *r);

/* Fills datagram `seq`'s payload (its number in the first 8 bytes). */
void udp_fill (char *buf, long size, long seq);

/* The whole point for one sender: options, receiver, main phase at --opt
   batch, a sweep over batch sizes, the account.  Returns the exit code. */
int udp_run (const struct wl_args *a, struct wl_report *r, udp_send_fn send, int batched);

/* Waits until fd can take a datagram again (poll POLLOUT, 1 s at most);
   counts the call. */
void udp_wait_writable (int fd, struct udp_counts *c);

#endif
