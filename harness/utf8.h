/*
 * utf8.h - keeping what the lab writes valid UTF-8.  Workload output (a
 * report's strings, a detail) is whatever bytes the workload printed; json-c
 * copies them into point JSON unchanged, and a strict reader (ours included,
 * json-util.h) then refuses the file.  Writers pass their text through
 * lab_utf8_valid() last.
 */
#ifndef LAB_UTF8_H
#define LAB_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if the bytes there are
   not one (overlong forms, surrogates, above U+10FFFF, cut short). */
size_t lab_utf8_seq_len (const unsigned char *s, size_t avail);
/* A malloc'd copy of the `len` bytes at `s` (NUL-terminated) with every byte
   that does not start a valid sequence replaced by `repl`: "\\ufffd" in JSON
   text (ASCII, so valid inside a JSON string), "\xef\xbf\xbd" (U+FFFD) in CSV.
   *out_len (may be NULL) gets the new length.  NULL when out of memory. */
char *lab_utf8_valid (const char *s, size_t len, const char *repl, size_t *out_len);

#endif
