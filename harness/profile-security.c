/*
 * profile-security.c - reads the confinement fields of a sandbox profile (see
 * profile-security.h; format in containers/README.md).  Absent fields take the
 * defaults of an OCI runtime (runc/crun with Docker's defaults): Docker's
 * capability set without CAP_MKNOD, the read-only root, a 64M private /tmp, a
 * minimal /dev, the OCI read-only and masked paths, nothing writable.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "json-util.h"
#include "profile-security.h"
#include "utils.h"

static const char *const oci_readonly[] = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                            "/proc/sysrq-trigger", NULL };
static const char *const oci_masked[] = { "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
                                          "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
                                          "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
                                          "/sys/devices/virtual/powercap", NULL };

#define DEFAULT_TMP_SIZE (64LL << 20)

static int
get_bool (struct json_object *root, const char *key, int *out, lab_error_t *err)
{
  struct json_object *v;
  if (!json_object_object_get_ex (root, key, &v) || v == NULL)
    return 0;
  if (!json_object_is_type (v, json_type_boolean))
    return lab_json_type_error (key, "true or false", v, err);
  *out = json_object_get_boolean (v);
  return 0;
}

static int
get_caps (struct json_object *root, uint64_t *out, lab_error_t *err)
{
  struct json_object *v;
  char p[LAB_JSON_PATH_MAX];
  if (!json_object_object_get_ex (root, "capabilities", &v) || v == NULL)
    return 0;
  if (json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), "all") == 0)
    {
      *out = lab_caps_all ();
      return 0;
    }
  if (!json_object_is_type (v, json_type_array))
    return lab_json_type_error ("capabilities", "an array of capability names or \"all\"", v, err);
  *out = 0;
  for (size_t i = 0; i < json_object_array_length (v); i++)
    {
      struct json_object *e = json_object_array_get_idx (v, i);
      lab_json_path_index (p, sizeof p, "capabilities", i);
      if (!json_object_is_type (e, json_type_string))
        return lab_json_type_error (p, "a capability name such as \"CAP_CHOWN\"", e, err);
      int c = lab_cap_from_name (json_object_get_string (e));
      if (c < 0)
        return lab_usage_error (err, "`%s`: unknown capability `%s` (names as in capabilities(7), e.g. CAP_CHOWN)",
                                p, json_object_get_string (e));
      if (*out >> c & 1)
        return lab_usage_error (err, "`%s`: `%s` listed twice", p, json_object_get_string (e));
      *out |= 1ULL << c;
    }
  return 0;
}

static int
copy_list (const char *const *src, char ***out, int *n, lab_error_t *err)
{
  int k = 0;
  while (src[k])
    k++;
  *out = calloc ((size_t) k + 1, sizeof **out);
  if (*out == NULL)
    return lab_error (err, ENOMEM, "allocating a path list");
  for (*n = 0; *n < k; (*n)++)
    if (((*out)[*n] = strdup (src[*n])) == NULL)
      return lab_error (err, ENOMEM, "allocating a path list");
  return 0;
}

/* A `..` component anywhere in `s`. */
static int
has_dotdot (const char *s)
{
  for (const char *c = s; (c = strstr (c, "..")) != NULL; c += 2)
    if ((c == s || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
      return 1;
  return 0;
}

/* An array of absolute paths without `..`; absent: `defaults`. */
static int
get_paths (struct json_object *root, const char *key, const char *const *defaults, char ***out, int *n,
           lab_error_t *err)
{
  struct json_object *arr;
  char p[LAB_JSON_PATH_MAX];
  if (lab_json_get_array (root, "", key, 0, &arr, err) < 0)
    return -1;
  if (arr == NULL)
    return copy_list (defaults, out, n, err);
  size_t len = json_object_array_length (arr);
  *out = calloc (len + 1, sizeof **out);
  if (*out == NULL)
    return lab_error (err, ENOMEM, "allocating `%s`", key);
  for (*n = 0; (size_t) *n < len; (*n)++)
    {
      struct json_object *e = json_object_array_get_idx (arr, (size_t) *n);
      lab_json_path_index (p, sizeof p, key, (size_t) *n);
      if (!json_object_is_type (e, json_type_string))
        return lab_json_type_error (p, "an absolute path", e, err);
      const char *s = json_object_get_string (e);
      if (s[0] != '/' || has_dotdot (s) || strlen (s) >= 4096
          || strlen (s) != (size_t) json_object_get_string_len (e))
        return lab_usage_error (err, "`%s`: `%s` is not an absolute path without `..`", p, s);
      if (strcmp (s, "/") == 0)
        return lab_usage_error (err, "`%s`: `/` itself is not allowed", p);
      if (((*out)[*n] = strdup (s)) == NULL)
        return lab_error (err, ENOMEM, "allocating `%s`", key);
    }
  return 0;
}

/* Binds land after /tmp is mounted and before /dev, /proc and /sys are. */
static int
check_binds (const char *key, char **l, int n, lab_error_t *err)
{
  static const char *const under[] = { "/dev", "/proc", "/sys" };
  for (int i = 0; i < n; i++)
    for (size_t j = 0; j < ARRAY_SIZE (under); j++)
      {
        size_t k = strlen (under[j]);
        if (strncmp (l[i], under[j], k) == 0 && (l[i][k] == '\0' || l[i][k] == '/'))
          return lab_usage_error (err, "`%s[%d]`: `%s` is under %s, which the sandbox mounts itself", key, i,
                                  l[i], under[j]);
      }
  return 0;
}

/* Without a mount namespace there is nothing to mount on: the file system
   fields are off, and setting one is an error rather than a silent no-op. */
static int
no_mount_ns (struct json_object *root, struct lab_security *s, lab_error_t *err)
{
  static const char *const keys[] = { "rootfs_readonly", "tmp_size", "dev", "readonly_paths",
                                      "masked_paths", "binds", "writable" };
  struct json_object *v;
  for (size_t i = 0; i < ARRAY_SIZE (keys); i++)
    if (json_object_object_get_ex (root, keys[i], &v) && v != NULL)
      return lab_usage_error (err, "`%s`: needs the `mount` namespace in `namespaces`", keys[i]);
  lab_security_free (s);
  s->caps = 0;
  return 0;
}

int
lab_security_parse (struct json_object *root, int clone_flags, struct lab_security *s, lab_error_t *err)
{
  const char *dev = "minimal";
  char what[64];
  int found = 0;
  struct json_object *v;

  *s = (struct lab_security){ .caps = lab_caps_default (), .rootfs_readonly = 1,
                              .tmp_size = DEFAULT_TMP_SIZE, .dev_minimal = 1 };
  if (get_caps (root, &s->caps, err) < 0 || get_bool (root, "user", &s->user, err) < 0
      || get_bool (root, "rootfs_readonly", &s->rootfs_readonly, err) < 0
      || lab_json_get_string (root, "", "dev", 0, &dev, &found, err) < 0)
    return -1;
  if (strcmp (dev, "minimal") == 0)
    s->dev_minimal = 1;
  else if (strcmp (dev, "host") == 0)
    s->dev_minimal = 0;
  else
    return lab_usage_error (err, "`dev`: `%s` is neither \"minimal\" nor \"host\"", dev);
  if (json_object_object_get_ex (root, "tmp_size", &v) && v != NULL)
    {
      snprintf (what, sizeof what, "`tmp_size`");
      if (json_object_is_type (v, json_type_int) && json_object_get_int64 (v) >= 0)
        s->tmp_size = json_object_get_int64 (v);
      else if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error ("tmp_size", "a size such as \"64M\" (0: no private /tmp)", v, err);
      else if (lab_parse_size (json_object_get_string (v), what, &s->tmp_size, err) < 0)
        return -1;
      if (s->tmp_size == INT64_MAX)
        return lab_usage_error (err, "`tmp_size`: `max` is not allowed: the private /tmp needs a size limit");
      if (s->tmp_size > 0 && s->tmp_size < 4096)
        return lab_usage_error (err, "`tmp_size`: %lld bytes is less than one page (0: no private /tmp)",
                                (long long) s->tmp_size);
    }
  if (get_paths (root, "readonly_paths", oci_readonly, &s->readonly_paths, &s->n_readonly, err) < 0
      || get_paths (root, "masked_paths", oci_masked, &s->masked_paths, &s->n_masked, err) < 0)
    return -1;
  static const char *const none[] = { NULL };
  if (get_paths (root, "binds", none, &s->binds, &s->n_binds, err) < 0
      || get_paths (root, "writable", none, &s->writable, &s->n_writable, err) < 0
      || check_binds ("binds", s->binds, s->n_binds, err) < 0
      || check_binds ("writable", s->writable, s->n_writable, err) < 0)
    return -1;
  if (!(clone_flags & CLONE_NEWNS))
    {
      uint64_t caps = s->caps;
      int user = s->user;
      if (no_mount_ns (root, s, err) < 0)
        return -1;
      s->caps = caps;
      s->user = user;
    }
  return 0;
}

static void
free_list (char **l, int n)
{
  for (int i = 0; l && i < n; i++)
    free (l[i]);
  free (l);
}

void
lab_security_free (struct lab_security *s)
{
  free_list (s->readonly_paths, s->n_readonly);
  free_list (s->masked_paths, s->n_masked);
  free_list (s->binds, s->n_binds);
  free_list (s->writable, s->n_writable);
  memset (s, 0, sizeof *s);
}

static struct json_object *
list_json (char **l, int n)
{
  struct json_object *a = json_object_new_array ();
  for (int i = 0; i < n; i++)
    json_object_array_add (a, json_object_new_string (l[i]));
  return a;
}

void
lab_security_to_json (const struct lab_security *s, struct json_object *o)
{
  struct json_object *caps = json_object_new_array ();
  for (int c = 0; c < LAB_CAP_MAX; c++)
    if (s->caps >> c & 1)
      json_object_array_add (caps, json_object_new_string (lab_cap_name (c)));
  json_object_object_add (o, "capabilities", caps);
  json_object_object_add (o, "user", json_object_new_boolean (s->user));
  json_object_object_add (o, "rootfs_readonly", json_object_new_boolean (s->rootfs_readonly));
  json_object_object_add (o, "tmp_size", json_object_new_int64 (s->tmp_size));
  json_object_object_add (o, "dev", json_object_new_string (s->dev_minimal ? "minimal" : "host"));
  json_object_object_add (o, "readonly_paths", list_json (s->readonly_paths, s->n_readonly));
  json_object_object_add (o, "masked_paths", list_json (s->masked_paths, s->n_masked));
  json_object_object_add (o, "binds", list_json (s->binds, s->n_binds));
  json_object_object_add (o, "writable", list_json (s->writable, s->n_writable));
}
