/*
 * cmd-sandbox.c - `lab sandbox`: run any command in the sandbox a point gets,
 * let its output through, and print its figures as one JSON object.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"
#include "profile.h"
#include "results.h"
#include "sandbox.h"
#include "seccomp-bpf.h"
#include "seccomp-cache.h"
#include "seccomp-profile.h"
#include "signals.h"
#include "utils.h"

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: lab sandbox [OPTIONS] -- COMMAND [ARGS...]\n\n"
           "Runs COMMAND in a sandbox (cgroup with limits, new pid/mount/net/ipc/uts/cgroup\n"
           "namespaces, seccomp filter); its output passes through.  At the end one JSON\n"
           "object with the figures goes to stderr (or --json FILE).  Exit status: the\n"
           "command's, 128+signal when it was killed, 1 on a harness error, 2 on bad use.\n\n"
           "options:\n"
           "  --profile FILE      sandbox profile (default: containers/default.json)\n"
           "  --memory-max SIZE   memory limit, e.g. 512M, 2G or max\n"
           "  --pids-max N        task limit (N, max, or auto: the host's pids less a reserve)\n"
           "  --cpus LIST         CPU set, e.g. 0 or 0-1\n"
           "  --seccomp FILE      seccomp profile (Docker format) instead of the profile's\n"
           "  --seccomp-log       enforce nothing; record every syscall the command makes\n"
           "                      and list them in the JSON (`seccomp.syscalls_used`)\n"
           "  --timeout SECONDS   kill the command after SECONDS (0 = the profile's)\n"
           "  --json FILE         write the JSON object to FILE instead of stderr\n"
           "  --help              this text\n");
}

/* COMMAND through PATH, as execvp would find it, made absolute (symlinks
   kept: a multi-call binary still sees the name it was called by). */
static int
resolve_command (const char *cmd, char *out, size_t len, lab_error_t *err)
{
  char cwd[PATH_MAX];
  if (strchr (cmd, '/'))
    {
      if (access (cmd, X_OK) < 0)
        return lab_usage_error (err, "command `%s`: %s", cmd, strerror (errno));
      if (cmd[0] == '/')
        snprintf (out, len, "%s", cmd);
      else if (getcwd (cwd, sizeof cwd) == NULL || snprintf (out, len, "%s/%s", cwd, cmd) >= (int) len)
        return lab_usage_error (err, "command `%s`: cannot make the path absolute", cmd);
      return 0;
    }
  const char *path = getenv ("PATH");
  cleanup_free char *copy = strdup (path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (char *save, *d = strtok_r (copy, ":", &save); d; d = strtok_r (NULL, ":", &save))
    {
      if (d[0] != '/')
        continue; /* a relative PATH entry would depend on the sandbox's cwd */
      if (snprintf (out, len, "%s/%s", d, cmd) >= (int) len)
        continue;
      if (access (out, X_OK) == 0)
        return 0;
    }
  return lab_usage_error (err, "command `%s` not found in PATH", cmd);
}

static int
parse_double (const char *s, const char *flag, double *out, lab_error_t *err)
{
  char *end;
  errno = 0;
  *out = strtod (s, &end);
  if (errno || end == s || *end || *out < 0)
    return lab_usage_error (err, "`%s`: expected a number of seconds, got `%s`", flag, s);
  return 0;
}

static int
parse_pids (const char *s, int64_t *out, lab_error_t *err)
{
  if (strcmp (s, "max") == 0)
    {
      *out = LAB_LIMIT_MAX;
      return 0;
    }
  if (strcmp (s, "auto") == 0)
    {
      *out = lab_pids_auto ();
      return 0;
    }
  char *end;
  errno = 0;
  long long v = strtoll (s, &end, 10);
  if (errno || end == s || *end || v <= 0 || s[0] < '0' || s[0] > '9')
    return lab_usage_error (err, "`--pids-max`: expected a positive integer, `max` or `auto`, got `%s`", s);
  if (v > LAB_PIDS_MAX)
    return lab_usage_error (err, "`--pids-max`: %s is above the largest value %d (use `max` for no limit)", s,
                            LAB_PIDS_MAX);
  *out = v;
  return 0;
}

struct opts
{
  const char *profile, *memory_max, *pids_max, *cpus, *seccomp, *json;
  double timeout;
  int seccomp_log;
};

static int
parse_args (int argc, char **argv, struct opts *o, lab_error_t *err)
{
  static const struct option longopts[] = {
    { "profile", required_argument, NULL, 'p' },    { "memory-max", required_argument, NULL, 'm' },
    { "pids-max", required_argument, NULL, 'n' },   { "cpus", required_argument, NULL, 'c' },
    { "seccomp", required_argument, NULL, 's' },    { "timeout", required_argument, NULL, 't' },
    { "json", required_argument, NULL, 'j' },       { "seccomp-log", no_argument, NULL, 'l' },
    { "help", no_argument, NULL, 'h' },             { NULL, 0, NULL, 0 },
  };
  int c;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long (argc, argv, "+:h", longopts, NULL)) != -1)
    switch (c)
      {
      case 'p': o->profile = optarg; break;
      case 'm': o->memory_max = optarg; break;
      case 'n': o->pids_max = optarg; break;
      case 'c': o->cpus = optarg; break;
      case 's': o->seccomp = optarg; break;
      case 'j': o->json = optarg; break;
      case 'l': o->seccomp_log = 1; break;
      case 't':
        if (parse_double (optarg, "--timeout", &o->timeout, err) < 0)
          return -1;
        break;
      case 'h': usage (stdout); exit (0);
      case ':':
        return lab_usage_error (err, "option `%s` needs a value", argv[optind - 1]);
      default:
        return lab_usage_error (err, "unknown option `%s` (see `lab sandbox --help`)", argv[optind - 1]);
      }
  if (optind >= argc)
    return lab_usage_error (err, "no COMMAND given (usage: lab sandbox [OPTIONS] -- COMMAND [ARGS...])");
  return optind;
}

