/* Interval set over caller-provided storage; see ivset.h for the design. */
#include "core/ds/ivset.h"

#include "atoll/error.h"

#include <stddef.h>

/* What the static functions below need of a set they read: the struct and its ranges readable. */
/*@
  predicate readable{L}(struct atoll_ivset *s) =
    \valid_read(s) && atoll_ivset_shape(s) && \valid_read(s->iv + (0 .. s->cap - 1));

  // ... and of a set they write: writable, and apart from its own storage.
  predicate writable{L}(struct atoll_ivset *s) =
    \valid(s) && atoll_ivset_shape(s) && \valid(s->iv + (0 .. s->cap - 1)) &&
    \separated(s, s->iv + (0 .. s->cap - 1));
*/

/* The O(1) part of atoll_ivset_is_valid(): enough for every access to stay in bounds. */
/*@
  requires s == \null || \valid_read(s);
  assigns \nothing;
  ensures \result <==> atoll_ivset_shape(s);
*/
static bool shape_ok(const struct atoll_ivset *s) {
  return s != NULL && s->iv != NULL && s->cap != 0 && s->count <= s->cap;
}

/* Index of the first range with hi >= x, or count: the first range that overlaps or touches a
 * range starting at x. Binary search, valid because the hi values increase strictly. */
/*@
  requires readable(s) && atoll_ivset_canonical(s->iv, s->count);
  assigns \nothing;
  ensures 0 <= \result <= s->count;
  ensures \forall integer k; 0 <= k < \result ==> s->iv[k].hi < x;
  ensures \forall integer k; \result <= k < s->count ==> s->iv[k].hi >= x;
*/
static uint32_t first_reaching(const struct atoll_ivset *s, uint64_t x) {
  uint32_t lo = 0;
  uint32_t hi = s->count;
  /*@
    loop invariant 0 <= lo <= hi <= s->count;
    loop invariant \forall integer k; 0 <= k < lo ==> s->iv[k].hi < x;
    loop invariant \forall integer k; hi <= k < s->count ==> s->iv[k].hi >= x;
    loop assigns lo, hi;
    loop variant hi - lo;
  */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (s->iv[mid].hi < x)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

/* Index of the first range with hi > x, or count: the first range that could hold byte x or
 * anything after it. */
/*@
  requires readable(s);
  assigns \nothing;
  ensures 0 <= \result <= s->count;
  ensures atoll_ivset_canonical(s->iv, s->count) ==>
    \forall integer k; 0 <= k < \result ==> s->iv[k].hi <= x;
  ensures atoll_ivset_canonical(s->iv, s->count) ==>
    \forall integer k; \result <= k < s->count ==> s->iv[k].hi > x;
*/
static uint32_t first_ending_after(const struct atoll_ivset *s, uint64_t x) {
  uint32_t lo = 0;
  uint32_t hi = s->count;
  /*@
    loop invariant 0 <= lo <= hi <= s->count;
    loop invariant atoll_ivset_canonical(s->iv, s->count) ==>
      \forall integer k; 0 <= k < lo ==> s->iv[k].hi <= x;
    loop invariant atoll_ivset_canonical(s->iv, s->count) ==>
      \forall integer k; hi <= k < s->count ==> s->iv[k].hi > x;
    loop assigns lo, hi;
    loop variant hi - lo;
  */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (s->iv[mid].hi <= x)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

/* Stores v at iv[at]. A function of its own so that the proofs of its callers see the store's
 * frame (no other range changes) as one plain postcondition. The contracts in this file compare
 * ranges field by field rather than as whole structs: that is the form in which the solvers can
 * match the quantified facts against the goals. */
/*@
  requires writable(s) && at < s->cap;
  assigns s->iv[at];
  ensures s->iv[at].lo == v.lo && s->iv[at].hi == v.hi;
  ensures \forall integer m; 0 <= m < s->cap && m != at ==>
            s->iv[m].lo == \old(s->iv[m].lo) && s->iv[m].hi == \old(s->iv[m].hi);
*/
static void put_range(struct atoll_ivset *s, uint32_t at, struct atoll_interval v) {
  s->iv[at] = v;
}

/* Moves iv[from..count) to start at index `to`, copying in the direction that never overwrites
 * a range before it is moved. Requires count - from + to <= cap. */
/*@
  requires writable(s);
  requires from <= s->count && to + (s->count - from) <= s->cap;
  assigns s->iv[to .. to + (s->count - from) - 1];
  ensures \forall integer j; from <= j < s->count ==>
            s->iv[to + (j - from)].lo == \old(s->iv[j].lo) &&
            s->iv[to + (j - from)].hi == \old(s->iv[j].hi);
  ensures moved_back: \forall integer m; to <= m < to + (s->count - from) ==>
            s->iv[m].lo == \old(s->iv[m - to + from].lo) &&
            s->iv[m].hi == \old(s->iv[m - to + from].hi);
  ensures \forall integer k; 0 <= k < s->cap && (k < to || k >= to + (s->count - from)) ==>
            s->iv[k].lo == \old(s->iv[k].lo) && s->iv[k].hi == \old(s->iv[k].hi);
*/
static void move_tail(struct atoll_ivset *s, uint32_t from, uint32_t to) {
  if (to < from) {
    /*@
      loop invariant from <= i <= s->count;
      loop invariant \forall integer j; from <= j < i ==>
        s->iv[to + (j - from)].lo == \at(s->iv[j].lo, Pre) &&
        s->iv[to + (j - from)].hi == \at(s->iv[j].hi, Pre);
      loop invariant \forall integer m; to <= m < to + (i - from) ==>
        s->iv[m].lo == \at(s->iv[m - to + from].lo, Pre) &&
        s->iv[m].hi == \at(s->iv[m - to + from].hi, Pre);
      loop invariant \forall integer k; 0 <= k < s->cap && (k < to || k >= to + (i - from)) ==>
        s->iv[k].lo == \at(s->iv[k].lo, Pre) && s->iv[k].hi == \at(s->iv[k].hi, Pre);
      loop assigns i, s->iv[to .. to + (s->count - from) - 1];
      loop variant s->count - i;
    */
    for (uint32_t i = from; i < s->count; i++)
      s->iv[to + (i - from)] = s->iv[i];
  } else if (to > from) {
    /*@
      loop invariant from <= i <= s->count;
      loop invariant \forall integer j; i <= j < s->count ==>
        s->iv[to + (j - from)].lo == \at(s->iv[j].lo, Pre);
      loop invariant \forall integer j; i <= j < s->count ==>
        s->iv[to + (j - from)].hi == \at(s->iv[j].hi, Pre);
      loop invariant \forall integer m; to + (i - from) <= m < to + (s->count - from) ==>
        s->iv[m].lo == \at(s->iv[m - to + from].lo, Pre) &&
        s->iv[m].hi == \at(s->iv[m - to + from].hi, Pre);
      loop invariant \forall integer k; 0 <= k < s->cap &&
                       (k < to + (i - from) || k >= to + (s->count - from)) ==>
        s->iv[k].lo == \at(s->iv[k].lo, Pre) && s->iv[k].hi == \at(s->iv[k].hi, Pre);
      loop assigns i, s->iv[to .. to + (s->count - from) - 1];
      loop variant i;
    */
    for (uint32_t i = s->count; i > from; i--)
      s->iv[to + (i - 1u - from)] = s->iv[i - 1u];
  }
}

/* Writes the k ranges first, second (k <= 2, the ones beyond k ignored) at iv[a..a + k). */
/*@
  requires writable(s) && k <= 2 && a + k <= s->cap;
  assigns s->iv[a .. a + k - 1];
  ensures k > 0 ==> s->iv[a].lo == first.lo && s->iv[a].hi == first.hi;
  ensures k > 1 ==> s->iv[a + 1].lo == second.lo && s->iv[a + 1].hi == second.hi;
  ensures \forall integer m; 0 <= m < s->cap && (m < a || m >= a + k) ==>
            s->iv[m].lo == \old(s->iv[m].lo) && s->iv[m].hi == \old(s->iv[m].hi);
*/
static void put_pieces(struct atoll_ivset *s, uint32_t a, struct atoll_interval first,
                       struct atoll_interval second, uint32_t k) {
  if (k > 0)
    put_range(s, a, first);
  if (k > 1)
    put_range(s, a + 1u, second);
}

/*@
  // The k ranges (k <= 2) that replace_span writes: first, then second.
  predicate pieces_ok(struct atoll_interval first, struct atoll_interval second, integer k) =
    0 <= k <= 2 && (k > 0 ==> first.lo < first.hi) &&
    (k > 1 ==> second.lo < second.hi && first.hi < second.lo);

  logic struct atoll_interval last_piece(struct atoll_interval first,
                                         struct atoll_interval second, integer k) =
    k > 1 ? second : first;

  predicate in_pieces(struct atoll_interval first, struct atoll_interval second, integer k,
                      integer x) =
    (k > 0 && first.lo <= x < first.hi) || (k > 1 && second.lo <= x < second.hi);
*/

/* Replaces the ranges iv[a..b) with the k ranges first, second (k <= 2, the ones beyond k
 * ignored), which the caller has computed to keep the set canonical. Fails with ATOLL_EFULL,
 * before writing anything, when the set would grow past cap; the test is written so that nothing
 * can wrap around UINT32_MAX. The pieces come by value: they are at most two, and values keep
 * the proof free of aliasing between them and the set. */
/*@
  requires writable(s) && atoll_ivset_canonical(s->iv, s->count);
  requires a <= b <= s->count;
  requires pieces_ok(first, second, k);
  requires a > 0 && k > 0 ==> s->iv[a - 1].hi < first.lo;
  requires b < s->count && k > 0 ==> last_piece(first, second, k).hi < s->iv[b].lo;
  assigns s->count, s->iv[0 .. s->cap - 1];
  ensures \result == ATOLL_EFULL <==> (k > b - a && \old(s->cap - s->count) < k - (b - a));
  ensures \result == ATOLL_EFULL ==> atoll_ivset_unchanged{Pre, Post}(s);
  ensures \result == ATOLL_OK || \result == ATOLL_EFULL;
  behavior full:
    assumes k > b - a && s->cap - s->count < k - (b - a);
    assigns \nothing;
    ensures \result == ATOLL_EFULL;
  behavior splice:
    assumes !(k > b - a && s->cap - s->count < k - (b - a));
    assigns s->count, s->iv[0 .. s->cap - 1];
    ensures \result == ATOLL_OK;
    ensures s->count == \old(s->count) - (b - a) + k;
    ensures atoll_ivset_valid(s);
    ensures \forall integer x; atoll_ivset_has(s, x) <==>
      (\old(atoll_ivset_in(s->iv, 0, a, x)) || in_pieces(first, second, k, x) ||
       \old(atoll_ivset_in(s->iv, b, s->count, x)));
  complete behaviors;
  disjoint behaviors;
*/
static int replace_span(struct atoll_ivset *s, uint32_t a, uint32_t b, struct atoll_interval first,
                        struct atoll_interval second, uint32_t k);

/* What replace_span does, as a relation between the ranges iv[0..n1) at L1 and iv[0..n2) at L2,
 * and two lemmas about it that WP proves on their own (they are the whole argument that a splice
 * keeps the set canonical and has the expected bytes; stated apart from the code, their proofs
 * see no memory-model detail). */
/*@
  axiomatic Splice {
    // The head iv[0..a) is kept and the pieces are written at a.
    predicate spliced_head{L1, L2}(struct atoll_interval *iv, integer n1, integer n2, integer a,
                                   integer b, struct atoll_interval first,
                                   struct atoll_interval second, integer k) =
      n2 == n1 - (b - a) + k &&
      (\forall integer m; 0 <= m < a ==>
         \at(iv[m].lo, L2) == \at(iv[m].lo, L1) && \at(iv[m].hi, L2) == \at(iv[m].hi, L1)) &&
      (k > 0 ==> \at(iv[a].lo, L2) == first.lo && \at(iv[a].hi, L2) == first.hi) &&
      (k > 1 ==> \at(iv[a + 1].lo, L2) == second.lo && \at(iv[a + 1].hi, L2) == second.hi);

    // The tail iv[b..n1) now sits at a + k, seen from the new index (the two directions are two
    // predicates: given together, each one's instances feed the other's without end).
    predicate spliced_back{L1, L2}(struct atoll_interval *iv, integer n2, integer a, integer b,
                                   integer k) =
      \forall integer m; a + k <= m < n2 ==>
         \at(iv[m].lo, L2) == \at(iv[m + b - (a + k)].lo, L1) &&
         \at(iv[m].hi, L2) == \at(iv[m + b - (a + k)].hi, L1);

    // ... and from the old index.
    predicate spliced_fwd{L1, L2}(struct atoll_interval *iv, integer n1, integer a, integer b,
                                  integer k) =
      \forall integer j; b <= j < n1 ==>
         \at(iv[a + k + (j - b)].lo, L2) == \at(iv[j].lo, L1) &&
         \at(iv[a + k + (j - b)].hi, L2) == \at(iv[j].hi, L1);

    predicate spliced{L1, L2}(struct atoll_interval *iv, integer n1, integer n2, integer a,
                              integer b, struct atoll_interval first,
                              struct atoll_interval second, integer k) =
      spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
      spliced_back{L1, L2}(iv, n2, a, b, k) && spliced_fwd{L1, L2}(iv, n1, a, b, k);

    predicate splice_fits{L}(struct atoll_interval *iv, integer n, integer a, integer b,
                             struct atoll_interval first, struct atoll_interval second,
                             integer k) =
      0 <= a <= b <= n && atoll_ivset_canonical(iv, n) && pieces_ok(first, second, k) &&
      (a > 0 && k > 0 ==> iv[a - 1].hi < first.lo) &&
      (b < n && k > 0 ==> last_piece(first, second, k).hi < iv[b].lo);

    // Ranges iv[p] for p in [p0, p1) end before ranges iv[q] for q in [q0, q1) start, p < q.
    predicate sorted_between{L}(struct atoll_interval *iv, integer p0, integer p1, integer q0,
                                integer q1) =
      \forall integer p, q; p0 <= p < p1 && q0 <= q < q1 && p < q ==> iv[p].hi < iv[q].lo;

    predicate nonempty_ranges{L}(struct atoll_interval *iv, integer n) =
      \forall integer m; 0 <= m < n ==> iv[m].lo < iv[m].hi;

    // Canonical form from its parts over a split 0 <= a <= c <= n of the index range.
    lemma splice_sorted_head_tail{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        0 <= a <= b <= n1 && 0 <= k && atoll_ivset_canonical{L1}(iv, n1) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        sorted_between{L2}(iv, 0, a, a + k, n2);

    lemma splice_head_below{L}:
      \forall struct atoll_interval *iv, integer n, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits(iv, n, a, b, first, second, k) ==>
        (k > 0 ==> \forall integer p; 0 <= p < a ==> iv[p].hi < first.lo) &&
        (k > 1 ==> \forall integer p; 0 <= p < a ==> iv[p].hi < second.lo);

    lemma splice_tail_above{L}:
      \forall struct atoll_interval *iv, integer n, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits(iv, n, a, b, first, second, k) ==>
        (k > 0 ==> \forall integer j; b <= j < n ==> first.hi < iv[j].lo) &&
        (k > 1 ==> \forall integer j; b <= j < n ==> second.hi < iv[j].lo);

    lemma splice_sorted_piece_tail{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        sorted_between{L2}(iv, a, a + k, a + k, n2);

    lemma splice_bytes_old{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        0 <= a <= b <= n1 && 0 <= k &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_fwd{L1, L2}(iv, n1, a, b, k) ==>
        \forall integer x; atoll_ivset_in{L1}(iv, 0, a, x) || in_pieces(first, second, k, x) ||
          atoll_ivset_in{L1}(iv, b, n1, x) ==> atoll_ivset_in{L2}(iv, 0, n2, x);

    lemma splice_sorted_head_head{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) ==>
        sorted_between{L2}(iv, 0, a, 0, a);

    lemma splice_sorted_head_piece{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) ==>
        sorted_between{L2}(iv, 0, a, a, a + k);

    lemma splice_sorted_piece_piece{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) ==>
        sorted_between{L2}(iv, a, a + k, a, a + k);

    lemma splice_sorted_tail_tail{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        sorted_between{L2}(iv, a + k, n2, a + k, n2);

    lemma splice_nonempty{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        nonempty_ranges{L2}(iv, n2);

    lemma splice_bytes_from_head{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        \forall integer x, m; 0 <= m < a && \at(iv[m].lo, L2) <= x < \at(iv[m].hi, L2) ==>
          atoll_ivset_in{L1}(iv, 0, a, x) || in_pieces(first, second, k, x) ||
          atoll_ivset_in{L1}(iv, b, n1, x);

    lemma splice_bytes_from_piece{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        \forall integer x, m; a <= m < a + k && \at(iv[m].lo, L2) <= x < \at(iv[m].hi, L2) ==>
          atoll_ivset_in{L1}(iv, 0, a, x) || in_pieces(first, second, k, x) ||
          atoll_ivset_in{L1}(iv, b, n1, x);

    lemma splice_bytes_from_tail{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        \forall integer x, m; a + k <= m < n2 && \at(iv[m].lo, L2) <= x < \at(iv[m].hi, L2) ==>
          atoll_ivset_in{L1}(iv, 0, a, x) || in_pieces(first, second, k, x) ||
          atoll_ivset_in{L1}(iv, b, n1, x);

    lemma splice_bytes_new{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        \forall integer x; atoll_ivset_in{L2}(iv, 0, n2, x) ==>
          atoll_ivset_in{L1}(iv, 0, a, x) || in_pieces(first, second, k, x) ||
          atoll_ivset_in{L1}(iv, b, n1, x);

    lemma canonical_from_parts{L}:
      \forall struct atoll_interval *iv, integer n, a, c;
        0 <= a <= c <= n && nonempty_ranges(iv, n) &&
        sorted_between(iv, 0, a, 0, a) && sorted_between(iv, 0, a, a, c) &&
        sorted_between(iv, 0, a, c, n) && sorted_between(iv, a, c, a, c) &&
        sorted_between(iv, a, c, c, n) && sorted_between(iv, c, n, c, n) ==>
        atoll_ivset_canonical(iv, n);

    lemma splice_canonical{L1, L2}:
      \forall struct atoll_interval *iv, integer n1, n2, a, b, struct atoll_interval first, second,
        integer k;
        splice_fits{L1}(iv, n1, a, b, first, second, k) &&
        spliced_head{L1, L2}(iv, n1, n2, a, b, first, second, k) &&
        spliced_back{L1, L2}(iv, n2, a, b, k) ==>
        atoll_ivset_canonical{L2}(iv, n2);
  }
*/

/* replace_span, declared above with its contract. It and its lemmas come before every other lemma
 * of this file, whose quantifiers would only slow their proofs down. */
static int replace_span(struct atoll_ivset *s, uint32_t a, uint32_t b, struct atoll_interval first,
                        struct atoll_interval second, uint32_t k) {
  /*@ assert splice_fits(s->iv, s->count, a, b, first, second, k); */
  uint32_t removed = b - a;
  if (k > removed && s->cap - s->count < k - removed)
    return ATOLL_EFULL;
  uint32_t to = a + k;
  /*@ assert to == a + k && to <= s->cap && s->count - b + to <= s->cap; */
  move_tail(s, b, to);
  /* The facts of each step, stated right after it in the form the step's contract gives them, so
   * that no proof below needs more than one step's frame. */
  /*@ assert head_moved: \forall integer m; 0 <= m < a ==>
        s->iv[m].lo == \at(s->iv[m].lo, Pre) && s->iv[m].hi == \at(s->iv[m].hi, Pre); */
  /*@ assert back_moved: \let t = (integer)to; \forall integer m; t <= m < t + (s->count - b) ==>
        s->iv[m].lo == \at(s->iv[m - t + b].lo, Pre) &&
        s->iv[m].hi == \at(s->iv[m - t + b].hi, Pre); */
  /*@ assert fwd_moved: \let t = (integer)to; \forall integer j; b <= j < s->count ==>
        s->iv[t + (j - b)].lo == \at(s->iv[j].lo, Pre) &&
        s->iv[t + (j - b)].hi == \at(s->iv[j].hi, Pre); */
  s->count = s->count - removed + k;
  put_pieces(s, a, first, second, k);
  /*@ assert head_kept: \forall integer m; 0 <= m < a ==>
        s->iv[m].lo == \at(s->iv[m].lo, Pre) && s->iv[m].hi == \at(s->iv[m].hi, Pre); */
  /*@ assert back_kept: \let t = (integer)to; \forall integer m; t <= m < s->count ==>
        s->iv[m].lo == \at(s->iv[m - t + b].lo, Pre) &&
        s->iv[m].hi == \at(s->iv[m - t + b].hi, Pre); */
  /*@ assert fwd_kept: \let t = (integer)to; \forall integer j; b <= j < \at(s->count, Pre) ==>
        s->iv[t + (j - b)].lo == \at(s->iv[j].lo, Pre) &&
        s->iv[t + (j - b)].hi == \at(s->iv[j].hi, Pre); */
  /*@ assert spliced_head{Pre, Here}(s->iv, \at(s->count, Pre), s->count, a, b, first, second, k); */
  /*@ assert spliced_back{Pre, Here}(s->iv, s->count, a, b, k); */
  /*@ assert spliced_fwd{Pre, Here}(s->iv, \at(s->count, Pre), a, b, k); */
  /*@ assert atoll_ivset_canonical(s->iv, s->count); */
  return ATOLL_OK;
}

/*@
  // What intersect, union and subtract may rely on once check_binary has passed: out is writable
  // and shares no memory with either input.
  predicate binary_apart{L}(struct atoll_ivset *a, struct atoll_ivset *b, struct atoll_ivset *out) =
    readable(a) && readable(b) && writable(out) &&
    \separated(out, a) && \separated(out, b) &&
    \separated(out, a->iv + (0 .. a->cap - 1)) && \separated(out, b->iv + (0 .. b->cap - 1)) &&
    \separated(a, out->iv + (0 .. out->cap - 1)) && \separated(b, out->iv + (0 .. out->cap - 1)) &&
    \separated(out->iv + (0 .. out->cap - 1), a->iv + (0 .. a->cap - 1)) &&
    \separated(out->iv + (0 .. out->cap - 1), b->iv + (0 .. b->cap - 1));

  // The inputs' ranges are as they were at L0 (writing out cannot change them). An axiomatic
  // block, so that its lemmas are in the context only of the goals that mention same_ranges.
  axiomatic InputFrame {
    predicate same_ranges{L0, L}(struct atoll_interval *iv, integer n) =
      \forall integer k; 0 <= k < n ==>
        \at(iv[k].lo, L) == \at(iv[k].lo, L0) && \at(iv[k].hi, L) == \at(iv[k].hi, L0);

    lemma in_frame{L0, L}:
      \forall struct atoll_interval *iv, integer n, m, x;
        m <= n && same_ranges{L0, L}(iv, n) ==>
        (atoll_ivset_in{L0}(iv, 0, m, x) <==> atoll_ivset_in{L}(iv, 0, m, x));
  }
*/

/* Appends [lo, hi) to a set being built in increasing order of lo, merging it into the last
 * range when they overlap or touch. Because later ranges never start before lo, a range that is
 * appended rather than merged is one the final result needs, so running out of room here means
 * the result truly needs more than cap ranges. Returns false when out of room. */
/*@
  requires writable(out) && atoll_ivset_canonical(out->iv, out->count);
  requires lo < hi;
  requires out->count > 0 ==> out->iv[out->count - 1].lo <= lo;
  assigns out->count, out->iv[0 .. out->cap - 1];
  ensures \result ==> 0 < out->count <= out->cap && atoll_ivset_canonical(out->iv, out->count);
  ensures \result ==> \forall integer x;
            atoll_ivset_has(out, x) <==> (\old(atoll_ivset_has(out, x)) || lo <= x < hi);
  ensures \result ==> out->iv[out->count - 1].lo <= lo;
  ensures \result ==> out->iv[out->count - 1].hi == hi ||
            (\old(out->count) > 0 && out->iv[out->count - 1].hi == \old(out->iv[out->count - 1].hi));
  ensures \result ==> hi <= out->iv[out->count - 1].hi;
  ensures !\result ==> out->count == out->cap;
*/
static bool append_merged(struct atoll_ivset *out, uint64_t lo, uint64_t hi) {
  if (out->count > 0 && out->iv[out->count - 1u].hi >= lo) {
    if (out->iv[out->count - 1u].hi < hi)
      out->iv[out->count - 1u].hi = hi;
    return true;
  }
  if (out->count == out->cap)
    return false;
  out->iv[out->count].lo = lo;
  out->iv[out->count].hi = hi;
  out->count++;
  return true;
}


/* The checks shared by intersect, union and subtract. Only equality of pointers is compared:
 * ordering pointers into different objects is undefined in ISO C. */
/*@
  requires atoll_ivset_rmem(a) && atoll_ivset_rmem(b) && atoll_ivset_rmem(out);
  assigns \nothing;
  ensures \result == ATOLL_OK || \result == ATOLL_EINVAL;
  ensures \result == ATOLL_OK <==> atoll_ivset_binary_ok(a, b, out);
*/
static int check_binary(const struct atoll_ivset *a, const struct atoll_ivset *b,
                        const struct atoll_ivset *out) {
  if (!atoll_ivset_is_valid(a) || !atoll_ivset_is_valid(b) || !shape_ok(out))
    return ATOLL_EINVAL;
  if (out == a || out == b || out->iv == a->iv || out->iv == b->iv)
    return ATOLL_EINVAL;
  return ATOLL_OK;
}

/*@
  requires \valid(out);
  assigns out->count;
  ensures out->count == 0 && \result == ATOLL_EFULL;
*/
static int fail_full(struct atoll_ivset *out) {
  out->count = 0;
  return ATOLL_EFULL;
}

bool atoll_ivset_is_valid(const struct atoll_ivset *s) {
  if (!shape_ok(s))
    return false;
  /*@
    loop invariant 0 <= i <= s->count;
    loop invariant atoll_ivset_canonical(s->iv, i);
    loop assigns i;
    loop variant s->count - i;
  */
  for (uint32_t i = 0; i < s->count; i++) {
    if (s->iv[i].lo >= s->iv[i].hi)
      return false;
    if (i > 0 && s->iv[i - 1u].hi >= s->iv[i].lo)
      return false;
  }
  return true;
}

int atoll_ivset_init(struct atoll_ivset *s, struct atoll_interval *iv, uint32_t cap) {
  if (s == NULL || iv == NULL || cap == 0)
    return ATOLL_EINVAL;
  s->iv = iv;
  s->cap = cap;
  s->count = 0;
  return ATOLL_OK;
}

uint32_t atoll_ivset_clear(struct atoll_ivset *s) {
  if (!shape_ok(s))
    return 0;
  uint32_t dropped = s->count;
  s->count = 0;
  return dropped;
}

/* Proof-only (ghost) lemma for insert and remove, a function so that each call instantiates it
 * where it is needed: as a global lemma, its quantifier over index ranges sends the solvers round
 * a loop of ever longer ranges in every later proof. */
/*@ ghost
  /@
    requires 0 <= a <= b <= n;
    assigns \nothing;
    ensures \forall integer x; atoll_ivset_in(iv, 0, n, x) <==>
      (atoll_ivset_in(iv, 0, a, x) || atoll_ivset_in(iv, a, b, x) || atoll_ivset_in(iv, b, n, x));
  @/
  static void in_split(const struct atoll_interval *iv, uint32_t a, uint32_t b, uint32_t n) {
  }
*/

int atoll_ivset_insert(struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!atoll_ivset_is_valid(s) || lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  /* iv[a..b) are the ranges that overlap or touch [lo, hi); they become one range. */
  uint32_t a = first_reaching(s, lo);
  uint32_t b = a;
  /*@
    loop invariant a <= b <= s->count;
    loop invariant \forall integer m; a <= m < b ==> s->iv[m].lo <= hi;
    loop assigns b;
    loop variant s->count - b;
  */
  while (b < s->count && s->iv[b].lo <= hi)
    b++;
  struct atoll_interval merged = {lo, hi};
  if (b > a) {
    if (s->iv[a].lo < merged.lo)
      merged.lo = s->iv[a].lo;
    if (s->iv[b - 1u].hi > merged.hi)
      merged.hi = s->iv[b - 1u].hi;
  }
  /*@ assert b > a ==> merged.lo <= s->iv[a].lo && s->iv[b - 1].hi <= merged.hi; */
  /*@ assert merged.lo <= lo && hi <= merged.hi; */
  /*@ assert b > a ==> merged.lo == s->iv[a].lo || merged.lo == lo; */
  /*@ assert b > a ==> merged.hi == s->iv[b - 1].hi || merged.hi == hi; */
  /*@ assert b == a ==> merged.lo == lo && merged.hi == hi; */
  /*@ assert pieces_ok(merged, merged, 1); */
  /*@ assert a > 0 ==> s->iv[a - 1].hi < merged.lo; */
  /*@ assert b < s->count ==> merged.hi < s->iv[b].lo; */
  /*@ assert old_in_merged: \forall integer x; atoll_ivset_in(s->iv, a, b, x) ==>
        merged.lo <= x < merged.hi; */
  /*@ assert merged_in_old: \forall integer x; merged.lo <= x < merged.hi ==>
        (lo <= x < hi) || atoll_ivset_in(s->iv, a, b, x); */
  /*@ ghost in_split(s->iv, a, b, s->count); */
  /*@ assert bytes: \forall integer x;
        (atoll_ivset_in(s->iv, 0, a, x) || in_pieces(merged, merged, 1, x) ||
         atoll_ivset_in(s->iv, b, s->count, x)) <==> (atoll_ivset_has(s, x) || lo <= x < hi); */
  /*@ assert full: 1 > b - a && s->cap - s->count < 1 - (b - a) ==>
        s->count == s->cap &&
        \forall integer m; 0 <= m < s->count ==> s->iv[m].hi < lo || hi < s->iv[m].lo; */
  return replace_span(s, a, b, merged, merged, 1);
}

int atoll_ivset_remove(struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!atoll_ivset_is_valid(s) || lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  /* iv[a..b) are the ranges that share a byte with [lo, hi); what survives of them is at most
   * a left piece of the first and a right piece of the last. */
  uint32_t a = first_ending_after(s, lo);
  uint32_t b = a;
  /*@
    loop invariant a <= b <= s->count;
    loop invariant \forall integer m; a <= m < b ==> s->iv[m].lo < hi;
    loop assigns b;
    loop variant s->count - b;
  */
  while (b < s->count && s->iv[b].lo < hi)
    b++;
  /*@ assert before: \forall integer x; atoll_ivset_in(s->iv, 0, a, x) ==> x < lo; */
  /*@ assert after: \forall integer x; atoll_ivset_in(s->iv, b, s->count, x) ==> hi <= x; */
  if (a == b) {
    /*@ assert \forall integer x; lo <= x < hi ==> !atoll_ivset_has(s, x); */
    return ATOLL_OK;
  }
  /*@ assert inside_left: \forall integer x; atoll_ivset_in(s->iv, a, b, x) && x < lo ==>
        s->iv[a].lo <= x; */
  /*@ assert inside_right: \forall integer x; atoll_ivset_in(s->iv, a, b, x) && hi <= x ==>
        x < s->iv[b - 1].hi; */
  /*@ assert outer_left: \forall integer x; s->iv[a].lo <= x < lo ==> atoll_ivset_in(s->iv, a, b, x); */
  /*@ assert outer_right: \forall integer x; hi <= x < s->iv[b - 1].hi ==>
        atoll_ivset_in(s->iv, a, b, x); */
  struct atoll_interval pieces[2] = {{0, 0}, {0, 0}};
  uint32_t k = 0;
  if (s->iv[a].lo < lo) {
    pieces[k].lo = s->iv[a].lo;
    pieces[k].hi = lo;
    k++;
  }
  /*@ assert k == 1 <==> s->iv[a].lo < lo; */
  /*@ assert k == 1 ==> pieces[0].lo == s->iv[a].lo && pieces[0].hi == lo; */
  if (s->iv[b - 1u].hi > hi) {
    pieces[k].lo = hi;
    pieces[k].hi = s->iv[b - 1u].hi;
    k++;
  }
  /*@ assert left: (\forall integer x; (s->iv[a].lo <= x < lo) ==> in_pieces(pieces[0], pieces[1], k, x)); */
  /*@ assert right: (\forall integer x; (hi <= x < s->iv[b - 1].hi) ==> in_pieces(pieces[0], pieces[1], k, x)); */
  /*@ assert pieces_bytes: \forall integer x; in_pieces(pieces[0], pieces[1], k, x) ==>
        (s->iv[a].lo <= x < lo) || (hi <= x < s->iv[b - 1].hi); */
  /*@ assert pieces_ok(pieces[0], pieces[1], k); */
  /*@ assert a > 0 && k > 0 ==> s->iv[a - 1].hi < pieces[0].lo; */
  /*@ assert b < s->count && k > 0 ==> last_piece(pieces[0], pieces[1], k).hi < s->iv[b].lo; */
  /*@ ghost in_split(s->iv, a, b, s->count); */
  /*@ assert bytes: \forall integer x;
        (atoll_ivset_in(s->iv, 0, a, x) || in_pieces(pieces[0], pieces[1], k, x) ||
         atoll_ivset_in(s->iv, b, s->count, x)) <==> (atoll_ivset_has(s, x) && !(lo <= x < hi)); */
  /*@ assert full: k > b - a && s->cap - s->count < k - (b - a) ==>
        s->count == s->cap && s->iv[a].lo < lo && hi < s->iv[a].hi; */
  return replace_span(s, a, b, pieces[0], pieces[1], k);
}

bool atoll_ivset_contains(const struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!shape_ok(s) || lo > hi)
    return false;
  if (lo == hi)
    return true;
  /* Touching ranges are merged, so a covered range lies inside a single stored range. */
  uint32_t a = first_ending_after(s, lo);
  /*@ assert atoll_ivset_valid(s) && (a == s->count || s->iv[a].lo > lo) ==>
        !atoll_ivset_has(s, lo); */
  /*@ assert atoll_ivset_valid(s) && a < s->count && s->iv[a].lo <= lo && s->iv[a].hi < hi ==>
        !atoll_ivset_has(s, s->iv[a].hi); */
  /*@ assert a < s->count && s->iv[a].lo <= lo && hi <= s->iv[a].hi ==>
        \forall integer x; lo <= x < hi ==> atoll_ivset_in(s->iv, a, a + 1, x); */
  return a < s->count && s->iv[a].lo <= lo && hi <= s->iv[a].hi;
}

bool atoll_ivset_overlaps(const struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!shape_ok(s) || lo >= hi)
    return false;
  uint32_t a = first_ending_after(s, lo);
  /*@ assert atoll_ivset_valid(s) && a < s->count && s->iv[a].lo < hi ==>
        \let x = (lo > s->iv[a].lo ? lo : s->iv[a].lo);
        lo <= x < hi && s->iv[a].lo <= x < s->iv[a].hi && atoll_ivset_has(s, x); */
  /*@ assert atoll_ivset_valid(s) && (a == s->count || s->iv[a].lo >= hi) ==>
        \forall integer x; lo <= x < hi ==> !atoll_ivset_has(s, x); */
  return a < s->count && s->iv[a].lo < hi;
}

