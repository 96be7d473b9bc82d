/* The fluid engine of the CU model (cu_model.h): the blocks engine's rules on pooled CUs.
 *
 * How it models the CUs: the GPU is cut into zones, contiguous CU ranges that every job either
 * covers entirely or not at all: the whole GPU, or the ranges of a padded launch (its RT part and
 * each BE part keep to CUs of their own). Within a zone the CUs are pooled: the zone knows how
 * much register file and how many block slots are free, how many blocks are resident and their
 * total demand, but not on which CU. So
 *  - a kernel takes what fits in the pooled room (the blocks engine's two passes: at most
 *    ceil(remaining / CUs) blocks per CU of a zone, then whatever room is left), and the blocks it
 *    places in a zone at one instant are one group with one end;
 *  - their duration is bt1 times the demand they meet: the zone's resident demand per CU plus
 *    their own blocks per CU (rounded up, as the blocks engine's spreading stacks them), at least
 *    bt1, fixed when they start;
 *  - a group joins the kernel's latest group in the zone when its end lies within 1/16 of its
 *    duration of that group's first end (blocks' waves use 1/64), and the joined group ends with
 *    its latest blocks (no block ends early; none is held more than 1/8 of its duration);
 *  - a zone's busy CUs are those its groups cover (each placement of n blocks covers the CUs
 *    blocks would deal them out over), at most all of them;
 *  - ending groups free room that is offered to the waiting kernels exactly as in blocks: high-
 *    priority streams first, the others in turn.
 * A kernel alone on an idle GPU therefore runs exactly as in blocks (its waves are spread evenly,
 * and each wave's blocks end together), so calibration is the same. Sharing differs: room freed
 * anywhere is usable by any block (blocks needs it on one CU), and blocks meet the zone's average
 * demand where blocks gives each CU its own (so there a kernel ends with its most loaded CU).
 * docs/simulator.md ("CU engines") lists the measured differences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/cu_engine.h"
#include "sim/simdev.h"

/* Zones are non-empty CU ranges cut at the edges of padded parts and of bound streams' sets: bound
 * sets lie within a CU set's 256 CUs, and padding (whose parts take at most 40 zones) never meets a
 * bound stream (docs/partitions.md). */
enum { MAX_ZONES = ATOLL_CUSET_MAX + 1, MAX_OFFER = 64 };
/* Blocks of a kernel whose ends lie within 1/MERGE_DIV of their duration of its latest group's end
 * join that group: coarser than blocks' 1/64 (a group here stands for many CUs' waves), a quarter of
 * the events on DISB C under streams for a shift in results well inside the engines' difference. */
enum { MERGE_DIV = 16 };

typedef struct zone {
  uint16_t lo, hi; /* CUs [lo, hi) */
  uint32_t cus;
  int64_t free_units; /* register-file units free in the zone */
  uint32_t blocks;    /* resident blocks */
  uint64_t demand;    /* their total demand, ATOLL_DEMAND_ONE units */
  uint32_t unpadded_be;                      /* unpadded BE blocks resident */
  uint32_t cover, cover_rt, cover_be, cover_pad; /* CUs its groups cover, summed (see cover_of) */
  uint32_t busy, busy_rt, busy_be, busy_pad; /* this zone's share of the busy-CU counts */
  uint32_t slots; /* block slots of its CUs (cus times the GPU's blocks per CU): set with cus, read per offer */
} zone;

typedef struct fjob {
  atoll_cu_job j;
  uint32_t placed, done;
  /* Blocks of it one CU holds (register file and block slots), at least 1: fixed per kernel, so
   * cover_of takes it from here instead of dividing for every group. */
  uint32_t fit;
  uint64_t res_demand; /* demand of its resident blocks, all zones (atoll__corun_demand's own) */
  int32_t last; /* the job's latest group, for merging (-1 none) */
  uint32_t last_gen;
  uint8_t started, live;
  /* It keeps to part of the GPU (restricted below): fixed per kernel, so its end asks once here
   * instead of comparing its range and set again. */
  uint8_t restricted;
} fjob;

