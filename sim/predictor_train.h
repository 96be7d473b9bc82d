/* Training abacus's latency predictor on the simulated GPU (docs/abacus.md): operator groups drawn
 * by Abacus's instance-based sampling (§5.4), each measured by running its slices together on an
 * idle simulated GPU of the scenario, then an MLP fitted on a training split and its error
 * measured on the held-out rest. */
#ifndef ATOLL_SIM_PREDICTOR_TRAIN_H
#define ATOLL_SIM_PREDICTOR_TRAIN_H

#include <stdint.h>

#include "atoll/predictor.h"
#include "atoll/scenario.h"

typedef struct atoll_predictor_train_opts {
  uint32_t samples;     /* groups drawn (train + test) */
  uint64_t seed;        /* the sampling, the split and the network's initialisation */
  uint32_t epochs;      /* passes over the training split */
  double test_fraction; /* held out */
  /* How one group's latency is measured; NULL: on the scenario's simulated GPU
   * (atoll_group_measure_sim). A native device plugs its measurement in here
   * (native/runtime/ngroup_time.h), so the sampling, the split and the training stay the same. */
  int (*measure)(void *ctx, const atoll_scenario *s, const atoll_group *g, int64_t *out_ns);
  void *measure_ctx;
} atoll_predictor_train_opts;

/* Held-out error by group size: [k] for groups of k models, [0] over all; p99 of |error|. */
typedef struct atoll_predictor_eval {
  uint32_t n[ATOLL_GROUP_MAX + 1];
  double mape[ATOLL_GROUP_MAX + 1];
  double p99_abs_err_us;
} atoll_predictor_eval;

/* The latency of group g run alone on the scenario's simulated GPU: its slices launched together
 * at time 0, one stream each, until the last kernel ends. */
int atoll_group_measure_sim(const atoll_scenario *s, const atoll_group *g, int64_t *out_ns);
/* Draws one group by instance-based sampling: the number of models (1 .. min(4, models)), which
 * models, how many of them complete in the group (at least one) and how many start at their first
 * operator; the other ends are drawn at random. */
void atoll_group_sample(const atoll_scenario *s, uint64_t *rng, atoll_group *g);
/* Samples, measures (o->measure, or the simulator), splits, trains; fills out (model names point into s) and the held-out error. */
int atoll_predictor_train_sim(const atoll_scenario *s, const atoll_predictor_train_opts *o, atoll_predictor *out,
                              atoll_predictor_eval *eval);

#endif
