/* gpu_entry.h — the one __global__ function every GPU launch runs: REEF's preemptor prologue, then
 * the kernel library's block body.
 *
 * Each block:
 *   1. finds its range (plain launch: the one kernel; padded launch: the RT kernel or a BE part)
 *      from blockIdx.x (gpu_find_range);
 *   2. thread 0 takes the launch's decision (gpu_launch.h): if no block decided yet, it reads the
 *      queue's preempt flag from coherent device memory and publishes RUN or EVICT by
 *      compare-and-swap. EVICT: the block exits at once (lazy eviction of a launch that was already
 *      in the device queue) and marks its range EVICTED. RUN: if the launch's kill word is already
 *      set (reset_cus killed the launch), the block never starts and marks its range KILLED;
 *      otherwise it records the launch's tag as the queue's execution index in mapped host memory,
 *      so the host reads it without a copy. Every thread learns the outcome through shared memory,
 *      so the block never splits;
 *   3. runs ak_run_block() for block block_lo + local of the kernel's full grid (of its instance,
 *      for a batched range: gpu_range_instance), with the launch's
 *      kill word as the kernel's preemption-point word. A block that returns AK_KILLED marks its
 *      range KILLED; an unknown kernel id or bad arguments mark it FAULT. Copies and memsets run a
 *      built-in body instead (gpu_launch.h) and record no execution index.
 *
 * Status and index writes go to pinned host memory as posted PCIe writes; a normally completing
 * block writes only the execution index. Included once, by gpu_kernels.cpp, after the kernel
 * library's dispatcher (so no relocatable device code is needed). */
#ifndef ATOLL_GPU_ENTRY_H
#define ATOLL_GPU_ENTRY_H

#include "native/gpu/gpu_launch.h"

enum { GPU_BLOCK_RUN = 0, GPU_BLOCK_EVICTED = 1, GPU_BLOCK_KILLED = 2 };

/* Thread 0's part of the prologue: the block's fate. Evictions, kills and the first RT kernel's
 * start leave the device clock in the queue's timestamp words (gpu_clock.h), the preemption's
 * critical path (backend.h preempt_times). */
static __device__ uint32_t gpu_prologue(const gpu_launch_desc &d, volatile uint32_t *status) {
  uint64_t word = *(volatile uint64_t *)d.decision;
  if (!gpu_decided_for(word, d.seq)) {
    const uint64_t mine = gpu_decision(d.seq, *d.flag != 0);
    const unsigned long long old =
        atomicCAS((unsigned long long *)d.decision, (unsigned long long)word, (unsigned long long)mine);
    /* A failed swap means another block of this launch decided first: its word is the decision. */
    word = old == (unsigned long long)word ? mine : (uint64_t)old;
  }
  if (gpu_decision_evicts(word)) {
    status[GPU_ST_EVICTED] = 1;
    d.times[GPU_T_EVICT] = gpu_device_clock();
    return GPU_BLOCK_EVICTED;
  }
  if (*d.kill) {
    status[GPU_ST_KILLED] = 1;
    d.times[GPU_T_KILL] = gpu_device_clock();
    return GPU_BLOCK_KILLED;
  }
  if (gpu_is_builtin(d.r[0].kernel))
    return GPU_BLOCK_RUN; /* copies record no execution index */
  if ((d.flags & GPU_LF_RT) && d.times[GPU_T_RT_START] == 0)
    d.times[GPU_T_RT_START] = gpu_device_clock(); /* the first since the host cleared it */
  *d.exec_tag = d.tag;
  __threadfence_system(); /* the tag lands before the "seen" mark */
  *d.exec_seen = 1;
  return GPU_BLOCK_RUN;
}

/* A copy or memset, spread over the range's blocks: 16-byte words when both ends are 16-byte
 * aligned (the staging buffer and device allocations are; a source in mapped host memory is read
 * across PCIe, where wide reads matter), then the remaining bytes one by one. */
static __device__ void gpu_builtin_body(const gpu_range *r, uint32_t local) {
  const uint64_t bytes = gpu_copy_bytes(&r->args);
  const uint64_t stride = (uint64_t)blockDim.x * r->block_n;
  const uint64_t first = (uint64_t)local * blockDim.x + threadIdx.x;
  unsigned char *dst = (unsigned char *)r->args.p[0];
  const unsigned char *src = (const unsigned char *)r->args.p[1];
  const bool is_copy = r->kernel == GPU_K_COPY;
  const unsigned char value = (unsigned char)r->args.i[2];
  uint64_t done = 0;
  if (((uintptr_t)dst | (is_copy ? (uintptr_t)src : 0)) % 16 == 0) {
    const uint64_t words = bytes / 16;
    uint4 fill;
    fill.x = fill.y = fill.z = fill.w = value * 0x01010101u;
    for (uint64_t w = first; w < words; w += stride)
      ((uint4 *)dst)[w] = is_copy ? ((const uint4 *)src)[w] : fill;
    done = words * 16;
  }
  for (uint64_t b = done + first; b < bytes; b += stride)
    dst[b] = is_copy ? src[b] : value;
}

