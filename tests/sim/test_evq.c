/* The simulator's event queue (sim/evq.c): events pop by (time, class, scheduling order), also
 * after the queue grows past its initial capacity; peek, count, now and the processed counter;
 * the run loop's pop before a limit. */
#include <stdlib.h>

#include "tests/atoll_test.h"
#include "sim/evq.h"

typedef struct pushed {
  int64_t time;
  atoll_ev_class cls;
  uint64_t seq; /* push order */
} pushed;

static int by_key(const void *a, const void *b) {
  const pushed *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->cls != y->cls)
    return x->cls < y->cls ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Mixed times and classes: earlier time first; at one time COMPLETE, DISPATCH, ARRIVAL, TIMER; in a
 * class, the order of scheduling. */
static void pops_by_time_then_class_then_order(void **state) {
  (void)state;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 16), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_TIMER, 1), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_COMPLETE, 2), 0);
  assert_int_equal(atoll_evq_push(&q, 3, ATOLL_EV_ARRIVAL, 3), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_DISPATCH, 4), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_COMPLETE, 5), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_ARRIVAL, 6), 0);
  assert_int_equal(atoll_evq_push(&q, 4, ATOLL_EV_TIMER, 7), 0);
  assert_int_equal(atoll_evq_push(&q, 5, ATOLL_EV_DISPATCH, 8), 0);
  static const uint64_t want_payload[] = {3, 7, 2, 5, 4, 8, 6, 1};
  static const int64_t want_time[] = {3, 4, 5, 5, 5, 5, 5, 5};
  for (int i = 0; i < 8; i++) {
    int64_t t;
    uint64_t p;
    assert_true(atoll_evq_pop(&q, &t, &p));
    if (p != want_payload[i] || t != want_time[i])
      fail_msg("pop %d: payload %llu at %lld, expected payload %llu at %lld", i, (unsigned long long)p,
               (long long)t, (unsigned long long)want_payload[i], (long long)want_time[i]);
    assert_int_equal(q.now, t);
  }
  int64_t t;
  uint64_t p;
  assert_false(atoll_evq_pop(&q, &t, &p));
  atoll_evq_free(&q);
}

/* Many events at one time and class leave in the order they were scheduled, including events
 * scheduled while others of the same instant are being popped. */
static void same_time_same_class_is_fifo(void **state) {
  (void)state;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 8), 0);
  for (uint64_t i = 0; i < 1000; i++)
    assert_int_equal(atoll_evq_push(&q, 100, ATOLL_EV_DISPATCH, i), 0);
  uint64_t next_new = 1000;
  for (uint64_t i = 0; i < 2000; i++) {
    int64_t t;
    uint64_t p;
    assert_true(atoll_evq_pop(&q, &t, &p));
    assert_int_equal(t, 100);
    if (p != i)
      fail_msg("pop %llu returned payload %llu", (unsigned long long)i, (unsigned long long)p);
    if (next_new < 2000)
      assert_int_equal(atoll_evq_push(&q, 100, ATOLL_EV_DISPATCH, next_new++), 0);
  }
  assert_int_equal(atoll_evq_count(&q), 0);
  atoll_evq_free(&q);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* 100k random pushes into a queue that starts with room for 4: it grows many times and pops every
 * event in (time, class, push order), many at equal times. */
static void growth_keeps_order(void **state) {
  (void)state;
  enum { N = 100000 };
  pushed *ev = malloc(N * sizeof *ev);
  assert_non_null(ev);
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 4), 0);
  for (uint32_t i = 0; i < N; i++) {
    ev[i] = (pushed){(int64_t)(next_rand() % 5000), (atoll_ev_class)(next_rand() % 4), i};
    assert_int_equal(atoll_evq_push(&q, ev[i].time, ev[i].cls, i), 0);
  }
  assert_int_equal(atoll_evq_count(&q), N);
  assert_cmp(q.cap, >=, N);
  qsort(ev, N, sizeof *ev, by_key);
  for (uint32_t i = 0; i < N; i++) {
    int64_t t;
    uint64_t p;
    assert_true(atoll_evq_pop(&q, &t, &p));
    if (p != ev[i].seq || t != ev[i].time)
      fail_msg("pop %u: event %llu at %lld, expected event %llu at %lld", i, (unsigned long long)p, (long long)t,
               (unsigned long long)ev[i].seq, (long long)ev[i].time);
  }
  assert_int_equal(q.processed, N);
  assert_int_equal(atoll_evq_count(&q), 0);
  atoll_evq_free(&q);
  free(ev);
}

