/* 4-ary min-heap over caller-provided storage; see heap.h for the design. */
#include "core/ds/heap.h"

#include "atoll/error.h"

#include <stddef.h>

/* Branching factor. Changing it changes only the index arithmetic below. */
#define ARITY 4u

/* What the sift functions need of the heap they work on: in-bounds storage, the struct apart from
 * it, and pos a node of the heap. */
/*@
  predicate heap_at{L}(struct atoll_heap *h, integer pos) =
    \valid(h) && atoll_heap_shape(h) && \valid(h->items + (0 .. h->cap - 1)) &&
    \separated(h, h->items + (0 .. h->cap - 1)) && 0 <= pos < h->count;

  // The heap order on every edge (c, p) of items[0..n) that does not touch node `hole`.
  predicate ordered_except{L}(struct atoll_heap_item *a, integer n, integer hole) =
    \forall integer c, p; c < n && atoll_heap_child(c, p) && c != hole && p != hole ==>
      !atoll_heap_lt(a[c], a[p]);

  // No child of node `hole` sorts before x.
  predicate children_not_below{L}(struct atoll_heap_item *a, integer n, integer hole,
                                  struct atoll_heap_item x) =
    \forall integer c; c < n && atoll_heap_child(c, hole) ==> !atoll_heap_lt(a[c], x);

  // No child of node `hole` sorts before the parent of `hole`.
  predicate children_not_below_parent{L}(struct atoll_heap_item *a, integer n, integer hole) =
    \forall integer c, p; c < n && atoll_heap_child(c, hole) && atoll_heap_child(hole, p) ==>
      !atoll_heap_lt(a[c], a[p]);

  // x does not sort before the parent of node `hole`.
  predicate parent_not_above{L}(struct atoll_heap_item *a, integer hole, struct atoll_heap_item x) =
    \forall integer p; atoll_heap_child(hole, p) ==> !atoll_heap_lt(x, a[p]);

  // The two states hold the same multiset of items in items[0..count).
  predicate same_items{L1, L2}(struct atoll_heap *h) =
    \forall struct atoll_heap_item v;
      \at(atoll_heap_occ(h->items, h->count, v), L1) == \at(atoll_heap_occ(h->items, h->count, v), L2);

  // During a sift: with the lifted-out item x put back into the hole at pos, items[0..count)
  // holds the multiset it held when the sift began.
  predicate hole_holds{L0, L}(struct atoll_heap *h, integer pos, struct atoll_heap_item x) =
    \forall struct atoll_heap_item v;
      \at(atoll_heap_occ(h->items, h->count, v) - (h->items[pos] == v ? 1 : 0), L) +
      (x == v ? 1 : 0) == \at(atoll_heap_occ(h->items, h->count, v), L0);

  // The heap order holds except that the item at pos may sort before its parent: what a push
  // leaves at a new leaf, and what remove_at leaves when the moved item is smaller.
  predicate sift_up_pre{L}(struct atoll_heap *h, integer pos) =
    ordered_except(h->items, h->count, pos) &&
    children_not_below(h->items, h->count, pos, h->items[pos]) &&
    children_not_below_parent(h->items, h->count, pos);

  // The heap order holds except that the item at pos may sort after its children.
  predicate sift_down_pre{L}(struct atoll_heap *h, integer pos) =
    ordered_except(h->items, h->count, pos) &&
    children_not_below_parent(h->items, h->count, pos) &&
    parent_not_above(h->items, pos, h->items[pos]);
*/

/* The O(1) part of atoll_heap_is_valid(): enough for every access to stay in bounds. */
/*@
  requires h == \null || \valid_read(h);
  assigns \nothing;
  ensures \result <==> atoll_heap_shape(h);
*/
static bool shape_ok(const struct atoll_heap *h) {
  return h != NULL && h->items != NULL && h->cap != 0 && h->count <= h->cap;
}