bool atoll_ivset_intersects(const struct atoll_ivset *a, const struct atoll_ivset *b) {
  if (!shape_ok(a) || !shape_ok(b))
    return false;
  uint32_t i = 0;
  uint32_t j = 0;
  /* Advance whichever range ends first: it cannot meet any later range of the other set. */
  /*@
    loop invariant 0 <= i <= a->count && 0 <= j <= b->count;
    loop invariant atoll_ivset_valid(a) && atoll_ivset_valid(b) ==>
      \forall integer x; atoll_ivset_in(a->iv, 0, i, x) ==> !atoll_ivset_has(b, x);
    loop invariant atoll_ivset_valid(a) && atoll_ivset_valid(b) ==>
      \forall integer x; atoll_ivset_in(b->iv, 0, j, x) ==> !atoll_ivset_has(a, x);
    loop assigns i, j;
    loop variant (a->count - i) + (b->count - j);
  */
  while (i < a->count && j < b->count) {
    if (a->iv[i].lo < b->iv[j].hi && b->iv[j].lo < a->iv[i].hi) {
      /*@ assert atoll_ivset_valid(a) && atoll_ivset_valid(b) && a->iv[i].lo <= b->iv[j].lo ==>
            atoll_ivset_has(a, b->iv[j].lo) && atoll_ivset_has(b, b->iv[j].lo); */
      /*@ assert atoll_ivset_valid(a) && atoll_ivset_valid(b) && b->iv[j].lo <= a->iv[i].lo ==>
            atoll_ivset_has(a, a->iv[i].lo) && atoll_ivset_has(b, a->iv[i].lo); */
      return true;
    }
    if (a->iv[i].hi <= b->iv[j].hi) {
      /*@ assert atoll_ivset_valid(a) && atoll_ivset_valid(b) ==>
            \forall integer x; a->iv[i].lo <= x < a->iv[i].hi ==> !atoll_ivset_has(b, x); */
      i++;
    } else {
      /*@ assert atoll_ivset_valid(a) && atoll_ivset_valid(b) ==>
            \forall integer x; b->iv[j].lo <= x < b->iv[j].hi ==> !atoll_ivset_has(a, x); */
      j++;
    }
  }
  return false;
}

