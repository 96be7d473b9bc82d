/* The start every loader of a one-object YAML file shares (InSS's model, the latency predictor):
 * the file parsed, a reader on it, the object it fills, its root mapping's keys. */
#ifndef ATOLL_IO_YREAD_FILE_H
#define ATOLL_IO_YREAD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "io/arena.h"
#include "io/diag.h"
#include "io/yread.h"

/* Parses the YAML file at path into the arena, starts r on it (errors into d), allocates the
 * zeroed object of `size` bytes it is read into (*obj), then reads the root as the mapping `what`
 * of keys[0..nkeys) into vals (atoll_yread_map). *root is the root, for later errors at it.
 * Returns 0, or the error with d set: the file's, the allocation's (at the root) or the mapping's,
 * in that order. */
int atoll_yread_file_map(atoll_arena *a, const char *path, atoll_diag *d, atoll_yread *r, size_t size, void **obj,
                         const atoll_ynode **root, const char *what, const char *const *keys, uint32_t nkeys,
                         const atoll_ynode **vals);

#endif