/* The item order on values: the sifts compare a lifted-out item held in a local, and comparing
 * by value keeps that local out of memory, which keeps the proofs about the heap array simple. */
/*@
  assigns \nothing;
  ensures \result <==> atoll_heap_lt(a, b);
*/
static bool sorts_before(struct atoll_heap_item a, struct atoll_heap_item b) {
  if (a.time != b.time)
    return a.time < b.time;
  return a.order < b.order;
}

/* Index of the first child of pos, in 64 bits because ARITY * pos + 1 can exceed UINT32_MAX
 * for large heaps; a result >= count means pos is a leaf. */
/*@
  assigns \nothing;
  ensures \result == 4 * pos + 1;
*/
static uint64_t first_child(uint32_t pos) {
  return (uint64_t)ARITY * pos + 1u;
}

/* Requires pos > 0. */
/*@
  requires pos > 0;
  assigns \nothing;
  ensures atoll_heap_child(pos, \result) && \result < pos;
*/
static uint32_t parent_of(uint32_t pos) {
  return (pos - 1u) / ARITY;
}

/* Smallest child of a node whose first child `first` is < count; children past count are
 * ignored. */
/*@
  requires \valid_read(h) && \valid_read(h->items + (0 .. h->count - 1));
  requires first < h->count;
  assigns \nothing;
  ensures first <= \result < h->count && \result < first + 4;
  ensures \forall integer c; first <= c < h->count && c < first + 4 ==>
            !atoll_heap_lt(h->items[c], h->items[\result]);
*/
static uint32_t min_child(const struct atoll_heap *h, uint32_t first) {
  uint32_t best = first;
  uint32_t end = (h->count - first < ARITY) ? h->count : first + ARITY;
  /*@
    loop invariant first + 1 <= c <= end;
    loop invariant first <= best < c;
    loop invariant \forall integer k; first <= k < c ==> !atoll_heap_lt(h->items[k], h->items[best]);
    loop assigns c, best;
    loop variant end - c;
  */
  for (uint32_t c = first + 1u; c < end; c++) {
    if (sorts_before(h->items[c], h->items[best]))
      best = c;
  }
  return best;
}

/* Stores x at items[at]. Every write to the array goes through here, so that the proofs of the
 * callers see its effect as plain postconditions: no other item changes, and the multiset of
 * every prefix items[0..m) loses the old item and gains x when m > at. */
/*@
  requires \valid(h) && \valid(h->items + (0 .. h->cap - 1));
  requires \separated(h, h->items + (0 .. h->cap - 1));
  requires at < h->cap;
  assigns h->items[at];
  ensures h->items[at] == x;
  ensures \forall integer k; 0 <= k < h->cap && k != at ==> h->items[k] == \old(h->items[k]);
  ensures \forall integer m, struct atoll_heap_item v; 0 <= m <= h->cap ==>
            atoll_heap_occ(h->items, m, v) ==
              \old(atoll_heap_occ(h->items, m, v)) +
              (at < m ? (x == v ? 1 : 0) - (\old(h->items[at]) == v ? 1 : 0) : 0);
*/
static void put_item(struct atoll_heap *h, uint32_t at, struct atoll_heap_item x) {
  h->items[at] = x;
  /* Proof only: induction over the prefix length m. */
  /*@ ghost
    /@
      loop invariant 0 <= m <= h->cap;
      loop invariant \forall integer m2, struct atoll_heap_item v; 0 <= m2 <= m ==>
        atoll_heap_occ(h->items, m2, v) ==
          \at(atoll_heap_occ(h->items, m2, v), Pre) +
          (at < m2 ? (x == v ? 1 : 0) - (\at(h->items[at], Pre) == v ? 1 : 0) : 0);
      loop assigns m;
      loop variant h->cap - m;
    @/
    for (uint32_t m = 0; m < h->cap; m++) {
    }
  */
}

