/* The blocks engine of the CU model (cu_model.h): every CU separately.
 *
 * How it models the CUs: a block occupies registers_per_cu / occupancy of its CU's register file
 * and one of max_blocks_per_cu slots. A kernel's blocks are dealt out across the CUs offered: a
 * first pass gives each CU at most ceil(remaining / CUs), a second fills what room is left. A
 * block runs for bt1 times the demand on its CU when it starts (kernel_timing.h), at least bt1.
 * Blocks of one placement whose ends lie within 1/64 of their duration share one wave (one event,
 * ending at the wave's time), and so do blocks of a kernel placed while its latest wave runs and
 * ends within that tolerance; a wave remembers how many blocks it holds on each CU, so slots free
 * where they were taken. Freed CUs are offered to the kernels waiting for room, high-priority
 * streams first, the others in turn (one rotation step per offer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/cu_engine.h"
#include "sim/simdev.h"
#include "sim/snapbuf.h"
#include "sim/state_hash.h"

enum { MAX_CUS = ATOLL_BLOCKS_MAX_CUS, MAX_OFFER = 64 };

typedef struct bjob {
  atoll_cu_job j;
  uint32_t placed, done;
  uint32_t serial;   /* increments per kernel: waves name their kernel by it */
  int32_t last_wave; /* the kernel's most recent wave, for merging (-1 none) */
  uint32_t last_wave_gen;
  uint8_t started;
} bjob;

typedef struct wave {
  uint32_t job, serial, n, gen;
  uint8_t live;
  uint16_t cu_lo, cu_hi; /* CUs touched: [lo, hi] */
  int64_t start_ns, dur_ns;
  uint16_t count[MAX_CUS];
  int32_t next_free;
} wave;

typedef struct blocks {
  bjob *jobs;
  /* Kernels with unplaced blocks, in dispatch order. */
  uint32_t *pending;
  uint32_t n_pending;
  uint32_t cu_cursor, rr_offer;
  uint16_t all_cus[MAX_CUS];
  uint32_t free_units[MAX_CUS], demand[MAX_CUS], nblocks[MAX_CUS];
  uint32_t res_rt[MAX_CUS], res_be[MAX_CUS], res_unpadded_be[MAX_CUS], res_pad[MAX_CUS];
  uint32_t unpadded_be_cus; /* CUs holding BE blocks that are not padding */
  wave *waves;
  uint32_t n_waves, cap_waves;
  int32_t free_wave;
} blocks;

static blocks *B(atoll_cu_model *m) { return m->impl; }

/* Residency: a CU is busy while any block is resident, RT-busy while an RT block is, BE-busy while
 * a BE block is, padded while a padded BE block is; only the counts of such CUs change here. */
static void residency(atoll_cu_model *m, blocks *b, uint32_t cu, bool rt, bool padding, int32_t delta) {
  if (!rt && padding) {
    uint32_t before = b->res_pad[cu];
    b->res_pad[cu] = (uint32_t)((int32_t)before + delta);
    m->pad_cus += (before == 0 && b->res_pad[cu] > 0) - (before > 0 && b->res_pad[cu] == 0);
  }
  if (!rt && !padding) {
    uint32_t before = b->res_unpadded_be[cu];
    b->res_unpadded_be[cu] = (uint32_t)((int32_t)before + delta);
    if (before == 0 && b->res_unpadded_be[cu] > 0)
      b->unpadded_be_cus++;
    else if (before > 0 && b->res_unpadded_be[cu] == 0)
      b->unpadded_be_cus--;
  }
  uint32_t before_any = b->res_rt[cu] + b->res_be[cu];
  uint32_t *cls = rt ? &b->res_rt[cu] : &b->res_be[cu];
  uint32_t *cls_cus = rt ? &m->rt_cus : &m->be_cus;
  uint32_t before = *cls;
  *cls = (uint32_t)((int32_t)*cls + delta);
  if (before == 0 && *cls > 0)
    (*cls_cus)++;
  else if (before > 0 && *cls == 0)
    (*cls_cus)--;
  uint32_t after_any = b->res_rt[cu] + b->res_be[cu];
  if (before_any == 0 && after_any > 0)
    m->busy_cus++;
  else if (before_any > 0 && after_any == 0)
    m->busy_cus--;
}

