/*
 * main.c - `wl-blocking`: the variant table (blocking.h).
 */
#include "blocking.h"

static const struct wl_variant variants[] = {
  { "pthread", blocking_pthread },
  { "coro-blocking", blocking_coro },
  { "coro-uring", blocking_coro },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "blocking", variants, sizeof variants / sizeof variants[0]);
}
