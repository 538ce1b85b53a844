/* meta.h - DIR/meta.json (see results.h for the layout). */
#ifndef LAB_META_H
#define LAB_META_H

#include "error.h"

/* argv: the exact command line (argv[0] = "lab" ...). */
int lab_meta_write (const char *dir, int argc, char **argv, lab_error_t *err);

#endif
