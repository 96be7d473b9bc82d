/* REEF's group search as the paper states it (§4.4), on core/ds interval sets: start from op i and
 * add predecessors until the group is idempotent.
 *
 * The group's inputs FR (bytes whose first access in the group is a read) and outputs W grow as
 *   FR(j..i) = FR(j) + (FR(j+1..i) - A(j)),   W(j..i) = W(j) + W(j+1..i)
 * where A(j) is every byte op j touches, and j..i is idempotent iff FR and W are disjoint. Each
 * step costs O(|FR| + |W| + |A(j)|) ranges, so an op costs O(group size x set size) and an op that
 * is not restorable walks back to op 0. idem_search() (sweep.h) gives the same answers in one
 * linear pass; this one is kept as the paper's reference for the tests and the benchmark. */
#ifndef ATOLL_IDEM_GROW_H
#define ATOLL_IDEM_GROW_H

#include <stdint.h>

#include "idem/trace.h"

/* entry[i] for every op, as idem_search(). */
int idem_search_grow(const idem_trace *t, uint32_t *entry);

#endif
