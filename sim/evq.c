#include "sim/evq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/snapbuf.h"

static inline bool before(const struct atoll_heap_item *a, const struct atoll_heap_item *b) {
  return atoll__evq_before(a, b);
}

int atoll_evq_init(atoll_evq *q, uint32_t initial_cap) {
  memset(q, 0, sizeof *q);
  q->cap = initial_cap ? initial_cap : 1024;
  q->items = malloc(q->cap * sizeof *q->items);
  if (!q->items)
    return ATOLL_ENOMEM;
  return atoll_heap_init(&q->heap, q->items, q->cap);
}

void atoll_evq_free(atoll_evq *q) {
  free(q->items);
  q->items = NULL;
}

static int grow(atoll_evq *q) {
  /* The heap's array is valid as it stands, so a copy into a larger array is still a heap. */
  uint32_t cap = q->cap * 2;
  struct atoll_heap_item *items = realloc(q->items, cap * sizeof *items);
  if (!items)
    return ATOLL_ENOMEM;
  uint32_t count = q->heap.count;
  q->items = items;
  q->cap = cap;
  q->heap.items = items;
  q->heap.cap = cap;
  q->heap.count = count;
  return 0;
}

static int heap_put(atoll_evq *q, const struct atoll_heap_item *it) {
  if (q->heap.count == q->cap) {
    int rc = grow(q);
    if (rc)
      return rc;
  }
  return atoll_heap_push(&q->heap, it);
}

/* Moves near's events to start at slot head of its array (room made before or after them). */
static void recentre(atoll_evq *q, uint32_t head) {
  memmove(q->near + head, q->near + q->near_head, q->near_n * sizeof *q->near);
  q->near_head = head;
}

/* Queues it: in near when it sorts before the heap's minimum, else in the heap. */
static int insert(atoll_evq *q, const struct atoll_heap_item *it) {
  uint32_t n = q->near_n;
  if (n == 0 || !before(it, &q->near[q->near_head])) {
    /* At or after near's latest event (or near is empty): near's new latest, unless near is full or
     * the heap holds an earlier event. */
    if (n == ATOLL_EVQ_NEAR || (q->heap.count && !before(it, &q->heap.items[0])))
      return heap_put(q, it);
    if (n == 0)
      q->near_head = 1; /* it goes to slot 0, with the array's room after it for earlier events */
    else if (q->near_head == 0)
      recentre(q, (ATOLL_EVQ_NEAR - n + 1) / 2); /* room before them, and after them for pushes */
    q->near[--q->near_head] = *it;
    q->near_n = n + 1;
    return 0;
  }
  if (n == ATOLL_EVQ_NEAR) { /* full: near's latest event, later than it, goes to the heap */
    int rc = heap_put(q, &q->near[q->near_head]);
    if (rc)
      return rc;
    q->near_head++;
    q->near_n = --n;
  }
  if (q->near_head + n == ATOLL_EVQ_NEAR)
    recentre(q, (ATOLL_EVQ_NEAR - n) / 2); /* room after them, and before them for new latest events */
  /* Insertion: shift the events earlier than it up by one. */
  struct atoll_heap_item *a = q->near + q->near_head;
  uint32_t i = n;
  while (i > 0 && before(&a[i - 1], it)) {
    a[i] = a[i - 1];
    i--;
  }
  a[i] = *it;
  q->near_n = n + 1;
  return 0;
}

int atoll__evq_insert(atoll_evq *q, const struct atoll_heap_item *it) { return insert(q, it); }

/* Removes the earliest event: near's last, or the heap's minimum when near is empty. */
static bool take(atoll_evq *q, struct atoll_heap_item *it) {
  if (q->near_n) {
    *it = q->near[q->near_head + q->near_n - 1];
    if (--q->near_n == 0)
      q->near_head = 0;
  } else if (atoll_heap_pop(&q->heap, it) != 0) {
    return false;
  }
  assert(it->time >= q->now && "time went backwards");
  q->now = it->time;
  q->processed++;
  return true;
}

bool atoll__evq_pop_heap(atoll_evq *q, int64_t *time, uint64_t *payload) {
  struct atoll_heap_item it;
  if (!take(q, &it))
    return false;
  *time = it.time;
  *payload = it.value;
  return true;
}

bool atoll_evq_peek_item(const atoll_evq *q, struct atoll_heap_item *it) {
  if (q->near_n) {
    *it = q->near[q->near_head + q->near_n - 1];
    return true;
  }
  return atoll_heap_peek(&q->heap, it) == 0;
}

bool atoll_evq_pop_item(atoll_evq *q, struct atoll_heap_item *it) { return take(q, it); }

int atoll_evq_unpop(atoll_evq *q, const struct atoll_heap_item *it) {
  assert(it->time >= q->now && "an event put back in the past");
  q->processed--;
  return insert(q, it);
}

void atoll_evq_save(const atoll_evq *q, atoll_snapbuf *b) {
  atoll_snapbuf_put(b, &q->near_n, sizeof q->near_n);
  atoll_snapbuf_put(b, &q->near[q->near_head], q->near_n * sizeof *q->near);
  atoll_snapbuf_put(b, &q->heap.count, sizeof q->heap.count);
  atoll_snapbuf_put(b, q->items, q->heap.count * sizeof *q->items);
  atoll_snapbuf_put(b, &q->seq, sizeof q->seq);
  atoll_snapbuf_put(b, &q->now, sizeof q->now);
  atoll_snapbuf_put(b, &q->processed, sizeof q->processed);
}

int atoll_evq_restore(atoll_evq *q, atoll_snapbuf *b) {
  /* near starts at slot 0 and the heap's array is copied as it was: which slot holds an event never
   * shows, and the heap's shape, hence its order of ties, is the saved one. */
  atoll_snapbuf_get(b, &q->near_n, sizeof q->near_n);
  q->near_head = 0;
  atoll_snapbuf_get(b, q->near, q->near_n * sizeof *q->near);
  uint32_t count;
  atoll_snapbuf_get(b, &count, sizeof count);
  while (q->cap < count) {
    q->heap.count = 0;
    int rc = grow(q);
    if (rc)
      return rc;
  }
  atoll_snapbuf_get(b, q->items, count * sizeof *q->items);
  q->heap.count = count;
  atoll_snapbuf_get(b, &q->seq, sizeof q->seq);
  atoll_snapbuf_get(b, &q->now, sizeof q->now);
  atoll_snapbuf_get(b, &q->processed, sizeof q->processed);
  return 0;
}
