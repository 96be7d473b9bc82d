/* Interval set tests: hand-written cases for merging, splitting, capacity and aliasing, and
 * randomised runs against a per-byte bitmap over a 256-byte universe, placed both at address 0
 * and at the top of the address space. */
#include "tests/ds/ds_test.h"

#include "core/ds/ivset.h"

#include <string.h>

/* The reference universe is [base, base + U). Runs of a U-byte bitmap number at most U / 2. */
enum { U = 256, BIG = U / 2 + 2 };

static const uint64_t TOP_BASE = UINT64_MAX - U;

/* Checks s holds exactly the ranges given as {lo, hi} pairs. */
static void assert_ranges(const struct atoll_ivset *s, const uint64_t (*want)[2], uint32_t n) {
  assert_true(atoll_ivset_is_valid(s));
  assert_u64(s->count, n);
  for (uint32_t i = 0; i < n; i++) {
    assert_u64(s->iv[i].lo, want[i][0]);
    assert_u64(s->iv[i].hi, want[i][1]);
  }
}

/* ---- hand-written cases ---- */

static void ivset_init_rejects_bad_arguments(void **state) {
  (void)state;
  struct atoll_interval iv[2];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(NULL, iv, 2), ATOLL_EINVAL);
  assert_rc(atoll_ivset_init(&s, NULL, 2), ATOLL_EINVAL);
  assert_rc(atoll_ivset_init(&s, iv, 0), ATOLL_EINVAL);
  assert_rc(atoll_ivset_init(&s, iv, 2), ATOLL_OK);
  assert_true(atoll_ivset_is_valid(&s));
  assert_u64(s.count, 0);
  assert_u64(atoll_ivset_bytes(&s), 0);
}

static void ivset_empty_and_reversed_ranges(void **state) {
  (void)state;
  struct atoll_interval iv[2];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 2), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 10, 20), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 5, 5), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 30, 30), ATOLL_OK);
  assert_rc(atoll_ivset_remove(&s, 15, 15), ATOLL_OK);
  static const uint64_t want[][2] = {{10, 20}};
  assert_ranges(&s, want, 1);
  assert_true(atoll_ivset_contains(&s, 15, 15));
  assert_true(atoll_ivset_contains(&s, 99, 99));
  assert_false(atoll_ivset_overlaps(&s, 15, 15));
  assert_rc(atoll_ivset_insert(&s, 21, 20), ATOLL_EINVAL);
  assert_rc(atoll_ivset_remove(&s, 21, 20), ATOLL_EINVAL);
  assert_false(atoll_ivset_contains(&s, 19, 11));
  assert_false(atoll_ivset_overlaps(&s, 19, 11));
  assert_ranges(&s, want, 1);
}

static void ivset_insert_merges_overlapping_and_adjacent(void **state) {
  (void)state;
  struct atoll_interval iv[4];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 4), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 10, 20), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 20, 30), ATOLL_OK); /* touches on the right */
  static const uint64_t one[][2] = {{10, 30}};
  assert_ranges(&s, one, 1);
  assert_rc(atoll_ivset_insert(&s, 5, 10), ATOLL_OK); /* touches on the left */
  assert_rc(atoll_ivset_insert(&s, 40, 50), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 0, 2), ATOLL_OK);
  static const uint64_t three[][2] = {{0, 2}, {5, 30}, {40, 50}};
  assert_ranges(&s, three, 3);
  assert_rc(atoll_ivset_insert(&s, 12, 18), ATOLL_OK); /* already covered */
  assert_ranges(&s, three, 3);
  assert_rc(atoll_ivset_insert(&s, 25, 45), ATOLL_OK); /* bridges two ranges */
  static const uint64_t two[][2] = {{0, 2}, {5, 50}};
  assert_ranges(&s, two, 2);
  assert_rc(atoll_ivset_insert(&s, 1, 100), ATOLL_OK); /* swallows everything */
  static const uint64_t all[][2] = {{0, 100}};
  assert_ranges(&s, all, 1);
  assert_u64(atoll_ivset_bytes(&s), 100);
}

