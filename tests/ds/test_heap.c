/* 4-ary heap tests: the (time, order) key, edge cases (capacity 1, full/empty, removal at every
 * position, both sift directions of remove_at), and a randomised run against a sorted array. */
#include "tests/ds/ds_test.h"

#include "core/ds/heap.h"

#include <string.h>

/* The event queue's packing: priority class in the top 16 bits, sequence number below. */
static uint64_t event_order(uint64_t priority_class, uint64_t seq) {
  return (priority_class << 48) | seq;
}

static struct atoll_heap_item item(int64_t time, uint64_t order, uint64_t value) {
  struct atoll_heap_item it = {.time = time, .order = order, .value = value};
  return it;
}

static void assert_item(const struct atoll_heap_item *actual, const struct atoll_heap_item *want) {
  assert_i64(actual->time, want->time);
  assert_u64(actual->order, want->order);
  assert_u64(actual->value, want->value);
}

static void push_item(struct atoll_heap *h, int64_t time, uint64_t order, uint64_t value) {
  struct atoll_heap_item it = item(time, order, value);
  assert_rc(atoll_heap_push(h, &it), ATOLL_OK);
  assert_true(atoll_heap_is_valid(h));
}

/* Sorts items[0..n) by (time, order); insertion sort is plenty for test sizes. */
static void sort_items(struct atoll_heap_item *items, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    struct atoll_heap_item x = items[i];
    uint32_t j = i;
    while (j > 0 && atoll_heap_item_less(&x, &items[j - 1])) {
      items[j] = items[j - 1];
      j--;
    }
    items[j] = x;
  }
}

static void heap_item_less_orders_by_time_then_order(void **state) {
  (void)state;
  struct atoll_heap_item a = item(5, 9, 0);
  struct atoll_heap_item b = item(6, 0, 0);
  assert_true(atoll_heap_item_less(&a, &b));
  assert_false(atoll_heap_item_less(&b, &a));
  struct atoll_heap_item c = item(5, 10, 0);
  assert_true(atoll_heap_item_less(&a, &c));
  assert_false(atoll_heap_item_less(&c, &a));
  struct atoll_heap_item lo = item(INT64_MIN, UINT64_MAX, 0);
  struct atoll_heap_item neg = item(-1, 0, 0);
  struct atoll_heap_item hi = item(INT64_MAX, 0, 0);
  assert_true(atoll_heap_item_less(&lo, &neg));
  assert_true(atoll_heap_item_less(&neg, &a));
  assert_true(atoll_heap_item_less(&a, &hi));
  /* The value is payload: equal keys compare equal both ways, whatever the values. */
  struct atoll_heap_item d = item(5, 9, 123);
  assert_false(atoll_heap_item_less(&a, &d));
  assert_false(atoll_heap_item_less(&d, &a));
  assert_false(atoll_heap_item_less(NULL, &a));
  assert_false(atoll_heap_item_less(&a, NULL));
}

/* With the event queue's packing, the priority class decides before the sequence number. */
static void heap_item_less_priority_class_dominates_sequence(void **state) {
  (void)state;
  struct atoll_heap_item urgent_late = item(100, event_order(0, 999999), 0);
  struct atoll_heap_item normal_early = item(100, event_order(1, 0), 0);
  assert_true(atoll_heap_item_less(&urgent_late, &normal_early));
  struct atoll_heap_item same_class_early = item(100, event_order(1, 1), 0);
  assert_true(atoll_heap_item_less(&normal_early, &same_class_early));
}

static void heap_init_rejects_bad_arguments(void **state) {
  (void)state;
  struct atoll_heap_item items[4];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(NULL, items, 4), ATOLL_EINVAL);
  assert_rc(atoll_heap_init(&h, NULL, 4), ATOLL_EINVAL);
  assert_rc(atoll_heap_init(&h, items, 0), ATOLL_EINVAL);
  assert_rc(atoll_heap_init(&h, items, 4), ATOLL_OK);
  assert_true(atoll_heap_is_valid(&h));
  assert_u64(atoll_heap_count(&h), 0);
}

