/* gpu_launch.h — what one GPU launch carries to the device, and the pure decisions its blocks make.
 *
 * Every launch of the GPU back-end, plain or padded, goes through one __global__ entry
 * (gpu_entry.h) with one descriptor passed by value as the launch parameter. The descriptor holds
 * up to 1 + ATOLL_NPAD_MAX block RANGES of library kernels: a plain launch has one range; a padded
 * launch (REEF §5) has the RT kernel's range first and the BE parts after it. The launch's grid is
 * the concatenation of the ranges, so a block finds what to run from its blockIdx.x alone — the
 * block-index partition that replaces REEF's device function-pointer table (the kernel library's
 * ak_run_block switch is the table). The hardware dispatches blocks roughly in index order, so the
 * RT range, placed first, is dispatched first; which CUs a part lands on is the hardware's choice
 * (the `cus` field of a range is not enforced on GPUs).
 *
 * The prologue's decision is per LAUNCH (backend.h): the first block to run the prologue reads the
 * queue's flag and publishes RUN or EVICT in the launch's decision word by compare-and-swap; every
 * other block follows it. Decision words belong to the queue's ring slots and are reused, so a
 * decision carries the launch's sequence number: a word holding another sequence number is stale
 * and means "undecided", and no word needs clearing between launches.
 *
 * The functions here are the decisions a block makes, written once for host and device so that the
 * CPU unit tests (tests/gpu/) check the same code the GPU runs.
 *
 * Valid C11 and CUDA/HIP C++. */
#ifndef ATOLL_GPU_LAUNCH_H
#define ATOLL_GPU_LAUNCH_H

#include <stdint.h>

#include "native/backend.h"
#include "native/gpu/gpu_clock.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define GPU_HD __host__ __device__
#else
#define GPU_HD
#endif

#define GPU_MAX_RANGES (1 + ATOLL_NPAD_MAX)

/* Copies and memsets are launches of the entry kernel too, running these built-in bodies instead
 * of a library kernel: they pass the same prologue, so a copy queued behind the preempt flag is
 * evicted like a kernel (as on the CPU back-end), and, like it there, records no execution index.
 * Arguments: p[0] destination, p[1] source (copies), i[0] and i[1] the byte count's low and high
 * 32 bits, i[2] the memset byte. Ids far above the library's (which count up from 1). */
#define GPU_K_COPY 0xC0000001u
#define GPU_K_MEMSET 0xC0000002u
#define GPU_COPY_THREADS 256u
static inline GPU_HD int gpu_is_builtin(uint32_t kernel) { return kernel == GPU_K_COPY || kernel == GPU_K_MEMSET; }
static inline GPU_HD uint64_t gpu_copy_bytes(const ak_args *a) {
  return (uint64_t)(uint32_t)a->i[0] | (uint64_t)(uint32_t)a->i[1] << 32;
}

/* Status words of one range, written by the device into pinned host memory only on the
 * exceptional paths (so a normal block writes nothing): */
enum {
  GPU_ST_EVICTED = 0, /* some block of the range exited in the prologue (flag set) */
  GPU_ST_KILLED = 1,  /* some block abandoned the kernel at a preemption point (kill word set) */
  GPU_ST_FAULT = 2,   /* some block met an unknown kernel id */
  GPU_ST_WORDS = 3
};

typedef struct gpu_range {
  uint32_t kernel;   /* kernel-library id */
  uint32_t grid;     /* the kernel's full grid */
  uint32_t threads;  /* the kernel's threads per block */
  uint32_t block_lo; /* first block of the kernel's grid this range runs */
  uint32_t block_n;  /* blocks in this range */
  uint32_t batch;    /* a batched range's instances (backend.h); 0 and 1: one */
  ak_args args;
  uint64_t ptr_stride[AK_MAX_PTRS]; /* a batched range: bytes between instances, per pointer slot */
} gpu_range;

typedef struct gpu_launch_desc {
  uint64_t tag;                    /* recorded as the queue's execution index */
  uint64_t seq;                    /* the launch's sequence number on its queue, from 1 */
  const volatile uint32_t *flag;   /* the queue's preempt flag (coherent device memory) */
  const volatile uint32_t *kill;   /* this launch's kill word (coherent device memory) */
  uint64_t *decision;              /* this launch's decision word (coherent device memory) */
  volatile uint64_t *exec_tag;     /* the queue's execution index (mapped host memory) */
  volatile uint32_t *exec_seen;    /* set to 1 once any block recorded an index (mapped host memory) */
  volatile uint32_t *status;       /* GPU_ST_WORDS words per range (mapped host memory) */
  volatile uint64_t *times;        /* the queue's GPU_T_WORDS timestamp words (gpu_clock.h; mapped host memory) */
  uint64_t *tile;                  /* GPU_LF_PERSISTENT: this launch's tile counter (coherent device memory) */
  uint32_t n_ranges;
  uint32_t flags;                  /* gpu_clock.h gpu_launch_flags: RT work, the latency options */
  gpu_range r[GPU_MAX_RANGES];
} gpu_launch_desc;

