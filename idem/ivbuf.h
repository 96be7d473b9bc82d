/* An interval set (core/ds/ivset.h) that owns growable storage.
 *
 * The ivset works in caller storage and reports ATOLL_EFULL rather than allocate, leaving the set
 * unchanged (insert) or the output empty (intersect/union/subtract). These wrappers catch that,
 * double the storage and retry, so idem_checker can use the proved data structure on sets whose
 * size it cannot know in advance. */
#ifndef ATOLL_IDEM_IVBUF_H
#define ATOLL_IDEM_IVBUF_H

#include <stdint.h>

#include "core/ds/ivset.h"

typedef struct idem_ivbuf {
  struct atoll_ivset set;
} idem_ivbuf;

int idem_ivbuf_init(idem_ivbuf *b, uint32_t cap);
void idem_ivbuf_free(idem_ivbuf *b);
void idem_ivbuf_clear(idem_ivbuf *b);
int idem_ivbuf_insert(idem_ivbuf *b, uint64_t lo, uint64_t hi);
/* out = a op b for the three set operations; out must be distinct from a and b. */
int idem_ivbuf_union(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out);
int idem_ivbuf_subtract(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out);
int idem_ivbuf_intersect(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out);
/* Exchanges the contents (storage included) of a and b. */
void idem_ivbuf_swap(idem_ivbuf *a, idem_ivbuf *b);

#endif
