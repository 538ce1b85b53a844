/*
 * main.c - `wl-memory`: the variant table; wl_main (wl.h) parses the common
 * flags and runs the named variant, which prints the one report line.
 * Coroutine variants are weak: until the runtime's coro*.c files exist the
 * binary still links, and asking for them reports "variant `...` not built".
 */
#include "memory.h"
#include "wl.h"

extern int memory_coro (const struct wl_args *a, struct wl_report *r) __attribute__ ((weak));
extern int memory_coro_copystack (const struct wl_args *a, struct wl_report *r) __attribute__ ((weak));

static const struct wl_variant variants[] = {
  { "pthread", memory_pthread },
  { "coro", memory_coro },
  { "coro-copystack", memory_coro_copystack },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "memory", variants, sizeof variants / sizeof variants[0]);
}
