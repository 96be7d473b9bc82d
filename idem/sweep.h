/* The group search: for each op i, the minimal idempotent group j..i (docs/idempotence.md).
 *
 * REEF (§4.4) grows a group backwards from each op until it is idempotent. The answer is the same
 * as "the largest j <= i such that j..i is idempotent", and that can be computed in one forward
 * pass with a cost independent of the group sizes:
 *
 *   A start j is bad for op i when some byte's first access in j..i is a read and j..i also
 *   writes it. Adding ops at the end never repairs a group (the first access stays a read, the
 *   write stays), so the bad starts only grow as i advances: keep them in a badset and answer
 *   each op with find(i), the largest start that is still good (none: not restorable).
 *
 *   Which starts does op i make bad? Only through the bytes it writes. For such a byte let L be
 *   the last op before i that wrote it (-1 if none) and R the last op that read it since then.
 *     - op i reads it first, then writes it (in place): every start in L+1..i sees a read first;
 *     - op i writes it first and some op read it after L: every start in L+1..R sees that read
 *       first and op i's write later.
 *   Starts at or before L see L's write first and stay good for this byte.
 *
 * L and R per byte live in two piece maps (pmap.h) indexed by op + 1 (0 = never). A write assigns
 * both maps over its ranges, a read assigns only the read map, and every piece an assignment
 * visits is replaced, so the whole search costs O(A log P + n alpha(n)) for A access ranges, P live
 * pieces and n ops: linear in the trace, whatever the group sizes. The search is online: it needs
 * only the ops so far, so traces can be streamed. */
#ifndef ATOLL_IDEM_SWEEP_H
#define ATOLL_IDEM_SWEEP_H

#include <stdint.h>

#include "idem/badset.h"
#include "idem/normalize.h"
#include "idem/pmap.h"
#include "idem/trace.h"

typedef enum idem_dep_kind {
  IDEM_DEP_RAW, /* `to` reads bytes that `from` wrote last */
  IDEM_DEP_WAR  /* `to` overwrites bytes that `from` read (the last reader since the last write) */
} idem_dep_kind;

/* Optional observer of dependencies, for the DOT writer. Costs extra look-ups: leave NULL for
 * plain searches. */
typedef void (*idem_dep_fn)(void *ctx, uint32_t from, uint32_t to, idem_dep_kind kind);

typedef struct idem_sweep {
  idem_pmap last_write, last_read;
  idem_badset bad;
  idem_norm norm;
  idem_pieces old_w, old_r; /* scratch: what an assignment replaced */
  uint32_t n_ops;           /* ops searched so far */
  idem_dep_fn dep;
  void *dep_ctx;
} idem_sweep;

int idem_sweep_init(idem_sweep *s);
void idem_sweep_free(idem_sweep *s);
/* Searches the next op (index s->n_ops) given its accesses in tracer order; *entry receives the
 * entry of its minimal idempotent group, or IDEM_NO_ENTRY when no group ending at it is
 * idempotent. */
int idem_sweep_op(idem_sweep *s, const idem_access *acc, uint32_t n, uint32_t *entry);

/* The whole trace: entry[i] for every op (the caller provides n_ops slots). */
int idem_search(const idem_trace *t, uint32_t *entry);

#endif
