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

#include "atoll/error.h"

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

/* ACSL model, proved by proofs/wp/ivset (Frama-C/WP). A set is the bytes x for which
 * atoll_ivset_has(s, x) holds; the contracts state each operation's result byte by byte in those
 * terms, and that every writer keeps the canonical form (atoll_ivset_canonical: non-empty, sorted,
 * disjoint, non-touching ranges). atoll_ivset_valid is the logical twin of atoll_ivset_is_valid().
 * atoll_ivset_mem and atoll_ivset_apart state what no C function can check: the struct and its
 * storage are separate objects, cap is the true length of iv, and an output set either is an
 * input (which the functions reject) or shares no memory with it. */
/*@
  predicate atoll_ivset_shape{L}(struct atoll_ivset *s) =
    s != \null && s->iv != \null && s->cap >= 1 && s->count <= s->cap;

  predicate atoll_ivset_canonical{L}(struct atoll_interval *iv, integer n) =
    (\forall integer k; 0 <= k < n ==> iv[k].lo < iv[k].hi) &&
    (\forall integer k, l; 0 <= k < l < n ==> iv[k].hi < iv[l].lo);

  predicate atoll_ivset_valid{L}(struct atoll_ivset *s) =
    atoll_ivset_shape(s) && atoll_ivset_canonical(s->iv, s->count);

  // Byte x lies in one of the ranges iv[a..b).
  predicate atoll_ivset_in{L}(struct atoll_interval *iv, integer a, integer b, integer x) =
    \exists integer k; a <= k < b && iv[k].lo <= x < iv[k].hi;

  predicate atoll_ivset_has{L}(struct atoll_ivset *s, integer x) =
    atoll_ivset_in(s->iv, 0, s->count, x);

  // The set holds what it held at L0, range by range.
  predicate atoll_ivset_unchanged{L0, L}(struct atoll_ivset *s) =
    \at(s->count, L) == \at(s->count, L0) &&
    \forall integer k; 0 <= k < \at(s->count, L0) ==>
      \at(s->iv[k], L) == \at(s->iv[k], L0);

  predicate atoll_ivset_mem{L}(struct atoll_ivset *s) =
    s == \null ||
    (\valid(s) && (s->iv != \null ==>
                     (\valid(s->iv + (0 .. s->cap - 1)) &&
                      \separated(s, s->iv + (0 .. s->cap - 1)))));

  predicate atoll_ivset_rmem{L}(struct atoll_ivset *s) =
    s == \null ||
    (\valid_read(s) && (s->iv != \null ==> \valid_read(s->iv + (0 .. s->cap - 1))));

  // out and in are the same set, or share no memory at all (their storage included).
  predicate atoll_ivset_apart{L}(struct atoll_ivset *out, struct atoll_ivset *in) =
    out == \null || in == \null || out->iv == \null || in->iv == \null ||
    (out == in) || (out->iv == in->iv) ||
    (\separated(out, in) &&
     \separated(out, in->iv + (0 .. in->cap - 1)) &&
     \separated(in, out->iv + (0 .. out->cap - 1)) &&
     \separated(out->iv + (0 .. out->cap - 1), in->iv + (0 .. in->cap - 1)));

  predicate atoll_ivset_binary_ok{L}(struct atoll_ivset *a, struct atoll_ivset *b,
                                     struct atoll_ivset *out) =
    atoll_ivset_valid(a) && atoll_ivset_valid(b) && atoll_ivset_shape(out) &&
    out != a && out != b && out->iv != a->iv && out->iv != b->iv;
*/

/* Starts an empty set over iv[0..cap). ATOLL_EINVAL when s or iv is NULL or cap is 0. */
/*@
  requires s == \null || \valid(s);
  requires iv != \null ==> \valid(iv + (0 .. cap - 1)) && \separated(s, iv + (0 .. cap - 1));
  behavior bad:
    assumes s == \null || iv == \null || cap == 0;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior good:
    assumes s != \null && iv != \null && cap != 0;
    assigns *s;
    ensures \result == ATOLL_OK;
    ensures atoll_ivset_valid(s) && atoll_ivset_mem(s);
    ensures s->iv == iv && s->cap == cap && s->count == 0;
    ensures \forall integer x; !atoll_ivset_has(s, x);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_init(struct atoll_ivset *s, struct atoll_interval *iv, uint32_t cap);

/* Empties the set and returns how many ranges were dropped (0 for NULL or a broken shape). */
/*@
  requires atoll_ivset_mem(s);
  behavior invalid:
    assumes !atoll_ivset_shape(s);
    assigns \nothing;
    ensures \result == 0;
  behavior drop:
    assumes atoll_ivset_shape(s);
    assigns s->count;
    ensures \result == \old(s->count);
    ensures atoll_ivset_valid(s) && s->count == 0;
    ensures \forall integer x; !atoll_ivset_has(s, x);
  complete behaviors;
  disjoint behaviors;
*/
uint32_t atoll_ivset_clear(struct atoll_ivset *s);

