/* The simulator's event queue, keyed by (time, priority class, sequence).
 *
 * The key is a total order, so a run is a pure function of its inputs: events at the same time
 * run by class (below, each with its reason), then in the order they were scheduled. Time never
 * goes backwards (asserted). Cancelling is by flag: the owner of an event keeps a generation
 * number in the payload and ignores stale ones, so the queue is never searched.
 *
 * Two parts hold the pending events: `near`, a short sorted array of the earliest ones, and the
 * 4-ary heap of core/ds (proved) for the rest; every event in near sorts before every event in
 * the heap. A simulation keeps a few tens of events pending (DISB C under streams: 9 on average
 * with the fluid engine), so nearly every push and pop is a few moves in near, where the heap's
 * checked, general push and pop cost several times that; a queue that outgrows near (the blocks
 * engine, the tests' 100k events) still has the heap's O(log n). Which part holds an event never
 * shows: pop takes the least key of both, so the order of events is exactly the key order.
 *
 * near is sorted latest first, so the earliest event is its last: a pop shortens it, and a push
 * shifts up the events earlier than the new one. A new event lands among those pending with more
 * of them after it than before it (DISB C under streams, fluid: 5.9 later, 3.0 earlier, of 8.9),
 * since a group's end or a dispatch lies beyond most events a run keeps pending but not beyond
 * its arrivals and timers; shifting the earlier ones moves half as many as the later ones. */
#ifndef ATOLL_SIM_EVQ_H
#define ATOLL_SIM_EVQ_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/ds/heap.h"

typedef enum atoll_ev_class {
  ATOLL_EV_COMPLETE = 0, /* blocks and copies ending: free resources before anyone looks at them */
  ATOLL_EV_DISPATCH = 1, /* CP work finishing: sees the resources freed at the same instant */
  ATOLL_EV_ARRIVAL = 2,  /* requests: find the device state of this instant settled */
  ATOLL_EV_TIMER = 3     /* core timers: last, after everything else of the instant */
} atoll_ev_class;

/* The order word of an event: class in the top bits, sequence below, so (time, order) sorts by time,
 * then class, then scheduling order. 2^56 sequence numbers outlast any run. */
enum { ATOLL_EVQ_CLASS_SHIFT = 56 };

/* Slots of near: room for the events a fluid run keeps pending (DISB E under streams: at most 38),
 * and an array short enough that inserting by shifting stays cheap. */
enum { ATOLL_EVQ_NEAR = 64 };

typedef struct atoll_evq {
  /* The events are near[near_head .. +near_n), sorted latest first: near[near_head] is near's
   * latest event, near[near_head + near_n - 1] the earliest of all. */
  struct atoll_heap_item near[ATOLL_EVQ_NEAR];
  uint32_t near_head, near_n;
  struct atoll_heap heap; /* the later events */
  struct atoll_heap_item *items; /* the heap's storage */
  uint32_t cap;
  uint64_t seq;
  int64_t now;
  uint64_t processed;
} atoll_evq;

int atoll_evq_init(atoll_evq *q, uint32_t initial_cap);
void atoll_evq_free(atoll_evq *q);
/* The earliest event whole, without removing it; false when empty. */
bool atoll_evq_peek_item(const atoll_evq *q, struct atoll_heap_item *it);
/* Pops the earliest event whole (time, order word, payload), advancing now; false when empty. */
bool atoll_evq_pop_item(atoll_evq *q, struct atoll_heap_item *it);
/* Puts back an event popped with atoll_evq_pop_item at the same instant, keeping its order word, so
 * it sorts exactly where it did (the explorer pops events that tie and runs one of them first).
 * Returns 0 or ATOLL_ENOMEM. */
int atoll_evq_unpop(atoll_evq *q, const struct atoll_heap_item *it);
/* The class of an order word. */
static inline atoll_ev_class atoll_evq_class(uint64_t order) { return (atoll_ev_class)(order >> ATOLL_EVQ_CLASS_SHIFT); }

static inline uint32_t atoll_evq_count(const atoll_evq *q) { return q->near_n + q->heap.count; }

/* Pending event i (< count), in no particular order: for looking over what is queued. */
static inline const struct atoll_heap_item *atoll_evq_at(const atoll_evq *q, uint32_t i) {
  return i < q->near_n ? &q->near[q->near_head + i] : &q->heap.items[i - q->near_n];
}

