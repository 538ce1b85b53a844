/*
 * main.c - `wl-switch`: the variant table; wl_main (wl.h) parses the common
 * flags and runs the named variant, which prints the one report line.
 * Coroutine variants are weak: until the runtime's coro*.c files exist the
 * binary still links, and asking for them reports "variant `...` not built".
 */
#include "switch.h"
#include "wl.h"

extern int switch_coro (const struct wl_args *a, struct wl_report *r) __attribute__ ((weak));

static const struct wl_variant variants[] = {
  { "coro", switch_coro },
  { "pthread", switch_pthread },
  { "ucontext", switch_ucontext },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "switch", variants, sizeof variants / sizeof variants[0]);
}
