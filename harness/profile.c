/*
 * profile.c - loads sandbox profiles (`containers/<name>.json`); see profile.h and
 * containers/README.md for the format.
 *
 * Parsing is strict: every key is known, every value has the expected type,
 * and the first problem ends the load with a usage error naming the file and
 * the field's path.  A profile that loads is complete: absent fields take the
 * documented defaults here, so the sandbox never guesses.
 */
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "cpuset.h"
#include "json-util.h"
#include "utils.h"

static const struct
{
  const char *name;
  int flag;
} namespaces[] = {
  { "pid", CLONE_NEWPID },   { "mount", CLONE_NEWNS },  { "network", CLONE_NEWNET },
  { "ipc", CLONE_NEWIPC },   { "uts", CLONE_NEWUTS },   { "cgroup", CLONE_NEWCGROUP },
};

#define RL(x) { #x, x }
static const struct
{
  const char *name;
  int resource;
} rlimit_names[] = {
  RL (RLIMIT_AS),     RL (RLIMIT_CORE),     RL (RLIMIT_CPU),    RL (RLIMIT_DATA),
  RL (RLIMIT_FSIZE),  RL (RLIMIT_LOCKS),    RL (RLIMIT_MEMLOCK), RL (RLIMIT_MSGQUEUE),
  RL (RLIMIT_NICE),   RL (RLIMIT_NOFILE),   RL (RLIMIT_NPROC),  RL (RLIMIT_RSS),
  RL (RLIMIT_RTPRIO), RL (RLIMIT_RTTIME),   RL (RLIMIT_SIGPENDING), RL (RLIMIT_STACK),
};
#undef RL

/* cgroup cpu.max quota: the kernel refuses more than about 2^44 ns. */
#define LAB_CPU_QUOTA_MAX ((1LL << 44) / 1000)

static const char *const top_keys[] = { "name", "description", "limits", "namespaces", "hostname",
                                        "seccomp", "rlimits", "timeout_s",
                                        /* profile-security.c's */
                                        "capabilities", "user", "rootfs_readonly", "tmp_size", "dev",
                                        "readonly_paths", "masked_paths", "binds", "writable", NULL };
static const char *const limit_keys[] = { "memory.max", "memory.high", "memory.swap.max",
                                          "memory.oom.group", "pids.max", "cpu.max", "cpuset.cpus",
                                          NULL };

/* A size given as a string ("2G", "max") or an integer number of bytes. */
static int
get_size (struct json_object *obj, const char *parent, const char *key, int64_t *out, lab_error_t *err)
{
  char path[LAB_JSON_PATH_MAX], what[LAB_JSON_PATH_MAX + 2];
  struct json_object *v;

  lab_json_path (path, sizeof (path), parent, key);
  if (!json_object_object_get_ex (obj, key, &v) || v == NULL)
    return 0;
  if (json_object_is_type (v, json_type_int))
    {
      /* INT64_MAX is how "max" is stored: a byte count that large is refused. */
      if (json_object_get_int64 (v) < 0 || json_object_get_int64 (v) == INT64_MAX)
        return lab_json_type_error (path, "a size (e.g. \"512M\", \"max\" or bytes 0 to 2^63-2)", v, err);
      *out = json_object_get_int64 (v);
      return 0;
    }
  if (!json_object_is_type (v, json_type_string))
    return lab_json_type_error (path, "a size (e.g. \"512M\", \"max\" or bytes >= 0)", v, err);
  snprintf (what, sizeof (what), "`%s`", path);
  return lab_parse_size (json_object_get_string (v), what, out, err);
}

/* A count given as an integer 0..max or "max". */
static int
get_count_or_max (struct json_object *obj, const char *parent, const char *key, int64_t max, int64_t *out,
                  lab_error_t *err)
{
  char path[LAB_JSON_PATH_MAX];
  struct json_object *v;

  lab_json_path (path, sizeof (path), parent, key);
  if (!json_object_object_get_ex (obj, key, &v) || v == NULL)
    return 0;
  if (json_object_is_type (v, json_type_int) && json_object_get_int64 (v) >= 0)
    {
      if (lab_json_int64_clamped (v) || json_object_get_int64 (v) > max)
        return lab_usage_error (err, "`%s`: %s is above the largest value %lld (use \"max\" for no limit)", path,
                                json_object_to_json_string (v), (long long) max);
      *out = json_object_get_int64 (v);
      return 0;
    }
  if (json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), "max") == 0)
    {
      *out = LAB_LIMIT_MAX;
      return 0;
    }
  return lab_json_type_error (path, "a non-negative integer or \"max\"", v, err);
}

