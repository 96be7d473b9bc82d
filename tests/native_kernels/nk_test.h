/* Shared helpers for the kernel-library tests: deterministic data, running a whole grid on the
 * calling thread, and bit-exact comparison that prints the first difference. */
#ifndef ATOLL_NK_TEST_H
#define ATOLL_NK_TEST_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "native/kernels/ak.h"
#include "tests/atoll_test.h"

/* A float in [-1, 1) from (seed, i): an integer hash, exact in float (24 bits). */
static inline float nk_rand(uint32_t seed, uint32_t i) {
  uint32_t h = seed * 0x9e3779b9u ^ (i + 0x7f4a7c15u) * 0x85ebca6bu;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return (float)(int32_t)(h >> 8) / 8388608.0f - 1.0f;
}

static inline float *nk_alloc(size_t n, uint32_t seed) {
  float *p = malloc((n ? n : 1) * sizeof *p);
  assert_non_null(p);
  for (size_t i = 0; i < n; i++)
    p[i] = nk_rand(seed, (uint32_t)i);
  return p;
}

/* Runs blocks [0, grid) of kernel k; returns the first non-AK_DONE status, else AK_DONE. */
static inline int nk_run(uint32_t k, const ak_args *a, uint32_t grid, uint32_t threads, const volatile uint32_t *kill) {
  for (uint32_t b = 0; b < grid; b++) {
    ak_ctx c = {.block = b, .grid = grid, .threads = threads, .kill = kill, .trace = NULL};
    int rc = ak_run_block(k, a, &c);
    if (rc != AK_DONE)
      return rc;
  }
  return AK_DONE;
}

static inline uint32_t nk_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* Bit-exact equality of n floats, failing with the first differing index and both values. */
#define nk_assert_same(got, want, n, what)                                                                 \
  do {                                                                                                     \
    for (size_t nk_i_ = 0; nk_i_ < (size_t)(n); nk_i_++) {                                                 \
      if (nk_bits((got)[nk_i_]) != nk_bits((want)[nk_i_]))                                                 \
        fail_msg("%s: element %zu differs: got %.9g (0x%08x), want %.9g (0x%08x)", what, nk_i_,            \
                 (double)(got)[nk_i_], nk_bits((got)[nk_i_]), (double)(want)[nk_i_], nk_bits((want)[nk_i_])); \
    }                                                                                                      \
  } while (0)

#define nk_ceil(a, b) (((a) + (b)-1) / (b))

#endif
