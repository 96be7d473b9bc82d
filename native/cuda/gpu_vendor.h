/* gpu_vendor.h (CUDA) — the vendor layer of the GPU back-end: native/gpu/ is written once against
 * the gpu* names below, and this header maps them onto the CUDA runtime (native/hip/gpu_vendor.h
 * maps the same names onto HIP). Nothing else in the back-end mentions a vendor.
 *
 * Only what the two runtimes offer alike is named here; where they differ (coherent device memory,
 * the architecture string) a small inline function hides the difference. */
#ifndef ATOLL_GPU_VENDOR_H
#define ATOLL_GPU_VENDOR_H

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "atoll/cuset.h"
#include "native/gpu/gpu_partition.h"

#define GPU_VENDOR_NAME "cuda"
#define GPU_RUNTIME_NAME "CUDA runtime"
#define GPU_API_PREFIX "cuda" /* error messages name the vendor call */
#define GPU_COHERENT_ALLOC_NAME "Malloc"
#define GPU_HOST_ALLOC_NAME "HostAlloc"

typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaDeviceProp gpuDeviceProp;

#define gpuSuccess cudaSuccess
#define gpuErrorNotReady cudaErrorNotReady
#define gpuGetErrorString cudaGetErrorString
#define gpuGetErrorName cudaGetErrorName
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuHostAllocMapped(p, bytes) cudaHostAlloc((p), (bytes), cudaHostAllocMapped | cudaHostAllocPortable)
#define gpuFreeHost cudaFreeHost
#define gpuHostGetDevicePointer(d, h) cudaHostGetDevicePointer((d), (h), 0)
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamCreateWithPriority cudaStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange cudaDeviceGetStreamPriorityRange
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamDestroy cudaStreamDestroy
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventQuery cudaEventQuery
#define gpuEventDestroy cudaEventDestroy
#define gpuEventDefault cudaEventDefault
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor

/* Launch parameters whose address device code takes (the kernel library receives a pointer to its
 * argument slots) stay in the constant parameter space instead of being copied per thread. */
#define GPU_GRID_CONSTANT __grid_constant__

/* The device clock of the preemption timestamps (native/gpu/gpu_clock.h): %globaltimer, in ns. */
#ifdef __CUDACC__
static __device__ __forceinline__ uint64_t gpu_device_clock(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

/* Device memory that the host writes (DMA) while kernels poll it. On NVIDIA GPUs the L2 cache is
 * the point of coherence for copy engines and SMs alike, and volatile loads bypass L1, so ordinary
 * device memory serves. */
static inline gpuError_t gpuMallocCoherent(void **p, size_t bytes) { return cudaMalloc(p, bytes); }

/* "sm_75" style architecture name. */
static inline void gpu_arch_name(const gpuDeviceProp *p, char *buf, size_t len) {
  snprintf(buf, len, "sm_%d%d", p->major, p->minor);
}
/* Resident-block limit per CU the hardware documents (0 when the runtime does not say). */
static inline int gpu_max_blocks_per_cu(const gpuDeviceProp *p) { return p->maxBlocksPerMultiProcessor; }

/* A stream whose kernels run only on a partition of the SMs (docs/partitions.md): a green context
 * (CUDA >= 12.4 driver). Green contexts take an SM COUNT, not given SMs: the set's count is rounded
 * up to the device's partition granularity (CUdevSmResource.minSmPartitionSize, then a multiple of
 * smCoscheduledAlignment) and the driver picks the SMs. Each new partition is cut from what the
 * earlier ones left, so bound queues with different sets get disjoint SMs; a queue bound to a set
 * seen before gets a stream in that set's context. The driver's entry points are looked up through
 * the runtime, so the module links no libcuda and an older driver is refused with a message rather
 * than failing to load. */
typedef CUresult (*gpu_fn_get_res)(CUdevice, CUdevResource *, CUdevResourceType);
typedef CUresult (*gpu_fn_split)(CUdevResource *, unsigned int *, const CUdevResource *, CUdevResource *, unsigned int,
                                 unsigned int);
typedef CUresult (*gpu_fn_desc)(CUdevResourceDesc *, CUdevResource *, unsigned int);
typedef CUresult (*gpu_fn_green)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned int);
typedef CUresult (*gpu_fn_green_stream)(CUstream *, CUgreenCtx, unsigned int, int);
typedef CUresult (*gpu_fn_green_destroy)(CUgreenCtx);

/* One back-end's partitions: the table of sets (gpu_partition.h), the SMs not yet given out, and
 * each partition's green context. Zeroed with the back-end. */
typedef struct {
  gpu_partition_table table;
  bool started;
  CUdevResource pool;
  uint32_t min_sms, align_sms, total_sms; /* the device's granularity, read once */
  CUgreenCtx ctx[GPU_PARTITIONS_MAX];
  /* Re-provisioned shares (gpu_stream_move_to_cus): green contexts cut from the whole device, one
   * per SM count asked, kept until the back-end closes. */
  CUgreenCtx moved_ctx[GPU_PARTITIONS_MAX];
  uint32_t moved_sms[GPU_PARTITIONS_MAX]; /* the count each was asked for, after rounding */
  uint32_t n_moved;
} gpu_partitions;

