/*
 * tune-state.c - `lab tune`'s state file, --apply and --undo (see tune.h).
 *
 * The state file (default results/.lab-tune.json) is written atomically
 * BEFORE a setting changes or a swap file is created:
 *   {"settings": {"kernel.pid_max": {"path": "/proc/sys/kernel/pid_max",
 *                                    "old": "32768", "new": "510000"}, ...},
 *    "swap_files": [{"path": "/.../lab-swap-1.swap", "bytes": 1073741824}]}
 * so an interrupted --apply still leaves what --undo needs.  A second --apply
 * keeps the old values the first one saved (the host's own), adding only new
 * settings.  --undo writes back each "old" text exactly, swapoffs and removes
 * each swap file, and deletes the state file only when all of that worked.
 */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "results.h"
#include "utils.h"

void
lab_tune_default_state (char *out, size_t len)
{
  snprintf (out, len, "%s/results/.lab-tune.json", lab_root_dir ());
}

static struct json_object *
state_read (const char *path, lab_error_t *err)
{
  struct json_object *o = NULL;
  if (access (path, F_OK) < 0)
    return json_object_new_object ();
  if (lab_json_read (path, &o, err) < 0)
    {
      lab_error_prepend (err, "tune state file `%s`", path);
      return NULL;
    }
  if (!json_object_is_type (o, json_type_object))
    {
      json_object_put (o);
      lab_error (err, 0, "tune state file `%s`: not a JSON object", path);
      return NULL;
    }
  return o;
}

static int
state_write (const char *path, struct json_object *o, lab_error_t *err)
{
  char dir[PATH_MAX];
  snprintf (dir, sizeof dir, "%s", path);
  if (lab_mkdir_p (dirname (dir), 0755, err) < 0)
    return -1;
  return lab_json_write (path, o, err);
}

static struct json_object *
member (struct json_object *o, const char *key, enum json_type t)
{
  struct json_object *v = NULL;
  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, t))
    {
      v = t == json_type_array ? json_object_new_array () : json_object_new_object ();
      json_object_object_add (o, key, v);
    }
  return v;
}

static const char *
str_of (struct json_object *o, const char *key)
{
  struct json_object *v = NULL;
  return json_object_object_get_ex (o, key, &v) && json_object_is_type (v, json_type_string)
             ? json_object_get_string (v) : NULL;
}

static int
write_value (const char *path, const char *value, lab_error_t *err)
{
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC);
  size_t len = strlen (value);
  if (fd < 0)
    return lab_error (err, errno, "opening `%s`", path);
  if (write (fd, value, len) != (ssize_t) len)
    return lab_error (err, errno, "writing `%s` to `%s`", value, path);
  return 0;
}

int
lab_tune_apply (const char *state, const struct lab_tune_item *items, int n, lab_error_t *err)
{
  struct json_object *o = state_read (state, err), *settings;
  int ret = 0;

  if (o == NULL)
    return -1;
  settings = member (o, "settings", json_type_object);
  for (int i = 0; i < n; i++)
    {
      struct json_object *s = NULL;
      if (items[i].state != LAB_TUNE_RAISE || items[i].path == NULL)
        continue;
      if (!json_object_object_get_ex (settings, items[i].name, &s))
        {
          s = json_object_new_object ();
          json_object_object_add (s, "path", json_object_new_string (items[i].path));
          json_object_object_add (s, "old", json_object_new_string (items[i].now));
          json_object_object_add (settings, items[i].name, s);
        }
      json_object_object_add (s, "new", json_object_new_string (items[i].value));
    }
  if (state_write (state, o, err) < 0) /* saved before anything changes */
    ret = -1;
  for (int i = 0; i < n && ret == 0; i++)
    if (items[i].state == LAB_TUNE_RAISE && items[i].path)
      {
        if (write_value (items[i].path, items[i].value, err) < 0)
          ret = lab_error_prepend (err, "%s (the old values are saved in `%s`: `lab tune --undo` restores them)",
                                   items[i].name, state);
        else
          printf ("set  %-22s %s -> %s\n", items[i].name, items[i].now, items[i].value);
      }
  json_object_put (o);
  return ret;
}

int
lab_tune_state_add_swap (const char *state, const char *file, int64_t bytes, lab_error_t *err)
{
  struct json_object *o = state_read (state, err), *files, *f;
  int ret;
  if (o == NULL)
    return -1;
  files = member (o, "swap_files", json_type_array);
  f = json_object_new_object ();
  json_object_object_add (f, "path", json_object_new_string (file));
  json_object_object_add (f, "bytes", json_object_new_int64 (bytes));
  json_object_array_add (files, f);
  ret = state_write (state, o, err);
  json_object_put (o);
  return ret;
}

