/* The forward group search; sweep.h explains the method and why it equals REEF's. */
#include "idem/sweep.h"

#include <string.h>

#include "atoll/error.h"

int idem_sweep_init(idem_sweep *s) {
  memset(s, 0, sizeof *s);
  int rc = idem_pmap_init(&s->last_write);
  if (rc == ATOLL_OK)
    rc = idem_pmap_init(&s->last_read);
  if (rc == ATOLL_OK)
    rc = idem_badset_init(&s->bad);
  if (rc == ATOLL_OK)
    rc = idem_norm_init(&s->norm);
  if (rc != ATOLL_OK)
    idem_sweep_free(s);
  return rc;
}

void idem_sweep_free(idem_sweep *s) {
  idem_pmap_free(&s->last_write);
  idem_pmap_free(&s->last_read);
  idem_badset_free(&s->bad);
  idem_norm_free(&s->norm);
  idem_pieces_free(&s->old_w);
  idem_pieces_free(&s->old_r);
}

/* Walks two piece lists over [lo, hi) together, segment by segment; bytes a list does not cover
 * have value 0. The lists are in address order and clipped to [lo, hi). */
typedef struct walk {
  const idem_pieces *l;
  size_t k;
} walk;

/* The value at x and the address where it may next change. */
static uint32_t walk_at(walk *w, uint64_t x, uint64_t hi, uint64_t *next) {
  while (w->k < w->l->n && w->l->p[w->k].hi <= x)
    w->k++;
  if (w->k == w->l->n) {
    *next = hi;
    return 0;
  }
  const idem_piece *p = &w->l->p[w->k];
  if (p->lo <= x) {
    *next = p->hi;
    return p->val;
  }
  *next = p->lo;
  return 0;
}

/* Calls fn for each segment of [lo, hi) where the read value exceeds the write value: bytes read
 * since their last write. */
typedef void (*reread_fn)(idem_sweep *s, uint32_t last_write, uint32_t last_read);

static void each_read_since_write(idem_sweep *s, const idem_pieces *w, const idem_pieces *r, uint64_t lo, uint64_t hi,
                                  reread_fn fn) {
  walk ww = {w, 0}, wr = {r, 0};
  for (uint64_t x = lo; x < hi;) {
    uint64_t nw, nr;
    uint32_t lv = walk_at(&ww, x, hi, &nw);
    uint32_t rv = walk_at(&wr, x, hi, &nr);
    if (rv > lv)
      fn(s, lv, rv);
    x = nw < nr ? nw : nr;
  }
}

/* Op s->n_ops writes bytes first that ops after their last writer (stored lv = L + 1) read up to
 * rv = R + 1: the starts L+1 .. R see that read first. */
static void mark_reread(idem_sweep *s, uint32_t lv, uint32_t rv) { idem_badset_mark(&s->bad, lv, rv - 1); }

static void dep_war(idem_sweep *s, uint32_t lv, uint32_t rv) {
  (void)lv;
  s->dep(s->dep_ctx, rv - 1, s->n_ops, IDEM_DEP_WAR);
}

/* The op reads [lo, hi) first and then writes it: starts after the oldest last writer of any of
 * its bytes (or from op 0 when a byte was never written) see a read first. */
static int in_place(idem_sweep *s, uint64_t lo, uint64_t hi, uint32_t me) {
  s->old_w.n = 0;
  int rc = idem_pmap_assign(&s->last_write, lo, hi, me, &s->old_w);
  if (rc)
    return rc;
  uint64_t covered = 0;
  uint32_t oldest = UINT32_MAX;
  for (size_t k = 0; k < s->old_w.n; k++) {
    covered += s->old_w.p[k].hi - s->old_w.p[k].lo;
    if (s->old_w.p[k].val < oldest)
      oldest = s->old_w.p[k].val;
  }
  if (covered < hi - lo)
    oldest = 0; /* a byte never written before */
  idem_badset_mark(&s->bad, oldest, me - 1);
  return idem_pmap_assign(&s->last_read, lo, hi, me, NULL);
}

