/*
 * seccomp-cache.h - parsed and compiled seccomp filters, reused (seccomp-cache.c).
 *
 * libseccomp takes ~2 ms to parse Docker's default list into a filter and
 * ~5 ms to compile it to BPF, per point.  In a process each (profile path,
 * capability set) is parsed once (the pre-run check of `lab run`/`lab
 * sandbox` parses with warnings; the points reuse it) and compiled once.
 * Across processes, the compiled program of the repository's own profiles
 * (the .json files of seccomp/, a bounded set) is kept in BUILD/cache/seccomp/ (next to
 * the lab binary; LAB_SECCOMP_CACHE=DIR elsewhere, LAB_SECCOMP_CACHE= off)
 * under a key of everything the result depends on: the profile's path and
 * bytes, the capability set, libseccomp's version, the kernel release
 * (minKernel) and the native architecture.  A hit skips libseccomp entirely
 * and repeats the warnings the parse gave.  Written atomically (temporary
 * file, rename); an unreadable, short or mismatching file is a miss.
 */
#ifndef LAB_SECCOMP_CACHE_H
#define LAB_SECCOMP_CACHE_H

#include <stdint.h>

#include <seccomp.h>

#include "error.h"
#include "seccomp-bpf.h"

struct lab_seccomp_entry
{
  char *path;
  uint64_t caps;
  uint64_t key[2];          /* of the inputs above; 0,0 = not cacheable */
  scmp_filter_ctx ctx;      /* NULL when the program came from the disk cache */
  struct lab_bpf bpf;
  int compiled;
  char warnings[2400];
  struct lab_seccomp_entry *next;
};

/* The entry of (path, caps): from this process's list, else from the disk
   cache, else parsed now.  Not `quiet`: the parse's warnings are printed
   (also on a hit). */
struct lab_seccomp_entry *lab_seccomp_cached (const char *path, uint64_t caps, int quiet, lab_error_t *err);
/* Its program, compiled (and stored on disk) now if not yet. */
const struct lab_bpf *lab_seccomp_entry_bpf (struct lab_seccomp_entry *e, lab_error_t *err);

#endif
