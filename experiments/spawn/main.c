/*
 * main.c - `wl-spawn`: the variant table; wl_main (wl.h) parses the common
 * flags and runs the named variant, which prints the one report line.
 * Coroutine variants are weak: until the runtime's coro*.c files exist the
 * binary still links, and asking for them reports "variant `...` not built".
 */
#include "spawn.h"
#include "wl.h"

extern int spawn_coro (const struct wl_args *a, struct wl_report *r) __attribute__ ((weak));

static const struct wl_variant variants[] = {
  { "pthread", spawn_pthread },
  { "coro", spawn_coro },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "spawn", variants, sizeof variants / sizeof variants[0]);
}