/* A job's zones while the zones are those of generation zgen (fluid.zone_gen): [zlo, zhi), holding
 * `eligible` CUs. Zones are cut at the ends of its range, so those inside it are consecutive; a
 * kernel bound to a CU set (j.only) asks each zone instead. Kept apart from fjob, which the
 * one-zone path reads at every event, because only a GPU cut into zones needs it. */
typedef struct job_zones {
  uint64_t zgen;
  uint32_t eligible;
  uint16_t zlo, zhi;
} job_zones;

typedef struct group {
  uint32_t job, n, gen, zone;
  uint32_t cover; /* CUs its blocks cover (summed over the placements merged into it) */
  uint8_t live;
  int64_t start_ns, end_ns;
  int64_t first_end_ns; /* the end of its first blocks: what later blocks are compared with */
  int32_t next_free;
} group;

typedef struct fluid {
  fjob *jobs;
  job_zones *jzones; /* per job */
  /* Kernels with blocks still to place, by level ([1]: high-priority streams, [0]: the others),
   * each in the order they came: offer walks them as they stand, with no sorting per offer. */
  uint32_t *pending[2];
  uint32_t n_pending[2], rr_offer;
  bool compact_due; /* a pending kernel has no blocks left to place: offer drops it */
  zone zones[MAX_ZONES];
  uint32_t n_zones;
  uint64_t zone_gen; /* counts the changes of the zones' layout, from 1 (a job's zgen 0 is stale) */
  /* One bit per CU edge 0..cus: the boundaries zones_coalesce must keep (cus / 64 + 1 words). */
  uint64_t *edges;
  uint32_t unpadded_be; /* unpadded BE blocks resident anywhere */
  group *groups;
  uint32_t n_groups, cap_groups;
  int32_t free_group;
} fluid;

static fluid *F(atoll_cu_model *m) { return m->impl; }

/* Takes zone z's share out of the busy-CU counts (before the zone changes shape). */
static void zone_forget(atoll_cu_model *m, zone *z) {
  m->busy_cus -= z->busy, m->rt_cus -= z->busy_rt, m->be_cus -= z->busy_be, m->pad_cus -= z->busy_pad;
  z->busy = z->busy_rt = z->busy_be = z->busy_pad = 0;
}

/* How many of a zone's CUs n blocks of kt placed at once cover: blocks deals at most
 * ceil(n / CUs) to a CU, as many as fit, so they cover ceil(n / that) CUs (70 blocks on 60 CUs
 * cover 35). */
static uint32_t cover_of(const zone *z, const fjob *jb, uint32_t n) { return atoll__cu_cover(z->cus, jb->fit, n); }

/* Adds (sign +1) or removes (-1) n blocks of job jb covering `cover` CUs to zone z's residents
 * and updates the busy counts: a zone's busy CUs are those its groups cover, at most all of them.
 * (Each field is read and written once: this runs twice for every group, inline at both hot
 * sites.) */
static inline void zone_residents(atoll_cu_model *m, fluid *f, zone *z, const fjob *jb, uint32_t n,
                                  uint32_t cover, int sign) {
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint32_t delta = sign > 0 ? n : (uint32_t)-n, cdelta = sign > 0 ? cover : (uint32_t)-cover, cus = z->cus;
  z->free_units -= sign * (int64_t)n * kt->block_units;
  z->demand += sign > 0 ? (uint64_t)n * kt->demand : -(uint64_t)n * kt->demand;
  if (kt->mem)
    m->mem_demand += sign > 0 ? (uint64_t)n * kt->mem : -(uint64_t)n * kt->mem;
  z->blocks += delta;
  atoll__cu_busy_update(&z->cover, &z->busy, &m->busy_cus, cus, cdelta);
  if (jb->j.rt) {
    atoll__cu_busy_update(&z->cover_rt, &z->busy_rt, &m->rt_cus, cus, cdelta);
  } else {
    atoll__cu_busy_update(&z->cover_be, &z->busy_be, &m->be_cus, cus, cdelta);
    if (jb->j.padding) {
      atoll__cu_busy_update(&z->cover_pad, &z->busy_pad, &m->pad_cus, cus, cdelta);
    } else {
      z->unpadded_be += delta;
      f->unpadded_be += delta;
    }
  }
}

