/*
 * coro-idle.h - how long the runtime's workers spun with nothing to run.
 *
 * A worker that finds no coroutine (sched.c, idle()) spins and polls before
 * it parks: CPU time the process burns without work, which makes a
 * coroutine server look busy by its CPU time alone.  sched.c reads
 * CLOCK_MONOTONIC once when a worker starts idling and once when it finds
 * work or parks in the backend's blocking poll, and adds the difference to
 * coro_idle_spin_ns (time parked in the poll is not counted: it is not CPU).
 * The last non-blocking poll of an episode, the one that finds the work,
 * counts as idle.  The counter is a plain 8-byte word so another process may
 * read it at two moments (wl-loadgen --server-idle-addr, process_vm_readv).
 */
#ifndef CORO_IDLE_H
#define CORO_IDLE_H

#include <stdint.h>

extern _Atomic uint64_t coro_idle_spin_ns;

static inline uint64_t
coro_idle_spin_total (void)
{
  return coro_idle_spin_ns;
}

#endif
