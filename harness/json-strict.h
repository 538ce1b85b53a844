/*
 * json-strict.h - refuses, in JSON text json-c has accepted, what json-c would
 * silently change: a key repeated within one object (json-c keeps the last)
 * and an integer outside -2^63 .. 2^64-1 (json-c clamps it).  See json-strict.c.
 */
#ifndef LAB_JSON_STRICT_H
#define LAB_JSON_STRICT_H

#include <stddef.h>

#include "error.h"

/* `text` must be well-formed JSON (json-c parsed it).  Usage error
   "line L, column C: duplicate key `K` (first at line L, column C)" or
   "line L, column C: integer `N` is out of range (-2^63 to 2^64-1)". */
int lab_json_check_strict (const char *text, size_t len, lab_error_t *err);

#endif
