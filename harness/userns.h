/*
 * userns.h - the sandbox's optional user namespace (`"user": true` in a
 * profile): ids 0..65535 inside are LAB_USERNS_HOST_ID.. outside, so root in
 * the sandbox is an unprivileged id on the host.  The harness writes the maps
 * (userns.c) while the clone waits for `go`.
 */
#ifndef LAB_USERNS_H
#define LAB_USERNS_H

#include <sys/types.h>

#include "error.h"

#define LAB_USERNS_HOST_ID 100000
#define LAB_USERNS_COUNT 65536

/* Writes /proc/<pid>/uid_map and gid_map. */
int lab_userns_write_maps (pid_t pid, lab_error_t *err);

#endif
