/*
 * spawn.h - the spawn experiment (claims C1, C3): create N tasks that each
 * sleep 1 ms and end; measure the time to create them all and the wall time
 * until the last one has ended.  One function per variant, all with the same
 * contract: do the work, emit the report through `r` (which they free), and
 * return the process exit code (wl_report_ok/limit/error).
 */
#ifndef LAB_SPAWN_H
#define LAB_SPAWN_H

#include "wl.h"

int spawn_pthread (const struct wl_args *a, struct wl_report *r);
int spawn_coro (const struct wl_args *a, struct wl_report *r);

#endif
