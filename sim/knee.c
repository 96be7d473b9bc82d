/* Knee points (sim/knee.h): one run per share, each a batch arriving at time 0 on an idle GPU. */
#include "sim/knee.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/policy.h"
#include "core/gslice.h"
#include "sim/run.h"
#include "sim/shape_memo.h"

uint32_t atoll_knee_of(const atoll_knee_point *curve, uint32_t n) {
  double best = 0;
  for (uint32_t i = 0; i < n; i++)
    if (curve[i].throughput_rps > best)
      best = curve[i].throughput_rps;
  for (uint32_t i = 0; i < n; i++)
    if (curve[i].throughput_rps * 100.0 >= best * (100.0 - ATOLL_KNEE_TOL_PCT))
      return curve[i].pct;
  return n ? curve[n - 1].pct : 100;
}

int64_t atoll_knee_span_ns(const atoll_gpu *gpu) {
  const int64_t year = INT64_C(365) * 24 * 3600 * 1000000000;
  int64_t fits = INT64_MAX / 2 / (gpu->cus ? gpu->cus : 1);
  return fits < year ? fits : year;
}

/* One batch of b requests at time 0 on `pct` % of the GPU (a bound MPS client): its latency. The
 * kernels are timed on *gpu itself, whose values the run's GPU copies, so that every run of a sweep
 * takes the timings the first prepared from `memo` (sim/shape_memo.h; NULL: each prepares its own). */
static int one_share(const atoll_gpu *gpu, const atoll_scenario_model *sm, uint32_t b, uint32_t pct,
                     atoll_shape_memo *memo, int64_t *out) {
  int64_t *at = calloc(b, sizeof *at);
  if (!at)
    return ATOLL_ENOMEM;
  atoll_client cl = {.name = "knee", .model = 0, .cls = ATOLL_CLASS_BE,
                     .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = at, .n_times = b},
                     .batch_max = b > 1 ? b : 0, .batch_timeout_ns = b > 1 ? 1 : 0};
  uint32_t next;
  int rc = atoll_cuset_from_share(gpu->cus, 0, pct, &cl.cus, &next);
  atoll_scenario s = {.path = "knee", .gpu = *gpu, .models = sm, .n_models = 1, .clients = &cl, .n_clients = 1,
                      .policy = atoll_policy_defaults(ATOLL_POLICY_MPS_STATIC),
                      .duration_ns = atoll_knee_span_ns(gpu), .seed = 1, .gpu_count = 1};
  atoll_run_results res;
  int64_t alone = 1; /* any: the knee reads no normalized figure, and a given value skips measuring it */
  /* The core holds room for the b requests the run has, not the default 1024 a client may have
   * waiting: setting that up was a third of a knee run's work. */
  atoll_core_limits limits = {.pending_per_client = b};
  atoll_sim_opts o = {.standalone_ns = &alone, .core_limits = &limits, .timing_gpu = gpu, .shape_memo = memo};
  if (rc == 0)
    rc = atoll_sim_run(&s, &o, &res);
  if (rc == 0) {
    int64_t last = -1;
    for (uint32_t i = 0; i < res.clients[0].n; i++)
      if (res.clients[0].req[i].done_ns > last)
        last = res.clients[0].req[i].done_ns;
    if (res.clients[0].n != b || last <= 0) /* the batch did not end within the run's span */
      rc = ATOLL_ERANGE;
    *out = last;
    atoll_run_results_free(&res);
  }
  free(at);
  return rc;
}

/* atoll_sim_knee, its runs' kernel timings taken from `memo` (NULL: each run prepares its own). */
static int knee_sweep(const atoll_gpu *gpu, const char *name, const atoll_model *m, uint32_t batch,
                      atoll_shape_memo *memo, atoll_knee_point curve[ATOLL_KNEE_POINTS], uint32_t *knee_pct) {
  if (batch == 0 || batch > ATOLL_MAX_BATCH)
    return ATOLL_EINVAL;
  atoll_scenario_model sm = {.name = name, .path = name, .model = *m};
  for (uint32_t i = 0; i < ATOLL_KNEE_POINTS; i++) {
    uint32_t pct = ATOLL_KNEE_FIRST + i * ATOLL_KNEE_STEP;
    int64_t lat;
    int rc = one_share(gpu, &sm, batch, pct, memo, &lat);
    if (rc)
      return rc;
    curve[i] = (atoll_knee_point){.pct = pct, .latency_us = (double)lat / 1e3,
                                  .throughput_rps = (double)batch * 1e9 / (double)lat};
  }
  *knee_pct = atoll_knee_of(curve, ATOLL_KNEE_POINTS);
  return 0;
}

