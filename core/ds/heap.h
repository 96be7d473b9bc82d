/* Priority queue: a 4-ary min-heap of fixed-size items in storage that the caller owns.
 *
 * The simulator's event queue needs insert, peek, pop and remove (cancel) over keys
 * (time, priority class, sequence number), so an item carries a signed time in nanoseconds, a
 * 64-bit `order` and a uint64_t `value` (an index or handle into the caller's tables). Items are
 * ordered by (time, order) lexicographically. That order is total on any set of items whose
 * `order` fields are pairwise distinct, which is how runs stay a pure function of their inputs:
 * the event queue packs order = (priority_class << 48) | sequence and never reuses a sequence
 * number, so no two live items compare equal and pop order never depends on insertion history.
 * Items that do compare equal are allowed, but their relative pop order is unspecified.
 *
 * A 4-ary heap rather than a binary one: the tree is half as deep, sift-up (every push) does
 * half the comparisons, and the four children of a node sit next to each other in memory.
 * Node i has parent (i - 1) / 4 and children 4i + 1 .. 4i + 4.
 *
 * Run-time checks: each function checks its arguments and the heap's shape (storage present,
 * count <= cap) in O(1), returning ATOLL_EINVAL on failure, so that even a heap whose order has
 * been broken from outside is never read or written out of bounds. The heap order itself costs
 * O(n) to check, more than push or pop, so it is a precondition stated by atoll_heap_is_valid()
 * and proved, and the tests check it after every operation, rather than re-checked on each call. */
#ifndef ATOLL_DS_HEAP_H
#define ATOLL_DS_HEAP_H

#include "atoll/error.h"

#include <stdbool.h>
#include <stdint.h>

struct atoll_heap_item {
  int64_t time;   /* primary key, e.g. virtual time in ns */
  uint64_t order; /* secondary key; unique per live item for a total order */
  uint64_t value; /* payload, not compared */
};

struct atoll_heap {
  struct atoll_heap_item *items; /* caller's storage, cap elements; items[0] is the minimum */
  uint32_t cap;                  /* length of items, >= 1 */
  uint32_t count;                /* number of items, count <= cap */
};

/* ACSL model, proved by proofs/wp/heap (Frama-C/WP). atoll_heap_lt is the item order;
 * atoll_heap_child(c, p) says node c is a child of node p (4p + 1 <= c <= 4p + 4, the same
 * arity as heap.c's ARITY, written without division); atoll_heap_ordered is the heap order that
 * atoll_heap_is_valid() checks. atoll_heap_mem states what no C function can check: h and its
 * storage are separate, writable objects and cap is the true length of items. */
/*@
  predicate atoll_heap_lt(struct atoll_heap_item a, struct atoll_heap_item b) =
    a.time < b.time || (a.time == b.time && a.order < b.order);

  predicate atoll_heap_child(integer c, integer p) = 0 <= p && 4 * p + 1 <= c <= 4 * p + 4;

  predicate atoll_heap_shape{L}(struct atoll_heap *h) =
    h != \null && h->items != \null && h->cap >= 1 && h->count <= h->cap;

  predicate atoll_heap_ordered{L}(struct atoll_heap *h) =
    \forall integer c, p; c < h->count && atoll_heap_child(c, p) ==>
      !atoll_heap_lt(h->items[c], h->items[p]);

  // How many of a[0..n) equal v: the multiset of items, which push, pop and remove_at change by
  // exactly the item added or removed.
  logic integer atoll_heap_occ{L}(struct atoll_heap_item *a, integer n, struct atoll_heap_item v) =
    n <= 0 ? 0 : atoll_heap_occ(a, n - 1, v) + (a[n - 1] == v ? 1 : 0);

  predicate atoll_heap_mem{L}(struct atoll_heap *h) =
    h == \null ||
    (\valid(h) && (h->items != \null ==>
                     (\valid(h->items + (0 .. h->cap - 1)) &&
                      \separated(h, h->items + (0 .. h->cap - 1)))));

  // out is a writable item apart from h and its storage.
  predicate atoll_heap_out{L}(struct atoll_heap *h, struct atoll_heap_item *out) =
    out == \null ||
    (\valid(out) && (h != \null ==> \separated(out, h)) &&
     (h != \null && h->items != \null ==> \separated(out, h->items + (0 .. h->cap - 1))));
*/

