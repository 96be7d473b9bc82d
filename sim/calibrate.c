#include "sim/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/run.h"

int atoll_calib_standalone(const atoll_gpu *g, const atoll_model *m, int64_t *out) {
  atoll_scenario_model sm = {.name = m->name, .model = *m};
  atoll_client dummy = {.name = "c", .model = 0, .cls = ATOLL_CLASS_RT};
  atoll_scenario s = {.gpu = *g, .models = &sm, .n_models = 1, .clients = &dummy, .n_clients = 1,
                      .policy = {.kind = ATOLL_POLICY_RT_ONLY}, .duration_ns = 1, .seed = 1};
  return atoll_sim_standalone_ns(&s, 0, out);
}

int64_t atoll_calib_measured_ns(const atoll_model *m, atoll_calib_mode mode) {
  return mode == ATOLL_CALIB_LAUNCH ? m->measured_eager_latency_ns : m->measured_latency_ns;
}

static void check_reconcilable(atoll_calib_model *cm, int64_t max_overhead_ns, atoll_calib_mode mode) {
  const atoll_model *m = cm->model;
  int64_t measured = atoll_calib_measured_ns(m, mode);
  cm->irreconcilable = false;
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    if (op->kind != ATOLL_OP_KERNEL)
      continue;
    bool first = true;
    uint32_t launches = 0;
    for (uint32_t j = 0; j < m->n_ops; j++) {
      if (m->ops[j].kind == ATOLL_OP_KERNEL && strcmp(m->ops[j].name, op->name) == 0) {
        first = first && j >= i;
        launches++;
      }
    }
    if (!first)
      continue;
    int64_t floor_ns = (int64_t)launches * (op->shape.time_ns - max_overhead_ns);
    if (floor_ns > measured) {
      cm->irreconcilable = true;
      snprintf(cm->why, sizeof cm->why,
               "%u launches of %s x (%.0f us - %.0f us overhead) = %.0f us > measured model latency %.0f us", launches,
               op->name, op->shape.time_ns / 1e3, max_overhead_ns / 1e3, floor_ns / 1e3, measured / 1e3);
      return;
    }
  }
}

/* What an isolated measurement adds to a simulated request: launch_sync is the whole overhead of
 * timing one launch alone (host launch path, dispatch, synchronisation), and the simulated request
 * already pays the host-to-device transmit of its first command. Device-timed profiles and eager
 * latencies are compared as simulated. */
static int64_t isolation_overhead(const atoll_gpu *g, atoll_calib_mode mode) {
  return mode == ATOLL_CALIB_ISOLATED ? g->costs.launch_sync_ns - g->costs.hq_transmit_ns : 0;
}

/* A model's latency as its measurement saw it: simulated alone on g, plus the isolation overhead. */
static int as_measured(const atoll_gpu *g, atoll_calib_mode mode, const atoll_model *m, int64_t *t) {
  int rc = atoll_calib_standalone(g, m, t);
  if (rc == 0)
    *t += isolation_overhead(g, mode);
  return rc;
}

/* The candidate (x, y) applied to a copy of the preset: ISOLATED (launch_sync, cp_dispatch);
 * DEVICE (-, cp_dispatch) with launch_sync 0; LAUNCH (-, host_launch) charged as hq_transmit. */
static void apply(atoll_gpu *g, atoll_calib_mode mode, int64_t x, int64_t y) {
  switch (mode) {
  case ATOLL_CALIB_ISOLATED:
    g->costs.launch_sync_ns = x;
    g->costs.cp_dispatch_ns = y;
    break;
  case ATOLL_CALIB_DEVICE:
    g->costs.launch_sync_ns = 0;
    g->costs.cp_dispatch_ns = y;
    break;
  case ATOLL_CALIB_LAUNCH:
    g->costs.host_launch_ns = y;
    g->costs.hq_transmit_ns = y;
    break;
  }
}

/* Every fit (the whole set, each leave-one-out, each fold) scans the same grid points with the
 * same models, so each model's simulated latency at a 0.1 us point is simulated once and kept: the
 * fits then differ only in which models they take the worst error over. A memo a caller passes
 * keeps the points across calls (the fit, its folds, --grid's table). */
struct atoll_calib_memo {
  atoll_calib_mode mode;
  int64_t max_ns;
  uint32_t side_x, side_y, n; /* points per axis at the 0.1 us step; models */
  int64_t *t;                 /* [model][x][y] simulated as measured; INT64_MIN: not yet */
};
typedef struct atoll_calib_memo memo;

