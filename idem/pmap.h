/* A piece map: a value for every byte address, kept as sorted, disjoint pieces [lo, hi) -> value.
 * Bytes never assigned have the value 0 and are not stored.
 *
 * Why not an interval set: the group search (sweep.c) needs, for each byte, which op last wrote it
 * and which op last read it: a value per range, not membership. Its one update is "assign v to
 * [lo, hi), reporting what was there": the pieces it covers are replaced by one, so every piece
 * visited is removed and the cost is amortised O(log P) per assignment for P live pieces —
 * independent of how many ops a group spans or how large the tensors are.
 *
 * Layout: pieces sit in blocks of up to IDEM_PMAP_BLOCK in address order (a two-level B-tree).
 * Finding an address is a binary search over the blocks' first addresses and one inside a block;
 * an update moves at most one block's worth of pieces. Blocks split when full and merge or
 * rebalance when a touched block falls under a quarter full, so the block count stays
 * O(P / IDEM_PMAP_BLOCK) and memory linear in P. */
#ifndef ATOLL_IDEM_PMAP_H
#define ATOLL_IDEM_PMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { IDEM_PMAP_BLOCK = 64 };

typedef struct idem_piece {
  uint64_t lo, hi;
  uint32_t val;
} idem_piece;

/* A growable list the map appends pieces to. */
typedef struct idem_pieces {
  idem_piece *p;
  size_t n, cap;
} idem_pieces;

typedef struct idem_pmap {
  struct idem_pblock **blk; /* blocks in address order; all non-empty unless there is one */
  uint64_t *first;          /* first[k] = blk[k]'s first lo (k >= 1), for the block search */
  uint32_t nblk, cap;
  struct idem_pblock *spare; /* allocated ahead, so an update never fails half-way */
} idem_pmap;

int idem_pmap_init(idem_pmap *m);
void idem_pmap_free(idem_pmap *m);
/* Sets every byte of [lo, hi) to val. When old is not NULL, first appends the pieces [lo, hi)
 * held, clipped to it, in address order. ATOLL_EINVAL when lo > hi; lo == hi does nothing. On
 * ATOLL_ENOMEM the map is unchanged. */
int idem_pmap_assign(idem_pmap *m, uint64_t lo, uint64_t hi, uint32_t val, idem_pieces *old);
/* Appends the pieces over [lo, hi), clipped, without changing the map. */
int idem_pmap_query(const idem_pmap *m, uint64_t lo, uint64_t hi, idem_pieces *out);
/* Number of stored pieces. */
size_t idem_pmap_count(const idem_pmap *m);
/* True when the blocks and pieces are in canonical order (every piece non-empty, pieces sorted and
 * disjoint across blocks, no empty block beside another, first[] up to date). O(P). */
bool idem_pmap_is_valid(const idem_pmap *m);

void idem_pieces_free(idem_pieces *l);

#endif
