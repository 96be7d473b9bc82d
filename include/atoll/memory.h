/* Device memory a scenario's placement takes on each GPU (docs/partitions.md, "Memory"). Every
 * client holds its own instance of its model, as a process per client does under MPS: its weights
 * plus the activations of one model run. */
#ifndef ATOLL_MEMORY_H
#define ATOLL_MEMORY_H

#include <stdint.h>

#include "atoll/scenario.h"

typedef struct atoll_gpu_memory {
  double capacity_mb; /* the GPU's memory_mb; 0 when the preset does not give it */
  double used_mb;     /* the known footprints of the instances placed on the GPU */
  uint32_t instances; /* model instances placed on the GPU (one per client) */
  uint32_t unknown;   /* of those, instances whose model has no footprint (counted as 0 MB) */
} atoll_gpu_memory;

/* The memory of GPU `gpu` of scenario s (0 .. gpu_count-1; ATOLL_EINVAL past the last): the
 * instances of the clients placed on it, each its weights plus its activations times its largest
 * batch (1 for a client without `batch:`). */
int atoll_scenario_gpu_memory(const atoll_scenario *s, uint32_t gpu, atoll_gpu_memory *out);

/* The device memory (MB) one instance of model m holds when it runs batches of up to max_batch
 * requests (1 for 0): its weights plus max_batch times its activations per request. The one
 * formula behind the placement check above, the shadow instances of gslice and inss
 * (docs/gslice.md, "Shadow instances") and gen's task-set memory check. 0 for a model without a
 * footprint. */
double atoll_model_instance_mb(const atoll_model *m, uint32_t max_batch);
/* The same for the model of scenario s's client `client` (which must exist). */
double atoll_client_instance_mb(const atoll_scenario *s, uint32_t client, uint32_t max_batch);

/* Sets model m's footprint from its tensor table, for importers whose source gives every buffer's
 * size (REEF's storage table, the native models): weights_mb is the weight tensors' bytes, and
 * activations_mb_per_batch the bytes of every other tensor (input, output, intermediates: the
 * buffers one request of the model's own batch uses), both in MB of 2^20 bytes. */
void atoll_model_footprint_from_tensors(atoll_model *m);

#endif
