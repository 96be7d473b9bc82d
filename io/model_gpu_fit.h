/* Whether a model's kernels fit a GPU's CUs: each kernel's resident blocks per CU (its occupancy)
 * within the CU's block slots, and their threads within its thread slots. A scenario refuses a
 * model that does not fit (io/scenario_load.c), and so do `atoll model info --gpu` and `atoll model
 * knee`, which would otherwise simulate a kernel no CU can hold. */
#ifndef ATOLL_IO_MODEL_GPU_FIT_H
#define ATOLL_IO_MODEL_GPU_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "atoll/gpu.h"
#include "atoll/model.h"

/* The index of m's first kernel that does not fit g, with why in msg ("op 3 (conv): occupancy 64 x
 * 256 threads exceeds the GPU's 40 blocks / 2560 threads per CU"); UINT32_MAX when all fit. */
uint32_t atoll_model_gpu_misfit(const atoll_model *m, const atoll_gpu *g, char *msg, size_t size);

#endif