/* pids.max: an integer, "max", or "auto" (the host's pids less a reserve). */
static int
get_pids_max (struct json_object *limits, int64_t *out, lab_error_t *err)
{
  struct json_object *v;
  if (json_object_object_get_ex (limits, "pids.max", &v) && json_object_is_type (v, json_type_string)
      && strcmp (json_object_get_string (v), "auto") == 0)
    {
      *out = lab_pids_auto ();
      return 0;
    }
  if (v && json_object_is_type (v, json_type_string) && strcmp (json_object_get_string (v), "max") != 0)
    return lab_json_type_error ("limits.pids.max", "a non-negative integer, \"max\" or \"auto\"", v, err);
  return get_count_or_max (limits, "limits", "pids.max", LAB_PIDS_MAX, out, err);
}

static int
check_cpu (const char *path, int64_t quota, int64_t period, lab_error_t *err)
{
  if (period < 1000 || period > 1000000)
    return lab_usage_error (err, "`%s`: period %lld us out of range (1000 to 1000000)", path,
                            (long long) period);
  if (quota != LAB_LIMIT_MAX && quota < 1000)
    return lab_usage_error (err, "`%s`: quota %lld us below the kernel's minimum of 1000", path,
                            (long long) quota);
  if (quota != LAB_LIMIT_MAX && quota > LAB_CPU_QUOTA_MAX)
    return lab_usage_error (err, "`%s`: quota %lld us above the kernel's maximum of %lld (use max)", path,
                            (long long) quota, (long long) LAB_CPU_QUOTA_MAX);
  return 0;
}

/* "QUOTA [PERIOD]", QUOTA an integer or "max".  -1 when malformed. */
static int
parse_cpu_string (const char *s, int64_t *quota, int64_t *period)
{
  char *end;

  while (isspace ((unsigned char) *s))
    s++;
  if (strncmp (s, "max", 3) == 0 && (s[3] == '\0' || isspace ((unsigned char) s[3])))
    s += 3;
  else
    {
      errno = 0;
      *quota = strtoll (s, &end, 10);
      if (errno || end == s || *quota < 0)
        return -1;
      s = end;
    }
  while (isspace ((unsigned char) *s))
    s++;
  if (*s == '\0')
    return 0;
  errno = 0;
  *period = strtoll (s, &end, 10);
  if (errno || end == s)
    return -1;
  for (s = end; isspace ((unsigned char) *s); s++)
    ;
  return *s ? -1 : 0;
}

/* "cpu.max": "QUOTA [PERIOD]" as cgroup v2 writes it (QUOTA may be "max"), or
   {"quota_us": N|"max", "period_us": N}. */
static int
parse_cpu_max (struct json_object *limits, struct lab_limits *l, lab_error_t *err)
{
  static const char *const keys[] = { "quota_us", "period_us", NULL };
  const char *path = "limits.cpu.max";
  struct json_object *v;
  int64_t quota = LAB_LIMIT_MAX, period = 100000;

  if (!json_object_object_get_ex (limits, "cpu.max", &v) || v == NULL)
    return 0;
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      if (parse_cpu_string (s, &quota, &period) < 0)
        return lab_usage_error (err, "`%s`: bad value `%s` (expected \"QUOTA PERIOD\" in us, e.g. "
                                "\"50000 100000\" or \"max 100000\")", path, s);
    }
  else if (json_object_is_type (v, json_type_object))
    {
      if (lab_json_check_keys (v, path, keys, err) < 0
          || get_count_or_max (v, path, "quota_us", LAB_CPU_QUOTA_MAX, &quota, err) < 0
          || lab_json_get_int64 (v, path, "period_us", 0, &period, NULL, err) < 0)
        return -1;
    }
  else
    return lab_json_type_error (path, "a string \"QUOTA PERIOD\" or an object {quota_us, period_us}", v,
                                err);
  if (check_cpu (path, quota, period, err) < 0)
    return -1;
  l->cpu_quota_us = quota;
  l->cpu_period_us = period;
  return 0;
}

