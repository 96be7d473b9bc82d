/* The simulated device: a discrete-event model of one GPU behind the atoll_device interface.
 *
 * How it models the GPU (docs/simulator.md has the full story and every parameter's source):
 *  - Each stream has a host queue (HQ, unbounded) feeding a device queue (DQ, a ring of the
 *    stream's capacity). A transmit step moves one command from HQ to DQ for hq_transmit_ns once
 *    the DQ has room; a DQ slot stays taken until its command completes.
 *  - The command processor dispatches every stream's DQ head independently (each stream is a
 *    hardware queue), once the stream's previous command has completed (commands of a stream run
 *    in order): cp_dispatch_ns, plus stream_switch_ns when the kernel dispatched before it came
 *    from another stream that still has a kernel in flight (concurrent queues are multiplexed).
 *  - A dispatched kernel goes to the CUs (cu_model.h): its blocks are placed as register-file room
 *    allows (high-priority streams first, the others in turn) and run for their block time, slowed
 *    by the demand of the blocks sharing their CU (kernel_timing.h), block by block on every CU
 *    (engine blocks) or pooled over the CUs (engine fluid, the scenario's sim.engine).
 *  - memcpy/memset go through the CP to a copy engine (copy_engines of them, FIFO).
 *  - Preemption mechanisms (REEF §4): an HQ reset drops the commands not yet in the DQ and costs
 *    host time (per command synchronously, a constant with asynchronous reclamation); the
 *    preempt flag is an epoch: DQ commands launched before it are still fetched and dispatched
 *    by the CP (evicted_kernel_ns each, one after another, other dispatches waiting behind them)
 *    and exit in their prologue; a CU reset kills the running kernels of flagged streams after
 *    cu_reset_ns; the execution index is the op of the last kernel that started on a stream.
 * Every decision of what to run is the core's; the device only models mechanism and cost. */
#ifndef ATOLL_SIM_SIMDEV_H
#define ATOLL_SIM_SIMDEV_H

#include <stdint.h>

#include "atoll/device.h"
#include "atoll/scenario.h"
#include "sim/choice.h"
#include "sim/evq.h"
#include "sim/kernel_timing.h"
#include "run/results.h"
#include "core/sched.h"
#include "sim/simdev_hooks.h"
#include "run/trace.h"

/* Event payloads: type in the top byte, a generation in the next 24 bits, an id below. */
enum atoll_sim_ev {
  ATOLL_SIMEV_WAVE_END = 1,
  ATOLL_SIMEV_CP_DONE = 2,
  ATOLL_SIMEV_CP_WAKE = 3,
  ATOLL_SIMEV_COPY_DONE = 4,
  ATOLL_SIMEV_TIMER = 5,
  ATOLL_SIMEV_ARRIVAL = 6, /* the runner's, not the device's */
  ATOLL_SIMEV_EVICT_DONE = 7,
  ATOLL_SIMEV_KILL = 8
};

static inline uint64_t atoll_simev(uint32_t type, uint32_t gen, uint32_t id) {
  return ((uint64_t)type << 56) | ((uint64_t)(gen & 0xFFFFFF) << 32) | id;
}
static inline uint32_t atoll_simev_type(uint64_t p) { return (uint32_t)(p >> 56); }
static inline uint32_t atoll_simev_gen(uint64_t p) { return (uint32_t)(p >> 32) & 0xFFFFFF; }
static inline uint32_t atoll_simev_id(uint64_t p) { return (uint32_t)p; }

typedef struct atoll_simdev atoll_simdev;

/* When the steps of the current preemption finished (0: not done): host HQ reset, the CP's last
 * eviction, the CU kill. The runner takes them when an RT request's first kernel starts. */
typedef struct atoll_simdev_marks {
  int64_t hq_done_ns, evict_done_ns, kill_done_ns;
  uint32_t evicted; /* commands lazily evicted for this preemption */
} atoll_simdev_marks;