/* Adds [lo, hi), merging with every range it overlaps or touches. ATOLL_EFULL, set unchanged,
 * only when the result needs more than cap ranges. O(n). */
/*@
  requires atoll_ivset_mem(s);
  behavior invalid:
    assumes !atoll_ivset_valid(s) || lo > hi;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior empty:
    assumes atoll_ivset_valid(s) && lo == hi;
    assigns \nothing;
    ensures \result == ATOLL_OK;
  behavior add:
    assumes atoll_ivset_valid(s) && lo < hi;
    assigns s->count, s->iv[0 .. s->cap - 1];
    ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
    ensures \result == ATOLL_OK ==> atoll_ivset_valid(s);
    ensures \result == ATOLL_OK ==>
      \forall integer x; atoll_ivset_has(s, x) <==> (\old(atoll_ivset_has(s, x)) || lo <= x < hi);
    ensures \result == ATOLL_EFULL ==> atoll_ivset_unchanged{Pre, Post}(s);
    ensures \result == ATOLL_EFULL ==>
      s->count == s->cap &&
      \forall integer k; 0 <= k < s->count ==> s->iv[k].hi < lo || hi < s->iv[k].lo;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_insert(struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* Removes [lo, hi), trimming or dropping the ranges it overlaps. ATOLL_EFULL, set unchanged,
 * only when it would split one range into two and the set is full. O(n). */
/*@
  requires atoll_ivset_mem(s);
  behavior invalid:
    assumes !atoll_ivset_valid(s) || lo > hi;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior empty:
    assumes atoll_ivset_valid(s) && lo == hi;
    assigns \nothing;
    ensures \result == ATOLL_OK;
  behavior cut:
    assumes atoll_ivset_valid(s) && lo < hi;
    assigns s->count, s->iv[0 .. s->cap - 1];
    ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
    ensures \result == ATOLL_OK ==> atoll_ivset_valid(s);
    ensures \result == ATOLL_OK ==>
      \forall integer x; atoll_ivset_has(s, x) <==> (\old(atoll_ivset_has(s, x)) && !(lo <= x < hi));
    ensures \result == ATOLL_EFULL ==> atoll_ivset_unchanged{Pre, Post}(s);
    ensures \result == ATOLL_EFULL ==>
      s->count == s->cap &&
      \exists integer k; 0 <= k < s->count && s->iv[k].lo < lo && hi < s->iv[k].hi;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_remove(struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when every byte of [lo, hi) is in the set (always for an empty range). O(log n). */