static inline bool gpu_driver_fn(const char *name, void **fn) {
  cudaDriverEntryPointQueryResult q;
  return cudaGetDriverEntryPointByVersion(name, fn, 12040, cudaEnableDefault, &q) == cudaSuccess &&
         q == cudaDriverEntryPointSuccess && *fn;
}

/* The driver entry points a green-context stream needs. Both stream makers (a start-up partition,
 * a re-provisioned share) look them up here, so an older driver is refused with one message. */
typedef struct {
  gpu_fn_get_res get_res;
  gpu_fn_split split;
  gpu_fn_desc desc;
  gpu_fn_green green;
  gpu_fn_green_stream green_stream;
} gpu_green_fns;

static inline bool gpu_green_fns_load(gpu_green_fns *fn, char *why, size_t why_len) {
  if (!gpu_driver_fn("cuDeviceGetDevResource", (void **)&fn->get_res) ||
      !gpu_driver_fn("cuDevSmResourceSplitByCount", (void **)&fn->split) ||
      !gpu_driver_fn("cuDevResourceGenerateDesc", (void **)&fn->desc) ||
      !gpu_driver_fn("cuGreenCtxCreate", (void **)&fn->green) ||
      !gpu_driver_fn("cuGreenCtxStreamCreate", (void **)&fn->green_stream)) {
    snprintf(why, why_len, "green contexts (the driver lacks them: CUDA >= 12.4 needed to bind a queue to SMs)");
    return false;
  }
  return true;
}

/* Cuts one group of `sms` SMs from `from` into a new green context: `part` gets the SMs the driver
 * gave, `rest` what is left of `from`. A start-up partition cuts from the pool and keeps `rest` as
 * the new pool; a re-provisioned share cuts from the whole device and drops it. */
static inline CUresult gpu_green_ctx_cut(const gpu_green_fns *fn, int ordinal, const CUdevResource *from, uint32_t sms,
                                         CUgreenCtx *ctx, CUdevResource *part, CUdevResource *rest) {
  unsigned int groups = 1;
  CUdevResourceDesc d;
  CUresult e = fn->split(part, &groups, from, rest, 0, sms);
  if (e == CUDA_SUCCESS && groups != 1)
    e = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
  if (e == CUDA_SUCCESS)
    e = fn->desc(&d, part, 1);
  if (e == CUDA_SUCCESS)
    e = fn->green(ctx, d, (CUdevice)ordinal, CU_GREEN_CTX_DEFAULT_STREAM);
  return e;
}

/* Cuts a green context of `sms` SMs from the pool into parts->ctx[idx]. */
static inline CUresult gpu_partition_cut(gpu_partitions *parts, int ordinal, uint32_t idx, uint32_t sms,
                                         const gpu_green_fns *fn, uint32_t *got) {
  CUdevResource part, rest;
  CUgreenCtx ctx;
  CUresult e = gpu_green_ctx_cut(fn, ordinal, &parts->pool, sms, &ctx, &part, &rest);
  if (e != CUDA_SUCCESS)
    return e;
  parts->ctx[idx] = ctx;
  parts->pool = rest;
  *got = part.sm.smCount;
  return CUDA_SUCCESS;
}

/* The device's whole SM resource, which both a start-up partition and a moved share are cut from;
 * false with the driver's error in why. */
static inline bool gpu_device_sm_resource(const gpu_green_fns *fn, int ordinal, CUdevResource *res, char *why,
                                          size_t why_len) {
  CUresult e = fn->get_res((CUdevice)ordinal, res, CU_DEV_RESOURCE_TYPE_SM);
  if (e != CUDA_SUCCESS)
    snprintf(why, why_len, "the device's SM resource (driver error %d)", (int)e);
  return e == CUDA_SUCCESS;
}