static void heap_capacity_one(void **state) {
  (void)state;
  struct atoll_heap_item slot;
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, &slot, 1), ATOLL_OK);
  for (int64_t t = 0; t < 50; t++) {
    push_item(&h, t, 0, (uint64_t)t);
    struct atoll_heap_item extra = item(-1, 0, 0);
    assert_rc(atoll_heap_push(&h, &extra), ATOLL_EFULL);
    struct atoll_heap_item out;
    assert_rc(atoll_heap_peek(&h, &out), ATOLL_OK);
    assert_i64(out.time, t);
    assert_rc(atoll_heap_pop(&h, &out), ATOLL_OK);
    assert_i64(out.time, t);
    assert_rc(atoll_heap_pop(&h, &out), ATOLL_EEMPTY);
    assert_true(atoll_heap_is_valid(&h));
  }
}

static void heap_empty_errors_leave_out(void **state) {
  (void)state;
  struct atoll_heap_item items[2];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 2), ATOLL_OK);
  struct atoll_heap_item out = item(7, 8, 9);
  struct atoll_heap_item want = out;
  assert_rc(atoll_heap_pop(&h, &out), ATOLL_EEMPTY);
  assert_rc(atoll_heap_peek(&h, &out), ATOLL_EEMPTY);
  assert_rc(atoll_heap_remove_at(&h, 0, &out), ATOLL_ERANGE);
  assert_item(&out, &want);
  assert_true(atoll_heap_is_valid(&h));
}

static void heap_full_error_leaves_heap(void **state) {
  (void)state;
  struct atoll_heap_item items[5];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 5), ATOLL_OK);
  for (uint64_t i = 0; i < 5; i++)
    push_item(&h, (int64_t)(10 - i), i, i);
  struct atoll_heap_item copy[5];
  memcpy(copy, items, sizeof copy);
  struct atoll_heap_item smallest = item(-100, 0, 0);
  assert_rc(atoll_heap_push(&h, &smallest), ATOLL_EFULL);
  assert_u64(atoll_heap_count(&h), 5);
  assert_memory_equal(copy, items, sizeof copy);
}

/* A permutation of 0..n-1 (a multiplicative step coprime with n) pops back sorted. */
static void heap_pops_in_sorted_order(void **state) {
  (void)state;
  enum { N = 257 };
  struct atoll_heap_item items[N];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, N), ATOLL_OK);
  for (uint64_t i = 0; i < N; i++) {
    uint64_t k = (i * 100u) % N;
    push_item(&h, (int64_t)k - 128, k, k * 3u);
  }
  for (uint64_t k = 0; k < N; k++) {
    struct atoll_heap_item out;
    assert_rc(atoll_heap_pop(&h, &out), ATOLL_OK);
    struct atoll_heap_item want = item((int64_t)k - 128, k, k * 3u);
    assert_item(&out, &want);
    assert_true(atoll_heap_is_valid(&h));
  }
  assert_u64(atoll_heap_count(&h), 0);
}

/* Items sharing a time pop by order, and the pop sequence does not depend on push order. */
static void heap_equal_times_pop_by_order(void **state) {
  (void)state;
  struct atoll_heap_item items_a[16];
  struct atoll_heap_item items_b[16];
  struct atoll_heap a;
  struct atoll_heap b;
  assert_rc(atoll_heap_init(&a, items_a, 16), ATOLL_OK);
  assert_rc(atoll_heap_init(&b, items_b, 16), ATOLL_OK);
  for (uint64_t i = 0; i < 16; i++) {
    push_item(&a, 42, event_order(i % 3u, i), i);
    push_item(&b, 42, event_order((15u - i) % 3u, 15u - i), 15u - i);
  }
  uint64_t last_order = 0;
  for (uint32_t i = 0; i < 16; i++) {
    struct atoll_heap_item x;
    struct atoll_heap_item y;
    assert_rc(atoll_heap_pop(&a, &x), ATOLL_OK);
    assert_rc(atoll_heap_pop(&b, &y), ATOLL_OK);
    assert_item(&x, &y);
    if (i > 0)
      assert_cmp(x.order, >, last_order);
    last_order = x.order;
  }
}

