/* cmd-compare.c - `lab compare DIR_A DIR_B [--threshold PCT] [--fail-above PCT] [--out DIR]` (compare.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "compare.h"
#include "utils.h"

static void
usage (FILE *f)
{
  fprintf (f, "usage: lab compare DIR_A DIR_B [--threshold PCT] [--fail-above PCT] [--out DIR]\n\n"
              "For every (experiment, variant, n) that ended ok in both runs: the ratio B/A of\n"
              "wall time, time per operation, cgroup and RSS peaks and latency percentiles (each\n"
              "where measured), with both runs' min-max over repeats, marked faster, slower or\n"
              "within noise (the ranges overlap, or B/A is within the threshold).  Writes the\n"
              "table to the terminal and compare.md and compare.html to DIR_B (or --out DIR).\n\n"
              "options:\n"
              "  --threshold PCT   a change smaller than PCT percent is noise (default 10)\n"
              "  --fail-above PCT  exit 1 when a figure is slower by more than PCT percent and\n"
              "                    beyond the noise (for CI)\n"
              "  --out DIR         where compare.md and compare.html go (default DIR_B)\n\n"
              "Exit status: 0; 1 with --fail-above when a figure got worse beyond it, or on a\n"
              "harness failure; 2 on bad use or a directory that is not a run.\n");
}

static int
parse_pct (const char *opt, const char *s, double *out)
{
  char *end;
  errno = 0;
  *out = strtod (s, &end);
  if (errno || end == s || *end || !isfinite (*out) || *out < 0 || *out > 1e6)
    {
      fprintf (stderr, "lab compare: %s: `%s` is not a percentage (a number >= 0, e.g. 10)\n", opt, s);
      return -1;
    }
  return 0;
}

int
cmd_compare (int argc, char **argv)
{
  static const struct option opts[] = { { "threshold", required_argument, 0, 't' },
                                        { "fail-above", required_argument, 0, 'f' },
                                        { "out", required_argument, 0, 'o' },
                                        { "help", no_argument, 0, 'h' },
                                        { 0, 0, 0, 0 } };
  struct lab_cmp_opts o = { .threshold_pct = 10, .fail_above_pct = -1 };
  const char *out = NULL;
  lab_error_t err = NULL;
  int c, ret;

  while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1)
    switch (c)
      {
      case 't':
        if (parse_pct ("--threshold", optarg, &o.threshold_pct) < 0)
          return 2;
        break;
      case 'f':
        if (parse_pct ("--fail-above", optarg, &o.fail_above_pct) < 0)
          return 2;
        break;
      case 'o': out = optarg; break;
      case 'h': usage (stdout); return 0;
      default: return 2;
      }
  if (argc - optind != 2)
    {
      fprintf (stderr, "lab compare: expected two results directories, DIR_A and DIR_B (see `lab compare --help`)\n");
      return 2;
    }
  if (out && lab_mkdir_p (out, 0755, &err) < 0)
    return lab_error_report (&err);
  ret = lab_compare (argv[optind], argv[optind + 1], out ? out : argv[optind + 1], &o, stdout, &err);
  if (ret < 0)
    return lab_error_report (&err);
  return ret > 0 ? 1 : 0;
}
