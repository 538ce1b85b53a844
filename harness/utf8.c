/* utf8.c - see utf8.h.  Validation follows RFC 3629's table (Unicode 3.9 D92). */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

size_t
lab_utf8_seq_len (const unsigned char *s, size_t avail)
{
  unsigned char c = s[0], lo = 0x80, hi = 0xbf;
  size_t n, i;

  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2;
  else if (c >= 0xe0 && c <= 0xef)
    {
      n = 3;
      if (c == 0xe0)
        lo = 0xa0; /* overlong */
      if (c == 0xed)
        hi = 0x9f; /* surrogates */
    }
  else if (c >= 0xf0 && c <= 0xf4)
    {
      n = 4;
      if (c == 0xf0)
        lo = 0x90; /* overlong */
      if (c == 0xf4)
        hi = 0x8f; /* above U+10FFFF */
    }
  else
    return 0;
  if (avail < n || s[1] < lo || s[1] > hi)
    return 0;
  for (i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  return n;
}

char *
lab_utf8_valid (const char *s, size_t len, const char *repl, size_t *out_len)
{
  size_t rlen = strlen (repl), i = 0, o = 0;
  char *out = malloc (len * (rlen > 1 ? rlen : 1) + 1);

  if (out == NULL)
    return NULL;
  while (i < len)
    {
      size_t k = lab_utf8_seq_len ((const unsigned char *) s + i, len - i);
      if (k == 0)
        {
          memcpy (out + o, repl, rlen);
          o += rlen;
          i++;
          continue;
        }
      memcpy (out + o, s + i, k);
      o += k;
      i += k;
    }
  out[o] = '\0';
  if (out_len)
    *out_len = o;
  return out;
}
