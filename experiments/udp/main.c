/*
 * main.c - `wl-udp`: the variant table (udp.h).  Options: --opt size=BYTES
 * (8..65507, default 1024), batch=B (1..UIO_MAXIOV, default 64; coroutines
 * for coro-uring), sndbuf=BYTES (default 4096: small, so EAGAIN can happen),
 * rcvbuf=BYTES (default: as large as net.core.rmem_max allows).
 */
#include "udp.h"

static int
v_sendto (const struct wl_args *a, struct wl_report *r)
{
  return udp_run (a, r, udp_send_sendto, 0);
}

static int
v_sendmmsg (const struct wl_args *a, struct wl_report *r)
{
  return udp_run (a, r, udp_send_sendmmsg, 1);
}

static int
v_uring (const struct wl_args *a, struct wl_report *r)
{
  return udp_run (a, r, udp_send_uring, 1);
}

static int
v_coro_uring (const struct wl_args *a, struct wl_report *r)
{
  return udp_run (a, r, udp_send_coro, 1);
}

static const struct wl_variant variants[] = {
  { "sendto", v_sendto },
  { "sendmmsg", v_sendmmsg },
  { "uring", v_uring },
  { "coro-uring", v_coro_uring },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "udp", variants, sizeof variants / sizeof variants[0]);
}
