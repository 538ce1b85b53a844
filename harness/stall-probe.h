/*
 * stall-probe.h - the machine's stall floor: how long a runnable thread can
 * go without the CPU here, measured, so that a latency tail can be read
 * against it (meta.json environment.start/end.stalls, the report's
 * environment line).
 *
 * One thread per CPU the harness may run on, pinned there, reads
 * CLOCK_MONOTONIC in a tight loop for a fixed time; a gap between two
 * consecutive reads is time the thread did not run (the hypervisor took the
 * vCPU, an interrupt storm, a kernel thread, another process).  Nothing
 * else of the lab runs meanwhile; other users of the machine do, and that is
 * what it measures.
 */
#ifndef LAB_STALL_PROBE_H
#define LAB_STALL_PROBE_H

#include <json-c/json.h>

/* Seconds each probe spins: LAB_STALL_PROBE_S if set (0 turns the probe
   off), else 0.5. */
double lab_stall_probe_secs (void);
/* Runs the probe for `secs` on every allowed CPU at once.  Returns
   {"secs", "cpus", "max_gap_us", "gaps_over_1ms", "gaps_over_5ms",
   "per_cpu": [{"cpu", "max_gap_us", "gaps_over_1ms", "gaps_over_5ms"}]},
   or NULL when secs <= 0 or no thread could start. */
struct json_object *lab_stall_probe (double secs);

#endif
