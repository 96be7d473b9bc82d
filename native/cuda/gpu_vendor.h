/* gpu_vendor.h (CUDA) — the vendor layer of the GPU back-end: native/gpu/ is written once against
 * the gpu* names below, and this header maps them onto the CUDA runtime (native/hip/gpu_vendor.h
 * maps the same names onto HIP). Nothing else in the back-end mentions a vendor.
 *
 * Only what the two runtimes offer alike is named here; where they differ (coherent device memory,
 * the architecture string) a small inline function hides the difference. */
#ifndef ATOLL_GPU_VENDOR_H
#define ATOLL_GPU_VENDOR_H

#include <cuda_runtime.h>
#include <stdio.h>

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

#endif
