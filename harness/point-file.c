/* point-file.c - see point-file.h. */
#include "point-file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"
#include "status.h"

static const char *
get_str (struct json_object *o, const char *key)
{
  struct json_object *v;

  if (!json_object_object_get_ex (o, key, &v) || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

static const char *
check (struct json_object *o, const char *id)
{
  struct json_object *summary;
  const char *s, *st;

  if ((s = get_str (o, "id")) == NULL)
    return "no `id`";
  if (strcmp (s, id) != 0)
    return "`id` names another point";
  if ((st = get_str (o, "status")) == NULL || lab_status_find (st) == NULL)
    return "no known `status`";
  if (!json_object_object_get_ex (o, "summary", &summary) || !json_object_is_type (summary, json_type_object))
    return "no `summary`";
  if ((s = get_str (summary, "status")) == NULL || strcmp (s, st) != 0)
    return "`summary.status` missing or different from `status`";
  if (get_str (o, "finished_at") == NULL)
    return "no `finished_at` (the point did not finish)";
  return NULL;
}

enum lab_point_file
lab_point_file_load (const char *path, const char *id, struct json_object **out, char *why, size_t why_len)
{
  struct json_object *o = NULL;
  lab_error_t err = NULL;
  struct stat st;
  const char *problem;

  *out = NULL;
  if (lstat (path, &st) < 0 && errno == ENOENT)
    return LAB_POINT_ABSENT;
  if (lab_json_read (path, &o, &err) < 0)
    {
      snprintf (why, why_len, "%s", err && err->msg ? err->msg : "unreadable");
      lab_error_release (&err);
      return LAB_POINT_INCOMPLETE;
    }
  if ((problem = check (o, id)) != NULL)
    {
      snprintf (why, why_len, "%s", problem);
      json_object_put (o);
      return LAB_POINT_INCOMPLETE;
    }
  *out = o;
  return LAB_POINT_COMPLETE;
}
