/*
 * meta.c - DIR/meta.json: when, where and how a run was made (the facts the
 * report's header is written from, as libaco presents its benchmarks).
 */
#include "meta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "hostinfo.h"
#include "results.h"
#include "tune.h"
#include "utils.h"

/* First line of a command's output, or "" (used for `git rev-parse`). */
static void
command_line_out (const char *cmd, char *out, size_t len)
{
  FILE *p = popen (cmd, "r");
  out[0] = '\0';
  if (p == NULL)
    return;
  if (fgets (out, (int) len, p) == NULL)
    out[0] = '\0';
  out[strcspn (out, "\n")] = '\0';
  pclose (p);
}

int
lab_meta_write (const char *dir, int argc, char **argv, lab_error_t *err)
{
  struct lab_hostinfo h;
  struct json_object *o, *args = json_object_new_array ();
  char path[4096], buf[512], cmd[4600], date[64];
  cleanup_free char *flags = NULL;
  time_t t = time (NULL);
  struct tm tm;
  int ret;

  lab_hostinfo_collect (&h);
  o = json_object_new_object ();
  gmtime_r (&t, &tm);
  strftime (date, sizeof (date), "%Y-%m-%dT%H:%M:%SZ", &tm);
  json_object_object_add (o, "date", json_object_new_string (date));
  json_object_object_add (o, "host", lab_hostinfo_to_json (&h));
  {
    struct json_object *env = lab_env_static ();
    json_object_object_add (env, "start", lab_env_snapshot ());
    json_object_object_add (o, "environment", env);
  }
  json_object_object_add (o, "tune", lab_tune_to_json ()); /* settings in force; applied by `lab tune`? */
  snprintf (cmd, sizeof (cmd), "git -C '%s' rev-parse --short=12 HEAD 2>/dev/null", lab_root_dir ());
  command_line_out (cmd, buf, sizeof (buf));
  if (buf[0])
    {
      char dirty[64];
      snprintf (cmd, sizeof (cmd), "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null | head -n 1",
                lab_root_dir ());
      command_line_out (cmd, dirty, sizeof (dirty));
      if (dirty[0])
        strncat (buf, "-dirty", sizeof (buf) - strlen (buf) - 1);
    }
  if (buf[0] == '\0')
    {
      /* No git (a container image): the revision its build recorded. */
      cleanup_free char *rev = NULL;
      snprintf (path, sizeof (path), "%s/REVISION", lab_root_dir ());
      if (lab_read_file (path, &rev, NULL, NULL) == 0)
        snprintf (buf, sizeof (buf), "%.*s", (int) strcspn (rev, "\n"), rev);
    }
  json_object_object_add (o, "lab_revision", json_object_new_string (buf[0] ? buf : "unknown"));
  snprintf (path, sizeof (path), "%s/buildflags.txt", lab_bin_dir ());
  if (lab_read_file (path, &flags, NULL, NULL) == 0)
    {
      flags[strcspn (flags, "\n")] = '\0';
      json_object_object_add (o, "build_flags", json_object_new_string (flags));
    }
  else
    json_object_object_add (o, "build_flags", json_object_new_string ("unknown"));
  for (int i = 0; i < argc; i++)
    json_object_array_add (args, json_object_new_string (argv[i]));
  json_object_object_add (o, "argv", args);
  snprintf (path, sizeof (path), "%s/meta.json", dir);
  ret = lab_json_write (path, o, err);
  json_object_put (o);
  return ret;
}
