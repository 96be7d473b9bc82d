#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Blocks grow geometrically from 16 KiB; a request larger than a block gets a block of its own. */
enum { ARENA_MIN_BLOCK = 16 * 1024, ARENA_ALIGN = 16 };

struct atoll_arena_block {
  struct atoll_arena_block *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

void atoll_arena_init(atoll_arena *a) { a->head = NULL; }

void *atoll_arena_alloc(atoll_arena *a, size_t n) {
  if (n > SIZE_MAX / 2)
    return NULL;
  size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (need == 0)
    need = ARENA_ALIGN;
  struct atoll_arena_block *b = a->head;
  if (!b || b->size - b->used < need) {
    size_t size = b ? b->size * 2 : ARENA_MIN_BLOCK;
    if (size < need)
      size = need;
    b = malloc(sizeof *b + size);
    if (!b)
      return NULL;
    b->size = size;
    b->used = 0;
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += need;
  memset(p, 0, need);
  return p;
}

void *atoll_arena_calloc(atoll_arena *a, size_t count, size_t size) {
  if (size && count > SIZE_MAX / 2 / size)
    return NULL;
  return atoll_arena_alloc(a, count * size);
}

char *atoll_arena_strndup(atoll_arena *a, const char *s, size_t n) {
  char *p = atoll_arena_alloc(a, n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

char *atoll_arena_strdup(atoll_arena *a, const char *s) { return atoll_arena_strndup(a, s, strlen(s)); }

void atoll_arena_free(atoll_arena *a) {
  struct atoll_arena_block *b = a->head;
  while (b) {
    struct atoll_arena_block *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}
