/* Interval set: a set of byte addresses kept as sorted, disjoint, merged half-open ranges, in
 * storage that the caller owns.
 *
 * idem_checker decides idempotence from which bytes each group of GPU operations reads and writes,
 * and traces describe tensors of megabytes, so the set works on ranges [lo, hi) and every
 * operation costs O(number of ranges), never O(number of bytes). The ranges are kept in one
 * canonical form: each is non-empty (lo < hi), they are sorted, and consecutive ranges are
 * separated by at least one uncovered byte (iv[i].hi < iv[i + 1].lo, so touching ranges are
 * merged). Two sets are then equal exactly when their arrays are equal, and set algebra runs as
 * single O(n + m) merge passes. The largest address is UINT64_MAX - 1, so the total size of a
 * set always fits in a uint64_t.
 *
 * Capacity: the caller fixes the number of ranges at init and the set never allocates. A result
 * that needs more ranges than that fails with ATOLL_EFULL, and only then: merging and splitting
 * are computed first, so an insert that merges into existing ranges succeeds in a full set, and
 * a remove fails only when it must split a range into two with no free slot. On ATOLL_EFULL an
 * insert or remove leaves the set unchanged, and intersect/union/subtract leave `out` empty.
 *
 * Ranges: an empty range (lo == hi) is a no-op that returns ATOLL_OK and is contained in every
 * set; lo > hi is ATOLL_EINVAL (a bool query answers false).
 *
 * Run-time checks: a function that writes a set (insert, remove, intersect, union, subtract)
 * first checks atoll_ivset_is_valid() on the sets it reads, which costs O(n) and so stays within
 * its own cost; it fails with ATOLL_EINVAL rather than turn a broken set into one that looks
 * valid. Read-only queries check only the O(1) shape (storage present, count <= cap), which keeps
 * every access in bounds; on a set whose order is broken their answers are meaningless but safe.
 * An output set must not share a struct or storage with an input (ATOLL_EINVAL); storage that
 * partly overlaps cannot be detected in ISO C and is a stated precondition of the proofs. */
#ifndef ATOLL_DS_IVSET_H
#define ATOLL_DS_IVSET_H

#include <stdbool.h>
#include <stdint.h>

/* The bytes lo, lo + 1, ..., hi - 1. */
struct atoll_interval {
  uint64_t lo;
  uint64_t hi;
};

struct atoll_ivset {
  struct atoll_interval *iv; /* caller's storage, cap elements; iv[0..count) in canonical form */
  uint32_t cap;              /* length of iv, >= 1 */
  uint32_t count;            /* number of ranges, count <= cap */
};

/* Starts an empty set over iv[0..cap). ATOLL_EINVAL when s or iv is NULL or cap is 0. */
int atoll_ivset_init(struct atoll_ivset *s, struct atoll_interval *iv, uint32_t cap);

/* Empties the set and returns how many ranges were dropped (0 for NULL or a broken shape). */
uint32_t atoll_ivset_clear(struct atoll_ivset *s);

/* Adds [lo, hi), merging with every range it overlaps or touches. ATOLL_EFULL, set unchanged,
 * only when the result needs more than cap ranges. O(n). */
int atoll_ivset_insert(struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* Removes [lo, hi), trimming or dropping the ranges it overlaps. ATOLL_EFULL, set unchanged,
 * only when it would split one range into two and the set is full. O(n). */
int atoll_ivset_remove(struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when every byte of [lo, hi) is in the set (always for an empty range). O(log n). */
bool atoll_ivset_contains(const struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when at least one byte of [lo, hi) is in the set (never for an empty range). O(log n). */
bool atoll_ivset_overlaps(const struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when a and b have at least one byte in common. O(n + m). */
bool atoll_ivset_intersects(const struct atoll_ivset *a, const struct atoll_ivset *b);

/* out = a intersected with b, a united with b, and a minus b (the bytes of a not in b). Each
 * replaces out's contents in one O(n + m) pass. ATOLL_EINVAL, out untouched, when an input is
 * not valid, out has a broken shape, or out is a or b or shares their storage; ATOLL_EFULL,
 * out left empty, when the result needs more than out->cap ranges. a and b may be the same set. */
int atoll_ivset_intersect(const struct atoll_ivset *a, const struct atoll_ivset *b,
                          struct atoll_ivset *out);
int atoll_ivset_union(const struct atoll_ivset *a, const struct atoll_ivset *b,
                      struct atoll_ivset *out);
int atoll_ivset_subtract(const struct atoll_ivset *a, const struct atoll_ivset *b,
                         struct atoll_ivset *out);

/* Number of bytes in the set (0 for NULL or a broken shape). Cannot overflow: the ranges are
 * disjoint and lie below UINT64_MAX. O(n). */
uint64_t atoll_ivset_bytes(const struct atoll_ivset *s);

/* True when s is non-NULL, has storage, 1 <= cap, count <= cap, and iv[0..count) is in canonical
 * form: iv[i].lo < iv[i].hi and iv[i].hi < iv[i + 1].lo. O(n). */
bool atoll_ivset_is_valid(const struct atoll_ivset *s);

#endif