/* Copies items[at] to *out, which lies outside the storage. A function of its own for the
 * proof: the write cannot change the items, but the solvers need the induction below to see
 * that the multiset of every prefix is unchanged. */
/*@
  requires \valid(h) && \valid(h->items + (0 .. h->cap - 1));
  requires \separated(h, h->items + (0 .. h->cap - 1));
  requires at < h->cap;
  requires \valid(out) && \separated(out, h) && \separated(out, h->items + (0 .. h->cap - 1));
  assigns *out;
  ensures *out == h->items[at];
  ensures \forall integer m, struct atoll_heap_item v; 0 <= m <= h->cap ==>
            atoll_heap_occ(h->items, m, v) == \old(atoll_heap_occ(h->items, m, v));
*/
static void copy_out(const struct atoll_heap *h, uint32_t at, struct atoll_heap_item *out) {
  *out = h->items[at];
  /* Proof only: induction over the prefix length m. */
  /*@ ghost
    /@
      loop invariant 0 <= m <= h->cap;
      loop invariant \forall integer m2, struct atoll_heap_item v; 0 <= m2 <= m ==>
        atoll_heap_occ(h->items, m2, v) == \at(atoll_heap_occ(h->items, m2, v), Pre);
      loop assigns m;
      loop variant h->cap - m;
    @/
    for (uint32_t m = 0; m < h->cap; m++) {
    }
  */
}

/* Copies items[from] over items[to]. */
/*@
  requires \valid(h) && \valid(h->items + (0 .. h->cap - 1));
  requires \separated(h, h->items + (0 .. h->cap - 1));
  requires to < h->cap && from < h->cap;
  assigns h->items[to];
  ensures h->items[to] == \old(h->items[from]);
  ensures \forall integer k; 0 <= k < h->cap && k != to ==> h->items[k] == \old(h->items[k]);
  ensures \forall integer m, struct atoll_heap_item v; 0 <= m <= h->cap ==>
            atoll_heap_occ(h->items, m, v) ==
              \old(atoll_heap_occ(h->items, m, v)) +
              (to < m ? (\old(h->items[from]) == v ? 1 : 0) - (\old(h->items[to]) == v ? 1 : 0) : 0);
*/
static void move_item(struct atoll_heap *h, uint32_t to, uint32_t from) {
  put_item(h, to, h->items[from]);
}

/* Moves the item at pos towards the root while it sorts before its parent. It lifts the item
 * out and shifts parents down into the hole, one copy per level instead of a swap. */
/*@
  requires heap_at(h, pos);
  assigns h->items[0 .. pos];
  ensures sift_up_pre{Pre}(h, pos) ==> atoll_heap_ordered(h);
  ensures same_items{Pre, Post}(h);
*/
static void sift_up(struct atoll_heap *h, uint32_t pos) {
  struct atoll_heap_item x = h->items[pos];
  /*@
    loop invariant 0 <= pos <= \at(pos, Pre);
    loop invariant sift_up_pre{Pre}(h, \at(pos, Pre)) ==>
      ordered_except(h->items, h->count, pos);
    loop invariant sift_up_pre{Pre}(h, \at(pos, Pre)) ==>
      children_not_below(h->items, h->count, pos, x);
    loop invariant sift_up_pre{Pre}(h, \at(pos, Pre)) ==>
      children_not_below_parent(h->items, h->count, pos);
    loop invariant hole_holds{Pre, Here}(h, pos, x);
    loop assigns pos, h->items[0 .. \at(pos, Pre)];
    loop variant pos;
  */
  while (pos > 0) {
    uint32_t parent = parent_of(pos);
    if (!sorts_before(x, h->items[parent]))
      break;
    move_item(h, pos, parent);
    pos = parent;
  }
  put_item(h, pos, x);
}

/* Moves the item at pos towards the leaves while a child sorts before it, with the same hole
 * technique as sift_up. */
