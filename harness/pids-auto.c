/*
 * pids-auto.c - `"pids.max": "auto"` in a profile: the most tasks one point
 * may have while the host keeps a reserve of pids for everything else (its
 * shells, daemons, the harness).  Without it one pthread point used up
 * kernel.pid_max and nothing else on the host could fork.
 *
 *   cap     = min(kernel.pid_max, kernel.threads-max)   (read when the profile loads)
 *   reserve = max(1024, cap / 8)
 *   auto    = cap - reserve           (this host: 32768 - 4096 = 28672)
 *
 * The value is fixed when the profile loads and recorded in every point's
 * `profile.limits`, so a point that reaches it ends `limit` naming pids.max
 * (the workload reads its cgroup's pids.max and pids.current).
 */
#include <stdio.h>

#include "profile.h"

static int64_t
read_sysctl (const char *path)
{
  long long v = -1;
  FILE *f = fopen (path, "re");
  if (f)
    {
      if (fscanf (f, "%lld", &v) != 1)
        v = -1;
      fclose (f);
    }
  return v;
}

int64_t
lab_pids_auto (void)
{
  int64_t pid_max = read_sysctl ("/proc/sys/kernel/pid_max");
  int64_t threads_max = read_sysctl ("/proc/sys/kernel/threads-max");
  int64_t cap = pid_max;
  if (threads_max > 0 && (cap <= 0 || threads_max < cap))
    cap = threads_max;
  if (cap <= 0)
    return 4096; /* no /proc/sys: a sane fixed default */
  int64_t reserve = cap / 8 > 1024 ? cap / 8 : 1024;
  return cap > 2 * reserve ? cap - reserve : cap / 2;
}
