/* A bump allocator: everything a loaded scenario or model owns lives in one arena, so a failed load
 * frees everything at once (nothing half-built survives) and a good one is freed with one call.
 *
 * An arena holds at most ATOLL_MAX_LOAD_BYTES (include/atoll/limits.h): the input limit on the
 * memory one load takes, whatever the number and size of the files it reads. */
#ifndef ATOLL_IO_ARENA_H
#define ATOLL_IO_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct atoll_arena {
  struct atoll_arena_block *head;
  size_t reserved;  /* bytes of all blocks */
  bool over_limit;  /* an allocation was refused for passing ATOLL_MAX_LOAD_BYTES */
} atoll_arena;

void atoll_arena_init(atoll_arena *a);
/* Zeroed, aligned for any type; NULL when memory is exhausted, the arena's limit is reached or n
 * overflows. */
void *atoll_arena_alloc(atoll_arena *a, size_t n);
void *atoll_arena_calloc(atoll_arena *a, size_t count, size_t size);
char *atoll_arena_strndup(atoll_arena *a, const char *s, size_t n);
char *atoll_arena_strdup(atoll_arena *a, const char *s);
void atoll_arena_free(atoll_arena *a);
/* Why an allocation failed, for messages: the input limit when the arena reached it, else
 * "out of memory". */
const char *atoll_arena_failure(const atoll_arena *a);

#endif