/*@
  requires heap_at(h, pos);
  assigns h->items[pos .. h->count - 1];
  ensures sift_down_pre{Pre}(h, pos) ==> atoll_heap_ordered(h);
  ensures same_items{Pre, Post}(h);
*/
static void sift_down(struct atoll_heap *h, uint32_t pos) {
  struct atoll_heap_item x = h->items[pos];
  /*@
    loop invariant \at(pos, Pre) <= pos < h->count;
    loop invariant sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
      ordered_except(h->items, h->count, pos);
    loop invariant sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
      children_not_below_parent(h->items, h->count, pos);
    loop invariant sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
      parent_not_above(h->items, pos, x);
    loop invariant hole_holds{Pre, Here}(h, pos, x);
    loop assigns pos, h->items[\at(pos, Pre) .. h->count - 1];
    loop variant h->count - pos;
  */
  for (;;) {
    uint64_t first = first_child(pos);
    if (first >= h->count)
      break;
    uint32_t best = min_child(h, (uint32_t)first);
    if (!sorts_before(h->items[best], x))
      break;
    move_item(h, pos, best);
    /*@ assert kept: sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
          ordered_except(h->items, h->count, pos); */
    /*@ assert sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
          \forall integer c; c < h->count && atoll_heap_child(c, pos) ==>
            !atoll_heap_lt(h->items[c], h->items[pos]); */
    /*@ assert sift_down_pre{Pre}(h, \at(pos, Pre)) ==>
          \forall integer p; atoll_heap_child(pos, p) ==>
            !atoll_heap_lt(h->items[pos], h->items[p]); */
    pos = best;
  }
  put_item(h, pos, x);
}

bool atoll_heap_item_less(const struct atoll_heap_item *a, const struct atoll_heap_item *b) {
  if (a == NULL || b == NULL)
    return false;
  return sorts_before(*a, *b);
}

int atoll_heap_init(struct atoll_heap *h, struct atoll_heap_item *items, uint32_t cap) {
  if (h == NULL || items == NULL || cap == 0)
    return ATOLL_EINVAL;
  h->items = items;
  h->cap = cap;
  h->count = 0;
  return ATOLL_OK;
}

/* Proof-only (ghost) lemma: in a heap-ordered array no item sorts before the root. It is the
 * induction over parent links that SMT solvers cannot do alone, written as a loop whose
 * invariant WP proves; peek and pop call it to prove that they return the minimum. */
/*@ ghost
  /@
    requires \valid_read(h) && \valid_read(h->items + (0 .. h->count - 1));
    assigns \nothing;
    ensures atoll_heap_ordered(h) ==>
      \forall integer i; 0 <= i < h->count ==> !atoll_heap_lt(h->items[i], h->items[0]);
  @/
  static void root_is_min(const struct atoll_heap *h) {
    /@
      loop invariant 1 <= i && (i <= h->count || h->count == 0);
      loop invariant atoll_heap_ordered(h) ==> \forall integer k; 0 <= k < i && k < h->count ==>
        !atoll_heap_lt(h->items[k], h->items[0]);
      loop assigns i;
      loop variant h->count - i;
    @/
    for (uint32_t i = 1; i < h->count; i++) {
      uint32_t p = (i - 1u) / 4u;
      /@ assert atoll_heap_child(i, p) && p < i; @/
    }
  }
*/

int atoll_heap_push(struct atoll_heap *h, const struct atoll_heap_item *item) {
  if (!shape_ok(h) || item == NULL)
    return ATOLL_EINVAL;
  if (h->count == h->cap)
    return ATOLL_EFULL;
  put_item(h, h->count, *item);
  h->count++;
  sift_up(h, h->count - 1u);
  return ATOLL_OK;
}

/* Fills the hole that removing items[pos] left with the last item, items[count] (count has already
 * dropped by one), and restores the heap order. The moved item may sort before the hole's parent
 * (it came from another subtree) or after the hole's children, so exactly one of the two sifts
 * moves it. */