enum { MEMO_STEP_NS = 100, MEMO_MAX_ENTRIES = 8u << 20 }; /* 64 MB: beyond it each point is simulated anew */

static void memo_init(memo *mm, atoll_calib_mode mode, uint32_t n, int64_t max_ns) {
  *mm = (memo){.mode = mode, .max_ns = max_ns, .n = n};
  mm->side_x = mode == ATOLL_CALIB_ISOLATED ? (uint32_t)(max_ns / MEMO_STEP_NS) + 1 : 1;
  mm->side_y = (uint32_t)(max_ns / MEMO_STEP_NS) + 1;
  uint64_t entries = (uint64_t)mm->side_x * mm->side_y * n;
  if (entries > MEMO_MAX_ENTRIES || !(mm->t = malloc(entries * sizeof *mm->t)))
    return; /* no memo: correct, only slower */
  for (uint64_t i = 0; i < entries; i++)
    mm->t[i] = INT64_MIN;
}

atoll_calib_memo *atoll_calib_memo_create(atoll_calib_mode mode, uint32_t n, int64_t max_ns) {
  if (n == 0 || n > ATOLL_CALIB_MAX_MODELS || max_ns <= 0)
    return NULL;
  memo *mm = malloc(sizeof *mm);
  if (mm)
    memo_init(mm, mode, n, max_ns);
  return mm;
}

void atoll_calib_memo_destroy(atoll_calib_memo *mm) {
  if (mm)
    free(mm->t);
  free(mm);
}

/* The memo a call uses: the caller's, when it was made for this call's mode, models and scan (else
 * the call is refused), or *own, made for the call and freed by memo_done. */
static int memo_for(atoll_calib_memo *given, memo *own, atoll_calib_mode mode, uint32_t n, int64_t max_ns,
                    memo **out) {
  if (given) {
    *out = given;
    return given->mode == mode && given->n == n && given->max_ns == max_ns ? 0 : ATOLL_EINVAL;
  }
  memo_init(own, mode, n, max_ns);
  *out = own;
  return 0;
}

static void memo_done(const memo *used, memo *own) {
  if (used == own)
    free(own->t);
}

static int64_t *memo_slot(const memo *mm, uint32_t model, int64_t x, int64_t y) {
  if (!mm->t || x % MEMO_STEP_NS || y % MEMO_STEP_NS || x > mm->max_ns || y > mm->max_ns)
    return NULL;
  uint64_t ix = (uint64_t)(x / MEMO_STEP_NS), iy = (uint64_t)(y / MEMO_STEP_NS);
  if (ix >= mm->side_x)
    return NULL;
  return &mm->t[((uint64_t)model * mm->side_x + ix) * mm->side_y + iy];
}

/* Model i's latency as measured at (x, y), which g has applied: from the memo, or simulated and kept. */
static int kept_as_measured(const atoll_gpu *g, atoll_calib_mode mode, const memo *mm, uint32_t i,
                            const atoll_model *m, int64_t x, int64_t y, int64_t *t) {
  int64_t *kept = memo_slot(mm, i, x, y);
  if (kept && *kept != INT64_MIN) {
    *t = *kept;
    return 0;
  }
  int rc = as_measured(g, mode, m, t);
  if (rc == 0 && kept)
    *kept = *t;
  return rc;
}

/* Largest |relative error| over reconcilable models not held out (skip[i] set; skip NULL: none
 * held out), at gpu g, which has (x, y) applied. */
static int worst_error(const atoll_gpu *g, atoll_calib_mode mode, atoll_calib_model *ms, uint32_t n,
                       const uint8_t *skip, const memo *mm, int64_t x, int64_t y, double *worst) {
  *worst = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (ms[i].irreconcilable || (skip && skip[i]))
      continue;
    int64_t t;
    int rc = kept_as_measured(g, mode, mm, i, ms[i].model, x, y, &t);
    if (rc)
      return rc;
    double measured = (double)atoll_calib_measured_ns(ms[i].model, mode);
    double e = fabs((double)t - measured) / measured;
    if (e > *worst)
      *worst = e;
  }
  return 0;
}

typedef struct point {
  int64_t x, y;
  double err;
} point;

/* Scans [lo, hi] on both axes at step; every point's error goes to out (when given, in scan order),
 * and the first point of least error to *best when it beats it. */