/* A full set still accepts ranges that merge into what it holds; only a new separate range
 * fails, and then the set is unchanged. */
static void ivset_insert_efull_only_when_needed(void **state) {
  (void)state;
  struct atoll_interval iv[2];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 2), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 0, 10), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 20, 30), ATOLL_OK);
  static const uint64_t full[][2] = {{0, 10}, {20, 30}};
  assert_rc(atoll_ivset_insert(&s, 40, 50), ATOLL_EFULL);
  assert_rc(atoll_ivset_insert(&s, 11, 19), ATOLL_EFULL);
  assert_ranges(&s, full, 2);
  assert_rc(atoll_ivset_insert(&s, 30, 35), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 5, 12), ATOLL_OK);
  static const uint64_t grown[][2] = {{0, 12}, {20, 35}};
  assert_ranges(&s, grown, 2);
  assert_rc(atoll_ivset_insert(&s, 12, 20), ATOLL_OK);
  static const uint64_t merged[][2] = {{0, 35}};
  assert_ranges(&s, merged, 1);
}

static void ivset_remove_trims_splits_and_drops(void **state) {
  (void)state;
  struct atoll_interval iv[4];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 4), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 0, 100), ATOLL_OK);
  assert_rc(atoll_ivset_remove(&s, 40, 60), ATOLL_OK); /* split */
  static const uint64_t split[][2] = {{0, 40}, {60, 100}};
  assert_ranges(&s, split, 2);
  assert_rc(atoll_ivset_remove(&s, 0, 10), ATOLL_OK);   /* trim the left end */
  assert_rc(atoll_ivset_remove(&s, 90, 200), ATOLL_OK); /* trim the right end */
  assert_rc(atoll_ivset_remove(&s, 40, 60), ATOLL_OK);  /* nothing there */
  static const uint64_t trimmed[][2] = {{10, 40}, {60, 90}};
  assert_ranges(&s, trimmed, 2);
  assert_rc(atoll_ivset_insert(&s, 95, 99), ATOLL_OK);
  assert_rc(atoll_ivset_remove(&s, 30, 96), ATOLL_OK); /* trims two, drops one between */
  static const uint64_t spanned[][2] = {{10, 30}, {96, 99}};
  assert_ranges(&s, spanned, 2);
  assert_rc(atoll_ivset_remove(&s, 0, 1000), ATOLL_OK);
  assert_u64(s.count, 0);
  assert_rc(atoll_ivset_remove(&s, 0, 1000), ATOLL_OK);
  assert_true(atoll_ivset_is_valid(&s));
}

static void ivset_remove_split_efull_leaves_set(void **state) {
  (void)state;
  struct atoll_interval iv[1];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 1), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 0, 100), ATOLL_OK);
  assert_rc(atoll_ivset_remove(&s, 10, 20), ATOLL_EFULL);
  static const uint64_t whole[][2] = {{0, 100}};
  assert_ranges(&s, whole, 1);
  assert_rc(atoll_ivset_remove(&s, 0, 10), ATOLL_OK); /* trimming needs no room */
  assert_rc(atoll_ivset_remove(&s, 90, 100), ATOLL_OK);
  static const uint64_t inner[][2] = {{10, 90}};
  assert_ranges(&s, inner, 1);
}

static void ivset_contains_and_overlaps_edges(void **state) {
  (void)state;
  struct atoll_interval iv[4];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 4), ATOLL_OK);
  assert_false(atoll_ivset_contains(&s, 0, 1));
  assert_false(atoll_ivset_overlaps(&s, 0, UINT64_MAX));
  assert_rc(atoll_ivset_insert(&s, 10, 20), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 30, 40), ATOLL_OK);
  assert_true(atoll_ivset_contains(&s, 10, 20));
  assert_true(atoll_ivset_contains(&s, 19, 20));
  assert_false(atoll_ivset_contains(&s, 9, 11));
  assert_false(atoll_ivset_contains(&s, 19, 21));
  assert_false(atoll_ivset_contains(&s, 10, 40)); /* the gap is not covered */
  assert_true(atoll_ivset_overlaps(&s, 19, 30));
  assert_false(atoll_ivset_overlaps(&s, 20, 30)); /* half-open on both sides */
  assert_false(atoll_ivset_overlaps(&s, 0, 10));
  assert_true(atoll_ivset_overlaps(&s, 0, 11));
  assert_true(atoll_ivset_overlaps(&s, 39, UINT64_MAX));
  assert_false(atoll_ivset_overlaps(&s, 40, UINT64_MAX));
}

