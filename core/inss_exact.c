/* The exact placement search for small instances (core/inss.h, docs/inss.md, "Placement"): every
 * partition of the models over the GPUs, pruned by what one GPU can hold. Two passes over the
 * same memo of which model sets fit one GPU at which scale:
 *   1. the highest common rate scale x* at which some placement fits every model (bisection in
 *      log scale; at each scale a depth-first search over placements, a set that does not fit
 *      cutting off every placement that adds to it);
 *   2. among the placements that fit at x*, the one whose GPUs' own highest scales, sorted from
 *      the lowest, are the largest (leximin): the bottleneck first, then the headroom every other
 *      GPU keeps for the model's errors.
 * A set of models that fits at a scale fits at every lower one, and a set that does not fit never
 * fits with one more model (more models on a GPU only leave less share and add interference), so
 * each answer bounds many others and is kept. */
#include "core/inss.h"

#include <math.h>
#include <string.h>

enum { EXACT_SETS = 1u << ATOLL_INSS_EXACT_MODELS };

static const double scale_min = 1.0 / 64, scale_max = 64;

typedef struct exact {
  const atoll_inss_model *m;
  const atoll_inss_demand *d;
  uint32_t n, gpus;
  const atoll_inss_plan_cfg *cfg;
  uint32_t *evals;
  bool pinned;                      /* some model must stay on a given GPU: GPUs are not interchangeable */
  uint32_t order[ATOLL_INSS_MAX_MODELS];
  double fits[EXACT_SETS];          /* the highest scale known to fit (0: none yet) */
  double fails[EXACT_SETS];         /* the lowest scale known not to (INFINITY: none yet) */
  double own[EXACT_SETS];           /* the set's own highest scale, once pass 2 needs it (0: not yet) */
  uint32_t set[ATOLL_MAX_GPUS_INSS]; /* the placement being built: each GPU's models, as bits */
  uint32_t gpu_of[ATOLL_INSS_MAX_MODELS];
  double x;                         /* the scale being tried */
  bool have_best;
  double best[ATOLL_MAX_GPUS_INSS]; /* the best placement's GPU scales, lowest first */
  uint32_t best_gpu[ATOLL_INSS_MAX_MODELS];
} exact;

/* Whether the models of set s fit one GPU at scale x: from what is known, else one share fit. */
static bool fits(exact *e, uint32_t s, double x) {
  if (s == 0 || x <= e->fits[s])
    return true;
  if (x >= e->fails[s])
    return false;
  uint32_t members[ATOLL_INSS_MAX_MODELS], k = 0;
  for (uint32_t i = 0; i < e->n; i++)
    if (s & (1u << i)) {
      if (s != (1u << i) && !fits(e, s & ~(1u << i), x)) {
        e->fails[s] = x;
        return false;
      }
      members[k++] = i;
    }
  uint32_t pct[ATOLL_INSS_MAX_MODELS], batch[ATOLL_INSS_MAX_MODELS];
  (*e->evals)++;
  if (atoll_inss_fit_gpu(e->m, e->d, members, k, x, e->cfg, false, pct, batch)) {
    e->fits[s] = x;
    return true;
  }
  e->fails[s] = x;
  return false;
}

static bool may_go(const atoll_inss_demand *d, uint32_t g) { return d->gpu < 0 || (uint32_t)d->gpu == g; }

/* The GPUs model order[k] may join: every one when some model is pinned, else (interchangeable
 * GPUs) those in use and the first empty one, so that each partition is seen once. */
static uint32_t gpu_limit(const exact *e, uint32_t used) {
  return e->pinned || used + 1 > e->gpus ? e->gpus : used + 1;
}

/* Pass 1: whether the models from order[k] on can join the placement at scale e->x. */
static bool any_fits(exact *e, uint32_t k, uint32_t used) {
  if (k == e->n)
    return true;
  uint32_t i = e->order[k], lim = gpu_limit(e, used);
  for (uint32_t g = 0; g < lim; g++) {
    if (!may_go(&e->d[i], g) || !fits(e, e->set[g] | (1u << i), e->x))
      continue;
    e->set[g] |= 1u << i;
    bool ok = any_fits(e, k + 1, g == used ? used + 1 : used);
    e->set[g] &= ~(1u << i);
    if (ok)
      return true;
  }
  return false;
}

