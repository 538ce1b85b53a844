/*
 * report-html.c - DIR/report.html: the report.md content (report.h helpers,
 * claims.h verdicts, plots/plots.json) as one HTML page that needs no network
 * and no JavaScript: inline CSS, plots as <img> of the PNGs next to links to
 * the SVG, the gnuplot script and the data, and links to summary.csv,
 * meta.json and every point's files (JSON, .hgrm histograms, stdout/stderr).
 * The experiments' own sections of report.md (echo's client and server
 * figures and capacity ratios, udp/wakeup/blocking's accounts, memory's and
 * pressure's per-task and swap tables) are written as markdown by their
 * helpers and turned into HTML here by md_block (paragraphs, "- " lists and
 * "|" tables, with inline_md inside), so both reports say the same.
 * Every link is relative to DIR, so the directory can be moved or archived.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "claims.h"
#include "plot.h"
#include "report-echo.h"
#include "report-io.h"
#include "report-scale.h"
#include "report.h"
#include "status.h"
#include "utils.h"

static void
esc (FILE *f, const char *s, size_t n)
{
  for (size_t i = 0; i < n && s[i]; i++)
    switch (s[i])
      {
      case '&': fputs ("&amp;", f); break;
      case '<': fputs ("&lt;", f); break;
      case '>': fputs ("&gt;", f); break;
      case '"': fputs ("&quot;", f); break;
      default: fputc (s[i], f);
      }
}

static void
text (FILE *f, const char *s)
{
  esc (f, s, strlen (s));
}

/* Markdown inline markup the report helpers write: **bold**, `code`, [text](href). */
static void
inline_md (FILE *f, const char *s)
{
  while (*s)
    {
      const char *end;
      if (s[0] == '*' && s[1] == '*' && (end = strstr (s + 2, "**")))
        {
          fputs ("<b>", f);
          esc (f, s + 2, (size_t) (end - s - 2));
          fputs ("</b>", f);
          s = end + 2;
        }
      else if (s[0] == '`' && (end = strchr (s + 1, '`')))
        {
          fputs ("<code>", f);
          esc (f, s + 1, (size_t) (end - s - 1));
          fputs ("</code>", f);
          s = end + 1;
        }
      else if (s[0] == '[' && (end = strstr (s, "](")) && strchr (end, ')'))
        {
          const char *close = strchr (end, ')');
          fputs ("<a href=\"", f);
          esc (f, end + 2, (size_t) (close - end - 2));
          fputs ("\">", f);
          esc (f, s + 1, (size_t) (end - s - 1));
          fputs ("</a>", f);
          s = close + 1;
        }
      else
        esc (f, s++, 1);
    }
}

static const char css[] =
  "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}"
  "h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
  "table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ddd;padding:.25em .6em;"
  "vertical-align:top}th{background:#f3f3f3;text-align:left}td.num{text-align:right;font-variant-numeric:"
  "tabular-nums}code{background:#f3f3f3;padding:0 .2em;border-radius:3px}"
  ".v{display:inline-block;padding:.05em .5em;border-radius:.8em;font-weight:600;white-space:nowrap}"
  ".holds{background:#d6f5d6;color:#135e13}.fails{background:#fbd3d0;color:#8a1c12}"
  ".noise{background:#fdf0c4;color:#6b5200}.untested{background:#e4e4e4;color:#444}"
  ".st-ok{color:#135e13}.st-bad{color:#8a1c12;font-weight:600}"
  "figure{margin:1em 0 2em}figure img{max-width:100%;height:auto;border:1px solid #eee}"
  "figcaption{color:#444;font-size:.93em}.sw{display:inline-block;width:.9em;height:.9em;border-radius:50%;"
  "vertical-align:middle;margin-right:.3em}ul.env{list-style:none;padding:0}ul.env li{margin:.1em 0}"
  "nav a{margin-right:1em}details{margin:.5em 0}";

static const char *
verdict_class (enum lab_verdict v)
{
  switch (v)
    {
    case LAB_V_HOLDS: return "holds";
    case LAB_V_FAILS: return "fails";
    case LAB_V_NOISE: return "noise";
    case LAB_V_NOT_TESTED: break;
    }
  return "untested";
}

