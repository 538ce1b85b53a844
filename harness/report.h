/*
 * report.h - the report of a results directory, as report.md (report.c) and
 * report.html (report-html.c), from the aggregates (aggregate.h), the claims'
 * verdicts (claims.h) and the plot manifest plots/plots.json that plot.c
 * writes.  Both renderers take their content from the helpers below, so a new
 * column or headline shows up in both; the helpers write markdown inline
 * markup (**bold**, `code`), which report-html.c turns into HTML.
 */
#ifndef LAB_REPORT_H
#define LAB_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "aggregate.h"
#include "error.h"

/* Writes DIR/report.md. */
int lab_report_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n_agg,
                      lab_error_t *err);
/* Writes DIR/report.html: self-contained, no script, links relative to DIR. */
int lab_report_html_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n_agg,
                           lab_error_t *err);

/* The environment as "label: value" items (inline markdown), one per line of `out`. */
void lab_report_env (FILE *out, struct json_object *meta);
/* meta.json's `environment` (THP, governor, clock source, load and steal at
   start and end, cpusets) as one "environment: ..." line (report-env.c). */
void lab_report_env_state (FILE *out, struct json_object *meta);
/* `exp`'s headline at its largest ok n into `out` (inline markdown); returns that n, or -1 (nothing written). */
long lab_report_headline (FILE *out, const struct lab_agg *agg, int n, const char *exp);
/* The same as a malloc'd string; NULL when `exp` has no headline (or out of memory). */
char *lab_report_headline_text (const struct lab_agg *agg, int n, const char *exp, long *at);
/* The metric the headline and `lab compare` put first for `exp`. */
enum lab_metric lab_report_headline_metric (const char *exp);
/* The table of `exp`: header cells, and one row's cells (each at most 64 bytes). */
#define LAB_REPORT_NCOLS 10
void lab_report_table_header (const char *exp, const char *cells[LAB_REPORT_NCOLS]);
void lab_report_table_row (const struct lab_agg *g, char cells[LAB_REPORT_NCOLS][64]);
/* One figure with its unit, e.g. "1.42 us", "9.6 KiB", "0.47 s", "244.7 K/s"; "-" when v < 0. */
void lab_report_figure (char *buf, size_t len, enum lab_metric m, double v);
/* The array `plots` of DIR/plots/plots.json, or an empty array; owned by the caller. */
struct json_object *lab_report_manifest (const char *dir);
/* A meta.json value by dotted path ("host.kernel"), "?" when absent. */
const char *lab_report_meta (struct json_object *meta, const char *path);

#endif