static int32_t group_alloc(fluid *f) {
  if (f->free_group >= 0) {
    int32_t g = f->free_group;
    f->free_group = f->groups[g].next_free;
    return g;
  }
  if (f->n_groups == f->cap_groups) {
    uint32_t cap = f->cap_groups ? f->cap_groups * 2 : 64;
    group *ng = realloc(f->groups, cap * sizeof *ng);
    assert(ng && "group pool allocation failed");
    f->groups = ng;
    f->cap_groups = cap;
  }
  f->groups[f->n_groups].gen = 0;
  return (int32_t)f->n_groups++;
}

static void group_release(fluid *f, uint32_t g) {
  group *gr = &f->groups[g];
  gr->live = 0;
  gr->gen = (gr->gen + 1) & 0xFFFFFF; /* its pending end event becomes stale */
  gr->next_free = f->free_group;
  f->free_group = (int32_t)g;
}

/* Blocks of kt that zone z has room for: register file and block slots, pooled. */
static uint32_t zone_room(const zone *z, const atoll_kernel_timing *kt, uint32_t want) {
  if (z->free_units < (int64_t)kt->block_units)
    return 0;
  /* Register-file units of a zone fit in 32 bits (at most 256 CUs of 65536 units). */
  uint32_t free_units = (uint32_t)z->free_units, fit;
  if ((uint64_t)want * kt->block_units <= free_units)
    fit = want; /* the common case needs no division */
  else
    fit = free_units / kt->block_units;
  uint32_t slots = z->slots - z->blocks;
  return fit < slots ? fit : slots;
}

/* Job jid's resident demand in zone zi: all of it when the GPU is one zone, else its groups there. */
static uint64_t own_demand(const fluid *f, uint32_t jid, uint32_t zi) {
  const fjob *jb = &f->jobs[jid];
  if (f->n_zones == 1 || jb->res_demand == 0)
    return jb->res_demand;
  uint64_t own = 0;
  for (uint32_t g = 0; g < f->n_groups; g++)
    if (f->groups[g].live && f->groups[g].job == jid && f->groups[g].zone == zi)
      own += (uint64_t)f->groups[g].n * jb->j.kt.demand;
  return own;
}

/* Puts n blocks of job jid into zone zi as one group (or into its latest group there, when they
 * end within tolerance of it). */
static inline __attribute__((always_inline)) void put_group(atoll_cu_model *m, fluid *f, uint32_t jid, uint32_t zi,
                                                            uint32_t n) {
  fjob *jb = &f->jobs[jid];
  zone *z = &f->zones[zi];
  const atoll_kernel_timing *kt = &jb->j.kt;
  int64_t now = m->evq->now;
  /* The demand the blocks meet: the residents' per CU on average, plus their own per CU, rounded
   * up as blocks deals them out (so a kernel alone meets exactly what it meets in blocks). */
  uint64_t per_cu = n <= z->cus ? 1 : (n + z->cus - 1) / z->cus;
  uint64_t resident = z->demand;
  if (resident && m->g->corun_overlap_ppm)
    resident = atoll__corun_demand(m, resident, own_demand(f, jid, zi));
  uint64_t demand = (resident ? resident / z->cus : 0) + per_cu * kt->demand;
  int64_t dur = atoll_stretch_ns(kt->bt1_ns, demand);
  if (kt->mem) /* memory interference: the whole GPU's resident traffic, these blocks' included */
    dur = atoll_mem_stretch(kt, m->mem_demand + (uint64_t)n * kt->mem, dur);
  int64_t end = now + dur, tolerance = dur / MERGE_DIV;
  int32_t g = -1;
  if (jb->last >= 0) {
    group *lg = &f->groups[jb->last];
    if (lg->gen == jb->last_gen && lg->live && lg->zone == zi && lg->end_ns > now &&
        lg->first_end_ns >= end - tolerance && lg->first_end_ns <= end + tolerance) {
      /* No block ends before its time: the group ends with its latest blocks (its event, already
       * scheduled, is moved on when it fires). Comparing with its first blocks' end keeps every
       * block within twice the tolerance of its own end. */
      g = jb->last;
      if (end > lg->end_ns)
        lg->end_ns = end;
    }
  }
  if (g < 0) {
    g = group_alloc(f);
    group *ng = &f->groups[g];
    ng->job = jid, ng->n = 0, ng->cover = 0, ng->zone = zi, ng->live = 1, ng->start_ns = now, ng->end_ns = ng->first_end_ns = end;
    jb->last = g, jb->last_gen = ng->gen;
    atoll__cu_schedule(m, end, atoll_simev(ATOLL_SIMEV_WAVE_END, ng->gen, (uint32_t)g));
    m->groups++;
  }
  if (jb->j.rt && f->unpadded_be > 0)
    m->rt_beside_be++;
  /* cover_of, with the blocks per CU already worked out above. */
  uint32_t cover = n;
  if (n > z->cus) {
    uint32_t dealt = atoll__min_u32((uint32_t)per_cu, jb->fit);
    cover = atoll__min_u32(z->cus, (n + dealt - 1) / dealt);
  }
  f->groups[g].n += n;
  f->groups[g].cover += cover;
  jb->res_demand += (uint64_t)n * kt->demand;
  zone_residents(m, f, z, jb, n, cover, +1);
  jb->placed += n;
}