static int32_t wave_alloc(blocks *b) {
  if (b->free_wave >= 0) {
    int32_t w = b->free_wave;
    b->free_wave = b->waves[w].next_free;
    return w;
  }
  if (b->n_waves == b->cap_waves) {
    uint32_t cap = b->cap_waves ? b->cap_waves * 2 : 64;
    wave *nw = realloc(b->waves, cap * sizeof *nw);
    assert(nw && "wave pool allocation failed");
    b->waves = nw;
    b->cap_waves = cap;
  }
  b->waves[b->n_waves].gen = 0;
  memset(b->waves[b->n_waves].count, 0, sizeof b->waves[b->n_waves].count);
  return (int32_t)b->n_waves++;
}

static void wave_release(blocks *b, uint32_t w) {
  wave *wv = &b->waves[w];
  wv->live = 0;
  wv->gen = (wv->gen + 1) & 0xFFFFFF; /* its pending end event becomes stale */
  wv->next_free = b->free_wave;
  b->free_wave = (int32_t)w;
}

static void pending_remove(blocks *b, uint32_t i) {
  memmove(&b->pending[i], &b->pending[i + 1], (b->n_pending - i - 1) * sizeof *b->pending);
  b->n_pending--;
}

typedef struct open_wave {
  int64_t end;
  int32_t w;
} open_wave;

/* Puts `fit` blocks of job jid on CU cu, grouping blocks that end together into one wave per
 * placement pass. */
static void put_blocks(atoll_cu_model *m, blocks *b, uint32_t jid, uint32_t cu, uint32_t fit, open_wave *open,
                       uint32_t *n_open, uint32_t *own) {
  bjob *jb = &b->jobs[jid];
  const atoll_kernel_timing *kt = &jb->j.kt;
  int64_t now = m->evq->now;
  uint32_t demand = b->demand[cu] + fit * kt->demand;
  if (own) { /* the contention rule weighs other kernels' residents (atoll__corun_demand) */
    uint32_t met = (uint32_t)atoll__corun_demand(m, b->demand[cu], own[cu]) + fit * kt->demand;
    own[cu] += fit * kt->demand;
    demand = met;
  }
  int64_t dur = atoll_stretch_ns(kt->bt1_ns, demand);
  if (kt->mem) /* memory interference: the whole GPU's resident traffic, these blocks' included */
    dur = atoll_mem_stretch(kt, m->mem_demand + (uint64_t)fit * kt->mem, dur);
  int64_t end = now + dur;
  /* Blocks of one placement whose ends lie within 1/64 of their duration share one wave (ending
   * at the wave's time): the sharing model is no finer than that, and one event instead of one
   * per CU keeps co-running kernels cheap to simulate. */
  int64_t tolerance = dur / 64;
  int32_t w = -1;
  for (uint32_t k = 0; k < *n_open && w < 0; k++)
    if (open[k].end >= end - tolerance && open[k].end <= end + tolerance)
      w = open[k].w;
  /* The same holds across placements: a kernel fed a few CUs at a time as others free them joins
   * its latest wave while that wave's end is within tolerance. */
  if (w < 0 && jb->last_wave >= 0) {
    const wave *lw = &b->waves[jb->last_wave];
    int64_t lw_end = lw->start_ns + lw->dur_ns;
    if (lw->gen == jb->last_wave_gen && lw->serial == jb->serial && lw->job == jid && lw_end > now &&
        lw_end >= end - tolerance && lw_end <= end + tolerance)
      w = jb->last_wave;
  }
  if (w < 0) {
    w = wave_alloc(b);
    wave *nw = &b->waves[w];
    nw->job = jid, nw->serial = jb->serial, nw->n = 0, nw->start_ns = now, nw->dur_ns = dur, nw->live = 1;
    jb->last_wave = w, jb->last_wave_gen = nw->gen;
    nw->cu_lo = (uint16_t)cu, nw->cu_hi = (uint16_t)cu; /* counts are all zero: cleared on release */
    /* Choice point (choice.h): the wave may take its nominal time or that less or more the timing
     * spread. Merging above still compares nominal ends: it groups blocks, it does not time them. */
    int64_t at = end;
    if (m->spread > 0) {
      int64_t delta = (int64_t)((double)dur * m->spread + 0.5);
      uint32_t k = atoll_choose(m->chooser, ATOLL_CHOICE_DURATION, 3);
      at = k == 1 ? end - delta : k == 2 ? end + delta : end;
    }
    atoll__cu_schedule(m, at, atoll_simev(ATOLL_SIMEV_WAVE_END, nw->gen, (uint32_t)w));
    m->groups++;
    if (*n_open < 8)
      open[(*n_open)++] = (open_wave){end, w};
  }
  if (jb->j.rt && b->unpadded_be_cus > 0)
    m->rt_beside_be++;
  wave *wv = &b->waves[w];
  wv->count[cu] = (uint16_t)(wv->count[cu] + fit);
  wv->n += fit;
  if (cu < wv->cu_lo)
    wv->cu_lo = (uint16_t)cu;
  if (cu > wv->cu_hi)
    wv->cu_hi = (uint16_t)cu;
  b->free_units[cu] -= fit * kt->block_units;
  b->nblocks[cu] += fit;
  b->demand[cu] += fit * kt->demand;
  m->mem_demand += (uint64_t)fit * kt->mem;
  residency(m, b, cu, jb->j.rt, jb->j.padding, (int32_t)fit);
  jb->placed += fit;
}