/* Pushes and pops interleaved as a simulation does them (new events never in the past), through
 * growth: every pop is the least (time, class, order) of what is queued at that moment. */
static void interleaved_push_pop_keeps_order(void **state) {
  (void)state;
  enum { N = 60000 };
  pushed *live = malloc(N * sizeof *live);
  assert_non_null(live);
  uint32_t n_live = 0;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 2), 0);
  uint64_t seq = 0;
  for (int round = 0; round < N; round++) {
    uint32_t pushes = (uint32_t)(next_rand() % 3); /* 0..2 pushes, then maybe a pop: grows, then drains */
    for (uint32_t k = 0; k < pushes && n_live < N; k++) {
      pushed e = {q.now + (int64_t)(next_rand() % 50), (atoll_ev_class)(next_rand() % 4), seq++};
      assert_int_equal(atoll_evq_push(&q, e.time, e.cls, e.seq), 0);
      live[n_live++] = e;
    }
    if (n_live == 0 || next_rand() % 4 == 0)
      continue;
    /* The expected minimum, by linear scan over what is queued. */
    uint32_t best = 0;
    for (uint32_t i = 1; i < n_live; i++)
      if (by_key(&live[i], &live[best]) < 0)
        best = i;
    int64_t t;
    uint64_t p;
    assert_true(atoll_evq_peek_time(&q, &t));
    assert_int_equal(t, live[best].time);
    assert_true(atoll_evq_pop(&q, &t, &p));
    if (p != live[best].seq)
      fail_msg("round %d: popped event %llu, expected %llu", round, (unsigned long long)p,
               (unsigned long long)live[best].seq);
    live[best] = live[--n_live];
    assert_int_equal(atoll_evq_count(&q), n_live);
    if (n_live > 2000) /* keep the linear scan cheap */
      break;
  }
  atoll_evq_free(&q);
  free(live);
}

/* peek shows the earliest time without removing it; pop advances now and the processed count;
 * an empty queue says so and changes nothing. */
