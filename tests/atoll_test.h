/* Shared test scaffolding: every test binary runs all its cases, or the one named in argv[1]
 * (how ctest runs one case per test). A name that matches no case fails (a typo in a filter must
 * not pass silently). A case that cannot run here calls ATOLL_SKIP(reason): it prints the reason
 * and exits 77, which ctest reports as Skipped (cmocka's skip() would show as Passed);
 * tools/check-skips.sh fails CI on a skip that tests/allowed-skips.txt does not list. */
#ifndef ATOLL_TEST_H
#define ATOLL_TEST_H

#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#define ATOLL_TEST_SKIP 77

/* The sanitizer this binary is built with, for tests that size their runs by it (a sanitizer
 * makes every kernel several times longer). GCC defines __SANITIZE_*__; Clang answers
 * __has_feature. */
#if defined(__SANITIZE_THREAD__)
#define ATOLL_TEST_UNDER_TSAN 1
#elif defined(__SANITIZE_ADDRESS__)
#define ATOLL_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ATOLL_TEST_UNDER_TSAN 1
#elif __has_feature(address_sanitizer)
#define ATOLL_TEST_UNDER_ASAN 1
#endif
#endif

/* Ends the process with the skip status. Running one case per process (as ctest does), only that
 * case is skipped; a run of the whole binary stops here, and says so. */
#define ATOLL_SKIP(reason)                                                       \
  do {                                                                           \
    printf("skipped: %s\n", reason);                                             \
    fflush(stdout);                                                              \
    exit(ATOLL_TEST_SKIP);                                                       \
  } while (0)

/* assert_cmp(a, OP, b): assert_true(a OP b) that prints both sides when it fails, e.g.
 * "res.n_preemptions > 50: 12 > 50". The comparison is the one written, in the sides' own types;
 * only on failure are the sides evaluated again, to print them as long double (exact for every
 * 64-bit integer), so they must not have side effects. For integer equality cmocka's
 * assert_int_equal does the same; this one also serves doubles and inequalities. */
#define assert_cmp(a, op, b)                                                     \
  do {                                                                           \
    if (!((a)op(b))) {                                                           \
      print_error("%s %s %s: %.17Lg %s %.17Lg\n", #a, #op, #b, (long double)(a), #op, (long double)(b)); \
      fail();                                                                    \
    }                                                                            \
  } while (0)

/* A uniform draw in [0, n) from a xorshift64 state: the randomized event sequences of the core's
 * tests, reproducible from their seed on every platform. */
static inline uint32_t atoll_test_rnd(uint64_t *state, uint32_t n) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (uint32_t)((*state >> 16) % n);
}

/* The number of cases whose name matches filter (cmocka's filter: * and ? wildcards). */
static inline size_t atoll_test_matching(const struct CMUnitTest *t, size_t n, const char *filter) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i].name && fnmatch(filter, t[i].name, 0) == 0)
      k++;
  return k;
}

/* Runs the cases of the array tests, or those argv[1] names; 1 when argv[1] names none. */
#define ATOLL_TEST_RUN(tests, argc, argv)                                        \
  ((argc) > 1 && atoll_test_matching(tests, sizeof tests / sizeof tests[0], (argv)[1]) == 0 \
       ? (fprintf(stderr, "%s: no test case matches '%s'\n", (argv)[0], (argv)[1]), 1)  \
       : ((argc) > 1 ? cmocka_set_test_filter((argv)[1]) : (void)0,             \
          cmocka_run_group_tests(tests, NULL, NULL)))

#define ATOLL_TEST_MAIN(tests)                                                   \
  int main(int argc, char **argv) { return ATOLL_TEST_RUN(tests, argc, argv); }

#endif