/* The earliest event's time; false when empty. Inline: the run loop asks before every event. */
static inline bool atoll_evq_peek_time(const atoll_evq *q, int64_t *time) {
  if (q->near_n) {
    *time = q->near[q->near_head + q->near_n - 1].time;
    return true;
  }
  if (q->heap.count) {
    *time = q->heap.items[0].time; /* the heap's minimum */
    return true;
  }
  return false;
}

/* The explorer's checkpoints (run.h): writes the pending events, the sequence, the time and the
 * count of processed events into b; restore reads them back into a queue of the same run (its
 * order of events is then exactly the saved one's). Restore returns 0 or ATOLL_ENOMEM. */
struct atoll_snapbuf;
void atoll_evq_save(const atoll_evq *q, struct atoll_snapbuf *b);
int atoll_evq_restore(atoll_evq *q, struct atoll_snapbuf *b);

/* Queues it where the inline push below does not: into an empty or full near, when near's array has
 * no room after its earliest event, at or after near's latest event, or into the heap (evq.c).
 * Returns 0 or ATOLL_ENOMEM. */
int atoll__evq_insert(atoll_evq *q, const struct atoll_heap_item *it);

/* The heap's item order (atoll_heap_item_less, without its NULL checks): near must sort exactly as
 * the heap does, or an event would change places on its way between the two. */
static inline bool atoll__evq_before(const struct atoll_heap_item *a, const struct atoll_heap_item *b) {
  return a->time < b->time || (a->time == b->time && a->order < b->order);
}

/* Schedules payload at time (>= now). Returns 0 or ATOLL_ENOMEM. Inline: every group of blocks and
 * every dispatch schedules its end, and the common case (near's array has room after its earliest
 * event, and the new one sorts before near's latest) needs no call, so the callers keep their
 * registers across it. */
static inline int atoll_evq_push(atoll_evq *q, int64_t time, atoll_ev_class cls, uint64_t payload) {
  assert(time >= q->now && "an event scheduled in the past");
  struct atoll_heap_item it = {.time = time, .order = ((uint64_t)cls << ATOLL_EVQ_CLASS_SHIFT) | q->seq++, .value = payload};
  uint32_t n = q->near_n, head = q->near_head;
  struct atoll_heap_item *a = q->near + head;
  if (n == 0 || head + n == ATOLL_EVQ_NEAR || !atoll__evq_before(&it, &a[0]))
    return atoll__evq_insert(q, &it);
  /* Shift the events earlier than it up by one; near's latest is later, so the loop stops there. */
  struct atoll_heap_item *p = a + n;
  while (atoll__evq_before(p - 1, &it)) {
    *p = p[-1];
    p--;
  }
  *p = it;
  q->near_n = n + 1;
  return 0;
}

/* Pops the earliest event when near is empty (evq.c). */
bool atoll__evq_pop_heap(atoll_evq *q, int64_t *time, uint64_t *payload);

/* Pops the earliest event, advancing now; false when empty. Inline for the run loop: near's last
 * event, when there is one, is the earliest. */
static inline bool atoll_evq_pop(atoll_evq *q, int64_t *time, uint64_t *payload) {
  if (!q->near_n)
    return atoll__evq_pop_heap(q, time, payload);
  const struct atoll_heap_item *it = &q->near[q->near_head + q->near_n - 1];
  assert(it->time >= q->now && "time went backwards");
  *time = q->now = it->time;
  *payload = it->value;
  q->processed++;
  if (--q->near_n == 0)
    q->near_head = 0;
  return true;
}

/* Pops the earliest event when it lies before `limit` (advancing now); false when the queue is
 * empty or its earliest event is at or after limit, which then stays queued. The run loop's one
 * look at the queue per event. */
static inline bool atoll_evq_pop_before(atoll_evq *q, int64_t limit, int64_t *time, uint64_t *payload) {
  if (!q->near_n) {
    if (!q->heap.count || q->heap.items[0].time >= limit)
      return false;
    return atoll__evq_pop_heap(q, time, payload);
  }
  const struct atoll_heap_item *it = &q->near[q->near_head + q->near_n - 1];
  if (it->time >= limit)
    return false;
  assert(it->time >= q->now && "time went backwards");
  *time = q->now = it->time;
  *payload = it->value;
  q->processed++;
  if (--q->near_n == 0)
    q->near_head = 0;
  return true;
}

#endif
