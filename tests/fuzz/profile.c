/* profile.c - fuzz target: the sandbox profile loader (containers/NAME.json);
   see common.h. */
#include "common.h"

#include <json-c/json.h>

#include "profile.h"

static int
lab_fuzz_profile (const uint8_t *data, size_t size)
{
  const char *path = fuzz_input_file ("profile", data, size);
  struct lab_profile p;
  lab_error_t err = NULL;
  int ret = lab_profile_load (path, NULL, &p, &err);

  fuzz_check_error ("profile", ret, &err);
  if (ret == 0)
    {
      /* A profile that loads is complete: it must serialise. */
      struct json_object *o = lab_profile_to_json (&p);
      if (o == NULL || json_object_to_json_string (o) == NULL)
        abort ();
      json_object_put (o);
      lab_profile_free (&p);
    }
  return 0;
}

#ifdef LAB_FUZZ_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return lab_fuzz_profile (data, size);
}
#endif