/* Zones are cut at every edge of a job's range and of its set's runs, so a zone inside the range is
 * either all in the set or all out of it: its first CU tells. */
static bool zone_in(const zone *z, const fjob *jb) {
  return z->lo >= jb->j.cu_lo && z->hi <= jb->j.cu_hi && (!jb->j.only || atoll_cuset_has(jb->j.only, z->lo));
}

/* Whether CU x is an edge of job j's CUs: an end of its range, or where its set starts or stops. */
static bool edge_of(const atoll_cu_job *j, uint32_t x) {
  if (j->cu_lo == x || j->cu_hi == x)
    return true;
  return j->only && x > 0 && atoll_cuset_has(j->only, x) != atoll_cuset_has(j->only, x - 1);
}

static void place_zones(atoll_cu_model *m, fluid *f, uint32_t jid, uint32_t remaining);

/* Places as many of job jid's remaining blocks as fit, spread as blocks spreads them: a first pass
 * gives each zone at most ceil(remaining / CUs) blocks per CU, a second fills what room is left. */
static void place_job(atoll_cu_model *m, fluid *f, uint32_t jid) {
  fjob *jb = &f->jobs[jid];
  const atoll_kernel_timing *kt = &jb->j.kt;
  uint32_t remaining = kt->blocks - jb->placed;
  if (f->n_zones == 1) {
    /* One zone: the two passes take min(room, remaining) between them. */
    uint32_t n = zone_room(&f->zones[0], kt, remaining);
    if (n == 0)
      return;
    put_group(m, f, jid, 0, n);
  } else {
    place_zones(m, f, jid, remaining);
  }
  if (!jb->started && jb->placed > 0) {
    jb->started = 1;
    m->sink.started(m->sink.ctx, jid, m->evq->now);
  }
  if (jb->placed == kt->blocks)
    f->compact_due = true;
}

/* Job jid's zones in the current layout. */
static const job_zones *zones_of(const atoll_cu_model *m, const fluid *f, uint32_t jid) {
  job_zones *jz = &f->jzones[jid];
  if (jz->zgen == f->zone_gen)
    return jz;
  const fjob *jb = &f->jobs[jid];
  jz->zgen = f->zone_gen;
  if (!jb->restricted) {
    jz->zlo = 0, jz->zhi = (uint16_t)f->n_zones, jz->eligible = m->g->cus; /* the zones cover the GPU */
    return jz;
  }
  uint32_t lo = f->n_zones, hi = 0;
  jz->eligible = 0;
  for (uint32_t zi = 0; zi < f->n_zones; zi++)
    if (zone_in(&f->zones[zi], jb)) {
      jz->eligible += f->zones[zi].cus;
      lo = zi < lo ? zi : lo, hi = zi + 1;
    }
  jz->zlo = (uint16_t)(lo < hi ? lo : 0), jz->zhi = (uint16_t)hi;
  return jz;
}

