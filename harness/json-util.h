/*
 * json-util.h - reading user-written JSON files (json-c) with errors that say
 * where: parse errors name line:column and the tokener's message; field errors
 * name the field's path (`limits.memory.max`, `syscalls[3].args[0].op`), the
 * type expected and the value found.  Every error here is a usage error (exit
 * 2): the file is user input.  Callers prepend the file, e.g.
 * "profile `containers/x.json`: `limits.pids.max`: expected an integer or `max`, got ...".
 *
 * Paths: a field's path is its parent's path, a dot and its key ("limits" +
 * "memory.max" -> "limits.memory.max"); array elements add "[i]".  The top
 * level has the empty path "".
 */
#ifndef LAB_JSON_UTIL_H
#define LAB_JSON_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "error.h"

#define LAB_JSON_PATH_MAX 256

/* Largest user-written JSON file read (profiles, seccomp profiles, results). */
#define LAB_JSON_INPUT_MAX (1u << 20)

/* Reads and parses `path` strictly (RFC 8259: no comments, no trailing commas,
   nothing after the top-level value, valid UTF-8; plus json-strict.h: no
   repeated key, no integer json-c would clamp), which must hold a JSON object.
   Only a regular file of at most LAB_JSON_INPUT_MAX bytes is read (a FIFO or
   /dev/zero would hang).  Errors: "line L, column C: MESSAGE"; a missing file
   is a usage error too. */
int lab_json_parse_file (const char *path, struct json_object **out, lab_error_t *err);
/* Same with another size cap. */
int lab_json_parse_file_max (const char *path, size_t max, struct json_object **out, lab_error_t *err);
/* Reads a regular file of at most `max` bytes (NUL-terminated) without
   blocking on a FIFO; anything else is a usage error naming the file. */
int lab_read_regular_file (const char *path, size_t max, char **out, size_t *len, lab_error_t *err);
/* True for an integer of 2^63 or more, which json_object_get_int64 clamps. */
int lab_json_int64_clamped (struct json_object *v);
/* Same for text in memory; `len` bytes.  Exposed for tests. */
int lab_json_parse_text (const char *text, size_t len, struct json_object **out, lab_error_t *err);
/* Line and column (both from 1) of byte `offset` in `text`. */
void lab_json_line_col (const char *text, size_t offset, int *line, int *col);

/* Writes parent.key (or parent[index]) into buf. */
const char *lab_json_path (char *buf, size_t len, const char *parent, const char *key);
const char *lab_json_path_index (char *buf, size_t len, const char *parent, size_t index);

/* Fails naming the first key of `obj` not in the NULL-terminated `allowed`. */
int lab_json_check_keys (struct json_object *obj, const char *path, const char *const *allowed,
                         lab_error_t *err);

/* Typed access to obj[key].  `*found` (may be NULL) says whether the key is
   there; an absent key is not an error unless `required` (a JSON null counts as
   absent).  On a wrong type: "`path`: expected TYPE, got JSONTYPE `value`". */
int lab_json_get_string (struct json_object *obj, const char *parent, const char *key, int required,
                         const char **out, int *found, lab_error_t *err);
int lab_json_get_int64 (struct json_object *obj, const char *parent, const char *key, int required,
                        int64_t *out, int *found, lab_error_t *err);
int lab_json_get_uint64 (struct json_object *obj, const char *parent, const char *key, int required,
                         uint64_t *out, int *found, lab_error_t *err);
int lab_json_get_double (struct json_object *obj, const char *parent, const char *key, int required,
                         double *out, int *found, lab_error_t *err);
int lab_json_get_object (struct json_object *obj, const char *parent, const char *key, int required,
                         struct json_object **out, lab_error_t *err);
int lab_json_get_array (struct json_object *obj, const char *parent, const char *key, int required,
                        struct json_object **out, lab_error_t *err);

/* "`path`: expected WHAT, got TYPE `value`" for a value of the wrong type. */
int lab_json_type_error (const char *path, const char *what, struct json_object *v, lab_error_t *err);

#endif