static uint32_t room_on(const atoll_cu_model *m, const blocks *b, uint32_t cu, const atoll_kernel_timing *kt) {
  uint32_t fit = b->free_units[cu] / kt->block_units;
  uint32_t room = m->g->max_blocks_per_cu - b->nblocks[cu];
  return fit < room ? fit : room;
}

/* Whether job j's blocks may run on CU cu: inside its range, and in its set when the range has gaps. */
static bool may_use(const atoll_cu_job *j, uint32_t cu) {
  return cu >= j->cu_lo && cu < j->cu_hi && (!j->only || atoll_cuset_has(j->only, cu));
}

/* Each CU's demand of job jid's resident blocks (those of its live waves). */
static void own_demand(const blocks *b, uint32_t jid, uint32_t *own) {
  const bjob *jb = &b->jobs[jid];
  memset(own, 0, MAX_CUS * sizeof *own);
  if (jb->placed == jb->done)
    return; /* nothing of it resident */
  for (uint32_t w = 0; w < b->n_waves; w++) {
    const wave *wv = &b->waves[w];
    if (!wv->live || wv->job != jid || wv->serial != jb->serial)
      continue;
    for (uint32_t cu = wv->cu_lo; cu <= wv->cu_hi; cu++)
      own[cu] += wv->count[cu] * jb->j.kt.demand;
  }
}

/* Places as many of job jid's remaining blocks as fit on the listed CUs. The hardware's
 * dispatcher deals workgroups out across CUs, so blocks are spread: a first pass gives each CU at
 * most the kernel's share, ceil(remaining / CUs listed), and a second pass fills what room is left.
 * After an attempt either every block is placed or no listed CU has room for one. */