/*@
  requires \valid(h) && \valid(h->items + (0 .. h->cap - 1));
  requires \separated(h, h->items + (0 .. h->cap - 1));
  requires pos < h->count < h->cap;
  assigns h->items[0 .. h->count];
  ensures ordered_except{Pre}(h->items, h->count + 1, -1) ==> atoll_heap_ordered(h);
  ensures \forall struct atoll_heap_item v;
            atoll_heap_occ(h->items, h->count, v) ==
              \old(atoll_heap_occ(h->items, h->count + 1, v)) - (\old(h->items[pos]) == v ? 1 : 0);
*/
static void fill_hole(struct atoll_heap *h, uint32_t pos) {
  move_item(h, pos, h->count);
  /*@ assert ordered_except{Pre}(h->items, h->count + 1, -1) ==>
        ordered_except(h->items, h->count, pos); */
  /*@ assert ordered_except{Pre}(h->items, h->count + 1, -1) ==>
        children_not_below_parent(h->items, h->count, pos); */
  if (pos > 0 && sorts_before(h->items[pos], h->items[parent_of(pos)])) {
    /*@ assert ordered_except{Pre}(h->items, h->count + 1, -1) ==> sift_up_pre(h, pos); */
    sift_up(h, pos);
  } else {
    /*@ assert ordered_except{Pre}(h->items, h->count + 1, -1) ==> sift_down_pre(h, pos); */
    sift_down(h, pos);
  }
}

/* Forgets the last item: count drops by one and the multiset of items[0..count) loses exactly
 * the item at the old last position. A function of its own so that this one unfolding of
 * atoll_heap_occ is proved apart from the rest of remove_at's context. */
/*@
  requires \valid(h) && h->count > 0 && h->items != \null;
  requires \valid_read(h->items + (0 .. h->count - 1));
  requires \separated(h, h->items + (0 .. h->count - 1));
  assigns h->count;
  ensures h->count == \old(h->count) - 1;
  ensures \forall struct atoll_heap_item v;
            atoll_heap_occ(h->items, h->count + 1, v) ==
              atoll_heap_occ(h->items, h->count, v) + (h->items[h->count] == v ? 1 : 0);
*/
static void drop_last(struct atoll_heap *h) {
  h->count--;
}

int atoll_heap_remove_at(struct atoll_heap *h, uint32_t pos, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (pos >= h->count)
    return ATOLL_ERANGE;
  copy_out(h, pos, out);
  drop_last(h);
  if (pos < h->count)
    fill_hole(h, pos);
  return ATOLL_OK;
}

int atoll_heap_pop(struct atoll_heap *h, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (h->count == 0)
    return ATOLL_EEMPTY;
  /*@ ghost root_is_min(h); */
  return atoll_heap_remove_at(h, 0, out);
}

int atoll_heap_peek(const struct atoll_heap *h, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (h->count == 0)
    return ATOLL_EEMPTY;
  /*@ ghost root_is_min(h); */
  *out = h->items[0];
  return ATOLL_OK;
}

uint32_t atoll_heap_count(const struct atoll_heap *h) {
  if (!shape_ok(h))
    return 0;
  return h->count;
}

uint32_t atoll_heap_clear(struct atoll_heap *h) {
  if (!shape_ok(h))
    return 0;
  uint32_t dropped = h->count;
  h->count = 0;
  return dropped;
}

bool atoll_heap_is_valid(const struct atoll_heap *h) {
  if (!shape_ok(h))
    return false;
  /*@
    loop invariant 1 <= i;
    loop invariant i <= h->count || h->count == 0;
    loop invariant \forall integer c, p; c < i && c < h->count && atoll_heap_child(c, p) ==>
      !atoll_heap_lt(h->items[c], h->items[p]);
    loop assigns i;
    loop variant h->count - i;
  */
  for (uint32_t i = 1; i < h->count; i++) {
    if (sorts_before(h->items[i], h->items[parent_of(i)]))
      return false;
  }
  return true;
}
