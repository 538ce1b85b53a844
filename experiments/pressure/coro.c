/*
 * coro.c - pressure, variants `coro` and `coro-copystack` (see pressure.h):
 * N coroutines, each with K KiB touched on its stack, parked on its own wait
 * group; the main thread (not a coroutine) wakes them one at a time
 * (coro_wg_done) and waits for each answer on `ack` (a thread waits on a
 * wait group with a futex).
 *   coro            own stack of K + 16 KiB (unless --stack);
 *   coro-copystack  per-worker shared stack of K + 64 KiB; parked, each keeps
 *                   a malloc'd copy of the K KiB it used.
 */
#include <alloca.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coro.h"
#include "pressure.h"
#include "wl.h"

struct task
{
  struct coro_wg wake;
  uint32_t id;
};

static struct coro_wg ack = CORO_WG_INIT;
static _Atomic long parked, corrupt;
static size_t bytes;

static void
run_task (void *arg)
{
  struct task *t = arg;
  char *buf = alloca (bytes);
  pressure_touch (buf, bytes, t->id);
  atomic_fetch_add (&parked, 1);
  coro_wg_wait (&t->wake);
  atomic_fetch_add (&corrupt, pressure_check (buf, bytes, t->id));
  coro_wg_done (&ack);
}

static int
run (const struct wl_args *a, struct wl_report *r, int copystack)
{
  struct pressure_run p;
  char err[256];
  long created = 0;
  int spawn_errno = 0;

  pressure_begin (&p, a);
  bytes = (size_t) p.kib * 1024;
  size_t page = 4096, own = (bytes + 16 * 1024 + page - 1) / page * page;
  struct coro_config cfg = { .workers = a->threads, .backend = a->backend,
                             .stack_size = a->stack_size ? (size_t) a->stack_size : own,
                             .shared_stack_size = bytes + 64 * 1024 };
  if (!copystack && cfg.stack_size < bytes + 8 * 1024)
    return wl_report_error (r, "--stack must exceed the task's K KiB by at least 8 KiB");
  cfg.guard = coro_guard_parse (wl_opt (a, "guard", "auto"));
  struct task *tasks = calloc ((size_t) a->n, sizeof *tasks);
  if (tasks == NULL || p.lat == NULL)
    return wl_report_error (r, "allocating the task arrays failed");
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    return wl_report_error (r, err);
  for (; created < a->n; created++)
    {
      struct task *t = &tasks[created];
      t->id = (uint32_t) created;
      t->wake = (struct coro_wg) CORO_WG_INIT;
      coro_wg_add (&t->wake, 1);
      if (coro_spawn_ex (run_task, t, copystack ? CORO_COPYSTACK : 0) < 0)
        {
          spawn_errno = errno;
          break;
        }
    }
  /* Parked = counted and waiting on its own wait group. */
  for (long i = 0; i < created; i++)
    while (coro_wg_nwaiters (&tasks[i].wake) < 1)
      {
        struct timespec ms = { 0, 200000 };
        nanosleep (&ms, NULL);
      }
  pressure_parked (&p, a);
  for (long i = 0; i < created; i++)
    {
      uint64_t t0 = wl_now_ns ();
      coro_wg_add (&ack, 1);
      coro_wg_done (&tasks[i].wake);
      coro_wg_wait (&ack);
      p.lat[i] = wl_now_ns () - t0;
    }
  pressure_woken (&p);
  wl_report_str (r, "backend", coro_backend_name ());
  wl_report_str (r, "guard", coro_guard_name ());
  coro_runtime_stop ();
  wl_report_int (r, "stack_bytes", copystack ? 0 : (int64_t) cfg.stack_size);
  pressure_report (&p, r, created, atomic_load (&corrupt));
  free (tasks);
  if (created < a->n)
    {
      char detail[300];
      const char *limit = wl_which_limit (spawn_errno, created, detail, sizeof detail);
      return wl_report_limit (r, limit, detail);
    }
  if (atomic_load (&corrupt))
    return wl_report_error (r, "a task read back different data than it wrote");
  return wl_report_ok (r);
}

int
pressure_coro (const struct wl_args *a, struct wl_report *r)
{
  return run (a, r, 0);
}

int
pressure_coro_copystack (const struct wl_args *a, struct wl_report *r)
{
  return run (a, r, 1);
}