/* Ranges at the very top and bottom of the address space: nothing may wrap. */
static void ivset_extreme_addresses(void **state) {
  (void)state;
  struct atoll_interval iv[4];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 4), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 0, UINT64_MAX), ATOLL_OK);
  assert_u64(atoll_ivset_bytes(&s), UINT64_MAX);
  assert_true(atoll_ivset_contains(&s, 0, UINT64_MAX));
  assert_rc(atoll_ivset_remove(&s, 1, UINT64_MAX - 1), ATOLL_OK);
  static const uint64_t ends[][2] = {{0, 1}, {UINT64_MAX - 1, UINT64_MAX}};
  assert_ranges(&s, ends, 2);
  assert_u64(atoll_ivset_bytes(&s), 2);
  assert_true(atoll_ivset_overlaps(&s, UINT64_MAX - 1, UINT64_MAX));
  assert_false(atoll_ivset_overlaps(&s, 1, UINT64_MAX - 1));
  assert_rc(atoll_ivset_insert(&s, 1, UINT64_MAX - 1), ATOLL_OK);
  static const uint64_t whole[][2] = {{0, UINT64_MAX}};
  assert_ranges(&s, whole, 1);
  assert_rc(atoll_ivset_remove(&s, 0, UINT64_MAX), ATOLL_OK);
  assert_u64(s.count, 0);
}

static void ivset_clear_returns_dropped(void **state) {
  (void)state;
  struct atoll_interval iv[4];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, 4), ATOLL_OK);
  assert_u64(atoll_ivset_clear(&s), 0);
  assert_rc(atoll_ivset_insert(&s, 0, 1), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&s, 2, 3), ATOLL_OK);
  assert_u64(atoll_ivset_clear(&s), 2);
  assert_u64(s.count, 0);
  assert_true(atoll_ivset_is_valid(&s));
  assert_u64(atoll_ivset_clear(NULL), 0);
}

/* Builds a set of cap ranges from {lo, hi} pairs, all expected to insert cleanly. */
static void build(struct atoll_ivset *s, struct atoll_interval *iv, uint32_t cap,
                  const uint64_t (*ranges)[2], uint32_t n) {
  assert_rc(atoll_ivset_init(s, iv, cap), ATOLL_OK);
  for (uint32_t i = 0; i < n; i++)
    assert_rc(atoll_ivset_insert(s, ranges[i][0], ranges[i][1]), ATOLL_OK);
}

static void ivset_set_ops_examples(void **state) {
  (void)state;
  static const uint64_t ra[][2] = {{0, 10}, {20, 30}, {40, 50}};
  static const uint64_t rb[][2] = {{5, 25}, {30, 40}, {45, 60}};
  struct atoll_interval iva[4], ivb[4], ivo[8];
  struct atoll_ivset a, b, out;
  build(&a, iva, 4, ra, 3);
  build(&b, ivb, 4, rb, 3);
  assert_rc(atoll_ivset_init(&out, ivo, 8), ATOLL_OK);
  assert_true(atoll_ivset_intersects(&a, &b));

  assert_rc(atoll_ivset_intersect(&a, &b, &out), ATOLL_OK);
  static const uint64_t inter[][2] = {{5, 10}, {20, 25}, {45, 50}};
  assert_ranges(&out, inter, 3);

  /* [20,30) and [30,40) and [40,50) touch, so the union merges them. */
  assert_rc(atoll_ivset_union(&a, &b, &out), ATOLL_OK);
  static const uint64_t uni[][2] = {{0, 60}};
  assert_ranges(&out, uni, 1);

  assert_rc(atoll_ivset_subtract(&a, &b, &out), ATOLL_OK);
  static const uint64_t a_minus_b[][2] = {{0, 5}, {25, 30}, {40, 45}};
  assert_ranges(&out, a_minus_b, 3);

  assert_rc(atoll_ivset_subtract(&b, &a, &out), ATOLL_OK);
  static const uint64_t b_minus_a[][2] = {{10, 20}, {30, 40}, {50, 60}};
  assert_ranges(&out, b_minus_a, 3);
}

