/* Piece map in blocks of sorted pieces; see pmap.h for the design. */
#include "idem/pmap.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

struct idem_pblock {
  uint32_t n;
  idem_piece p[IDEM_PMAP_BLOCK];
};

/* A position: piece i of block k. Positions are kept normalised: i < blk[k]->n, except at the
 * end of the map (last block, i == n). */
typedef struct pos {
  uint32_t k, i;
} pos;

static int pieces_push(idem_pieces *l, uint64_t lo, uint64_t hi, uint32_t val) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 32;
    idem_piece *p = realloc(l->p, cap * sizeof *p);
    if (!p)
      return ATOLL_ENOMEM;
    l->p = p;
    l->cap = cap;
  }
  l->p[l->n++] = (idem_piece){lo, hi, val};
  return ATOLL_OK;
}

void idem_pieces_free(idem_pieces *l) {
  free(l->p);
  l->p = NULL;
  l->n = l->cap = 0;
}

int idem_pmap_init(idem_pmap *m) {
  memset(m, 0, sizeof *m);
  m->blk = malloc(4 * sizeof *m->blk);
  m->first = malloc(4 * sizeof *m->first);
  struct idem_pblock *b = calloc(1, sizeof *b);
  if (!m->blk || !m->first || !b) {
    free(m->blk);
    free(m->first);
    free(b);
    memset(m, 0, sizeof *m);
    return ATOLL_ENOMEM;
  }
  m->blk[0] = b;
  m->first[0] = 0;
  m->nblk = 1;
  m->cap = 4;
  return ATOLL_OK;
}

void idem_pmap_free(idem_pmap *m) {
  for (uint32_t k = 0; k < m->nblk; k++)
    free(m->blk[k]);
  free(m->spare);
  free(m->blk);
  free(m->first);
  memset(m, 0, sizeof *m);
}

size_t idem_pmap_count(const idem_pmap *m) {
  size_t n = 0;
  for (uint32_t k = 0; k < m->nblk; k++)
    n += m->blk[k]->n;
  return n;
}

/* Everything a split may need — a slot in the block arrays and a spare block — is allocated before
 * an update changes anything, so an update either fails with the map unchanged or succeeds. */
static int reserve_split(idem_pmap *m) {
  if (!m->spare && !(m->spare = malloc(sizeof *m->spare)))
    return ATOLL_ENOMEM;
  if (m->nblk < m->cap)
    return ATOLL_OK;
  uint32_t cap = m->cap * 2;
  struct idem_pblock **blk = realloc(m->blk, (size_t)cap * sizeof *blk);
  if (!blk)
    return ATOLL_ENOMEM;
  m->blk = blk;
  uint64_t *first = realloc(m->first, (size_t)cap * sizeof *first);
  if (!first)
    return ATOLL_ENOMEM;
  m->first = first;
  m->cap = cap;
  return ATOLL_OK;
}

static void set_first(idem_pmap *m, uint32_t k) { m->first[k] = m->blk[k]->n ? m->blk[k]->p[0].lo : 0; }

static void insert_block(idem_pmap *m, uint32_t k, struct idem_pblock *b) {
  memmove(&m->blk[k + 1], &m->blk[k], (size_t)(m->nblk - k) * sizeof *m->blk);
  memmove(&m->first[k + 1], &m->first[k], (size_t)(m->nblk - k) * sizeof *m->first);
  m->blk[k] = b;
  m->nblk++;
  set_first(m, k);
}

/* Removes blocks k .. k + count - 1; one is kept as the spare. */
static void remove_blocks(idem_pmap *m, uint32_t k, uint32_t count) {
  for (uint32_t j = k; j < k + count; j++) {
    if (!m->spare)
      m->spare = m->blk[j];
    else
      free(m->blk[j]);
  }
  memmove(&m->blk[k], &m->blk[k + count], (size_t)(m->nblk - k - count) * sizeof *m->blk);
  memmove(&m->first[k], &m->first[k + count], (size_t)(m->nblk - k - count) * sizeof *m->first);
  m->nblk -= count;
}

