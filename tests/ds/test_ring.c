/* Ring buffer tests: edge cases (capacity 1, wraparound, full/empty, capacity changes with values
 * inside) and a long randomised run against a plain array model. */
#include "tests/ds/ds_test.h"

#include "core/ds/ring.h"

#include <string.h>

enum { STORAGE = 8 };

/* Pushes values first, first + 1, ... and checks each push succeeds. */
static void push_run(struct atoll_ring *r, uint64_t first, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    assert_rc(atoll_ring_push(r, first + i), ATOLL_OK);
}

/* Pops n values and checks they are first, first + 1, ... in that order. */
static void pop_run(struct atoll_ring *r, uint64_t first, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = 0;
    assert_rc(atoll_ring_pop(r, &v), ATOLL_OK);
    assert_u64(v, first + i);
  }
}

/* Checks the ring holds exactly first, first + 1, ... first + n - 1, oldest first. */
static void assert_contents(const struct atoll_ring *r, uint64_t first, uint32_t n) {
  assert_true(atoll_ring_is_valid(r));
  assert_u64(atoll_ring_count(r), n);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = 0;
    assert_rc(atoll_ring_peek(r, i, &v), ATOLL_OK);
    assert_u64(v, first + i);
  }
}

static void ring_init_rejects_bad_arguments(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(NULL, slots, STORAGE), ATOLL_EINVAL);
  assert_rc(atoll_ring_init(&r, NULL, STORAGE), ATOLL_EINVAL);
  assert_rc(atoll_ring_init(&r, slots, 0), ATOLL_EINVAL);
}

static void ring_init_starts_empty(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  assert_true(atoll_ring_is_valid(&r));
  assert_u64(r.storage_cap, STORAGE);
  assert_u64(r.cap, STORAGE);
  assert_u64(atoll_ring_count(&r), 0);
  assert_true(atoll_ring_is_empty(&r));
  assert_false(atoll_ring_is_full(&r));
}

static void ring_capacity_one(void **state) {
  (void)state;
  uint64_t slot;
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, &slot, 1), ATOLL_OK);
  for (uint64_t i = 0; i < 100; i++) {
    assert_rc(atoll_ring_push(&r, i), ATOLL_OK);
    assert_true(atoll_ring_is_full(&r));
    assert_false(atoll_ring_is_empty(&r));
    assert_rc(atoll_ring_push(&r, 1000 + i), ATOLL_EFULL);
    uint64_t v = 0;
    assert_rc(atoll_ring_peek(&r, 0, &v), ATOLL_OK);
    assert_u64(v, i);
    assert_rc(atoll_ring_pop(&r, &v), ATOLL_OK);
    assert_u64(v, i);
    assert_true(atoll_ring_is_empty(&r));
    assert_rc(atoll_ring_pop(&r, &v), ATOLL_EEMPTY);
    assert_true(atoll_ring_is_valid(&r));
  }
}

static void ring_fifo_order(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  push_run(&r, 100, STORAGE);
  assert_true(atoll_ring_is_full(&r));
  assert_contents(&r, 100, STORAGE);
  pop_run(&r, 100, STORAGE);
  assert_true(atoll_ring_is_empty(&r));
}

/* Count moves between 1 and cap while head goes round the storage thousands of times, so
 * every (head, count) pair is visited, including tails that wrap past the end. */
static void ring_wraparound_many_times(void **state) {
  (void)state;
  uint64_t slots[3];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 3), ATOLL_OK);
  uint64_t next_in = 0;
  uint64_t next_out = 0;
  for (uint32_t round = 0; round < 5000; round++) {
    uint32_t target = 1u + round % 3u;
    while (atoll_ring_count(&r) < target)
      assert_rc(atoll_ring_push(&r, next_in++), ATOLL_OK);
    uint32_t held = (uint32_t)(next_in - next_out);
    assert_contents(&r, next_out, held);
    uint32_t drain = (round % 2u == 0) ? 1u : held;
    pop_run(&r, next_out, drain);
    next_out += drain;
  }
  assert_cmp(next_in, >, 3u * 1000u);
}

