/* The error table: every code has its own text and name; unknown codes are handled. */
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"

static const int codes[] = {
#define CODE(name, value, text) ATOLL_##name,
    ATOLL_ERRNO_MAP(CODE)
#undef CODE
};
enum { N_CODES = sizeof codes / sizeof codes[0] };

static void every_code_has_distinct_text_and_name(void **state) {
  (void)state;
  for (int i = 0; i < N_CODES; i++) {
    assert_cmp(codes[i], <, 0);
    assert_string_not_equal(atoll_strerror(codes[i]), "unknown error");
    assert_string_not_equal(atoll_err_name(codes[i]), "ATOLL_UNKNOWN");
    for (int j = 0; j < i; j++) {
      assert_int_not_equal(codes[i], codes[j]);
      assert_string_not_equal(atoll_strerror(codes[i]), atoll_strerror(codes[j]));
    }
  }
}

static void names_match_codes(void **state) {
  (void)state;
  assert_string_equal(atoll_err_name(ATOLL_EINVAL), "ATOLL_EINVAL");
  assert_string_equal(atoll_err_name(ATOLL_EFULL), "ATOLL_EFULL");
  assert_string_equal(atoll_strerror(ATOLL_ENOMEM), "out of memory");
  assert_string_equal(atoll_strerror(ATOLL_OK), "success");
}

static void unknown_codes_are_reported_as_unknown(void **state) {
  (void)state;
  assert_string_equal(atoll_strerror(-9999), "unknown error");
  assert_string_equal(atoll_strerror(42), "unknown error");
  assert_string_equal(atoll_err_name(-9999), "ATOLL_UNKNOWN");
}

static void exit_codes_follow_the_table(void **state) {
  (void)state;
  assert_int_equal(ATOLL_EXIT_OK, 0);
  assert_int_equal(ATOLL_EXIT_VIOLATED, 1);
  assert_int_equal(ATOLL_EXIT_BAD_INPUT, 2);
  assert_int_equal(ATOLL_EXIT_INCOMPLETE, 3);
  assert_int_equal(ATOLL_EXIT_NO_DEVICE, 4);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_code_has_distinct_text_and_name),
    cmocka_unit_test(names_match_codes),
    cmocka_unit_test(unknown_codes_are_reported_as_unknown),
    cmocka_unit_test(exit_codes_follow_the_table),
};
ATOLL_TEST_MAIN(tests)
