/*
 * main.c - `wl-pressure`: the variant table (see pressure.h).
 */
#include "pressure.h"
#include "wl.h"

static const struct wl_variant variants[] = {
  { "pthread", pressure_pthread },
  { "coro", pressure_coro },
  { "coro-copystack", pressure_coro_copystack },
};

int
main (int argc, char **argv)
{
  return wl_main (argc, argv, "pressure", variants, sizeof variants / sizeof variants[0]);
}
