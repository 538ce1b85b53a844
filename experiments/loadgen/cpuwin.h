/*
 * cpuwin.h - CPU time of the client and of the server over one window of
 * wl-loadgen's run (the closed loop), read at its two edges, so a reader
 * can tell which side limited the capacity.
 *
 * At each edge (cpuwin_snap) the generator reads, in this order, right
 * after taking the CLOCK_MONOTONIC time of the edge:
 *   client  getrusage(RUSAGE_SELF) user + system, and its cgroup's CPU
 *           (v1 cpuacct.usage, else v2 cpu.stat usage_usec) as a cross-check;
 *   server  (with --server-pid PID) the cgroup of PID, same files: every
 *           process of the server's cgroup (its sandbox's init waits and
 *           costs nothing measurable), and /proc/PID/stat utime + stime
 *           (clock ticks) as a cross-check;
 *           (with --server-idle-addr A as well) 8 bytes at address A in
 *           PID (process_vm_readv): the coroutine runtime's total idle
 *           spinning in ns (sched.c), so "server busy" can leave it out.
 * Both sides also: the time their threads waited on a run queue
 * (/proc/.../schedstat run_delay: the client's one thread; the server's
 * threads summed when it has at most CPUWIN_MAX_TASKS, else not read), so a
 * side starved by other work on its CPU still reads as wanting that CPU.
 * A reading that cannot be made is -1 and reported as null, never 0.
 * Busy = CPU seconds / (window seconds x CPUs the side may run on, its
 * sched_getaffinity), from the first of the two readings that exists
 * (cgroup for the server, getrusage for the client); demand = (CPU seconds
 * - idle spinning + run-queue wait) / the same.
 */
#ifndef LAB_LOADGEN_CPUWIN_H
#define LAB_LOADGEN_CPUWIN_H

#include <stdint.h>
#include <sys/types.h>

struct cpuwin_snap
{
  uint64_t t_ns;                 /* CLOCK_MONOTONIC */
  int64_t self_rusage_ns, self_cgroup_ns;
  int64_t server_cgroup_ns, server_proc_ns, server_idle_ns;
  int64_t self_wait_ns, server_wait_ns;
};

#define CPUWIN_MAX_TASKS 64

struct cpuwin
{
  pid_t server;                  /* 0: client only */
  uintptr_t idle_addr;           /* 0: none */
  char self_cg[512], server_cg[512]; /* the cgroup CPU file and its kind */
  int self_cg_v2, server_cg_v2;
  int self_cpus, server_cpus;
  char note[256];                /* why a reading is missing, for the report */
};

/* Finds the cgroup files and CPU counts; never fails (missing readings are -1). */
void cpuwin_init (struct cpuwin *w, pid_t server, uintptr_t idle_addr);
void cpuwin_snap (const struct cpuwin *w, struct cpuwin_snap *s);

#endif