static void
env_section (FILE *f, struct json_object *meta)
{
  char *env = NULL;
  size_t len = 0;
  FILE *ef = open_memstream (&env, &len);

  lab_report_env (ef, meta);
  fclose (ef);
  fputs ("<ul class=\"env\">\n", f);
  for (char *line = strtok (env, "\n"); line; line = strtok (NULL, "\n"))
    {
      char *colon = strchr (line, ':');
      fputs ("<li>", f);
      /* "label: value": the label is bold (a line without one, e.g. "lab revision X; build: Y", is not). */
      if (colon && colon - line < 40 && !memchr (line, ';', (size_t) (colon - line)))
        {
          fputs ("<b>", f);
          esc (f, line, (size_t) (colon - line));
          fputs ("</b>", f);
          line = colon;
        }
      inline_md (f, line);
      fputs ("</li>\n", f);
    }
  fputs ("<li><b>raw data</b>: <a href=\"summary.csv\">summary.csv</a>, <a href=\"meta.json\">meta.json</a>, "
         "<a href=\"report.md\">report.md</a>, one JSON per point under each experiment below</li>\n</ul>\n",
         f);
  free (env);
}

static void
headline_section (FILE *f, const struct lab_agg *agg, int n, const char **exps, int n_exps)
{
  fputs ("<h2 id=\"headlines\">Headlines</h2>\n<table>\n<tr><th>experiment</th><th>n</th><th>figure</th>"
         "<th>median per variant (min-max over repeats)</th></tr>\n",
         f);
  for (int e = 0; e < n_exps; e++)
    {
      long at;
      char *h = lab_report_headline_text (agg, n, exps[e], &at);
      if (h)
        {
          fprintf (f, "<tr><td><a href=\"#exp-%s\">", exps[e]);
          text (f, exps[e]);
          fprintf (f, "</a></td><td class=\"num\">%ld</td><td>%s</td><td>", at,
                   lab_metrics[lab_report_headline_metric (exps[e])].name);
          inline_md (f, h);
          fputs ("</td></tr>\n", f);
        }
      free (h);
    }
  fputs ("</table>\n", f);
}

static void
claims_section (FILE *f, const struct lab_agg *agg, int n)
{
  fputs ("<h2 id=\"claims\">Published claims (shared/CLAIMS.md), re-measured here</h2>\n<table>\n"
         "<tr><th>claim</th><th>as published</th><th>verdict</th><th>measured here</th></tr>\n",
         f);
  for (const struct lab_claim *c = lab_claims; c->id; c++)
    {
      enum lab_verdict v;
      char *t = lab_claim_text (c, agg, n, &v);
      fputs ("<tr><td><b>", f);
      text (f, c->id);
      fputs ("</b></td><td>", f);
      text (f, c->published);
      fprintf (f, "</td><td><span class=\"v %s\">%s</span></td><td>", verdict_class (v), lab_verdict_name (v));
      inline_md (f, t ? t : "(out of memory)");
      fputs ("</td></tr>\n", f);
      free (t);
    }
  fputs ("</table>\n<p>Verdicts: <span class=\"v holds\">holds</span> and <span class=\"v fails\">fails</span> "
         "when the difference is beyond the repeats' min-max spread, <span class=\"v noise\">within noise</span> "
         "when the spreads overlap, <span class=\"v untested\">not tested here</span> when this run lacks the "
         "points (the text says what to run).</p>\n",
         f);
}

static int
has_plots (struct json_object *manifest, const char *exp)
{
  for (size_t i = 0; i < json_object_array_length (manifest); i++)
    if (strcmp (lab_report_meta (json_object_array_get_idx (manifest, i), "experiment"), exp) == 0)
      return 1;
  return 0;
}

/* The colours of `exp`'s variants, as plot.c gives them (from the run's variant order). */
static void
legend (FILE *f, const char *const *vs, int nv, const struct lab_agg *agg, int n, const char *exp)
{
  const char *ev[64];
  int ne = lab_agg_variants (agg, n, exp, ev, 64);

  fputs ("<p>Each variant keeps its colour and marker in every plot of this run: ", f);
  for (int v = 0; v < ne; v++)
    {
      fprintf (f, "<span class=\"sw\" style=\"background:%s\"></span>", lab_plot_colour (vs, nv, ev[v]));
      text (f, ev[v]);
      fputs (v + 1 < ne ? ", " : ".</p>\n", f);
    }
}

static void
table_section (FILE *f, const char *exp, const struct lab_agg *agg, int n)
{
  const char *h[LAB_REPORT_NCOLS];
  char c[LAB_REPORT_NCOLS][64];

  lab_report_table_header (exp, h);
  fputs ("<table>\n<tr>", f);
  for (int i = 0; i < LAB_REPORT_NCOLS; i++)
    {
      fputs ("<th>", f);
      text (f, h[i]);
      fputs ("</th>", f);
    }
  fputs ("</tr>\n", f);
  for (int i = 0; i < n; i++)
    {
      if (strcmp (agg[i].experiment, exp))
        continue;
      lab_report_table_row (&agg[i], c);
      fputs ("<tr>", f);
      for (int k = 0; k < LAB_REPORT_NCOLS; k++)
        {
          if (k == 2)
            fprintf (f, "<td class=\"%s\" title=\"", agg[i].n_ok ? "st-ok" : "st-bad");
          else
            fprintf (f, "<td%s", k == 0 ? ">" : " class=\"num\">");
          if (k == 2)
            {
              text (f, lab_status_meaning (c[k]));
              fputs ("\">", f);
            }
          text (f, c[k]);
          fputs ("</td>", f);
        }
      fputs ("</tr>\n", f);
    }
  fputs ("</table>\n", f);
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && agg[i].n_ok < agg[i].n_total)
      {
        fprintf (f, "<p>%s n=%ld: %d of %d runs ended <code>", agg[i].variant, agg[i].n, agg[i].n_total - agg[i].n_ok,
                 agg[i].n_total);
        text (f, agg[i].n_ok ? "not ok" : agg[i].status);
        fputs ("</code>: ", f);
        text (f, agg[i].detail);
        fputs ("</p>\n", f);
      }
}

