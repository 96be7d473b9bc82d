/* CU sets (core/cuset.c): 256 CUs, ranges, runs, and the GPU% share mapping. */
#include "atoll/cuset.h"

#include "atoll/error.h"
#include "tests/atoll_test.h"

static void cuset_holds_cus_past_64_up_to_255(void **state) {
  (void)state;
  atoll_cuset s = {{0}};
  assert_true(atoll_cuset_is_empty(&s));
  assert_int_equal(atoll_cuset_add_range(&s, 60, 200), 0);
  assert_false(atoll_cuset_has(&s, 59));
  assert_true(atoll_cuset_has(&s, 64) && atoll_cuset_has(&s, 128) && atoll_cuset_has(&s, 200));
  assert_false(atoll_cuset_has(&s, 201));
  assert_int_equal(atoll_cuset_count(&s), 141);
  assert_int_equal(atoll_cuset_end(&s), 201);
  assert_int_equal(atoll_cuset_add_range(&s, 255, 255), 0);
  assert_int_equal(atoll_cuset_count(&s), 142);
  assert_int_equal(atoll_cuset_add_range(&s, 0, 256), ATOLL_EINVAL);
  assert_int_equal(atoll_cuset_add_range(&s, 9, 8), ATOLL_EINVAL);
}

static void cuset_runs_count_gaps(void **state) {
  (void)state;
  atoll_cuset s = {{0}};
  uint32_t lo, hi;
  assert_int_equal(atoll_cuset_runs(&s, &lo, &hi), 0);
  atoll_cuset_add_range(&s, 20, 29);
  atoll_cuset_add_range(&s, 0, 9);
  assert_int_equal(atoll_cuset_runs(&s, &lo, &hi), 2);
  assert_int_equal(lo, 0);
  assert_int_equal(hi, 10);
  atoll_cuset_add_range(&s, 10, 19);
  assert_int_equal(atoll_cuset_runs(&s, &lo, &hi), 1);
  assert_int_equal(hi, 30);
}

static void cuset_compare(void **state) {
  (void)state;
  atoll_cuset a = {{0}}, b = {{0}};
  atoll_cuset_add_range(&a, 0, 29);
  atoll_cuset_add_range(&b, 30, 59);
  assert_false(atoll_cuset_intersects(&a, &b));
  assert_false(atoll_cuset_equal(&a, &b));
  atoll_cuset_add_range(&b, 29, 29);
  assert_true(atoll_cuset_intersects(&a, &b));
}

static void share_maps_to_floor_of_the_cus_from_first(void **state) {
  (void)state;
  atoll_cuset s, want = {{0}};
  uint32_t next;
  assert_int_equal(atoll_cuset_from_share(60, 0, 50, &s, &next), 0);
  atoll_cuset_add_range(&want, 0, 29);
  assert_true(atoll_cuset_equal(&s, &want));
  assert_int_equal(next, 30);
  /* 33 % of 132 SMs is 43.56: 43 SMs, after the 30 given before. */
  assert_int_equal(atoll_cuset_from_share(132, 30, 33, &s, &next), 0);
  assert_int_equal(atoll_cuset_count(&s), 43);
  assert_int_equal(next, 73);
  /* 1 % of 60 CUs rounds down to 0: at least one CU. */
  assert_int_equal(atoll_cuset_from_share(60, 0, 1, &s, &next), 0);
  assert_int_equal(atoll_cuset_count(&s), 1);
  assert_int_equal(atoll_cuset_from_share(60, 0, 0, &s, &next), ATOLL_EINVAL);
  assert_int_equal(atoll_cuset_from_share(60, 0, 101, &s, &next), ATOLL_EINVAL);
  assert_int_equal(atoll_cuset_from_share(60, 40, 50, &s, &next), ATOLL_EINVAL); /* past CU 59 */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(cuset_holds_cus_past_64_up_to_255),
    cmocka_unit_test(cuset_runs_count_gaps),
    cmocka_unit_test(cuset_compare),
    cmocka_unit_test(share_maps_to_floor_of_the_cus_from_first),
};
ATOLL_TEST_MAIN(tests)
