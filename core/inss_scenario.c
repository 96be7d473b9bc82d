/* A scenario's clients as InSS demands (core/inss_scenario.h). */
#include "core/inss_scenario.h"

#include <string.h>

uint32_t atoll__inss_profile_of(const atoll_scenario *s, uint32_t c) {
  if (!s->inss || c >= s->n_clients)
    return UINT32_MAX;
  const char *name = s->models[s->clients[c].model].name;
  for (uint32_t i = 0; i < s->inss->n_models; i++)
    if (name && s->inss->prof[i].name && strcmp(name, s->inss->prof[i].name) == 0)
      return i;
  return UINT32_MAX;
}

double atoll__inss_declared_rate(const atoll_scenario *s, uint32_t c) {
  const atoll_arrival *a = &s->clients[c].arrival;
  if (a->kind == ATOLL_ARRIVAL_TRACE) {
    /* What a trace declares is its start: the arrivals of its first second (the policy measures
     * the rest as it comes). */
    uint32_t k = 0;
    while (k < a->n_times && a->times_ns[k] < a->times_ns[0] + 1000000000)
      k++;
    return (double)k;
  }
  if (a->rate_hz > 0)
    return a->rate_hz;
  int64_t ref = atoll_model_reference_latency_ns(&s->models[s->clients[c].model].model);
  return a->load > 0 && ref > 0 ? a->load * 1e9 / (double)ref : 0;
}

double atoll__inss_slo_ns(const atoll_scenario *s, uint32_t c) {
  const atoll_client *cl = &s->clients[c];
  if (cl->deadline_ns > 0)
    return (double)cl->deadline_ns;
  if (cl->arrival.kind == ATOLL_ARRIVAL_UNIFORM && cl->arrival.rate_hz > 0)
    return 1e9 / cl->arrival.rate_hz;
  return 1e9;
}

static atoll_inss_plan_cfg cfg_of(const atoll_scenario *s, uint32_t gpus, uint32_t step, uint32_t max_batch,
                                  double miss) {
  return (atoll_inss_plan_cfg){.gpus = gpus, .step_pct = step, .mem_mb = s->gpu.memory_mb, .max_batch = max_batch,
                               .miss = miss};
}

bool atoll__inss_gpu_plan(const atoll_scenario *s, uint32_t g, const double *rates, uint32_t step_pct,
                          uint32_t max_batch, double miss, uint32_t *idx, uint32_t *n, atoll_inss_plan *plan) {
  atoll_inss_demand d[ATOLL_INSS_MAX_MODELS];
  uint32_t k = 0;
  *n = 0;
  if (!s->inss)
    return false;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (s->clients[c].gpu != g)
      continue;
    uint32_t p = atoll__inss_profile_of(s, c);
    if (k >= ATOLL_INSS_MAX_MODELS || p == UINT32_MAX)
      return false;
    d[k] = (atoll_inss_demand){.prof = p, .lambda = rates ? rates[c] : atoll__inss_declared_rate(s, c),
                               .slo_ns = atoll__inss_slo_ns(s, c), .gpu = 0};
    idx[k++] = c;
  }
  *n = k;
  atoll_inss_plan_cfg cfg = cfg_of(s, 1, step_pct, max_batch, miss);
  atoll_inss_decide(s->inss, d, k, &cfg, plan);
  return k > 0;
}

bool atoll__inss_place(const atoll_scenario *s, atoll_client *clients, uint32_t step_pct, uint32_t max_batch,
                       double miss) {
  atoll_inss_demand d[ATOLL_INSS_MAX_MODELS];
  if (!s->inss || s->n_clients > ATOLL_INSS_MAX_MODELS)
    return false;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    uint32_t p = atoll__inss_profile_of(s, c);
    if (p == UINT32_MAX)
      return false;
    d[c] = (atoll_inss_demand){.prof = p, .lambda = atoll__inss_declared_rate(s, c), .slo_ns = atoll__inss_slo_ns(s, c),
                               .gpu = clients[c].gpu_given ? (int32_t)clients[c].gpu : -1};
  }
  atoll_inss_plan_cfg cfg = cfg_of(s, atoll_scenario_gpus(s), step_pct, max_batch, miss);
  atoll_inss_plan plan;
  atoll_inss_decide(s->inss, d, s->n_clients, &cfg, &plan);
  bool changed = false;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (!clients[c].gpu_given && clients[c].gpu != plan.gpu[c]) {
      clients[c].gpu = plan.gpu[c];
      changed = true;
    }
  return changed;
}
