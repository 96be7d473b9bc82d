/* Writing a profile only once it is known to read back.
 *
 * The importers turn someone else's data (REEF's files, profiler traces) into atoll profiles, and
 * `atoll native --profile` writes the models it measured. A profile that atoll then cannot read,
 * or reads as another model, would be a silent loss found only when a scenario names it; this
 * writer finds it at once, before anything is written. */
#ifndef ATOLL_IO_MODEL_WRITE_CHECKED_H
#define ATOLL_IO_MODEL_WRITE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "atoll/gpu.h"
#include "atoll/model.h"
#include "io/diag.h"

/* Writes m's profile (atoll_model_write_yaml, with header_comment) to out, but first loads the
 * text back (atoll_model_load_source; dir stands for the profile's folder and gpu for its preset,
 * as there) and compares it with m: the model's name and source, then every op's kind, name,
 * operator, time and occupancy or copy time, and every tensor's name and size. Returns 0 once
 * written. Otherwise nothing reaches out and d says why: the model is not valid or the text could
 * not be made (ATOLL_EINVAL, ATOLL_EIO), or the text does not read back as m (ATOLL_EINVAL, with
 * the loader's error or the first field that differs, named as a bug in atoll). A write error on
 * out itself returns ATOLL_EIO. */
int atoll_model_write_checked(FILE *out, const atoll_model *m, const char *header_comment, const char *dir,
                              const atoll_gpu *gpu, atoll_diag *d);

/* The first difference between a and b in the fields atoll_model_write_checked compares, as text
 * in buf ("op 3 (conv1): time 12000 ns, read back 12001 ns"); returns false when they agree. */
bool atoll_model_first_difference(const atoll_model *a, const atoll_model *b, char *buf, size_t size);

#endif
