/* The rate engine of the CU model (cu_model.h): fluid's pooled CUs with events per kernel instead
 * of one per group of blocks.
 *
 * How it models the CUs: the whole GPU is one pool (register file and block slots, as fluid's one
 * zone). A kernel holds room for n resident blocks, its wave, and runs its blocks wave after wave
 * in that room: when a wave ends, its next blocks take the room it freed, so a wave's end is implied
 * and is no event. A wave lasts bt1 times the demand its blocks meet (fluid's rule: the other
 * kernels' resident demand per CU, less corun_overlap_ppm, plus its own blocks per CU rounded up, at
 * least bt1, stretched by the GPU's resident memory traffic), but where fluid fixes a group's
 * duration when it starts, here the demand is that of the moment: when the residents change, every
 * resident kernel's rate changes and the fraction of its wave still to run is kept.
 * The residents change, and freed room is offered to the waiting kernels (high-priority streams
 * first, the others in turn, as fluid), only
 *  - when a kernel arrives (atoll_cu_place),
 *  - when a kernel's last wave is smaller than its room (its last placement frees the rest),
 *  - when a kernel completes or is killed,
 *  - at the end of a kernel's wave while another kernel waits for room it could use: a kernel of a
 *    high-priority stream with blocks still to start (when this one is not high), or a kernel of
 *    its level holding no room at all. The wave's room is then given back and offered as above.
 * A kernel offered room while it already runs adds the blocks to its wave, whose progress becomes
 * the blocks' average (no work is lost or made up). Each resident kernel has a target, its next
 * milestone (last placement, completion, or a yielding wave end) at the current rates; the engine
 * keeps one event, at the earliest target: a later earliest target leaves it in place (it fires
 * early and is pushed on), an earlier one pushes a new one and the old goes stale.
 * A kernel alone runs exactly as in fluid (and blocks): the same waves of the same durations.
 * Sharing differs from fluid: room changes hands at the points above, not at every group end (a
 * kernel that runs keeps its room until then), and a running kernel's blocks slow down and speed
 * up as others come and go instead of keeping the duration they started with. docs/simulator.md
 * ("CU engines") lists the measured differences.
 * Not modelled (sim/unsupported.c refuses them before a run): CU-restricted kernels (streams bound
 * to CU sets, padded launches), which need fluid's zones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/cu_engine.h"
#include "sim/simdev.h"

enum { MAX_OFFER = 64 };

typedef struct rjob {
  atoll_cu_job j;
  uint32_t unplaced; /* blocks not yet started */
  uint32_t n;        /* resident blocks: the room it holds, its current wave */
  uint32_t cover;    /* CUs its n blocks cover (atoll__cu_cover) */
  /* Its n blocks' demand, and the part of a wave's demand they make: their blocks per CU (rounded
   * up) times a block's, set with n. */
  uint64_t own, own_term;
  uint32_t fit;      /* blocks of it one CU holds, at least 1 */
  /* Its current wave: rem ns left at the rate of a wave lasting dur ns (dur 0: a wave just placed,
   * whose duration the next retime sets), brought up to date at upd. */
  int64_t rem, dur, upd;
  int64_t start_ns;  /* its first placement, for the timeline */
  int64_t target;    /* when its next milestone (or yielding wave end) falls, at the current rates */
  int32_t slot;      /* its index in the residents list (-1: not resident) */
  uint8_t started, live;
} rjob;

typedef struct rate {
  rjob *jobs;
  uint32_t *pending[2]; /* kernels with blocks not yet started, by level, in the order they came */
  uint32_t n_pending[2], rr_offer;
  bool compact_due;
  uint32_t *resident; /* kernels holding room */
  uint32_t n_resident;
  /* The pool (fluid's one zone). */
  int64_t free_units;
  uint32_t blocks;
  uint64_t demand;
  uint32_t unpadded_be;
  uint32_t cover, cover_rt, cover_be, cover_pad;
  uint32_t busy, busy_rt, busy_be, busy_pad;
  int64_t advanced_at; /* every resident's progress is up to date at this time */
  bool fresh;          /* a wave was placed since the last retime */
  uint8_t waits;       /* who waited at the last retime (see retime) */
  /* The engine's one live event: at the earliest resident target (INT64_MAX: none pushed). A later
   * earliest target leaves it in place (it fires early and is pushed on); an earlier one pushes a new
   * event, and the old one, of an older generation, goes stale. */
  int64_t ev_at;
  uint32_t gen;
  bool dirty;          /* the residents changed since the last retime */
} rate;

