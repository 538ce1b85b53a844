/*
 * cpuset.c - CPU lists and the harness's own placement (see cpuset.h).
 */
#include "cpuset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
lab_cpulist_parse (const char *list, cpu_set_t *set)
{
  const char *c = list;

  CPU_ZERO (set);
  if (list == NULL || *list == '\0')
    return -1;
  while (*c)
    {
      char *end;
      long a, b;
      if (!isdigit ((unsigned char) *c))
        return -1;
      a = b = strtol (c, &end, 10);
      c = end;
      if (*c == '-')
        {
          if (!isdigit ((unsigned char) c[1]))
            return -1;
          b = strtol (c + 1, &end, 10);
          c = end;
        }
      if (b < a || b >= CPU_SETSIZE)
        return -1;
      for (long i = a; i <= b; i++)
        CPU_SET ((int) i, set);
      if (*c == ',' && c[1])
        c++;
      else if (*c)
        return -1;
    }
  return 0;
}

void
lab_cpulist_format (const cpu_set_t *set, char *buf, size_t len)
{
  size_t used = 0;

  buf[0] = '\0';
  for (int i = 0; i < CPU_SETSIZE; i++)
    {
      int j = i;
      if (!CPU_ISSET (i, set))
        continue;
      while (j + 1 < CPU_SETSIZE && CPU_ISSET (j + 1, set))
        j++;
      if (j > i)
        used += (size_t) snprintf (buf + used, used < len ? len - used : 0, "%s%d-%d", used ? "," : "", i, j);
      else
        used += (size_t) snprintf (buf + used, used < len ? len - used : 0, "%s%d", used ? "," : "", i);
      i = j;
    }
}

void
lab_cpuset_auto (long ncpus, char *buf, size_t len)
{
  if (ncpus >= 3)
    snprintf (buf, len, "1-%ld", ncpus - 1);
  else if (ncpus == 2)
    snprintf (buf, len, "1");
  else
    snprintf (buf, len, "0");
}

int
lab_cpuset_usable (void)
{
  char line[4096], path[4400];
  FILE *f = fopen ("/proc/self/cgroup", "re");
  int ok = 0, v1 = 0;

  if (f == NULL)
    return 0;
  while (!ok && fgets (line, sizeof line, f))
    {
      char *c1 = strchr (line, ':'), *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
      if (c2 == NULL)
        continue;
      *c2 = '\0';
      c2[1 + strcspn (c2 + 1, "\n")] = '\0';
      const char *ctl = c1 + 1, *p = strcmp (c2 + 1, "/") ? c2 + 1 : "";
      if (strcmp (ctl, "cpuset") == 0 || strstr (ctl, "cpuset,") || strstr (ctl, ",cpuset"))
        {
          /* v1: our cpuset group must be visible (not so in a container without cgroupns) */
          v1 = 1;
          snprintf (path, sizeof path, "/sys/fs/cgroup/cpuset%s/cpuset.cpus", p);
          ok = access (path, R_OK) == 0;
        }
      else if (*ctl == '\0' && !v1)
        {
          char ctls[512] = "";
          snprintf (path, sizeof path, "/sys/fs/cgroup%s/cgroup.controllers", p);
          FILE *c = fopen (path, "re");
          if (c)
            {
              if (fgets (ctls, sizeof ctls, c) == NULL)
                ctls[0] = '\0';
              fclose (c);
            }
          ok = strstr (ctls, "cpuset") != NULL;
        }
    }
  fclose (f);
  return ok;
}

void
lab_cpuset_pin_harness (const char *workload_cpus, struct lab_harness_pin *pin)
{
  cpu_set_t wl, rest;

  memset (pin, 0, sizeof *pin);
  if (workload_cpus == NULL || lab_cpulist_parse (workload_cpus, &wl) < 0
      || sched_getaffinity (0, sizeof pin->saved, &pin->saved) < 0)
    return;
  CPU_ZERO (&rest);
  for (int i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET (i, &pin->saved) && !CPU_ISSET (i, &wl))
      CPU_SET (i, &rest);
  if (CPU_COUNT (&rest) == 0 || sched_setaffinity (0, sizeof rest, &rest) < 0)
    return;
  pin->pinned = 1;
  lab_cpulist_format (&rest, pin->cpus, sizeof pin->cpus);
}

void
lab_cpuset_unpin_harness (struct lab_harness_pin *pin)
{
  if (pin->pinned)
    sched_setaffinity (0, sizeof pin->saved, &pin->saved);
  pin->pinned = 0;
}