static void place_kernel(atoll_cu_model *m, blocks *b, uint32_t jid, const uint16_t *cus, uint32_t span) {
  bjob *jb = &b->jobs[jid];
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint32_t eligible = 0; /* a padded launch's parts and a bound stream's kernels keep to their CUs */
  for (uint32_t i = 0; i < span; i++)
    eligible += may_use(&jb->j, cus[i]);
  if (eligible == 0)
    return;
  uint32_t share = (kt->blocks - jb->placed + eligible - 1) / eligible;
  /* With a co-running overlap, each CU's demand of this kernel's own resident blocks, worked out
   * when it first places a block (most offers find no room). */
  uint32_t own_buf[MAX_CUS], *own = NULL;
  open_wave open[8];
  uint32_t n_open = 0;
  for (int pass = 0; pass < 2 && jb->placed < kt->blocks; pass++) {
    for (uint32_t i = 0; i < span && jb->placed < kt->blocks; i++) {
      uint32_t cu = cus[(b->cu_cursor + i) % span];
      if (!may_use(&jb->j, cu) || b->free_units[cu] < kt->block_units ||
          b->nblocks[cu] >= m->g->max_blocks_per_cu)
        continue;
      uint32_t fit = room_on(m, b, cu, kt), remaining = kt->blocks - jb->placed;
      if (pass == 0 && fit > share)
        fit = share;
      if (fit > remaining)
        fit = remaining;
      if (m->g->corun_overlap_ppm && !own)
        own_demand(b, jid, own = own_buf);
      put_blocks(m, b, jid, cu, fit, open, &n_open, own);
    }
  }
  if (!jb->started && jb->placed > 0) {
    jb->started = 1;
    m->sink.started(m->sink.ctx, jid, m->evq->now);
  }
}

/* Offers the listed CUs to the kernels waiting for room: high-priority streams first; among
 * equals the queues take turns, each offer going first to the next kernel in rotation and what it
 * leaves to the others, so a newly dispatched kernel is served as soon as its turn comes rather
 * than after every older kernel's blocks. Since a kernel left waiting found no room anywhere,
 * later offers need only cover the CUs that have since freed blocks. */
static bool any_room(const atoll_cu_model *m, const blocks *b, const uint16_t *cus, uint32_t span) {
  for (uint32_t i = 0; i < span; i++)
    if (b->nblocks[cus[i]] < m->g->max_blocks_per_cu && b->free_units[cus[i]] > 0)
      return true;
  return false;
}

static void place_blocks(atoll_cu_model *m, blocks *b, const uint16_t *cus, uint32_t span) {
  for (int level = 1; level >= 0; level--) {
    uint32_t who[MAX_OFFER], n = 0;
    for (uint32_t i = 0; i < b->n_pending && n < MAX_OFFER; i++)
      if ((b->jobs[b->pending[i]].j.high != 0) == (level == 1))
        who[n++] = b->pending[i];
    /* Choice point (choice.h): which waiting kernel is served first, when there is room to give. */
    uint32_t first = b->rr_offer;
    if (n > 1 && m->chooser && any_room(m, b, cus, span))
      first += atoll_choose(m->chooser, ATOLL_CHOICE_SERVE, n);
    for (uint32_t j = 0; j < n; j++)
      place_kernel(m, b, who[(first + j) % n], cus, span);
  }
  b->rr_offer++;
  b->cu_cursor = (b->cu_cursor + 1) % span;
  for (uint32_t i = 0; i < b->n_pending;) {
    bjob *jb = &b->jobs[b->pending[i]];
    if (jb->placed == jb->j.kt.blocks)
      pending_remove(b, i);
    else
      i++;
  }
}

/* Takes a wave's blocks off its CUs (the wave ended or was killed); fills `freed` if given. */
static uint32_t wave_free(atoll_cu_model *m, blocks *b, wave *wv, uint16_t *freed) {
  const bjob *jb = &b->jobs[wv->job];
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint32_t n_freed = 0;
  for (uint32_t cu = wv->cu_lo; cu <= wv->cu_hi; cu++) {
    uint32_t c = wv->count[cu];
    if (!c)
      continue;
    if (freed)
      freed[n_freed++] = (uint16_t)cu;
    b->free_units[cu] += c * kt->block_units;
    b->nblocks[cu] -= c;
    b->demand[cu] -= c * kt->demand;
    m->mem_demand -= (uint64_t)c * kt->mem;
    residency(m, b, cu, jb->j.rt, jb->j.padding, -(int32_t)c);
    wv->count[cu] = 0;
  }
  return n_freed;
}

