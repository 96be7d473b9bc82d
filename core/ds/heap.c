/* 4-ary min-heap over caller-provided storage; see heap.h for the design. */
#include "ds/heap.h"

#include "atoll/error.h"

#include <stddef.h>

/* Branching factor. Changing it changes only the index arithmetic below. */
#define ARITY 4u

/* The O(1) part of atoll_heap_is_valid(): enough for every access to stay in bounds. */
static bool shape_ok(const struct atoll_heap *h) {
  return h != NULL && h->items != NULL && h->cap != 0 && h->count <= h->cap;
}

/* Index of the first child of pos, in 64 bits because ARITY * pos + 1 can exceed UINT32_MAX
 * for large heaps; a result >= count means pos is a leaf. */
static uint64_t first_child(uint32_t pos) {
  return (uint64_t)ARITY * pos + 1u;
}

/* Requires pos > 0. */
static uint32_t parent_of(uint32_t pos) {
  return (pos - 1u) / ARITY;
}

/* Smallest child of a node whose first child `first` is < count; children past count are
 * ignored. */
static uint32_t min_child(const struct atoll_heap *h, uint32_t first) {
  uint32_t best = first;
  uint32_t end = (h->count - first < ARITY) ? h->count : first + ARITY;
  for (uint32_t c = first + 1u; c < end; c++) {
    if (atoll_heap_item_less(&h->items[c], &h->items[best]))
      best = c;
  }
  return best;
}

/* Moves the item at pos towards the root while it sorts before its parent. It lifts the item
 * out and shifts parents down into the hole, one copy per level instead of a swap. */
static void sift_up(struct atoll_heap *h, uint32_t pos) {
  struct atoll_heap_item x = h->items[pos];
  while (pos > 0) {
    uint32_t parent = parent_of(pos);
    if (!atoll_heap_item_less(&x, &h->items[parent]))
      break;
    h->items[pos] = h->items[parent];
    pos = parent;
  }
  h->items[pos] = x;
}

/* Moves the item at pos towards the leaves while a child sorts before it, with the same hole
 * technique as sift_up. */
static void sift_down(struct atoll_heap *h, uint32_t pos) {
  struct atoll_heap_item x = h->items[pos];
  for (;;) {
    uint64_t first = first_child(pos);
    if (first >= h->count)
      break;
    uint32_t best = min_child(h, (uint32_t)first);
    if (!atoll_heap_item_less(&h->items[best], &x))
      break;
    h->items[pos] = h->items[best];
    pos = best;
  }
  h->items[pos] = x;
}

bool atoll_heap_item_less(const struct atoll_heap_item *a, const struct atoll_heap_item *b) {
  if (a == NULL || b == NULL)
    return false;
  if (a->time != b->time)
    return a->time < b->time;
  return a->order < b->order;
}

int atoll_heap_init(struct atoll_heap *h, struct atoll_heap_item *items, uint32_t cap) {
  if (h == NULL || items == NULL || cap == 0)
    return ATOLL_EINVAL;
  h->items = items;
  h->cap = cap;
  h->count = 0;
  return ATOLL_OK;
}

int atoll_heap_push(struct atoll_heap *h, const struct atoll_heap_item *item) {
  if (!shape_ok(h) || item == NULL)
    return ATOLL_EINVAL;
  if (h->count == h->cap)
    return ATOLL_EFULL;
  h->items[h->count] = *item;
  h->count++;
  sift_up(h, h->count - 1u);
  return ATOLL_OK;
}

int atoll_heap_remove_at(struct atoll_heap *h, uint32_t pos, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (pos >= h->count)
    return ATOLL_ERANGE;
  *out = h->items[pos];
  h->count--;
  if (pos == h->count)
    return ATOLL_OK;
  /* The last item fills the hole. It may sort before the hole's parent (it came from
   * another subtree) or after the hole's children, so exactly one of the two sifts moves it. */
  h->items[pos] = h->items[h->count];
  if (pos > 0 && atoll_heap_item_less(&h->items[pos], &h->items[parent_of(pos)]))
    sift_up(h, pos);
  else
    sift_down(h, pos);
  return ATOLL_OK;
}

int atoll_heap_pop(struct atoll_heap *h, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (h->count == 0)
    return ATOLL_EEMPTY;
  return atoll_heap_remove_at(h, 0, out);
}

int atoll_heap_peek(const struct atoll_heap *h, struct atoll_heap_item *out) {
  if (!shape_ok(h) || out == NULL)
    return ATOLL_EINVAL;
  if (h->count == 0)
    return ATOLL_EEMPTY;
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
  for (uint32_t i = 1; i < h->count; i++) {
    if (atoll_heap_item_less(&h->items[i], &h->items[parent_of(i)]))
      return false;
  }
  return true;
}
