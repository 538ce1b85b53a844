/*
 * hostinfo.h - what this host is and the limits that cap experiments; shared by
 * `lab doctor` (printed) and meta.json (recorded with every run).
 */
#ifndef LAB_HOSTINFO_H
#define LAB_HOSTINFO_H

#include <stdint.h>

#include "cgroup.h"
#include "container.h"

struct lab_hostinfo
{
  char hostname[256];
  char kernel[256];      /* uname -r */
  char kernel_version[256];
  char machine[64];
  char cpu_model[256];
  int cores;
  int64_t mem_total, swap_total;
  int64_t pid_max, threads_max, max_map_count;
  int64_t nproc_soft, nproc_hard, nofile_soft, nofile_hard, memlock_soft, memlock_hard;
  int64_t overcommit_memory;
  struct lab_cgroup_info cg;
  int cg_ok;             /* lab_cgroup_detect succeeded */
  char cg_error[256];
  int io_uring;          /* 1 usable, 0 not */
  char io_uring_detail[128];
  int seccomp;           /* 1 filter mode available */
  int userns, pidns, netns;
  int is_root;
  struct lab_container ct; /* inside a container? (container.h) */
};

void lab_hostinfo_collect (struct lab_hostinfo *h);
struct json_object *lab_hostinfo_to_json (const struct lab_hostinfo *h);
/* Reads an integer from a /proc or /sys file; -1 when unreadable. */
int64_t lab_read_int (const char *path);

#endif