static rate *R(atoll_cu_model *m) { return m->impl; }

/* Changes jb's residents in the pool by dn blocks covering dcover more CUs (both may be negative:
 * unsigned arithmetic wraps them back). One call for a whole change, since nothing reads the pool
 * in between. */
static void pool_change(atoll_cu_model *m, rate *r, const rjob *jb, uint32_t dn, uint32_t dcover) {
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint32_t cus = m->g->cus;
  r->free_units -= (int64_t)(int32_t)dn * kt->block_units;
  r->demand += (uint64_t)(int64_t)(int32_t)dn * kt->demand;
  if (kt->mem)
    m->mem_demand += (uint64_t)(int64_t)(int32_t)dn * kt->mem;
  r->blocks += dn;
  atoll__cu_busy_update(&r->cover, &r->busy, &m->busy_cus, cus, dcover);
  if (jb->j.rt) {
    atoll__cu_busy_update(&r->cover_rt, &r->busy_rt, &m->rt_cus, cus, dcover);
  } else {
    atoll__cu_busy_update(&r->cover_be, &r->busy_be, &m->be_cus, cus, dcover);
    if (jb->j.padding)
      atoll__cu_busy_update(&r->cover_pad, &r->busy_pad, &m->pad_cus, cus, dcover);
    else
      r->unpadded_be += dn;
  }
  r->dirty = true;
}

/* The duration of a wave of jb's n resident blocks at this moment: fluid's put_group rule, with the
 * other kernels' resident demand (its own blocks are the per-CU term). */
static int64_t wave_ns(const atoll_cu_model *m, const rate *r, const rjob *jb) {
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint64_t others = r->demand - jb->own;
  if (others && m->g->corun_overlap_ppm)
    others = atoll__corun_demand(m, others, 0);
  uint64_t demand = others / m->g->cus + jb->own_term;
  int64_t dur = atoll_stretch_ns(kt->bt1_ns, demand);
  if (kt->mem) /* the whole GPU's resident traffic, its own blocks included */
    dur = atoll_mem_stretch(kt, m->mem_demand, dur);
  return dur > 0 ? dur : 1;
}

/* Brings jb's progress up to `now` at its current rate: the rest of its wave, then its next waves
 * (each the same n blocks, implied), stopping at a milestone (rem 0: its last wave, if smaller than
 * its room, is due, or it is complete). */
static void advance(rjob *jb, int64_t now) {
  int64_t e = now - jb->upd;
  jb->upd = now;
  if (e < jb->rem) {
    jb->rem -= e;
    return;
  }
  e -= jb->rem;
  uint32_t full = jb->unplaced / jb->n; /* whole waves still to run after this one */
  int64_t w = e / jb->dur;
  if (full == 0 || w >= (int64_t)full) {
    jb->unplaced -= full * jb->n;
    jb->rem = 0;
    return;
  }
  jb->unplaced -= (uint32_t)(w + 1) * jb->n;
  jb->rem = jb->dur - (e - w * jb->dur);
}

/* Before the residents change: every resident's progress up to now at the rates that held. */
static void touch(rate *r, int64_t now) {
  if (r->advanced_at == now)
    return;
  for (uint32_t i = 0; i < r->n_resident; i++) {
    rjob *jb = &r->jobs[r->resident[i]];
    if (jb->dur)
      advance(jb, now);
    else
      jb->upd = now;
  }
  r->advanced_at = now;
}

static void resident_add(rate *r, uint32_t jid) {
  r->jobs[jid].slot = (int32_t)r->n_resident;
  r->resident[r->n_resident++] = jid;
}

static void resident_remove(rate *r, uint32_t jid) {
  rjob *jb = &r->jobs[jid];
  uint32_t last = r->resident[--r->n_resident];
  r->resident[jb->slot] = last;
  r->jobs[last].slot = jb->slot;
  jb->slot = -1;
}

