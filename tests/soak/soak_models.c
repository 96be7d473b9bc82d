/* The soak's scenario built in code (soak_models.h). */
#include "tests/soak/soak_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/models/nm_build.h"
#include "native/models/nmodel_profile.h"

static nm_def mini;
static const atoll_nmodel *mini_model;

static void mini_weights(void *const *host) { atoll__nm_init_weights(&mini, host); }
static void mini_input(uint64_t request, void *buf) { atoll__nm_make_input(&mini, request, buf); }

/* [3][8][8] -> conv 3x3 to 8 channels, bias+relu -> global average pool -> dense 8->4 -> softmax.
 * Every op writes a fresh tensor (all idempotent), so the mini model's restores are plain. */
const atoll_nmodel *soak_mini_model(void) {
  if (mini_model)
    return mini_model;
  nm_def *d = &mini;
  const uint32_t NONE = ATOLL_NARG_NONE;
  atoll__nm_begin(d, "soak_mini");
  uint32_t x = atoll__nm_tensor(d, "image", 3 * 8 * 8, ATOLL_TENSOR_INPUT);
  uint32_t w1 = atoll__nm_weight(d, "conv_w", 8 * 3 * 3 * 3, sqrtf(6.0f / 27.0f), 0.0f);
  uint32_t b1 = atoll__nm_weight(d, "conv_b", 8, 0.1f, 0.0f);
  uint32_t wd = atoll__nm_weight(d, "dense_w", 8 * 4, sqrtf(3.0f / 8.0f), 0.0f);
  uint32_t bd = atoll__nm_weight(d, "dense_b", 4, 0.1f, 0.0f);
  uint32_t c1 = atoll__nm_tensor(d, "c1", 8 * 8 * 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a1 = atoll__nm_tensor(d, "a1", 8 * 8 * 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t g = atoll__nm_tensor(d, "pooled", 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t logits = atoll__nm_tensor(d, "logits", 4, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t y = atoll__nm_tensor(d, "probs", 4, ATOLL_TENSOR_OUTPUT);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  atoll__nm_conv(d, "conv", x, w1, NONE, c1, 3, 8, 8, 8, 3, 1, 1);
  atoll__nm_bias_relu(d, "conv_bias_relu", c1, b1, a1, 8, 8 * 8, 1);
  atoll__nm_pool(d, "global_avgpool", 0, a1, g, 8, 8, 8, 8, 8);
  atoll__nm_linear(d, "dense", g, wd, bd, logits, 1, 4, 8);
  atoll__nm_softmax(d, "softmax", logits, y, 1, 4);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, y);
  d->m.init_weights = mini_weights;
  d->m.make_input = mini_input;
  if (atoll__nm_end(d, x, y) != NULL)
    return NULL;
  mini_model = &d->m;
  return mini_model;
}

/* The profile of nm: single-thread CPU times (fastest of `repeats` runs per launch). */
static int profile(soak_scenario *f, uint32_t m, const atoll_nmodel *nm, const atoll_gpu *g, char *err,
                   size_t err_len) {
  atoll_nmodel_vtime *vt = calloc((size_t)nm->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
  if (!vt)
    return ATOLL_ENOMEM;
  int64_t latency = 0;
  int rc = atoll__nmodel_measure_cpu(nm, 5, vt, &latency);
  atoll_nmodel_times times = {.gpu = g->name, .cus = g->cus, .source = "soak: single-thread CPU times",
                              .latency_ns = latency, .vt = vt};
  if (rc == 0)
    rc = atoll__nmodel_to_model(nm, &times, &f->arena, &f->models[m].model);
  free(vt);
  if (rc) {
    snprintf(err, err_len, "profile of native model '%s': %s", nm->name, atoll_strerror(rc));
    return rc;
  }
  f->nmodels[m] = nm;
  f->models[m].name = nm->name;
  f->models[m].path = "(soak)";
  return 0;
}

int soak_build(soak_scenario *f, uint32_t cus, double rt_hz, uint64_t seed, char *err, size_t err_len) {
  memset(f, 0, sizeof *f);
  atoll_arena_init(&f->arena);
  /* The CPU device as the native runtime opens it: one block per CU worker. */
  atoll_gpu g = {.name = "cpu", .vendor = "cpu", .cus = cus, .max_blocks_per_cu = 1, .max_threads_per_cu = 1024,
                 .registers_per_cu = 65536, .shared_bytes_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 1,
                 .costs = {.hq_transmit_ns = 5000, .cp_dispatch_ns = 2500, .launch_sync_ns = 30000,
                           .cu_reset_ns = 25000, .hq_reset_per_cmd_ns = 10, .hq_reset_async_ns = 1000,
                           .evicted_kernel_ns = 3500, .kernel_select_ns = 500, .copy_latency_ns = 5000,
                           .copy_bytes_per_us = 5000}};
  enum { MINI, CNN, TRANSFORMER, INPLACE, N_MODELS };
  const atoll_nmodel *nm[N_MODELS] = {soak_mini_model(), atoll_nmodel_find("cnn"), atoll_nmodel_find("transformer"),
                                      atoll_nmodel_find("inplace")};
  for (uint32_t m = 0; m < N_MODELS; m++) {
    if (!nm[m]) {
      snprintf(err, err_len, "native model %u of the soak mix is missing from the catalogue", m);
      return ATOLL_EINVAL;
    }
    int rc = profile(f, m, nm[m], &g, err, err_len);
    if (rc)
      return rc;
  }
  static const struct {
    const char *name;
    uint32_t model;
    atoll_client_class cls;
    double rate_div; /* Poisson rate = rt_hz / rate_div; 0: closed loop */
  } mix[] = {{"rt_mini", MINI, ATOLL_CLASS_RT, 1},
             {"rt_cnn", CNN, ATOLL_CLASS_RT, 32},
             {"be_transformer", TRANSFORMER, ATOLL_CLASS_BE, 0},
             {"be_cnn", CNN, ATOLL_CLASS_BE, 0},
             {"be_inplace", INPLACE, ATOLL_CLASS_BE, 0},
             {"be_inplace2", INPLACE, ATOLL_CLASS_BE, 0}};
  uint32_t n_clients = sizeof mix / sizeof mix[0];
  for (uint32_t c = 0; c < n_clients; c++) {
    atoll_arrival a = {.kind = ATOLL_ARRIVAL_CLOSED};
    if (mix[c].rate_div > 0)
      a = (atoll_arrival){.kind = ATOLL_ARRIVAL_POISSON, .rate_hz = rt_hz / mix[c].rate_div};
    f->clients[c] = (atoll_client){.name = mix[c].name, .model = mix[c].model, .cls = mix[c].cls, .arrival = a};
  }
  bool versions = false;
  for (uint32_t m = 0; m < N_MODELS; m++)
    for (uint32_t i = 0; i < f->models[m].model.n_ops; i++)
      versions |= f->models[m].model.ops[i].n_versions > 0;
  f->s = (atoll_scenario){.path = "(soak)", .gpu = g, .models = f->models, .n_models = N_MODELS,
                          .clients = f->clients, .n_clients = n_clients,
                          .policy = {.kind = ATOLL_POLICY_REEF, .dkp = true, .multi_version = versions,
                                     .async_reclaim = true, .reset_cu = true},
                          .duration_ns = 10000000000, .seed = seed};
  return 0;
}

void soak_free(soak_scenario *f) { atoll_arena_free(&f->arena); }
