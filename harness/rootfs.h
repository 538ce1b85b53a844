/*
 * rootfs.h - the sandbox's file system view, set up inside the clone's new
 * mount namespace (rootfs.c), in the order an OCI runtime uses:
 *   1. every mount read-only (rootfs_readonly): the host's tree stays where it
 *      is, each mount of the namespace's copy gets MOUNT_ATTR_RDONLY
 *      recursively (mount_setattr), which is per mount: the host's own mounts
 *      and superblocks are untouched;
 *   2. (ns.c) a fresh /proc for the pid namespace, /sys for the net namespace;
 *   3. a private tmpfs /tmp of tmp_size bytes; then the profile's `binds`
 *      (read-only) and `writable` directories, and the command's own
 *      directory when it lies under /tmp, each a copy of the host's mount
 *      tree taken (open_tree) before /tmp was covered and placed at the same
 *      path (move_mount);
 *   4. a minimal /dev: a small tmpfs holding bind mounts of the host's null,
 *      zero, full, random, urandom and tty nodes, a new devpts instance at
 *      /dev/pts (+ /dev/ptmx), a tmpfs /dev/shm, the fd/stdin/stdout/stderr
 *      links; then /dev itself is made read-only;
 *   5. masked paths (/dev/null over files, an empty read-only tmpfs over
 *      directories) and read-only paths (bound over themselves, read-only);
 * Paths that do not exist on this kernel are skipped in 5 (as runc does); a
 * bind or writable directory that does not exist is an error.
 */
#ifndef LAB_ROOTFS_H
#define LAB_ROOTFS_H

#include "error.h"
#include "profile-security.h"

/* Step 1. */
int lab_rootfs_readonly (lab_error_t *err);
/* Steps 3-5 (after /proc and /sys are mounted).  `extra_bind`, `extra_bind2`:
   directories bound read-only besides the profile's (the command's and the
   working directory, when under the private /tmp), or NULL. */
int lab_rootfs_finish (const struct lab_security *s, const char *extra_bind, const char *extra_bind2,
                       lab_error_t *err);

#endif