static void peek_count_now_and_processed(void **state) {
  (void)state;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 0), 0); /* 0: a default capacity */
  assert_cmp(q.cap, >, 0);
  int64_t t = -7;
  uint64_t p = 99;
  assert_false(atoll_evq_peek_time(&q, &t));
  assert_false(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(q.processed, 0);
  assert_int_equal(q.now, 0);
  assert_int_equal(atoll_evq_push(&q, 40, ATOLL_EV_TIMER, 1), 0);
  assert_int_equal(atoll_evq_push(&q, 20, ATOLL_EV_ARRIVAL, 2), 0);
  assert_int_equal(atoll_evq_push(&q, 30, ATOLL_EV_COMPLETE, 3), 0);
  assert_int_equal(atoll_evq_count(&q), 3);
  assert_true(atoll_evq_peek_time(&q, &t));
  assert_int_equal(t, 20);
  assert_true(atoll_evq_peek_time(&q, &t)); /* peeking twice removes nothing */
  assert_int_equal(t, 20);
  assert_int_equal(atoll_evq_count(&q), 3);
  assert_int_equal(q.processed, 0);
  assert_int_equal(q.now, 0);
  assert_true(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(p, 2);
  assert_int_equal(q.now, 20);
  assert_int_equal(q.processed, 1);
  assert_int_equal(atoll_evq_count(&q), 2);
  /* An event at the current instant is allowed and goes before later ones. */
  assert_int_equal(atoll_evq_push(&q, 20, ATOLL_EV_TIMER, 4), 0);
  assert_true(atoll_evq_peek_time(&q, &t));
  assert_int_equal(t, 20);
  assert_true(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(p, 4);
  assert_true(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(p, 3);
  assert_true(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(p, 1);
  assert_int_equal(q.now, 40);
  assert_int_equal(q.processed, 4);
  assert_false(atoll_evq_pop(&q, &t, &p));
  assert_int_equal(q.processed, 4);
  assert_int_equal(q.now, 40);
  atoll_evq_free(&q);
  assert_null(q.items);
}

/* pop_before pops the earliest event only when it lies before the limit, from the short array and
 * from the heap behind it alike; an event at or after the limit stays queued, and now and the
 * processed count stay where they were. */
static void pop_before_stops_at_the_limit(void **state) {
  (void)state;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 4), 0);
  enum { N = 3 * ATOLL_EVQ_NEAR / 2 }; /* more than the short array holds: the rest go to the heap */
  for (int i = 0; i < N; i++)
    assert_int_equal(atoll_evq_push(&q, 10 * i, ATOLL_EV_COMPLETE, (uint64_t)i), 0);
  int64_t t = -1;
  uint64_t p = 0;
  assert_false(atoll_evq_pop_before(&q, 0, &t, &p)); /* the earliest is at the limit */
  assert_int_equal(atoll_evq_count(&q), N);
  assert_int_equal(t, -1);
  int64_t limit = 10 * (N - 5) + 1; /* beyond the short array's events, into the heap's */
  for (int i = 0; i <= N - 5; i++) {
    assert_true(atoll_evq_pop_before(&q, limit, &t, &p));
    assert_int_equal(p, (uint64_t)i);
    assert_int_equal(t, 10 * i);
    assert_int_equal(q.now, 10 * i);
  }
  assert_false(atoll_evq_pop_before(&q, limit, &t, &p)); /* the heap's minimum, 10 * (N - 4), stays */
  assert_int_equal(atoll_evq_count(&q), 4);
  assert_int_equal(q.processed, N - 4);
  assert_int_equal(q.now, 10 * (N - 5));
  /* An earlier event pushed now goes before the heap's and pops before the limit. */
  assert_int_equal(atoll_evq_push(&q, 10 * (N - 5), ATOLL_EV_TIMER, 1000), 0);
  assert_true(atoll_evq_pop_before(&q, limit, &t, &p));
  assert_int_equal(p, 1000);
  assert_true(atoll_evq_pop_before(&q, INT64_MAX, &t, &p));
  assert_int_equal(p, (uint64_t)(N - 4));
  atoll_evq_free(&q);
  atoll_evq q2;
  assert_int_equal(atoll_evq_init(&q2, 4), 0);
  assert_false(atoll_evq_pop_before(&q2, INT64_MAX, &t, &p)); /* empty */
  atoll_evq_free(&q2);
}

/* Payloads travel unchanged, all 64 bits (the simulated device packs type, generation and id). */
static void payload_bits_preserved(void **state) {
  (void)state;
  atoll_evq q;
  assert_int_equal(atoll_evq_init(&q, 4), 0);
  static const uint64_t values[] = {0, UINT64_MAX, 0x8000000000000001ull, 0x0123456789abcdefull};
  for (int i = 0; i < 4; i++)
    assert_int_equal(atoll_evq_push(&q, i, ATOLL_EV_COMPLETE, values[i]), 0);
  for (int i = 0; i < 4; i++) {
    int64_t t;
    uint64_t p;
    assert_true(atoll_evq_pop(&q, &t, &p));
    assert_int_equal(p, values[i]);
  }
  atoll_evq_free(&q);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(pops_by_time_then_class_then_order),
    cmocka_unit_test(same_time_same_class_is_fifo),
    cmocka_unit_test(growth_keeps_order),
    cmocka_unit_test(interleaved_push_pop_keeps_order),
    cmocka_unit_test(peek_count_now_and_processed),
    cmocka_unit_test(pop_before_stops_at_the_limit),
    cmocka_unit_test(payload_bits_preserved),
};
ATOLL_TEST_MAIN(tests)