/* One markdown table row ("| a | b |") as <tr>; th for the header row. */
static void
md_row (FILE *f, char *line, bool head)
{
  fputs ("<tr>", f);
  char *cell = line + 1, *bar;
  while ((bar = strchr (cell, '|')))
    {
      *bar = '\0';
      while (*cell == ' ')
        cell++;
      for (char *e = cell + strlen (cell); e > cell && e[-1] == ' ';)
        *--e = '\0';
      fputs (head ? "<th>" : "<td>", f);
      inline_md (f, cell);
      fputs (head ? "</th>" : "</td>", f);
      cell = bar + 1;
    }
  fputs ("</tr>\n", f);
}

/* The markdown that report.md's helpers write, as HTML: a "|" line starts
   (or continues) a table, whose first row is its header and whose "|---"
   row is dropped; "- " lines a list; other lines a paragraph; a blank line
   ends what is open. */
static void
md_block (FILE *f, char *md)
{
  enum md_kind { NONE, PARA, LIST, TABLE } open = NONE;
  int rows = 0;
  static const char *const close[] = { "", "</p>\n", "</ul>\n", "</table>\n" };
  for (char *line = md, *next; line && *line; line = next)
    {
      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      enum md_kind kind = line[0] == '|' ? TABLE : (line[0] == '-' && line[1] == ' ') ? LIST : line[0] ? PARA : NONE;
      if (kind != open || kind == NONE)
        {
          fputs (close[open], f);
          fputs (kind == TABLE ? "<table>\n" : kind == LIST ? "<ul>\n" : kind == PARA ? "<p>" : "", f);
          open = kind;
          rows = 0;
        }
      else if (kind == PARA)
        fputc ('\n', f);
      if (kind == TABLE)
        {
          if (strncmp (line, "|---", 4) != 0)
            md_row (f, line, rows == 0);
          rows++;
        }
      else if (kind == LIST)
        {
          fputs ("<li>", f);
          inline_md (f, line + 2);
          fputs ("</li>\n", f);
        }
      else if (kind == PARA)
        inline_md (f, line);
    }
  fputs (close[open], f);
}

/* What report.md adds for `exp` beyond its table and plots (see the top). */
static void
extra_sections (FILE *f, const char *dir, const char *exp, const struct lab_agg *agg, int n)
{
  char *md = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&md, &len);
  if (m == NULL)
    return;
  lab_report_io_section (m, exp, agg, n);
  lab_report_echo_section (m, exp, agg, n);
  lab_report_scale (m, dir, exp);
  if (fclose (m) == 0 && md)
    md_block (f, md);
  free (md);
}

static void
plots_section (FILE *f, struct json_object *manifest, const char *exp)
{
  for (size_t i = 0; i < json_object_array_length (manifest); i++)
    {
      struct json_object *p = json_object_array_get_idx (manifest, i), *data = NULL;
      const char *stem = lab_report_meta (p, "stem");
      if (strcmp (lab_report_meta (p, "experiment"), exp))
        continue;
      fputs ("<figure>\n<a href=\"plots/", f);
      text (f, stem);
      fputs (".svg\"><img src=\"plots/", f);
      text (f, stem);
      fputs (".png\" alt=\"", f);
      text (f, lab_report_meta (p, "title"));
      fputs ("\" width=\"900\" height=\"540\"></a>\n<figcaption><b>", f);
      text (f, lab_report_meta (p, "title"));
      fputs ("</b>. ", f);
      text (f, lab_report_meta (p, "how"));
      fprintf (f, " Files: <a href=\"plots/%s.svg\">SVG</a>, <a href=\"plots/%s.png\">PNG</a>, "
                  "<a href=\"plots/%s.gp\">gnuplot script</a>",
               stem, stem, stem);
      json_object_object_get_ex (p, "data", &data);
      for (size_t d = 0; data && d < json_object_array_length (data); d++)
        {
          const char *dn = json_object_get_string (json_object_array_get_idx (data, d));
          fputs (", <a href=\"plots/", f);
          text (f, dn);
          fputs ("\">", f);
          text (f, dn);
          fputs ("</a>", f);
        }
      fputs (".</figcaption>\n</figure>\n", f);
    }
}