/* Room in the pool for blocks of kt (fluid's zone_room on one zone). */
static uint32_t pool_room(const atoll_cu_model *m, const rate *r, const atoll_kernel_timing *kt, uint32_t want) {
  if (r->free_units < (int64_t)kt->block_units)
    return 0;
  uint32_t free_units = (uint32_t)r->free_units, fit;
  if ((uint64_t)want * kt->block_units <= free_units)
    fit = want;
  else
    fit = free_units / kt->block_units;
  uint32_t slots = m->g->cus * m->g->max_blocks_per_cu - r->blocks;
  return fit < slots ? fit : slots;
}

/* Changes jb's resident blocks to n (its cover and the pool's counts with them). */
static void set_resident(atoll_cu_model *m, rate *r, uint32_t jid, uint32_t n) {
  rjob *jb = &r->jobs[jid];
  uint32_t cus = m->g->cus, cover = atoll__cu_cover(cus, jb->fit, n);
  pool_change(m, r, jb, n - jb->n, cover - jb->cover);
  jb->n = n;
  jb->cover = cover;
  jb->own = (uint64_t)n * jb->j.kt.demand;
  jb->own_term = (uint64_t)(n <= cus ? 1 : (n + cus - 1) / cus) * jb->j.kt.demand;
  if (n && jb->slot < 0)
    resident_add(r, jid);
  else if (!n && jb->slot >= 0)
    resident_remove(r, jid);
}

/* Places as many of jid's unstarted blocks as fit: a new wave, or blocks added to its running wave
 * (whose progress becomes the blocks' average). */
static void place_job(atoll_cu_model *m, rate *r, uint32_t jid) {
  rjob *jb = &r->jobs[jid];
  uint32_t x = pool_room(m, r, &jb->j.kt, jb->unplaced);
  if (x == 0)
    return;
  int64_t now = m->evq->now;
  touch(r, now);
  if (jb->n && jb->dur) /* x blocks with a whole wave to go join n blocks with rem of dur to go */
    jb->rem = (int64_t)(((__int128)jb->n * jb->rem + (__int128)x * jb->dur) / (jb->n + x));
  else
    jb->dur = 0, jb->rem = 0, jb->upd = now;
  r->fresh = true;
  if (jb->j.rt && r->unpadded_be > 0)
    m->rt_beside_be++;
  m->groups++;
  jb->unplaced -= x;
  set_resident(m, r, jid, jb->n + x);
  if (!jb->started) {
    jb->started = 1;
    jb->start_ns = now;
    m->sink.started(m->sink.ctx, jid, now);
  }
  if (jb->unplaced == 0)
    r->compact_due = true;
}

/* Offers the free room to the waiting kernels: high-priority streams first, the others in turn. */
static void offer(atoll_cu_model *m, rate *r) {
  for (int level = 1; level >= 0; level--) {
    const uint32_t *who = r->pending[level];
    uint32_t n = atoll__min_u32(r->n_pending[level], MAX_OFFER);
    for (uint32_t j = 0, k = n <= 1 ? 0 : r->rr_offer % n; j < n; j++, k = k + 1 == n ? 0 : k + 1)
      place_job(m, r, who[k]);
  }
  r->rr_offer++;
}

/* Drops from the pending lists the kernels with nothing left to start (their waves started, or
 * started implicitly as their earlier waves ended). */
static void compact(rate *r) {
  for (int level = 0; level < 2; level++) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r->n_pending[level]; i++) {
      const rjob *jb = &r->jobs[r->pending[level][i]];
      if (jb->live && jb->unplaced > 0)
        r->pending[level][kept++] = r->pending[level][i];
    }
    r->n_pending[level] = kept;
  }
  r->compact_due = false;
}

static void push_event(atoll_cu_model *m, rate *r, int64_t at) {
  r->gen = (r->gen + 1) & 0xFFFFFF;
  r->ev_at = at;
  atoll__cu_schedule(m, at, atoll_simev(ATOLL_SIMEV_WAVE_END, r->gen, 0));
}

/* When jb's event should fire: its next milestone, or its wave's end while a high-priority kernel
 * waits and jb is not one. */
static int64_t target_of(const rjob *jb, bool wait) {
  if (wait)
    return jb->upd + jb->rem;
  return jb->upd + jb->rem + (int64_t)(jb->unplaced / jb->n) * jb->dur;
}

/* After the residents changed: every resident's wave duration at the new rates (the fraction of its
 * wave still to run is kept), and its event moved where it falls earlier. */
