/*
 * caps.h - Linux capabilities of the sandbox: names, the default set, and the
 * drop done inside the clone (caps.c).
 *
 * A profile lists the capabilities the sandbox keeps (containers/README.md,
 * `capabilities`); that one set becomes the bounding, permitted, effective
 * and inheritable sets, and the ambient set is emptied, as an OCI runtime
 * does with Docker's default list.  A set is a bit mask: bit N = capability N.
 */
#ifndef LAB_CAPS_H
#define LAB_CAPS_H

#include <stdint.h>

#include "error.h"

#define LAB_CAP_MAX 41 /* CAP_CHOWN (0) .. CAP_CHECKPOINT_RESTORE (40) */

/* "CAP_CHOWN" -> 0; -1 when unknown. */
int lab_cap_from_name (const char *name);
/* 0 -> "CAP_CHOWN"; NULL past the table. */
const char *lab_cap_name (int cap);
/* Docker's default set (moby's oci/caps/defaults.go) without CAP_MKNOD: the
   sandbox has no device cgroup, so a device node it could create it could
   also open. */
uint64_t lab_caps_default (void);
/* Every capability this table knows. */
uint64_t lab_caps_all (void);
/* The calling thread's effective set (capget; 0 if unreadable). */
uint64_t lab_caps_effective (void);

/* In the clone, after its mounts: drops every capability not in `keep` from
   the bounding set (PR_CAPBSET_DROP), clears the ambient set, and sets
   permitted = effective = inheritable = keep (capset).  Raw syscalls. */
int lab_caps_drop (uint64_t keep, lab_error_t *err);

#endif
