/*
 * meminfo.c - a field of /proc/meminfo in kB.  Inside the sandbox
 * /proc/meminfo is still the host's, so KernelStack and PageTables are
 * host-wide: the workload reports their change from before it spawned to
 * all parked (host_kernel_stack_delta_bytes, host_pagetables_delta_bytes),
 * which other processes on the host blur at small n.  On cgroup v1, whose
 * memory.stat has no kernel_stack/pagetables, these and VmPTE are the kernel
 * part's breakdown; the cgroup's kmem peak is its total.
 */
#include <stdio.h>
#include <string.h>

#include "memory.h"

long
memory_meminfo_kb (const char *key)
{
  char line[256];
  long kb;
  size_t kl = strlen (key);
  FILE *f = fopen ("/proc/meminfo", "re");
  long v = -1;
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, key, kl) == 0 && line[kl] == ':' && sscanf (line + kl + 1, "%ld", &kb) == 1)
      {
        v = kb;
        break;
      }
  if (f)
    fclose (f);
  return v;
}

void
memory_kernel_begin (struct memory_kernel *k)
{
  k->stack0 = memory_meminfo_kb ("KernelStack");
  k->pt0 = memory_meminfo_kb ("PageTables");
}

void
memory_kernel_report (const struct memory_kernel *k, struct wl_report *r, long parked)
{
  long st = memory_meminfo_kb ("KernelStack"), pt = memory_meminfo_kb ("PageTables");
  if (st < 0 || k->stack0 < 0 || pt < 0 || k->pt0 < 0)
    return;
  wl_report_int (r, "host_kernel_stack_delta_bytes", (int64_t) (st - k->stack0) * 1024);
  wl_report_int (r, "host_pagetables_delta_bytes", (int64_t) (pt - k->pt0) * 1024);
  if (parked > 0)
    {
      wl_report_num (r, "kernel_stack_per_task", (double) (st - k->stack0) * 1024.0 / (double) parked);
      wl_report_num (r, "pagetables_per_task", (double) (pt - k->pt0) * 1024.0 / (double) parked);
    }
}
