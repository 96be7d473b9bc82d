/* A byte buffer that a run's state is saved into and restored from (the explorer's checkpoints,
 * run.h): each part of the simulator writes its mutable state with put and reads it back, in the
 * same order, with get. The buffer grows as needed and is reused from one save to the next. */
#ifndef ATOLL_SIM_SNAPBUF_H
#define ATOLL_SIM_SNAPBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "atoll/error.h"

typedef struct atoll_snapbuf {
  unsigned char *p;
  size_t n, cap; /* bytes written, room */
  size_t at;     /* read position */
  bool oom;      /* a put could not grow the buffer: the save is void */
} atoll_snapbuf;

static inline void atoll_snapbuf_clear(atoll_snapbuf *b) { b->n = b->at = 0, b->oom = false; }

static inline void atoll_snapbuf_free(atoll_snapbuf *b) {
  free(b->p);
  *b = (atoll_snapbuf){0};
}

static inline void atoll_snapbuf_put(atoll_snapbuf *b, const void *src, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n)
      cap *= 2;
    unsigned char *np = realloc(b->p, cap);
    if (!np) {
      b->oom = true;
      return;
    }
    b->p = np, b->cap = cap;
  }
  if (n)
    memcpy(b->p + b->n, src, n);
  b->n += n;
}

static inline void atoll_snapbuf_get(atoll_snapbuf *b, void *dst, size_t n) {
  if (n)
    memcpy(dst, b->p + b->at, n);
  b->at += n;
}

/* Makes *p (of *cap elements of `size` bytes) hold at least n: a restore's arrays must hold what
 * was saved, however many elements the run has since dropped. */
static inline int atoll_snapbuf_room_for(void **p, uint32_t *cap, uint32_t n, size_t size) {
  if (n <= *cap)
    return 0;
  void *np = realloc(*p, n * size);
  if (!np)
    return ATOLL_ENOMEM;
  *p = np, *cap = n;
  return 0;
}

#endif
