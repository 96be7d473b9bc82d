/* gpu_clock.h — the GPU back-ends' device-side timestamps of a preemption (backend.h
 * preempt_times), the vendor-neutral part: mapping the device clock onto the host's
 * CLOCK_MONOTONIC, and folding each queue's timestamp words into the preemption's record.
 *
 * The device clock is CUDA's %globaltimer (ns) or HIP's wall_clock64() (ticks of a constant
 * clock). At open, a probe kernel keeps writing it into mapped host memory while the host reads
 * that word between two readings of its own clock: the pair with the narrowest window gives one
 * point of the map (the device value was written at most a PCIe write before the host read it),
 * two points some milliseconds apart give its slope (1 for globaltimer up to its drift).
 *
 * Each queue has GPU_T_WORDS timestamp words in mapped host memory that its blocks write (plain
 * stores from thread 0, gpu_entry.h): the latest flagged launch's prologue exit (EVICT), the
 * latest block stopped by a kill (KILL), and the first RT kernel's prologue since the host cleared
 * the word (RT_START). The host clears them when a preemption's record is armed.
 *
 * Plain C11 and CUDA/HIP C++ (the unit tests build it on the CPU). */
#ifndef ATOLL_GPU_CLOCK_H
#define ATOLL_GPU_CLOCK_H

#include <stdint.h>

#include "native/backend.h"

enum { GPU_T_EVICT = 0, GPU_T_KILL = 1, GPU_T_RT_START = 2, GPU_T_WORDS = 3 };

/* host_ns = offset_ns + scale * (device - device0): device0 keeps the product small. */
typedef struct gpu_clock_map {
  uint64_t device0;
  int64_t offset_ns;
  double scale;
} gpu_clock_map;

/* The map through two points (device value, host ns at that moment); a slope of 1 when the two
 * device values are equal (a clock that did not move: the map is then only an offset). */
static inline gpu_clock_map gpu_clock_fit(uint64_t d1, int64_t h1, uint64_t d2, int64_t h2) {
  gpu_clock_map m = {d1, h1, 1.0};
  if (d2 > d1 && h2 > h1)
    m.scale = (double)(h2 - h1) / (double)(d2 - d1);
  return m;
}

static inline int64_t gpu_clock_to_host(const gpu_clock_map *m, uint64_t device) {
  const double delta = device >= m->device0 ? (double)(device - m->device0) : -(double)(m->device0 - device);
  return m->offset_ns + (int64_t)(delta * m->scale);
}

/* Folds one queue's words into the record: the latest eviction and kill, the earliest RT start.
 * A zero word was not written since the host cleared it; a time before armed_ns (the host's clock
 * when it cleared the words and wrote the flag) belongs to an earlier preemption and is left out. */
static inline void gpu_times_fold(atoll_npreempt_times *out, const volatile uint64_t *words, const gpu_clock_map *m,
                                  int64_t armed_ns) {
  int64_t t[GPU_T_WORDS];
  for (int i = 0; i < GPU_T_WORDS; i++)
    t[i] = words[i] ? gpu_clock_to_host(m, words[i]) : 0;
  if (t[GPU_T_EVICT] >= armed_ns && t[GPU_T_EVICT] > out->drain_ns)
    out->drain_ns = t[GPU_T_EVICT];
  if (t[GPU_T_KILL] >= armed_ns && t[GPU_T_KILL] > out->kill_ns)
    out->kill_ns = t[GPU_T_KILL];
  if (t[GPU_T_RT_START] >= armed_ns && (out->rt_start_ns == 0 || t[GPU_T_RT_START] < out->rt_start_ns))
    out->rt_start_ns = t[GPU_T_RT_START];
}

/* The launch descriptor's flags word (gpu_launch.h): RT work, and the preemption-latency options
 * (backend.h atoll_npreempt_tuning) that the block passes on to the kernel (ak_ctx). */
#define GPU_LF_RT 1u
#define GPU_LF_DENSE 2u
#define GPU_LF_PERSISTENT 4u /* a BE plain launch run by persistent blocks (gpu_tile_claim) */
static inline uint32_t gpu_launch_flags(int rt, const atoll_npreempt_tuning *t) {
  const uint32_t shift = t->kill_poll_shift > 8 ? 8u : t->kill_poll_shift;
  return (rt ? GPU_LF_RT : 0u) | (t->dense_points ? GPU_LF_DENSE : 0u) |
         (t->persistent_be && !rt ? GPU_LF_PERSISTENT : 0u) | shift << 8;
}

/* Persistent blocks: the grid of a launch of `blocks` tiles, at most what the device holds at once
 * (cus x occupancy), at least 1. */
static inline uint32_t gpu_persistent_grid(uint32_t blocks, uint32_t cus, uint32_t occupancy) {
  const uint64_t most = (uint64_t)cus * (occupancy ? occupancy : 1);
  return most == 0 ? 1 : blocks < most ? (blocks ? blocks : 1) : (uint32_t)most;
}
#if defined(__CUDACC__) || defined(__HIPCC__)
#define GPU_CLOCK_HD __host__ __device__
#else
#define GPU_CLOCK_HD
#endif
static inline GPU_CLOCK_HD uint32_t gpu_flags_poll_shift(uint32_t flags) { return flags >> 8 & 0xffu; }

/* A launch's tile counter: one 64-bit word per ring slot, the launch's sequence number (low 32
 * bits) above the next tile to take, so a word left by the slot's previous launch reads as 0 and
 * no word needs clearing between launches. Given the word read, the tile it gives and the word to
 * swap in (the device swaps with compare-and-swap and retries when another block came first). */
static inline GPU_CLOCK_HD uint32_t gpu_tile_claim(uint64_t old, uint64_t seq, uint64_t *next) {
  const uint32_t s = (uint32_t)seq;
  const uint32_t tile = (uint32_t)(old >> 32) == s ? (uint32_t)old : 0u;
  *next = (uint64_t)s << 32 | (uint64_t)(tile + 1);
  return tile;
}

#endif
