/*
 * results.h - the results layout and its writers.
 *
 * DIR/
 *   meta.json            host, kernel, CPU, memory, cgroup mode, limits, git
 *                        revision, build flags, the exact command line
 *   summary.csv          one row per point, LAB_SUMMARY_COLUMNS in that order,
 *                        empty where not measured; rewritten atomically after
 *                        every point
 *   points/<id>.json     one per point, written atomically when it ends
 *   points/<id>.out/.err the workload's stdout and stderr
 *   plots/<exp>-<name>.png/.svg  gnuplot, with the .gp scripts and .dat data
 *                        beside them; plots/plots.json lists them (plot.c)
 *   report.md, report.html  the report: environment, headline numbers, claims
 *                        verdicts, tables, plots (report.c, report-html.c)
 * Every file is written to a temporary name and renamed, so an interrupted run
 * leaves only whole files; `lab run --resume DIR` skips the points done.
 */
#ifndef LAB_RESULTS_H
#define LAB_RESULTS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

extern const char *const lab_summary_columns[]; /* NULL-terminated */
#define LAB_SUMMARY_NCOLS 21

/* Writes rows (JSON objects keyed by column name; missing or null = empty) as CSV, atomically. */
int lab_csv_write (const char *path, struct json_object *const *rows, size_t n, lab_error_t *err);
/* Appends `s` to `out` with CSV quoting where needed. */
void lab_csv_field (FILE *out, const char *s);
/* Reads a CSV written by lab_csv_write: an array of objects keyed by header names (strings). */
int lab_csv_read (const char *path, struct json_object **rows, lab_error_t *err);
/* Writes JSON pretty-printed, atomically. */
int lab_json_write (const char *path, struct json_object *o, lab_error_t *err);
/* Reads and parses a JSON file; usage error with line:column on bad syntax. */
/* JSON text `s` plus a newline, with invalid UTF-8 bytes (workload output
   copied into strings) replaced by the escape \ufffd; malloc'd. */
char *lab_json_text_valid (const char *s, size_t *len);
int lab_json_read (const char *path, struct json_object **out, lab_error_t *err);

#endif
