/* The piece map against a per-byte array: random assignments over a universe large enough to need
 * many blocks (splits, merges, spans across blocks), placed at address 0 and at the top of the
 * 64-bit space; every reported old piece and the whole map are compared byte by byte. */
#include "tests/idem/idem_test.h"

#include "idem/pmap.h"

enum { U = 6000 };

/* Expands pieces into values over [lo, hi) of want's universe and checks order and clipping. */
static void expect_pieces(const idem_pieces *l, uint64_t base, uint64_t lo, uint64_t hi, const uint32_t *want) {
  static uint32_t got[U];
  memset(got, 0, sizeof got);
  uint64_t prev = lo;
  for (size_t k = 0; k < l->n; k++) {
    const idem_piece *p = &l->p[k];
    assert_cmp(p->lo, <, p->hi);
    assert_cmp(p->lo, >=, prev);
    assert_cmp(p->hi, <=, hi);
    assert_cmp(p->val, !=, 0);
    prev = p->hi;
    for (uint64_t b = p->lo; b < p->hi; b++)
      got[b - base] = p->val;
  }
  for (uint64_t b = lo; b < hi; b++)
    if (got[b - base] != want[b - base]) {
      print_error("byte %llu: value %u, expected %u\n", (unsigned long long)(b - base), got[b - base],
                  want[b - base]);
      fail();
    }
}

static void run(uint64_t base, uint64_t seed, int steps) {
  static uint32_t naive[U];
  memset(naive, 0, sizeof naive);
  idem_pmap m;
  idem_pieces old = {0}, all = {0};
  assert_rc(idem_pmap_init(&m), ATOLL_OK);
  uint64_t rng = seed;
  size_t most = 0;
  for (int s = 0; s < steps; s++) {
    uint32_t r = rng_below(&rng, 1000);
    uint32_t len = r < 950 ? 1 + rng_below(&rng, 16) : r < 998 ? 1 + rng_below(&rng, 400) : 1 + rng_below(&rng, U);
    uint32_t lo = rng_below(&rng, U);
    if (len > U - lo)
      len = U - lo;
    uint32_t val = 1 + rng_below(&rng, 50);
    old.n = 0;
    assert_rc(idem_pmap_assign(&m, base + lo, base + lo + len, val, &old), ATOLL_OK);
    expect_pieces(&old, base, base + lo, base + lo + len, naive);
    for (uint32_t b = lo; b < lo + len; b++)
      naive[b] = val;
    assert_true(idem_pmap_is_valid(&m));
    if (idem_pmap_count(&m) > most)
      most = idem_pmap_count(&m);
    if (s % 64 == 0) {
      all.n = 0;
      assert_rc(idem_pmap_query(&m, base, base + U, &all), ATOLL_OK);
      expect_pieces(&all, base, base, base + U, naive);
    }
  }
  /* The run must have grown past many blocks to test splits, merges and multi-block spans. */
  if (most <= 8 * IDEM_PMAP_BLOCK)
    fail_msg("only %zu pieces at most", most);
  idem_pieces_free(&old);
  idem_pieces_free(&all);
  idem_pmap_free(&m);
}

static void random_assignments_at_zero(void **state) {
  (void)state;
  run(0, 12345, 40000);
}

static void random_assignments_at_the_top(void **state) {
  (void)state;
  run(UINT64_MAX - U, 777, 40000);
}

static void empty_and_reversed_ranges(void **state) {
  (void)state;
  idem_pmap m;
  idem_pieces l = {0};
  assert_rc(idem_pmap_init(&m), ATOLL_OK);
  assert_rc(idem_pmap_assign(&m, 5, 5, 1, &l), ATOLL_OK);
  assert_u64(idem_pmap_count(&m), 0);
  assert_rc(idem_pmap_assign(&m, 6, 5, 1, &l), ATOLL_EINVAL);
  assert_rc(idem_pmap_assign(&m, 0, 10, 3, &l), ATOLL_OK);
  assert_rc(idem_pmap_assign(&m, 2, 4, 7, &l), ATOLL_OK);
  assert_u64(idem_pmap_count(&m), 3); /* [0,2)=3 [2,4)=7 [4,10)=3 */
  l.n = 0;
  assert_rc(idem_pmap_query(&m, 1, 5, &l), ATOLL_OK);
  assert_u64(l.n, 3);
  assert_u64(l.p[0].lo, 1);
  assert_u64(l.p[2].hi, 5);
  assert_u64(l.p[1].val, 7);
  idem_pieces_free(&l);
  idem_pmap_free(&m);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(random_assignments_at_zero),
    cmocka_unit_test(random_assignments_at_the_top),
    cmocka_unit_test(empty_and_reversed_ranges),
};
ATOLL_TEST_MAIN(tests)
