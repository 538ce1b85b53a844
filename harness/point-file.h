/*
 * point-file.h - deciding whether DIR/points/ID.json is a finished point that
 * `lab run --resume` may keep.  Points are written atomically, but a file can
 * still be a stub: emptied, truncated or edited by hand, copied half-way, or
 * left by another tool.  Such a file is not "done": resume runs the point
 * again (and says so), so no hole in the results passes for a measurement.
 */
#ifndef LAB_POINT_FILE_H
#define LAB_POINT_FILE_H

#include <stddef.h>

#include <json-c/json.h>

enum lab_point_file
{
  LAB_POINT_ABSENT = 0,
  LAB_POINT_COMPLETE,   /* *out holds it */
  LAB_POINT_INCOMPLETE, /* `why` says what is missing */
};

/* Complete = strict JSON object with "id" equal to `id`, a known "status",
   "summary" an object with the same "status", and "finished_at". */
enum lab_point_file lab_point_file_load (const char *path, const char *id, struct json_object **out, char *why,
                                         size_t why_len);

#endif
