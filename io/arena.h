/* A bump allocator: everything a loaded scenario or model owns lives in one arena, so a failed load
 * frees everything at once (nothing half-built survives) and a good one is freed with one call. */
#ifndef ATOLL_IO_ARENA_H
#define ATOLL_IO_ARENA_H

#include <stddef.h>

typedef struct atoll_arena {
  struct atoll_arena_block *head;
} atoll_arena;

void atoll_arena_init(atoll_arena *a);
/* Zeroed, aligned for any type; NULL when memory is exhausted or n overflows. */
void *atoll_arena_alloc(atoll_arena *a, size_t n);
void *atoll_arena_calloc(atoll_arena *a, size_t count, size_t size);
char *atoll_arena_strndup(atoll_arena *a, const char *s, size_t n);
char *atoll_arena_strdup(atoll_arena *a, const char *s);
void atoll_arena_free(atoll_arena *a);

#endif
