/*
 * seccomp-bpf.h - a libseccomp filter compiled to its BPF program in the
 * harness, and that program loaded in the workload (seccomp-bpf.c).
 *
 * libseccomp compiles a filter when it loads it; for Docker's default list
 * that takes several milliseconds.  The harness compiles it instead
 * (seccomp_export_bpf, then seccomp-shrink.c: the same verdicts in fewer
 * instructions) while the clone sets up its namespaces, hands the program over
 * on the `go` socket, and the workload only loads it: no_new_privs and
 * seccomp(SECCOMP_SET_MODE_FILTER) with the flags the profile asked for.
 */
#ifndef LAB_SECCOMP_BPF_H
#define LAB_SECCOMP_BPF_H

#include <stdint.h>

#include <linux/filter.h>
#include <seccomp.h>

#include "error.h"

#define LAB_BPF_MAX_INSNS 65536 /* BPF_MAXINSNS is 4096 per filter; a margin for bad input */

/* The record sent on the `go` socket: this header, then n_insns instructions. */
struct lab_bpf_header
{
  uint32_t n_insns;  /* 0: no filter */
  uint32_t flags;    /* SECCOMP_FILTER_FLAG_* */
};

struct lab_bpf
{
  struct lab_bpf_header h;
  struct sock_filter *insns; /* malloc'd */
};

/* Compiles `ctx` (libseccomp) into `out`. */
int lab_seccomp_export (scmp_filter_ctx ctx, struct lab_bpf *out, lab_error_t *err);
/* Sets no_new_privs and loads the program into the calling thread. */
int lab_seccomp_load_bpf (const struct lab_bpf *b, lab_error_t *err);
void lab_bpf_free (struct lab_bpf *b);


#endif
