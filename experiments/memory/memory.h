/*
 * memory.h - the memory experiment (claim C2): park N tasks alive, report the
 * memory they cost (bytes_per_task from VmRSS, vss), print `@lab-parked` on
 * stdout (flushed) once all are parked, keep them parked 0.5 s (--duration) so the harness
 * samples steady state, then release and join them.  Same contract as spawn.h.
 */
#ifndef LAB_MEMORY_H
#define LAB_MEMORY_H

#include "wl.h"

/* Printed on its own line once every task is parked. */
#define MEMORY_PARKED_LINE "@lab-parked"

/* Host-wide KernelStack / PageTables (/proc/meminfo) before spawning and
   once parked: the kernel part's breakdown where the cgroup has none (v1). */
struct memory_kernel
{
  long stack0, pt0; /* kB */
};
long memory_meminfo_kb (const char *key);
void memory_kernel_begin (struct memory_kernel *k);
void memory_kernel_report (const struct memory_kernel *k, struct wl_report *r, long parked);

int memory_pthread (const struct wl_args *a, struct wl_report *r);
int memory_coro (const struct wl_args *a, struct wl_report *r);
int memory_coro_copystack (const struct wl_args *a, struct wl_report *r);

#endif