typedef struct atoll_simdev_cfg {
  const atoll_scenario *scenario;
  atoll_evq *evq;
  atoll_trace *trace;        /* NULL: no timeline */
  const atoll_simdev_hooks *hooks; /* NULL, or told what happens inside (simdev_hooks.h) */
  int64_t window_start_ns;   /* CU busy time is counted inside [start, end) */
  int64_t window_end_ns;
  /* NULL, or asked at the device's choice points (choice.h): wave durations within the scenario's
   * sim.timing_spread and the order the block dispatcher serves ready kernels in. */
  const atoll_chooser *chooser;
  /* NULL, or the GPU the kernels' timing is fitted on when the scenario's GPU is a cut-down copy of
   * it (fewer CUs): each block then keeps the time it takes on the full GPU. The reference for a
   * partition (docs/partitions.md); NULL fits the timing on the scenario's own GPU. */
  const atoll_gpu *timing_gpu;
  /* NULL, or kernel timings prepared by earlier runs (sim/shape_memo.h), for runs that time the same
   * kernels many times (a knee sweep: one run per share). It serves a device whose timing GPU is the
   * memo's GPU, the same object (timing_gpu, or the scenario's GPU): equal inputs, so the device
   * gets the timings it would prepare itself; any other device prepares its own. The device adds
   * the shapes it prepares. The caller keeps the memo, and the models it has seen, alive, and hands
   * it to one device at a time. */
  struct atoll_shape_memo *shape_memo;
} atoll_simdev_cfg;

int atoll_simdev_create(atoll_simdev **out, const atoll_simdev_cfg *cfg);
void atoll_simdev_destroy(atoll_simdev *d);
void atoll_simdev_attach(atoll_simdev *d, atoll_core *core);
atoll_device atoll_simdev_device(atoll_simdev *d);
/* Handles one of the device's events (every type but ARRIVAL). */
void atoll_simdev_handle(atoll_simdev *d, uint64_t payload, int64_t now);
/* Closes the busy-time books at `now`; fills the run's CU-time integrals. */
void atoll_simdev_finish(atoll_simdev *d, int64_t now, int64_t *busy, int64_t *busy_rt, int64_t *busy_be);
/* The padding figures over the window (call after atoll_simdev_finish): CU-time during which CUs
 * held padded BE blocks (within the BE busy time), RT kernels that started in the window and
 * completed, and one sample per padded one (the device owns the array). */
typedef struct atoll_simdev_padding_stats {
  int64_t busy_padded_ns;
  uint64_t rt_kernels;
  const atoll_pad_sample *samples;
  uint32_t n_samples;
} atoll_simdev_padding_stats;
void atoll_simdev_padding(const atoll_simdev *d, atoll_simdev_padding_stats *out);
/* Returns the marks and clears them for the next preemption. */
void atoll_simdev_take_marks(atoll_simdev *d, atoll_simdev_marks *out);
/* GPU time of killed kernels (run time until the kill) and how many, over the whole run. */
void atoll_simdev_killed(const atoll_simdev *d, int64_t *killed_ns, uint32_t *killed_kernels);
/* How many times RT blocks were placed while BE blocks were resident somewhere on the GPU. */
uint64_t atoll_simdev_rt_beside_be(const atoll_simdev *d);
/* Completion groups (waves or fluid groups) the CUs created: a measure of the engine's work. */
uint64_t atoll_simdev_cu_groups(const atoll_simdev *d);
/* The explorer's view: folds the device's state that decides what happens next (queues, the CP,
 * copy engines, the CUs; not statistics) into *h, with the marks of the preemption being measured
 * when with_marks; ATOLL_ENOTSUP when the CU engine cannot say (fluid). For one of the device's
 * events: false when it is stale (handling it would do nothing), else true, with (h not NULL) a
 * hash of what it is, independent of slot numbers and scheduling order. */
int atoll_simdev_hash(const atoll_simdev *d, bool with_marks, uint64_t *h);
bool atoll_simdev_event_hash(const atoll_simdev *d, uint64_t payload, uint64_t *h);
/* The explorer's checkpoints (run.h): writes the device's mutable state (streams and their queues,
 * the CP, copy engines, timers, padding records, the CUs) into b; restore reads it back into the
 * device of the same run. Pointers into the device's own stream array are kept as they are: it
 * never moves. ATOLL_ENOTSUP for the fluid engine; restore may return ATOLL_ENOMEM. */
struct atoll_snapbuf;
int atoll_simdev_save(const atoll_simdev *d, struct atoll_snapbuf *b);
int atoll_simdev_restore(atoll_simdev *d, struct atoll_snapbuf *b);
/* The timing the device uses for (model, op). */
const atoll_kernel_timing *atoll_simdev_timing(const atoll_simdev *d, uint32_t model, uint32_t op);

#endif