uint64_t atoll_ivset_bytes(const struct atoll_ivset *s) {
  if (!shape_ok(s))
    return 0;
  uint64_t total = 0;
  /* Under atoll_ivset_valid the sum stays at or below the end of the last range counted, so it
   * cannot wrap; on a broken set it may, harmlessly (the answer is then meaningless anyway). */
  /*@
    loop invariant 0 <= i <= s->count;
    loop invariant atoll_ivset_valid(s) ==> total == atoll_ivset_total(s->iv, i);
    loop invariant atoll_ivset_valid(s) && i > 0 ==> total <= s->iv[i - 1].hi;
    loop assigns i, total;
    loop variant s->count - i;
  */
  for (uint32_t i = 0; i < s->count; i++)
    total += s->iv[i].hi - s->iv[i].lo;
  return total;
}

/* The set algebra (intersect, union, subtract) states its loop invariants about the inputs as
 * they were at the call, label Pre: they never change (out shares no memory with them), so no
 * quantified frame has to carry them from one iteration to the next. Each range the code reads
 * is tied to its value at Pre by one assertion on that single range, and the set an iteration
 * has built is a predicate of the indices reached, whose one-step growth is a lemma of an
 * axiomatic block (WP gives those lemmas only to the goals that use the block's predicate). The
 * step lemmas name the next index as a variable of its own (i1 == i + 1) rather than i + 1, so a
 * solver can only use them between indices the goal already has; and a step is asserted against
 * the index at LoopCurrent right after the increment, so that the unsigned wrap-around WP models
 * there (i++ is to_uint32(i + 1)) never stands between the invariant and the lemma (stated with
 * i - 1 instead, union's set preservation took 17 s). */