static int
parse_cpuset (struct json_object *limits, struct lab_limits *l, lab_error_t *err)
{
  const char *s = NULL, *c;
  int found = 0;

  if (lab_json_get_string (limits, "limits", "cpuset.cpus", 0, &s, &found, err) < 0)
    return -1;
  if (!found)
    return 0;
  /* "auto": every CPU but CPU 0 (the harness's) where there are two or more,
   where the cpuset controller is usable (cpuset.h). */
  if (strcmp (s, "auto") == 0)
    {
      char list[64];
      if (!lab_cpuset_usable ())
        return 0; /* no cpuset controller here: not pinned (the point JSON's sandbox.cpuset is null) */
      lab_cpuset_auto (sysconf (_SC_NPROCESSORS_ONLN), list, sizeof list);
      l->cpuset_cpus = strdup (list);
      return l->cpuset_cpus ? 0 : lab_error (err, ENOMEM, "copying `limits.cpuset.cpus`");
    }
  /* LIST := RANGE[,RANGE]...  RANGE := N | N-M */
  for (c = s; *c;)
    {
      long a, b;
      char *end;
      if (!isdigit ((unsigned char) *c))
        goto bad;
      a = b = strtol (c, &end, 10);
      c = end;
      if (*c == '-')
        {
          if (!isdigit ((unsigned char) c[1]))
            goto bad;
          b = strtol (c + 1, &end, 10);
          c = end;
        }
      if (b < a)
        goto bad;
      if (b >= sysconf (_SC_NPROCESSORS_CONF))
        return lab_usage_error (err, "`limits.cpuset.cpus`: CPU %ld does not exist here (CPUs 0-%ld)", b,
                                sysconf (_SC_NPROCESSORS_CONF) - 1);
      if (*c == ',' && c[1] != '\0')
        c++;
      else if (*c != '\0')
        goto bad;
    }
  if (*s == '\0')
    goto bad;
  l->cpuset_cpus = strdup (s);
  return l->cpuset_cpus ? 0 : lab_error (err, ENOMEM, "copying `limits.cpuset.cpus`");
bad:
  return lab_usage_error (err, "`limits.cpuset.cpus`: bad CPU list `%s` (expected e.g. \"0-1\", \"0,2\" or \"auto\")", s);
}

static int
parse_limits (struct json_object *root, struct lab_limits *l, lab_error_t *err)
{
  struct json_object *limits, *v;

  if (lab_json_get_object (root, "", "limits", 0, &limits, err) < 0)
    return -1;
  if (limits == NULL)
    return 0;
  if (lab_json_check_keys (limits, "limits", limit_keys, err) < 0
      || get_size (limits, "limits", "memory.max", &l->memory_max, err) < 0
      || get_size (limits, "limits", "memory.high", &l->memory_high, err) < 0
      || get_size (limits, "limits", "memory.swap.max", &l->memory_swap_max, err) < 0
      || get_pids_max (limits, &l->pids_max, err) < 0
      || parse_cpu_max (limits, l, err) < 0 || parse_cpuset (limits, l, err) < 0)
    return -1;
  if (l->memory_max != LAB_LIMIT_UNSET && l->memory_max < (1 << 20))
    return lab_usage_error (err, "`limits.memory.max`: %lld bytes is below the minimum 1M (no process starts in it)",
                            (long long) l->memory_max);
  if (json_object_object_get_ex (limits, "memory.oom.group", &v) && v != NULL)
    {
      if (json_object_is_type (v, json_type_boolean))
        l->oom_group = json_object_get_boolean (v);
      else if (json_object_is_type (v, json_type_int)
               && (json_object_get_int (v) == 0 || json_object_get_int (v) == 1))
        l->oom_group = json_object_get_int (v);
      else
        return lab_json_type_error ("limits.memory.oom.group", "true, false, 0 or 1", v, err);
    }
  if (l->pids_max == 0)
    return lab_usage_error (err, "`limits.pids.max`: 0 would not even let the workload start");
  return 0;
}