static int scan(const atoll_gpu *g0, atoll_calib_mode mode, atoll_calib_model *ms, uint32_t n, const uint8_t *skip,
                const memo *mm, int64_t lo_x, int64_t hi_x, int64_t lo_y, int64_t hi_y, int64_t step, point *best,
                point *out, uint32_t *n_out) {
  atoll_gpu g = *g0;
  if (mode != ATOLL_CALIB_ISOLATED)
    lo_x = hi_x = 0; /* one free parameter: y */
  for (int64_t x = lo_x < 0 ? 0 : lo_x; x <= hi_x; x += step) {
    for (int64_t y = lo_y < 0 ? 0 : lo_y; y <= hi_y; y += step) {
      apply(&g, mode, x, y);
      double e;
      int rc = worst_error(&g, mode, ms, n, skip, mm, x, y, &e);
      if (rc)
        return rc;
      if (out)
        out[(*n_out)++] = (point){x, y, e};
      if (e < best->err)
        *best = (point){x, y, e};
    }
  }
  return 0;
}

/* Least error first; equal errors in scan order (x, then y), so the coarse best is refined first. */
static int by_error(const void *a, const void *b) {
  const point *p = a, *q = b;
  if (p->err != q->err)
    return p->err < q->err ? -1 : 1;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return (p->y > q->y) - (p->y < q->y);
}

/* The fine search starts from every coarse point within this much of the coarse best (at most
 * FINE_STARTS of them, the best first): the error's valley runs along launch_sync - cp_dispatch,
 * so the fine optimum can lie next to a coarse point that is not the coarse best. Refining the
 * coarse best alone stopped resnet152's leave-one-out fit at 14.5 / 4.9 us (3.89 % trained),
 * where the whole 0.1 us grid has 12.6 / 3.2 us (3.74 %): docs/calibration.md, "Structure". */
#define FINE_START_SLACK 0.10
enum { FINE_STARTS = 16 };

static int fit(const atoll_gpu *g, atoll_calib_mode mode, atoll_calib_model *ms, uint32_t n, const uint8_t *skip,
               const memo *mm, int64_t max_ns, point *best) {
  *best = (point){0, 0, INFINITY};
  uint64_t side = (uint64_t)(max_ns / 1000) + 1;
  point *coarse = malloc((mode == ATOLL_CALIB_ISOLATED ? side * side : side) * sizeof *coarse);
  if (!coarse)
    return ATOLL_ENOMEM;
  uint32_t n_coarse = 0;
  int rc = scan(g, mode, ms, n, skip, mm, 0, max_ns, 0, max_ns, 1000, best, coarse, &n_coarse);
  if (rc == 0) {
    qsort(coarse, n_coarse, sizeof *coarse, by_error);
    double limit = best->err * (1.0 + FINE_START_SLACK);
    for (uint32_t i = 0; rc == 0 && i < n_coarse && i < FINE_STARTS && (i == 0 || coarse[i].err <= limit); i++)
      rc = scan(g, mode, ms, n, skip, mm, coarse[i].x - 1000, coarse[i].x + 1000, coarse[i].y - 1000,
                coarse[i].y + 1000, 100, best, NULL, NULL);
  }
  free(coarse);
  return rc;
}

static int predict(const atoll_gpu *g0, atoll_calib_mode mode, point p, const atoll_model *m, double *err) {
  atoll_gpu g = *g0;
  apply(&g, mode, p.x, p.y);
  int64_t t;
  int rc = as_measured(&g, mode, m, &t);
  double measured = (double)atoll_calib_measured_ns(m, mode);
  *err = ((double)t - measured) / measured;
  return rc;
}

int atoll_calib_as_measured(const atoll_gpu *g0, const atoll_model *m, int64_t launch_sync_ns, int64_t cp_dispatch_ns,
                            int64_t *out) {
  if (launch_sync_ns < 0 || cp_dispatch_ns < 0)
    return ATOLL_EINVAL;
  atoll_gpu g = *g0;
  apply(&g, ATOLL_CALIB_ISOLATED, launch_sync_ns, cp_dispatch_ns);
  return as_measured(&g, ATOLL_CALIB_ISOLATED, m, out);
}

int atoll_calib_as_measured_kept(const atoll_gpu *g0, atoll_calib_memo *mm, uint32_t i, const atoll_model *m,
                                 int64_t launch_sync_ns, int64_t cp_dispatch_ns, int64_t *out) {
  if (launch_sync_ns < 0 || cp_dispatch_ns < 0 || mm->mode != ATOLL_CALIB_ISOLATED || i >= mm->n)
    return ATOLL_EINVAL;
  atoll_gpu g = *g0;
  apply(&g, ATOLL_CALIB_ISOLATED, launch_sync_ns, cp_dispatch_ns);
  return kept_as_measured(&g, ATOLL_CALIB_ISOLATED, mm, i, m, launch_sync_ns, cp_dispatch_ns, out);
}