static bool placeable(exact *e, double x) {
  e->x = x;
  memset(e->set, 0, sizeof e->set);
  return any_fits(e, 0, 0);
}

/* The set's own highest scale, to within 1 % (scale_max when it fits there). */
static double own_scale(exact *e, uint32_t s) {
  if (s == 0)
    return scale_max;
  if (e->own[s] > 0)
    return e->own[s];
  double lo = e->fits[s], hi = e->fails[s] < scale_max ? e->fails[s] : scale_max;
  if (lo < hi && fits(e, s, hi))
    lo = hi;
  while (hi > lo * 1.01) {
    double mid = sqrt(lo * hi);
    if (fits(e, s, mid))
      lo = mid;
    else
      hi = mid;
  }
  return e->own[s] = lo;
}

/* Leximin: a is better than b when, from the lowest, the first scale on which they differ by more
 * than the 1 % own_scale resolves is higher in a. */
static bool better(const double *a, const double *b, uint32_t g) {
  for (uint32_t k = 0; k < g; k++) {
    if (a[k] > b[k] * 1.01)
      return true;
    if (b[k] > a[k] * 1.01)
      return false;
  }
  return false;
}

/* Pass 2: every placement of the models from order[k] on that fits at e->x, keeping the best. */
static void best_of(exact *e, uint32_t k, uint32_t used) {
  if (k == e->n) {
    double v[ATOLL_MAX_GPUS_INSS];
    for (uint32_t g = 0; g < e->gpus; g++) {
      double x = own_scale(e, e->set[g]);
      uint32_t j = g;
      for (; j > 0 && v[j - 1] > x; j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
    if (!e->have_best || better(v, e->best, e->gpus)) {
      e->have_best = true;
      memcpy(e->best, v, sizeof v);
      memcpy(e->best_gpu, e->gpu_of, sizeof e->gpu_of);
    }
    return;
  }
  uint32_t i = e->order[k], lim = gpu_limit(e, used);
  for (uint32_t g = 0; g < lim; g++) {
    if (!may_go(&e->d[i], g) || !fits(e, e->set[g] | (1u << i), e->x))
      continue;
    e->set[g] |= 1u << i;
    e->gpu_of[i] = g;
    best_of(e, k + 1, g == used ? used + 1 : used);
    e->set[g] &= ~(1u << i);
  }
}

bool atoll_inss_place_exact(const atoll_inss_model *m, const atoll_inss_demand *d, uint32_t n,
                            const atoll_inss_plan_cfg *cfg, const uint32_t *order, uint32_t *gpu_of, double *scale,
                            double *gpu_scale, uint32_t *evals) {
  if (n == 0 || n > ATOLL_INSS_EXACT_MODELS || cfg->gpus == 0 || cfg->gpus > ATOLL_MAX_GPUS_INSS)
    return false;
  exact e = {.m = m, .d = d, .n = n, .gpus = cfg->gpus, .cfg = cfg, .evals = evals};
  for (uint32_t s = 0; s < (1u << n); s++)
    e.fails[s] = INFINITY;
  for (uint32_t i = 0; i < n; i++) {
    e.order[i] = order[i];
    if (d[i].gpu >= 0)
      e.pinned = true;
  }
  if (!placeable(&e, scale_min))
    return false;
  /* The highest common scale, by bisection of log2 x over [-6, 6] to 1/512. */
  double lo = scale_min, hi = scale_max;
  if (placeable(&e, hi))
    lo = hi;
  while (log2(hi / lo) > 1.0 / 512) {
    double mid = sqrt(lo * hi);
    if (placeable(&e, mid))
      lo = mid;
    else
      hi = mid;
  }
  e.x = lo;
  memset(e.set, 0, sizeof e.set);
  best_of(&e, 0, 0);
  if (!e.have_best)
    return false; /* cannot happen: lo was placeable */
  memcpy(gpu_of, e.best_gpu, n * sizeof *gpu_of);
  *scale = lo;
  for (uint32_t g = 0; g < e.gpus; g++) {
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++)
      if (gpu_of[i] == g)
        s |= 1u << i;
    gpu_scale[g] = own_scale(&e, s);
  }
  return true;
}
