/*
 * seccomp-shrink.h - a smaller, equivalent BPF program for a libseccomp
 * filter (seccomp-shrink.c).
 *
 * libseccomp compiles an allow-list as one `jeq nr` per syscall per
 * architecture: Docker's default list is 907 instructions, and the kernel
 * converts and JIT-compiles every one of them each time a sandbox loads the
 * filter (~0.8 ms here, on every launch).  Most of those compares are runs of
 * consecutive `jeq K` on the same accumulator that all end in the same
 * `ret`: a set membership test.  Such a run is rewritten as one compare per
 * range of consecutive numbers (`jge lo; jgt hi`), which leaves the program's
 * result for every input unchanged:
 *   - a run is a maximal sequence of `jeq #K, jt, jf=0` instructions that no
 *     jump enters but at its first one (so the accumulator is the same
 *     throughout) and whose K are all different (so their order is free);
 *   - its members whose true branch is a `ret #V` are grouped by V and
 *     become ranges jumping to the nearest such `ret #V`; the others are kept,
 *     one `jeq` each, before the ranges;
 *   - the run's fall-through stays where it was;
 *   - every jump of the program is relocated; a program where any offset
 *     would not fit (8-bit conditional offsets) is left as it was.
 * tests/seccomp-shrink.c runs both programs through a BPF interpreter over
 * every syscall number of every architecture with assorted arguments, for
 * every profile under seccomp/, and requires the same verdicts.
 */
#ifndef LAB_SECCOMP_SHRINK_H
#define LAB_SECCOMP_SHRINK_H

#include <stdint.h>

#include <linux/filter.h>

/* Rewrites insns[0..*n) in place; *n becomes the new length (<= the old).
   Returns the number of instructions removed (0: left as it was). */
uint32_t lab_bpf_shrink (struct sock_filter *insns, uint32_t *n);

#endif
