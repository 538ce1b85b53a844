/*
 * cpuset.h - CPU lists ("0-1", "0,2") as the kernel's cpuset.cpus writes
 * them, and where the harness itself runs while a point is measured.
 *
 * A profile's `cpuset.cpus` pins the workload (the cgroup's cpuset); "auto"
 * means every online CPU but CPU 0 on a host with two or more, else CPU 0:
 * the harness (its sampler) keeps CPU 0, so it does not share the measured
 * CPUs.  lab_cpuset_pin_harness() moves the calling harness off the point's
 * CPUs (when any CPU is left) and lab_cpuset_unpin_harness() restores it.
 */
#ifndef LAB_CPUSET_H
#define LAB_CPUSET_H

#include <sched.h>
#include <stddef.h>

/* Parses a CPU list into `set`; -1 on bad syntax or a CPU >= CPU_SETSIZE. */
int lab_cpulist_parse (const char *list, cpu_set_t *set);
/* Formats `set` as a CPU list ("1-3,5"); "" when empty. */
void lab_cpulist_format (const cpu_set_t *set, char *buf, size_t len);
/* Whether the harness's own cgroup offers the cpuset controller (v1: its
   cpuset group is visible; v2: cgroup.controllers lists cpuset).  "auto"
   pins only where this holds (e.g. not in a container without cgroupns). */
int lab_cpuset_usable (void);
/* "auto" resolved for a host with `ncpus` CPUs: "1-(ncpus-1)", or "0" for one CPU. */
void lab_cpuset_auto (long ncpus, char *buf, size_t len);

struct lab_harness_pin
{
  int pinned;
  cpu_set_t saved;
  char cpus[128]; /* where the harness ran during the point ("" = not moved) */
};
/* Moves the harness onto the CPUs it may use that are not in `workload_cpus`
   (a CPU list; NULL = no pinning).  Nothing happens when no CPU is left. */
void lab_cpuset_pin_harness (const char *workload_cpus, struct lab_harness_pin *pin);
void lab_cpuset_unpin_harness (struct lab_harness_pin *pin);

#endif
