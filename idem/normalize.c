/* Per-op first-access classification; see normalize.h. */
#include "idem/normalize.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

static int rlist_push(idem_rlist *l, uint64_t lo, uint64_t hi) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? l->cap * 2 : 16;
    if (cap <= l->cap)
      return ATOLL_ENOMEM;
    struct atoll_interval *r = realloc(l->r, (size_t)cap * sizeof *r);
    if (!r)
      return ATOLL_ENOMEM;
    l->r = r;
    l->cap = cap;
  }
  l->r[l->n++] = (struct atoll_interval){lo, hi};
  return ATOLL_OK;
}

/* Appends the ranges of a set to a list. */
static int rlist_push_set(idem_rlist *l, const idem_ivbuf *b) {
  for (uint32_t i = 0; i < b->set.count; i++) {
    int rc = rlist_push(l, b->set.iv[i].lo, b->set.iv[i].hi);
    if (rc)
      return rc;
  }
  return ATOLL_OK;
}

int idem_norm_init(idem_norm *nm) {
  memset(nm, 0, sizeof *nm);
  idem_ivbuf *sets[] = {&nm->seen, &nm->first_read, &nm->written, &nm->one, &nm->tmp, &nm->out};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
    if (idem_ivbuf_init(sets[i], 16) != ATOLL_OK) {
      idem_norm_free(nm);
      return ATOLL_ENOMEM;
    }
  }
  return ATOLL_OK;
}

void idem_norm_free(idem_norm *nm) {
  free(nm->read_only.r);
  free(nm->in_place.r);
  free(nm->write_first.r);
  free(nm->sorted);
  idem_ivbuf *sets[] = {&nm->seen, &nm->first_read, &nm->written, &nm->one, &nm->tmp, &nm->out};
  for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
    idem_ivbuf_free(sets[i]);
  memset(nm, 0, sizeof *nm);
}

static int cmp_lo(const void *a, const void *b) {
  uint64_t x = ((const idem_access *)a)->lo, y = ((const idem_access *)b)->lo;
  return (x > y) - (x < y);
}

/* Sorts copies of the lines by start address; true when no two of them share a byte. */
static int sort_lines(idem_norm *nm, const idem_access *acc, uint32_t n, bool *disjoint) {
  if (n > nm->cap_sorted) {
    idem_access *s = realloc(nm->sorted, (size_t)n * sizeof *s);
    if (!s)
      return ATOLL_ENOMEM;
    nm->sorted = s;
    nm->cap_sorted = n;
  }
  idem_access *s = nm->sorted;
  memcpy(s, acc, (size_t)n * sizeof *s);
  if (n <= 32) {
    /* Insertion sort: ops carry a handful of lines, where it beats qsort's call overhead. */
    for (uint32_t i = 1; i < n; i++) {
      idem_access x = s[i];
      uint32_t j = i;
      while (j > 0 && s[j - 1].lo > x.lo) {
        s[j] = s[j - 1];
        j--;
      }
      s[j] = x;
    }
  } else {
    qsort(s, n, sizeof *s, cmp_lo);
  }
  uint64_t reach = s[0].hi;
  *disjoint = true;
  for (uint32_t i = 1; i < n; i++) {
    if (s[i].lo < reach) {
      *disjoint = false;
      break;
    }
    reach = s[i].hi;
  }
  return ATOLL_OK;
}

/* Every byte is accessed by exactly one line: reads are read-only, writes are write-first. Touching
 * lines of the same kind are merged, which saves the search map operations. */
static int classify_disjoint(idem_norm *nm, uint32_t n) {
  const idem_access *s = nm->sorted;
  uint32_t i = 0;
  while (i < n) {
    uint64_t lo = s[i].lo, hi = s[i].hi;
    bool write = s[i].write;
    uint32_t j = i + 1;
    while (j < n && s[j].write == write && s[j].lo == hi)
      hi = s[j++].hi;
    int rc = rlist_push(write ? &nm->write_first : &nm->read_only, lo, hi);
    if (rc)
      return rc;
    i = j;
  }
  return ATOLL_OK;
}

/* Lines overlap: replay them in order. A read adds to first_read the part of its range no earlier
 * line of the op touched; every line adds its range to seen, and writes to written. */
static int classify_replay(idem_norm *nm, const idem_access *acc, uint32_t n) {
  idem_ivbuf_clear(&nm->seen);
  idem_ivbuf_clear(&nm->first_read);
  idem_ivbuf_clear(&nm->written);
  int rc = ATOLL_OK;
  for (uint32_t i = 0; i < n && rc == ATOLL_OK; i++) {
    const idem_access *a = &acc[i];
    if (a->write) {
      rc = idem_ivbuf_insert(&nm->written, a->lo, a->hi);
    } else if (!atoll_ivset_overlaps(&nm->seen.set, a->lo, a->hi)) {
      rc = idem_ivbuf_insert(&nm->first_read, a->lo, a->hi);
    } else {
      idem_ivbuf_clear(&nm->one);
      rc = idem_ivbuf_insert(&nm->one, a->lo, a->hi);
      if (rc == ATOLL_OK)
        rc = idem_ivbuf_subtract(&nm->one, &nm->seen, &nm->tmp);
      if (rc == ATOLL_OK)
        rc = idem_ivbuf_union(&nm->first_read, &nm->tmp, &nm->out);
      if (rc == ATOLL_OK)
        idem_ivbuf_swap(&nm->first_read, &nm->out);
    }
    if (rc == ATOLL_OK)
      rc = idem_ivbuf_insert(&nm->seen, a->lo, a->hi);
  }
  if (rc == ATOLL_OK)
    rc = idem_ivbuf_subtract(&nm->first_read, &nm->written, &nm->out);
  if (rc == ATOLL_OK)
    rc = rlist_push_set(&nm->read_only, &nm->out);
  if (rc == ATOLL_OK)
    rc = idem_ivbuf_intersect(&nm->first_read, &nm->written, &nm->out);
  if (rc == ATOLL_OK)
    rc = rlist_push_set(&nm->in_place, &nm->out);
  if (rc == ATOLL_OK)
    rc = idem_ivbuf_subtract(&nm->written, &nm->first_read, &nm->out);
  if (rc == ATOLL_OK)
    rc = rlist_push_set(&nm->write_first, &nm->out);
  return rc;
}

int idem_norm_op(idem_norm *nm, const idem_access *acc, uint32_t n) {
  nm->read_only.n = 0;
  nm->in_place.n = 0;
  nm->write_first.n = 0;
  if (n == 0)
    return ATOLL_OK;
  if (n == 1)
    return rlist_push(acc[0].write ? &nm->write_first : &nm->read_only, acc[0].lo, acc[0].hi);
  bool disjoint;
  int rc = sort_lines(nm, acc, n, &disjoint);
  if (rc)
    return rc;
  return disjoint ? classify_disjoint(nm, n) : classify_replay(nm, acc, n);
}
