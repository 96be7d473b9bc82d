/* GSLICE's decisions as pure functions (SoCC '20, §3.2; docs/gslice.md): the self-tuning rule of
 * its Algorithm 1, the weighted max-min fair allocation of GPU%, and the adaptive batch sizes
 * (SLAB and Clipper's AIMD). The policy (core/policy_gslice.c) feeds them what it measured; the
 * tests feed them hand-computed inputs. */
#ifndef ATOLL_CORE_GSLICE_H
#define ATOLL_CORE_GSLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"

/* Algorithm 1's constants (the policy's options; defaults: the paper's). */
typedef struct atoll_gslice_tune_cfg {
  uint32_t band_pct; /* no change while |diffL%| and |diffT%| are both below it (5) */
  uint32_t step_pct; /* the smallest change of a share, and the grid shares keep to (5) */
  uint32_t min_pct;  /* the smallest share (one step) */
} atoll_gslice_tune_cfg;

/* What the manager knows of one IF. Latencies in ns, rates in requests per second. */
typedef struct atoll_gslice_obs {
  double slo_ns;
  double avg_latency_ns;  /* EWMA of the latency; <= 0: none measured yet */
  double avg_tput_rps;    /* EWMA of the completions per second */
  double arrival_rps;     /* EWMA of the arrivals per second */
  uint32_t pct;           /* its share now */
  uint32_t floor_pct;     /* its SLO floor (atoll_gslice_floor_pct); 0: none */
} atoll_gslice_obs;

typedef enum atoll_gslice_action { ATOLL_GSLICE_KEEP = 0, ATOLL_GSLICE_GROW = 1, ATOLL_GSLICE_SHRINK = 2 } atoll_gslice_action;

typedef struct atoll_gslice_decision {
  atoll_gslice_action action;
  uint32_t pct;        /* the new share (the old one when kept) */
  double diff_l_pct;   /* residual_L / SLO, in % */
  double diff_t_pct;   /* residual_T / arrival rate, in % */
  double change_factor;
} atoll_gslice_decision;

/* Algorithm 1: residual_L = SLO - avgL, residual_T = avgT - arrival; nothing changes while both
 * |diff%| are below the band; otherwise the share grows when either residual is negative and
 * shrinks when both are positive, by pct x changeFactor (changeFactor = max(|residual_L| / avgL,
 * |residual_T| / avgT), at most 1), rounded away from the old share to the step grid, at least
 * one step, within [min_pct, 100]. Never below the IF's SLO floor (o->floor_pct): a shrink stops
 * at it, and a share under it (the band kept it, or it started there) grows to it. */
atoll_gslice_decision atoll_gslice_tune(const atoll_gslice_obs *o, const atoll_gslice_tune_cfg *cfg);

/* The SLO floor of a model from its batch-1 latency over shares (pct[i], latency_ns[i], n points,
 * pct ascending): the smallest share whose run takes at most run_pct % of the SLO, so that a
 * request may wait for one run of its IF and still meet the SLO (run_pct 50); 100 when no share
 * does; 0 (no floor) when run_pct or the SLO is 0 or no point is given. */
uint32_t atoll_gslice_floor_pct(const uint32_t *pct, const double *latency_ns, uint32_t n, double slo_ns,
                                uint32_t run_pct);

/* Weighted max-min fair allocation of `capacity` among n demands (progressive filling): each
 * unsatisfied IF is offered capacity left x its weight / the unsatisfied weights; an IF whose
 * demand is below its offer gets its demand and leaves, and the rest are offered again; when none
 * leaves, each gets its offer. Nobody gets more than its demand. Results are floored to integers.
 * n <= ATOLL_GSLICE_MAX_IFS; a weight <= 0 counts as 1. */
enum { ATOLL_GSLICE_MAX_IFS = 16 };
void atoll_gslice_maxmin(const uint32_t *demand, const double *weight, uint32_t n, uint32_t capacity, uint32_t *out);

/* A max-min allocation `alloc` (of `room` %) on the step grid, into out: each share floored to a
 * multiple of step, at least one step; then the steps that frees go back, one each in IF order and
 * round after round, to the IFs still below their demand, while the room lasts. */
void atoll_gslice_to_grid(const uint32_t *alloc, const uint32_t *demand, uint32_t n, uint32_t room, uint32_t step,
                          uint32_t *out);

/* SLAB (GSLICE §3.3.1): the next batch limit after a batch of `ran` requests (the limit was
 * `limit`) ran for run_ns and its oldest request waited and ran lat_ns in all:
 * - the batch whose run takes target_ns (the share of the SLO a run may use), in proportion,
 *   ran x target / run, at most twice and at least half of ran;
 * - a batch cut short for want of requests (ran < limit) does not lower the limit;
 * - a batch whose latency was within slo_ns (headroom left) does not lower the limit, and when it
 *   was full (ran >= limit) tries at least limit + 1;
 * within [1, max]. */
uint32_t atoll_gslice_slab(uint32_t limit, uint32_t ran, int64_t run_ns, int64_t target_ns, int64_t lat_ns,
                           int64_t slo_ns, uint32_t max);
/* Clipper's AIMD: one more while the batch kept within the SLO, else back off by 10 %. */
uint32_t atoll_gslice_aimd(uint32_t b, bool within_slo, uint32_t max);

/* The CUs client `client` holds when each client i of its GPU holds pcts[i] % (pcts indexed by
 * client): consecutive CUs in client order (atoll_cuset_from_share); a share that would run past
 * the GPU (shares in effect adding up to more than 100 % while one change waits for another) ends
 * at the GPU's last CU instead, overlapping the one before it, as MPS lets caps add up to more
 * than 100 %. */
/* How long a shadow instance of model m takes to load on GPU g (docs/gslice.md, "Shadow
 * instances"): the profile's measured instance_load_ms; else, where the preset gives
 * partition_init_ms and the profile a footprint, that start-up plus the weights over the copy
 * engine (weights_mb x 2^20 bytes / copy_bytes_per_us); else the preset's partition_load_ms. */
int64_t atoll_gslice_load_ns(const atoll_model *m, const atoll_gpu *g);

atoll_cuset atoll_gslice_layout(const atoll_scenario *s, const uint32_t *pcts, uint32_t client);

#endif