static void on_wave_end(atoll_cu_model *m, blocks *b, uint32_t w, uint32_t gen, int64_t now) {
  wave *wv = &b->waves[w];
  if (wv->gen != gen)
    return; /* cancelled */
  atoll__cu_account(m, now);
  uint32_t jid = wv->job;
  bjob *jb = &b->jobs[jid];
  uint16_t freed[MAX_CUS];
  uint32_t n_freed = wave_free(m, b, wv, freed);
  if (m->trace) {
    char args[64];
    snprintf(args, sizeof args, "\"blocks\":%u,\"stream\":%u", wv->n, jid);
    uint32_t per = (m->g->cus + ATOLL__CU_GROUP_TRACKS - 1) / ATOLL__CU_GROUP_TRACKS;
    for (uint32_t grp = wv->cu_lo / per; grp <= wv->cu_hi / per; grp++)
      atoll_trace_span(m->trace, ATOLL_TRACK_CU, grp, m->sink.name(m->sink.ctx, jid), jb->j.rt ? "rt" : "be",
                       wv->start_ns, now - wv->start_ns, args);
  }
  jb->done += wv->n;
  wave_release(b, w);
  if (jb->done == jb->j.kt.blocks)
    m->sink.done(m->sink.ctx, jid, now);
  place_blocks(m, b, freed, n_freed);
}

static void blocks_add(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j) {
  blocks *b = B(m);
  bjob *jb = &b->jobs[job];
  jb->j = *j;
  jb->placed = jb->done = 0;
  jb->started = 0;
  jb->serial++;
  jb->last_wave = -1;
  b->pending[b->n_pending++] = job;
}

static void blocks_place(atoll_cu_model *m) {
  atoll__cu_account(m, m->evq->now);
  place_blocks(m, B(m), B(m)->all_cus, m->g->cus);
}

static void blocks_kill(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx) {
  blocks *b = B(m);
  atoll__cu_account(m, m->evq->now);
  for (uint32_t w = 0; w < b->n_waves; w++) {
    wave *wv = &b->waves[w];
    if (!wv->live || wv->serial != b->jobs[wv->job].serial || !victim(ctx, wv->job))
      continue;
    wave_free(m, b, wv, NULL);
    wave_release(b, w);
  }
  for (uint32_t i = 0; i < b->n_pending;)
    if (victim(ctx, b->pending[i]))
      pending_remove(b, i);
    else
      i++;
}

static void blocks_handle(atoll_cu_model *m, uint64_t p, int64_t now) {
  on_wave_end(m, B(m), atoll_simev_id(p), atoll_simev_gen(p), now);
}

static int blocks_create(atoll_cu_model *m) {
  if (m->g->cus > MAX_CUS)
    return ATOLL_ENOTSUP;
  blocks *b = calloc(1, sizeof *b);
  if (!b)
    return ATOLL_ENOMEM;
  m->impl = b;
  b->free_wave = -1;
  b->jobs = calloc(m->max_jobs, sizeof *b->jobs);
  b->pending = calloc(m->max_jobs, sizeof *b->pending);
  if (!b->jobs || !b->pending)
    return ATOLL_ENOMEM;
  for (uint32_t cu = 0; cu < m->g->cus; cu++) {
    b->free_units[cu] = m->g->registers_per_cu;
    b->all_cus[cu] = (uint16_t)cu;
  }
  return 0;
}

static void blocks_destroy(atoll_cu_model *m) {
  blocks *b = B(m);
  if (!b)
    return;
  free(b->jobs);
  free(b->pending);
  free(b->waves);
  free(b);
}

/* --- the explorer's view (cu_model.h) --- */

