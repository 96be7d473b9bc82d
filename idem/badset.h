/* The set of "bad" group starts: op indices j such that the group j..i is not idempotent for the
 * op i the search is at, with one query: the largest start j <= i that is not bad.
 *
 * The search only ever adds starts to the set (a group that clobbers its input keeps doing so
 * when later ops join it: sweep.c), so the set is a union-find over op indices where a bad start
 * points to the one before it: find(i) follows the pointers down to the first good start. With
 * path halving each start is marked once and a query costs amortised O(alpha(n)), so marking
 * whole ranges of starts (one per byte range, however long the groups) is cheap. */
#ifndef ATOLL_IDEM_BADSET_H
#define ATOLL_IDEM_BADSET_H

#include <stdint.h>

/* "No good start": the op is not restorable. */
#define IDEM_NO_ENTRY UINT32_MAX

typedef struct idem_badset {
  uint32_t *up; /* up[x] for x = j + 1; up[0] = 0 is the sentinel below op 0 */
  uint32_t n, cap;
} idem_badset;

int idem_badset_init(idem_badset *b);
void idem_badset_free(idem_badset *b);
/* Adds op n (a good start) at the top; ops are added in order 0, 1, 2, ... */
int idem_badset_push(idem_badset *b);
/* Marks the starts lo..hi (inclusive, hi < n) bad. */
void idem_badset_mark(idem_badset *b, uint32_t lo, uint32_t hi);
/* The largest good start <= j, or IDEM_NO_ENTRY when every start 0..j is bad. */
uint32_t idem_badset_find(idem_badset *b, uint32_t j);

#endif
