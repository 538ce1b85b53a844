/*
 * report-scale.h - report.md's parts for scale and memory pressure
 * (report-scale.c): the host settings line and, for `memory` and
 * `pressure`, the per-task kernel memory and swap tables.
 */
#ifndef LAB_REPORT_SCALE_H
#define LAB_REPORT_SCALE_H

#include <json-c/json.h>
#include <stdio.h>

#include "error.h"

/* The host settings line (meta.json `tune`), "label: value" as lab_report_env writes. */
void lab_report_tune_line (FILE *f, struct json_object *meta);
/* report.md, in experiment `exp`'s section: per-task kernel memory (memory),
   swap and wake latency (pressure), read from DIR's point JSONs. */
void lab_report_scale (FILE *f, const char *dir, const char *exp);

#endif