static void ring_full_error_leaves_contents(void **state) {
  (void)state;
  uint64_t slots[4];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 4), ATOLL_OK);
  push_run(&r, 0, 2);
  pop_run(&r, 0, 2);
  push_run(&r, 10, 4); /* wraps: head is 2 */
  assert_rc(atoll_ring_push(&r, 99), ATOLL_EFULL);
  assert_contents(&r, 10, 4);
  assert_true(atoll_ring_is_full(&r));
}

static void ring_empty_error_leaves_out(void **state) {
  (void)state;
  uint64_t slots[2];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 2), ATOLL_OK);
  uint64_t v = 42;
  assert_rc(atoll_ring_pop(&r, &v), ATOLL_EEMPTY);
  assert_u64(v, 42);
  assert_rc(atoll_ring_peek(&r, 0, &v), ATOLL_ERANGE);
  assert_u64(v, 42);
  assert_true(atoll_ring_is_valid(&r));
}

static void ring_peek_out_of_range(void **state) {
  (void)state;
  uint64_t slots[4];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 4), ATOLL_OK);
  push_run(&r, 0, 3);
  pop_run(&r, 0, 3);
  push_run(&r, 7, 3); /* head 3, elements at slots 3, 0, 1 */
  uint64_t v = 0;
  assert_rc(atoll_ring_peek(&r, 2, &v), ATOLL_OK);
  assert_u64(v, 9);
  assert_rc(atoll_ring_peek(&r, 3, &v), ATOLL_ERANGE);
  assert_rc(atoll_ring_peek(&r, UINT32_MAX, &v), ATOLL_ERANGE);
  assert_u64(v, 9);
}

static void ring_clear_returns_dropped(void **state) {
  (void)state;
  uint64_t slots[4];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 4), ATOLL_OK);
  assert_u64(atoll_ring_clear(&r), 0);
  push_run(&r, 0, 3);
  pop_run(&r, 0, 1);
  assert_u64(atoll_ring_clear(&r), 2);
  assert_true(atoll_ring_is_empty(&r));
  assert_true(atoll_ring_is_valid(&r));
  push_run(&r, 50, 4);
  assert_contents(&r, 50, 4);
  assert_u64(atoll_ring_clear(&r), 4);
}

/* Shrinking to exactly the number of values held, with those values wrapped around the end of
 * the storage, must keep them in order and make the ring full. */
static void ring_set_capacity_shrink_with_items(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  push_run(&r, 0, 6);
  pop_run(&r, 0, 6);
  push_run(&r, 20, 3); /* head 6: slots 6, 7, 0 */
  assert_rc(atoll_ring_set_capacity(&r, 3), ATOLL_OK);
  assert_u64(r.cap, 3);
  assert_u64(r.storage_cap, STORAGE);
  assert_true(atoll_ring_is_full(&r));
  assert_contents(&r, 20, 3);
  assert_rc(atoll_ring_push(&r, 99), ATOLL_EFULL);
  pop_run(&r, 20, 1);
  assert_rc(atoll_ring_push(&r, 23), ATOLL_OK);
  assert_contents(&r, 21, 3);
}

static void ring_set_capacity_grow_keeps_order(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  assert_rc(atoll_ring_set_capacity(&r, 3), ATOLL_OK);
  push_run(&r, 0, 2);
  pop_run(&r, 0, 2);
  push_run(&r, 30, 3); /* head 2 of 3: slots 2, 0, 1 */
  assert_rc(atoll_ring_set_capacity(&r, STORAGE), ATOLL_OK);
  assert_false(atoll_ring_is_full(&r));
  assert_contents(&r, 30, 3);
  push_run(&r, 33, STORAGE - 3);
  assert_contents(&r, 30, STORAGE);
  assert_rc(atoll_ring_push(&r, 99), ATOLL_EFULL);
  pop_run(&r, 30, STORAGE);
}

