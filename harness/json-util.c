/* json-util.c - see json-util.h. */
#include "json-util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "json-strict.h"
#include "utils.h"

void
lab_json_line_col (const char *text, size_t offset, int *line, int *col)
{
  size_t i;

  *line = 1;
  *col = 1;
  for (i = 0; i < offset && text[i]; i++)
    {
      if (text[i] == '\n')
        {
          (*line)++;
          *col = 1;
        }
      else
        (*col)++;
    }
}

int
lab_json_parse_text (const char *text, size_t len, struct json_object **out, lab_error_t *err)
{
  struct json_tokener *tok = json_tokener_new ();
  struct json_object *obj;
  enum json_tokener_error jerr;
  size_t end;
  int line, col;

  if (tok == NULL)
    return lab_error (err, ENOMEM, "creating a json tokener");
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  obj = json_tokener_parse_ex (tok, text, (int) len);
  jerr = json_tokener_get_error (tok);
  end = json_tokener_get_parse_end (tok);
  json_tokener_free (tok);
  if (obj == NULL && jerr == json_tokener_continue)
    {
      lab_json_line_col (text, len, &line, &col);
      return lab_usage_error (err, "line %d, column %d: unexpected end of file", line, col);
    }
  if (obj == NULL)
    {
      /* The tokener's parse end is the offset of the offending character. */
      lab_json_line_col (text, end, &line, &col);
      return lab_usage_error (err, "line %d, column %d: %s", line, col, json_tokener_error_desc (jerr));
    }
  while (end < len && strchr (" \t\r\n", text[end]))
    end++;
  if (end < len)
    {
      json_object_put (obj);
      lab_json_line_col (text, end, &line, &col);
      return lab_usage_error (err, "line %d, column %d: unexpected text after the top-level value", line,
                              col);
    }
  if (!json_object_is_type (obj, json_type_object))
    {
      json_object_put (obj);
      return lab_usage_error (err, "the top-level value must be a JSON object");
    }
  if (lab_json_check_strict (text, len, err) < 0)
    {
      json_object_put (obj);
      return -1;
    }
  *out = obj;
  return 0;
}

static const char *
file_kind (mode_t m)
{
  if (S_ISDIR (m))
    return "a directory";
  if (S_ISFIFO (m))
    return "a FIFO";
  if (S_ISCHR (m))
    return "a character device";
  if (S_ISBLK (m))
    return "a block device";
  if (S_ISSOCK (m))
    return "a socket";
  return "not a regular file";
}

int
lab_read_regular_file (const char *path, size_t max, char **out, size_t *len, lab_error_t *err)
{
  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever. */
  cleanup_close int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  cleanup_free char *buf = NULL;
  size_t n = 0;

  if (fd < 0)
    {
      int e = errno;
      lab_error (err, e, "opening `%s`", path);
      if (err && *err && (e == ENOENT || e == ENOTDIR || e == EISDIR || e == EACCES || e == ELOOP))
        (*err)->exit_code = LAB_EXIT_USAGE; /* a file the user named: bad input */
      return -1;
    }
  if (fstat (fd, &st) < 0)
    return lab_error (err, errno, "stat `%s`", path);
  if (!S_ISREG (st.st_mode))
    return lab_usage_error (err, "`%s` is %s (a regular file is needed)", path, file_kind (st.st_mode));
  if ((uintmax_t) st.st_size > max)
    return lab_usage_error (err, "`%s` is %lld bytes, more than the %zu allowed", path, (long long) st.st_size, max);
  buf = malloc (max + 2);
  if (buf == NULL)
    return lab_error (err, ENOMEM, "reading `%s`", path);
  /* Read up to max + 1 bytes: a file that grew since fstat is refused too. */
  while (n <= max)
    {
      ssize_t r = read (fd, buf + n, max + 1 - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return lab_error (err, errno, "reading `%s`", path);
      if (r == 0)
        break;
      n += (size_t) r;
    }
  if (n > max)
    return lab_usage_error (err, "`%s` grew past the %zu bytes allowed while being read", path, max);
  buf[n] = '\0';
  *out = take_ptr (buf);
  *len = n;
  return 0;
}

int
lab_json_parse_file_max (const char *path, size_t max, struct json_object **out, lab_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t len = 0;

  if (lab_read_regular_file (path, max, &text, &len, err) < 0)
    return -1;
  if (strlen (text) != len)
    return lab_usage_error (err, "the file holds a NUL byte");
  return lab_json_parse_text (text, len, out, err);
}

int
lab_json_parse_file (const char *path, struct json_object **out, lab_error_t *err)
{
  return lab_json_parse_file_max (path, LAB_JSON_INPUT_MAX, out, err);
}

const char *
lab_json_path (char *buf, size_t len, const char *parent, const char *key)
{
  if (parent == NULL || *parent == '\0')
    snprintf (buf, len, "%s", key);
  else
    snprintf (buf, len, "%s.%s", parent, key);
  return buf;
}

const char *
lab_json_path_index (char *buf, size_t len, const char *parent, size_t index)
{
  snprintf (buf, len, "%s[%zu]", parent ? parent : "", index);
  return buf;
}

int
lab_json_check_keys (struct json_object *obj, const char *path, const char *const *allowed,
                     lab_error_t *err)
{
  json_object_object_foreach (obj, key, val)
  {
    const char *const *a;
    char p[LAB_JSON_PATH_MAX], list[512] = "";
    size_t used = 0;

    (void) val;
    for (a = allowed; *a; a++)
      if (strcmp (*a, key) == 0)
        break;
    if (*a)
      continue;
    for (a = allowed; *a && used < sizeof (list); a++)
      used += (size_t) snprintf (list + used, sizeof (list) - used, "%s`%s`", a == allowed ? "" : ", ", *a);
    return lab_usage_error (err, "`%s`: unknown field (known fields: %s)",
                            lab_json_path (p, sizeof (p), path, key), list);
  }
  return 0;
}

int
lab_json_type_error (const char *path, const char *what, struct json_object *v, lab_error_t *err)
{
  const char *s = json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN);
  const char *type = json_type_to_name (json_object_get_type (v));

  if (strlen (s) > 60)
    return lab_usage_error (err, "`%s`: expected %s, got %s `%.57s...`", path, what, type, s);
  return lab_usage_error (err, "`%s`: expected %s, got %s `%s`", path, what, type, s);
}