/* One range of b cutting across several ranges of a, and a range of a cut by several of b. */
static void ivset_subtract_many_to_one(void **state) {
  (void)state;
  static const uint64_t ra[][2] = {{0, 100}, {110, 120}, {130, 140}};
  static const uint64_t rb[][2] = {{10, 20}, {30, 40}, {95, 135}};
  struct atoll_interval iva[4], ivb[4], ivo[8];
  struct atoll_ivset a, b, out;
  build(&a, iva, 4, ra, 3);
  build(&b, ivb, 4, rb, 3);
  assert_rc(atoll_ivset_init(&out, ivo, 8), ATOLL_OK);
  assert_rc(atoll_ivset_subtract(&a, &b, &out), ATOLL_OK);
  static const uint64_t want[][2] = {{0, 10}, {20, 30}, {40, 95}, {135, 140}};
  assert_ranges(&out, want, 4);
}

static void ivset_set_ops_with_empty_and_same(void **state) {
  (void)state;
  static const uint64_t ra[][2] = {{3, 7}, {9, 12}};
  struct atoll_interval iva[4], ive[2], ivo[4];
  struct atoll_ivset a, empty, out;
  build(&a, iva, 4, ra, 2);
  assert_rc(atoll_ivset_init(&empty, ive, 2), ATOLL_OK);
  assert_rc(atoll_ivset_init(&out, ivo, 4), ATOLL_OK);
  assert_false(atoll_ivset_intersects(&a, &empty));
  assert_true(atoll_ivset_intersects(&a, &a));
  assert_rc(atoll_ivset_intersect(&a, &a, &out), ATOLL_OK);
  assert_ranges(&out, ra, 2);
  assert_rc(atoll_ivset_union(&a, &a, &out), ATOLL_OK);
  assert_ranges(&out, ra, 2);
  assert_rc(atoll_ivset_subtract(&a, &a, &out), ATOLL_OK);
  assert_u64(out.count, 0);
  assert_rc(atoll_ivset_union(&empty, &a, &out), ATOLL_OK);
  assert_ranges(&out, ra, 2);
  assert_rc(atoll_ivset_subtract(&a, &empty, &out), ATOLL_OK);
  assert_ranges(&out, ra, 2);
  assert_rc(atoll_ivset_intersect(&a, &empty, &out), ATOLL_OK);
  assert_u64(out.count, 0);
}

/* out may not be an input or share its storage; out is left untouched. */
static void ivset_set_ops_reject_aliasing(void **state) {
  (void)state;
  static const uint64_t ra[][2] = {{0, 10}};
  static const uint64_t rb[][2] = {{5, 15}};
  struct atoll_interval iva[2], ivb[2];
  struct atoll_ivset a, b;
  build(&a, iva, 2, ra, 1);
  build(&b, ivb, 2, rb, 1);
  struct atoll_ivset shares_a = {.iv = iva, .cap = 2, .count = 0};
  struct atoll_ivset shares_b = {.iv = ivb, .cap = 2, .count = 0};
  assert_rc(atoll_ivset_intersect(&a, &b, &a), ATOLL_EINVAL);
  assert_rc(atoll_ivset_union(&a, &b, &b), ATOLL_EINVAL);
  assert_rc(atoll_ivset_subtract(&a, &b, &a), ATOLL_EINVAL);
  assert_rc(atoll_ivset_union(&a, &b, &shares_a), ATOLL_EINVAL);
  assert_rc(atoll_ivset_subtract(&a, &b, &shares_b), ATOLL_EINVAL);
  assert_rc(atoll_ivset_intersect(&a, &a, &shares_a), ATOLL_EINVAL);
  assert_ranges(&a, ra, 1);
  assert_ranges(&b, rb, 1);
  assert_u64(shares_a.count, 0);
  assert_u64(shares_b.count, 0);
}