static void place_zones(atoll_cu_model *m, fluid *f, uint32_t jid, uint32_t remaining) {
  fjob *jb = &f->jobs[jid];
  const atoll_kernel_timing *kt = &jb->j.kt;
  if (remaining == 0)
    return;
  const job_zones *jz = zones_of(m, f, jid);
  if (jz->eligible == 0)
    return;
  /* Between zlo and zhi every zone is the job's, unless a CU set leaves some out. */
  uint32_t take[MAX_ZONES], room[MAX_ZONES], lo = jz->zlo, hi = jz->zhi;
  bool ask = jb->j.only != NULL;
  uint32_t share = (remaining + jz->eligible - 1) / jz->eligible, placed = 0;
  for (uint32_t zi = lo; zi < hi; zi++) {
    const zone *z = &f->zones[zi];
    take[zi] = room[zi] = 0;
    if (placed == remaining || (ask && !zone_in(z, jb)))
      continue;
    room[zi] = zone_room(z, kt, UINT32_MAX); /* nothing is put before the passes end */
    uint32_t n = atoll__min_u32((uint64_t)share * z->cus < room[zi] ? share * z->cus : room[zi], remaining - placed);
    take[zi] = n, placed += n;
  }
  /* A zone with room takes at least one block in the first pass: none took any, none has room. */
  if (placed == 0)
    return;
  for (uint32_t zi = lo; zi < hi && placed < remaining; zi++) {
    uint32_t n = atoll__min_u32(room[zi] - take[zi], remaining - placed);
    take[zi] += n, placed += n;
  }
  for (uint32_t zi = lo; zi < hi; zi++)
    if (take[zi])
      put_group(m, f, jid, zi, take[zi]);
}

/* Offers the free room to the waiting kernels: high-priority streams first, the others in turn,
 * one rotation step per offer (blocks' place_blocks, with the room pooled). */
static void offer_walk(atoll_cu_model *m, fluid *f) {
  /* Placing blocks never adds or drops pending kernels (the started callback only records), so the
   * lists can be walked in place. */
  for (int level = 1; level >= 0; level--) {
    const uint32_t *who = f->pending[level];
    uint32_t n = atoll__min_u32(f->n_pending[level], MAX_OFFER);
    if (n == 0)
      continue;
    /* One call site, so that place_job is inlined: most calls find no room and return at once. */
    for (uint32_t j = 0, k = n == 1 ? 0 : f->rr_offer % n; j < n; j++, k = k + 1 == n ? 0 : k + 1)
      place_job(m, f, who[k]);
  }
  f->rr_offer++;
  if (!f->compact_due)
    return;
  f->compact_due = false;
  for (int level = 0; level < 2; level++) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < f->n_pending[level]; i++) {
      const fjob *jb = &f->jobs[f->pending[level][i]];
      if (jb->placed < jb->j.kt.blocks)
        f->pending[level][kept++] = f->pending[level][i];
    }
    f->n_pending[level] = kept;
  }
}

/* offer_walk, with its common no-op inline: when no kernel waits and none is to be dropped (DISB C
 * under streams: one offer in six), the walk would only step the rotation. */
static inline void offer(atoll_cu_model *m, fluid *f) {
  if ((f->n_pending[0] | f->n_pending[1]) == 0 && !f->compact_due) {
    f->rr_offer++;
    return;
  }
  offer_walk(m, f);
}

/* --- zones --- */

