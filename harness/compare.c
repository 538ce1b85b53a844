/*
 * compare.c - `lab compare` (see compare.h): loads and aggregates both runs
 * (aggregate.c), pairs their (experiment, variant, n), judges each figure
 * and writes the same rows three ways: a terminal table, compare.md and a
 * self-contained compare.html.
 */
#include "compare.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "utils.h"

const enum lab_metric lab_cmp_metrics[] = { LAB_M_WALL,    LAB_M_NS_PER_OP, LAB_M_CG_PEAK,
                                            LAB_M_RSS_PEAK, LAB_M_LAT_P50,  LAB_M_LAT_P99,
                                            LAB_M_SERVER_CPU_PER_REQ };
const int lab_cmp_n_metrics = (int) ARRAY_SIZE (lab_cmp_metrics);

const char *
lab_cmp_mark_name (enum lab_cmp_mark m)
{
  return m == LAB_CMP_FASTER ? "faster" : m == LAB_CMP_SLOWER ? "slower" : "within noise";
}

enum lab_cmp_mark
lab_cmp_judge (const struct lab_metric_info *m, const struct lab_stat *a, const struct lab_stat *b,
               double threshold_pct, double *ratio)
{
  int overlap = a->min <= b->max && b->min <= a->max;
  double r = a->med > 0 ? b->med / a->med : (b->med > 0 ? INFINITY : 1);

  *ratio = r;
  if (overlap || fabs (r - 1) * 100 <= threshold_pct)
    return LAB_CMP_NOISE;
  return (r > 1) == (m->lower_is_better != 0) ? LAB_CMP_SLOWER : LAB_CMP_FASTER;
}

struct run
{
  struct json_object *points;
  struct lab_agg *agg;
  int n;
};

static int
load (const char *dir, struct run *r, lab_error_t *err)
{
  char meta[PATH_MAX + 16];
  snprintf (meta, sizeof (meta), "%s/meta.json", dir);
  if (access (meta, F_OK) < 0)
    return lab_usage_error (err, "`%s` is not a results directory (no meta.json)", dir);
  if (lab_points_load (dir, &r->points, err) < 0)
    return -1;
  return lab_agg_build (r->points, &r->agg, &r->n);
}

/* Pairs and judges; returns the rows (malloc'd) and their count. */
static struct lab_cmp_row *
pair (const struct run *a, const struct run *b, const struct lab_cmp_opts *o, int *n_rows)
{
  struct lab_cmp_row *rows = calloc ((size_t) a->n * (size_t) lab_cmp_n_metrics + 1, sizeof (*rows));
  int k = 0;

  for (int i = 0; i < a->n; i++)
    {
      const struct lab_agg *ga = &a->agg[i];
      const struct lab_agg *gb = lab_agg_find (b->agg, b->n, ga->experiment, ga->variant, ga->n);
      if (gb == NULL || ga->n_ok == 0 || gb->n_ok == 0)
        continue;
      for (int m = 0; m < lab_cmp_n_metrics; m++)
        {
          enum lab_metric id = lab_cmp_metrics[m];
          struct lab_cmp_row *r = &rows[k];
          if (ga->m[id].n == 0 || gb->m[id].n == 0)
            continue;
          r->a = ga;
          r->b = gb;
          r->metric = id;
          r->mark = lab_cmp_judge (&lab_metrics[id], &ga->m[id], &gb->m[id], o->threshold_pct, &r->ratio);
          r->regression = r->mark == LAB_CMP_SLOWER && o->fail_above_pct >= 0
                          && fabs (r->ratio - 1) * 100 > o->fail_above_pct;
          k++;
        }
    }
  *n_rows = k;
  return rows;
}

static void
spread (char *buf, size_t len, enum lab_metric m, const struct lab_stat *s)
{
  char med[32], lo[32], hi[32];
  lab_report_figure (med, sizeof (med), m, s->med);
  if (s->n > 1)
    {
      lab_report_figure (lo, sizeof (lo), m, s->min);
      lab_report_figure (hi, sizeof (hi), m, s->max);
      snprintf (buf, len, "%s (%s-%s, %d runs)", med, lo, hi, s->n);
    }
  else
    snprintf (buf, len, "%s (1 run)", med);
}

