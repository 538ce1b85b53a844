/*
 * seccomp-profile.c - Docker/OCI-format seccomp profiles (`seccomp/<name>.json`)
 * turned into a libseccomp filter; see seccomp-profile.h and seccomp/README.md.
 *
 * What is read, and how it maps to libseccomp:
 *   defaultAction (+ defaultErrnoRet)   -> seccomp_init (ERRNO without a number: EPERM)
 *   architectures[] | archMap[]         -> seccomp_arch_add for the native architecture's
 *                                          compatible ABIs (x86_64: x86, x32); other
 *                                          architectures cannot run here and are skipped
 *   syscalls[].names[] (or .name)       -> seccomp_syscall_resolve_name; a name libseccomp
 *                                          does not know is skipped with one warning per file
 *   syscalls[].action (+ errnoRet)      -> the rule's action (ERRNO without a number: EPERM)
 *   syscalls[].args[]                   -> scmp_arg_cmp {index, op, value, valueTwo}; all ANDed
 *                                          in one rule, unless an index repeats: then one rule
 *                                          per comparison (ORed), as runc does
 *   syscalls[].includes / excludes      -> evaluated as Docker does: `arches` against this
 *                                          machine (Docker's names: amd64, x86, x32, arm64 ...),
 *                                          `minKernel` against uname, `caps` against the
 *                                          calling process's effective capabilities (the
 *                                          workload keeps them across exec as root); one warning
 *                                          per file says caps were evaluated that way
 *   flags[]                             -> SCMP_FLTATR_CTL_TSYNC / _LOG / _SSB
 * A rule whose action equals the default action is skipped (libseccomp rejects
 * it and it would change nothing).  SCMP_ACT_NOTIFY and listenerPath need a
 * user-space listener the lab does not run: usage errors.
 */
#include "seccomp-profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "caps.h"
#include "json-util.h"
#include "utils.h"

struct parse_state
{
  const char *path;
  int quiet;
  scmp_filter_ctx ctx;
  uint32_t default_action;
  uint32_t native;         /* SCMP_ARCH_* of this machine */
  int kernel_major, kernel_minor;
  uint64_t cap_eff;        /* effective capabilities of the caller */
  int caps_used;           /* some includes/excludes named caps */
  char unknown[1024];      /* syscall names libseccomp does not know */
  size_t unknown_len;
  int n_unknown;
};

/* ---- tables ------------------------------------------------------------- */

