/* Inside the CU model (cu_model.h): the state the engines share and the table each engine fills.
 * Only cu_model.c and the engines (cu_blocks.c, cu_fluid.c, cu_rate.c) include this. */
#ifndef ATOLL_SIM_CU_ENGINE_H
#define ATOLL_SIM_CU_ENGINE_H

#include <assert.h>

#include "sim/cu_model.h"

typedef struct atoll__cu_engine {
  int (*create)(atoll_cu_model *m);
  void (*destroy)(atoll_cu_model *m);
  void (*add)(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j);
  void (*place)(atoll_cu_model *m);
  void (*kill)(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx);
  void (*handle)(atoll_cu_model *m, uint64_t payload, int64_t now);
  /* The explorer's state hash (cu_model.h); NULL when the engine has no exact state to offer. */
  void (*hash)(const atoll_cu_model *m, uint64_t *h);
  bool (*event_hash)(const atoll_cu_model *m, uint64_t payload, uint64_t *h);
  /* The explorer's checkpoints (cu_model.h); NULL when the engine cannot save its state. */
  void (*save)(const atoll_cu_model *m, struct atoll_snapbuf *b);
  int (*restore)(atoll_cu_model *m, struct atoll_snapbuf *b);
} atoll__cu_engine;

extern const atoll__cu_engine atoll__cu_blocks;
extern const atoll__cu_engine atoll__cu_fluid;
extern const atoll__cu_engine atoll__cu_rate;

enum { ATOLL__CU_GROUP_TRACKS = 15 }; /* CU tracks on the timeline: CUs drawn in this many groups */

struct atoll_cu_model {
  const atoll__cu_engine *ops;
  atoll_sim_engine engine;
  const atoll_gpu *g;
  atoll_evq *evq;
  atoll_trace *trace;
  atoll_cu_sink sink;
  uint32_t max_jobs;
  /* CU busy time: the number of busy CUs (any block, an RT block, a BE block, a padded BE block
   * resident) integrated over time, brought up to date before every change of the counts. */
  uint32_t busy_cus, rt_cus, be_cus, pad_cus;
  int64_t acc_ns, win0, win1, busy, busy_rt, busy_be, busy_pad;
  uint64_t rt_beside_be, groups;
  const atoll_chooser *chooser; /* choice points (choice.h); NULL: nominal */
  double spread;                /* timing spread of wave durations */
  /* Memory demand of every resident block, all CUs together (ATOLL_MEM_ONE = the bandwidth):
   * what a starting block with memory demand of its own meets (atoll_mem_stretch). */
  uint64_t mem_demand;
  void *impl; /* the engine's state */
};

/* Adds the busy-CU counts times the time since the last change, clipped to the window. */
static inline void atoll__cu_account(atoll_cu_model *m, int64_t now) {
  if (now <= m->acc_ns)
    return;
  int64_t a = m->acc_ns < m->win0 ? m->win0 : m->acc_ns, b = now > m->win1 ? m->win1 : now;
  if (b > a) {
    /* Zero counts (often the padded one, or the RT one) are skipped: besides the work, the tests keep
     * the compiler from turning the four products into vector code that costs more than they do. */
    int64_t len = b - a;
    m->busy += len * m->busy_cus;
    if (m->rt_cus)
      m->busy_rt += len * m->rt_cus;
    if (m->be_cus)
      m->busy_be += len * m->be_cus;
    if (m->pad_cus)
      m->busy_pad += len * m->pad_cus;
  }
  m->acc_ns = now;
}

/* The contention rule between co-running kernels (docs/simulator.md, "Co-running contention"): of the
 * CU demand resident where blocks start, `own` is their own kernel's, which they meet in full (the
 * per-occupancy lists measure it), and the rest is other kernels', which they meet less the preset's
 * corun_overlap_ppm. Without an overlap this is `resident`, as before the rule. */
static inline uint64_t atoll__corun_demand(const atoll_cu_model *m, uint64_t resident, uint64_t own) {
  uint32_t overlap = m->g->corun_overlap_ppm;
  if (overlap == 0)
    return resident;
  return own + (resident - own) * (1000000u - overlap) / 1000000u;
}

/* The pooled engines' (fluid, rate) dealing of blocks onto CUs. */
static inline uint32_t atoll__min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* The blocks of kt one CU holds at most (its registers, the CU's block slots), at least 1. */
static inline uint32_t atoll__cu_fit(const atoll_cu_model *m, const atoll_kernel_timing *kt) {
  uint32_t fit = kt->block_units ? m->g->registers_per_cu / kt->block_units : m->g->max_blocks_per_cu;
  fit = atoll__min_u32(fit, m->g->max_blocks_per_cu);
  return fit ? fit : 1;
}

/* The CUs of `cus` that n blocks cover, dealt out at most ceil(n / cus) per CU and `fit` per CU. */
static inline uint32_t atoll__cu_cover(uint32_t cus, uint32_t fit, uint32_t n) {
  if (n <= cus)
    return n; /* one per CU */
  uint32_t per_cu = atoll__min_u32((n + cus - 1) / cus, fit);
  return atoll__min_u32(cus, (n + per_cu - 1) / per_cu);
}

/* A busy count after its covered CUs change by delta (negative deltas wrap back): at most cus of
 * them are busy, and *total, the model's count, moves with *busy. */
static inline void atoll__cu_busy_update(uint32_t *cover, uint32_t *busy, uint32_t *total, uint32_t cus,
                                         uint32_t delta) {
  uint32_t c = *cover + delta, b = atoll__min_u32(cus, c);
  *cover = c;
  *total += b - *busy;
  *busy = b;
}

static inline void atoll__cu_schedule(atoll_cu_model *m, int64_t at, uint64_t payload) {
  int rc = atoll_evq_push(m->evq, at, ATOLL_EV_COMPLETE, payload);
  assert(rc == 0 && "event queue allocation failed");
  (void)rc;
}

#endif
