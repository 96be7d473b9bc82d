/* REEF's backward group growth on interval sets; see grow.h. */
#include "idem/grow.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "idem/ivbuf.h"
#include "idem/normalize.h"

/* Each op's first-read, written and accessed bytes as canonical interval sets, stored one after
 * the other in one array so the growth loop reads them without copying. */
typedef struct op_sets {
  struct atoll_interval *iv;
  size_t n, cap;
  size_t *at; /* at[3 * op + s] .. at[3 * op + s + 1]: set s of op (0 FR, 1 W, 2 A) */
} op_sets;

static int append_set(op_sets *o, const idem_ivbuf *b) {
  if (b->set.count == 0)
    return ATOLL_OK;
  if (o->n + b->set.count > o->cap) {
    size_t cap = o->cap * 2 + b->set.count + 1;
    struct atoll_interval *iv = realloc(o->iv, cap * sizeof *iv);
    if (!iv)
      return ATOLL_ENOMEM;
    o->iv = iv;
    o->cap = cap;
  }
  memcpy(&o->iv[o->n], b->set.iv, (size_t)b->set.count * sizeof *o->iv);
  o->n += b->set.count;
  return ATOLL_OK;
}

static int insert_list(idem_ivbuf *b, const idem_rlist *l) {
  int rc = ATOLL_OK;
  for (uint32_t k = 0; k < l->n && rc == ATOLL_OK; k++)
    rc = idem_ivbuf_insert(b, l->r[k].lo, l->r[k].hi);
  return rc;
}

static int build_sets(const idem_trace *t, op_sets *o) {
  idem_norm nm;
  idem_ivbuf s[3];
  int rc = idem_norm_init(&nm);
  int made = 0;
  for (; made < 3 && rc == ATOLL_OK; made++)
    rc = idem_ivbuf_init(&s[made], 16);
  o->at = malloc(((size_t)3 * t->n_ops + 1) * sizeof *o->at);
  if (!o->at && rc == ATOLL_OK)
    rc = ATOLL_ENOMEM;
  for (uint32_t i = 0; i < t->n_ops && rc == ATOLL_OK; i++) {
    rc = idem_norm_op(&nm, idem_op_accesses(t, i), t->ops[i].n_acc);
    for (int k = 0; k < 3; k++)
      idem_ivbuf_clear(&s[k]);
    const idem_rlist *fr[] = {&nm.read_only, &nm.in_place};
    const idem_rlist *w[] = {&nm.in_place, &nm.write_first};
    const idem_rlist *a[] = {&nm.read_only, &nm.in_place, &nm.write_first};
    for (int k = 0; k < 2 && rc == ATOLL_OK; k++)
      rc = insert_list(&s[0], fr[k]);
    for (int k = 0; k < 2 && rc == ATOLL_OK; k++)
      rc = insert_list(&s[1], w[k]);
    for (int k = 0; k < 3 && rc == ATOLL_OK; k++)
      rc = insert_list(&s[2], a[k]);
    for (int k = 0; k < 3 && rc == ATOLL_OK; k++) {
      o->at[3 * (size_t)i + (size_t)k] = o->n;
      rc = append_set(o, &s[k]);
    }
  }
  if (rc == ATOLL_OK)
    o->at[3 * (size_t)t->n_ops] = o->n;
  for (int k = 0; k < made; k++)
    idem_ivbuf_free(&s[k]);
  idem_norm_free(&nm);
  return rc;
}

/* A read-only view of set s of op i. The sets live in one array with one spare slot at its end,
 * so even an empty set points at storage (the ivset needs cap >= 1). */
static struct atoll_ivset view(const op_sets *o, uint32_t i, int s) {
  size_t a = o->at[3 * (size_t)i + (size_t)s], b = o->at[3 * (size_t)i + (size_t)s + 1];
  uint32_t count = (uint32_t)(b - a);
  return (struct atoll_ivset){.iv = &o->iv[a], .cap = count ? count : 1, .count = count};
}

static int copy_into(idem_ivbuf *dst, const struct atoll_ivset *src) {
  idem_ivbuf_clear(dst);
  int rc = ATOLL_OK;
  for (uint32_t k = 0; k < src->count && rc == ATOLL_OK; k++)
    rc = idem_ivbuf_insert(dst, src->iv[k].lo, src->iv[k].hi);
  return rc;
}

static int grow_one(const op_sets *o, uint32_t i, idem_ivbuf *fr, idem_ivbuf *w, idem_ivbuf *tmp, idem_ivbuf *out,
                    uint32_t *entry) {
  struct atoll_ivset fr_i = view(o, i, 0), w_i = view(o, i, 1);
  int rc = copy_into(fr, &fr_i);
  if (rc == ATOLL_OK)
    rc = copy_into(w, &w_i);
  uint32_t j = i;
  while (rc == ATOLL_OK && atoll_ivset_intersects(&fr->set, &w->set)) {
    if (j == 0) {
      *entry = IDEM_NO_ENTRY;
      return ATOLL_OK;
    }
    j--;
    /* Op j joins in front: its own first accesses decide for every byte it touches. */
    idem_ivbuf fr_j = {view(o, j, 0)}, w_j = {view(o, j, 1)}, a_j = {view(o, j, 2)};
    rc = idem_ivbuf_subtract(fr, &a_j, tmp);
    if (rc == ATOLL_OK)
      rc = idem_ivbuf_union(&fr_j, tmp, out);
    if (rc == ATOLL_OK) {
      idem_ivbuf_swap(fr, out);
      rc = idem_ivbuf_union(w, &w_j, out);
    }
    if (rc == ATOLL_OK)
      idem_ivbuf_swap(w, out);
  }
  *entry = j;
  return rc;
}

int idem_search_grow(const idem_trace *t, uint32_t *entry) {
  op_sets o = {0};
  idem_ivbuf b[4];
  int made = 0;
  int rc = build_sets(t, &o);
  /* One spare slot past the last set keeps every view's pointer on storage. */
  if (rc == ATOLL_OK && o.n == o.cap) {
    struct atoll_interval *iv = realloc(o.iv, (o.cap + 1) * sizeof *iv);
    rc = iv ? ATOLL_OK : ATOLL_ENOMEM;
    if (iv)
      o.iv = iv;
  }
  for (; made < 4 && rc == ATOLL_OK; made++)
    rc = idem_ivbuf_init(&b[made], 16);
  for (uint32_t i = 0; i < t->n_ops && rc == ATOLL_OK; i++)
    rc = grow_one(&o, i, &b[0], &b[1], &b[2], &b[3], &entry[i]);
  for (int k = 0; k < made; k++)
    idem_ivbuf_free(&b[k]);
  free(o.iv);
  free(o.at);
  return rc;
}
