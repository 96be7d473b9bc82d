/* Writing a GPU preset only once it is known to read back.
 *
 * `atoll native --profile` writes the device it measured as a preset that scenarios then name. A
 * preset that atoll cannot load (a measured cost the loader refuses, a name it does not accept),
 * or loads as another device, would be found only when a simulation names it, after the
 * measurement's machine is gone; this writer finds it at once, before anything is written. */
#ifndef ATOLL_IO_GPU_WRITE_CHECKED_H
#define ATOLL_IO_GPU_WRITE_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "atoll/gpu.h"
#include "io/diag.h"

/* Writes g as a preset (atoll_gpu_write_yaml, with header_comment and notes), but first loads the
 * text back (atoll_gpu_load_source) and compares every field the writer writes
 * (atoll_gpu_first_difference). Returns 0 once written. Otherwise nothing reaches out and d says
 * why: the text could not be made (ATOLL_EIO), or it does not load, or loads with another value
 * (ATOLL_EINVAL, with the loader's error or the first field that differs). A write error on out
 * itself returns ATOLL_EIO. */
int atoll_gpu_write_checked(FILE *out, const atoll_gpu *g, const char *header_comment, const char *const *notes,
                            atoll_diag *d);

/* The first difference between a and b in the fields atoll_gpu_write_yaml writes, as text in buf
 * ("costs.cp_dispatch_us: 4.2 us, read back 4.3 us"); returns false when they agree. The fields it
 * does not write (the optional keys) are not compared. */
bool atoll_gpu_first_difference(const atoll_gpu *a, const atoll_gpu *b, char *buf, size_t size);

#endif