static inline gpuError_t gpu_stream_create_on_cus(gpu_partitions *parts, int ordinal, const gpuDeviceProp *p,
                                                  const atoll_cuset *cus, int priority, gpuStream_t *s, char *why,
                                                  size_t why_len) {
  (void)p;
  gpu_green_fns fn;
  if (!gpu_green_fns_load(&fn, why, why_len))
    return cudaErrorNotSupported;
  CUresult e;
  if (!parts->started) {
    if (!gpu_device_sm_resource(&fn, ordinal, &parts->pool, why, why_len))
      return cudaErrorNotSupported;
    parts->min_sms = parts->pool.sm.minSmPartitionSize;
    parts->align_sms = parts->pool.sm.smCoscheduledAlignment;
    parts->total_sms = parts->pool.sm.smCount;
    parts->table.free_sms = parts->total_sms;
    parts->started = true;
  }
  uint32_t want = gpu_cuset_count(cus);
  uint32_t sms = gpu_green_sm_fit(want, parts->min_sms, parts->align_sms, parts->total_sms, parts->table.free_sms);
  uint32_t idx = 0, got = 0;
  switch (gpu_partition_pick(&parts->table, cus, sms, &idx)) {
  case GPU_PART_REUSE:
    break;
  case GPU_PART_OVERLAP:
    snprintf(why, why_len, "a set of %u CUs that shares CUs with another bound queue's set (green contexts "
             "cannot share SMs)", want);
    return cudaErrorNotSupported;
  case GPU_PART_EXHAUSTED:
    snprintf(why, why_len, "a green context of %u SMs (%u asked, rounded to the device's granularity): only %u of "
             "%u SMs are not bound yet", sms, want, parts->table.free_sms, parts->total_sms);
    return cudaErrorNotSupported;
  case GPU_PART_FULL:
    snprintf(why, why_len, "more than %d partitions on one device", GPU_PARTITIONS_MAX);
    return cudaErrorNotSupported;
  default: /* GPU_PART_NEW */
    if ((e = gpu_partition_cut(parts, ordinal, idx, sms, &fn, &got)) != CUDA_SUCCESS) {
      snprintf(why, why_len, "green context of %u SMs (driver error %d)", sms, (int)e);
      return cudaErrorNotSupported;
    }
    gpu_partition_commit(&parts->table, cus, got);
  }
  CUstream st;
  if ((e = fn.green_stream(&st, parts->ctx[idx], CU_STREAM_NON_BLOCKING, priority)) != CUDA_SUCCESS) {
    snprintf(why, why_len, "a stream in the green context of %u SMs (driver error %d)", parts->table.sms[idx], (int)e);
    return cudaErrorNotSupported;
  }
  snprintf(why, why_len, "green context %u of %u SMs", idx, parts->table.sms[idx]);
  *s = (cudaStream_t)st;
  return cudaSuccess;
}

/* A stream for a queue moving to a re-provisioned share (gslice, docs/gslice.md "Native"): a green
 * context of the set's SM count, rounded as above, cut from the device's whole SM resource rather
 * than from what the start-up partitions left. GSLICE's shares are MPS percentages, caps whose SMs
 * the hardware picks, and while one IF grows before its neighbour has shrunk the shares add up past
 * 100 %; a green context cut from the whole device is that cap (the driver picks its SMs, which may
 * be SMs another partition also uses). One context per count is made and kept, so shares that come
 * back to a count reuse it. */
static inline gpuError_t gpu_stream_move_to_cus(gpu_partitions *parts, int ordinal, const gpuDeviceProp *p,
                                                const atoll_cuset *cus, int priority, gpuStream_t *s, char *why,
                                                size_t why_len) {
  (void)p;
  gpu_green_fns fn;
  if (!gpu_green_fns_load(&fn, why, why_len))
    return cudaErrorNotSupported;
  CUresult e;
  CUdevResource all;
  if (!gpu_device_sm_resource(&fn, ordinal, &all, why, why_len))
    return cudaErrorNotSupported;
  uint32_t want = gpu_cuset_count(cus);
  uint32_t sms = gpu_green_sm_count(want, all.sm.minSmPartitionSize, all.sm.smCoscheduledAlignment, all.sm.smCount);
  uint32_t idx = 0;
  while (idx < parts->n_moved && parts->moved_sms[idx] != sms)
    idx++;
  if (idx == parts->n_moved) {
    if (idx == GPU_PARTITIONS_MAX) {
      snprintf(why, why_len, "more than %d re-provisioned share sizes on one device", GPU_PARTITIONS_MAX);
      return cudaErrorNotSupported;
    }
    CUdevResource part, rest;
    CUgreenCtx ctx;
    if ((e = gpu_green_ctx_cut(&fn, ordinal, &all, sms, &ctx, &part, &rest)) != CUDA_SUCCESS) {
      snprintf(why, why_len, "green context of %u SMs for a moved share (driver error %d)", sms, (int)e);
      return cudaErrorNotSupported;
    }
    parts->moved_ctx[idx] = ctx;
    parts->moved_sms[idx] = sms;
    parts->n_moved++;
  }
  CUstream st;
  if ((e = fn.green_stream(&st, parts->moved_ctx[idx], CU_STREAM_NON_BLOCKING, priority)) != CUDA_SUCCESS) {
    snprintf(why, why_len, "a stream in the green context of %u SMs (driver error %d)", sms, (int)e);
    return cudaErrorNotSupported;
  }
  *s = (cudaStream_t)st;
  return cudaSuccess;
}

/* Destroys the partitions' green contexts; every stream in them must be destroyed first. */
static inline void gpu_partitions_release(gpu_partitions *parts) {
  gpu_fn_green_destroy destroy;
  if ((parts->table.n == 0 && parts->n_moved == 0) || !gpu_driver_fn("cuGreenCtxDestroy", (void **)&destroy))
    return;
  for (uint32_t i = 0; i < parts->table.n; i++)
    (void)destroy(parts->ctx[i]);
  for (uint32_t i = 0; i < parts->n_moved; i++)
    (void)destroy(parts->moved_ctx[i]);
  parts->table.n = 0;
  parts->n_moved = 0;
}

#endif