static int write_first(idem_sweep *s, uint64_t lo, uint64_t hi, uint32_t me) {
  s->old_w.n = 0;
  s->old_r.n = 0;
  int rc = idem_pmap_assign(&s->last_write, lo, hi, me, &s->old_w);
  if (rc == ATOLL_OK)
    rc = idem_pmap_assign(&s->last_read, lo, hi, me, &s->old_r);
  /* Reads always assign the read map and writes both maps, so the read value is never below the
   * write value: without read pieces nothing was read since its last write. */
  if (rc == ATOLL_OK && s->old_r.n > 0)
    each_read_since_write(s, &s->old_w, &s->old_r, lo, hi, mark_reread);
  return rc;
}

/* Dependencies for the DOT writer, looked up before the op changes the maps. */
static int report_deps(idem_sweep *s) {
  const idem_norm *nm = &s->norm;
  uint32_t me = s->n_ops;
  const idem_rlist *reads[] = {&nm->read_only, &nm->in_place};
  for (int l = 0; l < 2; l++) {
    for (uint32_t k = 0; k < reads[l]->n; k++) {
      s->old_w.n = 0;
      int rc = idem_pmap_query(&s->last_write, reads[l]->r[k].lo, reads[l]->r[k].hi, &s->old_w);
      if (rc)
        return rc;
      for (size_t p = 0; p < s->old_w.n; p++)
        s->dep(s->dep_ctx, s->old_w.p[p].val - 1, me, IDEM_DEP_RAW);
    }
  }
  const idem_rlist *writes[] = {&nm->in_place, &nm->write_first};
  for (int l = 0; l < 2; l++) {
    for (uint32_t k = 0; k < writes[l]->n; k++) {
      uint64_t lo = writes[l]->r[k].lo, hi = writes[l]->r[k].hi;
      s->old_w.n = 0;
      s->old_r.n = 0;
      int rc = idem_pmap_query(&s->last_write, lo, hi, &s->old_w);
      if (rc == ATOLL_OK)
        rc = idem_pmap_query(&s->last_read, lo, hi, &s->old_r);
      if (rc)
        return rc;
      each_read_since_write(s, &s->old_w, &s->old_r, lo, hi, dep_war);
    }
  }
  return ATOLL_OK;
}

int idem_sweep_op(idem_sweep *s, const idem_access *acc, uint32_t n, uint32_t *entry) {
  if (s->n_ops >= IDEM_MAX_OPS)
    return ATOLL_ERANGE;
  int rc = idem_badset_push(&s->bad);
  if (rc == ATOLL_OK)
    rc = idem_norm_op(&s->norm, acc, n);
  if (rc == ATOLL_OK && s->dep)
    rc = report_deps(s);
  /* The three lists are disjoint, so each range sees the maps as the earlier ops left them. */
  const idem_norm *nm = &s->norm;
  uint32_t me = s->n_ops + 1;
  for (uint32_t k = 0; k < nm->in_place.n && rc == ATOLL_OK; k++)
    rc = in_place(s, nm->in_place.r[k].lo, nm->in_place.r[k].hi, me);
  for (uint32_t k = 0; k < nm->write_first.n && rc == ATOLL_OK; k++)
    rc = write_first(s, nm->write_first.r[k].lo, nm->write_first.r[k].hi, me);
  for (uint32_t k = 0; k < nm->read_only.n && rc == ATOLL_OK; k++)
    rc = idem_pmap_assign(&s->last_read, nm->read_only.r[k].lo, nm->read_only.r[k].hi, me, NULL);
  if (rc)
    return rc;
  *entry = idem_badset_find(&s->bad, s->n_ops);
  s->n_ops++;
  return ATOLL_OK;
}

int idem_search(const idem_trace *t, uint32_t *entry) {
  idem_sweep s;
  int rc = idem_sweep_init(&s);
  for (uint32_t i = 0; i < t->n_ops && rc == ATOLL_OK; i++)
    rc = idem_sweep_op(&s, idem_op_accesses(t, i), t->ops[i].n_acc, &entry[i]);
  idem_sweep_free(&s);
  return rc;
}