/* rem * nd / dur, rounded, in 64 bits unless the product needs more. */
static int64_t scale(int64_t rem, int64_t nd, int64_t dur) {
  int64_t prod;
  if (__builtin_mul_overflow(rem, nd, &prod))
    return (int64_t)(((__int128)rem * nd + dur / 2) / dur);
  return (prod + dur / 2) / dur;
}

static void retime(atoll_cu_model *m, rate *r) {
  if (r->compact_due)
    compact(r);
  /* Who waits for room a wave's end could give: a high-priority kernel with blocks still to start
   * (for the other kernels' waves), or a kernel holding no room (for its own level's waves). */
  bool high_wants = false, starved[2] = {false, false};
  for (int level = 0; level < 2; level++)
    for (uint32_t i = 0; i < r->n_pending[level]; i++) {
      const rjob *o = &r->jobs[r->pending[level][i]];
      if (!o->live || o->unplaced == 0)
        continue;
      high_wants |= level == 1;
      starved[level] |= o->n == 0;
    }
  /* Nothing that sets a target changed (an arrival that found no room, beside others waiting
   * already): the targets and the event stand. */
  uint8_t waits = (uint8_t)(high_wants | starved[0] << 1 | starved[1] << 2);
  if (!r->dirty && !r->fresh && waits == r->waits)
    return;
  r->waits = waits;
  r->fresh = false;
  /* Progress up to date first: a target may be a wave's end, which implied ends have moved on. */
  touch(r, m->evq->now);
  int64_t next = INT64_MAX;
  for (uint32_t i = 0; i < r->n_resident; i++) {
    rjob *jb = &r->jobs[r->resident[i]];
    if (r->dirty || !jb->dur) {
      int64_t nd = wave_ns(m, r, jb);
      if (!jb->dur) {
        jb->rem = nd;
      } else if (nd != jb->dur) {
        int64_t rem = scale(jb->rem, nd, jb->dur);
        jb->rem = rem > 0 || jb->rem == 0 ? rem : 1; /* a wave not ended stays unended */
      }
      jb->dur = nd;
    }
    /* jb holds room, so it is not the starved kernel of its level. */
    jb->target = target_of(jb, (high_wants && !jb->j.high) || starved[jb->j.high != 0]);
    if (jb->target < next)
      next = jb->target;
  }
  r->dirty = false;
  if (next < r->ev_at)
    push_event(m, r, next);
}

static void trace_kernel(atoll_cu_model *m, const rjob *jb, uint32_t jid, int64_t now) {
  char args[80];
  snprintf(args, sizeof args, "\"blocks\":%u,\"stream\":%u,\"cus\":\"0-%u (rate)\"", jb->j.kt.blocks, jid,
           m->g->cus - 1);
  for (uint32_t grp = 0; grp < ATOLL__CU_GROUP_TRACKS; grp++) {
    uint32_t per = (m->g->cus + ATOLL__CU_GROUP_TRACKS - 1) / ATOLL__CU_GROUP_TRACKS;
    if (grp * per >= m->g->cus)
      break;
    atoll_trace_span(m->trace, ATOLL_TRACK_CU, grp, m->sink.name(m->sink.ctx, jid), jb->j.rt ? "rt" : "be",
                     jb->start_ns, now - jb->start_ns, args);
  }
}

