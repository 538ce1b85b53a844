/*
 * coro.c - echo variants `coro-epoll` and `coro-uring`: one coroutine per
 * connection on our runtime (experiments/runtime/), blocking-style code.
 *
 * The runtime starts one worker per server CPU with the backend the variant
 * names; an acceptor coroutine loops on coro_accept and spawns a handler per
 * connection that receives a request and answers it with coro_send_recv:
 * the answer and the next receive in one call (the socket calls epoll.c and
 * uring.c make too; each parks only itself), its buffer on its own stack
 * (--stack, default 16 KiB: the 4 KiB buffer plus libc's frames).  On the
 * io_uring backend that is a SEND linked to a RECV (one-shot, no provided
 * buffers: a parked coroutine owns its buffer), on epoll a send tried first,
 * a wait for readable and the recv; the runtime's own account
 * (coro_backend_features) is the report's `uring_features`.  A lone worker
 * parks when idle; `--opt spin=on` makes it spin first (sched.c, idle():
 * a lower p50 for a longer p99 here), reported as `lone_spin`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coro.h"
#include "echo.h"

#define CORO_STACK_DEFAULT (16 * 1024)

static struct echo_server *S;

static void
handler (void *arg)
{
  int fd = (int) (intptr_t) arg;
  struct echo_proto_state st = { 0 };
  char buf[ECHO_BUF];
  const char *out = NULL; /* the answer to send before the next receive */
  size_t outlen = 0;

  for (;;)
    {
      ssize_t n;
      if (outlen)
        {
          size_t sent;
          n = coro_send_recv (fd, out, outlen, &sent, buf, sizeof buf);
          echo_count (&echo_stats.bytes_out, sent);
          if (sent < outlen)
            break;
          outlen = 0;
        }
      else
        n = coro_recv (fd, buf, sizeof buf, 0);
      if (n <= 0)
        {
          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0 && errno == ECONNRESET)
            echo_count (&echo_stats.resets, 1);
          break;
        }
      size_t k = echo_proto_feed (S->proto, &st, buf, (size_t) n);
      if (S->proto == ECHO_PROTO_ECHO)
        out = buf, outlen = k;
      else
        {
          /* all but the last batch of answers now, the last with the next receive */
          for (; k > ECHO_HTTP_BATCH; k -= ECHO_HTTP_BATCH)
            if (echo_write_all (fd, echo_http_responses (ECHO_HTTP_BATCH, &outlen), outlen, coro_send) < 0)
              goto done;
          outlen = 0;
          if (k)
            out = echo_http_responses (k, &outlen);
        }
    }
done:
  close (fd);
  echo_count_open (-1);
}

static void
acceptor (void *arg)
{
  for (;;)
    {
      int fd = coro_accept (S->listen_fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd < 0)
        {
          int e = errno;
          if (e == EINTR || e == ECONNABORTED)
            continue;
          fprintf (stderr, "wl-echo: coro_accept: %s\n", strerror (e));
          coro_sleep_ns (1000000); /* EMFILE and friends: do not spin */
          continue;
        }
      echo_count_open (1);
      if (coro_spawn (handler, (void *) (intptr_t) fd) < 0)
        {
          close (fd);
          echo_count_open (-1);
          echo_count (&echo_stats.refused, 1);
        }
    }
}

int
echo_coro_start (struct echo_server *srv)
{
  char err[256];
  S = srv;
  const char *spin = wl_opt (srv->a, "spin", "off");
  if (strcmp (spin, "on") != 0 && strcmp (spin, "off") != 0)
    {
      fprintf (stderr, "wl-echo: option `--opt spin=%s`: expected on or off\n", spin);
      exit (2);
    }
  struct coro_config cfg = {
    .workers = srv->cpus,
    .stack_size = srv->a->stack_size ? (size_t) srv->a->stack_size : CORO_STACK_DEFAULT,
    .guard = coro_guard_parse (wl_opt (srv->a, "guard", "auto")),
    .backend = srv->backend,
    .lone_spin = strcmp (spin, "on") == 0,
  };
  if (coro_runtime_start (&cfg, err, sizeof err) < 0)
    {
      snprintf (srv->error, sizeof srv->error, "coroutine runtime: %s", err);
      return -1;
    }
  if (strcmp (coro_backend_name (), srv->backend) != 0)
    {
      snprintf (srv->error, sizeof srv->error, "coroutine runtime: backend %s asked, %s started", srv->backend,
                coro_backend_name ());
      return -1;
    }
  if (strcmp (srv->backend, "io_uring") == 0)
    snprintf (srv->features, sizeof srv->features, "%s (runtime backend)", coro_backend_features ());
  if (coro_spawn (acceptor, NULL) < 0)
    {
      snprintf (srv->error, sizeof srv->error, "spawning the acceptor: %s", strerror (errno));
      return -1;
    }
  return 0;
}

void
echo_coro_report (struct wl_report *r)
{
  struct coro_stats st;
  coro_stats (&st);
  wl_report_str (r, "backend", coro_backend_name ());
  wl_report_str (r, "guard", coro_guard_name ());
  wl_report_int (r, "workers", coro_nworkers ());
  wl_report_str (r, "lone_spin", wl_opt (S->a, "spin", "off"));
  wl_report_int (r, "stack_size", (int64_t) st.stack_size);
  wl_report_int (r, "coro_spawned", (int64_t) st.spawned);
  wl_report_int (r, "coro_switches", (int64_t) st.switches);
  wl_report_int (r, "backend_syscalls", (int64_t) st.backend_syscalls);
  wl_report_int (r, "arena_bytes", (int64_t) st.arena_bytes);
}
