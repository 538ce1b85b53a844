/*
 * seccomp-cache.c - parsed and compiled seccomp filters, in this process and
 * on disk (see seccomp-cache.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "json-util.h"
#include "seccomp-cache.h"
#include "seccomp-profile.h"
#include "utils.h"

#define MAGIC "LABBPF02" /* 02: programs shrunk (seccomp-shrink.h) */

struct file_header
{
  char magic[8];
  uint64_t key[2];
  uint32_t n_insns, flags, warn_len, pad;
};

static struct lab_seccomp_entry *entries;

/* Two 64-bit FNV-1a variants (different offsets) over the same bytes. */
static void
hash (uint64_t h[2], const void *data, size_t len)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
    for (int k = 0; k < 2; k++)
      h[k] = (h[k] ^ p[i]) * 0x100000001b3ULL;
}

static void
hash_str (uint64_t h[2], const char *s)
{
  hash (h, s, strlen (s) + 1);
}

/* The key of everything the compiled program depends on; 0 when the
   profile cannot be read (the parse will say why). */
static int
make_key (const char *path, uint64_t caps, uint64_t key[2])
{
  char *text = NULL, buf[64];
  size_t len = 0;
  lab_error_t e = NULL;
  struct utsname u;
  const struct scmp_version *v = seccomp_version ();

  key[0] = 0xcbf29ce484222325ULL;
  key[1] = 0x84222325cbf29ce4ULL;
  /* Regular files only, capped: a FIFO or /dev/zero must not hang here (the
     parse then refuses it with the reason). */
  if (lab_read_regular_file (path, LAB_JSON_INPUT_MAX, &text, &len, &e) < 0)
    {
      lab_error_release (&e);
      key[0] = key[1] = 0;
      return -1;
    }
  hash_str (key, MAGIC);
  hash_str (key, path);
  hash (key, text, len);
  free (text);
  hash (key, &caps, sizeof caps);
  snprintf (buf, sizeof buf, "%u.%u.%u %#x", v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0,
            seccomp_arch_native ());
  hash_str (key, buf);
  if (uname (&u) == 0)
    hash_str (key, u.release);
  return 0;
}

/* BUILD/cache/seccomp (BUILD = the lab binary's ../), or LAB_SECCOMP_CACHE;
   NULL when off. */
static const char *
cache_dir (void)
{
  static char dir[PATH_MAX];
  static int done;
  if (done)
    return dir[0] ? dir : NULL;
  done = 1;
  const char *env = getenv ("LAB_SECCOMP_CACHE");
  if (env)
    {
      snprintf (dir, sizeof dir, "%s", env);
      return dir[0] ? dir : NULL;
    }
  char exe[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return NULL;
  exe[n] = '\0';
  for (int up = 0; up < 2; up++)
    {
      char *slash = strrchr (exe, '/');
      if (slash == NULL)
        return NULL;
      *slash = '\0';
    }
  if (snprintf (dir, sizeof dir, "%s/cache/seccomp", exe) >= (int) sizeof dir)
    dir[0] = '\0';
  return dir[0] ? dir : NULL;
}

static int
cache_path (const uint64_t key[2], char *out, size_t len)
{
  const char *dir = cache_dir ();
  if (dir == NULL || (key[0] == 0 && key[1] == 0))
    return -1;
  return snprintf (out, len, "%s/%016llx%016llx.bpf", dir, (unsigned long long) key[0],
                   (unsigned long long) key[1]) < (int) len ? 0 : -1;
}

static int
disk_get (struct lab_seccomp_entry *e)
{
  char path[PATH_MAX];
  struct file_header h;
  if (cache_path (e->key, path, sizeof path) < 0)
    return -1;
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || read (fd, &h, sizeof h) != (ssize_t) sizeof h || memcmp (h.magic, MAGIC, 8) != 0
      || h.key[0] != e->key[0] || h.key[1] != e->key[1] || h.n_insns == 0 || h.n_insns > LAB_BPF_MAX_INSNS
      || h.warn_len >= sizeof e->warnings)
    return -1;
  size_t len = h.n_insns * sizeof *e->bpf.insns;
  e->bpf.insns = malloc (len);
  if (e->bpf.insns == NULL || read (fd, e->bpf.insns, len) != (ssize_t) len
      || read (fd, e->warnings, h.warn_len) != (ssize_t) h.warn_len)
    {
      lab_bpf_free (&e->bpf);
      return -1;
    }
  e->warnings[h.warn_len] = '\0';
  e->bpf.h.n_insns = h.n_insns;
  e->bpf.h.flags = h.flags;
  e->compiled = 1;
  return 0;
}

