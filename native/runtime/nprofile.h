/* nprofile.h — measuring a native device so the simulator can predict it (hardware in the loop).
 *
 * Two products, in the simulator's own formats:
 *   - the device preset (include/atoll/gpu.h, docs/gpus.md): CU count and slots, and every cost the
 *     simulator charges, each measured on the device through the same back-end and runtime paths
 *     a native run takes (nprofile.c says how, cost by cost);
 *   - each native model's profile (docs/models.md): the isolated time of every kernel op and
 *     version, per-occupancy times up to the device's slots, copy times, the whole model's
 *     standalone latency, idempotence from the model's own trace, and `native: NAME`.
 * Kernel times are taken as the simulator defines them: an isolated launch, the host's launch and
 * synchronisation included (the preset's launch_sync_ns, measured the same way on an empty
 * kernel, is what the simulator takes back off). */
#ifndef ATOLL_NATIVE_NPROFILE_H
#define ATOLL_NATIVE_NPROFILE_H

#include "io/arena.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "native/runtime/nrun.h"

/* How the preset's costs came out (ns), kept for the preset file's comments and the docs. */
typedef struct atoll_native_costs_note {
  uint32_t samples;         /* isolated launches per figure */
  int64_t kill_max_ns;      /* the slowest kill among the kernels tried */
  uint32_t kill_kernels;    /* kernels whose kill was timed */
} atoll_native_costs_note;

/* Measures the device the options select (o->device, cus, slots, pinning) and fills g, named
 * `name`. kill_models (may be NULL, n of them) are native models whose kernels are killed to time
 * the CU reset: the kill waits for each running block's next preemption point, so its cost is the
 * kernels'. Strings live in a. Returns 0, ATOLL_ENODEV (err says why) or another ATOLL_E* code. */
int atoll_native_measure_device(const atoll_native_opts *o, const char *name, const atoll_nmodel *const *kill_models,
                                uint32_t n, atoll_arena *a, atoll_gpu *g, atoll_native_costs_note *note, char *err,
                                size_t err_len);

/* Measures native model nm on the device (g: the preset just measured, for its name, CUs and
 * slots) and builds its profile in a. repeats: isolated launches per kernel (median kept).
 * The whole model's standalone latency is measured through the native runtime. */
int atoll_native_measure_model(const atoll_native_opts *o, const atoll_nmodel *nm, const atoll_gpu *g, uint32_t repeats,
                               atoll_arena *a, atoll_model *out, char *err, size_t err_len);

#endif
