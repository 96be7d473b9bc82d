/* Bad group starts as a union-find with path halving; see badset.h. */
#include "idem/badset.h"

#include <stdlib.h>

#include "atoll/error.h"

int idem_badset_init(idem_badset *b) {
  b->cap = 1024;
  b->up = malloc((size_t)b->cap * sizeof *b->up);
  if (!b->up)
    return ATOLL_ENOMEM;
  b->up[0] = 0;
  b->n = 0;
  return ATOLL_OK;
}

void idem_badset_free(idem_badset *b) {
  free(b->up);
  b->up = NULL;
  b->n = b->cap = 0;
}

int idem_badset_push(idem_badset *b) {
  if (b->n + 1 >= b->cap) {
    if (b->cap > UINT32_MAX / 2)
      return ATOLL_ERANGE;
    uint32_t *up = realloc(b->up, (size_t)b->cap * 2 * sizeof *up);
    if (!up)
      return ATOLL_ENOMEM;
    b->up = up;
    b->cap *= 2;
  }
  b->n++;
  b->up[b->n] = b->n; /* slot x = j + 1 for the new op j = n - 1: a root, i.e. a good start */
  return ATOLL_OK;
}

/* The root at or below slot x: the slot of the largest good start, or 0. */
static uint32_t root(idem_badset *b, uint32_t x) {
  while (b->up[x] != x) {
    b->up[x] = b->up[b->up[x]];
    x = b->up[x];
  }
  return x;
}

void idem_badset_mark(idem_badset *b, uint32_t lo, uint32_t hi) {
  /* Visit only the good starts in lo..hi, from the top: each is linked to the slot below it and
   * never visited again. */
  for (uint32_t x = root(b, hi + 1); x > lo; x = root(b, x - 1))
    b->up[x] = x - 1;
}

uint32_t idem_badset_find(idem_badset *b, uint32_t j) {
  uint32_t x = root(b, j + 1);
  return x == 0 ? IDEM_NO_ENTRY : x - 1;
}
