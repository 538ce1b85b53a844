/* report-echo.h - report.md's own section for `echo` (claims-echo.c). */
#ifndef LAB_REPORT_ECHO_H
#define LAB_REPORT_ECHO_H

#include <stdio.h>

#include "aggregate.h"

/* Writes `exp`'s section after its table; nothing for other experiments. */
void lab_report_echo_section (FILE *f, const char *exp, const struct lab_agg *agg, int n);

#endif
