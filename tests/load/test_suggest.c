/* "Did you mean": edit distances and which near names are offered (io/suggest.c). */
#include <string.h>

#include "tests/atoll_test.h"
#include "io/suggest.h"

static void distances_count_each_edit_once(void **state) {
  (void)state;
  assert_int_equal(atoll_edit_distance("arrival", "arrival"), 0);
  assert_int_equal(atoll_edit_distance("arival", "arrival"), 1);     /* deletion */
  assert_int_equal(atoll_edit_distance("arrrival", "arrival"), 1);   /* insertion */
  assert_int_equal(atoll_edit_distance("arrivel", "arrival"), 1);    /* substitution */
  assert_int_equal(atoll_edit_distance("arrvial", "arrival"), 1);    /* adjacent swap */
  assert_int_equal(atoll_edit_distance("Arrival", "arrival"), 0);    /* case is ignored */
  assert_int_equal(atoll_edit_distance("", "seq"), 3);
  assert_int_equal(atoll_edit_distance("kitten", "sitting"), 3);
}

static void near_names_are_suggested_far_ones_not(void **state) {
  (void)state;
  static const char *const keys[] = {"name", "model", "class", "arrival", "priority"};
  assert_string_equal(atoll_suggest("arival", keys, 5), "arrival");
  assert_string_equal(atoll_suggest("modle", keys, 5), "model");
  assert_null(atoll_suggest("xyzzy", keys, 5));
  assert_null(atoll_suggest("cl", keys, 5)); /* 3 edits from "class": too far for a short word */
  static const char *const policies[] = {"rt-only", "seq", "streams", "wait", "orion", "reef", "reset"};
  assert_string_equal(atoll_suggest("reeef", policies, 7), "reef");
  char buf[64];
  assert_string_equal(atoll_suggest_text(buf, sizeof buf, "reeef", policies, 7), "; did you mean 'reef'?");
  assert_string_equal(atoll_suggest_text(buf, sizeof buf, "zzzzzzzz", policies, 7), "");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(distances_count_each_edit_once),
    cmocka_unit_test(near_names_are_suggested_far_ones_not),
};
ATOLL_TEST_MAIN(tests)