static int
apply_overrides (const struct opts *o, struct lab_profile *p, lab_error_t *err)
{
  if (o->memory_max && lab_parse_size (o->memory_max, "--memory-max", &p->limits.memory_max, err) < 0)
    return -1;
  if (o->memory_max && p->limits.memory_max < (1 << 20))
    return lab_usage_error (err, "`--memory-max`: `%s` is below the minimum 1M (no process starts in it)",
                            o->memory_max);
  if (o->pids_max && parse_pids (o->pids_max, &p->limits.pids_max, err) < 0)
    return -1;
  if (o->cpus)
    {
      if (o->cpus[0] == '\0' || strspn (o->cpus, "0123456789,-") != strlen (o->cpus))
        return lab_usage_error (err, "`--cpus`: expected a CPU list such as `0-1` or `0,2`, got `%s`", o->cpus);
      for (const char *c = o->cpus; *c; c += strspn (c, ",-"))
        {
          long cpu = strtol (c, (char **) &c, 10);
          if (cpu >= sysconf (_SC_NPROCESSORS_CONF))
            return lab_usage_error (err, "`--cpus`: CPU %ld does not exist here (CPUs 0-%ld)", cpu,
                                    sysconf (_SC_NPROCESSORS_CONF) - 1);
        }
      free (p->limits.cpuset_cpus);
      p->limits.cpuset_cpus = strdup (o->cpus);
    }
  if (o->seccomp && access (o->seccomp, R_OK) < 0)
    return lab_usage_error (err, "`--seccomp`: `%s`: %s", o->seccomp, strerror (errno));
  return 0;
}

static int
print_json (const char *path, struct json_object *o, lab_error_t *err)
{
  cleanup_free char *s = lab_json_text_valid (
      json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), NULL);
  if (s == NULL)
    return lab_error (err, ENOMEM, "printing the JSON");
  if (path == NULL)
    {
      fputs (s, stderr);
      return 0;
    }
  FILE *f = fopen (path, "we");
  if (f == NULL)
    return lab_error (err, errno, "writing `%s`", path);
  if (fputs (s, f) == EOF)
    {
      int e = errno;
      fclose (f);
      return lab_error (err, e, "writing `%s`", path);
    }
  if (fclose (f) != 0)
    return lab_error (err, errno, "writing `%s`", path);
  return 0;
}

int
cmd_sandbox (int argc, char **argv)
{
  lab_error_t err = NULL;
  struct opts o = { 0 };
  struct lab_profile prof;
  char default_profile[PATH_MAX], cmd[PATH_MAX];
  int first = parse_args (argc, argv, &o, &err);
  if (first < 0)
    return lab_error_report (&err);
  if (o.profile == NULL)
    {
      snprintf (default_profile, sizeof default_profile, "%s/containers/default.json", lab_root_dir ());
      o.profile = default_profile;
    }
  memset (&prof, 0, sizeof prof);
  if (lab_profile_load (o.profile, lab_root_dir (), &prof, &err) < 0)
    return lab_error_report (&err);
  int rc;
  if (apply_overrides (&o, &prof, &err) < 0 || resolve_command (argv[first], cmd, sizeof cmd, &err) < 0)
    {
      rc = lab_error_report (&err);
      lab_profile_free (&prof);
      return rc;
    }
  /* Parse the filter once here, not quietly: the user sees which syscall
     names are unknown on this architecture before the command runs (the
     sandbox reuses it, seccomp-bpf.h). */
  {
    const char *sc = o.seccomp ? o.seccomp : prof.seccomp_path;
    if (sc && !o.seccomp_log && lab_seccomp_cached (sc, prof.sec.caps, 0, &err) == NULL)
      {
        rc = lab_error_report (&err);
        lab_profile_free (&prof);
        return rc;
      }
  }
  char **cargv = calloc ((size_t) (argc - first + 1), sizeof *cargv);
  cargv[0] = cmd;
  for (int i = first + 1; i < argc; i++)
    cargv[i - first] = argv[i];
  extern char **environ;
  struct lab_sandbox_spec spec = {
    .profile = &prof, .argv = cargv, .envp = environ, .name = NULL,
    .stdout_fd = -1, .stderr_fd = -1, .timeout_s = o.timeout,
    .seccomp_override = o.seccomp, .seccomp_log = o.seccomp_log,
  };
  static char name[32];
  snprintf (name, sizeof name, "sandbox-%d", (int) getpid ());
  spec.name = name;
  struct lab_sandbox_result res;
  /* Signals are events from here on (signals.h). */
  if (lab_signals_init (&err) < 0 || lab_sandbox_run (&spec, &res, &err) < 0)
    {
      rc = lab_error_report (&err);
      if (lab_signals_caught ())
        rc = 128 + lab_signals_caught ();
      goto out;
    }
  struct json_object *j = lab_sandbox_result_to_json (&spec, &res);
  struct json_object *c = json_object_new_array ();
  for (char **a = cargv; *a; a++)
    json_object_array_add (c, json_object_new_string (*a));
  json_object_object_add (j, "command", c);
  json_object_object_add (j, "profile", lab_profile_to_json (&prof));
  if (print_json (o.json, j, &err) < 0)
    rc = lab_error_report (&err);
  else
    rc = res.term_signal ? 128 + res.term_signal : res.exit_code;
  json_object_put (j);
out:
  free (cargv);
  lab_profile_free (&prof);
  return rc;
}
