#include "io/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/limits.h"

/* Blocks grow geometrically from 16 KiB up to 16 MiB (so the blocks never hold much more than
 * what was handed out); a request larger than a block gets a block of its own. */
enum { ARENA_MIN_BLOCK = 16 * 1024, ARENA_MAX_BLOCK = 16 << 20, ARENA_ALIGN = 16 };

struct atoll_arena_block {
  struct atoll_arena_block *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
};

void atoll_arena_init(atoll_arena *a) { *a = (atoll_arena){0}; }

void *atoll_arena_alloc(atoll_arena *a, size_t n) {
  if (n > SIZE_MAX / 2)
    return NULL;
  size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (need == 0)
    need = ARENA_ALIGN;
  struct atoll_arena_block *b = a->head;
  if (!b || b->size - b->used < need) {
    size_t size = b ? b->size * 2 : ARENA_MIN_BLOCK;
    if (size > ARENA_MAX_BLOCK)
      size = ARENA_MAX_BLOCK;
    if (size < need)
      size = need;
    size_t room = (size_t)ATOLL_MAX_LOAD_BYTES - a->reserved;
    if (need > room) {
      a->over_limit = true;
      return NULL;
    }
    if (size > room)
      size = room;
    b = malloc(sizeof *b + size);
    if (!b)
      return NULL;
    b->size = size;
    b->used = 0;
    b->next = a->head;
    a->head = b;
    a->reserved += size;
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
  *a = (atoll_arena){0};
}

_Static_assert(ATOLL_MAX_LOAD_BYTES == 268435456, "atoll_arena_failure() quotes the limit");

const char *atoll_arena_failure(const atoll_arena *a) {
  if (a->over_limit)
    return "the input needs more than 268435456 bytes of memory (atoll's input limit, see docs/limits.md)";
  return "out of memory";
}
