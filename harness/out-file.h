/*
 * out-file.h - files the lab writes with stdio (plot data, gnuplot scripts)
 * written so that a full disk is an error naming the file, never a 0-byte or
 * cut file left looking like success: lab_out_open() writes to PATH.tmp.PID,
 * lab_out_close() checks every buffered write (ferror, fflush, fsync, fclose)
 * and renames over PATH only when all of them succeeded; otherwise it removes
 * the temporary file and fails with "writing `PATH`: <errno text>".
 */
#ifndef LAB_OUT_FILE_H
#define LAB_OUT_FILE_H

#include <stdio.h>

#include "error.h"

/* NULL (err set) on failure. */
FILE *lab_out_open (const char *path, lab_error_t *err);
/* Finishes a file from lab_out_open(); -1 (err set) if any write failed. */
int lab_out_close (FILE *f, lab_error_t *err);
/* Abandons it (after another error): removes the temporary file. */
void lab_out_abort (FILE *f);

/* Checks what an external program (gnuplot) wrote: `path` must be a PNG
   ending in its IEND chunk or an SVG holding "</svg>"; a cut file is
   removed.  -1 (err set) otherwise. */
int lab_out_check_image (const char *path, lab_error_t *err);

#endif