/* The first piece that ends after lo: the first one [lo, ...) could overlap. Pieces of blocks
 * before k end at or before first[k] <= lo, so the block search only needs first[]. */
static pos locate(const idem_pmap *m, uint64_t lo) {
  uint32_t a = 1, b = m->nblk;
  while (a < b) {
    uint32_t mid = a + (b - a) / 2;
    if (m->first[mid] <= lo)
      a = mid + 1;
    else
      b = mid;
  }
  pos p = {a - 1, 0};
  const struct idem_pblock *blk = m->blk[p.k];
  uint32_t x = 0, y = blk->n;
  while (x < y) {
    uint32_t mid = x + (y - x) / 2;
    if (blk->p[mid].hi <= lo)
      x = mid + 1;
    else
      y = mid;
  }
  p.i = x;
  if (p.i == blk->n && p.k + 1 < m->nblk) {
    p.k++;
    p.i = 0;
  }
  return p;
}

static bool at_end(const idem_pmap *m, pos p) { return p.i >= m->blk[p.k]->n; }

static void advance(const idem_pmap *m, pos *p) {
  p->i++;
  if (p->i == m->blk[p->k]->n && p->k + 1 < m->nblk) {
    p->k++;
    p->i = 0;
  }
}

/* Replaces pieces i..j of block k with repl[0..nrepl), splitting the block in two halves when
 * they do not fit. The caller has reserved what a split needs (reserve_split). */
static void splice(idem_pmap *m, uint32_t k, uint32_t i, uint32_t j, const idem_piece *repl, uint32_t nrepl) {
  struct idem_pblock *b = m->blk[k];
  uint32_t n2 = b->n - (j - i) + nrepl;
  if (n2 <= IDEM_PMAP_BLOCK) {
    memmove(&b->p[i + nrepl], &b->p[j], (size_t)(b->n - j) * sizeof *b->p);
    memcpy(&b->p[i], repl, (size_t)nrepl * sizeof *repl);
    b->n = n2;
    set_first(m, k);
    return;
  }
  struct idem_pblock *nb = m->spare;
  m->spare = NULL;
  idem_piece tmp[IDEM_PMAP_BLOCK + 3];
  memcpy(tmp, b->p, (size_t)i * sizeof *tmp);
  memcpy(&tmp[i], repl, (size_t)nrepl * sizeof *tmp);
  memcpy(&tmp[i + nrepl], &b->p[j], (size_t)(b->n - j) * sizeof *tmp);
  uint32_t left = n2 / 2;
  memcpy(b->p, tmp, (size_t)left * sizeof *tmp);
  b->n = left;
  memcpy(nb->p, &tmp[left], (size_t)(n2 - left) * sizeof *tmp);
  nb->n = n2 - left;
  set_first(m, k);
  insert_block(m, k + 1, nb);
}

/* Keeps a touched block at least a quarter full (unless it is the only one): merge it with a
 * neighbour when both fit in one block, otherwise share their pieces evenly. This bounds the
 * number of blocks by 4P / IDEM_PMAP_BLOCK + 1. */
static void rebalance(idem_pmap *m, uint32_t k) {
  if (m->nblk == 1 || k >= m->nblk || m->blk[k]->n >= IDEM_PMAP_BLOCK / 4)
    return;
  uint32_t l = k + 1 < m->nblk ? k : k - 1;
  struct idem_pblock *a = m->blk[l], *b = m->blk[l + 1];
  uint32_t total = a->n + b->n;
  if (total <= IDEM_PMAP_BLOCK) {
    memcpy(&a->p[a->n], b->p, (size_t)b->n * sizeof *b->p);
    a->n = total;
    set_first(m, l);
    remove_blocks(m, l + 1, 1);
    return;
  }
  uint32_t want = total / 2;
  if (a->n < want) {
    uint32_t move = want - a->n;
    memcpy(&a->p[a->n], b->p, (size_t)move * sizeof *b->p);
    memmove(b->p, &b->p[move], (size_t)(b->n - move) * sizeof *b->p);
    a->n += move;
    b->n -= move;
  } else {
    uint32_t move = a->n - want;
    memmove(&b->p[move], b->p, (size_t)b->n * sizeof *b->p);
    memcpy(b->p, &a->p[want], (size_t)move * sizeof *b->p);
    a->n = want;
    b->n += move;
  }
  set_first(m, l);
  set_first(m, l + 1);
}