/*@
  // Range k of iv at label L (for the inputs: at the call, where the invariants see them).
  logic integer lo_of{L}(struct atoll_interval *iv, integer k) = iv[k].lo;
  logic integer hi_of{L}(struct atoll_interval *iv, integer k) = iv[k].hi;

  axiomatic Intersect {
    // The bytes of a and b that lie in a's ranges before i or b's ranges before j: what
    // intersect has put in out when it reaches i and j.
    predicate isect_upto{L}(struct atoll_interval *ai, integer na, struct atoll_interval *bi,
                            integer nb, integer i, integer j, integer x) =
      atoll_ivset_in(ai, 0, na, x) && atoll_ivset_in(bi, 0, nb, x) &&
      (atoll_ivset_in(ai, 0, i, x) || atoll_ivset_in(bi, 0, j, x));

    // a's range i ends first: moving past it adds what it shares with b's range j.
    lemma isect_next_a{L}:
      \forall struct atoll_interval *ai, struct atoll_interval *bi, integer na, nb, i, i1, j, x;
        i1 == i + 1 && 0 <= i < na && 0 <= j < nb && atoll_ivset_canonical(bi, nb) &&
        ai[i].hi <= bi[j].hi ==>
        (isect_upto(ai, na, bi, nb, i1, j, x) <==>
         (isect_upto(ai, na, bi, nb, i, j, x) ||
          (ai[i].lo <= x < ai[i].hi && bi[j].lo <= x < bi[j].hi)));

    // b's range j ends first.
    lemma isect_next_b{L}:
      \forall struct atoll_interval *ai, struct atoll_interval *bi, integer na, nb, i, j, j1, x;
        j1 == j + 1 && 0 <= i < na && 0 <= j < nb && atoll_ivset_canonical(ai, na) &&
        bi[j].hi <= ai[i].hi ==>
        (isect_upto(ai, na, bi, nb, i, j1, x) <==>
         (isect_upto(ai, na, bi, nb, i, j, x) ||
          (ai[i].lo <= x < ai[i].hi && bi[j].lo <= x < bi[j].hi)));
  }

  axiomatic Union {
    // The bytes of a's ranges before i and b's ranges before j.
    predicate union_upto{L}(struct atoll_interval *ai, struct atoll_interval *bi, integer i,
                            integer j, integer x) =
      atoll_ivset_in(ai, 0, i, x) || atoll_ivset_in(bi, 0, j, x);

    lemma union_next_a{L}:
      \forall struct atoll_interval *ai, struct atoll_interval *bi, integer i, i1, j, x;
        i1 == i + 1 && 0 <= i ==>
        (union_upto(ai, bi, i1, j, x) <==>
         (union_upto(ai, bi, i, j, x) || ai[i].lo <= x < ai[i].hi));

    lemma union_next_b{L}:
      \forall struct atoll_interval *ai, struct atoll_interval *bi, integer i, j, j1, x;
        j1 == j + 1 && 0 <= j ==>
        (union_upto(ai, bi, i, j1, x) <==>
         (union_upto(ai, bi, i, j, x) || bi[j].lo <= x < bi[j].hi));
  }

  axiomatic Subtract {
    // The bytes of a's ranges before i that are not in b.
    predicate diff_upto{L}(struct atoll_interval *ai, integer i, struct atoll_interval *bi,
                           integer nb, integer x) =
      atoll_ivset_in(ai, 0, i, x) && !atoll_ivset_in(bi, 0, nb, x);

    // ... and of [lo, c) (the part of a's range i already cut).
    predicate diff_part{L}(struct atoll_interval *ai, integer i, integer lo, integer c,
                           struct atoll_interval *bi, integer nb, integer x) =
      (atoll_ivset_in(ai, 0, i, x) || lo <= x < c) && !atoll_ivset_in(bi, 0, nb, x);

    // b's ranges before j all end at or before c.
    predicate ends_by{L}(struct atoll_interval *bi, integer j, integer c) =
      \forall integer m; 0 <= m < j ==> bi[m].hi <= c;

    lemma diff_next{L}:
      \forall struct atoll_interval *ai, struct atoll_interval *bi, integer i, i1, nb, x;
        i1 == i + 1 && 0 <= i ==>
        (diff_upto(ai, i1, bi, nb, x) <==> diff_part(ai, i, ai[i].lo, ai[i].hi, bi, nb, x));

    // From c on, no byte of b comes before b's range j (or at all, when j == nb).
    lemma gap_free{L}:
      \forall struct atoll_interval *bi, integer nb, j, c, x;
        atoll_ivset_canonical(bi, nb) && 0 <= j <= nb && ends_by(bi, j, c) && c <= x &&
        (j < nb ==> x < bi[j].lo) ==> !atoll_ivset_in(bi, 0, nb, x);
  }
*/

