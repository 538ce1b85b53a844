/*
 * progress.h - what `lab run` prints while it runs.
 *
 * Not on a terminal (a log, a pipe, CI): one line per point as it starts and
 * ends ("<id>  <status>  <wall> s  <detail>"), as before.  On a terminal: one
 * live status line, redrawn a few times a second from the sandbox's samples
 * (lab_sandbox_set_observer):
 *   [7/24 ETA 0:42] spawn-coro-n100000-r1  1.8 s  RSS 41.2 MiB  cgroup 44.0 MiB
 * points done / total, the running point, its elapsed time, its RSS and
 * cgroup memory now, and an ETA from the mean time of the points run so far.
 * Points that do not end ok are printed above the line and stay; the line is
 * cleared before anything else is printed (errors, the closing summary).
 */
#ifndef LAB_PROGRESS_H
#define LAB_PROGRESS_H

/* total: points in the plan; done: already finished. */
void lab_progress_begin (int total, int done);
/* A point found finished in the directory (--resume): counts as done. */
void lab_progress_reused (void);
void lab_progress_point_start (const char *id);
/* wall_s < 0: not measured. */
void lab_progress_point_end (const char *id, const char *status, double wall_s, const char *detail);
/* The point did not finish: `why` ("interrupted", "error") ends its line. */
void lab_progress_point_abort (const char *why);
/* Clears the live line (before other output); the observer stays off until the next point. */
void lab_progress_end (void);

#endif
