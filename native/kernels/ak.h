/* ak.h — the kernel library's portability layer: one kernel source for CPU, CUDA and HIP.
 *
 * A kernel is written as the body of ONE BLOCK. The block sees its index in the grid, the grid
 * size and its thread count; the code inside runs "for every thread of the block", expressed with
 * AK_FOR_THREADS(t) loops separated by barriers:
 *
 *   - CPU build (plain C11): a block is run by one worker thread (one CU slot); AK_FOR_THREADS is a
 *     loop over t, a barrier is the end of the loop (nothing to synchronise).
 *   - GPU build (CUDA/HIP, compiled as C++ by nvcc/hipcc): AK_FOR_THREADS(t) binds t to threadIdx.x
 *     (and strides when the block has more work items than threads); AK_BARRIER is __syncthreads().
 *
 * Kernels never see the preemption protocol's prologue (flag check, execution-index record): the
 * back-end's block wrapper runs it before the body, in one place per back-end. Kernels do contain
 * PREEMPTION POINTS: AK_PREEMPT_POINT(c) inside long loops abandons the block when its CU has been
 * reset (the CPU back-end's "CU reset kills running blocks for real"; on stock GPU drivers the same
 * point gives the fall-back in-kernel preemption). A killed block returns AK_KILLED; the preempted
 * task is re-executed from an idempotent restart point, so a half-written output is harmless.
 *
 * Arguments are untyped slots (device pointers and scalars) so that one launch descriptor serves
 * every kernel and a padded launch can carry several kernels' arguments; each kernel documents its
 * slot layout next to its body.
 *
 * Memory accesses that the CPU tracer must see go through AK_LD / AK_ST (and AK_LDV/AK_STV for
 * whole ranges): in the normal build they are plain loads and stores; in the tracer build
 * (AK_TRACE defined) they also record the byte range into the tracer (idem_checker's text format). */
#ifndef ATOLL_AK_H
#define ATOLL_AK_H

#include <stdint.h>

#define AK_MAX_PTRS 8
#define AK_MAX_INTS 12

/* Kernel arguments: device pointers and 32-bit scalars (floats are passed by bit pattern). */
typedef struct ak_args {
  void *p[AK_MAX_PTRS];
  int32_t i[AK_MAX_INTS];
} ak_args;

enum { AK_DONE = 0, AK_KILLED = 1 };

/* What one block knows about itself. `kill` points at the word the back-end sets to abandon the
 * blocks running on this block's CU (CU reset); NULL when the back-end cannot kill. */
typedef struct ak_ctx {
  uint32_t block;   /* blockIdx.x within the kernel's full grid (not within a launched range) */
  uint32_t grid;    /* gridDim.x of the kernel's full grid */
  uint32_t threads; /* blockDim.x */
  const volatile uint32_t *kill;
  void *trace;      /* tracer state in the AK_TRACE build, else NULL */
} ak_ctx;

#if defined(__CUDACC__) || defined(__HIPCC__)
#define AK_GPU 1
#define AK_DEVICE __device__
#define AK_FOR_THREADS(t) for (uint32_t t = threadIdx.x; t < (c)->threads; t += blockDim.x)
#define AK_BARRIER() __syncthreads()
#else
#define AK_GPU 0
#define AK_DEVICE
#define AK_FOR_THREADS(t) for (uint32_t t = 0; t < (c)->threads; t++)
#define AK_BARRIER() ((void)0)
#endif

#endif
