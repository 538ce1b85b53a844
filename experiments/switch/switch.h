/*
 * switch.h - the switch experiment (claim C3): two tasks hand control to each
 * other `n` round trips; ops = switches (2 per round trip).  One function per
 * variant, same contract as spawn.h: emit the report through `r` (freed) and
 * return the exit code.
 */
#ifndef LAB_SWITCH_H
#define LAB_SWITCH_H

#include "wl.h"

int switch_coro (const struct wl_args *a, struct wl_report *r);
int switch_pthread (const struct wl_args *a, struct wl_report *r);
int switch_ucontext (const struct wl_args *a, struct wl_report *r);

#endif
