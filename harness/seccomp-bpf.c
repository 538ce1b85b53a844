/*
 * seccomp-bpf.c - compile a libseccomp filter to BPF in the harness, load
 * the program in the workload (see seccomp-bpf.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "seccomp-bpf.h"
#include "seccomp-shrink.h"
#include "utils.h"

int
lab_seccomp_export (scmp_filter_ctx ctx, struct lab_bpf *out, lab_error_t *err)
{
  uint32_t v = 0;
  memset (out, 0, sizeof *out);
  cleanup_close int fd = memfd_create ("lab-bpf", MFD_CLOEXEC);
  if (fd < 0)
    return lab_error (err, errno, "seccomp: memfd_create");
  int r = seccomp_export_bpf (ctx, fd);
  if (r < 0)
    return lab_error (err, -r, "seccomp: compiling the filter");
  off_t len = lseek (fd, 0, SEEK_CUR);
  if (len <= 0 || len % (off_t) sizeof (struct sock_filter) != 0
      || len / (off_t) sizeof (struct sock_filter) > LAB_BPF_MAX_INSNS)
    return lab_error (err, EINVAL, "seccomp: the compiled filter has %lld bytes", (long long) len);
  out->insns = malloc ((size_t) len);
  if (out->insns == NULL)
    return lab_error (err, ENOMEM, "seccomp: allocating the program");
  if (pread (fd, out->insns, (size_t) len, 0) != (ssize_t) len)
    {
      lab_bpf_free (out);
      return lab_error (err, errno ? errno : EIO, "seccomp: reading the compiled filter");
    }
  out->h.n_insns = (uint32_t) (len / (off_t) sizeof (struct sock_filter));
  /* The same verdicts in fewer instructions: less for the kernel to
     convert and JIT at every load (seccomp-shrink.h). */
  lab_bpf_shrink (out->insns, &out->h.n_insns);
  if (seccomp_attr_get (ctx, SCMP_FLTATR_CTL_TSYNC, &v) == 0 && v)
    out->h.flags |= SECCOMP_FILTER_FLAG_TSYNC;
  if (seccomp_attr_get (ctx, SCMP_FLTATR_CTL_LOG, &v) == 0 && v)
    out->h.flags |= SECCOMP_FILTER_FLAG_LOG;
  if (seccomp_attr_get (ctx, SCMP_FLTATR_CTL_SSB, &v) == 0 && v)
    out->h.flags |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
  return 0;
}

int
lab_seccomp_load_bpf (const struct lab_bpf *b, lab_error_t *err)
{
  struct sock_fprog prog = { .len = (unsigned short) b->h.n_insns, .filter = b->insns };
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return lab_error (err, errno, "setting no_new_privs");
  if (b->h.n_insns == 0)
    return 0;
  if (b->h.n_insns > 0xffff)
    return lab_error (err, E2BIG, "loading the seccomp filter: %u instructions", b->h.n_insns);
  if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, b->h.flags, &prog) < 0)
    return lab_error (err, errno, "loading the seccomp filter");
  return 0;
}

void
lab_bpf_free (struct lab_bpf *b)
{
  free (b->insns);
  b->insns = NULL;
  b->h.n_insns = 0;
}