/* A result needing more ranges than out->cap fails and leaves out empty; a result that needs
 * exactly cap ranges succeeds. */
static void ivset_set_ops_efull_leaves_out_empty(void **state) {
  (void)state;
  static const uint64_t ra[][2] = {{0, 1}, {2, 3}, {4, 5}};
  static const uint64_t rb[][2] = {{0, 10}};
  static const uint64_t rc[][2] = {{1, 2}, {3, 4}};
  struct atoll_interval iva[4], ivb[4], ivc[4], ivo[2];
  struct atoll_ivset a, b, c, out;
  build(&a, iva, 4, ra, 3);
  build(&b, ivb, 4, rb, 1);
  build(&c, ivc, 4, rc, 2);
  assert_rc(atoll_ivset_init(&out, ivo, 2), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&out, 100, 200), ATOLL_OK);
  assert_rc(atoll_ivset_union(&a, &a, &out), ATOLL_EFULL);
  assert_u64(out.count, 0);
  assert_rc(atoll_ivset_insert(&out, 100, 200), ATOLL_OK);
  assert_rc(atoll_ivset_intersect(&a, &b, &out), ATOLL_EFULL);
  assert_u64(out.count, 0);
  assert_rc(atoll_ivset_subtract(&b, &c, &out), ATOLL_EFULL); /* [0,1) [2,3) [4,10) */
  assert_u64(out.count, 0);
  /* a united with c is [0, 5): one range, though the inputs hold five between them. */
  assert_rc(atoll_ivset_union(&a, &c, &out), ATOLL_OK);
  static const uint64_t merged[][2] = {{0, 5}};
  assert_ranges(&out, merged, 1);
  assert_rc(atoll_ivset_subtract(&b, &a, &out), ATOLL_EFULL); /* [1,2) [3,4) [5,10) */
  assert_rc(atoll_ivset_subtract(&c, &a, &out), ATOLL_OK);
  assert_ranges(&out, rc, 2);
}

/* is_valid rejects every way of breaking the canonical form or the shape. */
static void ivset_is_valid_rejects_noncanonical(void **state) {
  (void)state;
  struct atoll_interval iv[3];
  struct atoll_ivset s = {.iv = iv, .cap = 3, .count = 2};
  static const uint64_t cases[][4] = {
      {5, 5, 10, 20},  /* empty range */
      {6, 5, 10, 20},  /* reversed range */
      {10, 20, 0, 5},  /* unsorted */
      {0, 12, 10, 20}, /* overlapping */
      {0, 10, 10, 20}, /* touching, should have been merged */
  };
  for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    iv[0].lo = cases[i][0];
    iv[0].hi = cases[i][1];
    iv[1].lo = cases[i][2];
    iv[1].hi = cases[i][3];
    assert_false(atoll_ivset_is_valid(&s));
    /* Writers refuse a broken set and leave it as it was. */
    assert_rc(atoll_ivset_insert(&s, 100, 101), ATOLL_EINVAL);
    assert_rc(atoll_ivset_remove(&s, 0, 1), ATOLL_EINVAL);
    assert_u64(s.count, 2);
    assert_u64(iv[0].lo, cases[i][0]);
  }
  iv[0].lo = 0;
  iv[0].hi = 9;
  assert_true(atoll_ivset_is_valid(&s));
  struct atoll_ivset bad = s;
  bad.count = 4;
  assert_false(atoll_ivset_is_valid(&bad));
  bad = s;
  bad.iv = NULL;
  assert_false(atoll_ivset_is_valid(&bad));
  bad = s;
  bad.cap = 0;
  bad.count = 0;
  assert_false(atoll_ivset_is_valid(&bad));
  assert_false(atoll_ivset_is_valid(NULL));
}

/* Set algebra refuses invalid inputs and a broken out; queries on a broken shape answer
 * "nothing" without touching memory. */
