#include "evq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

/* The order word: class in the top bits, sequence below, so (time, order) sorts by time, then
 * class, then scheduling order. 2^56 sequence numbers outlast any run. */
enum { CLASS_SHIFT = 56 };

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

int atoll_evq_push(atoll_evq *q, int64_t time, atoll_ev_class cls, uint64_t payload) {
  assert(time >= q->now && "an event scheduled in the past");
  if (q->heap.count == q->cap) {
    int rc = grow(q);
    if (rc)
      return rc;
  }
  struct atoll_heap_item it = {.time = time, .order = ((uint64_t)cls << CLASS_SHIFT) | q->seq++, .value = payload};
  return atoll_heap_push(&q->heap, &it);
}

bool atoll_evq_pop(atoll_evq *q, int64_t *time, uint64_t *payload) {
  struct atoll_heap_item it;
  if (atoll_heap_pop(&q->heap, &it) != 0)
    return false;
  assert(it.time >= q->now && "time went backwards");
  q->now = it.time;
  q->processed++;
  *time = it.time;
  *payload = it.value;
  return true;
}

bool atoll_evq_peek_item(const atoll_evq *q, struct atoll_heap_item *it) {
  return atoll_heap_peek(&q->heap, it) == 0;
}

bool atoll_evq_pop_item(atoll_evq *q, struct atoll_heap_item *it) {
  if (atoll_heap_pop(&q->heap, it) != 0)
    return false;
  assert(it->time >= q->now && "time went backwards");
  q->now = it->time;
  q->processed++;
  return true;
}

int atoll_evq_unpop(atoll_evq *q, const struct atoll_heap_item *it) {
  assert(it->time >= q->now && "an event put back in the past");
  if (q->heap.count == q->cap) {
    int rc = grow(q);
    if (rc)
      return rc;
  }
  q->processed--;
  return atoll_heap_push(&q->heap, it);
}

bool atoll_evq_peek_time(const atoll_evq *q, int64_t *time) {
  struct atoll_heap_item it;
  if (atoll_heap_peek(&q->heap, &it) != 0)
    return false;
  *time = it.time;
  return true;
}

uint32_t atoll_evq_count(const atoll_evq *q) { return q->heap.count; }
