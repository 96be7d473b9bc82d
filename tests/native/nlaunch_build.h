/* nlaunch_build.h — the launches the native back-end tests submit (native/backend.h): a spin
 * kernel of the kernel library and a copy, so each test file states only what it varies. */
#ifndef ATOLL_TEST_NLAUNCH_BUILD_H
#define ATOLL_TEST_NLAUNCH_BUILD_H

#include <string.h>

#include "native/backend.h"

/* AK_K_SPIN over `grid` blocks of `threads` threads: `iters` iterations per thread, a preemption
 * point every `per_point`; the block writes into out. */
static inline atoll_nlaunch atoll_test_spin(uint64_t tag, float *out, uint32_t grid, uint32_t threads, uint32_t iters,
                                            uint32_t per_point) {
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = ATOLL_NL_KERNEL;
  l.tag = tag;
  l.k = (atoll_nkernel_range){.kernel = AK_K_SPIN, .grid = grid, .threads = threads, .block_n = grid, .occupancy = 1,
                              .tag = tag};
  l.k.args.p[0] = out;
  l.k.args.i[0] = (int32_t)iters;
  l.k.args.i[1] = (int32_t)per_point;
  return l;
}

/* A copy or memset launch of `bytes` from src to dst. */
static inline atoll_nlaunch atoll_test_copy(atoll_nlaunch_kind kind, uint64_t tag, void *dst, const void *src,
                                            size_t bytes) {
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = kind;
  l.tag = tag;
  l.dst = dst;
  l.src = src;
  l.bytes = bytes;
  return l;
}

#endif
