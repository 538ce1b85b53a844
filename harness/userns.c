/*
 * userns.c - uid/gid maps of the sandbox's user namespace (see userns.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "userns.h"
#include "utils.h"

static int
write_map (pid_t pid, const char *file, lab_error_t *err)
{
  char path[64], map[64];
  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
  int len = snprintf (map, sizeof map, "0 %d %d\n", LAB_USERNS_HOST_ID, LAB_USERNS_COUNT);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, map, (size_t) len) != len)
    return lab_error (err, errno, "user namespace: writing %s", path);
  return 0;
}

int
lab_userns_write_maps (pid_t pid, lab_error_t *err)
{
  if (write_map (pid, "uid_map", err) < 0 || write_map (pid, "gid_map", err) < 0)
    return -1;
  return 0;
}
