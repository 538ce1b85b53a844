/* main.c - `wl-seccomp`: variant table and the report; see seccomp.h. */
#include <string.h>

#include "seccomp.h"

static const char *const variants[] = { "syscall", "io_uring", "io_uring-restricted", "memory-max", "clone-newns",
                                        "ptrace", NULL };

int
main (int argc, char **argv)
{
  struct wl_args a;
  struct wl_report *r;
  const char *file;
  uint64_t t0;

  wl_parse_args (argc, argv, "seccomp", variants, &a);
  if (a.n <= 0)
    a.n = 1;
  file = wl_opt (&a, "file", "/etc/hostname");
  r = wl_report_new (&a);
  wl_report_str (r, "file", file);
  if (seccomp_probe_sandbox (&a, r, file))
    return wl_report_ok (r);
  wl_region_begin ();
  t0 = wl_now_ns ();
  seccomp_probe_status (r);
  seccomp_probe_syscall (&a, r, file);
  if (strcmp (a.variant, "io_uring") == 0)
    seccomp_probe_uring (&a, r, file, 0);
  else if (strcmp (a.variant, "io_uring-restricted") == 0)
    seccomp_probe_uring (&a, r, file, 1);
  wl_report_num (r, "wall_s", (double) (wl_now_ns () - t0) / 1e9);
  wl_region_end ();
  return wl_report_ok (r);
}
