/*
 * report-io.h - report.md's own section for udp, wakeup and blocking
 * (claims-io.c): a table of the workloads' figures (the account, wake-ups
 * missed, delays and progress) and, for blocking, what they show.
 */
#ifndef LAB_REPORT_IO_H
#define LAB_REPORT_IO_H

#include <stdio.h>

#include "aggregate.h"

/* Writes `exp`'s section after its table; nothing for other experiments. */
void lab_report_io_section (FILE *f, const char *exp, const struct lab_agg *agg, int n);

#endif
