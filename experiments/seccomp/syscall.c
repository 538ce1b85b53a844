/* syscall.c - the control probe: openat(2) and read(2) as plain system calls. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "seccomp.h"

void
seccomp_probe_status (struct wl_report *r)
{
  FILE *f = fopen ("/proc/self/status", "re"); /* O_CLOEXEC: passes deny-openat */
  char line[256];
  long v;

  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f))
    {
      if (sscanf (line, "Seccomp: %ld", &v) == 1)
        wl_report_int (r, "seccomp_mode", v); /* 0 none, 1 strict, 2 filter */
      else if (sscanf (line, "Seccomp_filters: %ld", &v) == 1)
        wl_report_int (r, "seccomp_filters", v);
    }
  fclose (f);
}

void
seccomp_probe_syscall (const struct wl_args *a, struct wl_report *r, const char *file)
{
  long ok = 0, i;
  int first_errno = 0;
  ssize_t bytes = -1;
  char buf[256];

  for (i = 0; i < a->n; i++)
    {
      /* No O_CLOEXEC on purpose: deny-openat matches openat without it. */
      int fd = openat (AT_FDCWD, file, O_RDONLY);
      if (fd < 0)
        {
          if (first_errno == 0)
            first_errno = errno;
          continue;
        }
      ok++;
      bytes = read (fd, buf, sizeof buf);
      close (fd);
    }
  wl_report_int (r, "syscall_openat_errno", first_errno);
  wl_report_str (r, "syscall_openat_error", first_errno ? strerror (first_errno) : "");
  wl_report_int (r, "syscall_openat_ok", ok);
  wl_report_int (r, "syscall_read_bytes", bytes);
  wl_report_int (r, "ops", a->n);
}
