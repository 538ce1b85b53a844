/*
 * sample.h - memory of running processes from /proc/<pid>/status.
 */
#ifndef LAB_SAMPLE_H
#define LAB_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

struct lab_sample
{
  int64_t rss, vss, swap; /* bytes, summed over the processes read */
  int64_t rss_hwm, vss_hwm; /* VmHWM, VmPeak: the kernel's high-water marks since exec */
  int n;                  /* processes read */
};

/* VmRSS, VmSize, VmSwap, VmHWM, VmPeak of one process; -1 when it is gone or a zombie. */
int lab_sample_proc (pid_t pid, struct lab_sample *s);
/* Sums over `pids` (threads share their process' figures: pass processes). */
void lab_sample_pids (const pid_t *pids, int n, struct lab_sample *s);

#endif