/* Replaces the pieces from s up to (not including) e with repl[0..nrepl). */
static void replace(idem_pmap *m, pos s, pos e, const idem_piece *repl, uint32_t nrepl) {
  if (e.k > s.k && e.i == 0) {
    e.k--;
    e.i = m->blk[e.k]->n;
  }
  if (e.k > s.k) {
    /* The span crosses blocks: keep the head of s's block and the tail of e's, drop the blocks
     * between, then put the replacement at the end of s's block. */
    m->blk[s.k]->n = s.i;
    struct idem_pblock *last = m->blk[e.k];
    memmove(last->p, &last->p[e.i], (size_t)(last->n - e.i) * sizeof *last->p);
    last->n -= e.i;
    set_first(m, e.k);
    remove_blocks(m, s.k + 1, e.k - s.k - 1);
    if (last->n == 0)
      remove_blocks(m, s.k + 1, 1);
    e = (pos){s.k, s.i};
  }
  splice(m, s.k, s.i, e.i, repl, nrepl);
  if (s.k + 1 < m->nblk)
    rebalance(m, s.k + 1);
  rebalance(m, s.k);
}

int idem_pmap_assign(idem_pmap *m, uint64_t lo, uint64_t hi, uint32_t val, idem_pieces *old) {
  if (lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  int rc = reserve_split(m);
  if (rc)
    return rc;
  pos s = locate(m, lo), e = s;
  idem_piece head = {0}, tail = {0};
  bool any = false;
  for (; !at_end(m, e); advance(m, &e)) {
    const idem_piece *p = &m->blk[e.k]->p[e.i];
    if (p->lo >= hi)
      break;
    if (old && (rc = pieces_push(old, p->lo > lo ? p->lo : lo, p->hi < hi ? p->hi : hi, p->val)) != ATOLL_OK)
      return rc;
    if (!any)
      head = *p;
    tail = *p;
    any = true;
  }
  idem_piece repl[3];
  uint32_t nrepl = 0;
  if (any && head.lo < lo)
    repl[nrepl++] = (idem_piece){head.lo, lo, head.val};
  repl[nrepl++] = (idem_piece){lo, hi, val};
  if (any && tail.hi > hi)
    repl[nrepl++] = (idem_piece){hi, tail.hi, tail.val};
  replace(m, s, e, repl, nrepl);
  return ATOLL_OK;
}

int idem_pmap_query(const idem_pmap *m, uint64_t lo, uint64_t hi, idem_pieces *out) {
  if (lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  for (pos e = locate(m, lo); !at_end(m, e); advance(m, &e)) {
    const idem_piece *p = &m->blk[e.k]->p[e.i];
    if (p->lo >= hi)
      break;
    int rc = pieces_push(out, p->lo > lo ? p->lo : lo, p->hi < hi ? p->hi : hi, p->val);
    if (rc)
      return rc;
  }
  return ATOLL_OK;
}

bool idem_pmap_is_valid(const idem_pmap *m) {
  if (!m || !m->blk || !m->first || m->nblk == 0 || m->nblk > m->cap)
    return false;
  bool have_prev = false;
  uint64_t prev_hi = 0;
  for (uint32_t k = 0; k < m->nblk; k++) {
    const struct idem_pblock *b = m->blk[k];
    if (!b || b->n > IDEM_PMAP_BLOCK || (b->n == 0 && m->nblk > 1))
      return false;
    if (k > 0 && m->first[k] != b->p[0].lo)
      return false;
    for (uint32_t i = 0; i < b->n; i++) {
      if (b->p[i].lo >= b->p[i].hi || (have_prev && b->p[i].lo < prev_hi))
        return false;
      prev_hi = b->p[i].hi;
      have_prev = true;
    }
  }
  return true;
}