int atoll_ivset_intersect(const struct atoll_ivset *a, const struct atoll_ivset *b,
                          struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  /*@ assert apart: binary_apart(a, b, out); */
  const struct atoll_interval *ai = a->iv;
  const struct atoll_interval *bi = b->iv;
  const uint32_t na = a->count;
  const uint32_t nb = b->count;
  out->count = 0;
  uint32_t i = 0;
  uint32_t j = 0;
  /*@
    loop invariant 0 <= i <= na && 0 <= j <= nb;
    loop invariant out->count <= out->cap && atoll_ivset_canonical(out->iv, out->count);
    loop invariant set: \forall integer x;
      atoll_ivset_has(out, x) <==> isect_upto{Pre}(ai, na, bi, nb, i, j, x);
    loop invariant last: out->count > 0 && i < na && j < nb ==>
      out->iv[out->count - 1].hi < lo_of{Pre}(ai, i) ||
      out->iv[out->count - 1].hi < lo_of{Pre}(bi, j);
    loop assigns i, j, out->count, out->iv[0 .. out->cap - 1];
    loop variant (na - i) + (nb - j);
  */
  while (i < na && j < nb) {
    /*@ assert read_a: ai[i].lo == lo_of{Pre}(ai, i) && ai[i].hi == hi_of{Pre}(ai, i); */
    /*@ assert read_b: bi[j].lo == lo_of{Pre}(bi, j) && bi[j].hi == hi_of{Pre}(bi, j); */
    uint64_t alo = ai[i].lo;
    uint64_t ahi = ai[i].hi;
    uint64_t blo = bi[j].lo;
    uint64_t bhi = bi[j].hi;
    uint64_t lo = alo > blo ? alo : blo;
    uint64_t hi = ahi < bhi ? ahi : bhi;
    /*@ assert common: \forall integer x; lo <= x < hi <==> (alo <= x < ahi && blo <= x < bhi); */
    if (lo < hi && !append_merged(out, lo, hi))
      return fail_full(out);
    /*@ assert grown: \forall integer x; atoll_ivset_has(out, x) <==>
          (isect_upto{Pre}(ai, na, bi, nb, i, j, x) || (lo <= x < hi)); */
    /*@ assert last_now: out->count > 0 ==>
          out->iv[out->count - 1].hi < lo || out->iv[out->count - 1].hi == hi; */
    if (ahi <= bhi) {
      i++;
      /*@ assert i == \at(i, LoopCurrent) + 1; */
      /*@ assert step_a: \forall integer x; isect_upto{Pre}(ai, na, bi, nb, i, j, x) <==>
            (isect_upto{Pre}(ai, na, bi, nb, \at(i, LoopCurrent), j, x) || lo <= x < hi); */
    } else {
      j++;
      /*@ assert j == \at(j, LoopCurrent) + 1; */
      /*@ assert step_b: \forall integer x; isect_upto{Pre}(ai, na, bi, nb, i, j, x) <==>
            (isect_upto{Pre}(ai, na, bi, nb, i, \at(j, LoopCurrent), x) || lo <= x < hi); */
    }
  }
  /*@ assert a->iv == ai && a->count == na && b->iv == bi && b->count == nb; */
  /*@ assert same_ranges{Pre, Here}(ai, na) && same_ranges{Pre, Here}(bi, nb); */
  /*@ assert \forall integer x; atoll_ivset_has(out, x) <==>
        (atoll_ivset_in{Pre}(ai, 0, na, x) && atoll_ivset_in{Pre}(bi, 0, nb, x)); */
  return ATOLL_OK;
}

