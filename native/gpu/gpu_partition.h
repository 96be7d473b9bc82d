/* gpu_partition.h — the vendor-neutral arithmetic of binding a GPU queue to CUs
 * (docs/partitions.md): the HIP CU mask's words, and the SM count of a CUDA green context.
 *
 * Plain C11 (the unit tests build it on the CPU); the vendor headers (native/cuda, native/hip)
 * call it. */
#ifndef ATOLL_GPU_PARTITION_H
#define ATOLL_GPU_PARTITION_H

#include <stdint.h>

#include "atoll/cuset.h"

/* The set as HIP's CU mask: n_words 32-bit words, bit i of word i / 32 for CU i (CUs past
 * 32 x n_words are dropped: the caller sizes the mask to the device). */
static inline void gpu_cu_mask_words(const atoll_cuset *s, uint32_t *mask, uint32_t n_words) {
  for (uint32_t w = 0; w < n_words; w++)
    mask[w] = 0;
  for (uint32_t cu = 0; cu < ATOLL_CUSET_MAX && cu / 32 < n_words; cu++)
    if ((s->w[cu / 64] >> (cu % 64)) & 1u)
      mask[cu / 32] |= UINT32_C(1) << (cu % 32);
}

/* The number of CUs in the set (no core call: the GPU modules link no atoll library). */
static inline uint32_t gpu_cuset_count(const atoll_cuset *s) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    n += (uint32_t)__builtin_popcountll(s->w[i]);
  return n;
}

/* The highest CU in the set plus one (0 when empty). */
static inline uint32_t gpu_cuset_end(const atoll_cuset *s) {
  for (uint32_t i = ATOLL_CUSET_WORDS; i > 0; i--)
    if (s->w[i - 1])
      return (i - 1) * 64 + 64 - (uint32_t)__builtin_clzll(s->w[i - 1]);
  return 0;
}

/* The SMs a green context gets for `want`: at least the device's minimum partition size, then a
 * multiple of its co-scheduling alignment, at most all `total` SMs. */
static inline uint32_t gpu_green_sm_count(uint32_t want, uint32_t min_size, uint32_t align, uint32_t total) {
  uint32_t n = want < min_size ? min_size : want;
  if (align > 1)
    n = (n + align - 1) / align * align;
  return n < total ? n : total;
}

#endif
