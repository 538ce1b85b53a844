/* stall-probe.c - see stall-probe.h. */
#include "stall-probe.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CPUS 256

struct probe
{
  pthread_t t;
  int cpu, started;
  double secs;
  int64_t max_gap_ns;
  long over_1ms, over_5ms;
};

static int64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
spin (void *arg)
{
  struct probe *p = arg;
  cpu_set_t one;
  int64_t start, prev, end;

  CPU_ZERO (&one);
  CPU_SET (p->cpu, &one);
  /* A thread that cannot be pinned would measure its migrations: it reports nothing. */
  if (sched_setaffinity (0, sizeof one, &one) != 0)
    return NULL;
  start = prev = now_ns ();
  end = start + (int64_t) (p->secs * 1e9);
  for (;;)
    {
      int64_t t = now_ns (), gap = t - prev;
      if (gap > p->max_gap_ns)
        p->max_gap_ns = gap;
      p->over_1ms += gap > 1000000;
      p->over_5ms += gap > 5000000;
      prev = t;
      if (t >= end)
        break;
    }
  p->started = 2;
  return NULL;
}

double
lab_stall_probe_secs (void)
{
  const char *e = getenv ("LAB_STALL_PROBE_S");
  char *end;
  double v;

  if (e == NULL || *e == '\0')
    return 0.5;
  v = strtod (e, &end);
  return *end == '\0' && v >= 0 && v <= 60 ? v : 0.5;
}

struct json_object *
lab_stall_probe (double secs)
{
  static struct probe probes[MAX_CPUS];
  cpu_set_t allowed;
  int n = 0, ran = 0;
  int64_t max_gap = 0;
  long o1 = 0, o5 = 0;
  struct json_object *o, *per;

  if (secs <= 0 || sched_getaffinity (0, sizeof allowed, &allowed) != 0)
    return NULL;
  memset (probes, 0, sizeof probes);
  for (int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; c++)
    if (CPU_ISSET (c, &allowed))
      {
        probes[n].cpu = c;
        probes[n].secs = secs;
        probes[n].started = pthread_create (&probes[n].t, NULL, spin, &probes[n]) == 0;
        n++;
      }
  per = json_object_new_array ();
  for (int i = 0; i < n; i++)
    {
      struct json_object *c;
      if (!probes[i].started)
        continue;
      pthread_join (probes[i].t, NULL);
      if (probes[i].started != 2)
        continue;
      ran++;
      c = json_object_new_object ();
      json_object_object_add (c, "cpu", json_object_new_int (probes[i].cpu));
      json_object_object_add (c, "max_gap_us", json_object_new_double ((double) probes[i].max_gap_ns / 1e3));
      json_object_object_add (c, "gaps_over_1ms", json_object_new_int64 (probes[i].over_1ms));
      json_object_object_add (c, "gaps_over_5ms", json_object_new_int64 (probes[i].over_5ms));
      json_object_array_add (per, c);
      if (probes[i].max_gap_ns > max_gap)
        max_gap = probes[i].max_gap_ns;
      o1 += probes[i].over_1ms;
      o5 += probes[i].over_5ms;
    }
  if (ran == 0)
    {
      json_object_put (per);
      return NULL;
    }
  o = json_object_new_object ();
  json_object_object_add (o, "secs", json_object_new_double (secs));
  json_object_object_add (o, "cpus", json_object_new_int (ran));
  json_object_object_add (o, "max_gap_us", json_object_new_double ((double) max_gap / 1e3));
  json_object_object_add (o, "gaps_over_1ms", json_object_new_int64 (o1));
  json_object_object_add (o, "gaps_over_5ms", json_object_new_int64 (o5));
  json_object_object_add (o, "per_cpu", per);
  return o;
}
