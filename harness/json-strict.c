/*
 * json-strict.c - the checks json-c does not make on user-written JSON: a
 * second pass over text json-c has already accepted (so it is well-formed) that
 * refuses what json-c would silently change:
 *
 *   - a key repeated in one object: json-c keeps the last value, so
 *     `"memory.max":"16M", "memory.max":"max"` would run with no limit;
 *   - an integer outside -2^63 .. 2^64-1: json-c clamps it to the nearest
 *     bound, so a seccomp argument 2^64 would become 2^64-1;
 *   - a key holding \u0000: json-c cuts it there, so "name\u0000x" is "name".
 *
 * Keys are compared after unescaping (`"a"` and `"\u0061"` are one key).  Each
 * object's keys are collected with their offsets; when the object closes they
 * are sorted and neighbours compared, so an object of k keys costs k log k
 * (a flat quadratic scan would let a 1 MiB file of short keys take minutes).
 * Errors are usage errors at "line L, column C" of the second occurrence.
 */
#include "json-strict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"

struct key
{
  char *s;       /* unescaped */
  size_t len;
  size_t offset; /* of the opening quote */
};

struct scan
{
  const char *text;
  size_t len, pos;
  struct key *keys;
  size_t n_keys, cap_keys;
  size_t *starts; /* per open object: index of its first key in `keys` */
  size_t depth, cap_depth;
  char *open;     /* per open container: '{' or '[' */
};

