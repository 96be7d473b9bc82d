/* Sampling, measuring and training abacus's latency predictor on the simulated GPU
 * (predictor_train.h). */
#include "sim/predictor_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "run/driver.h"
#include "sim/run.h"

int atoll_group_measure_sim(const atoll_scenario *s, const atoll_group *g, int64_t *out_ns) {
  static const int64_t at_zero[1] = {0};
  atoll_scenario_model models[ATOLL_GROUP_MAX];
  atoll_client clients[ATOLL_GROUP_MAX];
  int64_t given[ATOLL_GROUP_MAX];
  if (g->n == 0 || g->n > ATOLL_GROUP_MAX)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < g->n; i++) {
    const atoll_scenario_model *m = &s->models[g->model[i]];
    if (g->op_start[i] >= g->op_end[i] || g->op_end[i] > m->model.n_ops)
      return ATOLL_EINVAL;
    /* The slice is a model of its own: the same ops, from op_start to op_end. */
    models[i] = *m;
    models[i].model.ops = m->model.ops + g->op_start[i];
    models[i].model.n_ops = g->op_end[i] - g->op_start[i];
    models[i].model.measured_latency_ns = 0;
    clients[i] = (atoll_client){.name = m->name, .model = i, .cls = ATOLL_CLASS_BE,
                                .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = at_zero, .n_times = 1}};
    given[i] = 1; /* no run needs the standalone latencies: trace arrivals, no deadlines */
  }
  atoll_scenario one = *s;
  one.models = models;
  one.n_models = g->n;
  one.clients = clients;
  one.n_clients = g->n;
  /* Each slice on its own stream, all launched at once: what abacus does with a group. */
  one.policy = (atoll_policy_cfg){.kind = ATOLL_POLICY_STREAMS};
  one.warmup_ns = 0;
  one.duration_ns = INT64_MAX / 4;
  one.n_expects = 0;
  one.predictor = NULL;
  atoll_sim_opts opts = {.standalone_ns = given};
  atoll_run_results res;
  int rc = atoll_sim_run(&one, &opts, &res);
  if (rc)
    return rc;
  int64_t end = 0;
  for (uint32_t i = 0; rc == 0 && i < g->n; i++) {
    if (res.clients[i].n != 1 || res.clients[i].req[0].done_ns < 0)
      rc = ATOLL_EINVAL;
    else if (res.clients[i].req[0].done_ns > end)
      end = res.clients[i].req[0].done_ns;
  }
  atoll_run_results_free(&res);
  if (rc == 0)
    *out_ns = end;
  return rc;
}

static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [lo, hi]. */
static uint32_t draw(uint64_t *rng, uint32_t lo, uint32_t hi) {
  return lo + (uint32_t)(next_u64(rng) % ((uint64_t)hi - lo + 1));
}

void atoll_group_sample(const atoll_scenario *s, uint64_t *rng, atoll_group *g) {
  uint32_t n_models = s->n_models < ATOLL_PRED_MAX_MODELS ? s->n_models : ATOLL_PRED_MAX_MODELS;
  uint32_t max = n_models < ATOLL_GROUP_MAX ? n_models : ATOLL_GROUP_MAX;
  memset(g, 0, sizeof *g);
  g->n = draw(rng, 1, max);
  /* Which models: a partial Fisher-Yates shuffle of the model indices. */
  uint32_t pick[ATOLL_PRED_MAX_MODELS];
  for (uint32_t i = 0; i < n_models; i++)
    pick[i] = i;
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t j = draw(rng, i, n_models - 1), t = pick[i];
    pick[i] = pick[j], pick[j] = t;
  }
  /* (1) how many complete in the group (at least one: abacus's leader always does); (2) how many
   * are new arrivals, run from their first operator. The roles go to the drawn models in order. */
  uint32_t complete = draw(rng, 1, g->n), fresh = draw(rng, 0, g->n);
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t n_ops = s->models[pick[i]].model.n_ops;
    bool done = i < complete, first = i >= g->n - fresh;
    uint32_t start = first ? 0 : draw(rng, 0, n_ops - 1);
    uint32_t end = done ? n_ops : draw(rng, start + 1, n_ops);
    g->model[i] = pick[i], g->op_start[i] = start, g->op_end[i] = end;
  }
}

static const atoll_model *const *model_table(const atoll_scenario *s, const atoll_model **t) {
  for (uint32_t m = 0; m < s->n_models && m < ATOLL_PRED_MAX_MODELS; m++)
    t[m] = &s->models[m].model;
  return t;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int atoll_predictor_train_sim(const atoll_scenario *s, const atoll_predictor_train_opts *o, atoll_predictor *out,
                              atoll_predictor_eval *eval) {
  if (s->n_models == 0 || s->n_models > ATOLL_PRED_MAX_MODELS || o->samples < 10)
    return ATOLL_EINVAL;
  uint32_t n = o->samples, n_in = s->n_models * ATOLL_PRED_PER_MODEL + 1;
  const atoll_model *mt[ATOLL_PRED_MAX_MODELS];
  model_table(s, mt);
  atoll_group *groups = calloc(n, sizeof *groups);
  double *x = calloc((size_t)n * n_in, sizeof *x), *y = calloc(n, sizeof *y), *err = calloc(n, sizeof *err);
  int rc = groups && x && y && err ? 0 : ATOLL_ENOMEM;
  uint64_t rng = o->seed;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    int64_t ns = 0;
    atoll_group_sample(s, &rng, &groups[i]);
    rc = o->measure ? o->measure(o->measure_ctx, s, &groups[i], &ns) : atoll_group_measure_sim(s, &groups[i], &ns);
    y[i] = (double)ns;
    atoll_predictor_features(mt, s->n_models, 1, &groups[i], &x[(size_t)i * n_in]);
  }
  /* The split: the samples are drawn independently, so the last test_fraction of them is as
   * random a held-out set as any. */
  uint32_t n_test = (uint32_t)((double)n * o->test_fraction), n_train = n - n_test;
  if (rc == 0 && (n_train == 0 || n_test == 0))
    rc = ATOLL_EINVAL;
  if (rc == 0) {
    memset(out, 0, sizeof *out);
    out->n_models = s->n_models;
    for (uint32_t m = 0; m < s->n_models; m++)
      out->model_names[m] = s->models[m].name, out->model_ops[m] = s->models[m].model.n_ops;
    out->batch = 1;
    atoll_mlp_train(&out->mlp, n_in, x, y, n_train, o->epochs, o->seed ^ 0x5DEECE66Dull);
    memset(eval, 0, sizeof *eval);
    for (uint32_t i = n_train; i < n; i++) {
      double p = atoll_mlp_forward_ns(&out->mlp, &x[(size_t)i * n_in]);
      double rel = fabs(p - y[i]) / y[i];
      uint32_t k = groups[i].n;
      eval->n[k]++, eval->mape[k] += rel;
      eval->n[0]++, eval->mape[0] += rel;
      err[i - n_train] = fabs(p - y[i]) / 1000.0;
    }
    for (uint32_t k = 0; k <= ATOLL_GROUP_MAX; k++) {
      eval->mape[k] = eval->n[k] ? eval->mape[k] / eval->n[k] : NAN;
      out->test_mape[k] = eval->mape[k];
    }
    qsort(err, n_test, sizeof *err, cmp_double);
    uint32_t rank = (uint32_t)ceil(0.99 * n_test);
    eval->p99_abs_err_us = err[rank ? rank - 1 : 0];
    out->train_samples = n_train, out->test_samples = n_test;
  }
  free(groups);
  free(x);
  free(y);
  free(err);
  return rc;
}