/* Removing at every position of a 50-item heap, one fresh heap per position, returns the item
 * that was there and leaves exactly the others, in order. */
static void heap_remove_at_every_position(void **state) {
  (void)state;
  enum { N = 50 };
  for (uint32_t pos = 0; pos < N; pos++) {
    struct atoll_heap_item items[N];
    struct atoll_heap h;
    assert_rc(atoll_heap_init(&h, items, N), ATOLL_OK);
    for (uint64_t i = 0; i < N; i++)
      push_item(&h, (int64_t)((i * 37u) % N), i, i);
    struct atoll_heap_item expected[N];
    memcpy(expected, items, sizeof expected);
    struct atoll_heap_item victim = items[pos];
    struct atoll_heap_item out;
    assert_rc(atoll_heap_remove_at(&h, pos, &out), ATOLL_OK);
    assert_item(&out, &victim);
    assert_true(atoll_heap_is_valid(&h));
    assert_u64(atoll_heap_count(&h), N - 1);
    expected[pos] = expected[N - 1];
    sort_items(expected, N - 1);
    for (uint32_t i = 0; i < N - 1; i++) {
      assert_rc(atoll_heap_pop(&h, &out), ATOLL_OK);
      assert_item(&out, &expected[i]);
    }
  }
}

/* The item moved into the hole can come from another subtree and sort before the hole's parent;
 * remove_at must then sift it up. Layout (times): root 0; children 100, 1, 2, 3; node 1's
 * children 101..104; node 2's children 5..8. Removing position 5 (101) moves 8 under 100. */
static void heap_remove_at_sifts_up(void **state) {
  (void)state;
  static const int64_t times[] = {0, 100, 1, 2, 3, 101, 102, 103, 104, 5, 6, 7, 8};
  enum { N = sizeof times / sizeof times[0] };
  struct atoll_heap_item items[N];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, N), ATOLL_OK);
  for (uint32_t i = 0; i < N; i++)
    items[i] = item(times[i], i, i);
  h.count = N;
  assert_true(atoll_heap_is_valid(&h));
  struct atoll_heap_item out;
  assert_rc(atoll_heap_remove_at(&h, 5, &out), ATOLL_OK);
  assert_i64(out.time, 101);
  assert_true(atoll_heap_is_valid(&h));
  assert_i64(h.items[1].time, 8);
  assert_i64(h.items[5].time, 100);
}

static void heap_remove_at_out_of_range(void **state) {
  (void)state;
  struct atoll_heap_item items[4];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 4), ATOLL_OK);
  push_item(&h, 1, 0, 0);
  push_item(&h, 2, 1, 1);
  struct atoll_heap_item out = item(0, 0, 77);
  assert_rc(atoll_heap_remove_at(&h, 2, &out), ATOLL_ERANGE);
  assert_rc(atoll_heap_remove_at(&h, UINT32_MAX, &out), ATOLL_ERANGE);
  assert_u64(out.value, 77);
  assert_u64(atoll_heap_count(&h), 2);
  assert_rc(atoll_heap_remove_at(&h, 1, &out), ATOLL_OK); /* the last position */
  assert_i64(out.time, 2);
  assert_rc(atoll_heap_remove_at(&h, 0, &out), ATOLL_OK);
  assert_i64(out.time, 1);
  assert_rc(atoll_heap_remove_at(&h, 0, &out), ATOLL_ERANGE);
}

static void heap_clear_returns_dropped(void **state) {
  (void)state;
  struct atoll_heap_item items[8];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 8), ATOLL_OK);
  assert_u64(atoll_heap_clear(&h), 0);
  for (uint64_t i = 0; i < 6; i++)
    push_item(&h, (int64_t)i, i, i);
  assert_u64(atoll_heap_clear(&h), 6);
  assert_u64(atoll_heap_count(&h), 0);
  assert_true(atoll_heap_is_valid(&h));
  push_item(&h, 3, 0, 0);
  assert_u64(atoll_heap_count(&h), 1);
}

