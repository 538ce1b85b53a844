/*
 * main.c - `wl-wakeup`: the variant table (wakeup.h).  Options:
 * --opt timeout_ms=T (1..10000, default 1): the thread variants' epoll_wait
 * timeout, which bounds a missed wake-up.
 */
#include "wakeup.h"

static const struct wl_variant variants[] = {
  { "condvar", wakeup_threads },
  { "eventfd", wakeup_threads },
  { "pipe", wakeup_threads },
  { "coro", wakeup_coro },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "wakeup", variants, sizeof variants / sizeof variants[0]);
}
