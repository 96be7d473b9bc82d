/* The CU model's front (cu_model.h): picks the engine (core/scenario.c names them), names the CU
 * tracks, keeps the busy-time books both engines share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/cu_engine.h"
#include "sim/snapbuf.h"

int atoll_cu_model_create(atoll_cu_model **out, const atoll_cu_model_cfg *cfg) {
  atoll_cu_model *m = calloc(1, sizeof *m);
  if (!m)
    return ATOLL_ENOMEM;
  m->ops = cfg->engine == ATOLL_ENGINE_FLUID  ? &atoll__cu_fluid
           : cfg->engine == ATOLL_ENGINE_RATE ? &atoll__cu_rate
                                              : &atoll__cu_blocks;
  m->engine = cfg->engine;
  m->g = cfg->gpu, m->evq = cfg->evq, m->trace = cfg->trace, m->sink = cfg->sink, m->max_jobs = cfg->max_jobs;
  m->win0 = cfg->window_start_ns, m->win1 = cfg->window_end_ns;
  m->chooser = cfg->chooser, m->spread = cfg->timing_spread;
  int rc = m->ops->create(m);
  if (rc) {
    atoll_cu_model_destroy(m);
    return rc;
  }
  if (m->trace) {
    uint32_t cus = m->g->cus, per = (cus + ATOLL__CU_GROUP_TRACKS - 1) / ATOLL__CU_GROUP_TRACKS;
    for (uint32_t grp = 0; grp * per < cus; grp++) {
      char name[32];
      uint32_t hi = (grp + 1) * per > cus ? cus : (grp + 1) * per;
      snprintf(name, sizeof name, "CU %u-%u", grp * per, hi - 1);
      atoll_trace_name_track(m->trace, ATOLL_TRACK_CU, grp, name);
    }
  }
  *out = m;
  return 0;
}

void atoll_cu_model_destroy(atoll_cu_model *m) {
  if (!m)
    return;
  m->ops->destroy(m);
  free(m);
}

void atoll_cu_add(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j) {
  if (j->kt.mem == 0) {
    m->ops->add(m, job, j);
    return;
  }
  /* What the kernel draws alone is what it keeps resident on its own CUs: its measured time
   * already includes that much memory traffic (atoll_mem_stretch). */
  atoll_cu_job local = *j;
  uint32_t cus = j->cu_hi > j->cu_lo ? (uint32_t)(j->cu_hi - j->cu_lo) : 0;
  if (j->only) {
    uint32_t in_set = 0;
    for (uint32_t cu = j->cu_lo; cu < j->cu_hi; cu++)
      in_set += atoll_cuset_has(j->only, cu);
    cus = in_set;
  }
  uint32_t fit = j->kt.block_units ? m->g->registers_per_cu / j->kt.block_units : m->g->max_blocks_per_cu;
  if (fit > m->g->max_blocks_per_cu)
    fit = m->g->max_blocks_per_cu;
  uint64_t resident = (uint64_t)(fit ? fit : 1) * (cus ? cus : 1);
  if (resident > j->kt.blocks)
    resident = j->kt.blocks;
  local.kt.mem_alone = resident * j->kt.mem;
  m->ops->add(m, job, &local);
}

void atoll_cu_place(atoll_cu_model *m) { m->ops->place(m); }

void atoll_cu_kill(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx) {
  m->ops->kill(m, victim, ctx);
}

void atoll_cu_handle(atoll_cu_model *m, uint64_t payload, int64_t now) { m->ops->handle(m, payload, now); }

void atoll_cu_busy(atoll_cu_model *m, int64_t now, int64_t *busy, int64_t *busy_rt, int64_t *busy_be) {
  atoll__cu_account(m, now);
  *busy = m->busy, *busy_rt = m->busy_rt, *busy_be = m->busy_be;
}

int64_t atoll_cu_busy_padded(const atoll_cu_model *m) { return m->busy_pad; }

uint64_t atoll_cu_rt_beside_be(const atoll_cu_model *m) { return m->rt_beside_be; }

uint64_t atoll_cu_groups(const atoll_cu_model *m) { return m->groups; }

int atoll_cu_hash(const atoll_cu_model *m, uint64_t *h) {
  if (!m->ops->hash)
    return ATOLL_ENOTSUP;
  m->ops->hash(m, h);
  return 0;
}

bool atoll_cu_event_hash(const atoll_cu_model *m, uint64_t payload, uint64_t *h) {
  return m->ops->event_hash && m->ops->event_hash(m, payload, h);
}

/* The books both engines share: the busy counts and integrals, the statistics. */
typedef struct cu_books {
  uint32_t busy_cus, rt_cus, be_cus, pad_cus;
  int64_t acc_ns, busy, busy_rt, busy_be, busy_pad;
  uint64_t rt_beside_be, groups;
} cu_books;

int atoll_cu_save(const atoll_cu_model *m, atoll_snapbuf *b) {
  if (!m->ops->save)
    return ATOLL_ENOTSUP;
  cu_books k = {m->busy_cus, m->rt_cus, m->be_cus, m->pad_cus, m->acc_ns, m->busy, m->busy_rt, m->busy_be,
                m->busy_pad, m->rt_beside_be, m->groups};
  atoll_snapbuf_put(b, &k, sizeof k);
  m->ops->save(m, b);
  return 0;
}

int atoll_cu_restore(atoll_cu_model *m, atoll_snapbuf *b) {
  if (!m->ops->restore)
    return ATOLL_ENOTSUP;
  cu_books k;
  atoll_snapbuf_get(b, &k, sizeof k);
  m->busy_cus = k.busy_cus, m->rt_cus = k.rt_cus, m->be_cus = k.be_cus, m->pad_cus = k.pad_cus;
  m->acc_ns = k.acc_ns, m->busy = k.busy, m->busy_rt = k.busy_rt, m->busy_be = k.busy_be, m->busy_pad = k.busy_pad;
  m->rt_beside_be = k.rt_beside_be, m->groups = k.groups;
  return m->ops->restore(m, b);
}