/* Looks up obj[key]: 1 found (non-null), 0 absent (error if required). */
static int
lookup (struct json_object *obj, const char *parent, const char *key, int required,
        struct json_object **v, char *path, size_t plen, lab_error_t *err)
{
  lab_json_path (path, plen, parent, key);
  if (!json_object_object_get_ex (obj, key, v) || *v == NULL)
    {
      if (required)
        return lab_usage_error (err, "`%s`: missing (required)", path);
      return 0;
    }
  return 1;
}

#define LOOKUP_OR_RETURN(type_ok, what)                                                  \
  char path[LAB_JSON_PATH_MAX];                                                         \
  struct json_object *v = NULL;                                                         \
  int r = lookup (obj, parent, key, required, &v, path, sizeof (path), err);            \
  if (found)                                                                            \
    *found = r > 0;                                                                     \
  if (r <= 0)                                                                           \
    return r;                                                                           \
  if (!(type_ok))                                                                       \
    return lab_json_type_error (path, what, v, err)

int
lab_json_get_string (struct json_object *obj, const char *parent, const char *key, int required,
                     const char **out, int *found, lab_error_t *err)
{
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_string), "a string");
  *out = json_object_get_string (v);
  if (strlen (*out) != (size_t) json_object_get_string_len (v))
    return lab_usage_error (err, "`%s`: `%s\\u0000...` holds a NUL character", path, *out);
  return 0;
}

int
lab_json_int64_clamped (struct json_object *v)
{
  /* json-c keeps 2^63 .. 2^64-1 as uint64 and get_int64 returns INT64_MAX. */
  return json_object_is_type (v, json_type_int) && json_object_get_int64 (v) == INT64_MAX
         && json_object_get_uint64 (v) != (uint64_t) INT64_MAX;
}

int
lab_json_get_int64 (struct json_object *obj, const char *parent, const char *key, int required,
                    int64_t *out, int *found, lab_error_t *err)
{
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_int), "an integer");
  if (lab_json_int64_clamped (v))
    return lab_json_type_error (path, "an integer below 2^63", v, err);
  *out = json_object_get_int64 (v);
  return 0;
}

int
lab_json_get_uint64 (struct json_object *obj, const char *parent, const char *key, int required,
                     uint64_t *out, int *found, lab_error_t *err)
{
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_int), "a non-negative integer");
  if (json_object_get_int64 (v) < 0)
    return lab_json_type_error (path, "a non-negative integer", v, err);
  *out = json_object_get_uint64 (v);
  return 0;
}

int
lab_json_get_double (struct json_object *obj, const char *parent, const char *key, int required,
                     double *out, int *found, lab_error_t *err)
{
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double),
                    "a number");
  *out = json_object_get_double (v);
  return 0;
}

int
lab_json_get_object (struct json_object *obj, const char *parent, const char *key, int required,
                     struct json_object **out, lab_error_t *err)
{
  int *found = NULL;
  *out = NULL;
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_object), "an object");
  *out = v;
  return 0;
}

int
lab_json_get_array (struct json_object *obj, const char *parent, const char *key, int required,
                    struct json_object **out, lab_error_t *err)
{
  int *found = NULL;
  *out = NULL;
  LOOKUP_OR_RETURN (json_object_is_type (v, json_type_array), "an array");
  *out = v;
  return 0;
}
