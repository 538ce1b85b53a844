/*
 * aggregate.h - a run's points grouped into (experiment, variant, n) with the
 * median and spread of every figure over the ok repeats.  No I/O beyond
 * loading the points, no gnuplot, no formatting: plot.c, report.c,
 * report-html.c, claims-*.c and compare.c all read these aggregates.
 *
 * The figures are one table, lab_metrics[] (aggregate.c): each names the
 * summary.csv column it comes from and what it is divided by (n for per task,
 * the workload's `ops` for per operation, n where a workload reports no ops).
 * Adding a figure: one enum value here and one line in that table; the .dat
 * files, the plots' columns and `lab compare` pick it up from there.
 */
#ifndef LAB_AGGREGATE_H
#define LAB_AGGREGATE_H

#include <json-c/json.h>

#include "error.h"

/* Median and spread of one figure over the ok repeats; n == 0: not measured
   (then med = min = max = -1).  spread_pct = (max - min) / med in %;
   outlier: the repeat farthest from the median when it is an outlier (noise.c:
   modified z-score over 3.5, as hyperfine), else -1. */
struct lab_stat
{
  double med, min, max;
  int n;
  double spread_pct;
  double outlier;
};

enum lab_metric
{
  LAB_M_WALL,            /* s */
  LAB_M_OPS_PER_S,       /* 1/s */
  LAB_M_NS_PER_OP,       /* ns: 1e9 / ops_per_s of each repeat */
  LAB_M_RSS_PEAK,        /* bytes */
  LAB_M_CG_PEAK,         /* bytes, cgroup memory peak */
  LAB_M_KERNEL,          /* bytes, kernel memory (thread stacks, page tables) */
  LAB_M_RSS_PER_TASK,    /* bytes / n */
  LAB_M_CG_PER_TASK,     /* bytes / n */
  LAB_M_KERNEL_PER_TASK, /* bytes / n */
  LAB_M_CPU_USER_PER_OP, /* ns / op */
  LAB_M_CPU_SYS_PER_OP,  /* ns / op */
  LAB_M_VOLCS_PER_OP,    /* voluntary context switches / op */
  LAB_M_INVOLCS_PER_OP,  /* involuntary context switches / op */
  LAB_M_LAT_P50,         /* ns */
  LAB_M_LAT_P99,
  LAB_M_LAT_P999,
  LAB_M_LAT_MAX,
  LAB_M_RSS_OVER_BASE_PER_TASK, /* bytes / n: (RSS peak - the workload's baseline) / n */
  LAB_M_CG_OVER_BASE_PER_TASK,  /* bytes / n: (cgroup peak - cgroup at the baseline) / n */
  LAB_M_SPAWN_NS_PER_TASK,      /* ns: the workload's spawn_ns_per_task (creation cost) */
  LAB_M_START_P50,              /* ns: spawn call -> first run, median task */
  LAB_M_START_P99,
  LAB_M_SERVER_CPU_PER_REQ,     /* ns: echo's server CPU per request over the closed loop */
  LAB_M__COUNT,
};

enum lab_per
{
  LAB_PER_NONE,
  LAB_PER_TASK,    /* divided by n */
  LAB_PER_OP,      /* divided by the repeat's ops (n when it reports none) */
  LAB_PER_INVERSE, /* 1 / value */
};

struct lab_metric_info
{
  enum lab_metric id;
  const char *name;   /* column name in the plots' .dat files and compare output */
  const char *key;    /* summary key it comes from ("workload.K": the workload's
                         report; "client_figures.K": a point's client figures) */
  enum lab_per per;
  double scale;       /* multiplied after dividing (1e9: s -> ns) */
  const char *unit;   /* for axis labels: "s", "ns", "bytes", "per op", "1/s" */
  int lower_is_better; /* 1: time, memory, latency; 0: throughput */
  const char *base;   /* summary key subtracted before dividing (a baseline); NULL = none */
};

extern const struct lab_metric_info lab_metrics[LAB_M__COUNT];

/* Aggregated figures of one (experiment, variant, n). */
struct lab_agg
{
  const char *experiment, *variant; /* borrowed from the points */
  long n;
  int n_ok, n_total;
  const char *status;               /* "ok" when any repeat was; else the last repeat's */
  const char *detail;
  struct lab_stat m[LAB_M__COUNT];  /* indexed by enum lab_metric */
  struct json_object *workload;     /* of the repeat with the median wall; borrowed */
  struct json_object *median_point; /* that repeat's whole point; borrowed */
  /* Shorthands for m[].med (and wall's spread), as report.c has always used them; -1 = not measured. */
  double wall_med, wall_min, wall_max;
  double rss_per_task, cg_per_task, kernel_per_task; /* bytes */
  double ops_per_s, p50_ns, p99_ns;
  /* Points with a client (echo): of the ok repeats, how many had their
     closed loop judged (client_figures.client_bound not null) and how many
     of those were client-bound (echo-point.h). */
  int n_bound_known, n_client_bound;
};

/* Loads DIR/points/<id>.json, sorted by start time; unreadable points are
   left out with a warning. */
int lab_points_load (const char *dir, struct json_object **out, lab_error_t *err);
/* Groups the points (array of point objects) into aggregates, in plan order;
   *out is freed with free().  The aggregates borrow from `points`. */
int lab_agg_build (struct json_object *points, struct lab_agg **out, int *n_out);
/* Median of v[0..n) (sorts v); -1 when n == 0. */
double lab_median (double *v, int n);
/* Fills *s from v[0..n) (sorts v). */
void lab_stat_of (struct lab_stat *s, double *v, int n);

/* The aggregate of (exp, variant) at n = `at`; at < 0: the one with the largest n. */
const struct lab_agg *lab_agg_find (const struct lab_agg *agg, int n, const char *exp, const char *variant,
                                    long at);
/* The largest n at which both variants of `exp` ended ok, or -1. */
long lab_agg_largest_common (const struct lab_agg *agg, int n, const char *exp, const char *a, const char *b);
/* A number from the median repeat's workload report, or -1. */
double lab_agg_wnum (const struct lab_agg *g, const char *key);
/* A number from the median repeat's companion client (`client_figures` of a
   point with a client, e.g. echo's load generator), or -1. */
double lab_agg_cnum (const struct lab_agg *g, const char *key);
/* The distinct experiments (or, with exp != NULL, the variants of exp), in
   plan order; returns how many (at most max). */
int lab_agg_experiments (const struct lab_agg *agg, int n, const char **names, int max);
int lab_agg_variants (const struct lab_agg *agg, int n, const char *exp, const char **names, int max);
/* The metric named `name`, or NULL. */
const struct lab_metric_info *lab_metric_find (const char *name);

#endif
