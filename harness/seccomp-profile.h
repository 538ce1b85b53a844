/*
 * seccomp-profile.h - Docker/OCI-format seccomp profiles loaded with libseccomp.
 *
 * Format (as Docker writes it, e.g. moby's profiles/seccomp/default.json):
 *   { "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1,
 *     "architectures": [...], "archMap": [...],
 *     "syscalls": [ { "names": [...], "action": "SCMP_ACT_ALLOW",
 *                     "errnoRet": 1, "comment": "...",
 *                     "args": [ { "index": 0, "value": 2080505856,
 *                                 "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ" } ],
 *                     "includes": {...}, "excludes": {...} } ] }
 * Unknown syscall names are warnings (as Docker treats them); includes/excludes
 * are ignored with a warning; malformed JSON, unknown actions and operators are
 * usage errors naming the file, the position (line:column for parse errors,
 * `syscalls[3].action` for fields) and the value.
 */
#ifndef LAB_SECCOMP_PROFILE_H
#define LAB_SECCOMP_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

#include "error.h"

/* Parses `path` into a libseccomp filter (not loaded).  `quiet` suppresses
   warnings.  includes/excludes `caps` are judged against this process's
   effective capabilities. */
int lab_seccomp_load (const char *path, int quiet, scmp_filter_ctx *out, lab_error_t *err);
/* The same, judging `caps` against the set `caps` (bit N = capability N): the
   sandbox's set after its drop, as Docker judges them against the
   container's.  LAB_SECCOMP_OWN_CAPS = this process's. */
#define LAB_SECCOMP_OWN_CAPS UINT64_MAX
int lab_seccomp_load_caps (const char *path, int quiet, uint64_t caps, scmp_filter_ctx *out, lab_error_t *err);
/* The same, also writing the warnings (lines, without "lab: warning: ") into
   `warnings` (may be NULL), so a cached filter can repeat them. */
int lab_seccomp_load_ex (const char *path, int quiet, uint64_t caps, scmp_filter_ctx *out, char *warnings,
                         size_t warnings_len, lab_error_t *err);
/* Sets no_new_privs and loads the filter into the calling thread: the last step before exec. */
int lab_seccomp_apply (scmp_filter_ctx ctx, lab_error_t *err);

#endif
