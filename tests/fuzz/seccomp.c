/* seccomp.c - fuzz target: the Docker-format seccomp profile loader
   (seccomp/NAME.json); see common.h.  The filter is built and exported as BPF,
   shrunk (harness/seccomp-shrink.c) and both programs run through an
   interpreter (tests/helpers/bpf-run.h) that must find the same verdicts;
   never loaded. */
#include "common.h"

#include "seccomp-bpf.h"
#include "seccomp-profile.h"
#include "../helpers/bpf-run.h"

#include <sys/mman.h>
#include <linux/audit.h>

/* libseccomp's program and the shrunk one over every syscall number of the
   architectures a profile may name, with a few argument patterns. */
static void
fuzz_same_verdicts (const struct sock_filter *orig, uint32_t n, const struct lab_bpf *b)
{
  static const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, 0 };
  static const uint64_t args[] = { 0, 1, ~0ULL, 0x7e020000, 0xffffffff00000000ULL };
  for (size_t ai = 0; ai < sizeof arches / sizeof arches[0]; ai++)
    for (uint32_t nr = 0; nr < 600; nr++)
      for (size_t v = 0; v < sizeof args / sizeof args[0]; v++)
        {
          struct seccomp_data d = { .nr = (int) (nr < 512 ? nr : 0x40000000 + nr - 512), .arch = arches[ai] };
          int bad = 0;
          for (int i = 0; i < 6; i++)
            d.args[i] = args[(v + (size_t) i) % (sizeof args / sizeof args[0])];
          uint32_t x = lab_bpf_run (orig, n, &d, &bad), y = lab_bpf_run (b->insns, b->h.n_insns, &d, &bad);
          if (!bad && x == y)
            continue;
          fprintf (stderr, "seccomp: shrunk program differs (or cannot run): arch %#x nr %#x: %#x vs %#x\n",
                   arches[ai], (unsigned) d.nr, x, y);
          abort ();
        }
}

static int
lab_fuzz_seccomp (const uint8_t *data, size_t size)
{
  const char *path = fuzz_input_file ("seccomp", data, size);
  scmp_filter_ctx ctx = NULL;
  lab_error_t err = NULL;
  int ret = lab_seccomp_load (path, 1, &ctx, &err);

  fuzz_check_error ("seccomp", ret, &err);
  if (ret == 0)
    {
      /* Compiling the BPF program is where libseccomp meets every rule; the
         program the sandbox loads is then shrunk (seccomp-shrink.c), and
         both must give the same verdict for every input tried. */
      struct sock_filter *orig = NULL;
      struct lab_bpf b;
      int fd = memfd_create ("fuzz-bpf", MFD_CLOEXEC);
      off_t len = fd >= 0 && seccomp_export_bpf (ctx, fd) == 0 ? lseek (fd, 0, SEEK_CUR) : -1;
      if (len <= 0 || (orig = malloc ((size_t) len)) == NULL || pread (fd, orig, (size_t) len, 0) != len
          || lab_seccomp_export (ctx, &b, &err) < 0)
        {
          fprintf (stderr, "seccomp: a profile that loaded does not compile to BPF\n");
          abort ();
        }
      fuzz_same_verdicts (orig, (uint32_t) (len / (off_t) sizeof *orig), &b);
      free (orig);
      lab_bpf_free (&b);
      close (fd);
      seccomp_release (ctx);
    }
  return 0;
}

#ifdef LAB_FUZZ_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return lab_fuzz_seccomp (data, size);
}
#endif