static void rate_handle(atoll_cu_model *m, uint64_t p, int64_t now) {
  rate *r = R(m);
  if (atoll_simev_gen(p) != r->gen)
    return; /* stale */
  r->ev_at = INT64_MAX;
  /* The resident whose target is due (the first in the list when several are: retime then pushes
   * the engine's event again at the same time, for the next). */
  uint32_t jid = UINT32_MAX;
  int64_t first = INT64_MAX;
  for (uint32_t i = 0; i < r->n_resident; i++)
    if (r->jobs[r->resident[i]].target < first)
      first = r->jobs[r->resident[i]].target, jid = r->resident[i];
  if (first > now) { /* the targets moved on since the event was pushed */
    if (first < INT64_MAX)
      push_event(m, r, first);
    return;
  }
  rjob *jb = &r->jobs[jid];
  atoll__cu_account(m, now);
  touch(r, now);
  /* Its milestone, or the end of a wave a waiting kernel may use (its next wave starts now). */
  bool milestone = jb->rem == 0, yield = !milestone && jb->rem == jb->dur;
  assert((milestone || yield) && "a resident's target is its milestone or a wave's end");
  if (yield) {
    /* The wave that starts now gives its room back: its blocks wait with the other kernels'. */
    jb->unplaced += jb->n;
    set_resident(m, r, jid, 0);
  } else if (jb->unplaced > 0) {
    /* Its last wave is smaller than its room: the rest is freed. */
    uint32_t last = jb->unplaced;
    jb->unplaced = 0;
    jb->dur = 0;
    set_resident(m, r, jid, last);
    r->compact_due = true;
  } else {
    set_resident(m, r, jid, 0);
    jb->live = 0;
    /* Its waves may have used up its blocks without an event: its pending entry goes now, before
     * the stream's next kernel comes with the same id. */
    r->compact_due = true;
    if (m->trace)
      trace_kernel(m, jb, jid, now);
    m->sink.done(m->sink.ctx, jid, now);
  }
  offer(m, r);
  retime(m, r);
}

static void rate_add(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j) {
  rate *r = R(m);
  if (j->cu_lo > 0 || j->cu_hi < m->g->cus || j->only) {
    /* sim/unsupported.c refuses the scenarios that make these before a run starts. */
    fprintf(stderr, "atoll: the rate CU engine does not model CU-restricted kernels (bound streams, padded "
                    "launches); run with sim.engine=fluid\n");
    abort();
  }
  rjob *jb = &r->jobs[job];
  *jb = (rjob){.j = *j, .unplaced = j->kt.blocks, .fit = atoll__cu_fit(m, &j->kt), .slot = -1, .live = 1};
  uint32_t level = j->high != 0;
#ifndef NDEBUG
  for (int l = 0; l < 2; l++)
    for (uint32_t i = 0; i < r->n_pending[l]; i++)
      assert(r->pending[l][i] != job && "a kernel added while its id is still pending");
#endif
  r->pending[level][r->n_pending[level]++] = job;
  if (j->kt.blocks == 0)
    r->compact_due = true;
}

static void rate_place(atoll_cu_model *m) {
  rate *r = R(m);
  atoll__cu_account(m, m->evq->now);
  offer(m, r);
  retime(m, r);
}

static void rate_kill(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx) {
  rate *r = R(m);
  int64_t now = m->evq->now;
  atoll__cu_account(m, now);
  touch(r, now);
  for (uint32_t i = r->n_resident; i-- > 0;) {
    uint32_t jid = r->resident[i];
    if (!victim(ctx, jid))
      continue;
    set_resident(m, r, jid, 0);
    r->jobs[jid].live = 0;
  }
  for (int level = 0; level < 2; level++)
    for (uint32_t i = 0; i < r->n_pending[level]; i++)
      if (victim(ctx, r->pending[level][i])) {
        r->jobs[r->pending[level][i]].live = 0;
        r->compact_due = true;
      }
  retime(m, r);
}

static int rate_create(atoll_cu_model *m) {
  rate *r = calloc(1, sizeof *r);
  if (!r)
    return ATOLL_ENOMEM;
  m->impl = r;
  r->jobs = calloc(m->max_jobs, sizeof *r->jobs);
  r->pending[0] = calloc(m->max_jobs, sizeof *r->pending[0]);
  r->pending[1] = calloc(m->max_jobs, sizeof *r->pending[1]);
  r->resident = calloc(m->max_jobs, sizeof *r->resident);
  if (!r->jobs || !r->pending[0] || !r->pending[1] || !r->resident)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < m->max_jobs; i++)
    r->jobs[i].slot = -1;
  r->free_units = (int64_t)m->g->cus * m->g->registers_per_cu;
  r->advanced_at = -1;
  r->ev_at = INT64_MAX;
  return 0;
}

static void rate_destroy(atoll_cu_model *m) {
  rate *r = R(m);
  if (!r)
    return;
  free(r->jobs);
  free(r->pending[0]);
  free(r->pending[1]);
  free(r->resident);
  free(r);
}

const atoll__cu_engine atoll__cu_rate = {
    .create = rate_create,
    .destroy = rate_destroy,
    .add = rate_add,
    .place = rate_place,
    .kill = rate_kill,
    .handle = rate_handle,
};