static void ivset_rejects_invalid_sets(void **state) {
  (void)state;
  struct atoll_interval iv[2], ivo[2];
  struct atoll_ivset good, out;
  assert_rc(atoll_ivset_init(&good, iv, 2), ATOLL_OK);
  assert_rc(atoll_ivset_insert(&good, 0, 10), ATOLL_OK);
  assert_rc(atoll_ivset_init(&out, ivo, 2), ATOLL_OK);
  struct atoll_ivset bad = good;
  bad.count = 3;
  assert_rc(atoll_ivset_union(&bad, &good, &out), ATOLL_EINVAL);
  assert_rc(atoll_ivset_intersect(&good, &bad, &out), ATOLL_EINVAL);
  struct atoll_ivset bad_out = out;
  bad_out.count = 3;
  assert_rc(atoll_ivset_subtract(&good, &good, &bad_out), ATOLL_EINVAL);
  assert_rc(atoll_ivset_union(NULL, &good, &out), ATOLL_EINVAL);
  assert_rc(atoll_ivset_union(&good, NULL, &out), ATOLL_EINVAL);
  assert_rc(atoll_ivset_union(&good, &good, NULL), ATOLL_EINVAL);
  assert_rc(atoll_ivset_insert(NULL, 0, 1), ATOLL_EINVAL);
  assert_rc(atoll_ivset_remove(NULL, 0, 1), ATOLL_EINVAL);
  assert_false(atoll_ivset_contains(&bad, 0, 1));
  assert_false(atoll_ivset_overlaps(&bad, 0, 1));
  assert_false(atoll_ivset_intersects(&bad, &good));
  assert_false(atoll_ivset_intersects(&good, NULL));
  assert_false(atoll_ivset_contains(NULL, 0, 0));
  assert_u64(atoll_ivset_bytes(&bad), 0);
  assert_u64(atoll_ivset_bytes(NULL), 0);
  assert_u64(atoll_ivset_clear(&bad), 0);
  assert_u64(bad.count, 3);
}

/* ---- randomised runs against a per-byte bitmap ---- */

struct bitmap {
  bool bit[U];
};

/* The bitmap's maximal runs of set bits, as the canonical ranges the set must hold. */
static uint32_t bitmap_runs(const struct bitmap *m, uint64_t base, struct atoll_interval *runs) {
  uint32_t n = 0;
  uint32_t i = 0;
  while (i < U) {
    if (!m->bit[i]) {
      i++;
      continue;
    }
    uint32_t start = i;
    while (i < U && m->bit[i])
      i++;
    runs[n].lo = base + start;
    runs[n].hi = base + i;
    n++;
  }
  return n;
}

static uint64_t bitmap_bytes(const struct bitmap *m) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < U; i++)
    n += m->bit[i];
  return n;
}

static void bitmap_set(struct bitmap *m, uint32_t lo, uint32_t hi, bool value) {
  for (uint32_t i = lo; i < hi; i++)
    m->bit[i] = value;
}

static bool bitmap_all(const struct bitmap *m, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++)
    if (!m->bit[i])
      return false;
  return true;
}

static bool bitmap_any(const struct bitmap *m, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++)
    if (m->bit[i])
      return true;
  return false;
}

/* The set must be valid and hold exactly the bitmap's runs. */
static void assert_matches(const struct atoll_ivset *s, const struct bitmap *m, uint64_t base) {
  struct atoll_interval runs[BIG];
  uint32_t n = bitmap_runs(m, base, runs);
  assert_true(atoll_ivset_is_valid(s));
  assert_u64(s->count, n);
  for (uint32_t i = 0; i < n; i++) {
    assert_u64(s->iv[i].lo, runs[i].lo);
    assert_u64(s->iv[i].hi, runs[i].hi);
  }
  assert_u64(atoll_ivset_bytes(s), bitmap_bytes(m));
}

/* A random range within [0, U]: mostly short, so that sets fragment into many ranges, and
 * sometimes empty. */
static void random_range(uint64_t *seed, uint32_t *lo, uint32_t *hi) {
  *lo = ds_lcg_below(seed, U + 1u);
  uint32_t len = ds_lcg_below(seed, 4) == 0 ? ds_lcg_below(seed, U + 1u) : ds_lcg_below(seed, 12);
  *hi = (*lo + len > U) ? U : *lo + len;
}

