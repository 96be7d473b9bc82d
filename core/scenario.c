/* Scenario invariants and the name tables of policies and simulator engines. */
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "atoll/scenario.h"

static const char *const policy_names[ATOLL_POLICY_COUNT] = {
#define ATOLL_POLICY_TEXT(id, text, ops) text,
    ATOLL_POLICY_LIST(ATOLL_POLICY_TEXT)
#undef ATOLL_POLICY_TEXT
};

const char *atoll_policy_name(atoll_policy_kind k) {
  return (unsigned)k < ATOLL_POLICY_COUNT ? policy_names[k] : "?";
}

int atoll_policy_from_name(const char *name, atoll_policy_kind *out) {
  for (int k = 0; k < ATOLL_POLICY_COUNT; k++) {
    if (strcmp(policy_names[k], name) == 0) {
      *out = (atoll_policy_kind)k;
      return ATOLL_OK;
    }
  }
  return ATOLL_ENOENT;
}

const char *const atoll_sim_engine_names[ATOLL_ENGINE_COUNT] = {
    [ATOLL_ENGINE_BLOCKS] = "blocks", [ATOLL_ENGINE_FLUID] = "fluid", [ATOLL_ENGINE_RATE] = "rate"};

const char *atoll_sim_engine_name(atoll_sim_engine e) {
  return (unsigned)e < ATOLL_ENGINE_COUNT ? atoll_sim_engine_names[e] : "?";
}

int atoll_sim_engine_from_name(const char *name, atoll_sim_engine *out) {
  for (unsigned i = 0; i < ATOLL_ENGINE_COUNT; i++)
    if (strcmp(name, atoll_sim_engine_names[i]) == 0) {
      *out = (atoll_sim_engine)i;
      return ATOLL_OK;
    }
  return ATOLL_ENOENT;
}

const char *atoll_cmp_text(atoll_cmp c) {
  static const char *const text[] = {"<=", ">=", "<", ">"};
  return (unsigned)c < 4 ? text[c] : "?";
}

bool atoll_arrival_is_valid(const atoll_arrival *a) {
  switch (a->kind) {
  case ATOLL_ARRIVAL_UNIFORM:
  case ATOLL_ARRIVAL_POISSON:
    /* Exactly one of rate and load. */
    return (a->rate_hz > 0) != (a->load > 0);
  case ATOLL_ARRIVAL_CLOSED:
    return a->rate_hz == 0 && a->load == 0;
  case ATOLL_ARRIVAL_STEP: {
    if (a->n_steps == 0 || !a->step_at_ns || !a->step_rate_hz || a->step_at_ns[0] != 0)
      return false;
    bool any = false;
    for (uint32_t i = 0; i < a->n_steps; i++) {
      if (!(a->step_rate_hz[i] >= 0 && a->step_rate_hz[i] <= 1e9) || (i > 0 && a->step_at_ns[i] <= a->step_at_ns[i - 1]))
        return false;
      any = any || a->step_rate_hz[i] > 0;
    }
    return any;
  }
  case ATOLL_ARRIVAL_TRACE:
    if (a->n_times == 0 || !a->times_ns || a->repeat_ns < 0)
      return false;
    for (uint32_t i = 0; i < a->n_times; i++)
      if (a->times_ns[i] < 0 || (i > 0 && a->times_ns[i] < a->times_ns[i - 1]))
        return false;
    /* A repeating trace must fit inside its period, or replays would overlap out of order. */
    return a->repeat_ns == 0 || a->times_ns[a->n_times - 1] < a->repeat_ns;
  }
  return false;
}

bool atoll_scenario_is_valid(const atoll_scenario *s) {
  if (!s || !atoll_gpu_is_valid(&s->gpu) || s->n_models == 0 || s->n_clients == 0)
    return false;
  if (s->duration_ns <= 0 || s->warmup_ns < 0 || s->warmup_ns >= s->duration_ns)
    return false;
  if ((unsigned)s->policy.kind >= ATOLL_POLICY_COUNT || s->run_gpu >= atoll_scenario_gpus(s))
    return false;
  for (uint32_t m = 0; m < s->n_models; m++)
    if (!s->models[m].name || !atoll_model_is_valid(&s->models[m].model) ||
        strcmp(s->models[m].model.gpu, s->gpu.name) != 0)
      return false;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    if (!cl->name || cl->model >= s->n_models || !atoll_arrival_is_valid(&cl->arrival) || cl->deadline_ns < 0)
      return false;
    if (cl->gpu >= atoll_scenario_gpus(s) || cl->batch_max > ATOLL_MAX_BATCH || cl->batch_timeout_ns < 0)
      return false;
    for (uint32_t d = 0; d < c; d++)
      if (strcmp(s->clients[d].name, cl->name) == 0)
        return false;
  }
  for (uint32_t e = 0; e < s->n_expects; e++)
    if (!s->expects[e].field || (unsigned)s->expects[e].cmp > ATOLL_CMP_GT)
      return false;
  return true;
}

int64_t atoll_model_reference_latency_ns(const atoll_model *m) {
  if (m->measured_latency_ns > 0)
    return m->measured_latency_ns;
  int64_t sum = 0;
  for (uint32_t i = 0; i < m->n_ops; i++)
    sum += m->ops[i].kind == ATOLL_OP_KERNEL ? m->ops[i].shape.time_ns : m->ops[i].copy_time_ns;
  return sum;
}

uint32_t atoll_scenario_gpus(const atoll_scenario *s) { return s->gpu_count ? s->gpu_count : 1; }

void atoll_scenario_place_clients(atoll_scenario *s, atoll_client *clients) {
  uint32_t n = atoll_scenario_gpus(s), count[ATOLL_MAX_GPUS] = {0};
  if (n > ATOLL_MAX_GPUS)
    n = ATOLL_MAX_GPUS;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (clients[c].gpu_given && clients[c].gpu < n)
      count[clients[c].gpu]++;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (clients[c].gpu_given)
      continue;
    uint32_t best = 0;
    for (uint32_t g = 1; g < n; g++)
      if (count[g] < count[best])
        best = g;
    clients[c].gpu = best;
    count[best]++;
  }
}

