/* Growable storage around core/ds interval sets: grow on ATOLL_EFULL and retry. */
#include "idem/ivbuf.h"

#include <stdlib.h>

#include "atoll/error.h"

int idem_ivbuf_init(idem_ivbuf *b, uint32_t cap) {
  if (cap == 0)
    cap = 1;
  struct atoll_interval *iv = malloc((size_t)cap * sizeof *iv);
  if (!iv)
    return ATOLL_ENOMEM;
  return atoll_ivset_init(&b->set, iv, cap);
}

void idem_ivbuf_free(idem_ivbuf *b) {
  free(b->set.iv);
  b->set.iv = NULL;
  b->set.cap = 0;
  b->set.count = 0;
}

void idem_ivbuf_clear(idem_ivbuf *b) { atoll_ivset_clear(&b->set); }

/* Makes room for at least `need` ranges, keeping the current ones. */
static int reserve(idem_ivbuf *b, uint64_t need) {
  if (need <= b->set.cap)
    return ATOLL_OK;
  if (need > UINT32_MAX)
    return ATOLL_ENOMEM;
  uint64_t cap = (uint64_t)b->set.cap * 2;
  if (cap < need)
    cap = need;
  if (cap > UINT32_MAX)
    cap = UINT32_MAX;
  struct atoll_interval *iv = realloc(b->set.iv, (size_t)cap * sizeof *iv);
  if (!iv)
    return ATOLL_ENOMEM;
  b->set.iv = iv;
  b->set.cap = (uint32_t)cap;
  return ATOLL_OK;
}

int idem_ivbuf_insert(idem_ivbuf *b, uint64_t lo, uint64_t hi) {
  int rc = atoll_ivset_insert(&b->set, lo, hi);
  if (rc != ATOLL_EFULL)
    return rc;
  /* A failed insert left the set unchanged; one more range always suffices. */
  rc = reserve(b, (uint64_t)b->set.count + 1);
  return rc ? rc : atoll_ivset_insert(&b->set, lo, hi);
}

typedef int (*binary_fn)(const struct atoll_ivset *, const struct atoll_ivset *, struct atoll_ivset *);

static int binary(binary_fn fn, const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out) {
  int rc = fn(&a->set, &b->set, &out->set);
  if (rc != ATOLL_EFULL)
    return rc;
  /* Each result range starts at a range start of a or b (or right after an end of b, for the
   * difference), so count(a) + count(b) + 1 ranges always suffice. */
  rc = reserve(out, (uint64_t)a->set.count + b->set.count + 1);
  return rc ? rc : fn(&a->set, &b->set, &out->set);
}

int idem_ivbuf_union(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out) {
  return binary(atoll_ivset_union, a, b, out);
}

int idem_ivbuf_subtract(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out) {
  return binary(atoll_ivset_subtract, a, b, out);
}

int idem_ivbuf_intersect(const idem_ivbuf *a, const idem_ivbuf *b, idem_ivbuf *out) {
  return binary(atoll_ivset_intersect, a, b, out);
}

void idem_ivbuf_swap(idem_ivbuf *a, idem_ivbuf *b) {
  struct atoll_ivset t = a->set;
  a->set = b->set;
  b->set = t;
}