/* Random queries on one state: contains and overlaps against the bitmap. */
static void check_queries(const struct atoll_ivset *s, const struct bitmap *m, uint64_t base,
                          uint64_t *seed) {
  for (int q = 0; q < 4; q++) {
    uint32_t lo;
    uint32_t hi;
    random_range(seed, &lo, &hi);
    assert_int_equal(atoll_ivset_contains(s, base + lo, base + hi), bitmap_all(m, lo, hi));
    assert_int_equal(atoll_ivset_overlaps(s, base + lo, base + hi), bitmap_any(m, lo, hi));
  }
}

/* One insert or remove (or, rarely, a clear) on both the set and the bitmap. The bitmap says
 * how many ranges the result needs, hence whether ATOLL_EFULL is due. */
static void ivset_step(struct atoll_ivset *s, struct bitmap *m, uint64_t base, uint64_t *seed) {
  uint32_t pick = ds_lcg_below(seed, 100);
  if (pick == 0) {
    uint32_t held = s->count;
    assert_u64(atoll_ivset_clear(s), held);
    memset(m, 0, sizeof *m);
    return;
  }
  uint32_t lo;
  uint32_t hi;
  random_range(seed, &lo, &hi);
  bool insert = pick < 55;
  struct bitmap next = *m;
  bitmap_set(&next, lo, hi, insert);
  struct atoll_interval runs[BIG];
  uint32_t need = bitmap_runs(&next, base, runs);
  int want = need > s->cap ? ATOLL_EFULL : ATOLL_OK;
  int rc = insert ? atoll_ivset_insert(s, base + lo, base + hi)
                  : atoll_ivset_remove(s, base + lo, base + hi);
  assert_rc(rc, want);
  if (want == ATOLL_OK)
    *m = next;
}

static void run_insert_remove(uint32_t cap, uint64_t base, uint64_t seed) {
  struct atoll_interval iv[BIG];
  struct atoll_ivset s;
  assert_rc(atoll_ivset_init(&s, iv, cap), ATOLL_OK);
  struct bitmap m;
  memset(&m, 0, sizeof m);
  for (int op = 0; op < 3000; op++) {
    ivset_step(&s, &m, base, &seed);
    assert_matches(&s, &m, base);
    check_queries(&s, &m, base, &seed);
  }
}

