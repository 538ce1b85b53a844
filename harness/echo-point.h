/* echo-point.h - the `echo` experiment's client (see echo-point.c). */
#ifndef LAB_ECHO_POINT_H
#define LAB_ECHO_POINT_H

#include "companion.h"

/* A side whose load over the closed window (CPU time, less a coroutine
   server's idle spinning, plus the time its threads waited on a run queue;
   as a share of window x its CPUs) is at least this is saturated.  A point
   is `client_bound` when the client was saturated and the server was not:
   its capacity is then a lower bound on the server's.  0.95: a client that
   never waits for the server reads 0.97-1.00 here. */
#define LAB_ECHO_SATURATED 0.95
/* A point is `contended` when either side waited on a run queue for more
   than this share of the closed window: other work took its CPU. */
#define LAB_ECHO_CONTENDED 0.10

extern const struct lab_companion_ops lab_echo_companion;
/* Adds to the client's figures (wl-loadgen's report) which side limited
   the closed loop: saturated_at, client_load, server_load, bound ("client",
   "server", "both", "neither"; null when undecidable, bound_note says why)
   and client_bound; client_wait_share, server_wait_share (run-queue wait
   / window x CPUs) and contended. */
void lab_echo_judge_bound (struct json_object *figs, const char *variant);
/* Adds server_cpu_per_req_ns: the server's CPU over the closed window (its
   cgroup), less a coroutine server's idle spinning, per request answered in
   that window; null where a reading is missing (a coroutine server's
   spinning unread included).  A server-side cost that a client-bound
   capacity cannot show. */
void lab_echo_server_cpu_per_req (struct json_object *figs, const char *variant);
/* wrk's "Requests/sec:" figure from its stdout file, or -1. */
double lab_echo_wrk_rate (const char *path);

#endif
