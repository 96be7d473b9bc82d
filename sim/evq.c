#include "sim/evq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/snapbuf.h"

/* The order word: class in the top bits, sequence below, so (time, order) sorts by time, then
 * class, then scheduling order. 2^56 sequence numbers outlast any run. */
enum { CLASS_SHIFT = 56 };

/* The heap's item order (atoll_heap_item_less, without its NULL checks): near must sort exactly as
 * the heap does, or an event would change places on its way between the two. */
static inline bool before(const struct atoll_heap_item *a, const struct atoll_heap_item *b) {
  return a->time < b->time || (a->time == b->time && a->order < b->order);
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

/* Queues it: in near when it sorts before the heap's minimum, else in the heap. */
static int insert(atoll_evq *q, const struct atoll_heap_item *it) {
  uint32_t n = q->near_n;
  if (n == 0 || !before(it, &q->near[q->near_head + n - 1])) {
    /* After all of near (the usual case: a new event lies beyond those already pending). */
    if (n == ATOLL_EVQ_NEAR || (q->heap.count && !before(it, &q->heap.items[0])))
      return heap_put(q, it);
    if (q->near_head + n == ATOLL_EVQ_NEAR) { /* at the end of the array: move the events to its start */
      memmove(q->near, q->near + q->near_head, n * sizeof *q->near);
      q->near_head = 0;
    }
    q->near[q->near_head + n] = *it;
    q->near_n = n + 1;
    return 0;
  }
  if (n == ATOLL_EVQ_NEAR) { /* full: near's latest event, later than it, goes to the heap */
    int rc = heap_put(q, &q->near[q->near_head + n - 1]);
    if (rc)
      return rc;
    q->near_n = --n;
  }
  if (q->near_head > 0 && before(it, &q->near[q->near_head])) { /* before all of near, with room there */
    q->near[--q->near_head] = *it;
    q->near_n = n + 1;
    return 0;
  }
  if (q->near_head + n == ATOLL_EVQ_NEAR) {
    memmove(q->near, q->near + q->near_head, n * sizeof *q->near);
    q->near_head = 0;
  }
  /* Insertion: shift the later events up by one (it sorts before near's last, so at least one). */
  struct atoll_heap_item *a = q->near + q->near_head;
  uint32_t i = n;
  while (i > 0 && before(it, &a[i - 1])) {
    a[i] = a[i - 1];
    i--;
  }
  a[i] = *it;
  q->near_n = n + 1;
  return 0;
}

int atoll_evq_push(atoll_evq *q, int64_t time, atoll_ev_class cls, uint64_t payload) {
  assert(time >= q->now && "an event scheduled in the past");
  struct atoll_heap_item it = {.time = time, .order = ((uint64_t)cls << CLASS_SHIFT) | q->seq++, .value = payload};
  /* The common cases, with no call and no heap: near has room at its end, and it goes before its
   * first event (at the free slot before it) or among its events (shifting the later ones). */
  uint32_t n = q->near_n, head = q->near_head;
  if (n == 0 || head + n == ATOLL_EVQ_NEAR)
    return insert(q, &it);
  struct atoll_heap_item *a = q->near + head;
  if (head > 0 && before(&it, &a[0])) {
    a[-1] = it;
    q->near_head = head - 1;
    q->near_n = n + 1;
    return 0;
  }
  if (!before(&it, &a[n - 1]))
    return insert(q, &it); /* after all of near: the heap may hold earlier events */
  /* Shift the later events up by one (at least near's last); pointers keep the loop short. */
  struct atoll_heap_item *p = a + n;
  do {
    *p = p[-1];
    p--;
  } while (p > a && before(&it, p - 1));
  *p = it;
  q->near_n = n + 1;
  return 0;
}

/* Removes the earliest event: near's first, or the heap's minimum when near is empty. */
static bool take(atoll_evq *q, struct atoll_heap_item *it) {
  if (q->near_n) {
    *it = q->near[q->near_head];
    if (--q->near_n == 0)
      q->near_head = 0;
    else
      q->near_head++;
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
    *it = q->near[q->near_head];
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
