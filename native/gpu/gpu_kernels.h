/* gpu_kernels.h — the host side's handle on the device code (gpu_kernels.cpp): launching the one
 * entry kernel and asking how many of its blocks fit on a CU. Vendor types come from the
 * gpu_vendor.h of the build (native/cuda or native/hip). */
#ifndef ATOLL_GPU_KERNELS_H
#define ATOLL_GPU_KERNELS_H

#include "native/gpu/gpu_launch.h"
#include "gpu_vendor.h"

/* Launches atoll_gpu_entry with `blocks` x `threads` on stream s (asynchronous). Returns the
 * runtime's launch error. */
gpuError_t atoll__gpu_launch(const gpu_launch_desc *d, uint32_t blocks, uint32_t threads, gpuStream_t s);
/* Starts the clock probe on stream s (gpu_clock.h): it writes the device clock to *out (device
 * view of mapped memory) until *stop becomes non-zero. */
gpuError_t atoll__gpu_clock_probe(volatile uint64_t *out, const volatile uint32_t *stop, gpuStream_t s);
/* Resident blocks of the entry kernel per CU at `threads` threads per block. */
gpuError_t atoll__gpu_entry_occupancy(uint32_t threads, int *blocks_per_cu);

#endif
