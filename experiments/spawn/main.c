/*
 * main.c - `wl-spawn`: parses the common flags (wl.h), picks the variant from
 * the table below and runs it; the variant prints the one report line.
 * Coroutine variants are weak: until the runtime's coro*.c files exist the
 * binary still links, and asking for them reports "variant `...` not built".
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "spawn.h"
#include "wl.h"

extern int spawn_coro (const struct wl_args *a, struct wl_report *r) __attribute__ ((weak));

static const struct
{
  const char *name;
  int (*fn) (const struct wl_args *a, struct wl_report *r);
} variants[] = {
  { "pthread", spawn_pthread },
  { "coro", spawn_coro },
};

int
main (int argc, char **argv)
{
  const char *names[sizeof variants / sizeof variants[0] + 1];
  struct wl_args a;
  struct wl_report *r;
  size_t i;

  for (i = 0; i < sizeof variants / sizeof variants[0]; i++)
    names[i] = variants[i].name;
  names[i] = NULL;
  wl_parse_args (argc, argv, "spawn", names, &a);
  r = wl_report_new (&a);
  for (i = 0; strcmp (variants[i].name, a.variant) != 0; i++)
    ; /* wl_parse_args accepted only names from the table */
  if (variants[i].fn == NULL)
    {
      char msg[128];
      snprintf (msg, sizeof msg, "variant `%s` not built", a.variant);
      return wl_report_error (r, msg);
    }
  return variants[i].fn (&a, r);
}
