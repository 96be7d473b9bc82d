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

/* True when a sorts strictly before b: a.time < b.time, or equal times and a.order < b.order.
 * False when either pointer is NULL. */
bool atoll_heap_item_less(const struct atoll_heap_item *a, const struct atoll_heap_item *b);

/* Starts an empty heap over items[0..cap). ATOLL_EINVAL when h or items is NULL or cap is 0. */
int atoll_heap_init(struct atoll_heap *h, struct atoll_heap_item *items, uint32_t cap);

/* Inserts a copy of *item. ATOLL_EFULL when count == cap; ATOLL_EINVAL for a NULL item or a
 * heap of broken shape. O(log n). */
int atoll_heap_push(struct atoll_heap *h, const struct atoll_heap_item *item);

/* Removes the minimum into *out. ATOLL_EEMPTY when empty; ATOLL_EINVAL as for push. O(log n). */
int atoll_heap_pop(struct atoll_heap *h, struct atoll_heap_item *out);

/* Copies the minimum into *out without removing it. ATOLL_EEMPTY when empty. O(1). */
int atoll_heap_peek(const struct atoll_heap *h, struct atoll_heap_item *out);

/* Number of items; 0 for NULL or a heap of broken shape. */
uint32_t atoll_heap_count(const struct atoll_heap *h);

/* Drops every item and returns how many were dropped (0 for NULL or broken shape). */
uint32_t atoll_heap_clear(struct atoll_heap *h);

/* Removes the item at position pos of items[] (a caller finds it by scanning items[0..count))
 * into *out and restores the heap order. ATOLL_ERANGE when pos >= count, ATOLL_EINVAL as for
 * push. O(log n). Positions of other items may change. */
int atoll_heap_remove_at(struct atoll_heap *h, uint32_t pos, struct atoll_heap_item *out);

/* True when h is non-NULL, has storage, 1 <= cap, count <= cap, and no item sorts before its
 * parent. O(n). */
bool atoll_heap_is_valid(const struct atoll_heap *h);

#endif
