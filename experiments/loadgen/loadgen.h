/*
 * loadgen.h - wl-loadgen, the lab's load generator for `echo` (and any
 * request/response server on loopback).  It runs as a point's companion
 * (harness/companion.c): in its own cgroup, in the server's network
 * namespace, on its own CPU.
 *
 *   wl-loadgen --port P --conns N [--addr 127.0.0.1] [--proto echo|http]
 *              [--size BYTES] [--warmup S] [--closed S] [--open S] [--rate R]
 *              [--drain S] [--connect-timeout S] [--hgrm FILE]
 *              [--server-pid PID [--server-idle-addr ADDR]]
 *
 * Phases, on one epoll loop (single thread):
 *   connect   N connections, at most 256 connects in flight;
 *   warm-up   closed loop, not measured;
 *   closed    every connection sends a request, waits for the whole answer,
 *             sends again: completions in the window / its length = capacity
 *             (`ops_per_s`); both sides' CPU over exactly this window
 *             (cpuwin.h: client_cpu_s, server_cpu_s, busy, demand);
 *   open      (with --rate R > 0) request k is due at T0 + k/R, on
 *             connection k mod N (pipelined behind an unanswered one), and
 *             its latency is measured from that INTENDED time, so a server
 *             (or generator) that falls behind shows as latency instead of
 *             as fewer samples (coordinated omission).  The histogram
 *             (hist.h) gives lat_p50_ns .. lat_max_ns and the .hgrm file.
 *             How late the generator itself sent each request (its own
 *             stalls) is reported too: send_late_p50/p99/max_ns and
 *             send_late_frac, the share sent more than 1 ms late.
 *             Requests still unanswered --drain S after the phase are
 *             counted (`open_unanswered`) and recorded at their age then.
 * Every answer is checked: echo bytes equal the bytes sent (a per-connection
 * pattern), http answers are `HTTP/1.1 200` with their Content-Length body.
 * Bounded: every phase has its length, connecting its timeout, the drains
 * theirs.  Refuses an address outside 127.0.0.0/8 (exit 2).
 */
#ifndef LAB_LOADGEN_H
#define LAB_LOADGEN_H

#include <stdint.h>
#include <stddef.h>

/* The byte at stream offset `off` of connection `conn` (echo payload). */
static inline uint8_t
loadgen_pattern (uint32_t conn, uint64_t off)
{
  return (uint8_t) (off * 7 + conn * 13 + (off >> 8));
}

/* 1 if the dotted IPv4 address is in 127.0.0.0/8. */
int loadgen_is_loopback (const char *addr);

#endif
