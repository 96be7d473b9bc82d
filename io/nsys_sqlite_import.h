/* Importing a model from an Nsight Systems SQLite export (`nsys export --type sqlite`), read with
 * libsqlite3: the kernels (CUPTI_ACTIVITY_KIND_KERNEL, names through StringIds), copies
 * (CUPTI_ACTIVITY_KIND_MEMCPY) and memsets (CUPTI_ACTIVITY_KIND_MEMSET) become a profile as the
 * CSV report's rows do (profiler_csv_import.h). docs/import.md lists the columns read. */
#ifndef ATOLL_IO_NSYS_SQLITE_IMPORT_H
#define ATOLL_IO_NSYS_SQLITE_IMPORT_H

#include <stdbool.h>

#include "io/torch_import.h"

/* Whether the file at path starts with SQLite's header ("SQLite format 3"). */
bool atoll_is_sqlite_file(const char *path);
/* Errors (not an SQLite file, a missing table or column) name the file, with no line: the
 * database is not text. */
int atoll_nsys_sqlite_import(atoll_arena *a, const char *path, const atoll_gpu *gpu, const atoll_torch_opts *o,
                             atoll_model *out, atoll_torch_info *info, atoll_diag *d);

#endif
