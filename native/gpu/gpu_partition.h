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

/* The SMs a new green context gets when `free` SMs are left in the pool: gpu_green_sm_count's, or,
 * when that rounding takes more than is left but the set itself (`want`) does not, what is left
 * rounded down to the alignment, if that still reaches the minimum size. So the last of several
 * sets that split the device (an RT reserve and the rest, nrt.h rt_reserve_cus) takes the rest
 * instead of being refused after the first set was rounded up. A result above `free` is refused
 * by gpu_partition_pick (EXHAUSTED). */
static inline uint32_t gpu_green_sm_fit(uint32_t want, uint32_t min_size, uint32_t align, uint32_t total,
                                        uint32_t free) {
  const uint32_t n = gpu_green_sm_count(want, min_size, align, total);
  if (n <= free || want > free)
    return n;
  const uint32_t down = align > 1 ? free / align * align : free;
  return down >= min_size && down > 0 ? down : n;
}

/* The partitions a back-end has carved so far, so that bound queues get disjoint SMs. A green
 * context is cut from what earlier ones left (the driver picks the SMs, so only a running split of
 * one pool keeps them apart); a queue bound to a set seen before shares that set's partition. */
#define GPU_PARTITIONS_MAX 64
typedef struct {
  atoll_cuset set[GPU_PARTITIONS_MAX];
  uint32_t sms[GPU_PARTITIONS_MAX]; /* what each was given after rounding */
  uint32_t n;
  uint32_t free_sms; /* what the pool still holds */
} gpu_partition_table;

/* Outcomes of gpu_partition_pick. */
enum { GPU_PART_REUSE, GPU_PART_NEW, GPU_PART_OVERLAP, GPU_PART_EXHAUSTED, GPU_PART_FULL };

static inline int gpu_cuset_equal(const atoll_cuset *a, const atoll_cuset *b) {
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    if (a->w[i] != b->w[i])
      return 0;
  return 1;
}

static inline int gpu_cuset_meet(const atoll_cuset *a, const atoll_cuset *b) {
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    if (a->w[i] & b->w[i])
      return 1;
  return 0;
}

/* Where `cus` goes: *index is the partition to use. REUSE: an equal set has one. NEW: a fresh one
 * of `sms` SMs (already rounded) fits in the pool; the caller cuts it and then calls
 * gpu_partition_commit. OVERLAP: the set shares CUs with a different one (the driver cannot give
 * two contexts common SMs). EXHAUSTED: the pool is short of `sms`. FULL: no slot is left. */
static inline int gpu_partition_pick(const gpu_partition_table *t, const atoll_cuset *cus, uint32_t sms,
                                     uint32_t *index) {
  for (uint32_t i = 0; i < t->n; i++) {
    if (gpu_cuset_equal(&t->set[i], cus)) {
      *index = i;
      return GPU_PART_REUSE;
    }
    if (gpu_cuset_meet(&t->set[i], cus)) {
      *index = i;
      return GPU_PART_OVERLAP;
    }
  }
  if (t->n == GPU_PARTITIONS_MAX)
    return GPU_PART_FULL;
  if (sms > t->free_sms)
    return GPU_PART_EXHAUSTED;
  *index = t->n;
  return GPU_PART_NEW;
}

/* Records the partition gpu_partition_pick placed at t->n, given `sms` SMs out of the pool. */
static inline void gpu_partition_commit(gpu_partition_table *t, const atoll_cuset *cus, uint32_t sms) {
  t->set[t->n] = *cus;
  t->sms[t->n] = sms;
  t->n++;
  t->free_sms -= sms < t->free_sms ? sms : t->free_sms;
}

#endif
