/*
 * main.c - `lab`: the harness's command dispatcher.  See README.md for the
 * commands; each lives in its own cmd-*.c file.
 */
#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "commands.h"
#include "signals.h"
#include "utils.h"

static const struct
{
  const char *name;
  int (*fn) (int, char **);
  const char *help;
} commands[] = {
  { "doctor", cmd_doctor, "check what this host supports and the limits that cap experiments" },
  { "list", cmd_list, "list the experiments and their variants" },
  { "run", cmd_run, "run experiments, each point in its own sandbox; write results and plots" },
  { "plot", cmd_plot, "re-render the plots and report of a results directory" },
  { "tune", cmd_tune, "show (and, as root, change reversibly) the host settings that cap experiments; swap files" },
  { "compare", cmd_compare, "compare two runs: B/A of each figure, faster / slower / within noise" },
  { "sandbox", cmd_sandbox, "run any command in a sandbox and print its figures as JSON" },
};

static void
usage (FILE *f)
{
  fprintf (f, "usage: lab COMMAND [OPTIONS]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
    fprintf (f, "  %-8s %s\n", commands[i].name, commands[i].help);
  fprintf (f, "\n`lab COMMAND --help` describes each command.\n");
}

int
main (int argc, char **argv)
{
  setvbuf (stdout, NULL, _IOLBF, 0); /* progress lines interleave correctly with children's output */
  /* A closed stdout (`lab list | head -1`) is a write error (EPIPE) the
     commands handle, never a death that skips cleanup. */
  signal (SIGPIPE, SIG_IGN);
  if (argc < 2)
    {
      usage (stderr);
      return 2;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  for (size_t i = 0; i < sizeof (commands) / sizeof (commands[0]); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        lab_error_t err = NULL;
        /* What a SIGKILLed harness left goes first, whatever the command. */
        lab_cgroup_remove_stale ();
        int rc = commands[i].fn (argc - 1, argv + 1);
        if (lab_stdout_check (&err) < 0)
          {
            lab_error_prepend (&err, "%s", argv[1]);
            if (rc == 0)
              rc = lab_error_report (&err);
            lab_error_release (&err);
          }
        /* A signal taken (signals.h) that the command did not act on
           still ends it as interrupted. */
        int sig = lab_signals_poll ();
        if (sig && rc != 128 + sig)
          {
            fprintf (stderr, "lab: %s: interrupted by signal SIG%s\n", argv[1], sigabbrev_np (sig));
            rc = 128 + sig;
          }
        return rc;
      }
  fprintf (stderr, "lab: unknown command `%s`\n", argv[1]);
  usage (stderr);
  return 2;
}