int
lab_tune_undo (const char *state, lab_error_t *err)
{
  struct json_object *o, *settings = NULL, *files = NULL, *left_s, *left_f, *left;
  int failed = 0;
  lab_error_t e = NULL;

  if (access (state, F_OK) < 0)
    {
      printf ("nothing to undo: no state file `%s` (lab tune --apply/--swap was not run, or was undone)\n", state);
      return 0;
    }
  if ((o = state_read (state, err)) == NULL)
    return -1;
  left = json_object_new_object ();
  left_s = json_object_new_object ();
  left_f = json_object_new_array ();
  json_object_object_add (left, "settings", left_s);
  json_object_object_add (left, "swap_files", left_f);
  /* Swap first: swapoff needs memory, and the settings it ran under are still in force. */
  if (json_object_object_get_ex (o, "swap_files", &files) && json_object_is_type (files, json_type_array))
    for (size_t i = 0; i < json_object_array_length (files); i++)
      {
        struct json_object *f = json_object_array_get_idx (files, i);
        const char *p = str_of (f, "path");
        if (p == NULL)
          continue;
        if (lab_swap_remove (p, &e) < 0)
          {
            failed++;
            lab_error_report (&e);
            json_object_array_add (left_f, json_object_get (f));
          }
        else
          printf ("removed swap file %s\n", p);
      }
  if (json_object_object_get_ex (o, "settings", &settings) && json_object_is_type (settings, json_type_object))
    {
      json_object_object_foreach (settings, name, s)
      {
        const char *path = str_of (s, "path"), *old = str_of (s, "old");
        char now[64] = "";
        if (path == NULL || old == NULL)
          {
            lab_warn ("tune state `%s`: `%s` has no path or old value; left alone", state, name);
            continue;
          }
        lab_tune_read (path, now, sizeof now);
        if (write_value (path, old, &e) < 0)
          {
            failed++;
            lab_error_report (&e);
            json_object_object_add (left_s, name, json_object_get (s));
          }
        else
          printf ("restored %-22s %s -> %s\n", name, now, old);
      }
    }
  json_object_put (o);
  if (failed)
    {
      if (state_write (state, left, &e) < 0)
        lab_error_report (&e);
      json_object_put (left);
      return lab_error (err, 0, "%d change(s) could not be undone; they stay in `%s`", failed, state);
    }
  json_object_put (left);
  if (unlink (state) < 0)
    return lab_error (err, errno, "removing `%s`", state);
  return 0;
}

/* ---- for meta.json ------------------------------------------------------- */

struct json_object *
lab_tune_to_json (void)
{
  struct lab_tune_req none = { 0 };
  struct lab_tune_item items[LAB_TUNE_MAX] = { 0 };
  struct json_object *o = json_object_new_object (), *cur = json_object_new_object (), *st = NULL, *s = NULL;
  char path[PATH_MAX];
  int n = lab_tune_plan (&none, items), applied = 0;
  lab_error_t e = NULL;

  for (int i = 0; i < n; i++)
    json_object_object_add (cur, items[i].name, json_object_new_string (items[i].now));
  json_object_object_add (o, "settings", cur);
  lab_tune_default_state (path, sizeof path);
  if (access (path, F_OK) == 0 && (st = state_read (path, &e)) != NULL)
    {
      /* Applied = every value `lab tune` set is still in force. */
      applied = 1;
      if (json_object_object_get_ex (st, "settings", &s))
        {
          json_object_object_foreach (s, name, v)
          {
            char now[64] = "";
            const char *p = str_of (v, "path"), *nw = str_of (v, "new");
            if (p == NULL || nw == NULL || lab_tune_read (p, now, sizeof now) < 0 || strcmp (now, nw) != 0)
              applied = 0;
            (void) name;
          }
        }
      json_object_object_add (o, "state_file", json_object_new_string (path));
      json_object_object_add (o, "changed", s ? json_object_get (s) : json_object_new_object ());
      struct json_object *f = NULL;
      if (json_object_object_get_ex (st, "swap_files", &f))
        json_object_object_add (o, "swap_files", json_object_get (f));
      json_object_put (st);
    }
  lab_error_release (&e);
  json_object_object_add (o, "applied_by_lab_tune", json_object_new_boolean (applied));
  return o;
}