static void
write_terminal (FILE *f, const struct lab_cmp_row *rows, int n)
{
  fprintf (f, "%-10s %-20s %9s  %-21s %-36s %-36s %7s  %s\n", "experiment", "variant", "n", "figure", "A", "B",
           "B/A", "");
  for (int i = 0; i < n; i++)
    {
      char a[96], b[96];
      spread (a, sizeof (a), rows[i].metric, &rows[i].a->m[rows[i].metric]);
      spread (b, sizeof (b), rows[i].metric, &rows[i].b->m[rows[i].metric]);
      fprintf (f, "%-10s %-20s %9ld  %-21s %-36s %-36s %7.3f  %s%s\n", rows[i].a->experiment, rows[i].a->variant,
               rows[i].a->n, lab_metrics[rows[i].metric].name, a, b, rows[i].ratio, lab_cmp_mark_name (rows[i].mark),
               rows[i].regression ? "  REGRESSION" : "");
    }
}

static void
counts (const struct lab_cmp_row *rows, int n, int c[4])
{
  memset (c, 0, 4 * sizeof (int));
  for (int i = 0; i < n; i++)
    {
      c[rows[i].mark]++;
      c[3] += rows[i].regression;
    }
}

static int
write_md (const char *path, const char *dir_a, const char *dir_b, const struct lab_cmp_opts *o,
          const struct lab_cmp_row *rows, int n, lab_error_t *err)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  int c[4], ret;

  counts (rows, n, c);
  fprintf (f, "# Lab comparison\n\n- A: `%s`\n- B: `%s`\n- threshold: %g%%", dir_a, dir_b, o->threshold_pct);
  if (o->fail_above_pct >= 0)
    fprintf (f, "; fail above: %g%%", o->fail_above_pct);
  fprintf (f, "\n- %d figures: %d within noise, %d faster, %d slower (%d regressions)\n\n", n, c[LAB_CMP_NOISE],
           c[LAB_CMP_FASTER], c[LAB_CMP_SLOWER], c[3]);
  fprintf (f, "Within noise: the repeats' min-max ranges overlap, or B/A is within the threshold.\n\n");
  fprintf (f, "| experiment | variant | n | figure | A median (min-max) | B median (min-max) | B/A | |\n");
  fprintf (f, "|---|---|---:|---|---:|---:|---:|---|\n");
  for (int i = 0; i < n; i++)
    {
      char a[96], b[96];
      spread (a, sizeof (a), rows[i].metric, &rows[i].a->m[rows[i].metric]);
      spread (b, sizeof (b), rows[i].metric, &rows[i].b->m[rows[i].metric]);
      fprintf (f, "| %s | %s | %ld | %s | %s | %s | %.3f | %s%s |\n", rows[i].a->experiment, rows[i].a->variant,
               rows[i].a->n, lab_metrics[rows[i].metric].name, a, b, rows[i].ratio, lab_cmp_mark_name (rows[i].mark),
               rows[i].regression ? " **regression**" : "");
    }
  fclose (f);
  ret = lab_write_file_atomic (path, buf, len, err);
  free (buf);
  return ret;
}

static void
html_esc (FILE *f, const char *s)
{
  for (; *s; s++)
    if (*s == '<')
      fputs ("&lt;", f);
    else if (*s == '>')
      fputs ("&gt;", f);
    else if (*s == '&')
      fputs ("&amp;", f);
    else
      fputc (*s, f);
}

