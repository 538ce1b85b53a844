/* seccomp.c - fuzz target: the Docker-format seccomp profile loader
   (seccomp/NAME.json); see common.h.  The filter is built and exported as BPF
   (to /dev/null), never loaded. */
#include "common.h"

#include "seccomp-profile.h"

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
      static int devnull = -1;
      if (devnull < 0)
        devnull = open ("/dev/null", O_WRONLY | O_CLOEXEC);
      /* Compiling the BPF program is where libseccomp meets every rule. */
      if (seccomp_export_bpf (ctx, devnull) < 0)
        {
          fprintf (stderr, "seccomp: a profile that loaded does not compile to BPF\n");
          abort ();
        }
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
