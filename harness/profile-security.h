/*
 * profile-security.h - the confinement part of a sandbox profile: kept
 * capabilities, user namespace, read-only root, /tmp, /dev, read-only and
 * masked paths, writable binds (fields in containers/README.md, "Confinement").
 * Parsed by profile-security.c from the profile's top-level object; applied
 * inside the clone by rootfs.c and caps.c.
 */
#ifndef LAB_PROFILE_SECURITY_H
#define LAB_PROFILE_SECURITY_H

#include <stdint.h>

#include <json-c/json.h>

#include "error.h"

struct lab_security
{
  uint64_t caps;            /* bounding = permitted = effective = inheritable; ambient empty */
  int user;                 /* new user namespace, root inside = LAB_USERNS_HOST_ID outside */
  int rootfs_readonly;      /* the host's mounts, read-only (needs the mount namespace) */
  int64_t tmp_size;         /* bytes of the private /tmp and /dev/shm tmpfs; 0 = no private /tmp */
  int dev_minimal;          /* a tmpfs /dev with null zero full random urandom tty pts shm */
  char **readonly_paths;    /* bound read-only over themselves (absent ones skipped) */
  int n_readonly;
  char **masked_paths;      /* /dev/null over files, an empty read-only tmpfs over directories */
  int n_masked;
  char **binds;             /* host directories kept visible, read-only (e.g. under /tmp) */
  int n_binds;
  char **writable;          /* host directories bound writable at the same path */
  int n_writable;
};

/* Fills `s` from the profile's top-level object, defaults for absent keys;
   `clone_flags` are the profile's namespaces (without CLONE_NEWNS the file
   system fields are off, and setting one is an error).  Usage errors name
   the field. */
int lab_security_parse (struct json_object *root, int clone_flags, struct lab_security *s, lab_error_t *err);
void lab_security_free (struct lab_security *s);
/* Adds the fields, resolved, to the profile's JSON object. */
void lab_security_to_json (const struct lab_security *s, struct json_object *o);

#endif
