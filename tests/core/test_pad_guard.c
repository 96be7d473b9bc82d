/* The padding guard's arithmetic (core/pad_guard.c): credit capped, spent only when it covers a
 * launch, and the cost of one padded launch without overflow. */
#include <stdint.h>

#include "tests/atoll_test.h"
#include "core/pad_guard.h"

static void credit_accrues_up_to_the_cap(void **state) {
  (void)state;
  atoll_pad_guard g = {0};
  atoll_pad_guard_add(&g, -5, 100);
  assert_int_equal(g.credit_ns, 0);
  atoll_pad_guard_add(&g, 30, 100);
  assert_int_equal(g.credit_ns, 30);
  atoll_pad_guard_add(&g, 70, 100);
  assert_int_equal(g.credit_ns, 100);
  atoll_pad_guard_add(&g, INT64_MAX, 100);
  assert_int_equal(g.credit_ns, 100);
}

static void launch_pads_only_when_credit_covers_it(void **state) {
  (void)state;
  atoll_pad_guard g = {.credit_ns = 25};
  assert_true(atoll_pad_guard_take(&g, 10));
  assert_int_equal(g.credit_ns, 15);
  assert_false(atoll_pad_guard_take(&g, 16));
  assert_int_equal(g.credit_ns, 15);
  assert_true(atoll_pad_guard_take(&g, 15));
  assert_int_equal(g.credit_ns, 0);
  assert_true(atoll_pad_guard_take(&g, 0));
}

static void cost_is_proxy_share_plus_selection(void **state) {
  (void)state;
  /* MI50: 0.8% of a 1,000 us kernel, plus 0.4 us of selection. */
  assert_int_equal(atoll_pad_guard_cost(1000000, 8000, 400), 8400);
  assert_int_equal(atoll_pad_guard_cost(1999999, 8000, 0), 15999);
  /* A product that would overflow int64 is still exact. */
  assert_int_equal(atoll_pad_guard_cost(INT64_MAX / 2, 999999, 0), INT64_C(4611681406741369475));
  assert_int_equal(atoll_pad_guard_cost(INT64_MAX, 999999, INT64_MAX), INT64_MAX);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(credit_accrues_up_to_the_cap),
    cmocka_unit_test(launch_pads_only_when_credit_covers_it),
    cmocka_unit_test(cost_is_proxy_share_plus_selection),
};
ATOLL_TEST_MAIN(tests)