/* Runs block `local` of range r's library kernel (ak_run_block) and returns its AK_ status. The
 * persistent and the one-block-per-range-block paths share it, so both give the kernel the same
 * context: the kill flag, the batched instance, dense preemption points and the poll interval. */
static __device__ int gpu_run_library_block(const gpu_launch_desc &d, const gpu_range *r, uint32_t local) {
  ak_ctx c;
  ak_args args; /* a batched range's instance (gpu_range_instance); a plain one reads the parameter */
  c.block = r->batch > 1 ? gpu_range_instance(r, r->block_lo + local, &args) : r->block_lo + local;
  c.grid = r->grid;
  c.threads = r->threads;
  c.kill = d.kill;
  c.trace = NULL;
  c.alt_math = 0;
  c.dense_points = (d.flags & GPU_LF_DENSE) != 0;
  c.poll_shift = gpu_flags_poll_shift(d.flags);
  return ak_run_block(r->kernel, r->batch > 1 ? &args : &r->args, &c);
}

/* Persistent blocks (GPU_LF_PERSISTENT, a BE plain launch): after the prologue, each block takes
 * the range's blocks ("tiles") one at a time from the launch's tile counter, and yields at a tile
 * boundary once the launch's kill word is set (the range then reports KILLED: tiles are left). */
static __device__ void gpu_persistent(const gpu_launch_desc &d, volatile uint32_t *status) {
  __shared__ uint32_t tile;
  const gpu_range *r = &d.r[0];
  for (;;) {
    if (threadIdx.x == 0) {
      uint64_t old = *(volatile uint64_t *)d.tile, next = 0;
      uint32_t t;
      for (;;) {
        t = gpu_tile_claim(old, d.seq, &next);
        const unsigned long long seen =
            atomicCAS((unsigned long long *)d.tile, (unsigned long long)old, (unsigned long long)next);
        if (seen == (unsigned long long)old)
          break;
        old = (uint64_t)seen;
      }
      tile = t < r->block_n && *d.kill ? UINT32_MAX : t; /* killed with tiles left: yield */
    }
    __syncthreads();
    const uint32_t local = tile;
    __syncthreads(); /* every thread has read it before thread 0 claims the next */
    if (local == UINT32_MAX) {
      if (threadIdx.x == 0) {
        status[GPU_ST_KILLED] = 1;
        d.times[GPU_T_KILL] = gpu_device_clock();
      }
      return;
    }
    if (local >= r->block_n)
      return;
    const int rc = gpu_run_library_block(d, r, local);
    if (rc != AK_DONE) {
      if (threadIdx.x == 0) {
        status[rc == AK_KILLED ? GPU_ST_KILLED : GPU_ST_FAULT] = 1;
        if (rc == AK_KILLED)
          d.times[GPU_T_KILL] = gpu_device_clock();
      }
      return;
    }
  }
}

__global__ void atoll_gpu_entry(GPU_GRID_CONSTANT const gpu_launch_desc d) {
  __shared__ uint32_t fate;
  if (d.flags & GPU_LF_PERSISTENT) {
    if (threadIdx.x == 0)
      fate = gpu_prologue(d, d.status);
    __syncthreads();
    if (fate == GPU_BLOCK_RUN)
      gpu_persistent(d, d.status);
    return;
  }
  uint32_t local;
  const uint32_t ri = gpu_find_range(&d, blockIdx.x, &local);
  if (ri >= d.n_ranges)
    return; /* the whole block leaves together: ri depends on blockIdx.x only */
  const gpu_range *r = &d.r[ri];
  volatile uint32_t *status = d.status + (size_t)ri * GPU_ST_WORDS;

  if (threadIdx.x == 0)
    fate = gpu_prologue(d, status);
  __syncthreads();
  if (fate != GPU_BLOCK_RUN)
    return;

  if (gpu_is_builtin(r->kernel)) {
    gpu_builtin_body(r, local);
    return;
  }
  const int rc = gpu_run_library_block(d, r, local);
  if (rc != AK_DONE && threadIdx.x == 0) {
    status[rc == AK_KILLED ? GPU_ST_KILLED : GPU_ST_FAULT] = 1;
    if (rc == AK_KILLED)
      d.times[GPU_T_KILL] = gpu_device_clock(); /* this block stopped at a preemption point */
  }
}

#endif