/* Recomputes the residents of every zone from the live groups, after zones changed shape. */
static void zones_recount(atoll_cu_model *m, fluid *f) {
  m->mem_demand = 0; /* rebuilt with the residents below */
  for (uint32_t zi = 0; zi < f->n_zones; zi++) {
    zone *z = &f->zones[zi];
    zone_forget(m, z);
    z->free_units = (int64_t)z->cus * m->g->registers_per_cu;
    z->blocks = 0, z->demand = 0, z->unpadded_be = 0;
    z->cover = z->cover_rt = z->cover_be = z->cover_pad = 0;
  }
  f->unpadded_be = 0;
  for (uint32_t g = 0; g < f->n_groups; g++) {
    group *gr = &f->groups[g];
    if (!gr->live)
      continue;
    zone *z = &f->zones[gr->zone];
    const fjob *jb = &f->jobs[gr->job];
    gr->cover = cover_of(z, jb, gr->n);
    zone_residents(m, f, z, jb, gr->n, gr->cover, +1);
  }
}

/* Cuts the zone holding CU x in two at x (nothing when x is already a boundary). The zone's groups
 * are spread over its CUs, so each is divided in proportion to the CUs on either side; a group
 * with blocks on both sides becomes two, ending together. */
static void zone_split(atoll_cu_model *m, fluid *f, uint32_t x) {
  uint32_t zi = 0;
  while (zi < f->n_zones && !(f->zones[zi].lo < x && x < f->zones[zi].hi))
    zi++;
  if (zi == f->n_zones)
    return;
  assert(f->n_zones < MAX_ZONES && "more CU zones than padded launches and CU sets make");
  memmove(&f->zones[zi + 2], &f->zones[zi + 1], (f->n_zones - zi - 1) * sizeof *f->zones);
  f->n_zones++;
  f->zone_gen++;
  zone *left = &f->zones[zi], *right = &f->zones[zi + 1];
  *right = (zone){.lo = (uint16_t)x, .hi = left->hi, .cus = left->hi - x};
  left->hi = (uint16_t)x, left->cus = x - left->lo;
  left->slots = left->cus * m->g->max_blocks_per_cu, right->slots = right->cus * m->g->max_blocks_per_cu;
  uint32_t total = left->cus + right->cus, n_groups = f->n_groups;
  /* The zones right of the cut move up one first: a twin made below may take a freed slot the
   * same walk would reach later, and must not be moved again (it would then name a zone past the
   * cut's right half, or past the last zone). */
  for (uint32_t g = 0; g < n_groups; g++)
    if (f->groups[g].live && f->groups[g].zone > zi)
      f->groups[g].zone++;
  for (uint32_t g = 0; g < n_groups; g++) {
    group *gr = &f->groups[g];
    if (!gr->live || gr->zone != zi)
      continue;
    uint32_t on_right = (uint32_t)(((uint64_t)gr->n * right->cus + total / 2) / total);
    if (on_right == 0)
      continue;
    if (on_right == gr->n) {
      gr->zone = zi + 1;
      continue;
    }
    gr->n -= on_right;
    int32_t ng = group_alloc(f);
    gr = &f->groups[g]; /* the pool may have moved */
    group *twin = &f->groups[ng];
    twin->job = gr->job, twin->n = on_right, twin->zone = zi + 1, twin->live = 1;
    twin->start_ns = gr->start_ns, twin->end_ns = gr->end_ns, twin->first_end_ns = gr->first_end_ns;
    atoll__cu_schedule(m, gr->end_ns, atoll_simev(ATOLL_SIMEV_WAVE_END, twin->gen, (uint32_t)ng));
  }
  zones_recount(m, f);
}

/* Marks in `needed` (one bit per CU edge, 0..cus) the zone boundaries that job j needs: the ends of
 * its range, and for a CU set the boundaries where the set starts or stops (edge_of). */
static void mark_edges(const fluid *f, const atoll_cu_job *j, uint64_t *needed) {
  needed[j->cu_lo / 64] |= UINT64_C(1) << (j->cu_lo % 64);
  needed[j->cu_hi / 64] |= UINT64_C(1) << (j->cu_hi % 64);
  if (!j->only)
    return;
  for (uint32_t zi = 0; zi + 1 < f->n_zones; zi++) {
    uint32_t x = f->zones[zi].hi;
    if (edge_of(j, x))
      needed[x / 64] |= UINT64_C(1) << (x % 64);
  }
}