static void ring_set_capacity_errors_leave_ring(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  push_run(&r, 0, 5);
  pop_run(&r, 0, 2);
  struct atoll_ring before = r;
  assert_rc(atoll_ring_set_capacity(&r, 0), ATOLL_ERANGE);
  assert_rc(atoll_ring_set_capacity(&r, STORAGE + 1), ATOLL_ERANGE);
  assert_rc(atoll_ring_set_capacity(&r, 2), ATOLL_EFULL);
  assert_memory_equal(&before, &r, sizeof r);
  assert_contents(&r, 2, 3);
  assert_rc(atoll_ring_set_capacity(&r, 3), ATOLL_OK);
  assert_contents(&r, 2, 3);
}

static void ring_set_capacity_when_empty(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  push_run(&r, 0, 5);
  pop_run(&r, 0, 5);
  assert_rc(atoll_ring_set_capacity(&r, 1), ATOLL_OK);
  assert_u64(r.head, 0);
  push_run(&r, 7, 1);
  assert_rc(atoll_ring_push(&r, 8), ATOLL_EFULL);
  assert_contents(&r, 7, 1);
}

/* A corrupted or missing ring is refused by every entry point and reads as empty. */
static void ring_rejects_invalid_ring(void **state) {
  (void)state;
  uint64_t slots[4];
  uint64_t v = 5;
  struct atoll_ring bad[5];
  for (int i = 0; i < 5; i++)
    assert_rc(atoll_ring_init(&bad[i], slots, 4), ATOLL_OK);
  bad[0].head = 4;     /* head == cap */
  bad[1].count = 5;    /* count > cap */
  bad[2].cap = 5;      /* cap > storage_cap */
  bad[3].slots = NULL; /* no storage */
  bad[4].cap = 0;      /* no capacity */
  for (int i = 0; i < 5; i++) {
    assert_false(atoll_ring_is_valid(&bad[i]));
    assert_rc(atoll_ring_push(&bad[i], 1), ATOLL_EINVAL);
    assert_rc(atoll_ring_pop(&bad[i], &v), ATOLL_EINVAL);
    assert_rc(atoll_ring_peek(&bad[i], 0, &v), ATOLL_EINVAL);
    assert_rc(atoll_ring_set_capacity(&bad[i], 2), ATOLL_EINVAL);
    assert_u64(atoll_ring_count(&bad[i]), 0);
    assert_u64(atoll_ring_clear(&bad[i]), 0);
    assert_true(atoll_ring_is_empty(&bad[i]));
    assert_false(atoll_ring_is_full(&bad[i]));
  }
  assert_false(atoll_ring_is_valid(NULL));
  assert_rc(atoll_ring_push(NULL, 1), ATOLL_EINVAL);
  assert_rc(atoll_ring_pop(NULL, &v), ATOLL_EINVAL);
  assert_rc(atoll_ring_peek(NULL, 0, &v), ATOLL_EINVAL);
  assert_rc(atoll_ring_set_capacity(NULL, 1), ATOLL_EINVAL);
  assert_u64(atoll_ring_count(NULL), 0);
  assert_u64(atoll_ring_clear(NULL), 0);
  assert_true(atoll_ring_is_empty(NULL));
  assert_false(atoll_ring_is_full(NULL));
  assert_u64(v, 5);
}

static void ring_rejects_null_out(void **state) {
  (void)state;
  uint64_t slots[2];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, 2), ATOLL_OK);
  push_run(&r, 1, 1);
  assert_rc(atoll_ring_pop(&r, NULL), ATOLL_EINVAL);
  assert_rc(atoll_ring_peek(&r, 0, NULL), ATOLL_EINVAL);
  assert_contents(&r, 1, 1);
}

/* Guard slots on both sides of the storage must never be written, whatever the capacity. */
static void ring_stays_inside_storage(void **state) {
  (void)state;
  uint64_t buf[STORAGE + 2];
  const uint64_t guard = 0xdeadbeefcafef00dull;
  buf[0] = guard;
  buf[STORAGE + 1] = guard;
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, buf + 1, STORAGE), ATOLL_OK);
  uint64_t seed = 7;
  for (uint32_t op = 0; op < 2000; op++) {
    uint64_t v = 0;
    uint32_t pick = ds_lcg_below(&seed, 10);
    if (pick < 5)
      (void)atoll_ring_push(&r, op);
    else if (pick < 9)
      (void)atoll_ring_pop(&r, &v);
    else
      (void)atoll_ring_set_capacity(&r, 1u + ds_lcg_below(&seed, STORAGE));
  }
  assert_u64(buf[0], guard);
  assert_u64(buf[STORAGE + 1], guard);
}