static void heap_is_valid_detects_broken_heaps(void **state) {
  (void)state;
  struct atoll_heap_item items[8];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 8), ATOLL_OK);
  for (uint64_t i = 0; i < 8; i++)
    push_item(&h, (int64_t)i, i, i);
  struct atoll_heap broken = h;
  items[7].time = -1; /* a leaf now sorts before its parent */
  assert_false(atoll_heap_is_valid(&broken));
  items[7].time = 7;
  assert_true(atoll_heap_is_valid(&broken));
  broken.count = 9;
  assert_false(atoll_heap_is_valid(&broken));
  broken = h;
  broken.cap = 0;
  broken.count = 0;
  assert_false(atoll_heap_is_valid(&broken));
  broken = h;
  broken.items = NULL;
  assert_false(atoll_heap_is_valid(&broken));
  assert_false(atoll_heap_is_valid(NULL));
}

static void heap_rejects_invalid_arguments(void **state) {
  (void)state;
  struct atoll_heap_item items[4];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, 4), ATOLL_OK);
  struct atoll_heap_item it = item(1, 2, 3);
  struct atoll_heap_item out = item(0, 0, 0);
  assert_rc(atoll_heap_push(NULL, &it), ATOLL_EINVAL);
  assert_rc(atoll_heap_push(&h, NULL), ATOLL_EINVAL);
  assert_rc(atoll_heap_pop(NULL, &out), ATOLL_EINVAL);
  assert_rc(atoll_heap_peek(NULL, &out), ATOLL_EINVAL);
  assert_rc(atoll_heap_remove_at(NULL, 0, &out), ATOLL_EINVAL);
  assert_u64(atoll_heap_count(NULL), 0);
  assert_u64(atoll_heap_clear(NULL), 0);
  push_item(&h, 1, 2, 3);
  assert_rc(atoll_heap_pop(&h, NULL), ATOLL_EINVAL);
  assert_rc(atoll_heap_peek(&h, NULL), ATOLL_EINVAL);
  assert_rc(atoll_heap_remove_at(&h, 0, NULL), ATOLL_EINVAL);
  assert_u64(atoll_heap_count(&h), 1);
  /* A heap whose count exceeds its storage is refused before anything is read or written. */
  struct atoll_heap bad = h;
  bad.count = 5;
  assert_rc(atoll_heap_push(&bad, &it), ATOLL_EINVAL);
  assert_rc(atoll_heap_pop(&bad, &out), ATOLL_EINVAL);
  assert_rc(atoll_heap_peek(&bad, &out), ATOLL_EINVAL);
  assert_rc(atoll_heap_remove_at(&bad, 0, &out), ATOLL_EINVAL);
  assert_u64(atoll_heap_count(&bad), 0);
  assert_u64(atoll_heap_clear(&bad), 0);
  assert_u64(bad.count, 5);
  assert_u64(out.value, 0);
}

/* The reference: the same items kept sorted, so the minimum is model[0]. */
struct heap_model {
  struct atoll_heap_item v[64];
  uint32_t count;
};

enum { MODEL_CAP = 64 };

static void model_insert(struct heap_model *m, const struct atoll_heap_item *it) {
  m->v[m->count++] = *it;
  sort_items(m->v, m->count);
}

/* Removes the item with its exact key and value; it must be present. */
static void model_remove(struct heap_model *m, const struct atoll_heap_item *it) {
  for (uint32_t i = 0; i < m->count; i++) {
    if (m->v[i].time == it->time && m->v[i].order == it->order && m->v[i].value == it->value) {
      memmove(&m->v[i], &m->v[i + 1], (m->count - i - 1u) * sizeof m->v[0]);
      m->count--;
      return;
    }
  }
  fail_msg("removed item (time %lld, order %llu) is not in the model", (long long)it->time,
           (unsigned long long)it->order);
}

/* The heap must be valid and hold exactly the model's items. */
static void model_check(const struct heap_model *m, const struct atoll_heap *h) {
  assert_true(atoll_heap_is_valid(h));
  assert_u64(atoll_heap_count(h), m->count);
  struct atoll_heap_item sorted[MODEL_CAP];
  memcpy(sorted, h->items, h->count * sizeof sorted[0]);
  sort_items(sorted, h->count);
  for (uint32_t i = 0; i < m->count; i++)
    assert_item(&sorted[i], &m->v[i]);
}