/* Small capacities make ATOLL_EFULL frequent; the large one never reaches it. */
static void ivset_random_insert_remove_at_zero(void **state) {
  (void)state;
  static const uint32_t caps[] = {1, 2, 3, 5, 8, BIG};
  for (uint32_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
    run_insert_remove(caps[i], 0, 0x5eed0003u + i);
}

static void ivset_random_insert_remove_at_top(void **state) {
  (void)state;
  static const uint32_t caps[] = {1, 2, 3, 5, 8, BIG};
  for (uint32_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
    run_insert_remove(caps[i], TOP_BASE, 0x5eed0013u + i);
}

/* Fills a set and its bitmap with a random number of random ranges. */
static void random_set(struct atoll_ivset *s, struct atoll_interval *iv, struct bitmap *m,
                       uint64_t base, uint64_t *seed) {
  assert_rc(atoll_ivset_init(s, iv, BIG), ATOLL_OK);
  memset(m, 0, sizeof *m);
  uint32_t n = ds_lcg_below(seed, 24);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t lo;
    uint32_t hi;
    random_range(seed, &lo, &hi);
    assert_rc(atoll_ivset_insert(s, base + lo, base + hi), ATOLL_OK);
    bitmap_set(m, lo, hi, true);
  }
}

enum set_op { OP_INTERSECT, OP_UNION, OP_SUBTRACT };

static int apply_op(enum set_op op, const struct atoll_ivset *a, const struct atoll_ivset *b,
                    struct atoll_ivset *out) {
  if (op == OP_INTERSECT)
    return atoll_ivset_intersect(a, b, out);
  if (op == OP_UNION)
    return atoll_ivset_union(a, b, out);
  return atoll_ivset_subtract(a, b, out);
}

static bool apply_bit(enum set_op op, bool a, bool b) {
  if (op == OP_INTERSECT)
    return a && b;
  if (op == OP_UNION)
    return a || b;
  return a && !b;
}

/* One trial: random a and b, each operation into an out of random capacity that already holds
 * something, compared with the bitmap result (or EFULL with out empty when it needs more). */
static void set_ops_trial(uint64_t base, uint64_t *seed) {
  struct atoll_interval iva[BIG], ivb[BIG], ivo[BIG];
  struct atoll_ivset a, b, out;
  struct bitmap ma, mb;
  random_set(&a, iva, &ma, base, seed);
  random_set(&b, ivb, &mb, base, seed);
  assert_matches(&a, &ma, base);
  assert_matches(&b, &mb, base);
  bool any_common = false;
  for (uint32_t i = 0; i < U; i++)
    any_common = any_common || (ma.bit[i] && mb.bit[i]);
  assert_int_equal(atoll_ivset_intersects(&a, &b), any_common);
  assert_int_equal(atoll_ivset_intersects(&b, &a), any_common);
  for (int op = OP_INTERSECT; op <= OP_SUBTRACT; op++) {
    uint32_t cap = ds_lcg_below(seed, 3) == 0 ? BIG : 1u + ds_lcg_below(seed, 8);
    assert_rc(atoll_ivset_init(&out, ivo, cap), ATOLL_OK);
    assert_rc(atoll_ivset_insert(&out, base + 3, base + 4), ATOLL_OK);
    struct bitmap want;
    for (uint32_t i = 0; i < U; i++)
      want.bit[i] = apply_bit((enum set_op)op, ma.bit[i], mb.bit[i]);
    struct atoll_interval runs[BIG];
    uint32_t need = bitmap_runs(&want, base, runs);
    int rc = apply_op((enum set_op)op, &a, &b, &out);
    if (need > cap) {
      assert_rc(rc, ATOLL_EFULL);
      assert_u64(out.count, 0);
      assert_true(atoll_ivset_is_valid(&out));
    } else {
      assert_rc(rc, ATOLL_OK);
      assert_matches(&out, &want, base);
    }
  }
  assert_matches(&a, &ma, base); /* inputs untouched */
  assert_matches(&b, &mb, base);
}

static void ivset_random_set_ops_against_bitmap(void **state) {
  (void)state;
  uint64_t seed = 0x5eed0004u;
  for (int trial = 0; trial < 2000; trial++)
    set_ops_trial(trial % 2 == 0 ? 0 : TOP_BASE, &seed);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(ivset_init_rejects_bad_arguments),
    cmocka_unit_test(ivset_empty_and_reversed_ranges),
    cmocka_unit_test(ivset_insert_merges_overlapping_and_adjacent),
    cmocka_unit_test(ivset_insert_efull_only_when_needed),
    cmocka_unit_test(ivset_remove_trims_splits_and_drops),
    cmocka_unit_test(ivset_remove_split_efull_leaves_set),
    cmocka_unit_test(ivset_contains_and_overlaps_edges),
    cmocka_unit_test(ivset_extreme_addresses),
    cmocka_unit_test(ivset_clear_returns_dropped),
    cmocka_unit_test(ivset_set_ops_examples),
    cmocka_unit_test(ivset_subtract_many_to_one),
    cmocka_unit_test(ivset_set_ops_with_empty_and_same),
    cmocka_unit_test(ivset_set_ops_reject_aliasing),
    cmocka_unit_test(ivset_set_ops_efull_leaves_out_empty),
    cmocka_unit_test(ivset_is_valid_rejects_noncanonical),
    cmocka_unit_test(ivset_rejects_invalid_sets),
    cmocka_unit_test(ivset_random_insert_remove_at_zero),
    cmocka_unit_test(ivset_random_insert_remove_at_top),
    cmocka_unit_test(ivset_random_set_ops_against_bitmap),
};

ATOLL_TEST_MAIN(tests)