static int
parse_namespaces (struct json_object *root, int *flags, lab_error_t *err)
{
  struct json_object *arr;
  size_t i, j, n;

  if (lab_json_get_array (root, "", "namespaces", 0, &arr, err) < 0)
    return -1;
  if (arr == NULL)
    {
      /* Absent: all six. */
      for (j = 0; j < ARRAY_SIZE (namespaces); j++)
        *flags |= namespaces[j].flag;
      return 0;
    }
  n = json_object_array_length (arr);
  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (arr, i);
      char path[LAB_JSON_PATH_MAX];
      const char *s;

      lab_json_path_index (path, sizeof (path), "namespaces", i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (path, "a namespace name", v, err);
      s = json_object_get_string (v);
      for (j = 0; j < ARRAY_SIZE (namespaces); j++)
        if (strcmp (s, namespaces[j].name) == 0)
          break;
      if (j == ARRAY_SIZE (namespaces))
        return lab_usage_error (err, "`%s`: unknown namespace `%s` (known: pid, mount, network, ipc, uts, "
                                "cgroup)", path, s);
      if (*flags & namespaces[j].flag)
        return lab_usage_error (err, "`%s`: namespace `%s` listed twice", path, s);
      *flags |= namespaces[j].flag;
    }
  return 0;
}

/* One rlimit value: integer, "unlimited"/"max", or a size string ("64M"). */
static int
rlimit_value (struct json_object *v, const char *path, rlim_t *out, lab_error_t *err)
{
  int64_t n;
  char what[LAB_JSON_PATH_MAX + 2];

  if (json_object_is_type (v, json_type_int) && json_object_get_int64 (v) >= 0)
    {
      if (lab_json_int64_clamped (v))
        return lab_usage_error (err, "`%s`: %s is too large (use \"unlimited\")", path,
                                json_object_to_json_string (v));
      *out = (rlim_t) json_object_get_int64 (v);
      return 0;
    }
  if (!json_object_is_type (v, json_type_string))
    return lab_json_type_error (path, "a non-negative integer, a size or \"unlimited\"", v, err);
  snprintf (what, sizeof (what), "`%s`", path);
  if (lab_parse_size (json_object_get_string (v), what, &n, err) < 0)
    return -1;
  *out = n == INT64_MAX ? RLIM_INFINITY : (rlim_t) n;
  return 0;
}

static int
parse_one_rlimit (const char *name, struct json_object *v, struct lab_rlimit *rl, lab_error_t *err)
{
  static const char *const keys[] = { "soft", "hard", NULL };
  char path[LAB_JSON_PATH_MAX], sub[LAB_JSON_PATH_MAX];
  struct json_object *s, *h;
  size_t j;

  lab_json_path (path, sizeof (path), "rlimits", name);
  for (j = 0; j < ARRAY_SIZE (rlimit_names); j++)
    if (strcmp (name, rlimit_names[j].name) == 0)
      break;
  if (j == ARRAY_SIZE (rlimit_names))
    return lab_usage_error (err, "`%s`: unknown rlimit `%s` (expected RLIMIT_NOFILE, RLIMIT_NPROC, "
                            "RLIMIT_STACK, RLIMIT_MEMLOCK, ... as in getrlimit(2))", path, name);
  rl->resource = rlimit_names[j].resource;
  if (!json_object_is_type (v, json_type_object))
    {
      /* A bare value sets soft and hard alike. */
      if (rlimit_value (v, path, &rl->soft, err) < 0)
        return -1;
      rl->hard = rl->soft;
      return 0;
    }
  if (lab_json_check_keys (v, path, keys, err) < 0)
    return -1;
  if (!json_object_object_get_ex (v, "soft", &s) || !json_object_object_get_ex (v, "hard", &h))
    return lab_usage_error (err, "`%s`: needs both `soft` and `hard`", path);
  if (rlimit_value (s, lab_json_path (sub, sizeof (sub), path, "soft"), &rl->soft, err) < 0
      || rlimit_value (h, lab_json_path (sub, sizeof (sub), path, "hard"), &rl->hard, err) < 0)
    return -1;
  if (rl->hard != RLIM_INFINITY && (rl->soft == RLIM_INFINITY || rl->soft > rl->hard))
    return lab_usage_error (err, "`%s`: soft limit above the hard limit", path);
  return 0;
}

static int
parse_rlimits (struct json_object *root, struct lab_profile *p, lab_error_t *err)
{
  struct json_object *obj;
  int i = 0;

  if (lab_json_get_object (root, "", "rlimits", 0, &obj, err) < 0)
    return -1;
  if (obj == NULL || json_object_object_length (obj) == 0)
    return 0;
  p->rlimits = calloc ((size_t) json_object_object_length (obj), sizeof (*p->rlimits));
  if (p->rlimits == NULL)
    return lab_error (err, ENOMEM, "allocating rlimits");
  json_object_object_foreach (obj, key, val)
  {
    if (parse_one_rlimit (key, val, &p->rlimits[i], err) < 0)
      return -1;
    p->n_rlimits = ++i;
  }
  return 0;
}

