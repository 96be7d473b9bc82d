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
 * slot layout next to its body (and ak_catalog.h lists it at run time).
 *
 * Memory accesses that the CPU tracer must see go through AK_LD / AK_ST: in the normal build they
 * are plain loads and stores; in the tracer build (AK_TRACE defined) they also record the byte
 * range into the tracer (idem_checker's text format, docs/native-kernels.md).
 *
 * Refinements since the first version of this contract (all additive):
 *   - AK_MAX_INTS is 16 (a batched, strided gemm needs 16 scalar slots);
 *   - the kernel-id list AK_KERNEL_LIST and enum ak_kernel_id (ids are stable: append only);
 *   - ak_run_block(), the one dispatcher every back-end calls for every block (ak_dispatch.c);
 *   - AK_PREEMPT_POINT, AK_LD/AK_ST, AK_SHARED, AK_RESTRICT, ak_f32/ak_bits, AK_FADD/AK_FMUL/AK_FDIV,
 *     AK_FOR_ELEMS/2/3 (work items over threads), AK_BAD_ARGS.
 *
 * How a back-end uses the library:
 *   CPU:      link atoll_kernels; for each block fill an ak_ctx and call ak_run_block().
 *   CUDA/HIP: compile native/kernels/ak_dispatch.c as CUDA/HIP (`-x cu`, or #include it into the
 *             .cu/.hip file that holds the __global__ wrapper, which avoids relocatable device
 *             code); the wrapper runs the prologue, then calls ak_run_block() with every thread of
 *             the block, with blockIdx.x offset to the kernel's full grid for partial/padded ranges.
 *   Tracer:   link atoll_kernels_trace, which is the same sources built with AK_TRACE; its
 *             dispatcher is named ak_run_block_trace so both libraries can be linked together. */
#ifndef ATOLL_AK_H
#define ATOLL_AK_H

#include <stddef.h>
#include <stdint.h>

#define AK_MAX_PTRS 8
#define AK_MAX_INTS 16

/* Kernel arguments: device pointers and 32-bit scalars (floats are passed by bit pattern). */
typedef struct ak_args {
  void *p[AK_MAX_PTRS];
  int32_t i[AK_MAX_INTS];
} ak_args;

/* ak_run_block results. AK_BAD_ARGS: a scalar slot out of the kernel's documented range (e.g. a
 * tile larger than the shared scratch); checked block-uniformly before any access. */
enum { AK_DONE = 0, AK_KILLED = 1, AK_BAD_KERNEL = 2, AK_BAD_ARGS = 3 };

/* What one block knows about itself. `kill` points at the word the back-end sets to abandon the
 * blocks running on this block's CU (CU reset); NULL when the back-end cannot kill. On the CPU the
 * kernel reads it with a relaxed atomic load (__atomic_load_n), so the back-end must write it with
 * an atomic store (__atomic_store_n or a C11 atomic of the same width) to stay data-race free. */
typedef struct ak_ctx {
  uint32_t block;   /* blockIdx.x within the kernel's full grid (not within a launched range) */
  uint32_t grid;    /* gridDim.x of the kernel's full grid */
  uint32_t threads; /* blockDim.x */
  const volatile uint32_t *kill;
  void *trace;      /* tracer state in the AK_TRACE build, else NULL */
  /* Host builds: 1 makes expf/tanhf use ak_alt_expf/ak_alt_tanhf (below), which round differently
   * from the platform's libm as a GPU's do: the CPU back-end's GPU-like mode (cpu_backend.h) sets it
   * so that checks comparing devices bit for bit meet the GPU's rounding without a GPU. Ignored on
   * the GPU. */
  uint32_t alt_math;
  /* Preemption-latency options (backend.h atoll_npreempt_tuning), 0 by default: dense_points adds
   * the AK_DENSE_POINT points inside a tile; poll_shift makes the loops that poll every N steps
   * poll every N >> poll_shift (ak_poll_step). Neither changes a kernel's result. */
  uint32_t dense_points;
  uint32_t poll_shift;
} ak_ctx;


/* The kernel list: X(ID, name). Ids are the position in this list, from 1 (0 is no kernel); new
 * kernels are appended so ids stay stable. The slot layout of each kernel is documented at its
 * body (native/kernels/k_*.h) and in ak_catalog.c. */
#define AK_KERNEL_LIST(X)                                                                                  \
  X(GEMM, gemm)               /* C = alpha * A.B + bias, batched, strided; tiled (tile_m x tile_n) */        \
  X(CONV2D, conv2d)           /* NCHW direct convolution, optional bias; tiled (channels x pixels) */       \
  X(BIAS_RELU, bias_relu)     /* out = [relu](x + bias[channel]); bias may be NULL */                       \
  X(MAXPOOL, maxpool)         /* NCHW max pooling, k x k window, stride s */                                \
  X(AVGPOOL, avgpool)         /* NCHW average pooling, k x k window, stride s */                            \
  X(SOFTMAX, softmax)         /* row-wise softmax */                                                        \
  X(LAYERNORM, layernorm)     /* row-wise layer normalisation with gamma, beta */                           \
  X(GELU, gelu)               /* tanh-approximated GELU, elementwise */                                     \
  X(ADD, add)                 /* out = a + b, elementwise */                                                \
  X(ADD_INPLACE, add_inplace) /* out += x, elementwise: NOT idempotent */                                   \
  X(SPIN, spin)               /* synthetic: a fixed amount of arithmetic per block, for runtime tests */

#define AK_ENUM_ENTRY_(ID, name) AK_K_##ID,
typedef enum ak_kernel_id { AK_K_NONE = 0, AK_KERNEL_LIST(AK_ENUM_ENTRY_) AK_K_COUNT } ak_kernel_id;
#undef AK_ENUM_ENTRY_

#if defined(__CUDACC__) || defined(__HIPCC__)
#if defined(__HIPCC__)
#include <hip/hip_runtime.h> /* hipcc, unlike nvcc, does not pre-include its device runtime */
#endif
#define AK_GPU 1
#define AK_DEVICE __device__
#define AK_SHARED __shared__
#define AK_RESTRICT __restrict__
#define AK_FOR_THREADS(t) for (uint32_t t = threadIdx.x; t < (c)->threads; t += blockDim.x)
#define AK_BARRIER() __syncthreads()
#define AK_FOR_ELEMS(e, n) for (uint32_t e = threadIdx.x; e < (uint32_t)(n); e += blockDim.x)
#define AK_FOR_ELEMS2(i, j, ni, nj)                                                                        \
  for (uint32_t ak_e_ = threadIdx.x, i = 0, j = 0;                                                         \
       ak_e_ < (uint32_t)(ni) * (uint32_t)(nj) && ((i = ak_e_ / (uint32_t)(nj)), (j = ak_e_ % (uint32_t)(nj)), 1); \
       ak_e_ += blockDim.x)
#define AK_FOR_ELEMS3(i, j, k, ni, nj, nk)                                                                 \
  for (uint32_t ak_e_ = threadIdx.x, i = 0, j = 0, k = 0;                                                  \
       ak_e_ < (uint32_t)(ni) * (uint32_t)(nj) * (uint32_t)(nk) &&                                         \
       ((i = ak_e_ / ((uint32_t)(nj) * (uint32_t)(nk))), (j = ak_e_ / (uint32_t)(nk) % (uint32_t)(nj)),    \
        (k = ak_e_ % (uint32_t)(nk)), 1);                                                                  \
       ak_e_ += blockDim.x)
#else
#define AK_GPU 0
#if defined(__SANITIZE_THREAD__)
#define AK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AK_TSAN 1
#endif
#endif
#if defined(AK_TSAN)
/* Under ThreadSanitizer the kernel bodies are not instrumented access by access: AK_LD and AK_ST
 * (below) report each global-memory access to TSan themselves, and ak_run_block reports the block's
 * arguments and context, which is all a block shares with other threads. What TSan no longer sees
 * is the block's scratch (AK_SHARED below: an array on the worker thread's own stack) and its
 * locals. Those were most of its work: a convolution adds every tap of every output in scratch. */
#define AK_DEVICE __attribute__((no_sanitize("thread")))
#else
#define AK_DEVICE
#endif
#define AK_SHARED
#define AK_RESTRICT restrict
#define AK_FOR_THREADS(t) for (uint32_t t = 0; t < (c)->threads; t++)
#define AK_BARRIER() ((void)0)
#define AK_FOR_ELEMS(e, n) for (uint32_t e = 0; e < (uint32_t)(n); e++)
#define AK_FOR_ELEMS2(i, j, ni, nj)                                                                        \
  for (uint32_t i = 0; i < (uint32_t)(ni); i++)                                                            \
    for (uint32_t j = 0; j < (uint32_t)(nj); j++)
#define AK_FOR_ELEMS3(i, j, k, ni, nj, nk)                                                                 \
  for (uint32_t i = 0; i < (uint32_t)(ni); i++)                                                            \
    for (uint32_t j = 0; j < (uint32_t)(nj); j++)                                                          \
      for (uint32_t k = 0; k < (uint32_t)(nk); k++)
#endif

/* Work items spread over the block's threads. AK_FOR_ELEMS(e, n) runs its body once for every
 * e in [0, n); on the GPU item e belongs to thread e mod blockDim.x, on the CPU the loop is plain
 * (so the compiler can vectorise it). The 2-D and 3-D forms enumerate (i, j) / (i, j, k) in
 * row-major order with the same ownership (flattened index mod blockDim.x): no division on the
 * CPU. Item ownership is the same in every loop of a kernel, so a thread may keep per-item state
 * in shared scratch across loops without a barrier. Bodies must not `break` (on the CPU it would
 * leave only the innermost loop). */

/* Float arithmetic whose rounding the compiler may not change: the GPU compilers contract
 * a * b + c into one fused multiply-add by default, which would make results depend on the
 * compiler's choices (and differ from the CPU build). Sums of products in the library use these,
 * so every tiling — and the CPU and GPU builds — round each step the same way. The CPU library is
 * built with -ffp-contract=off for the same reason. Float scalars travel in int slots as bits. */
#if AK_GPU
#define AK_FADD(x, y) __fadd_rn((x), (y))
#define AK_FMUL(x, y) __fmul_rn((x), (y))
#define AK_FDIV(x, y) __fdiv_rn((x), (y))
static __device__ __forceinline__ float ak_f32(int32_t bits) { return __int_as_float(bits); }
#define AK_EXPF(x) expf(x)
#define AK_TANHF(x) tanhf(x)
#else
#define AK_FADD(x, y) ((x) + (y))
#define AK_FMUL(x, y) ((x) * (y))
#define AK_FDIV(x, y) ((x) / (y))
/* Another expf and tanhf (host builds): Cody-Waite reduction and a degree-7 Taylor polynomial in
 * float arithmetic, the way GPU math libraries compute them. Within about 2 ulp of the true value,
 * so within the self-test's libm tolerance, but not bit-identical to glibc's correctly-rounded-in-
 * most-cases expf: the same pattern of last-bit differences a GPU build shows. */
static inline float ak_alt_expf(float x) {
  if (x != x)
    return x;
  if (x > 88.7f)
    return __builtin_inff();
  if (x < -103.9f)
    return 0.0f;
  const float n = __builtin_rintf(x * 1.44269504f);
  float r = __builtin_fmaf(n, -0.693145752f, x);
  r = __builtin_fmaf(n, -1.42860677e-06f, r);
  float p = 1.0f / 5040.0f;
  p = __builtin_fmaf(p, r, 1.0f / 720.0f);
  p = __builtin_fmaf(p, r, 1.0f / 120.0f);
  p = __builtin_fmaf(p, r, 1.0f / 24.0f);
  p = __builtin_fmaf(p, r, 1.0f / 6.0f);
  p = __builtin_fmaf(p, r, 0.5f);
  p = __builtin_fmaf(p, r, 1.0f);
  p = __builtin_fmaf(p, r, 1.0f);
  return __builtin_ldexpf(p, (int)n);
}
static inline float ak_alt_tanhf(float x) {
  const float a = x < 0 ? -x : x;
  if (a > 9.0f)
    return x < 0 ? -1.0f : 1.0f;
  const float t = ak_alt_expf(2.0f * a);
  const float y = (t - 1.0f) / (t + 1.0f);
  return x < 0 ? -y : y;
}
#define AK_EXPF(x) ((c)->alt_math ? ak_alt_expf(x) : expf(x))
#define AK_TANHF(x) ((c)->alt_math ? ak_alt_tanhf(x) : tanhf(x))
static inline float ak_f32(int32_t bits) {
  union {
    int32_t i;
    float f;
  } u;
  u.i = bits;
  return u.f;
}
/* Host side: a float's bit pattern for an int slot. */
static inline int32_t ak_bits(float f) {
  union {
    float f;
    int32_t i;
  } u;
  u.f = f;
  return u.i;
}
#endif

/* Block-shared scratch that ak_run_block provides to every kernel body (floats). One buffer
 * for all kernels keeps a padded GPU launch, which reaches every kernel from one __global__
 * function, at one kernel's worth of static shared memory. On the CPU it lives on the worker
 * thread's stack (12 KiB). */
#define AK_SMEM_FLOATS 3072

/* Preemption point: a BLOCK-LEVEL statement (never inside AK_FOR_THREADS, never under a
 * thread-dependent branch). When the CU has been reset, the block returns AK_KILLED.
 *   CPU: one relaxed atomic load of *kill and a branch.
 *   GPU: thread 0 reads the word into shared memory between two barriers, so every thread of the
 *        block takes the same decision (a block that split would deadlock at its next barrier).
 *        The first barrier keeps thread 0 from overwriting the shared copy while slower threads
 *        still read the previous point's value. */
#if AK_GPU
#define AK_PREEMPT_POINT(c)                                                                                \
  do {                                                                                                     \
    __shared__ uint32_t ak_kill_seen_;                                                                     \
    __syncthreads();                                                                                       \
    if (threadIdx.x == 0)                                                                                  \
      ak_kill_seen_ = (c)->kill ? *(c)->kill : 0u;                                                         \
    __syncthreads();                                                                                       \
    if (ak_kill_seen_)                                                                                     \
      return AK_KILLED;                                                                                    \
  } while (0)
#elif defined(AK_COUNT_PREEMPT_POINTS)
/* The tests' counting build (tests/native_kernels/test_points.c): every point reached adds one to
 * ak_points_reached, a thread-local the test defines, then acts as the CPU's point. */
extern _Thread_local uint64_t ak_points_reached;
#define AK_PREEMPT_POINT(c)                                                                                \
  do {                                                                                                     \
    ak_points_reached++;                                                                                   \
    if ((c)->kill && __atomic_load_n((c)->kill, __ATOMIC_RELAXED))                                         \
      return AK_KILLED;                                                                                    \
  } while (0)
#elif defined(AK_NO_PREEMPT_POINTS)
/* The bench's baseline build: the points compile to nothing (docs/native-kernels.md). */
#define AK_PREEMPT_POINT(c) ((void)(c))
#else
#define AK_PREEMPT_POINT(c)                                                                                \
  do {                                                                                                     \
    if ((c)->kill && __atomic_load_n((c)->kill, __ATOMIC_RELAXED))                                         \
      return AK_KILLED;                                                                                    \
  } while (0)
#endif

/* A polling interval of `step` loop steps under the block's poll_shift: at least 1. */
static inline AK_DEVICE uint32_t ak_poll_step(const ak_ctx *c, uint32_t step) {
  const uint32_t s = c->poll_shift < 32 ? step >> c->poll_shift : 0;
  return s ? s : 1;
}

/* A dense preemption point (backend.h atoll_npreempt_tuning.dense_points): inside a tile of a long
 * kernel, a point only when the option is on. `cond` must be block-uniform (a loop counter), like
 * every point's position. */
#define AK_DENSE_POINT(c, cond)                                                                           \
  do {                                                                                                     \
    if ((c)->dense_points && (cond))                                                                       \
      AK_PREEMPT_POINT(c);                                                                                 \
  } while (0)

/* ThreadSanitizer builds (AK_TSAN, above): the kernel bodies are not instrumented, so AK_LD and
 * AK_ST tell TSan of each global-memory access themselves, through the entry points its
 * instrumentation calls (for 1, 2, 4 or 8 bytes, or a range). Inlined into the body, each call's
 * return address is the access's place, so a report names the kernel's line as before. */
#if defined(AK_TSAN)
void __tsan_read1(void *p);
void __tsan_read2(void *p);
void __tsan_read4(void *p);
void __tsan_read8(void *p);
void __tsan_read_range(void *p, unsigned long bytes);
void __tsan_write1(void *p);
void __tsan_write2(void *p);
void __tsan_write4(void *p);
void __tsan_write8(void *p);
void __tsan_write_range(void *p, unsigned long bytes);
static inline AK_DEVICE __attribute__((always_inline)) void ak_tsan_read(const void *p, size_t bytes) {
  void *q = (void *)(uintptr_t)p;
  switch (bytes) {
  case 1:
    __tsan_read1(q);
    break;
  case 2:
    __tsan_read2(q);
    break;
  case 4:
    __tsan_read4(q);
    break;
  case 8:
    __tsan_read8(q);
    break;
  default:
    __tsan_read_range(q, bytes);
  }
}
static inline AK_DEVICE __attribute__((always_inline)) void ak_tsan_write(void *p, size_t bytes) {
  switch (bytes) {
  case 1:
    __tsan_write1(p);
    break;
  case 2:
    __tsan_write2(p);
    break;
  case 4:
    __tsan_write4(p);
    break;
  case 8:
    __tsan_write8(p);
    break;
  default:
    __tsan_write_range(p, bytes);
  }
}
#define AK_TSAN_LD_(p) ak_tsan_read((const void *)(p), sizeof *(p)),
#define AK_TSAN_ST_(p) ak_tsan_write((void *)(p), sizeof *(p)),
#else
#define AK_TSAN_LD_(p)
#define AK_TSAN_ST_(p)
#endif

/* Traced global-memory accesses. `p` is evaluated twice (three times under TSan): pass a
 * side-effect-free pointer expression. Shared-memory scratch is not traced (it lives only while the
 * block runs, so re-running the block rebuilds it — like NVBit's skipped LDS/STS). The kernel's
 * context must be named `c` (as for AK_FOR_THREADS). */
#if defined(AK_TRACE) && !AK_GPU
void ak_trace_access(void *trace, const void *p, size_t bytes, int write);
#define AK_LD(p) (AK_TSAN_LD_(p) ak_trace_access((c)->trace, (const void *)(p), sizeof *(p), 0), *(p))
/* The store is recorded after it is made, so the loads inside `v` come first in the trace (an
 * in-place update reads, then writes). */
#define AK_ST(p, v)                                                                                        \
  (AK_TSAN_ST_(p)(void)(*(p) = (v)), ak_trace_access((c)->trace, (const void *)(p), sizeof *(p), 1))
#define ak_run_block ak_run_block_trace
#else
#define AK_LD(p) (AK_TSAN_LD_(p) *(p))
#define AK_ST(p, v) (AK_TSAN_ST_(p)(void)(*(p) = (v)))
#endif

/* Runs block c->block of kernel `kernel` with arguments a (all threads of the block call it on
 * the GPU). Returns AK_DONE, AK_KILLED (a preemption point saw the kill word set), AK_BAD_KERNEL
 * (unknown id) or AK_BAD_ARGS. The same dispatcher serves CPU, GPU and padded launches (whose blocks run
 * different kernels). */
AK_DEVICE int ak_run_block(uint32_t kernel, const ak_args *a, const ak_ctx *c);

#endif
