/* gpu_vendor.h (HIP) — the vendor layer of the GPU back-end: native/gpu/ is written once against
 * the gpu* names below, and this header maps them onto HIP (ROCm); native/cuda/gpu_vendor.h maps
 * the same names onto the CUDA runtime. Nothing else in the back-end mentions a vendor. */
#ifndef ATOLL_GPU_VENDOR_H
#define ATOLL_GPU_VENDOR_H

#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "atoll/cuset.h"
#include "native/gpu/gpu_partition.h"

#define GPU_VENDOR_NAME "hip"
#define GPU_RUNTIME_NAME "HIP runtime"
#define GPU_API_PREFIX "hip" /* error messages name the vendor call */
#define GPU_COHERENT_ALLOC_NAME "ExtMallocWithFlags"
#define GPU_HOST_ALLOC_NAME "HostMalloc"

typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
typedef hipDeviceProp_t gpuDeviceProp;

#define gpuSuccess hipSuccess
#define gpuErrorNotReady hipErrorNotReady
#define gpuGetErrorString hipGetErrorString
#define gpuGetErrorName hipGetErrorName
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuHostAllocMapped(p, bytes) hipHostMalloc((p), (bytes), hipHostMallocMapped | hipHostMallocCoherent | hipHostMallocPortable)
#define gpuFreeHost hipHostFree
#define gpuHostGetDevicePointer(d, h) hipHostGetDevicePointer((d), (h), 0)
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamCreateWithPriority hipStreamCreateWithPriority
#define gpuDeviceGetStreamPriorityRange hipDeviceGetStreamPriorityRange
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamDestroy hipStreamDestroy
#define gpuEventDisableTiming hipEventDisableTiming
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventQuery hipEventQuery
#define gpuEventDestroy hipEventDestroy
#define gpuEventDefault hipEventDefault
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor

/* AMDGPU passes aggregate kernel arguments by reference into the kernarg segment, so taking their
 * address needs no annotation. */
#define GPU_GRID_CONSTANT

/* The device clock of the preemption timestamps (native/gpu/gpu_clock.h): the constant-rate
 * real-time counter (s_memrealtime, gfx8 and later; wall_clock64's source), whose rate the host
 * fits at open. The host pass of hipcc sees a body that is never called. */
#ifdef __HIPCC__
static __device__ __forceinline__ uint64_t gpu_device_clock(void) {
#if defined(__HIP_DEVICE_COMPILE__)
  return (uint64_t)__builtin_amdgcn_s_memrealtime();
#else
  return 0;
#endif
}
#endif

/* Device memory that the host writes (DMA) while kernels poll it. Ordinary (coarse-grained) VRAM
 * is only coherent at kernel boundaries on AMD GPUs: a running block could keep reading a stale
 * L2 line. Fine-grained VRAM is coherent while kernels run. */
static inline gpuError_t gpuMallocCoherent(void **p, size_t bytes) {
  return hipExtMallocWithFlags(p, bytes, hipDeviceMallocFinegrained);
}

/* "gfx906" style architecture name (the runtime's name may carry feature suffixes). */
static inline void gpu_arch_name(const gpuDeviceProp *p, char *buf, size_t len) { snprintf(buf, len, "%s", p->gcnArchName); }
/* HIP does not report a resident-block limit: 0 (the occupancy query of the entry kernel decides). */
static inline int gpu_max_blocks_per_cu(const gpuDeviceProp *p) {
  (void)p;
  return 0;
}

/* A stream whose kernels run only on the CUs of `cus` (docs/partitions.md): HIP's CU-masked stream,
 * the mask given CU by CU as 32-bit words (bit i of word i / 32: CU i). HIP takes no priority for it,
 * so the stream has the default one. ordinal and priority are unused (the current device is set). */
/* HIP's masks name the CUs themselves, so disjoint sets give disjoint CUs with no bookkeeping. */
typedef struct {
  int unused;
} gpu_partitions;

static inline void gpu_partitions_release(gpu_partitions *parts) { (void)parts; }

static inline gpuError_t gpu_stream_create_on_cus(gpu_partitions *parts, int ordinal, const gpuDeviceProp *p,
                                                  const atoll_cuset *cus, int priority, gpuStream_t *s, char *why,
                                                  size_t why_len) {
  (void)parts, (void)ordinal, (void)priority;
  uint32_t mask[ATOLL_CUSET_MAX / 32];
  uint32_t n = ((uint32_t)p->multiProcessorCount + 31) / 32;
  if (n == 0 || n > ATOLL_CUSET_MAX / 32)
    n = ATOLL_CUSET_MAX / 32;
  gpu_cu_mask_words(cus, mask, n);
  snprintf(why, why_len, "hipExtStreamCreateWithCUMask");
  return hipExtStreamCreateWithCUMask(s, n, mask);
}

/* A stream for a queue moving to a re-provisioned share (docs/gslice.md "Native"): a CU mask names
 * the CUs themselves, so the moved queue's stream is made as a bound one is. */
static inline gpuError_t gpu_stream_move_to_cus(gpu_partitions *parts, int ordinal, const gpuDeviceProp *p,
                                                const atoll_cuset *cus, int priority, gpuStream_t *s, char *why,
                                                size_t why_len) {
  return gpu_stream_create_on_cus(parts, ordinal, p, cus, priority, s, why, why_len);
}

#endif
