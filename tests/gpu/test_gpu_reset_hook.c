/* Loading a patched driver's CU reset through ATOLL_GPU_CU_RESET (native/gpu/gpu_reset_hook.h):
 * off by default, loaded when named, and a loud failure when named but unusable. */
#include "tests/atoll_test.h"

#include <stdlib.h>
#include <string.h>

#include "native/gpu/gpu_reset_hook.h"

static void off_when_unset_or_empty(void **state) {
  (void)state;
  gpu_reset_hook h;
  char err[256] = "";
  unsetenv(ATOLL_GPU_CU_RESET_ENV);
  assert_int_equal(atoll__gpu_reset_hook_load(&h, err, sizeof err), 0);
  assert_null(h.fn);
  setenv(ATOLL_GPU_CU_RESET_ENV, "", 1);
  assert_int_equal(atoll__gpu_reset_hook_load(&h, err, sizeof err), 0);
  assert_null(h.fn);
  atoll__gpu_reset_hook_unload(&h);
}

static void expect_failure(const char *value, const char *needle) {
  gpu_reset_hook h;
  char err[512] = "";
  setenv(ATOLL_GPU_CU_RESET_ENV, value, 1);
  assert_int_equal(atoll__gpu_reset_hook_load(&h, err, sizeof err), -1);
  assert_null(h.fn);
  if (!strstr(err, needle))
    fail_msg("value '%s': message '%s' lacks '%s'", value, err, needle);
}

static void named_but_unusable_is_an_error(void **state) {
  (void)state;
  expect_failure("no-colon-here", "expected /path/to/library.so:symbol");
  expect_failure(":symbol", "expected /path/to/library.so:symbol");
  expect_failure(ATOLL_FAKE_RESET_LIB ":", "expected /path/to/library.so:symbol");
  expect_failure("/nonexistent/libreset.so:reset", "/nonexistent/libreset.so");
  expect_failure(ATOLL_FAKE_RESET_LIB ":no_such_reset", "no symbol 'no_such_reset'");
}

static void loads_and_calls_the_named_function(void **state) {
  (void)state;
  gpu_reset_hook h;
  char err[256] = "";
  setenv(ATOLL_GPU_CU_RESET_ENV, ATOLL_FAKE_RESET_LIB ":fake_cu_reset", 1);
  assert_int_equal(atoll__gpu_reset_hook_load(&h, err, sizeof err), 0);
  assert_non_null(h.fn);
  assert_string_equal(h.spec, ATOLL_FAKE_RESET_LIB ":fake_cu_reset");
  assert_int_equal(h.fn(3), 0);
  assert_int_equal(h.fn(0), 7);
  atoll__gpu_reset_hook_unload(&h);
  assert_null(h.fn);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(off_when_unset_or_empty),
      cmocka_unit_test(named_but_unusable_is_an_error),
      cmocka_unit_test(loads_and_calls_the_named_function),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
