/* Shared test scaffolding: every test binary runs all its cases, or the one named in argv[1]
 * (how ctest runs one case per test), and may return ATOLL_TEST_SKIP when its data is absent. */
#ifndef ATOLL_TEST_H
#define ATOLL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#define ATOLL_TEST_SKIP 77

#define ATOLL_TEST_MAIN(tests)                                                   \
  int main(int argc, char **argv) {                                              \
    if (argc > 1)                                                                \
      cmocka_set_test_filter(argv[1]);                                           \
    return cmocka_run_group_tests(tests, NULL, NULL);                            \
  }

/* As ATOLL_TEST_MAIN, but the whole binary is skipped (exit 77, before any case runs) unless cond
 * holds: for tests that need data a user's clone may lack, such as ../shared/reef-data. */
#define ATOLL_TEST_MAIN_REQUIRE(tests, cond)                                     \
  int main(int argc, char **argv) {                                              \
    if (!(cond)) {                                                               \
      fprintf(stderr, "skipped: %s does not hold\n", #cond);                     \
      return ATOLL_TEST_SKIP;                                                    \
    }                                                                            \
    if (argc > 1)                                                                \
      cmocka_set_test_filter(argv[1]);                                           \
    return cmocka_run_group_tests(tests, NULL, NULL);                            \
  }

#endif
