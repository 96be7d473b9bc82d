/* The common part of the checked writers (model_write_checked.h, gpu_write_checked.h): make the
 * text in memory, load it back, and let it reach the file only when it reads back as what it was
 * made from. Each writer supplies its own text and its own comparison. */
#ifndef ATOLL_IO_WRITE_CHECKED_H
#define ATOLL_IO_WRITE_CHECKED_H

#include <stddef.h>
#include <stdio.h>

#include "io/diag.h"

typedef struct atoll__checked_write {
  const char *subject;   /* "profile of model 'x'": how the messages name the file */
  const char *what;      /* "the model": what obj is */
  const char *made_from; /* "the model it was made from": what the text must read back as */
  const char *report;    /* "the input": what a bug report should carry */
  const void *obj;       /* what is written, handed to write and check */
  /* Writes obj's text to out: 0, ATOLL_EINVAL (obj is not valid) or ATOLL_EIO. */
  int (*write)(FILE *out, const void *obj);
  /* Loads src back: 0 when it reads back as obj, else nonzero with the loader's error (d, the
   * line and column of src) or, when it loads, the first difference in diff. */
  int (*check)(const atoll_source *src, const void *obj, atoll_diag *d, char *diff, size_t size);
} atoll__checked_write;

/* Writes w's text to out once it reads back; returns 0, or ATOLL_EINVAL / ATOLL_EIO with d saying
 * why (nothing reaches out then). */
int atoll__write_checked(FILE *out, const atoll__checked_write *w, atoll_diag *d);

/* A text field as the checked writers' messages show it: a missing one as "(none)". */
static inline const char *atoll__shown(const char *s) {
  return s ? s : "(none)";
}

#endif