/*@
  requires atoll_ivset_rmem(s);
  assigns \nothing;
  ensures !atoll_ivset_shape(s) || lo > hi ==> !\result;
  ensures atoll_ivset_valid(s) && lo <= hi ==>
    (\result <==> \forall integer x; lo <= x < hi ==> atoll_ivset_has(s, x));
*/
bool atoll_ivset_contains(const struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when at least one byte of [lo, hi) is in the set (never for an empty range). O(log n). */
/*@
  requires atoll_ivset_rmem(s);
  assigns \nothing;
  ensures !atoll_ivset_shape(s) || lo >= hi ==> !\result;
  ensures atoll_ivset_valid(s) ==>
    (\result <==> \exists integer x; lo <= x < hi && atoll_ivset_has(s, x));
*/
bool atoll_ivset_overlaps(const struct atoll_ivset *s, uint64_t lo, uint64_t hi);

/* True when a and b have at least one byte in common. O(n + m). */
/*@
  requires atoll_ivset_rmem(a) && atoll_ivset_rmem(b);
  assigns \nothing;
  ensures !atoll_ivset_shape(a) || !atoll_ivset_shape(b) ==> !\result;
  ensures atoll_ivset_valid(a) && atoll_ivset_valid(b) ==>
    (\result <==> \exists integer x; atoll_ivset_has(a, x) && atoll_ivset_has(b, x));
*/
bool atoll_ivset_intersects(const struct atoll_ivset *a, const struct atoll_ivset *b);

/* out = a intersected with b, a united with b, and a minus b (the bytes of a not in b). Each
 * replaces out's contents in one O(n + m) pass. ATOLL_EINVAL, out untouched, when an input is
 * not valid, out has a broken shape, or out is a or b or shares their storage; ATOLL_EFULL,
 * out left empty, when the result needs more than out->cap ranges. a and b may be the same set. */
/*@
  requires atoll_ivset_rmem(a) && atoll_ivset_rmem(b) && atoll_ivset_mem(out);
  requires atoll_ivset_apart(out, a) && atoll_ivset_apart(out, b);
  behavior invalid:
    assumes !atoll_ivset_binary_ok(a, b, out);
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior compute:
    assumes atoll_ivset_binary_ok(a, b, out);
    assigns out->count, out->iv[0 .. out->cap - 1];
    ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
    ensures \result == ATOLL_OK ==> atoll_ivset_valid(out);
    ensures \result == ATOLL_OK ==>
      \forall integer x; atoll_ivset_has(out, x) <==> (atoll_ivset_has(a, x) && atoll_ivset_has(b, x));
    ensures \result == ATOLL_EFULL ==> out->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_intersect(const struct atoll_ivset *a, const struct atoll_ivset *b,
                          struct atoll_ivset *out);
/*@
  requires atoll_ivset_rmem(a) && atoll_ivset_rmem(b) && atoll_ivset_mem(out);
  requires atoll_ivset_apart(out, a) && atoll_ivset_apart(out, b);
  behavior invalid:
    assumes !atoll_ivset_binary_ok(a, b, out);
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior compute:
    assumes atoll_ivset_binary_ok(a, b, out);
    assigns out->count, out->iv[0 .. out->cap - 1];
    ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
    ensures \result == ATOLL_OK ==> atoll_ivset_valid(out);
    ensures \result == ATOLL_OK ==>
      \forall integer x; atoll_ivset_has(out, x) <==> (atoll_ivset_has(a, x) || atoll_ivset_has(b, x));
    ensures \result == ATOLL_EFULL ==> out->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_union(const struct atoll_ivset *a, const struct atoll_ivset *b,
                      struct atoll_ivset *out);
/*@
  requires atoll_ivset_rmem(a) && atoll_ivset_rmem(b) && atoll_ivset_mem(out);
  requires atoll_ivset_apart(out, a) && atoll_ivset_apart(out, b);
  behavior invalid:
    assumes !atoll_ivset_binary_ok(a, b, out);
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior compute:
    assumes atoll_ivset_binary_ok(a, b, out);
    assigns out->count, out->iv[0 .. out->cap - 1];
    ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
    ensures \result == ATOLL_OK ==> atoll_ivset_valid(out);
    ensures \result == ATOLL_OK ==>
      \forall integer x; atoll_ivset_has(out, x) <==> (atoll_ivset_has(a, x) && !atoll_ivset_has(b, x));
    ensures \result == ATOLL_EFULL ==> out->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ivset_subtract(const struct atoll_ivset *a, const struct atoll_ivset *b,
                         struct atoll_ivset *out);

/* Number of bytes in the set (0 for NULL or a broken shape). Cannot overflow: the ranges are
 * disjoint and lie below UINT64_MAX. O(n). */
/*@
  // The total length of iv[0..n).
  logic integer atoll_ivset_total{L}(struct atoll_interval *iv, integer n) =
    n <= 0 ? 0 : atoll_ivset_total(iv, n - 1) + (iv[n - 1].hi - iv[n - 1].lo);
*/
/*@
  requires atoll_ivset_rmem(s);
  assigns \nothing;
  ensures !atoll_ivset_shape(s) ==> \result == 0;
  ensures atoll_ivset_valid(s) ==> \result == atoll_ivset_total(s->iv, s->count);
*/
uint64_t atoll_ivset_bytes(const struct atoll_ivset *s);

/* True when s is non-NULL, has storage, 1 <= cap, count <= cap, and iv[0..count) is in canonical
 * form: iv[i].lo < iv[i].hi and iv[i].hi < iv[i + 1].lo. O(n). */
/*@
  requires atoll_ivset_rmem(s);
  assigns \nothing;
  ensures \result <==> atoll_ivset_valid(s);
*/
bool atoll_ivset_is_valid(const struct atoll_ivset *s);

#endif
