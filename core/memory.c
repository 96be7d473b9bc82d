/* Device memory per GPU (include/atoll/memory.h). */
#include "atoll/memory.h"

#include "atoll/error.h"

int atoll_scenario_gpu_memory(const atoll_scenario *s, uint32_t gpu, atoll_gpu_memory *out) {
  if (gpu != 0)
    return ATOLL_EINVAL;
  *out = (atoll_gpu_memory){.capacity_mb = s->gpu.memory_mb};
  for (uint32_t i = 0; i < s->n_clients; i++) {
    const atoll_model *m = &s->models[s->clients[i].model].model;
    out->instances++;
    if (m->footprint_known)
      out->used_mb += m->weights_mb + m->activations_mb_per_batch;
    else
      out->unknown++;
  }
  return ATOLL_OK;
}
