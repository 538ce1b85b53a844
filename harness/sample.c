/*
 * sample.c - reads VmRSS, VmSize, VmSwap and the high-water marks VmHWM and
 * VmPeak from /proc/<pid>/status (kB, as the kernel prints them) for the
 * sandbox's sampling loop.  The high-water marks make the peaks exact for a
 * one-process workload even when it peaks between two samples (or ends before
 * the second); summed over several processes they are an upper bound.  RSS counts pages
 * mapped by the process (shared pages in every process that maps them);
 * kernel memory such as thread stacks and page tables is not in it - the
 * cgroup figures have that.
 */
#include <stdio.h>
#include <string.h>

#include "sample.h"
#include "utils.h"

int
lab_sample_proc (pid_t pid, struct lab_sample *s)
{
  char path[64], line[256];
  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  cleanup_file FILE *f = fopen (path, "re");
  memset (s, 0, sizeof *s);
  if (f == NULL)
    return -1;
  long long kb;
  int seen = 0;
  while (fgets (line, sizeof line, f))
    {
      if (sscanf (line, "VmRSS: %lld kB", &kb) == 1)
        s->rss = kb * 1024;
      else if (sscanf (line, "VmSize: %lld kB", &kb) == 1)
        {
          s->vss = kb * 1024;
          seen = 1;
        }
      else if (sscanf (line, "VmSwap: %lld kB", &kb) == 1)
        s->swap = kb * 1024;
      else if (sscanf (line, "VmHWM: %lld kB", &kb) == 1)
        s->rss_hwm = kb * 1024;
      else if (sscanf (line, "VmPeak: %lld kB", &kb) == 1)
        s->vss_hwm = kb * 1024;
    }
  if (!seen) /* a zombie (or kernel thread) has no memory lines */
    return -1;
  s->n = 1;
  return 0;
}

void
lab_sample_pids (const pid_t *pids, int n, struct lab_sample *s)
{
  memset (s, 0, sizeof *s);
  for (int i = 0; i < n; i++)
    {
      struct lab_sample one;
      if (lab_sample_proc (pids[i], &one) < 0)
        continue;
      s->rss += one.rss;
      s->vss += one.vss;
      s->swap += one.swap;
      s->rss_hwm += one.rss_hwm;
      s->vss_hwm += one.vss_hwm;
      s->n++;
    }
}
