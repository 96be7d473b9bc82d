/* Helpers shared by the core/ds tests: assertions that print both values in a readable form, and
 * a fixed-seed generator so that every randomised case replays identically. */
#ifndef ATOLL_DS_TEST_H
#define ATOLL_DS_TEST_H

#include "tests/atoll_test.h"

#include "atoll/error.h"

#include <stdbool.h>
#include <stdint.h>

/* cmocka's assert_int_equal prints in hex, which makes -7 read as 0xfffffffffffffff9; return
 * codes are printed by name instead, generated from the same table as the codes themselves so
 * the test needs no library beyond the one under test. */
static inline const char *ds_rc_name(int rc) {
  switch (rc) {
  case ATOLL_OK:
    return "ATOLL_OK";
#define DS_RC_NAME(name, value, text) \
  case ATOLL_##name:                  \
    return "ATOLL_" #name;
    ATOLL_ERRNO_MAP(DS_RC_NAME)
#undef DS_RC_NAME
  default:
    return "(not an atoll code)";
  }
}

static inline void ds_check_rc(int actual, int expected, const char *expr, const char *file,
                               int line) {
  if (actual == expected)
    return;
  print_error("%s returned %s (%d), expected %s (%d)\n", expr, ds_rc_name(actual), actual,
              ds_rc_name(expected), expected);
  _fail(file, line);
}

static inline void ds_check_u64(uint64_t actual, uint64_t expected, const char *expr,
                                const char *file, int line) {
  if (actual == expected)
    return;
  print_error("%s is %llu, expected %llu\n", expr, (unsigned long long)actual,
              (unsigned long long)expected);
  _fail(file, line);
}

static inline void ds_check_i64(int64_t actual, int64_t expected, const char *expr,
                                const char *file, int line) {
  if (actual == expected)
    return;
  print_error("%s is %lld, expected %lld\n", expr, (long long)actual, (long long)expected);
  _fail(file, line);
}

/* assert_rc(call, ATOLL_EFULL): the call's code must be the expected one. */
#define assert_rc(actual, expected) ds_check_rc((actual), (expected), #actual, __FILE__, __LINE__)
/* Decimal equality for unsigned and signed 64-bit values. */
#define assert_u64(actual, expected) \
  ds_check_u64((actual), (expected), #actual, __FILE__, __LINE__)
#define assert_i64(actual, expected) \
  ds_check_i64((actual), (expected), #actual, __FILE__, __LINE__)

/* Knuth's MMIX linear congruential generator; the high bits are the well-mixed ones. */
static inline uint32_t ds_lcg_next(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33);
}

/* A value in [0, n), n >= 1. The modulo bias is irrelevant for test coverage. */
static inline uint32_t ds_lcg_below(uint64_t *state, uint32_t n) {
  return ds_lcg_next(state) % n;
}

#endif
