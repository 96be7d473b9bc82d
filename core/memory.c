/* Device memory per GPU (include/atoll/memory.h). */
#include "atoll/memory.h"

#include "atoll/error.h"

int atoll_scenario_gpu_memory(const atoll_scenario *s, uint32_t gpu, atoll_gpu_memory *out) {
  if (gpu >= atoll_scenario_gpus(s))
    return ATOLL_EINVAL;
  *out = (atoll_gpu_memory){.capacity_mb = s->gpu.memory_mb};
  for (uint32_t i = 0; i < s->n_clients; i++) {
    const atoll_client *cl = &s->clients[i];
    if (cl->gpu != gpu)
      continue;
    const atoll_model *m = &s->models[cl->model].model;
    out->instances++;
    /* A batching client's instance holds the activations of its largest model run. */
    if (m->footprint_known)
      out->used_mb += atoll_model_instance_mb(m, cl->batch_max);
    else
      out->unknown++;
  }
  return ATOLL_OK;
}

double atoll_model_instance_mb(const atoll_model *m, uint32_t max_batch) {
  if (!m->footprint_known)
    return 0;
  return m->weights_mb + m->activations_mb_per_batch * (double)(max_batch > 1 ? max_batch : 1);
}

double atoll_client_instance_mb(const atoll_scenario *s, uint32_t client, uint32_t max_batch) {
  return atoll_model_instance_mb(&s->models[s->clients[client].model].model, max_batch);
}

void atoll_model_footprint_from_tensors(atoll_model *m) {
  uint64_t weights = 0, other = 0;
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    if (m->tensors[i].kind == ATOLL_TENSOR_WEIGHT)
      weights += m->tensors[i].bytes;
    else
      other += m->tensors[i].bytes;
  }
  m->footprint_known = true;
  m->weights_mb = (double)weights / (1024.0 * 1024.0);
  m->activations_mb_per_batch = (double)other / (1024.0 * 1024.0);
}
