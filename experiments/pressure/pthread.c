/*
 * pthread.c - pressure, variant `pthread` (see pressure.h): N threads, each
 * with K KiB touched on its own stack (stack size K + 64 KiB unless --stack),
 * parked in FUTEX_WAIT on its own word; the main thread wakes them one at a
 * time and waits on `acked` for each answer.
 */
#include <alloca.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "pressure.h"
#include "wl.h"

struct task
{
  _Atomic uint32_t wake;
  uint32_t id;
};

static _Atomic uint32_t parked, acked, main_waits;
static _Atomic long corrupt;
static size_t bytes;

static void *
run_task (void *arg)
{
  struct task *t = arg;
  char *buf = alloca (bytes);
  pressure_touch (buf, bytes, t->id);
  atomic_fetch_add (&parked, 1);
  if (atomic_load (&main_waits))
    wl_futex_wake ((uint32_t *) &parked, 1);
  while (atomic_load (&t->wake) == 0)
    wl_futex_wait ((uint32_t *) &t->wake, 0);
  atomic_fetch_add (&corrupt, pressure_check (buf, bytes, t->id));
  atomic_store (&acked, t->id + 1);
  wl_futex_wake ((uint32_t *) &acked, 1);
  return NULL;
}

int
pressure_pthread (const struct wl_args *a, struct wl_report *r)
{
  struct pressure_run p;
  pthread_attr_t attr;
  long created = 0;
  char detail[512], msg[600];
  const char *limit = NULL;

  pressure_begin (&p, a);
  bytes = (size_t) p.kib * 1024;
  long stack = wl_thread_stack_bytes (a, (long) bytes + 64 * 1024);
  if (stack < (long) bytes + 32 * 1024)
    return wl_report_error (r, "--stack must exceed the task's K KiB by at least 32 KiB");
  pthread_t *tids = calloc ((size_t) a->n, sizeof *tids);
  struct task *tasks = calloc ((size_t) a->n, sizeof *tasks);
  if (tids == NULL || tasks == NULL || p.lat == NULL || a->n > UINT32_MAX / 2)
    return wl_report_error (r, "allocating the task arrays failed");
  pthread_attr_init (&attr);
  if (pthread_attr_setstacksize (&attr, (size_t) stack))
    return wl_report_error (r, "pthread_attr_setstacksize failed");
  for (; created < a->n; created++)
    {
      tasks[created].id = (uint32_t) created;
      int err = pthread_create (&tids[created], &attr, run_task, &tasks[created]);
      if (err)
        {
          limit = wl_which_limit (err, created, detail, sizeof detail);
          snprintf (msg, sizeof msg, "pthread_create: %s", detail);
          break;
        }
    }
  pthread_attr_destroy (&attr);
  atomic_store (&main_waits, 1);
  for (uint32_t n; (n = atomic_load (&parked)) < (uint32_t) created;)
    wl_futex_wait ((uint32_t *) &parked, n);
  atomic_store (&main_waits, 0);
  pressure_parked (&p, a);

  for (long i = 0; i < created; i++)
    {
      uint64_t t0 = wl_now_ns ();
      atomic_store (&tasks[i].wake, 1);
      wl_futex_wake ((uint32_t *) &tasks[i].wake, 1);
      for (uint32_t v; (v = atomic_load (&acked)) != (uint32_t) i + 1;)
        wl_futex_wait ((uint32_t *) &acked, v);
      p.lat[i] = wl_now_ns () - t0;
    }
  pressure_woken (&p);
  for (long i = 0; i < created; i++)
    pthread_join (tids[i], NULL);
  wl_report_int (r, "stack_bytes", stack);
  pressure_report (&p, r, created, atomic_load (&corrupt));
  free (tids);
  free (tasks);
  if (limit)
    return wl_report_limit (r, limit, msg);
  if (atomic_load (&corrupt))
    return wl_report_error (r, "a task read back different data than it wrote");
  return wl_report_ok (r);
}
