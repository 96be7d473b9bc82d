/* The compute units of the simulated GPU: where a dispatched kernel's blocks run, how long they
 * take, when they end, and how kernels of several streams share the CUs.
 *
 * The device (simdev.c) hands a dispatched kernel over as a job and hears back when its first
 * blocks start and when its last block ends; everything in between is this model's. Two engines
 * sit behind the interface (docs/simulator.md, "CU engines"):
 *  - blocks (cu_blocks.c): every CU's register file and block slots separately; a block's duration
 *    is fixed when it starts, from the demand on its CU; blocks of one placement that end together
 *    are one event. Freed CUs are offered to waiting kernels, high-priority streams first, the
 *    others in turn. Exact at block level: what the explorer enumerates.
 *  - fluid (cu_fluid.c): the same rules on CUs pooled into zones (the whole GPU, or the CU ranges
 *    of a padded launch), so a placement is one group of blocks with one end, whatever CUs it
 *    would touch. A kernel alone runs exactly as in blocks; sharing is approximated (room is
 *    pooled, demand is the zone's average), for a few events per kernel instead of dozens.
 *  - rate (cu_rate.c): fluid's rules on the whole GPU as one pool, with a kernel's waves implied
 *    and its rate changed as the residents change; room changes hands at arrivals, last placements,
 *    completions and, while a kernel waits for room, wave ends. No CU-restricted kernels.
 * All account CU busy time (a CU is busy while any block is resident) inside a window. */
#ifndef ATOLL_SIM_CU_MODEL_H
#define ATOLL_SIM_CU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/cuset.h"
#include "atoll/gpu.h"
#include "atoll/scenario.h"
#include "sim/choice.h"
#include "sim/evq.h"
#include "sim/kernel_timing.h"
#include "run/trace.h"

typedef struct atoll_cu_model atoll_cu_model;

/* A dispatched kernel (or a part of a padded launch) as the CUs see it. */
typedef struct atoll_cu_job {
  atoll_kernel_timing kt;  /* blocks, block_units, demand, bt1_ns (the model keeps a copy) */
  uint16_t cu_lo, cu_hi;   /* the CUs its blocks may use: [cu_lo, cu_hi) */
  /* NULL, or the CUs of [cu_lo, cu_hi) its blocks may use when that range has gaps (a stream bound
   * to "0-9,20-29"); it must outlive the job (the device's stream holds it). */
  const atoll_cuset *only;
  uint8_t rt;              /* RT work: counts in RT busy time */
  uint8_t padding;         /* a BE part of a padded launch (not "unpadded BE") */
  uint8_t high;            /* from a high-priority stream: offered room first */
} atoll_cu_job;

/* What the CUs tell the device. Called from inside atoll_cu_place/atoll_cu_handle; done may launch
 * new work on the device but must not call back into the CU model synchronously. */
typedef struct atoll_cu_sink {
  void *ctx;
  void (*started)(void *ctx, uint32_t job, int64_t now); /* its first blocks were placed */
  void (*done)(void *ctx, uint32_t job, int64_t now);    /* its last block ended */
  const char *(*name)(void *ctx, uint32_t job);          /* for the timeline */
} atoll_cu_sink;

typedef struct atoll_cu_model_cfg {
  atoll_sim_engine engine;
  const atoll_gpu *gpu;
  uint32_t max_jobs; /* job ids are below this */
  atoll_evq *evq;    /* where completions are scheduled (type ATOLL_SIMEV_WAVE_END) */
  atoll_trace *trace; /* NULL: no CU tracks */
  atoll_cu_sink sink;
  int64_t window_start_ns, window_end_ns; /* busy time is counted inside [start, end) */
  /* Choice points (choice.h), blocks engine only: a new wave's duration when timing_spread > 0,
   * and which waiting kernel is offered room first. NULL: the nominal option everywhere. */
  const atoll_chooser *chooser;
  double timing_spread; /* a fraction in [0, 1) */
} atoll_cu_model_cfg;

int atoll_cu_model_create(atoll_cu_model **out, const atoll_cu_model_cfg *cfg);
void atoll_cu_model_destroy(atoll_cu_model *m);

/* Job `job` (not running) joins the kernels waiting for room; atoll_cu_place offers it room. */
void atoll_cu_add(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j);
/* Offers every CU to the waiting kernels. */
void atoll_cu_place(atoll_cu_model *m);
/* Stops every job for which victim(ctx, job) is true now: their blocks leave the CUs, their pending
 * completions are cancelled, and no done call follows. Room is not offered: call atoll_cu_place. */
void atoll_cu_kill(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx);
/* Handles one of the model's events (ATOLL_SIMEV_WAVE_END). */
void atoll_cu_handle(atoll_cu_model *m, uint64_t payload, int64_t now);
/* Closes the busy-time books at `now` (CU-ns busy, with an RT block, with a BE block). */
void atoll_cu_busy(atoll_cu_model *m, int64_t now, int64_t *busy, int64_t *busy_rt, int64_t *busy_be);
/* CU-ns with a padded BE block resident, as of the last atoll_cu_busy. */
int64_t atoll_cu_busy_padded(const atoll_cu_model *m);
/* How many times RT blocks were placed while unpadded BE blocks were resident on the GPU (counted
 * per CU placement by blocks, per group placement by fluid: zero or not is what compares). */
uint64_t atoll_cu_rt_beside_be(const atoll_cu_model *m);
/* Completion groups created so far (waves or fluid groups), for the benchmark. */
uint64_t atoll_cu_groups(const atoll_cu_model *m);
/* The explorer's view (blocks engine only; ATOLL_ENOTSUP for fluid): folds the state that decides
 * what the CUs do next into *h (not statistics, not slot numbers), and for one of the model's
 * events whether it is still live and, if so and h is not NULL, a hash of what it will do (its
 * wave's contents). */
int atoll_cu_hash(const atoll_cu_model *m, uint64_t *h);
/* The explorer's checkpoints (blocks engine only; ATOLL_ENOTSUP for fluid): writes the model's
 * mutable state into b, and reads it back into the model of the same run. The jobs' `only` sets are
 * kept as pointers: they belong to the device's streams, which never move. */
struct atoll_snapbuf;
int atoll_cu_save(const atoll_cu_model *m, struct atoll_snapbuf *b);
int atoll_cu_restore(atoll_cu_model *m, struct atoll_snapbuf *b);
bool atoll_cu_event_hash(const atoll_cu_model *m, uint64_t payload, uint64_t *h);

#endif
