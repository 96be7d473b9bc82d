#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "run.h"

int atoll_calib_standalone(const atoll_gpu *g, const atoll_model *m, int64_t *out) {
  atoll_scenario_model sm = {.name = m->name, .model = *m};
  atoll_client dummy = {.name = "c", .model = 0, .cls = ATOLL_CLASS_RT};
  atoll_scenario s = {.gpu = *g, .models = &sm, .n_models = 1, .clients = &dummy, .n_clients = 1,
                      .policy = {.kind = ATOLL_POLICY_RT_ONLY}, .duration_ns = 1, .seed = 1};
  return atoll_sim_standalone_ns(&s, 0, out);
}

static void check_reconcilable(atoll_calib_model *cm, int64_t max_overhead_ns) {
  const atoll_model *m = cm->model;
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
    if (floor_ns > m->measured_latency_ns) {
      cm->irreconcilable = true;
      snprintf(cm->why, sizeof cm->why,
               "%u launches of %s x (%.0f us - %.0f us overhead) = %.0f us > measured model latency %.0f us", launches,
               op->name, op->shape.time_ns / 1e3, max_overhead_ns / 1e3, floor_ns / 1e3, m->measured_latency_ns / 1e3);
      return;
    }
  }
}

/* What an isolated measurement adds to a simulated request: launch_sync is the whole overhead of
 * timing one launch alone (host launch path, dispatch, synchronisation), and the simulated request
 * already pays the host-to-device transmit of its first command. */
static int64_t isolation_overhead(const atoll_gpu *g) { return g->costs.launch_sync_ns - g->costs.hq_transmit_ns; }

/* Largest |relative error| over reconcilable models except `skip` (-1: none), at gpu g. */
static int worst_error(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int32_t skip, double *worst) {
  *worst = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (ms[i].irreconcilable || (int32_t)i == skip)
      continue;
    int64_t t;
    int rc = atoll_calib_standalone(g, ms[i].model, &t);
    if (rc)
      return rc;
    t += isolation_overhead(g);
    double e = fabs((double)(t - ms[i].model->measured_latency_ns) / (double)ms[i].model->measured_latency_ns);
    if (e > *worst)
      *worst = e;
  }
  return 0;
}

typedef struct point {
  int64_t launch_sync, cp_dispatch;
  double err;
} point;

static int scan(const atoll_gpu *g0, atoll_calib_model *ms, uint32_t n, int32_t skip, int64_t lo_l, int64_t hi_l,
                int64_t lo_c, int64_t hi_c, int64_t step, point *best) {
  atoll_gpu g = *g0;
  for (int64_t l = lo_l < 0 ? 0 : lo_l; l <= hi_l; l += step) {
    for (int64_t c = lo_c < 0 ? 0 : lo_c; c <= hi_c; c += step) {
      g.costs.launch_sync_ns = l;
      g.costs.cp_dispatch_ns = c;
      double e;
      int rc = worst_error(&g, ms, n, skip, &e);
      if (rc)
        return rc;
      if (e < best->err)
        *best = (point){l, c, e};
    }
  }
  return 0;
}

static int fit(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int32_t skip, int64_t max_ns, point *best) {
  *best = (point){0, 0, INFINITY};
  int rc = scan(g, ms, n, skip, 0, max_ns, 0, max_ns, 1000, best);
  if (rc == 0) {
    point coarse = *best;
    rc = scan(g, ms, n, skip, coarse.launch_sync - 1000, coarse.launch_sync + 1000, coarse.cp_dispatch - 1000,
              coarse.cp_dispatch + 1000, 100, best);
  }
  return rc;
}

static int predict(const atoll_gpu *g0, int64_t l, int64_t c, const atoll_model *m, double *err) {
  atoll_gpu g = *g0;
  g.costs.launch_sync_ns = l;
  g.costs.cp_dispatch_ns = c;
  int64_t t;
  int rc = atoll_calib_standalone(&g, m, &t);
  *err = ((double)(t + isolation_overhead(&g)) - (double)m->measured_latency_ns) / (double)m->measured_latency_ns;
  return rc;
}

int atoll_calibrate(const atoll_gpu *g, atoll_calib_model *ms, uint32_t n, int64_t max_ns, atoll_calib *out) {
  if (n == 0 || max_ns <= 0)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < n; i++) {
    if (ms[i].model->measured_latency_ns <= 0)
      return ATOLL_EINVAL;
    check_reconcilable(&ms[i], max_ns);
  }
  point best;
  int rc = fit(g, ms, n, -1, max_ns, &best);
  *out = (atoll_calib){.launch_sync_ns = best.launch_sync, .cp_dispatch_ns = best.cp_dispatch,
                       .max_abs_error = best.err, .max_ns = max_ns};
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    rc = predict(g, best.launch_sync, best.cp_dispatch, ms[i].model, &ms[i].error);
    ms[i].simulated_ns = (int64_t)((1 + ms[i].error) * (double)ms[i].model->measured_latency_ns + 0.5);
    if (rc || ms[i].irreconcilable) {
      ms[i].loo_error = NAN;
      continue;
    }
    point loo;
    rc = fit(g, ms, n, (int32_t)i, max_ns, &loo);
    ms[i].loo_launch_sync_ns = loo.launch_sync;
    ms[i].loo_cp_dispatch_ns = loo.cp_dispatch;
    if (rc == 0)
      rc = predict(g, loo.launch_sync, loo.cp_dispatch, ms[i].model, &ms[i].loo_error);
  }
  return rc;
}