int atoll_sim_knee(const atoll_gpu *gpu, const char *name, const atoll_model *m, uint32_t batch,
                   atoll_knee_point curve[ATOLL_KNEE_POINTS], uint32_t *knee_pct) {
  /* The sweep's runs time the same kernels on the same GPU: prepared once, for all of them. Without
   * the memo (out of memory) each run prepares its own, the same timings. */
  atoll_shape_memo memo;
  bool shared = atoll_shape_memo_init(&memo, gpu, m->n_ops) == 0;
  int rc = knee_sweep(gpu, name, m, batch, shared ? &memo : NULL, curve, knee_pct);
  if (shared)
    atoll_shape_memo_free(&memo);
  return rc;
}

int atoll_sim_gslice_start(const atoll_scenario *s, atoll_client *clients) {
  uint32_t n = s->n_clients;
  if (n > ATOLL_GSLICE_MAX_IFS)
    return ATOLL_EINVAL;
  /* The policy's step (option step_pct, param slot 3; atoll_policy_defaults when unset) and the
   * SLO floor's run allowance (option floor_run_pct, slot 11; 0: no floors). */
  uint32_t step = s->policy.param[3] > 0 ? (uint32_t)s->policy.param[3] : 5;
  uint32_t run_pct = s->policy.param[11] > 0 ? (uint32_t)s->policy.param[11] : 0;
  uint32_t knee[ATOLL_GSLICE_MAX_IFS] = {0}, floor_pct[ATOLL_GSLICE_MAX_IFS] = {0}, swept_knee[ATOLL_GSLICE_MAX_IFS];
  atoll_knee_point curve[ATOLL_GSLICE_MAX_IFS][ATOLL_KNEE_POINTS];
  bool swept[ATOLL_GSLICE_MAX_IFS] = {false};
  for (uint32_t i = 0; i < n; i++) {
    bool bound = !atoll_cuset_is_empty(&clients[i].cus);
    if (bound && run_pct == 0)
      continue;
    /* One sweep per model: clients of the same model share it (the sweep is a simulation per
     * share, and deterministic). */
    for (uint32_t j = 0; j < i && !swept[i]; j++)
      if (swept[j] && clients[j].model == clients[i].model) {
        memcpy(curve[i], curve[j], sizeof curve[i]);
        swept_knee[i] = swept_knee[j];
        swept[i] = true;
      }
    if (!swept[i]) {
      const atoll_scenario_model *sm = &s->models[clients[i].model];
      int rc = atoll_sim_knee(&s->gpu, sm->name, &sm->model, 1, curve[i], &swept_knee[i]);
      if (rc)
        return rc;
      swept[i] = true;
    }
    if (!bound)
      knee[i] = swept_knee[i];
    uint32_t pct[ATOLL_KNEE_POINTS];
    double lat[ATOLL_KNEE_POINTS];
    for (uint32_t j = 0; j < ATOLL_KNEE_POINTS; j++)
      pct[j] = curve[i][j].pct, lat[j] = curve[i][j].latency_us * 1e3;
    floor_pct[i] = atoll_gslice_floor_pct(pct, lat, ATOLL_KNEE_POINTS, (double)clients[i].deadline_ns, run_pct);
    clients[i].share_floor_pct = floor_pct[i];
  }
  for (uint32_t g = 0; g < atoll_scenario_gpus(s); g++) {
    uint32_t given = 0, demand[ATOLL_GSLICE_MAX_IFS], idx[ATOLL_GSLICE_MAX_IFS], out[ATOLL_GSLICE_MAX_IFS], m = 0,
             asked = 0;
    double w[ATOLL_GSLICE_MAX_IFS];
    for (uint32_t i = 0; i < n; i++) {
      if (clients[i].gpu != g)
        continue;
      if (!knee[i]) {
        given += (atoll_cuset_count(&clients[i].cus) * 100 + s->gpu.cus / 2) / s->gpu.cus;
        continue;
      }
      idx[m] = i, demand[m] = knee[i], w[m] = knee[i], asked += knee[i];
      m++;
    }
    uint32_t room = given < 100 ? 100 - given : 0;
    if (asked > room)
      atoll_gslice_maxmin(demand, w, m, room, out);
    else
      for (uint32_t k = 0; k < m; k++)
        out[k] = demand[k];
    /* Down to the grid; the steps that frees go back to the clients cut below their knee; then up
     * to each client's SLO floor (shares past 100 % in all overlap, as MPS caps may). */
    uint32_t pct[ATOLL_GSLICE_MAX_IFS];
    atoll_gslice_to_grid(out, demand, m, room, step, pct);
    for (uint32_t k = 0; k < m; k++) {
      uint32_t next, p = pct[k] > floor_pct[idx[k]] ? pct[k] : floor_pct[idx[k]];
      int rc = atoll_cuset_from_share(s->gpu.cus, 0, p, &clients[idx[k]].cus, &next);
      if (rc)
        return rc;
    }
  }
  return 0;
}