int atoll_ivset_union(const struct atoll_ivset *a, const struct atoll_ivset *b,
                      struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  /*@ assert apart: binary_apart(a, b, out); */
  const struct atoll_interval *ai = a->iv;
  const struct atoll_interval *bi = b->iv;
  const uint32_t na = a->count;
  const uint32_t nb = b->count;
  out->count = 0;
  uint32_t i = 0;
  uint32_t j = 0;
  /* Take ranges from both inputs in order of lo, as in the merge step of merge sort. */
  /*@
    loop invariant 0 <= i <= na && 0 <= j <= nb;
    loop invariant out->count <= out->cap && atoll_ivset_canonical(out->iv, out->count);
    loop invariant set: \forall integer x;
      atoll_ivset_has(out, x) <==> union_upto{Pre}(ai, bi, i, j, x);
    loop invariant last_a: out->count > 0 && i < na ==>
      out->iv[out->count - 1].lo <= lo_of{Pre}(ai, i);
    loop invariant last_b: out->count > 0 && j < nb ==>
      out->iv[out->count - 1].lo <= lo_of{Pre}(bi, j);
    loop assigns i, j, out->count, out->iv[0 .. out->cap - 1];
    loop variant (na - i) + (nb - j);
  */
  while (i < na || j < nb) {
    /*@ assert read_a: i < na ==> ai[i].lo == lo_of{Pre}(ai, i) && ai[i].hi == hi_of{Pre}(ai, i); */
    /*@ assert read_b: j < nb ==> bi[j].lo == lo_of{Pre}(bi, j) && bi[j].hi == hi_of{Pre}(bi, j); */
    uint64_t lo;
    uint64_t hi;
    if (j == nb || (i < na && ai[i].lo <= bi[j].lo)) {
      lo = ai[i].lo;
      hi = ai[i].hi;
      i++;
      /*@ assert i == \at(i, LoopCurrent) + 1; */
      /*@ assert step_a: \forall integer x; union_upto{Pre}(ai, bi, i, j, x) <==>
            (union_upto{Pre}(ai, bi, \at(i, LoopCurrent), j, x) || lo <= x < hi); */
    } else {
      lo = bi[j].lo;
      hi = bi[j].hi;
      j++;
      /*@ assert j == \at(j, LoopCurrent) + 1; */
      /*@ assert step_b: \forall integer x; union_upto{Pre}(ai, bi, i, j, x) <==>
            (union_upto{Pre}(ai, bi, i, \at(j, LoopCurrent), x) || lo <= x < hi); */
    }
    if (!append_merged(out, lo, hi))
      return fail_full(out);
  }
  /*@ assert a->iv == ai && a->count == na && b->iv == bi && b->count == nb; */
  /*@ assert same_ranges{Pre, Here}(ai, na) && same_ranges{Pre, Here}(bi, nb); */
  return ATOLL_OK;
}

