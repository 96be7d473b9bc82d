/* gpu_staging.h — first-in first-out allocation of a queue's pinned staging buffer.
 *
 * Why staging: the runtime's host buffers are ordinary (pageable) memory, which the device cannot
 * address, and the runtime may reuse a source buffer as soon as submit returns. So a queue's copies
 * go through a pinned buffer mapped into the device, which the copy launch reads or writes: H2D data
 * is copied into it at submit time, D2H data out of it when the launch completes. (An asynchronous
 * vendor copy from pageable memory would make the calling thread wait for the stream instead, and
 * submit must never wait for the device.)
 *
 * Launches of one queue complete in submission order, so the staging buffer is a ring that is
 * released from its oldest end: an allocation that does not fit before the end of the buffer
 * starts again at offset 0, and the skipped tail is counted in its span (released with it).
 *
 * Plain C11 (the unit tests build it on the CPU); the caller serialises access. */
#ifndef ATOLL_GPU_STAGING_H
#define ATOLL_GPU_STAGING_H

#include <stddef.h>

#include "atoll/error.h"

#define GPU_STAGING_ALIGN 64u

typedef struct gpu_staging {
  size_t cap;  /* bytes, a multiple of GPU_STAGING_ALIGN */
  size_t head; /* offset of the oldest live allocation */
  size_t used; /* bytes held, skipped tails included */
} gpu_staging;

static inline void gpu_staging_init(gpu_staging *s, size_t cap) {
  s->cap = cap - cap % GPU_STAGING_ALIGN;
  s->head = 0;
  s->used = 0;
}

/* Reserves `bytes` contiguous bytes. On success *offset is where they start and *span what
 * gpu_staging_release must be given back, in allocation order. ATOLL_ERANGE: larger than the whole
 * buffer; ATOLL_EFULL: no room until older allocations are released. */
static inline int gpu_staging_alloc(gpu_staging *s, size_t bytes, size_t *offset, size_t *span) {
  size_t need = bytes + (GPU_STAGING_ALIGN - bytes % GPU_STAGING_ALIGN) % GPU_STAGING_ALIGN;
  if (need == 0)
    need = GPU_STAGING_ALIGN;
  if (bytes > s->cap || need > s->cap)
    return ATOLL_ERANGE;
  if (s->used == 0)
    s->head = 0; /* empty: start over, so a large request fits whenever it fits at all */
  if (s->used == s->cap)
    return ATOLL_EFULL;
  size_t tail = s->head + s->used;
  if (tail < s->cap) { /* free space: [tail, cap) then [0, head) */
    if (s->cap - tail >= need) {
      *offset = tail;
      *span = need;
    } else if (s->head >= need) {
      *offset = 0;
      *span = (s->cap - tail) + need;
    } else {
      return ATOLL_EFULL;
    }
  } else { /* wrapped: free space is [tail - cap, head) */
    tail -= s->cap;
    if (s->head - tail < need)
      return ATOLL_EFULL;
    *offset = tail;
    *span = need;
  }
  s->used += *span;
  return 0;
}

/* Releases the oldest allocation (its span as returned by gpu_staging_alloc). */
static inline void gpu_staging_release(gpu_staging *s, size_t span) {
  s->head = (s->head + span) % s->cap;
  s->used -= span;
}

/* Undoes the newest allocation (a copy that could not be submitted after all). */
static inline void gpu_staging_undo_newest(gpu_staging *s, size_t span) { s->used -= span; }

#endif