static int
parse_seccomp (struct json_object *root, const char *rootdir, struct lab_profile *p, lab_error_t *err)
{
  const char *s = NULL;
  struct stat st;
  int found = 0;

  if (lab_json_get_string (root, "", "seccomp", 0, &s, &found, err) < 0)
    return -1;
  if (!found)
    return 0; /* absent or null: no filter */
  if (*s == '\0')
    return lab_usage_error (err, "`seccomp`: empty path (use null for no filter)");
  if (s[0] == '/' || rootdir == NULL)
    p->seccomp_path = strdup (s);
  else if (asprintf (&p->seccomp_path, "%s/%s", rootdir, s) < 0)
    p->seccomp_path = NULL;
  if (p->seccomp_path == NULL)
    return lab_error (err, ENOMEM, "resolving `seccomp`");
  if (stat (p->seccomp_path, &st) < 0 || !S_ISREG (st.st_mode))
    return lab_usage_error (err, "`seccomp`: `%s` %s", p->seccomp_path,
                            errno == ENOENT ? "does not exist" : "is not a readable file");
  return 0;
}

static int
parse_hostname (struct json_object *root, struct lab_profile *p, lab_error_t *err)
{
  const char *s = "lab";
  const char *c;
  int found = 0;

  if (lab_json_get_string (root, "", "hostname", 0, &s, &found, err) < 0)
    return -1;
  if (found && !(p->clone_flags & CLONE_NEWUTS))
    return lab_usage_error (err, "`hostname`: needs the `uts` namespace in `namespaces`");
  if (*s == '\0' || strlen (s) > 64)
    return lab_usage_error (err, "`hostname`: `%s` must have 1 to 64 characters", s);
  for (c = s; *c; c++)
    if (!isalnum ((unsigned char) *c) && *c != '-' && *c != '.')
      return lab_usage_error (err, "`hostname`: `%s` has a character other than letters, digits, `-`, `.`", s);
  p->hostname = strdup (s);
  return p->hostname ? 0 : lab_error (err, ENOMEM, "copying `hostname`");
}

static int
parse_profile (struct json_object *root, const char *path, const char *rootdir, struct lab_profile *p,
               lab_error_t *err)
{
  const char *name = NULL, *desc = NULL;
  int found = 0;

  if (lab_json_check_keys (root, "", top_keys, err) < 0
      || lab_json_get_string (root, "", "name", 0, &name, NULL, err) < 0
      || lab_json_get_string (root, "", "description", 0, &desc, NULL, err) < 0
      || parse_limits (root, &p->limits, err) < 0 || parse_namespaces (root, &p->clone_flags, err) < 0
      || parse_hostname (root, p, err) < 0 || parse_rlimits (root, p, err) < 0
      || parse_seccomp (root, rootdir, p, err) < 0 || lab_security_parse (root, p->clone_flags, &p->sec, err) < 0
      || lab_json_get_double (root, "", "timeout_s", 0, &p->timeout_s, &found, err) < 0)
    return -1;
  if (found && !(p->timeout_s >= 0 && p->timeout_s < 1e9))
    return lab_usage_error (err, "`timeout_s`: %g is not a number of seconds >= 0", p->timeout_s);
  if (name == NULL)
    {
      /* Default name: the file's base name without ".json". */
      const char *base = strrchr (path, '/');
      base = base ? base + 1 : path;
      p->name = strndup (base, strcspn (base, "."));
    }
  else
    p->name = strdup (name);
  if (p->name == NULL || *p->name == '\0')
    return lab_usage_error (err, "`name`: empty");
  return 0;
}