static int
hexval (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static unsigned
hex4 (const char *p)
{
  unsigned v = 0;

  for (int i = 0; i < 4; i++)
    v = v << 4 | (unsigned) (hexval (p[i]) & 0xf);
  return v;
}

static size_t
put_utf8 (char *o, unsigned cp)
{
  if (cp < 0x80)
    return o[0] = (char) cp, 1;
  if (cp < 0x800)
    return o[0] = (char) (0xc0 | cp >> 6), o[1] = (char) (0x80 | (cp & 0x3f)), 2;
  if (cp < 0x10000)
    return o[0] = (char) (0xe0 | cp >> 12), o[1] = (char) (0x80 | ((cp >> 6) & 0x3f)),
           o[2] = (char) (0x80 | (cp & 0x3f)), 3;
  o[0] = (char) (0xf0 | cp >> 18);
  o[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
  o[3] = (char) (0x80 | (cp & 0x3f));
  return 4;
}

/* Unescapes the string starting at the quote at s->pos; leaves pos after the
   closing quote.  `out` (may be NULL) gets a malloc'd copy. */
static int
read_string (struct scan *s, char **out, size_t *out_len)
{
  const char *t = s->text;
  size_t i = s->pos + 1, n = 0;
  char *buf = NULL;

  if (out)
    {
      size_t end = i;
      while (end < s->len && t[end] != '"')
        end += t[end] == '\\' ? 2 : 1;
      buf = malloc (end - i + 1); /* unescaping never grows the text */
      if (buf == NULL)
        return -1;
    }
  while (i < s->len && t[i] != '"')
    {
      if (t[i] != '\\')
        {
          if (buf)
            buf[n] = t[i];
          n++, i++;
          continue;
        }
      i++;
      if (i < s->len && t[i] == 'u' && i + 4 < s->len)
        {
          unsigned cp = hex4 (t + i + 1);
          char tmp[4];
          i += 5;
          if (cp >= 0xd800 && cp < 0xdc00 && i + 6 <= s->len && t[i] == '\\' && t[i + 1] == 'u')
            {
              unsigned lo = hex4 (t + i + 2);
              if (lo >= 0xdc00 && lo < 0xe000)
                {
                  cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  i += 6;
                }
            }
          size_t k = put_utf8 (tmp, cp);
          if (buf)
            memcpy (buf + n, tmp, k);
          n += k;
          continue;
        }
      if (buf && i < s->len)
        {
          static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
          const char *f = strchr (from, t[i]);
          buf[n] = f ? to[f - from] : t[i];
        }
      n++, i++;
    }
  s->pos = i + 1;
  if (out)
    {
      buf[n] = '\0';
      *out = buf;
      *out_len = n;
    }
  return 0;
}

static int
cmp_key (const void *a, const void *b)
{
  const struct key *x = a, *y = b;
  size_t m = x->len < y->len ? x->len : y->len;
  int c = memcmp (x->s, y->s, m);

  if (c)
    return c;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorts the keys of the object closing now and refuses a repeated one. */
static int
close_object (struct scan *s, lab_error_t *err)
{
  size_t start = s->starts[s->depth - 1], k;
  size_t n = s->n_keys - start;
  struct key *ks;
  int ret = 0;

  if (n == 0)
    return 0; /* `{}`: keys may still be NULL */
  ks = s->keys + start;
  qsort (ks, n, sizeof (*ks), cmp_key);
  for (k = 1; k < n && ret == 0; k++)
    if (ks[k].len == ks[k - 1].len && memcmp (ks[k].s, ks[k - 1].s, ks[k].len) == 0)
      {
        int l1, c1, l2, c2;
        lab_json_line_col (s->text, ks[k - 1].offset, &l1, &c1);
        lab_json_line_col (s->text, ks[k].offset, &l2, &c2);
        ret = lab_usage_error (err, "line %d, column %d: duplicate key `%.*s` (first at line %d, column %d)",
                               l2, c2, (int) (ks[k].len > 80 ? 80 : ks[k].len), ks[k].s, l1, c1);
      }
  for (k = start; k < s->n_keys; k++)
    free (s->keys[k].s);
  s->n_keys = start;
  return ret;
}

static int
push (struct scan *s, char c)
{
  if (s->depth == s->cap_depth)
    {
      size_t cap = s->cap_depth ? s->cap_depth * 2 : 16;
      size_t *st = realloc (s->starts, cap * sizeof (*st));
      char *op;
      if (st == NULL)
        return -1;
      s->starts = st;
      op = realloc (s->open, cap);
      if (op == NULL)
        return -1;
      s->open = op;
      s->cap_depth = cap;
    }
  s->open[s->depth] = c;
  s->starts[s->depth++] = s->n_keys;
  return 0;
}

static int
add_key (struct scan *s, lab_error_t *err)
{
  struct key k = { .offset = s->pos };

  if (s->n_keys == s->cap_keys)
    {
      size_t cap = s->cap_keys ? s->cap_keys * 2 : 32;
      struct key *nk = realloc (s->keys, cap * sizeof (*nk));
      if (nk == NULL)
        return lab_error (err, ENOMEM, "checking keys");
      s->keys = nk;
      s->cap_keys = cap;
    }
  if (read_string (s, &k.s, &k.len) < 0)
    return lab_error (err, ENOMEM, "checking keys");
  s->keys[s->n_keys++] = k;
  if (memchr (k.s, '\0', k.len))
    {
      /* json-c cuts such a key at the NUL: `"name\u0000x"` would be `name`. */
      int line, col;
      lab_json_line_col (s->text, k.offset, &line, &col);
      return lab_usage_error (err, "line %d, column %d: key `%s\\u0000...` holds a NUL character", line, col, k.s);
    }
  return 0;
}

/* An integer literal json-c would clamp: outside -2^63 .. 2^64-1. */
static int
check_number (struct scan *s, lab_error_t *err)
{
  const char *t = s->text;
  size_t start = s->pos, i = start, digits;
  int neg = 0, is_int = 1, line, col;

  if (t[i] == '-')
    neg = 1, i++;
  digits = i;
  while (i < s->len && ((t[i] >= '0' && t[i] <= '9') || strchr ("+-.eE", t[i])))
    {
      if (t[i] < '0' || t[i] > '9')
        is_int = 0;
      i++;
    }
  s->pos = i;
  if (!is_int)
    return 0;
  {
    const char *bound = neg ? "9223372036854775808" : "18446744073709551615";
    size_t n = i - digits, blen = strlen (bound);
    if (n < blen || (n == blen && memcmp (t + digits, bound, n) <= 0))
      return 0;
  }
  lab_json_line_col (t, start, &line, &col);
  return lab_usage_error (err, "line %d, column %d: integer `%.*s` is out of range (-2^63 to 2^64-1)", line, col,
                          (int) (i - start > 40 ? 40 : i - start), t + start);
}

static int
scan (struct scan *s, lab_error_t *err)
{
  int expect_key = 0;

  while (s->pos < s->len)
    {
      char c = s->text[s->pos];
      switch (c)
        {
        case '{':
        case '[':
          if (push (s, c) < 0)
            return lab_error (err, ENOMEM, "checking keys");
          expect_key = c == '{';
          s->pos++;
          break;
        case '}':
          if (s->depth == 0)
            return 0;
          if (close_object (s, err) < 0)
            return -1;
          /* fallthrough */
        case ']':
          if (s->depth == 0)
            return 0;
          s->depth--;
          expect_key = 0;
          s->pos++;
          break;
        case ',':
          expect_key = s->depth > 0 && s->open[s->depth - 1] == '{';
          s->pos++;
          break;
        case '"':
          if (expect_key)
            {
              if (add_key (s, err) < 0)
                return -1;
              expect_key = 0;
            }
          else if (read_string (s, NULL, NULL) < 0)
            return -1;
          break;
        case '-':
        case '0' ... '9':
          if (check_number (s, err) < 0)
            return -1;
          break;
        default:
          s->pos++;
        }
    }
  return 0;
}

int
lab_json_check_strict (const char *text, size_t len, lab_error_t *err)
{
  struct scan s = { .text = text, .len = len };
  int ret = scan (&s, err);

  for (size_t k = 0; k < s.n_keys; k++)
    free (s.keys[k].s);
  free (s.keys);
  free (s.starts);
  free (s.open);
  return ret;
}