static const struct
{
  const char *name;
  uint32_t arch;
  const char *docker; /* the name Docker's includes/excludes `arches` use */
} arches[] = {
  { "SCMP_ARCH_X86", SCMP_ARCH_X86, "x86" },
  { "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64, "amd64" },
  { "SCMP_ARCH_X32", SCMP_ARCH_X32, "x32" },
  { "SCMP_ARCH_ARM", SCMP_ARCH_ARM, "arm" },
  { "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64, "arm64" },
  { "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS, "mips" },
  { "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64, "mips64" },
  { "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32, "mips64n32" },
  { "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL, "mipsel" },
  { "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64, "mipsel64" },
  { "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32, "mipsel64n32" },
  { "SCMP_ARCH_PPC", SCMP_ARCH_PPC, "ppc" },
  { "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64, "ppc64" },
  { "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE, "ppc64le" },
  { "SCMP_ARCH_S390", SCMP_ARCH_S390, "s390" },
  { "SCMP_ARCH_S390X", SCMP_ARCH_S390X, "s390x" },
  { "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC, "parisc" },
  { "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64, "parisc64" },
  { "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64, "riscv64" },
};

/* ABIs a process on the native architecture can use (besides the native one). */
static const struct
{
  uint32_t native, compat[2];
} compat_abis[] = {
  { SCMP_ARCH_X86_64, { SCMP_ARCH_X86, SCMP_ARCH_X32 } },
  { SCMP_ARCH_AARCH64, { SCMP_ARCH_ARM, 0 } },
  { SCMP_ARCH_MIPS64, { SCMP_ARCH_MIPS, SCMP_ARCH_MIPS64N32 } },
  { SCMP_ARCH_MIPS64N32, { SCMP_ARCH_MIPS, SCMP_ARCH_MIPS64 } },
  { SCMP_ARCH_MIPSEL64, { SCMP_ARCH_MIPSEL, SCMP_ARCH_MIPSEL64N32 } },
  { SCMP_ARCH_MIPSEL64N32, { SCMP_ARCH_MIPSEL, SCMP_ARCH_MIPSEL64 } },
  { SCMP_ARCH_S390X, { SCMP_ARCH_S390, 0 } },
  { SCMP_ARCH_PPC64, { SCMP_ARCH_PPC, 0 } },
  { SCMP_ARCH_PARISC64, { SCMP_ARCH_PARISC, 0 } },
};

static const struct
{
  const char *name;
  enum scmp_compare op;
} ops[] = {
  { "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT }, { "SCMP_CMP_LE", SCMP_CMP_LE },
  { "SCMP_CMP_EQ", SCMP_CMP_EQ }, { "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
  { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static const char *const top_keys[] = { "defaultAction", "defaultErrnoRet", "architectures", "archMap",
                                        "syscalls", "flags", "listenerPath", "listenerMetadata", NULL };
static const char *const rule_keys[] = { "names", "name", "action", "errnoRet", "args", "comment",
                                         "includes", "excludes", NULL };
static const char *const arg_keys[] = { "index", "value", "valueTwo", "op", NULL };
static const char *const filter_keys[] = { "arches", "caps", "minKernel", NULL };
static const char *const archmap_keys[] = { "architecture", "subArchitectures", NULL };

/* ---- actions ------------------------------------------------------------ */

/* Action names without an errno return (a name is checked before its errnoRet). */
#define KNOWN_ACTIONS " SCMP_ACT_KILL SCMP_ACT_KILL_THREAD SCMP_ACT_KILL_PROCESS SCMP_ACT_TRAP SCMP_ACT_ALLOW SCMP_ACT_LOG SCMP_ACT_NOTIFY "

static int
known_action (const char *name)
{
  char word[80];
  snprintf (word, sizeof word, " %s ", name);
  return strstr (KNOWN_ACTIONS, word) != NULL;
}

/* Parses an action name; `errno_ret` < 0 when the profile gave none. */
static int
parse_action (const char *path, const char *name, int64_t errno_ret, uint32_t *out, lab_error_t *err)
{
  int has_ret = errno_ret >= 0;

  if (has_ret && errno_ret > 4095)
    return lab_usage_error (err, "`%s`: errno %lld out of range (0 to 4095)", path, (long long) errno_ret);
  if (strcmp (name, "SCMP_ACT_ERRNO") == 0)
    *out = SCMP_ACT_ERRNO (has_ret ? (uint16_t) errno_ret : EPERM);
  else if (strcmp (name, "SCMP_ACT_TRACE") == 0)
    *out = SCMP_ACT_TRACE (has_ret ? (uint16_t) errno_ret : EPERM);
  else if (has_ret && known_action (name))
    return lab_usage_error (err, "`%s`: an errno return only goes with SCMP_ACT_ERRNO or SCMP_ACT_TRACE, "
                            "not `%s`", path, name);
  else if (strcmp (name, "SCMP_ACT_KILL") == 0 || strcmp (name, "SCMP_ACT_KILL_THREAD") == 0)
    *out = SCMP_ACT_KILL_THREAD;
  else if (strcmp (name, "SCMP_ACT_KILL_PROCESS") == 0)
    *out = SCMP_ACT_KILL_PROCESS;
  else if (strcmp (name, "SCMP_ACT_TRAP") == 0)
    *out = SCMP_ACT_TRAP;
  else if (strcmp (name, "SCMP_ACT_ALLOW") == 0)
    *out = SCMP_ACT_ALLOW;
  else if (strcmp (name, "SCMP_ACT_LOG") == 0)
    *out = SCMP_ACT_LOG;
  else if (strcmp (name, "SCMP_ACT_NOTIFY") == 0)
    return lab_usage_error (err, "`%s`: `SCMP_ACT_NOTIFY` is unsupported (it needs a user-space "
                            "listener the lab does not run)", path);
  else
    return lab_usage_error (err, "`%s`: unknown action `%s` (expected SCMP_ACT_ALLOW, SCMP_ACT_ERRNO, "
                            "SCMP_ACT_KILL, SCMP_ACT_KILL_PROCESS, SCMP_ACT_KILL_THREAD, SCMP_ACT_TRAP, "
                            "SCMP_ACT_TRACE or SCMP_ACT_LOG)", path, name);
  return 0;
}

/* ---- architectures ------------------------------------------------------ */

static int
arch_lookup (const char *path, const char *name, uint32_t *out, lab_error_t *err)
{
  size_t i;

  if (strncmp (name, "SCMP_ARCH_", 10) != 0)
    return lab_usage_error (err, "`%s`: `%s` is not an architecture name (expected SCMP_ARCH_...)", path, name);
  for (i = 0; i < ARRAY_SIZE (arches); i++)
    if (strcmp (arches[i].name, name) == 0)
      {
        *out = arches[i].arch;
        return 1;
      }
  return 0; /* an architecture this libseccomp does not know: cannot be ours, skip */
}

static int
is_compatible (uint32_t native, uint32_t arch)
{
  size_t i;

  if (arch == native)
    return 1;
  for (i = 0; i < ARRAY_SIZE (compat_abis); i++)
    if (compat_abis[i].native == native)
      return arch != 0 && (compat_abis[i].compat[0] == arch || compat_abis[i].compat[1] == arch);
  return 0;
}

static int
add_arch (struct parse_state *st, const char *path, const char *name, lab_error_t *err)
{
  uint32_t arch = 0;
  int ret = arch_lookup (path, name, &arch, err);

  if (ret <= 0 || !is_compatible (st->native, arch) || arch == st->native)
    return ret < 0 ? -1 : 0;
  ret = seccomp_arch_add (st->ctx, arch);
  if (ret < 0 && ret != -EEXIST)
    return lab_error (err, -ret, "`%s`: adding architecture `%s`", path, name);
  return 0;
}

static int
parse_string_array (struct json_object *arr, const char *path, struct parse_state *st,
                    int (*fn) (struct parse_state *, const char *, const char *, lab_error_t *),
                    lab_error_t *err)
{
  size_t i, n = json_object_array_length (arr);

  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (arr, i);
      char p[LAB_JSON_PATH_MAX];

      lab_json_path_index (p, sizeof (p), path, i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (p, "a string", v, err);
      if (fn (st, p, json_object_get_string (v), err) < 0)
        return -1;
    }
  return 0;
}

static int
parse_arches (struct json_object *root, struct parse_state *st, lab_error_t *err)
{
  struct json_object *list, *map;
  size_t i, n;

  if (lab_json_get_array (root, "", "architectures", 0, &list, err) < 0
      || lab_json_get_array (root, "", "archMap", 0, &map, err) < 0)
    return -1;
  if (list && map && json_object_array_length (list) && json_object_array_length (map))
    return lab_usage_error (err, "`architectures` and `archMap` are both given: use one of them");
  if (list && parse_string_array (list, "architectures", st, add_arch, err) < 0)
    return -1;
  n = map ? json_object_array_length (map) : 0;
  for (i = 0; i < n; i++)
    {
      struct json_object *e = json_object_array_get_idx (map, i), *subs;
      char p[LAB_JSON_PATH_MAX], sp[LAB_JSON_PATH_MAX];
      const char *name;
      uint32_t arch = 0;
      int known;

      lab_json_path_index (p, sizeof (p), "archMap", i);
      if (!json_object_is_type (e, json_type_object))
        return lab_json_type_error (p, "an object {architecture, subArchitectures}", e, err);
      if (lab_json_check_keys (e, p, archmap_keys, err) < 0
          || lab_json_get_string (e, p, "architecture", 1, &name, NULL, err) < 0
          || lab_json_get_array (e, p, "subArchitectures", 0, &subs, err) < 0)
        return -1;
      known = arch_lookup (lab_json_path (sp, sizeof (sp), p, "architecture"), name, &arch, err);
      if (known < 0)
        return -1;
      lab_json_path (sp, sizeof (sp), p, "subArchitectures");
      /* Only the entry for this machine matters; the others still get their names checked. */
      if (known && arch == st->native && subs)
        {
          if (parse_string_array (subs, sp, st, add_arch, err) < 0)
            return -1;
        }
      else if (subs)
        {
          size_t j;
          for (j = 0; j < json_object_array_length (subs); j++)
            {
              struct json_object *v = json_object_array_get_idx (subs, j);
              char ep[LAB_JSON_PATH_MAX];
              lab_json_path_index (ep, sizeof (ep), sp, j);
              if (!json_object_is_type (v, json_type_string))
                return lab_json_type_error (ep, "a string", v, err);
              if (arch_lookup (ep, json_object_get_string (v), &arch, err) < 0)
                return -1;
            }
        }
    }
  return 0;
}

/* ---- includes / excludes ------------------------------------------------ */

static const char *
native_docker_arch (uint32_t native)
{
  size_t i;
  for (i = 0; i < ARRAY_SIZE (arches); i++)
    if (arches[i].arch == native)
      return arches[i].docker;
  return "";
}

/* What one includes/excludes object says about this machine. */
struct condition
{
  int has_arches, arch_listed;      /* this machine's Docker arch name is listed */
  int has_caps, caps_all, caps_any; /* the caller holds all / any of the listed caps */
  int has_kernel, kernel_ge;        /* the kernel is at least minKernel */
};

static int
eval_arches (struct parse_state *st, struct json_object *c, const char *path, struct condition *r,
             lab_error_t *err)
{
  struct json_object *arr;
  char ap[LAB_JSON_PATH_MAX], p[LAB_JSON_PATH_MAX];
  size_t i, n;

  if (lab_json_get_array (c, path, "arches", 0, &arr, err) < 0)
    return -1;
  n = arr ? json_object_array_length (arr) : 0;
  r->has_arches = n > 0;
  lab_json_path (ap, sizeof (ap), path, "arches");
  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (arr, i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (lab_json_path_index (p, sizeof (p), ap, i), "a string", v, err);
      r->arch_listed |= strcmp (json_object_get_string (v), native_docker_arch (st->native)) == 0;
    }
  return 0;
}

static int
eval_caps (struct parse_state *st, struct json_object *c, const char *path, struct condition *r,
           lab_error_t *err)
{
  struct json_object *arr;
  char cp[LAB_JSON_PATH_MAX], p[LAB_JSON_PATH_MAX];
  size_t i, n;

  if (lab_json_get_array (c, path, "caps", 0, &arr, err) < 0)
    return -1;
  n = arr ? json_object_array_length (arr) : 0;
  r->has_caps = n > 0;
  r->caps_all = 1;
  lab_json_path (cp, sizeof (cp), path, "caps");
  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (arr, i);
      int held, j;

      lab_json_path_index (p, sizeof (p), cp, i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (p, "a capability name", v, err);
      j = lab_cap_from_name (json_object_get_string (v));
      if (j < 0)
        return lab_usage_error (err, "`%s`: unknown capability `%s`", p, json_object_get_string (v));
      st->caps_used = 1;
      held = (st->cap_eff >> j) & 1;
      r->caps_all &= held;
      r->caps_any |= held;
    }
  return 0;
}

static int
eval_condition (struct parse_state *st, struct json_object *c, const char *path, struct condition *r,
                lab_error_t *err)
{
  const char *mk = NULL;
  char p[LAB_JSON_PATH_MAX];

  memset (r, 0, sizeof (*r));
  if (lab_json_check_keys (c, path, filter_keys, err) < 0 || eval_arches (st, c, path, r, err) < 0
      || eval_caps (st, c, path, r, err) < 0
      || lab_json_get_string (c, path, "minKernel", 0, &mk, NULL, err) < 0)
    return -1;
  if (mk)
    {
      int maj, min = 0;
      if (sscanf (mk, "%d.%d", &maj, &min) < 1)
        return lab_usage_error (err, "`%s`: bad kernel version `%s` (expected e.g. \"4.8\")",
                                lab_json_path (p, sizeof (p), path, "minKernel"), mk);
      r->has_kernel = 1;
      r->kernel_ge = st->kernel_major > maj || (st->kernel_major == maj && st->kernel_minor >= min);
    }
  return 0;
}

/* Docker's rule: a rule applies when every `includes` condition holds (this
   arch listed, all caps held, kernel >= minKernel) and no `excludes` one does
   (this arch listed, any cap held, kernel >= minKernel). */
static int
rule_applies (struct parse_state *st, struct json_object *rule, const char *path, int *applies,
              lab_error_t *err)
{
  struct json_object *inc, *exc;
  struct condition c;
  char p[LAB_JSON_PATH_MAX];

  *applies = 1;
  if (lab_json_get_object (rule, path, "includes", 0, &inc, err) < 0
      || lab_json_get_object (rule, path, "excludes", 0, &exc, err) < 0)
    return -1;
  if (inc)
    {
      if (eval_condition (st, inc, lab_json_path (p, sizeof (p), path, "includes"), &c, err) < 0)
        return -1;
      if ((c.has_arches && !c.arch_listed) || (c.has_caps && !c.caps_all) || (c.has_kernel && !c.kernel_ge))
        *applies = 0;
    }
  if (exc)
    {
      if (eval_condition (st, exc, lab_json_path (p, sizeof (p), path, "excludes"), &c, err) < 0)
        return -1;
      if ((c.has_arches && c.arch_listed) || (c.has_caps && c.caps_any) || (c.has_kernel && c.kernel_ge))
        *applies = 0;
    }
  return 0;
}

/* ---- rules -------------------------------------------------------------- */

static int
parse_args (struct json_object *rule, const char *path, struct scmp_arg_cmp *cmp, unsigned *n_cmp,
            int *repeated, lab_error_t *err)
{
  struct json_object *arr;
  char ap[LAB_JSON_PATH_MAX];
  unsigned seen = 0;
  size_t i, n;

  *n_cmp = 0;
  *repeated = 0;
  if (lab_json_get_array (rule, path, "args", 0, &arr, err) < 0)
    return -1;
  n = arr ? json_object_array_length (arr) : 0;
  lab_json_path (ap, sizeof (ap), path, "args");
  if (n > 6)
    return lab_usage_error (err, "`%s`: %zu comparisons (at most 6)", ap, n);
  for (i = 0; i < n; i++)
    {
      struct json_object *a = json_object_array_get_idx (arr, i);
      char p[LAB_JSON_PATH_MAX], opp[LAB_JSON_PATH_MAX];
      uint64_t index = 0, value = 0, value2 = 0;
      const char *op;
      size_t j;

      lab_json_path_index (p, sizeof (p), ap, i);
      if (!json_object_is_type (a, json_type_object))
        return lab_json_type_error (p, "an object {index, value, valueTwo, op}", a, err);
      if (lab_json_check_keys (a, p, arg_keys, err) < 0
          || lab_json_get_uint64 (a, p, "index", 1, &index, NULL, err) < 0
          || lab_json_get_uint64 (a, p, "value", 0, &value, NULL, err) < 0
          || lab_json_get_uint64 (a, p, "valueTwo", 0, &value2, NULL, err) < 0
          || lab_json_get_string (a, p, "op", 1, &op, NULL, err) < 0)
        return -1;
      if (index > 5)
        return lab_usage_error (err, "`%s.index`: %llu is not a syscall argument index (0 to 5)", p,
                                (unsigned long long) index);
      for (j = 0; j < ARRAY_SIZE (ops); j++)
        if (strcmp (ops[j].name, op) == 0)
          break;
      if (j == ARRAY_SIZE (ops))
        return lab_usage_error (err, "`%s`: unknown operator `%s` (expected SCMP_CMP_NE, SCMP_CMP_LT, "
                                "SCMP_CMP_LE, SCMP_CMP_EQ, SCMP_CMP_GE, SCMP_CMP_GT or SCMP_CMP_MASKED_EQ)",
                                lab_json_path (opp, sizeof (opp), p, "op"), op);
      if (seen & (1u << index))
        *repeated = 1;
      seen |= 1u << index;
      /* MASKED_EQ: (arg & value) == valueTwo, as runc passes them. */
      cmp[i] = (struct scmp_arg_cmp){ .arg = (unsigned) index, .op = ops[j].op, .datum_a = value, .datum_b = value2 };
      (*n_cmp)++;
    }
  return 0;
}

static void
note_unknown (struct parse_state *st, const char *name)
{
  int w;

  if (strstr (st->unknown, name))
    return;
  st->n_unknown++;
  w = snprintf (st->unknown + st->unknown_len, sizeof (st->unknown) - st->unknown_len, "%s`%s`",
                st->unknown_len ? ", " : "", name);
  if (w > 0 && st->unknown_len + (size_t) w < sizeof (st->unknown))
    st->unknown_len += (size_t) w;
}

static int
add_rule (struct parse_state *st, const char *path, const char *name, uint32_t action,
          const struct scmp_arg_cmp *cmp, unsigned n_cmp, int repeated, lab_error_t *err)
{
  int nr = seccomp_syscall_resolve_name (name), ret = 0;
  unsigned i;

  if (nr == __NR_SCMP_ERROR)
    {
      note_unknown (st, name);
      return 0;
    }
  if (!repeated)
    ret = seccomp_rule_add_array (st->ctx, action, nr, n_cmp, cmp);
  else
    for (i = 0; i < n_cmp && ret == 0; i++)
      ret = seccomp_rule_add_array (st->ctx, action, nr, 1, &cmp[i]);
  if (ret < 0)
    return lab_usage_error (err, "`%s`: libseccomp refused the rule for `%s`: %s (a conflicting rule "
                            "for the same syscall?)", path, name, strerror (-ret));
  return 0;
}

static int
parse_rule (struct parse_state *st, struct json_object *rule, const char *path, lab_error_t *err)
{
  struct json_object *names;
  struct scmp_arg_cmp cmp[6];
  const char *action_name, *name = NULL, *comment;
  char p[LAB_JSON_PATH_MAX];
  int64_t errno_ret = -1;
  unsigned n_cmp;
  uint32_t action;
  int repeated, applies;
  size_t i, n;

  if (!json_object_is_type (rule, json_type_object))
    return lab_json_type_error (path, "an object {names, action, ...}", rule, err);
  if (lab_json_check_keys (rule, path, rule_keys, err) < 0
      || lab_json_get_string (rule, path, "action", 1, &action_name, NULL, err) < 0
      || lab_json_get_int64 (rule, path, "errnoRet", 0, &errno_ret, NULL, err) < 0
      || lab_json_get_string (rule, path, "comment", 0, &comment, NULL, err) < 0
      || lab_json_get_array (rule, path, "names", 0, &names, err) < 0
      || lab_json_get_string (rule, path, "name", 0, &name, NULL, err) < 0)
    return -1;
  if (errno_ret < -1)
    return lab_usage_error (err, "`%s.errnoRet`: %lld is negative", path, (long long) errno_ret);
  if (parse_action (lab_json_path (p, sizeof (p), path, "action"), action_name, errno_ret, &action, err) < 0
      || parse_args (rule, path, cmp, &n_cmp, &repeated, err) < 0
      || rule_applies (st, rule, path, &applies, err) < 0)
    return -1;
  if (names == NULL && name == NULL)
    return lab_usage_error (err, "`%s`: needs `names` (or `name`)", path);
  n = names ? json_object_array_length (names) : 0;
  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (names, i);
      char np[LAB_JSON_PATH_MAX];
      lab_json_path_index (p, sizeof (p), lab_json_path (np, sizeof (np), path, "names"), i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (p, "a syscall name", v, err);
    }
  if (!applies || action == st->default_action)
    return 0;
  for (i = 0; i < n; i++)
    if (add_rule (st, path, json_object_get_string (json_object_array_get_idx (names, i)), action, cmp,
                  n_cmp, repeated, err) < 0)
      return -1;
  if (name && add_rule (st, path, name, action, cmp, n_cmp, repeated, err) < 0)
    return -1;
  return 0;
}

/* ---- top level ---------------------------------------------------------- */

static int
parse_flags (struct parse_state *st, struct json_object *root, lab_error_t *err)
{
  struct json_object *flags;
  const char *lp = NULL;
  size_t i, n;

  if (lab_json_get_string (root, "", "listenerPath", 0, &lp, NULL, err) < 0
      || lab_json_get_array (root, "", "flags", 0, &flags, err) < 0)
    return -1;
  if (lp && *lp)
    return lab_usage_error (err, "`listenerPath`: a seccomp notify listener is unsupported");
  n = flags ? json_object_array_length (flags) : 0;
  for (i = 0; i < n; i++)
    {
      struct json_object *v = json_object_array_get_idx (flags, i);
      const char *f;
      char p[LAB_JSON_PATH_MAX];
      int ret;

      lab_json_path_index (p, sizeof (p), "flags", i);
      if (!json_object_is_type (v, json_type_string))
        return lab_json_type_error (p, "a flag name", v, err);
      f = json_object_get_string (v);
      if (strcmp (f, "SECCOMP_FILTER_FLAG_TSYNC") == 0)
        ret = seccomp_attr_set (st->ctx, SCMP_FLTATR_CTL_TSYNC, 1);
      else if (strcmp (f, "SECCOMP_FILTER_FLAG_LOG") == 0)
        ret = seccomp_attr_set (st->ctx, SCMP_FLTATR_CTL_LOG, 1);
      else if (strcmp (f, "SECCOMP_FILTER_FLAG_SPEC_ALLOW") == 0)
        ret = seccomp_attr_set (st->ctx, SCMP_FLTATR_CTL_SSB, 1);
      else
        return lab_usage_error (err, "`%s`: unknown or unsupported flag `%s` (known: "
                                "SECCOMP_FILTER_FLAG_TSYNC, SECCOMP_FILTER_FLAG_LOG, "
                                "SECCOMP_FILTER_FLAG_SPEC_ALLOW)", p, f);
      if (ret < 0)
        return lab_error (err, -ret, "`%s`: setting `%s`", p, f);
    }
  return 0;
}

static void
read_host (struct parse_state *st)
{
  struct utsname u;
  FILE *f;
  char line[256];

  st->native = seccomp_arch_native ();
  if (uname (&u) == 0)
    sscanf (u.release, "%d.%d", &st->kernel_major, &st->kernel_minor);
  f = fopen ("/proc/self/status", "re");
  if (f == NULL)
    return;
  while (fgets (line, sizeof (line), f))
    if (sscanf (line, "CapEff: %lx", &st->cap_eff) == 1)
      break;
  fclose (f);
}

static int
parse_profile (struct parse_state *st, struct json_object *root, lab_error_t *err)
{
  struct json_object *syscalls;
  const char *def;
  char p[LAB_JSON_PATH_MAX];
  int64_t def_errno = -1;
  size_t i, n;

  if (lab_json_check_keys (root, "", top_keys, err) < 0
      || lab_json_get_string (root, "", "defaultAction", 1, &def, NULL, err) < 0
      || lab_json_get_int64 (root, "", "defaultErrnoRet", 0, &def_errno, NULL, err) < 0)
    return -1;
  if (def_errno < -1)
    return lab_usage_error (err, "`defaultErrnoRet`: %lld is negative", (long long) def_errno);
  if (parse_action ("defaultAction", def, def_errno, &st->default_action, err) < 0)
    return -1;
  st->ctx = seccomp_init (st->default_action);
  if (st->ctx == NULL)
    return lab_error (err, EINVAL, "`defaultAction`: libseccomp refused `%s`", def);
  if (parse_flags (st, root, err) < 0 || parse_arches (root, st, err) < 0
      || lab_json_get_array (root, "", "syscalls", 0, &syscalls, err) < 0)
    return -1;
  n = syscalls ? json_object_array_length (syscalls) : 0;
  for (i = 0; i < n; i++)
    if (parse_rule (st, json_object_array_get_idx (syscalls, i),
                    lab_json_path_index (p, sizeof (p), "syscalls", i), err) < 0)
      return -1;
  return 0;
}

int
lab_seccomp_load (const char *path, int quiet, scmp_filter_ctx *out, lab_error_t *err)
{
  return lab_seccomp_load_caps (path, quiet, LAB_SECCOMP_OWN_CAPS, out, err);
}

int
lab_seccomp_load_caps (const char *path, int quiet, uint64_t caps, scmp_filter_ctx *out, lab_error_t *err)
{
  return lab_seccomp_load_ex (path, quiet, caps, out, NULL, 0, err);
}

int
lab_seccomp_load_ex (const char *path, int quiet, uint64_t caps, scmp_filter_ctx *out, char *warnings,
                     size_t warnings_len, lab_error_t *err)
{
  struct json_object *doc = NULL;
  struct parse_state st = { .path = path, .quiet = quiet };
  char w[2][1200];
  int ret;

  read_host (&st);
  if (caps != LAB_SECCOMP_OWN_CAPS)
    st.cap_eff = caps;
  ret = lab_json_parse_file (path, &doc, err);
  if (ret == 0)
    ret = parse_profile (&st, doc, err);
  json_object_put (doc);
  if (ret < 0)
    {
      if (st.ctx)
        seccomp_release (st.ctx);
      return lab_error_prepend (err, "seccomp profile `%s`", path);
    }
  w[0][0] = w[1][0] = '\0';
  if (st.n_unknown)
    snprintf (w[0], sizeof w[0], "seccomp profile `%s`: %d syscall name%s unknown to libseccomp here, ignored: %s",
              path, st.n_unknown, st.n_unknown > 1 ? "s" : "", st.unknown);
  if (st.caps_used)
    snprintf (w[1], sizeof w[1], "seccomp profile `%s`: includes/excludes `caps` evaluated against %s "
              "capabilities (%#lx)", path, caps != LAB_SECCOMP_OWN_CAPS ? "the sandbox's" : "this process's",
              (unsigned long) st.cap_eff);
  if (warnings && warnings_len)
    snprintf (warnings, warnings_len, "%s%s%s", w[0], w[0][0] && w[1][0] ? "\n" : "", w[1]);
  for (int i = 0; i < 2; i++)
    if (!quiet && w[i][0])
      lab_warn ("%s", w[i]);
  *out = st.ctx;
  return 0;
}

int
lab_seccomp_apply (scmp_filter_ctx ctx, lab_error_t *err)
{
  int ret;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return lab_error (err, errno, "setting no_new_privs");
  ret = seccomp_load (ctx);
  if (ret < 0)
    return lab_error (err, -ret, "loading the seccomp filter");
  return 0;
}
