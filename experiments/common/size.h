/*
 * size.h - the one parser of byte sizes, shared by the harness (`lab run
 * --stack`, profile limits, `lab sandbox --memory-max`) and the workloads
 * (`wl-* --stack`), so a size one accepts the other accepts too, to the byte.
 *
 * Grammar (no sign, no spaces, no exponent, no hex):
 *   SIZE   := DIGITS [ "." DIGITS ] [ SUFFIX ]
 *   SUFFIX := ("K" | "M" | "G" | "T") [ "i" ] [ "B" ]  |  "B"     (any case)
 * K, M, G, T are powers of 1024.  A fraction must come out a whole number of
 * bytes ("1.5M" = 1572864; "1.3K" is refused), and the result must be at most
 * `max`.  "max"/"unlimited" are not sizes here: callers that allow them check
 * first.
 *
 * The stack sizes `--stack` takes, in lab and in every workload alike.
 */
#ifndef LAB_SIZE_H
#define LAB_SIZE_H

#include <stdint.h>

#define LAB_STACK_MIN 2048L
#define LAB_STACK_MAX (1L << 30)

/* NULL on success (*out set), else why `s` is not a size. */
static inline const char *
lab_size_parse (const char *s, uint64_t max, uint64_t *out)
{
  unsigned __int128 whole = 0, frac = 0, scale = 1, v;
  unsigned shift = 0;
  const char *p = s;

  if (s == NULL || *s == '\0')
    return "empty size";
  if (*p < '0' || *p > '9')
    return "a size starts with a digit";
  for (; *p >= '0' && *p <= '9'; p++)
    {
      whole = whole * 10 + (unsigned) (*p - '0');
      if (whole > max)
        return "too large";
    }
  if (*p == '.')
    {
      p++;
      if (*p < '0' || *p > '9')
        return "a digit must follow `.`";
      for (; *p >= '0' && *p <= '9'; p++)
        {
          if (scale >= 1000000000000ULL) /* 12 decimals are more than a byte's worth */
            return "too many decimals";
          frac = frac * 10 + (unsigned) (*p - '0');
          scale *= 10;
        }
    }
  switch (*p)
    {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
    }
  if (shift && (*p == 'i' || *p == 'I'))
    p++;
  if (*p == 'b' || *p == 'B')
    p++;
  if (*p != '\0')
    return "unknown suffix (K, M, G, T, optional iB)";
  if ((frac << shift) % scale != 0)
    return "not a whole number of bytes";
  v = (whole << shift) + (frac << shift) / scale;
  if (v > max)
    return "too large";
  *out = (uint64_t) v;
  return 0;
}

#endif