/* Links to points/<exp>-* files, one row per point: its JSON, histogram
   (.hgrm), samples, stdout and stderr, whatever exists. */
static void
raw_section (FILE *f, const char *dir, const char *exp)
{
  char path[4096], prefix[256], cur[256] = "";
  struct dirent **names = NULL;
  int n, shown = 0;

  snprintf (path, sizeof (path), "%s/points", dir);
  snprintf (prefix, sizeof (prefix), "%s-", exp);
  n = scandir (path, &names, NULL, alphasort);
  for (int i = 0; i < n; i++)
    {
      const char *d = names[i]->d_name, *dot = strchr (d, '.');
      if (strncmp (d, prefix, strlen (prefix)) == 0 && dot && !strstr (d, ".tmp"))
        {
          if (shown++ == 0)
            fputs ("<details><summary>Raw files of every point (JSON, .hgrm histograms, samples, stdout, stderr)"
                   "</summary>\n<table>\n",
                   f);
          if (strncmp (cur, d, (size_t) (dot - d)) || cur[dot - d] != '\0')
            {
              snprintf (cur, sizeof (cur), "%.*s", (int) (dot - d), d);
              fputs (shown > 1 ? "</td></tr>\n<tr><td>" : "<tr><td>", f);
              text (f, cur);
              fputs ("</td><td>", f);
            }
          fputs ("<a href=\"points/", f);
          text (f, d);
          fputs ("\">", f);
          text (f, dot + 1);
          fputs ("</a> ", f);
        }
      free (names[i]);
    }
  free (names);
  if (shown)
    fputs ("</td></tr>\n</table></details>\n", f);
}

static void
status_section (FILE *f)
{
  fputs ("<h2 id=\"statuses\">Statuses</h2>\n<table>\n<tr><th>status</th><th>meaning</th>"
         "<th>exit status of the command</th></tr>\n",
         f);
  for (int s = 0; s < LAB_ST__COUNT; s++)
    {
      fprintf (f, "<tr><td><code>%s</code></td><td>", lab_statuses[s].name);
      text (f, lab_statuses[s].meaning);
      if (lab_statuses[s].exit_code >= 0)
        fprintf (f, "</td><td class=\"num\">%d</td></tr>\n", lab_statuses[s].exit_code);
      else
        fputs ("</td><td>varies / not run</td></tr>\n", f);
    }
  fputs ("</table>\n", f);
}

int
lab_report_html_write (const char *dir, struct json_object *meta, const struct lab_agg *agg, int n,
                       lab_error_t *err)
{
  char *buf = NULL, path[4096];
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  const char *exps[32], *vs[64];
  int n_exps = lab_agg_experiments (agg, n, exps, 32), nv = lab_agg_variants (agg, n, NULL, vs, 64), ret;
  struct json_object *manifest = lab_report_manifest (dir);

  fprintf (f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Lab report: ");
  text (f, lab_report_meta (meta, "date"));
  fprintf (f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Lab report</h1>\n<nav><a href=\"#headlines\">"
              "Headlines</a><a href=\"#claims\">Claims</a>",
           css);
  for (int e = 0; e < n_exps; e++)
    fprintf (f, "<a href=\"#exp-%s\">%s</a>", exps[e], exps[e]);
  fputs ("<a href=\"#statuses\">Statuses</a></nav>\n", f);
  env_section (f, meta);
  headline_section (f, agg, n, exps, n_exps);
  claims_section (f, agg, n);
  for (int e = 0; e < n_exps; e++)
    {
      const struct lab_experiment *x = lab_experiment_find (exps[e]);
      fprintf (f, "<h2 id=\"exp-%s\">%s</h2>\n", exps[e], exps[e]);
      if (x)
        {
          fputs ("<p>", f);
          text (f, x->summary);
          fputs (x->claims && *x->claims ? ". Claims: " : ".", f);
          text (f, x->claims ? x->claims : "");
          fputs ("</p>\n", f);
        }
      table_section (f, exps[e], agg, n);
      extra_sections (f, dir, exps[e], agg, n);
      if (has_plots (manifest, exps[e]))
        legend (f, vs, nv, agg, n, exps[e]);
      plots_section (f, manifest, exps[e]);
      raw_section (f, dir, exps[e]);
    }
  status_section (f);
  fputs ("</body>\n</html>\n", f);
  fclose (f);
  json_object_put (manifest);
  snprintf (path, sizeof (path), "%s/report.html", dir);
  ret = lab_write_file_atomic (path, buf, len, err);
  free (buf);
  return ret;
}
