/* results.c - CSV and JSON writers and readers for the results layout (see results.h). */
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "utf8.h"
#include "utils.h"

const char *const lab_summary_columns[] = {
  "experiment", "variant", "n", "repeat", "status", "wall_s", "cpu_user_s", "cpu_sys_s",
  "rss_peak_bytes", "vss_peak_bytes", "swap_peak_bytes", "cgroup_mem_peak_bytes", "kernel_mem_bytes",
  "vol_ctxsw", "invol_ctxsw", "ops", "ops_per_s", "lat_p50_ns", "lat_p99_ns", "lat_p999_ns",
  "lat_max_ns", "rss_baseline_bytes", "cgroup_baseline_bytes", "start_lat_p50_ns", "start_lat_p99_ns", NULL,
};

void
lab_csv_field (FILE *out, const char *s)
{
  if (strpbrk (s, ",\"\n\r") == NULL)
    {
      fputs (s, out);
      return;
    }
  fputc ('"', out);
  for (; *s; s++)
    {
      if (*s == '"')
        fputc ('"', out);
      fputc (*s, out);
    }
  fputc ('"', out);
}

static void
csv_value (FILE *out, struct json_object *v)
{
  char buf[64];

  switch (json_object_get_type (v))
    {
    case json_type_null: break;
    case json_type_int: fprintf (out, "%lld", (long long) json_object_get_int64 (v)); break;
    case json_type_double:
      {
        double d = json_object_get_double (v);
        if (isfinite (d))
          {
            snprintf (buf, sizeof (buf), "%.6g", d);
            fputs (buf, out);
          }
        break;
      }
    case json_type_boolean: fputs (json_object_get_boolean (v) ? "true" : "false", out); break;
    default: lab_csv_field (out, json_object_get_string (v)); break;
    }
}

int
lab_csv_write (const char *path, struct json_object *const *rows, size_t n, lab_error_t *err)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream (&buf, &len);
  int ret;

  if (out == NULL)
    return lab_error (err, errno, "writing `%s`", path);
  for (int c = 0; lab_summary_columns[c]; c++)
    fprintf (out, "%s%s", c ? "," : "", lab_summary_columns[c]);
  fputc ('\n', out);
  for (size_t i = 0; i < n; i++)
    {
      for (int c = 0; lab_summary_columns[c]; c++)
        {
          struct json_object *v = NULL;
          if (c)
            fputc (',', out);
          if (json_object_object_get_ex (rows[i], lab_summary_columns[c], &v) && v)
            csv_value (out, v);
        }
      fputc ('\n', out);
    }
  fclose (out);
  {
    /* Strings from workloads may hold any bytes: U+FFFD for invalid UTF-8. */
    size_t vlen = 0;
    cleanup_free char *valid = lab_utf8_valid (buf, len, "\xef\xbf\xbd", &vlen);
    free (buf);
    if (valid == NULL)
      return lab_error (err, ENOMEM, "writing `%s`", path);
    ret = lab_write_file_atomic (path, valid, vlen, err);
  }
  return ret;
}

/* Splits one CSV record starting at *p; returns an array of strings. */
static struct json_object *
csv_record (const char **p)
{
  struct json_object *fields = json_object_new_array ();
  const char *s = *p;

  for (;;)
    {
      char *buf = NULL;
      size_t len = 0;
      FILE *f = open_memstream (&buf, &len);
      if (*s == '"')
        {
          s++;
          while (*s && !(*s == '"' && s[1] != '"'))
            {
              if (*s == '"')
                s++;
              fputc (*s++, f);
            }
          if (*s == '"')
            s++;
        }
      else
        while (*s && *s != ',' && *s != '\n' && *s != '\r')
          fputc (*s++, f);
      fclose (f);
      json_object_array_add (fields, json_object_new_string (buf));
      free (buf);
      if (*s == ',')
        {
          s++;
          continue;
        }
      while (*s == '\r' || *s == '\n')
        s++;
      break;
    }
  *p = s;
  return fields;
}

int
lab_csv_read (const char *path, struct json_object **rows, lab_error_t *err)
{
  cleanup_free char *data = NULL;
  struct json_object *header, *out;
  const char *p;
  int line = 1;

  size_t len = 0;

  /* A results file, but still a path the user named: regular files only. */
  if (lab_read_regular_file (path, 64u << 20, &data, &len, err) < 0)
    return -1;
  p = data;
  header = csv_record (&p);
  out = json_object_new_array ();
  while (*p)
    {
      struct json_object *rec = csv_record (&p), *row;
      line++;
      if (json_object_array_length (rec) != json_object_array_length (header))
        {
          json_object_put (rec);
          json_object_put (header);
          json_object_put (out);
          return lab_usage_error (err, "`%s` line %d: %zu fields, the header has %zu", path, line,
                                  json_object_array_length (rec), json_object_array_length (header));
        }
      row = json_object_new_object ();
      for (size_t i = 0; i < json_object_array_length (header); i++)
        json_object_object_add (row, json_object_get_string (json_object_array_get_idx (header, i)),
                                json_object_get (json_object_array_get_idx (rec, i)));
      json_object_put (rec);
      json_object_array_add (out, row);
    }
  json_object_put (header);
  *rows = out;
  return 0;
}

char *
lab_json_text_valid (const char *s, size_t *len)
{
  /* json-c copies a string's bytes as they are; "\ufffd" keeps the text
     valid UTF-8 (and valid JSON: it is ASCII inside a string). */
  cleanup_free char *withnl = NULL;

  if (asprintf (&withnl, "%s\n", s) < 0)
    return NULL;
  return lab_utf8_valid (withnl, strlen (withnl), "\\ufffd", len);
}

int
lab_json_write (const char *path, struct json_object *o, lab_error_t *err)
{
  cleanup_free char *withnl = NULL;
  const char *s;
  size_t len = 0;

  s = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
  if (s == NULL || (withnl = lab_json_text_valid (s, &len)) == NULL)
    return lab_error (err, ENOMEM, "writing `%s`", path);
  return lab_write_file_atomic (path, withnl, len, err);
}

int
lab_json_read (const char *path, struct json_object **out, lab_error_t *err)
{
  /* Results the lab wrote: larger than a profile may be (samples, histograms). */
  if (lab_json_parse_file_max (path, 64u << 20, out, err) < 0)
    return lab_error_prepend (err, "`%s`", path);
  return 0;
}