/* Joins neighbouring zones whose boundary no live job needs any more: the boundaries that pending
 * kernels and live groups need are marked once, then the zones are joined in one walk. */
static void zones_coalesce(atoll_cu_model *m, fluid *f) {
  for (uint32_t zi = 0; zi < f->n_zones; zi++)
    zone_forget(m, &f->zones[zi]); /* the counts are rebuilt below */
  uint64_t *needed = f->edges;
  memset(needed, 0, (m->g->cus / 64 + 1) * sizeof *needed);
  for (int level = 0; level < 2; level++)
    for (uint32_t i = 0; i < f->n_pending[level]; i++)
      mark_edges(f, &f->jobs[f->pending[level][i]].j, needed);
  for (uint32_t g = 0; g < f->n_groups; g++)
    if (f->groups[g].live)
      mark_edges(f, &f->jobs[f->groups[g].job].j, needed);
  uint32_t kept = 1, to[MAX_ZONES];
  to[0] = 0;
  for (uint32_t zi = 1; zi < f->n_zones; zi++) {
    uint32_t x = f->zones[zi].lo;
    if (needed[x / 64] >> (x % 64) & 1) {
      f->zones[kept++] = f->zones[zi];
    } else {
      zone *left = &f->zones[kept - 1];
      left->hi = f->zones[zi].hi;
      left->cus += f->zones[zi].cus;
      left->slots = left->cus * m->g->max_blocks_per_cu;
    }
    to[zi] = kept - 1;
  }
  if (kept < f->n_zones) {
    f->n_zones = kept;
    f->zone_gen++;
    for (uint32_t g = 0; g < f->n_groups; g++)
      if (f->groups[g].live)
        f->groups[g].zone = to[f->groups[g].zone];
  }
  zones_recount(m, f);
}

static bool restricted(const atoll_cu_model *m, const fjob *jb) {
  return jb->j.cu_lo > 0 || jb->j.cu_hi < m->g->cus || jb->j.only;
}

/* --- events and interface --- */

static void on_group_end(atoll_cu_model *m, fluid *f, uint32_t g, uint32_t gen, int64_t now) {
  group *gr = &f->groups[g];
  if (gr->gen != gen)
    return; /* cancelled */
  if (gr->end_ns > now) { /* merged blocks moved its end */
    atoll__cu_schedule(m, gr->end_ns, atoll_simev(ATOLL_SIMEV_WAVE_END, gr->gen, g));
    return;
  }
  atoll__cu_account(m, now);
  uint32_t jid = gr->job;
  fjob *jb = &f->jobs[jid];
  zone *z = &f->zones[gr->zone];
  zone_residents(m, f, z, jb, gr->n, gr->cover, -1);
  jb->res_demand -= (uint64_t)gr->n * jb->j.kt.demand;
  if (m->trace) {
    char args[80];
    snprintf(args, sizeof args, "\"blocks\":%u,\"stream\":%u,\"cus\":\"%u-%u (pooled)\"", gr->n, jid, z->lo,
             z->hi - 1);
    uint32_t per = (m->g->cus + ATOLL__CU_GROUP_TRACKS - 1) / ATOLL__CU_GROUP_TRACKS;
    for (uint32_t grp = z->lo / per; grp <= (uint32_t)(z->hi - 1) / per; grp++)
      atoll_trace_span(m->trace, ATOLL_TRACK_CU, grp, m->sink.name(m->sink.ctx, jid), jb->j.rt ? "rt" : "be",
                       gr->start_ns, now - gr->start_ns, args);
  }
  jb->done += gr->n;
  group_release(f, g);
  if (jb->done == jb->j.kt.blocks) {
    jb->live = 0;
    m->sink.done(m->sink.ctx, jid, now);
    if (jb->restricted)
      zones_coalesce(m, f);
  }
  offer(m, f);
}