/* The reference: a plain array, oldest value at index 0. */
struct ring_model {
  uint64_t v[STORAGE];
  uint32_t count;
  uint32_t cap;
};

static void model_check(const struct ring_model *m, const struct atoll_ring *r) {
  assert_true(atoll_ring_is_valid(r));
  assert_u64(atoll_ring_count(r), m->count);
  assert_u64(r->cap, m->cap);
  assert_int_equal(atoll_ring_is_full(r), m->count == m->cap);
  assert_int_equal(atoll_ring_is_empty(r), m->count == 0);
  for (uint32_t i = 0; i < m->count; i++) {
    uint64_t v = 0;
    assert_rc(atoll_ring_peek(r, i, &v), ATOLL_OK);
    assert_u64(v, m->v[i]);
  }
}

static void model_step(struct ring_model *m, struct atoll_ring *r, uint64_t *seed, uint64_t op) {
  uint32_t pick = ds_lcg_below(seed, 20);
  uint64_t v = 0;
  if (pick < 9) {
    int want = m->count == m->cap ? ATOLL_EFULL : ATOLL_OK;
    assert_rc(atoll_ring_push(r, op), want);
    if (want == ATOLL_OK)
      m->v[m->count++] = op;
  } else if (pick < 17) {
    int want = m->count == 0 ? ATOLL_EEMPTY : ATOLL_OK;
    assert_rc(atoll_ring_pop(r, &v), want);
    if (want == ATOLL_OK) {
      assert_u64(v, m->v[0]);
      memmove(m->v, m->v + 1, (m->count - 1u) * sizeof m->v[0]);
      m->count--;
    }
  } else if (pick < 19) {
    uint32_t cap = ds_lcg_below(seed, STORAGE + 2u);
    int want = (cap == 0 || cap > STORAGE) ? ATOLL_ERANGE
               : (m->count > cap)          ? ATOLL_EFULL
                                           : ATOLL_OK;
    assert_rc(atoll_ring_set_capacity(r, cap), want);
    if (want == ATOLL_OK)
      m->cap = cap;
  } else {
    assert_u64(atoll_ring_clear(r), m->count);
    m->count = 0;
  }
}

static void ring_random_against_model(void **state) {
  (void)state;
  uint64_t slots[STORAGE];
  struct atoll_ring r;
  assert_rc(atoll_ring_init(&r, slots, STORAGE), ATOLL_OK);
  struct ring_model m = {.count = 0, .cap = STORAGE};
  uint64_t seed = 0x5eed0001u;
  for (uint64_t op = 0; op < 20000; op++) {
    model_step(&m, &r, &seed, op);
    model_check(&m, &r);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(ring_init_rejects_bad_arguments),
    cmocka_unit_test(ring_init_starts_empty),
    cmocka_unit_test(ring_capacity_one),
    cmocka_unit_test(ring_fifo_order),
    cmocka_unit_test(ring_wraparound_many_times),
    cmocka_unit_test(ring_full_error_leaves_contents),
    cmocka_unit_test(ring_empty_error_leaves_out),
    cmocka_unit_test(ring_peek_out_of_range),
    cmocka_unit_test(ring_clear_returns_dropped),
    cmocka_unit_test(ring_set_capacity_shrink_with_items),
    cmocka_unit_test(ring_set_capacity_grow_keeps_order),
    cmocka_unit_test(ring_set_capacity_errors_leave_ring),
    cmocka_unit_test(ring_set_capacity_when_empty),
    cmocka_unit_test(ring_rejects_invalid_ring),
    cmocka_unit_test(ring_rejects_null_out),
    cmocka_unit_test(ring_stays_inside_storage),
    cmocka_unit_test(ring_random_against_model),
};

ATOLL_TEST_MAIN(tests)
