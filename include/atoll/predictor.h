/* The overlap-aware latency predictor of Abacus (§5): an MLP of three hidden layers of 32 that
 * predicts how long an operator group takes, a group being a slice [op_start, op_end) of each of
 * up to four models launched together on their own streams. The arithmetic (features, forward
 * pass, training) is core/predictor.c, pure C in double precision with a fixed order of
 * operations, so a prediction is the same number wherever it runs; io/predictor_io.c reads and
 * writes the model file. docs/abacus.md describes the features and the training. */
#ifndef ATOLL_PREDICTOR_H
#define ATOLL_PREDICTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/model.h"

enum {
  ATOLL_PRED_HIDDEN = 32,    /* Abacus's hidden width */
  ATOLL_PRED_LAYERS = 3,     /* hidden layers */
  ATOLL_PRED_MAX_MODELS = 8, /* models one predictor covers (the bitmap's width) */
  ATOLL_PRED_PER_MODEL = 4,  /* features per model: present, op_start, op_end, standalone time of the slice */
  ATOLL_PRED_MAX_IN = ATOLL_PRED_MAX_MODELS * ATOLL_PRED_PER_MODEL + 1, /* + the batch */
  ATOLL_GROUP_MAX = 4        /* models in one operator group (Abacus's multi-way limit) */
};

/* One operator group: ops [op_start[i], op_end[i]) of scenario model model[i], i < n; at most one
 * slice per model. */
typedef struct atoll_group {
  uint32_t n;
  uint32_t model[ATOLL_GROUP_MAX];
  uint32_t op_start[ATOLL_GROUP_MAX], op_end[ATOLL_GROUP_MAX];
} atoll_group;

/* The MLP's parameters with the normalisation of its inputs and output; a plain value. */
typedef struct atoll_mlp {
  uint32_t n_in;
  double in_mean[ATOLL_PRED_MAX_IN], in_scale[ATOLL_PRED_MAX_IN];
  double out_mean, out_scale; /* of ln(latency in us) */
  double w0[ATOLL_PRED_HIDDEN][ATOLL_PRED_MAX_IN], b0[ATOLL_PRED_HIDDEN];
  double w[ATOLL_PRED_LAYERS - 1][ATOLL_PRED_HIDDEN][ATOLL_PRED_HIDDEN], b[ATOLL_PRED_LAYERS - 1][ATOLL_PRED_HIDDEN];
  double wo[ATOLL_PRED_HIDDEN], bo;
} atoll_mlp;

/* A trained predictor: the models it was trained for (their names and op counts, checked against
 * the scenario that uses it), the batch, the network, and the held-out error it was trained to. */
typedef struct atoll_predictor {
  uint32_t n_models;
  const char *model_names[ATOLL_PRED_MAX_MODELS];
  uint32_t model_ops[ATOLL_PRED_MAX_MODELS];
  uint32_t batch;
  atoll_mlp mlp;
  /* Held-out figures written by train-predictor (informational). */
  uint32_t train_samples, test_samples;
  double test_mape[ATOLL_GROUP_MAX + 1]; /* [k]: groups of k models; [0]: all */
} atoll_predictor;

/* The input features of group g for a predictor of n_models models (the first n_models of
 * `models`): for each model, whether it is in the group, op_start and op_end as fractions of its
 * op count, and the sum of its ops' standalone times in the slice (ms); then the batch. Returns
 * the number of features. */
uint32_t atoll_predictor_features(const atoll_model *const *models, uint32_t n_models, uint32_t batch,
                                  const atoll_group *g, double *x);
/* The forward pass on raw features: the predicted latency in ns. */
double atoll_mlp_forward_ns(const atoll_mlp *m, const double *x);
/* Features and forward pass together. */
int64_t atoll_predictor_predict_ns(const atoll_predictor *p, const atoll_model *const *models, const atoll_group *g);
/* Trains m (n_in inputs) on n samples x[i * n_in ..] -> y_ns[i]: inputs and output normalised,
 * ln(latency) fitted by Adam on mean squared error, weights and the order of samples drawn from
 * `seed`, so the same data and seed give the same network bit for bit. */
void atoll_mlp_train(atoll_mlp *m, uint32_t n_in, const double *x, const double *y_ns, uint32_t n, uint32_t epochs,
                     uint64_t seed);
/* The sum of the standalone times of ops [start, end) of m (kernels' time_ns, copies' copy time). */
int64_t atoll_model_slice_ns(const atoll_model *m, uint32_t start, uint32_t end);

#endif