static uint64_t job_hash(const bjob *jb, uint64_t h) {
  const atoll_kernel_timing *kt = &jb->j.kt;
  h = atoll__hmix(h, kt->blocks);
  h = atoll__hmix(h, ((uint64_t)kt->block_units << 32) | kt->demand);
  h = atoll__hmix(h, (uint64_t)kt->bt1_ns);
  if (kt->mem) /* only where memory interference is on, so other hashes stay as they were */
    h = atoll__hmix(h, kt->mem);
  h = atoll__hmix(h, ((uint64_t)jb->j.cu_lo << 32) | jb->j.cu_hi);
  for (uint32_t i = 0; jb->j.only && i < ATOLL_CUSET_WORDS; i++)
    h = atoll__hmix(h, jb->j.only->w[i]);
  h = atoll__hmix(h, ((uint64_t)jb->j.rt << 16) | ((uint64_t)jb->j.padding << 8) | jb->j.high);
  h = atoll__hmix(h, ((uint64_t)jb->placed << 32) | jb->done);
  return atoll__hmix(h, jb->started);
}

/* A wave's blocks and kernel; when it ends is its event's time, and when it started matters only to
 * a kernel that may still join it (blocks_hash adds its nominal end there). */
static uint64_t wave_hash(const blocks *b, const wave *wv, uint64_t h) {
  h = job_hash(&b->jobs[wv->job], atoll__hmix(h, wv->job));
  h = atoll__hmix(h, ((uint64_t)(wv->serial == b->jobs[wv->job].serial) << 32) | wv->n);
  for (uint32_t cu = wv->cu_lo; cu <= wv->cu_hi; cu++)
    h = atoll__hmix(h, ((uint64_t)cu << 16) | wv->count[cu]);
  return h;
}

/* What decides the future: each CU's room and demand, the waiting kernels in order (with the wave
 * each may still join), the CU cursor. Slot numbers of waves are left out (waves are hashed through
 * their events), and so is the offer rotation: with a chooser every rotation is explored, so which
 * one comes first does not change the set of futures. */
static void blocks_hash(const atoll_cu_model *m, uint64_t *hp) {
  const blocks *b = m->impl;
  uint64_t h = *hp;
  for (uint32_t cu = 0; cu < m->g->cus; cu++) {
    h = atoll__hmix(h, ((uint64_t)b->free_units[cu] << 32) | b->nblocks[cu]);
    h = atoll__hmix(h, b->demand[cu]);
  }
  h = atoll__hmix(h, b->cu_cursor);
  h = atoll__hmix(h, b->n_pending);
  for (uint32_t i = 0; i < b->n_pending; i++) {
    const bjob *jb = &b->jobs[b->pending[i]];
    h = job_hash(jb, atoll__hmix(h, b->pending[i]));
    const wave *lw = jb->last_wave >= 0 ? &b->waves[jb->last_wave] : NULL;
    bool joinable = lw && lw->gen == jb->last_wave_gen && lw->serial == jb->serial && lw->job == b->pending[i];
    h = joinable ? wave_hash(b, lw, atoll__hmix(h, (uint64_t)(lw->start_ns + lw->dur_ns))) : atoll__hmix(h, 0);
  }
  *hp = h;
}

static bool blocks_event_hash(const atoll_cu_model *m, uint64_t p, uint64_t *h) {
  const blocks *b = m->impl;
  uint32_t w = atoll_simev_id(p);
  if (w >= b->n_waves || b->waves[w].gen != atoll_simev_gen(p))
    return false; /* cancelled: handling it does nothing */
  if (h)
    *h = wave_hash(b, &b->waves[w], *h);
  return true;
}

/* --- the explorer's checkpoints (cu_model.h) ---
 * Only the first g->cus entries of the per-CU arrays are ever used, so only they are saved; a
 * wave's counts are zero outside its [cu_lo, cu_hi], which lies among them. */

typedef struct blocks_scalars {
  uint32_t n_pending, cu_cursor, rr_offer, unpadded_be_cus, n_waves;
  int32_t free_wave;
  uint64_t mem_demand;
} blocks_scalars;

/* A wave without its counts. */
typedef struct wave_head {
  uint32_t job, serial, n, gen;
  uint8_t live;
  uint16_t cu_lo, cu_hi;
  int64_t start_ns, dur_ns;
  int32_t next_free;
} wave_head;