int atoll_ivset_subtract(const struct atoll_ivset *a, const struct atoll_ivset *b,
                         struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  /*@ assert apart: binary_apart(a, b, out); */
  const struct atoll_interval *ai = a->iv;
  const struct atoll_interval *bi = b->iv;
  const uint32_t na = a->count;
  const uint32_t nb = b->count;
  out->count = 0;
  uint32_t j = 0;
  /*@
    loop invariant 0 <= i <= na && 0 <= j <= nb;
    loop invariant out->count <= out->cap && atoll_ivset_canonical(out->iv, out->count);
    loop invariant set: \forall integer x;
      atoll_ivset_has(out, x) <==> diff_upto{Pre}(ai, i, bi, nb, x);
    loop invariant passed: i < na ==> ends_by{Pre}(bi, j, lo_of{Pre}(ai, i));
    loop invariant last: i < na && out->count > 0 ==>
      out->iv[out->count - 1].hi < lo_of{Pre}(ai, i);
    loop assigns i, j, out->count, out->iv[0 .. out->cap - 1];
    loop variant na - i;
  */
  for (uint32_t i = 0; i < na; i++) {
    /* cur..hi is what is left of a's range i to cut; b's ranges before it never matter again,
     * and a b range that reaches past hi may also cut a's next range, so j stays on it. */
    /*@ assert read_a: ai[i].lo == lo_of{Pre}(ai, i) && ai[i].hi == hi_of{Pre}(ai, i); */
    uint64_t cur = ai[i].lo;
    uint64_t hi = ai[i].hi;
    /*@
      loop invariant \at(j, LoopEntry) <= j <= nb;
      loop invariant ends_by{Pre}(bi, j, cur);
      loop assigns j;
      loop variant nb - j;
    */
    while (j < nb && bi[j].hi <= cur) {
      /*@ assert bi[j].hi == hi_of{Pre}(bi, j); */
      j++;
    }
    /*@ assert j < nb ==> bi[j].hi == hi_of{Pre}(bi, j); */
    /*@
      loop invariant lo_of{Pre}(ai, i) <= cur <= hi;
      loop invariant 0 <= j <= nb;
      loop invariant out->count <= out->cap && atoll_ivset_canonical(out->iv, out->count);
      loop invariant ends: ends_by{Pre}(bi, j, cur);
      loop invariant inside: j < nb && cur < hi ==> cur < hi_of{Pre}(bi, j);
      loop invariant last: out->count > 0 ==> out->iv[out->count - 1].hi <= cur;
      loop invariant set: \forall integer x;
        atoll_ivset_has(out, x) <==> diff_part{Pre}(ai, i, lo_of{Pre}(ai, i), cur, bi, nb, x);
      loop assigns j, cur, out->count, out->iv[0 .. out->cap - 1];
      loop variant (nb - j) + (hi - cur);
    */
    while (j < nb && bi[j].lo < hi && cur < hi) {
      /*@ assert read_b: bi[j].lo == lo_of{Pre}(bi, j) && bi[j].hi == hi_of{Pre}(bi, j); */
      uint64_t blo = bi[j].lo;
      uint64_t bhi = bi[j].hi;
      /*@ assert gap: \forall integer x; cur <= x < blo ==> !atoll_ivset_in{Pre}(bi, 0, nb, x); */
      /*@ assert cut: \forall integer x; blo <= x < bhi ==> atoll_ivset_in{Pre}(bi, 0, nb, x); */
      if (blo > cur && !append_merged(out, cur, blo))
        return fail_full(out);
      /*@ assert grown: \forall integer x; atoll_ivset_has(out, x) <==>
            (diff_part{Pre}(ai, i, lo_of{Pre}(ai, i), cur, bi, nb, x) || cur <= x < blo); */
      /*@ assert last_now: out->count > 0 ==>
            out->iv[out->count - 1].hi <= cur || out->iv[out->count - 1].hi == blo; */
      if (bhi >= hi) {
        cur = hi;
      } else {
        cur = bhi;
        j++;
      }
    }
    /*@ assert j < nb ==> bi[j].lo == lo_of{Pre}(bi, j); */
    /*@ assert rest: \forall integer x; cur <= x < hi ==> !atoll_ivset_in{Pre}(bi, 0, nb, x); */
    if (cur < hi && !append_merged(out, cur, hi))
      return fail_full(out);
    /*@ assert whole: \forall integer x; atoll_ivset_has(out, x) <==>
          diff_part{Pre}(ai, i, lo_of{Pre}(ai, i), hi, bi, nb, x); */
    /*@ assert out->count > 0 ==> out->iv[out->count - 1].hi <= hi; */
  }
  /*@ assert a->iv == ai && a->count == na && b->iv == bi && b->count == nb; */
  /*@ assert same_ranges{Pre, Here}(ai, na) && same_ranges{Pre, Here}(bi, nb); */
  return ATOLL_OK;
}
