/* echo-point.h - the `echo` experiment's client (see echo-point.c). */
#ifndef LAB_ECHO_POINT_H
#define LAB_ECHO_POINT_H

#include "companion.h"

extern const struct lab_companion_ops lab_echo_companion;
/* wrk's "Requests/sec:" figure from its stdout file, or -1. */
double lab_echo_wrk_rate (const char *path);

#endif