static void blocks_save(const atoll_cu_model *m, atoll_snapbuf *sb) {
  const blocks *b = m->impl;
  uint32_t cus = m->g->cus;
  blocks_scalars k = {b->n_pending, b->cu_cursor, b->rr_offer, b->unpadded_be_cus, b->n_waves, b->free_wave, m->mem_demand};
  atoll_snapbuf_put(sb, &k, sizeof k);
  atoll_snapbuf_put(sb, b->jobs, m->max_jobs * sizeof *b->jobs);
  atoll_snapbuf_put(sb, b->pending, b->n_pending * sizeof *b->pending);
  const uint32_t *arrays[] = {b->free_units, b->demand,          b->nblocks, b->res_rt,
                              b->res_be,     b->res_unpadded_be, b->res_pad};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
    atoll_snapbuf_put(sb, arrays[i], cus * sizeof *arrays[i]);
  for (uint32_t w = 0; w < b->n_waves; w++) {
    const wave *wv = &b->waves[w];
    wave_head h = {wv->job, wv->serial, wv->n, wv->gen, wv->live, wv->cu_lo, wv->cu_hi, wv->start_ns, wv->dur_ns,
                   wv->next_free};
    atoll_snapbuf_put(sb, &h, sizeof h);
    atoll_snapbuf_put(sb, wv->count, cus * sizeof *wv->count);
  }
}

static int blocks_restore(atoll_cu_model *m, atoll_snapbuf *sb) {
  blocks *b = m->impl;
  uint32_t cus = m->g->cus;
  blocks_scalars k;
  atoll_snapbuf_get(sb, &k, sizeof k);
  if (k.n_waves > b->cap_waves) {
    wave *nw = realloc(b->waves, k.n_waves * sizeof *nw);
    if (!nw)
      return ATOLL_ENOMEM;
    /* Counts past g->cus are never touched: zero them once here, as wave_alloc does. */
    memset(nw + b->cap_waves, 0, (k.n_waves - b->cap_waves) * sizeof *nw);
    b->waves = nw, b->cap_waves = k.n_waves;
  }
  b->n_pending = k.n_pending, b->cu_cursor = k.cu_cursor, b->rr_offer = k.rr_offer;
  b->unpadded_be_cus = k.unpadded_be_cus, b->n_waves = k.n_waves, b->free_wave = k.free_wave;
  m->mem_demand = k.mem_demand;
  atoll_snapbuf_get(sb, b->jobs, m->max_jobs * sizeof *b->jobs);
  atoll_snapbuf_get(sb, b->pending, b->n_pending * sizeof *b->pending);
  uint32_t *arrays[] = {b->free_units, b->demand, b->nblocks, b->res_rt, b->res_be, b->res_unpadded_be, b->res_pad};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
    atoll_snapbuf_get(sb, arrays[i], cus * sizeof *arrays[i]);
  for (uint32_t w = 0; w < b->n_waves; w++) {
    wave *wv = &b->waves[w];
    wave_head h;
    atoll_snapbuf_get(sb, &h, sizeof h);
    wv->job = h.job, wv->serial = h.serial, wv->n = h.n, wv->gen = h.gen, wv->live = h.live;
    wv->cu_lo = h.cu_lo, wv->cu_hi = h.cu_hi, wv->start_ns = h.start_ns, wv->dur_ns = h.dur_ns;
    wv->next_free = h.next_free;
    atoll_snapbuf_get(sb, wv->count, cus * sizeof *wv->count);
  }
  return 0;
}

const atoll__cu_engine atoll__cu_blocks = {
    .create = blocks_create,
    .destroy = blocks_destroy,
    .add = blocks_add,
    .place = blocks_place,
    .kill = blocks_kill,
    .handle = blocks_handle,
    .hash = blocks_hash,
    .event_hash = blocks_event_hash,
    .save = blocks_save,
    .restore = blocks_restore,
};
