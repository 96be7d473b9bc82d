#include "io/model_gpu_fit.h"

#include <stdio.h>

uint32_t atoll_model_gpu_misfit(const atoll_model *m, const atoll_gpu *g, char *msg, size_t size) {
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    if (op->kind != ATOLL_OP_KERNEL)
      continue;
    uint64_t threads = atoll_dim3_count(op->shape.block);
    if (op->shape.occupancy > g->max_blocks_per_cu || threads * op->shape.occupancy > g->max_threads_per_cu) {
      snprintf(msg, size, "op %u (%s): occupancy %u x %llu threads exceeds the GPU's %u blocks / %u threads per CU",
               i, op->name, op->shape.occupancy, (unsigned long long)threads, g->max_blocks_per_cu,
               g->max_threads_per_cu);
      return i;
    }
  }
  return UINT32_MAX;
}