/* True when a sorts strictly before b: a.time < b.time, or equal times and a.order < b.order.
 * False when either pointer is NULL. */
/*@
  requires a == \null || \valid_read(a);
  requires b == \null || \valid_read(b);
  assigns \nothing;
  ensures \result <==> (a != \null && b != \null && atoll_heap_lt(*a, *b));
*/
bool atoll_heap_item_less(const struct atoll_heap_item *a, const struct atoll_heap_item *b);

/* Starts an empty heap over items[0..cap). ATOLL_EINVAL when h or items is NULL or cap is 0. */
/*@
  requires h == \null || \valid(h);
  requires items != \null ==>
             \valid(items + (0 .. cap - 1)) && \separated(h, items + (0 .. cap - 1));
  behavior bad:
    assumes h == \null || items == \null || cap == 0;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior good:
    assumes h != \null && items != \null && cap != 0;
    assigns *h;
    ensures \result == ATOLL_OK;
    ensures atoll_heap_shape(h) && atoll_heap_ordered(h) && atoll_heap_mem(h);
    ensures h->items == items && h->cap == cap && h->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_heap_init(struct atoll_heap *h, struct atoll_heap_item *items, uint32_t cap);

/* Inserts a copy of *item. ATOLL_EFULL when count == cap; ATOLL_EINVAL for a NULL item or a
 * heap of broken shape. O(log n). */
/*@
  requires atoll_heap_mem(h);
  requires item == \null || \valid_read(item);
  behavior invalid:
    assumes !atoll_heap_shape(h) || item == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior full:
    assumes atoll_heap_shape(h) && item != \null && h->count == h->cap;
    assigns \nothing;
    ensures \result == ATOLL_EFULL;
  behavior insert:
    assumes atoll_heap_shape(h) && item != \null && h->count < h->cap;
    assigns h->count, h->items[0 .. h->count];
    ensures \result == ATOLL_OK;
    ensures atoll_heap_shape(h) && h->count == \old(h->count) + 1;
    ensures \old(atoll_heap_ordered(h)) ==> atoll_heap_ordered(h);
    ensures \forall struct atoll_heap_item v;
              atoll_heap_occ(h->items, h->count, v) ==
                \old(atoll_heap_occ(h->items, h->count, v)) + (\old(*item) == v ? 1 : 0);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_heap_push(struct atoll_heap *h, const struct atoll_heap_item *item);

/* Removes the minimum into *out. ATOLL_EEMPTY when empty; ATOLL_EINVAL as for push. O(log n). */
/*@
  requires atoll_heap_mem(h) && atoll_heap_out(h, out);
  behavior invalid:
    assumes !atoll_heap_shape(h) || out == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior empty:
    assumes atoll_heap_shape(h) && out != \null && h->count == 0;
    assigns \nothing;
    ensures \result == ATOLL_EEMPTY;
  behavior take:
    assumes atoll_heap_shape(h) && out != \null && h->count > 0;
    assigns *out, h->count, h->items[0 .. h->count - 1];
    ensures \result == ATOLL_OK;
    ensures *out == \old(h->items[0]);
    ensures atoll_heap_shape(h) && h->count == \old(h->count) - 1;
    ensures \old(atoll_heap_ordered(h)) ==> atoll_heap_ordered(h);
    ensures \forall struct atoll_heap_item v;
              atoll_heap_occ(h->items, h->count, v) ==
                \old(atoll_heap_occ(h->items, h->count, v)) - (*out == v ? 1 : 0);
    ensures \old(atoll_heap_ordered(h)) ==>
              \forall integer i; 0 <= i < \old(h->count) ==>
                !atoll_heap_lt(\old(h->items[i]), *out);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_heap_pop(struct atoll_heap *h, struct atoll_heap_item *out);

/* Copies the minimum into *out without removing it. ATOLL_EEMPTY when empty. O(1). */
/*@
  requires atoll_heap_mem(h) && atoll_heap_out(h, out);
  behavior invalid:
    assumes !atoll_heap_shape(h) || out == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior empty:
    assumes atoll_heap_shape(h) && out != \null && h->count == 0;
    assigns \nothing;
    ensures \result == ATOLL_EEMPTY;
  behavior read:
    assumes atoll_heap_shape(h) && out != \null && h->count > 0;
    assigns *out;
    ensures \result == ATOLL_OK;
    ensures *out == h->items[0];
    ensures atoll_heap_ordered(h) ==>
              \forall integer i; 0 <= i < h->count ==> !atoll_heap_lt(h->items[i], *out);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_heap_peek(const struct atoll_heap *h, struct atoll_heap_item *out);

/* Number of items; 0 for NULL or a heap of broken shape. */
/*@
  requires atoll_heap_mem(h);
  assigns \nothing;
  ensures atoll_heap_shape(h) ==> \result == h->count;
  ensures !atoll_heap_shape(h) ==> \result == 0;
*/
uint32_t atoll_heap_count(const struct atoll_heap *h);

