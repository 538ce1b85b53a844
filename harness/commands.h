/*
 * commands.h - the `lab` subcommands.  Each takes the arguments after its
 * name (argv[0] is the command name), parses them with getopt_long, supports
 * --help, and returns the process exit code: 0 ok, 1 harness/host failure,
 * 2 bad use or bad input (with a message naming what and where).
 */
#ifndef LAB_COMMANDS_H
#define LAB_COMMANDS_H

int cmd_doctor (int argc, char **argv);
int cmd_list (int argc, char **argv);
int cmd_run (int argc, char **argv);
int cmd_plot (int argc, char **argv);
int cmd_compare (int argc, char **argv);
int cmd_sandbox (int argc, char **argv);
int cmd_tune (int argc, char **argv);

/* Repository root (where ./lab, containers/ and seccomp/ live) and the
   directory of the workload binaries, found from /proc/self/exe. */
const char *lab_root_dir (void);
const char *lab_bin_dir (void);

#endif