static void fluid_add(atoll_cu_model *m, uint32_t job, const atoll_cu_job *j) {
  fluid *f = F(m);
  fjob *jb = &f->jobs[job];
  jb->j = *j;
  jb->placed = jb->done = 0;
  jb->res_demand = 0;
  jb->started = 0;
  jb->live = 1;
  jb->last = -1;
  f->jzones[job].zgen = 0;
  jb->fit = atoll__cu_fit(m, &j->kt);
  jb->restricted = restricted(m, jb);
  if (jb->restricted) {
    atoll__cu_account(m, m->evq->now);
    zone_split(m, f, j->cu_lo);
    zone_split(m, f, j->cu_hi);
    for (uint32_t x = j->cu_lo + 1; j->only && x < j->cu_hi; x++)
      if (edge_of(j, x))
        zone_split(m, f, x);
  }
  uint32_t level = j->high != 0;
  f->pending[level][f->n_pending[level]++] = job;
  if (j->kt.blocks == 0)
    f->compact_due = true; /* nothing to place: the next offer drops it */
}

static void fluid_place(atoll_cu_model *m) {
  atoll__cu_account(m, m->evq->now);
  offer(m, F(m));
}

static void fluid_kill(atoll_cu_model *m, bool (*victim)(void *ctx, uint32_t job), void *ctx) {
  fluid *f = F(m);
  atoll__cu_account(m, m->evq->now);
  bool any_restricted = false;
  for (uint32_t g = 0; g < f->n_groups; g++) {
    group *gr = &f->groups[g];
    if (!gr->live || !victim(ctx, gr->job))
      continue;
    fjob *jb = &f->jobs[gr->job];
    zone_residents(m, f, &f->zones[gr->zone], jb, gr->n, gr->cover, -1);
    jb->live = 0;
    any_restricted |= jb->restricted;
    group_release(f, g);
  }
  for (int level = 0; level < 2; level++) {
    uint32_t kept = 0, *pending = f->pending[level];
    for (uint32_t i = 0; i < f->n_pending[level]; i++)
      if (victim(ctx, pending[i])) {
        f->jobs[pending[i]].live = 0;
        any_restricted |= f->jobs[pending[i]].restricted;
      } else {
        pending[kept++] = pending[i];
      }
    f->n_pending[level] = kept;
  }
  if (any_restricted)
    zones_coalesce(m, f);
}

static void fluid_handle(atoll_cu_model *m, uint64_t p, int64_t now) {
  on_group_end(m, F(m), atoll_simev_id(p), atoll_simev_gen(p), now);
}

static int fluid_create(atoll_cu_model *m) {
  fluid *f = calloc(1, sizeof *f);
  if (!f)
    return ATOLL_ENOMEM;
  m->impl = f;
  f->free_group = -1;
  f->jobs = calloc(m->max_jobs, sizeof *f->jobs);
  f->jzones = calloc(m->max_jobs, sizeof *f->jzones);
  f->edges = calloc(m->g->cus / 64 + 1, sizeof *f->edges);
  f->pending[0] = calloc(m->max_jobs, sizeof *f->pending[0]);
  f->pending[1] = calloc(m->max_jobs, sizeof *f->pending[1]);
  if (!f->jobs || !f->jzones || !f->edges || !f->pending[0] || !f->pending[1])
    return ATOLL_ENOMEM;
  f->n_zones = 1;
  f->zone_gen = 1;
  f->zones[0] = (zone){.lo = 0, .hi = (uint16_t)m->g->cus, .cus = m->g->cus,
                       .slots = m->g->cus * m->g->max_blocks_per_cu,
                       .free_units = (int64_t)m->g->cus * m->g->registers_per_cu};
  return 0;
}

static void fluid_destroy(atoll_cu_model *m) {
  fluid *f = F(m);
  if (!f)
    return;
  free(f->jobs);
  free(f->jzones);
  free(f->edges);
  free(f->pending[0]);
  free(f->pending[1]);
  free(f->groups);
  free(f);
}

const atoll__cu_engine atoll__cu_fluid = {
    .create = fluid_create,
    .destroy = fluid_destroy,
    .add = fluid_add,
    .place = fluid_place,
    .kill = fluid_kill,
    .handle = fluid_handle,
};