int
lab_profile_load (const char *path, const char *root, struct lab_profile *out, lab_error_t *err)
{
  struct json_object *doc = NULL;
  struct lab_profile p = { 0 };
  int ret;

  p.limits = (struct lab_limits){ .memory_max = LAB_LIMIT_UNSET,
                                  .memory_high = LAB_LIMIT_UNSET,
                                  .memory_swap_max = LAB_LIMIT_UNSET,
                                  .pids_max = LAB_LIMIT_UNSET,
                                  .cpu_quota_us = LAB_LIMIT_UNSET,
                                  .cpu_period_us = LAB_LIMIT_UNSET,
                                  .cpuset_cpus = NULL,
                                  .oom_group = 1 };
  p.path = strdup (path);
  if (p.path == NULL)
    return lab_error (err, ENOMEM, "loading profile `%s`", path);
  ret = lab_json_parse_file (path, &doc, err);
  if (ret == 0)
    ret = parse_profile (doc, path, root, &p, err);
  json_object_put (doc);
  if (ret < 0)
    {
      lab_profile_free (&p);
      return lab_error_prepend (err, "profile `%s`", path);
    }
  *out = p;
  return 0;
}

void
lab_profile_free (struct lab_profile *p)
{
  if (p == NULL)
    return;
  free (p->path);
  free (p->name);
  free (p->limits.cpuset_cpus);
  free (p->hostname);
  free (p->seccomp_path);
  free (p->rlimits);
  lab_security_free (&p->sec);
  memset (p, 0, sizeof (*p));
}

/* Bytes as an integer, "max", or absent when unset. */
static void
add_limit (struct json_object *o, const char *key, int64_t v)
{
  if (v == LAB_LIMIT_UNSET)
    return;
  if (v == LAB_LIMIT_MAX)
    json_object_object_add (o, key, json_object_new_string ("max"));
  else
    json_object_object_add (o, key, json_object_new_int64 (v));
}

static struct json_object *
rlim_json (rlim_t v)
{
  if (v == RLIM_INFINITY)
    return json_object_new_string ("unlimited");
  return json_object_new_uint64 ((uint64_t) v);
}

struct json_object *
lab_profile_to_json (const struct lab_profile *p)
{
  struct json_object *o = json_object_new_object ();
  struct json_object *lim = json_object_new_object ();
  struct json_object *ns = json_object_new_array ();
  struct json_object *rl = json_object_new_object ();
  size_t j;
  int i;

  json_object_object_add (o, "name", json_object_new_string (p->name ? p->name : ""));
  json_object_object_add (o, "path", json_object_new_string (p->path ? p->path : ""));
  add_limit (lim, "memory.max", p->limits.memory_max);
  add_limit (lim, "memory.high", p->limits.memory_high);
  add_limit (lim, "memory.swap.max", p->limits.memory_swap_max);
  json_object_object_add (lim, "memory.oom.group", json_object_new_boolean (p->limits.oom_group));
  add_limit (lim, "pids.max", p->limits.pids_max);
  if (p->limits.cpu_period_us != LAB_LIMIT_UNSET)
    {
      struct json_object *cpu = json_object_new_object ();
      add_limit (cpu, "quota_us", p->limits.cpu_quota_us);
      add_limit (cpu, "period_us", p->limits.cpu_period_us);
      json_object_object_add (lim, "cpu.max", cpu);
    }
  if (p->limits.cpuset_cpus)
    json_object_object_add (lim, "cpuset.cpus", json_object_new_string (p->limits.cpuset_cpus));
  json_object_object_add (o, "limits", lim);
  for (j = 0; j < ARRAY_SIZE (namespaces); j++)
    if (p->clone_flags & namespaces[j].flag)
      json_object_array_add (ns, json_object_new_string (namespaces[j].name));
  json_object_object_add (o, "namespaces", ns);
  json_object_object_add (o, "hostname", p->hostname ? json_object_new_string (p->hostname) : NULL);
  json_object_object_add (o, "seccomp", p->seccomp_path ? json_object_new_string (p->seccomp_path) : NULL);
  for (i = 0; i < p->n_rlimits; i++)
    for (j = 0; j < ARRAY_SIZE (rlimit_names); j++)
      if (rlimit_names[j].resource == p->rlimits[i].resource)
        {
          struct json_object *r = json_object_new_object ();
          json_object_object_add (r, "soft", rlim_json (p->rlimits[i].soft));
          json_object_object_add (r, "hard", rlim_json (p->rlimits[i].hard));
          json_object_object_add (rl, rlimit_names[j].name, r);
        }
  json_object_object_add (o, "rlimits", rl);
  json_object_object_add (o, "timeout_s", json_object_new_double (p->timeout_s));
  lab_security_to_json (&p->sec, o);
  return o;
}
