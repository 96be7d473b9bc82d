/* gpu_kernels.cpp — the device code of the GPU back-end: the kernel library's GPU build and the
 * entry kernel that wraps it (gpu_entry.h). The library's dispatcher is compiled into this
 * translation unit (rather than linked as relocatable device code), so ak_run_block and every
 * kernel body are inlined into the one entry kernel.
 *
 * Compiled as CUDA by nvcc (native/cuda) and as HIP by hipcc (native/hip). */
#include "gpu_vendor.h"

#include "native/kernels/ak_dispatch.c"

#include "native/gpu/gpu_entry.h"
#include "native/gpu/gpu_kernels.h"

gpuError_t atoll__gpu_launch(const gpu_launch_desc *d, uint32_t blocks, uint32_t threads, gpuStream_t s) {
  atoll_gpu_entry<<<dim3(blocks), dim3(threads), 0, s>>>(*d);
  return gpuGetLastError();
}

/* The clock probe (gpu_clock.h): one thread writes the device clock into mapped memory until the
 * host sets *stop. */
__global__ void atoll_gpu_clock_probe(volatile uint64_t *out, const volatile uint32_t *stop) {
  while (!*stop) {
    *out = gpu_device_clock();
    __threadfence_system();
  }
}

gpuError_t atoll__gpu_clock_probe(volatile uint64_t *out, const volatile uint32_t *stop, gpuStream_t s) {
  atoll_gpu_clock_probe<<<dim3(1), dim3(1), 0, s>>>(out, stop);
  return gpuGetLastError();
}

gpuError_t atoll__gpu_entry_occupancy(uint32_t threads, int *blocks_per_cu) {
  return gpuOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_cu, atoll_gpu_entry, (int)threads, 0);
}