static int
write_html (const char *path, const char *dir_a, const char *dir_b, const struct lab_cmp_opts *o,
            const struct lab_cmp_row *rows, int n, lab_error_t *err)
{
  static const char *const cls[] = { "noise", "faster", "slower" };
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  int c[4], ret;

  counts (rows, n, c);
  fputs ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Lab comparison</title>\n"
         "<style>body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em}"
         "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25em .6em}th{background:#f3f3f3}"
         "td.num{text-align:right;font-variant-numeric:tabular-nums}.m{font-weight:600;border-radius:.8em;"
         "padding:.05em .5em}.noise{background:#e4e4e4}.faster{background:#d6f5d6;color:#135e13}"
         ".slower{background:#fbd3d0;color:#8a1c12}</style>\n</head>\n<body>\n<h1>Lab comparison</h1>\n<ul>\n<li>A: <code>",
         f);
  html_esc (f, dir_a);
  fputs ("</code></li>\n<li>B: <code>", f);
  html_esc (f, dir_b);
  fprintf (f, "</code></li>\n<li>threshold %g%%", o->threshold_pct);
  if (o->fail_above_pct >= 0)
    fprintf (f, "; fail above %g%%", o->fail_above_pct);
  fprintf (f, "</li>\n<li>%d figures: %d within noise, %d faster, %d slower (%d regressions)</li>\n</ul>\n"
              "<p>Within noise: the repeats' min-max ranges overlap, or B/A is within the threshold.</p>\n",
           n, c[LAB_CMP_NOISE], c[LAB_CMP_FASTER], c[LAB_CMP_SLOWER], c[3]);
  fputs ("<table>\n<tr><th>experiment</th><th>variant</th><th>n</th><th>figure</th><th>A median (min-max)</th>"
         "<th>B median (min-max)</th><th>B/A</th><th></th></tr>\n",
         f);
  for (int i = 0; i < n; i++)
    {
      char a[96], b[96];
      spread (a, sizeof (a), rows[i].metric, &rows[i].a->m[rows[i].metric]);
      spread (b, sizeof (b), rows[i].metric, &rows[i].b->m[rows[i].metric]);
      fputs ("<tr><td>", f);
      html_esc (f, rows[i].a->experiment);
      fputs ("</td><td>", f);
      html_esc (f, rows[i].a->variant);
      fprintf (f, "</td><td class=\"num\">%ld</td><td>%s</td><td class=\"num\">", rows[i].a->n,
               lab_metrics[rows[i].metric].name);
      html_esc (f, a);
      fputs ("</td><td class=\"num\">", f);
      html_esc (f, b);
      fprintf (f, "</td><td class=\"num\">%.3f</td><td><span class=\"m %s\">%s%s</span></td></tr>\n", rows[i].ratio,
               cls[rows[i].mark], lab_cmp_mark_name (rows[i].mark), rows[i].regression ? ", regression" : "");
    }
  fputs ("</table>\n</body>\n</html>\n", f);
  fclose (f);
  ret = lab_write_file_atomic (path, buf, len, err);
  free (buf);
  return ret;
}

int
lab_compare (const char *dir_a, const char *dir_b, const char *out_dir, const struct lab_cmp_opts *o, FILE *term,
             lab_error_t *err)
{
  struct run a = { 0 }, b = { 0 };
  struct lab_cmp_row *rows = NULL;
  char path[PATH_MAX + 32];
  int n = 0, ret = -1, c[4];

  if (load (dir_a, &a, err) < 0 || load (dir_b, &b, err) < 0)
    goto out;
  rows = pair (&a, &b, o, &n);
  if (n == 0)
    {
      lab_usage_error (err, "`%s` and `%s` have no (experiment, variant, n) that ended ok in both", dir_a, dir_b);
      goto out;
    }
  write_terminal (term, rows, n);
  counts (rows, n, c);
  fprintf (term, "%d figures: %d within noise, %d faster, %d slower", n, c[LAB_CMP_NOISE], c[LAB_CMP_FASTER],
           c[LAB_CMP_SLOWER]);
  if (o->fail_above_pct >= 0)
    fprintf (term, "; %d slower by more than %g%%", c[3], o->fail_above_pct);
  fprintf (term, "\n");
  snprintf (path, sizeof (path), "%s/compare.md", out_dir);
  if (write_md (path, dir_a, dir_b, o, rows, n, err) < 0)
    goto out;
  snprintf (path, sizeof (path), "%s/compare.html", out_dir);
  if (write_html (path, dir_a, dir_b, o, rows, n, err) < 0)
    goto out;
  fprintf (term, "lab: %s/compare.md, %s/compare.html\n", out_dir, out_dir);
  ret = c[3];
out:
  free (rows);
  free (a.agg);
  free (b.agg);
  json_object_put (a.points);
  json_object_put (b.points);
  return ret;
}