/* One random operation. Phases of 500 operations alternate between mostly pushing and mostly
 * removing, so that runs reach both the full and the empty heap. */
static void model_step(struct heap_model *m, struct atoll_heap *h, uint64_t *seed, uint64_t seq) {
  uint32_t push_pct = (seq / 500u) % 2u == 0 ? 65u : 35u;
  uint32_t pick = ds_lcg_below(seed, 1000) / 10u;
  bool clear = ds_lcg_below(seed, 1000) == 0;
  struct atoll_heap_item out = item(0, 0, 0);
  if (clear) {
    assert_u64(atoll_heap_clear(h), m->count);
    m->count = 0;
  } else if (pick < push_pct) {
    int64_t time = (int64_t)ds_lcg_below(seed, 81) - 40;
    struct atoll_heap_item it = item(time, event_order(ds_lcg_below(seed, 4), seq), seq * 7u);
    int want = m->count == MODEL_CAP ? ATOLL_EFULL : ATOLL_OK;
    assert_rc(atoll_heap_push(h, &it), want);
    if (want == ATOLL_OK)
      model_insert(m, &it);
  } else if (pick < push_pct + 20u) {
    assert_rc(atoll_heap_pop(h, &out), m->count == 0 ? ATOLL_EEMPTY : ATOLL_OK);
    if (m->count > 0) {
      assert_item(&out, &m->v[0]);
      model_remove(m, &out);
    }
  } else if (pick < 95u) {
    uint32_t pos = ds_lcg_below(seed, m->count + 2u);
    assert_rc(atoll_heap_remove_at(h, pos, &out), pos < m->count ? ATOLL_OK : ATOLL_ERANGE);
    if (pos < m->count)
      model_remove(m, &out);
  } else {
    assert_rc(atoll_heap_peek(h, &out), m->count == 0 ? ATOLL_EEMPTY : ATOLL_OK);
    if (m->count > 0)
      assert_item(&out, &m->v[0]);
  }
}

static void heap_random_against_sorted_model(void **state) {
  (void)state;
  struct atoll_heap_item items[MODEL_CAP];
  struct atoll_heap h;
  assert_rc(atoll_heap_init(&h, items, MODEL_CAP), ATOLL_OK);
  struct heap_model m = {.count = 0};
  uint64_t seed = 0x5eed0002u;
  uint32_t saw_full = 0;
  uint32_t saw_empty = 0;
  for (uint64_t seq = 0; seq < 10000; seq++) {
    model_step(&m, &h, &seed, seq);
    model_check(&m, &h);
    saw_full += m.count == MODEL_CAP;
    saw_empty += m.count == 0;
  }
  /* The phases are meant to reach both ends; check that they did, or the test proves less. */
  assert_cmp(saw_full, >, 0);
  assert_cmp(saw_empty, >, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(heap_item_less_orders_by_time_then_order),
    cmocka_unit_test(heap_item_less_priority_class_dominates_sequence),
    cmocka_unit_test(heap_init_rejects_bad_arguments),
    cmocka_unit_test(heap_capacity_one),
    cmocka_unit_test(heap_empty_errors_leave_out),
    cmocka_unit_test(heap_full_error_leaves_heap),
    cmocka_unit_test(heap_pops_in_sorted_order),
    cmocka_unit_test(heap_equal_times_pop_by_order),
    cmocka_unit_test(heap_remove_at_every_position),
    cmocka_unit_test(heap_remove_at_sifts_up),
    cmocka_unit_test(heap_remove_at_out_of_range),
    cmocka_unit_test(heap_clear_returns_dropped),
    cmocka_unit_test(heap_is_valid_detects_broken_heaps),
    cmocka_unit_test(heap_rejects_invalid_arguments),
    cmocka_unit_test(heap_random_against_sorted_model),
};

ATOLL_TEST_MAIN(tests)