/* Drops every item and returns how many were dropped (0 for NULL or broken shape). */
/*@
  requires atoll_heap_mem(h);
  behavior invalid:
    assumes !atoll_heap_shape(h);
    assigns \nothing;
    ensures \result == 0;
  behavior drop:
    assumes atoll_heap_shape(h);
    assigns h->count;
    ensures \result == \old(h->count);
    ensures atoll_heap_shape(h) && atoll_heap_ordered(h) && h->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
uint32_t atoll_heap_clear(struct atoll_heap *h);

/* Removes the item at position pos of items[] (a caller finds it by scanning items[0..count))
 * into *out and restores the heap order. ATOLL_ERANGE when pos >= count, ATOLL_EINVAL as for
 * push. O(log n). Positions of other items may change. */
/*@
  requires atoll_heap_mem(h) && atoll_heap_out(h, out);
  assigns *out, h->count, h->items[0 .. h->count - 1];
  behavior invalid:
    assumes !atoll_heap_shape(h) || out == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior range:
    assumes atoll_heap_shape(h) && out != \null && pos >= h->count;
    assigns \nothing;
    ensures \result == ATOLL_ERANGE;
  behavior take:
    assumes atoll_heap_shape(h) && out != \null && pos < h->count;
    assigns *out, h->count, h->items[0 .. h->count - 1];
    ensures \result == ATOLL_OK;
    ensures *out == \old(h->items[pos]);
    ensures atoll_heap_shape(h) && h->count == \old(h->count) - 1;
    ensures \old(atoll_heap_ordered(h)) ==> atoll_heap_ordered(h);
    ensures \forall struct atoll_heap_item v;
              atoll_heap_occ(h->items, h->count, v) ==
                \old(atoll_heap_occ(h->items, h->count, v)) - (*out == v ? 1 : 0);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_heap_remove_at(struct atoll_heap *h, uint32_t pos, struct atoll_heap_item *out);

/* True when h is non-NULL, has storage, 1 <= cap, count <= cap, and no item sorts before its
 * parent. O(n). */
/*@
  requires atoll_heap_mem(h);
  assigns \nothing;
  ensures \result <==> (atoll_heap_shape(h) && atoll_heap_ordered(h));
*/
bool atoll_heap_is_valid(const struct atoll_heap *h);

#endif
