/*
 * seccomp.h - `wl-seccomp`: does a seccomp filter that denies a system call
 * also stop the equivalent io_uring operation?  (Claim C12 and the note in
 * CLAIMS.md: io_uring operations are not checked by seccomp.)
 *
 * Every variant first makes the plain system call (openat of the file, then
 * read) as the control, then:
 *   syscall              - nothing more: openat/read through system calls only
 *   io_uring             - the same through a ring: IORING_OP_OPENAT, IORING_OP_READ
 *   io_uring-restricted  - a ring created disabled, limited with
 *                          IORING_REGISTER_RESTRICTIONS to IORING_OP_READ and
 *                          IORING_OP_NOP, then enabled: IORING_OP_OPENAT is refused
 *                          with -EACCES by the ring itself, READ still works
 * Run under seccomp/deny-openat.json (containers/deny-openat.json), the
 * report shows syscall_openat_errno 1 (EPERM) beside io_uring_openat_res >= 0.
 * Flags are O_RDONLY without O_CLOEXEC on both paths (the profile's rule; see
 * seccomp/README.md).  The file is --opt file=PATH, default /etc/hostname;
 * --n is the number of attempts of each operation.
 */
#ifndef LAB_EXP_SECCOMP_H
#define LAB_EXP_SECCOMP_H

#include "wl.h"

/* The sandbox probes of C12 (probe.c): variants memory-max, clone-newns,
   ptrace.  Returns 1 when `a->variant` is one of them (the report is filled),
   else 0. */
int seccomp_probe_sandbox (const struct wl_args *a, struct wl_report *r, const char *file);
/* The control: openat + read by system calls; reports syscall_* keys. */
void seccomp_probe_syscall (const struct wl_args *a, struct wl_report *r, const char *file);
/* Reports the process's seccomp mode and filter count from /proc/self/status. */
void seccomp_probe_status (struct wl_report *r);
/* openat + read through io_uring; `restricted` registers the restrictions first.
   Returns 0, or -1 with `detail` filled when the ring could not be used at all. */
int seccomp_probe_uring (const struct wl_args *a, struct wl_report *r, const char *file, int restricted);

#endif