/* Decision words: the launch's sequence number shifted left by one, and bit 0 set for EVICT. */
static inline GPU_HD uint64_t gpu_decision(uint64_t seq, int evict) { return seq << 1 | (evict ? 1u : 0u); }
static inline GPU_HD int gpu_decided_for(uint64_t word, uint64_t seq) { return (word >> 1) == seq; }
static inline GPU_HD int gpu_decision_evicts(uint64_t word) { return (int)(word & 1u); }
/* What the host sees when it reads a decision word (reset_cus): whether that launch has started,
 * that is, has blocks that passed the prologue or will pass it. */
static inline int gpu_launch_started(uint64_t word, uint64_t seq) {
  return gpu_decided_for(word, seq) && !gpu_decision_evicts(word);
}

/* The range block `block` (blockIdx.x of the launch) belongs to, and its index inside that range.
 * Returns n_ranges when the block lies past every range (a grid larger than the ranges: never
 * launched so, but a block must not run a kernel then). */
static inline GPU_HD uint32_t gpu_find_range(const gpu_launch_desc *d, uint32_t block, uint32_t *local) {
  uint32_t first = 0;
  for (uint32_t i = 0; i < d->n_ranges; i++) {
    if (block - first < d->r[i].block_n) {
      *local = block - first;
      return i;
    }
    first += d->r[i].block_n;
  }
  *local = 0;
  return d->n_ranges;
}

/* Blocks and threads per block of the whole launch: the sum of the ranges' blocks, and the widest
 * range's threads (narrower kernels' extra threads only join the barriers). 0 blocks when a range
 * is malformed (more blocks than its kernel's grid, or a zero-thread kernel). */
static inline uint32_t gpu_launch_shape(const gpu_launch_desc *d, uint32_t *threads) {
  uint64_t blocks = 0;
  uint32_t widest = 0;
  for (uint32_t i = 0; i < d->n_ranges; i++) {
    const gpu_range *r = &d->r[i];
    if (r->threads == 0 || r->block_n == 0 ||
        (uint64_t)r->block_lo + r->block_n > (uint64_t)r->grid * (r->batch > 1 ? r->batch : 1))
      return 0;
    blocks += r->block_n;
    if (r->threads > widest)
      widest = r->threads;
  }
  if (blocks > UINT32_MAX / 2)
    return 0;
  *threads = widest;
  return (uint32_t)blocks;
}

/* A range's outcome from its status words: a fault outranks a kill, a kill outranks an eviction
 * (a range some of whose blocks were killed and others evicted did not complete either way, and
 * the runtime must know that running blocks were abandoned). */
static inline atoll_ndone_status gpu_range_status(const volatile uint32_t *words) {
  if (words[GPU_ST_FAULT])
    return ATOLL_ND_FAULT;
  if (words[GPU_ST_KILLED])
    return ATOLL_ND_KILLED;
  if (words[GPU_ST_EVICTED])
    return ATOLL_ND_EVICTED;
  return ATOLL_ND_OK;
}

/* What the completion thread reports for range `words` of a launch the device finished: a
 * vendor error is a FAULT; otherwise the status words decide, for copies and memsets as for kernels
 * (they pass the same prologue, so the flag evicts them too: an evicted copy moved no data and must
 * not be reported OK); a launch reset_cus killed is KILLED even if its blocks all ended (backend.h),
 * unless it faulted or was evicted (no block ran). Copies are never killed (reset_cus kills
 * kernels only). */
static inline atoll_ndone_status gpu_launch_outcome(int vendor_error, int killed, const volatile uint32_t *words) {
  if (vendor_error)
    return ATOLL_ND_FAULT;
  const atoll_ndone_status st = gpu_range_status(words);
  if (killed && st == ATOLL_ND_OK)
    return ATOLL_ND_KILLED;
  return st;
}

/* Fills a range from the runtime's description. */
static inline void gpu_range_from(gpu_range *r, const atoll_nkernel_range *k) {
  r->kernel = k->kernel;
  r->grid = k->grid;
  r->threads = k->threads;
  r->block_lo = k->block_lo;
  r->block_n = k->block_n;
  r->batch = k->batch > 1 ? k->batch : 1;
  r->args = k->args;
  for (uint32_t s = 0; s < AK_MAX_PTRS; s++)
    r->ptr_stride[s] = k->ptr_stride[s];
}

/* Block `block` of a range's numbering (block_lo + local): the block of the kernel's grid it runs,
 * and in *args the arguments of its instance (a batched range's pointer slots advanced by the
 * instance's stride; backend.h). The CPU back-end numbers batched blocks the same way. */
static inline GPU_HD uint32_t gpu_range_instance(const gpu_range *r, uint32_t block, ak_args *args) {
  *args = r->args;
  const uint32_t inst = r->batch > 1 && r->grid ? block / r->grid : 0;
  for (uint32_t s = 0; inst && s < AK_MAX_PTRS; s++)
    if (args->p[s])
      args->p[s] = (unsigned char *)args->p[s] + inst * r->ptr_stride[s];
  return block - inst * r->grid;
}

#endif
