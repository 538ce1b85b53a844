/* cmd-plot.c - `lab plot DIR`: re-renders DIR/plots/ and DIR/report.md from DIR's data. */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "plot.h"

int
cmd_plot (int argc, char **argv)
{
  static const struct option opts[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
  lab_error_t err = NULL;
  int c;

  while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1)
    {
      if (c == 'h')
        {
          printf ("usage: lab plot DIR\n\nRe-renders DIR/plots/ (PNG and SVG; gnuplot scripts and data beside them),\n"
                  "DIR/report.md and DIR/report.html from the points recorded in DIR.\n");
          return 0;
        }
      return 2;
    }
  if (optind != argc - 1)
    {
      fprintf (stderr, "lab plot: expected one results directory (see `lab plot --help`)\n");
      return 2;
    }
  if (lab_plot_render (argv[optind], &err) < 0)
    return lab_error_report (&err);
  printf ("lab: plots in %s/plots/, report %s/report.md and %s/report.html\n", argv[optind], argv[optind],
          argv[optind]);
  return 0;
}