/* Best effort: a cache that cannot be written is only slower.  Only the
   repository's own profiles are stored (a bounded set); a profile elsewhere
   (a test's temporary file, a user's) is compiled each time. */
static void
disk_put (const struct lab_seccomp_entry *e)
{
  char path[PATH_MAX], tmp[PATH_MAX + 32];
  lab_error_t err = NULL;
  char real[PATH_MAX], root[PATH_MAX];
  if (lab_root_dir () == NULL || realpath (lab_root_dir (), root) == NULL || realpath (e->path, real) == NULL)
    return;
  size_t rl = strlen (root);
  if (strncmp (real, root, rl) != 0 || real[rl] != '/')
    return;
  if (cache_path (e->key, path, sizeof path) < 0 || lab_mkdir_p (cache_dir (), 0755, &err) < 0)
    {
      lab_error_release (&err);
      return;
    }
  snprintf (tmp, sizeof tmp, "%s.%d.tmp", path, (int) getpid ());
  struct file_header h = { MAGIC, { e->key[0], e->key[1] }, e->bpf.h.n_insns, e->bpf.h.flags,
                           (uint32_t) strlen (e->warnings), 0 };
  size_t len = e->bpf.h.n_insns * sizeof *e->bpf.insns;
  int fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  int ok = write (fd, &h, sizeof h) == (ssize_t) sizeof h && write (fd, e->bpf.insns, len) == (ssize_t) len
           && write (fd, e->warnings, h.warn_len) == (ssize_t) h.warn_len;
  ok = close (fd) == 0 && ok;
  if (!ok || rename (tmp, path) < 0)
    unlink (tmp);
}

static void
print_warnings (const char *w)
{
  char buf[sizeof ((struct lab_seccomp_entry *) 0)->warnings];
  snprintf (buf, sizeof buf, "%s", w);
  for (char *line = strtok (buf, "\n"); line; line = strtok (NULL, "\n"))
    lab_warn ("%s", line);
}

struct lab_seccomp_entry *
lab_seccomp_cached (const char *path, uint64_t caps, int quiet, lab_error_t *err)
{
  struct lab_seccomp_entry *e;
  for (e = entries; e; e = e->next)
    if (e->caps == caps && strcmp (e->path, path) == 0)
      {
        if (!quiet)
          print_warnings (e->warnings);
        return e;
      }
  e = calloc (1, sizeof *e);
  if (e == NULL || (e->path = strdup (path)) == NULL)
    {
      free (e);
      lab_error (err, ENOMEM, "seccomp: allocating");
      return NULL;
    }
  e->caps = caps;
  make_key (path, caps, e->key);
  if (disk_get (e) == 0)
    {
      if (!quiet)
        print_warnings (e->warnings);
    }
  else if (lab_seccomp_load_ex (path, quiet, caps, &e->ctx, e->warnings, sizeof e->warnings, err) < 0)
    {
      free (e->path);
      free (e);
      return NULL;
    }
  e->next = entries;
  entries = e;
  return e;
}

const struct lab_bpf *
lab_seccomp_entry_bpf (struct lab_seccomp_entry *e, lab_error_t *err)
{
  if (!e->compiled)
    {
      if (lab_seccomp_export (e->ctx, &e->bpf, err) < 0)
        return NULL;
      e->compiled = 1;
      disk_put (e);
    }
  return &e->bpf;
}
