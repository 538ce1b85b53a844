/*
 * debug.c - seeing inside the runtime: coro_dump, ASan and valgrind hooks.
 *
 * coro_dump() walks every slot the pools ever carved (stack.c) and prints the
 * live ones: id, state, why parked, worker, stack use.  coro_dump_on_signal()
 * installs a handler (run on each worker's sigaltstack, since coroutine stacks
 * may be one page) that dumps to stderr; like any dump of a running program it
 * reads racing state and is meant for a stuck process, not for exact counts.
 *
 * -DLAB_ASAN: every coro_switch is bracketed by
 * __sanitizer_start_switch_fiber (with the target stack's bounds) and
 * __sanitizer_finish_switch_fiber, so ASan knows which stack is live.
 * -DLAB_VALGRIND: every stack is registered with VALGRIND_STACK_REGISTER
 * when carved, so valgrind does not take a switch for a huge stack move.
 * Valgrind 3.19 (Debian 12) does not run io_uring_enter with EXT_ARG waits
 * (the worker never wakes) and lacks epoll_pwait2, so under valgrind the
 * default backend is epoll (with epoll_wait); see coro_under_valgrind().
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coro-internal.h"

#ifdef LAB_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef LAB_VALGRIND
#include <valgrind/valgrind.h>
#endif

#ifdef LAB_ASAN
void
coro_asan_start (struct coro_worker *w, struct coro *from, struct coro *to, void **fake)
{
  const void *lo;
  size_t size;
  if (!to)
    lo = w->thread_stack_lo, size = w->thread_stack_size;
  else if (to->flags & CF_COPYSTACK)
    lo = w->shared_stack, size = w->shared_size;
  else
    lo = coro_stack_lo (to), size = coro_stack_usable ();
  __sanitizer_start_switch_fiber (fake, lo, size);
}

void
coro_asan_finish (void *fake)
{
  __sanitizer_finish_switch_fiber (fake, NULL, NULL);
}
#endif

bool
coro_under_valgrind (void)
{
#ifdef LAB_VALGRIND
  return RUNNING_ON_VALGRIND;
#else
  return false;
#endif
}

void
coro_valgrind_register (void *lo, void *hi)
{
#ifdef LAB_VALGRIND
  VALGRIND_STACK_REGISTER (lo, hi);
#else
  (void) lo, (void) hi;
#endif
}

enum { ALTSTACK = 64 * 1024 };

void
coro_debug_thread_init (struct coro_worker *w)
{
  pthread_attr_t attr;
  void *lo;
  size_t size;
  if (pthread_getattr_np (pthread_self (), &attr) == 0)
    {
      if (pthread_attr_getstack (&attr, &lo, &size) == 0)
        w->thread_stack_lo = lo, w->thread_stack_size = size;
      pthread_attr_destroy (&attr);
    }
  w->altstack = malloc (ALTSTACK);
  if (w->altstack)
    {
      stack_t ss = { .ss_sp = w->altstack, .ss_size = ALTSTACK };
      if (sigaltstack (&ss, NULL) < 0)
        {
          free (w->altstack);
          w->altstack = NULL;
        }
    }
}

void
coro_debug_thread_fini (struct coro_worker *w)
{
  if (w->altstack)
    {
      stack_t ss = { .ss_flags = SS_DISABLE };
      sigaltstack (&ss, NULL);
      free (w->altstack);
      w->altstack = NULL;
    }
}

static const char *const state_name[] = { "free", "ready", "running", "parked", "done" };

struct dump_ctx
{
  int fd;
  long live;
};

static void
dump_one (struct coro *c, void *arg)
{
  struct dump_ctx *d = arg;
  unsigned st = __atomic_load_n (&c->state, __ATOMIC_RELAXED);
  if (st == CORO_FREE || st > CORO_DONE)
    return;
  d->live++;
  const char *reason = c->reason;
  struct coro_worker *w = c->w;
  long used = -1;
  if (c->flags & CF_COPYSTACK)
    used = (long) c->saved_len;
  else if (st != CORO_RUNNING && c->ctx.sp)
    used = (long) ((char *) coro_stack_top (c) - (char *) c->ctx.sp);
  char line[200];
  int n = snprintf (line, sizeof line, "  coro %-8u %p %-7s %-10s worker %-2d %s stack %ld B\n",
                    c->id, (void *) c, state_name[st], reason && st == CORO_PARKED ? reason : "-",
                    w ? w->id : -1, c->flags & CF_COPYSTACK ? "copy " : "own  ", used);
  if (n > 0 && write (d->fd, line, (size_t) n) < 0)
    return;
}

static void
dump_fd (int fd)
{
  char head[200];
  struct dump_ctx d = { fd, 0 };
  int n = snprintf (head, sizeof head, "coro dump: %d workers, backend %s, guard %s, live %ld\n",
                    coro_S.nworkers, coro_backend_name () ? coro_backend_name () : "-",
                    coro_guard_kind, coro_live_estimate ());
  if (write (fd, head, (size_t) n) < 0)
    return;
  coro_pools_walk (dump_one, &d);
  n = snprintf (head, sizeof head, "coro dump: %ld listed\n", d.live);
  if (write (fd, head, (size_t) n) < 0)
    return;
}

void
coro_dump (FILE *out)
{
  fflush (out);
  dump_fd (fileno (out));
}

static void
on_signal (int sig)
{
  (void) sig;
  dump_fd (2);
}

int
coro_dump_on_signal (int sig)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  return sigaction (sig, &sa, NULL);
}