static void record(atoll_calib_mode mode, point p, int64_t *launch_sync, int64_t *cp_dispatch, int64_t *host_launch,
                   const atoll_gpu *g) {
  atoll_gpu a = *g;
  apply(&a, mode, p.x, p.y);
  *launch_sync = a.costs.launch_sync_ns;
  *cp_dispatch = a.costs.cp_dispatch_ns;
  *host_launch = a.costs.host_launch_ns;
}

int atoll_calibrate_mode(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int64_t max_ns, atoll_calib_mode mode,
                         atoll_calib_memo *kept, atoll_calib *out) {
  if (n == 0 || n > ATOLL_CALIB_MAX_MODELS || max_ns <= 0)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < n; i++) {
    if (atoll_calib_measured_ns(ms[i].model, mode) <= 0)
      return ATOLL_EINVAL;
    check_reconcilable(&ms[i], mode == ATOLL_CALIB_ISOLATED ? max_ns : 0, mode);
  }
  point best;
  memo own, *mm;
  if (memo_for(kept, &own, mode, n, max_ns, &mm))
    return ATOLL_EINVAL;
  int rc = fit(g, mode, ms, n, NULL, mm, max_ns, &best);
  *out = (atoll_calib){.mode = mode, .max_abs_error = best.err, .max_ns = max_ns};
  record(mode, best, &out->launch_sync_ns, &out->cp_dispatch_ns, &out->host_launch_ns, g);
  uint32_t reconcilable = 0;
  for (uint32_t i = 0; i < n; i++)
    reconcilable += !ms[i].irreconcilable;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    rc = predict(g, mode, best, ms[i].model, &ms[i].error);
    ms[i].simulated_ns =
        (int64_t)((1 + ms[i].error) * (double)atoll_calib_measured_ns(ms[i].model, mode) + 0.5);
    /* Held out alone, a model leaves nothing to fit on: no leave-one-out error (NaN), not the
     * prediction of a fit to no data. */
    if (rc || ms[i].irreconcilable || reconcilable < 2) {
      ms[i].loo_error = NAN;
      continue;
    }
    point loo;
    uint8_t held[ATOLL_CALIB_MAX_MODELS] = {0};
    held[i] = 1;
    rc = fit(g, mode, ms, n, held, mm, max_ns, &loo);
    record(mode, loo, &ms[i].loo_launch_sync_ns, &ms[i].loo_cp_dispatch_ns, &ms[i].loo_host_launch_ns, g);
    if (rc == 0)
      rc = predict(g, mode, loo, ms[i].model, &ms[i].loo_error);
  }
  memo_done(mm, &own);
  return rc;
}

int atoll_calib_kfold(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int64_t max_ns, atoll_calib_mode mode,
                      uint32_t k, atoll_calib_memo *kept, uint32_t *folds) {
  if (n == 0 || n > ATOLL_CALIB_MAX_MODELS || max_ns <= 0 || k < 2)
    return ATOLL_EINVAL;
  uint32_t reconcilable = 0;
  for (uint32_t i = 0; i < n; i++) {
    ms[i].fold = ms[i].irreconcilable ? UINT32_MAX : reconcilable++ % k;
    ms[i].kfold_error = NAN;
  }
  *folds = reconcilable < k ? reconcilable : k;
  if (reconcilable < 2)
    return 0; /* nothing can be fitted without the model it predicts */
  memo own, *mm;
  if (memo_for(kept, &own, mode, n, max_ns, &mm))
    return ATOLL_EINVAL;
  int rc = 0;
  for (uint32_t f = 0; rc == 0 && f < *folds; f++) {
    uint8_t held[ATOLL_CALIB_MAX_MODELS] = {0};
    for (uint32_t i = 0; i < n; i++)
      held[i] = ms[i].fold == f;
    point p;
    rc = fit(g, mode, ms, n, held, mm, max_ns, &p);
    for (uint32_t i = 0; rc == 0 && i < n; i++)
      if (held[i])
        rc = predict(g, mode, p, ms[i].model, &ms[i].kfold_error);
  }
  memo_done(mm, &own);
  return rc;
}

int atoll_calibrate(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int64_t max_ns, atoll_calib *out) {
  return atoll_calibrate_mode(g, ms, n, max_ns, ATOLL_CALIB_ISOLATED, NULL, out);
}
