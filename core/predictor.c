/* Abacus's overlap-aware latency predictor: features of an operator group, the MLP's forward pass
 * and its training (include/atoll/predictor.h). Double precision and a fixed order of operations
 * everywhere, and a private random generator, so training and prediction are deterministic. */
#include <math.h>
#include <string.h>

#include "atoll/predictor.h"

int64_t atoll_model_slice_ns(const atoll_model *m, uint32_t start, uint32_t end) {
  int64_t sum = 0;
  for (uint32_t i = start; i < end && i < m->n_ops; i++)
    sum += m->ops[i].kind == ATOLL_OP_KERNEL ? m->ops[i].shape.time_ns : m->ops[i].copy_time_ns;
  return sum;
}

uint32_t atoll_predictor_features(const atoll_model *const *models, uint32_t n_models, uint32_t batch,
                                  const atoll_group *g, double *x) {
  if (n_models > ATOLL_PRED_MAX_MODELS)
    n_models = ATOLL_PRED_MAX_MODELS;
  uint32_t n_in = n_models * ATOLL_PRED_PER_MODEL + 1;
  for (uint32_t i = 0; i < n_in; i++)
    x[i] = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t m = g->model[i];
    if (m >= n_models || models[m]->n_ops == 0)
      continue;
    double n_ops = (double)models[m]->n_ops;
    double *f = &x[m * ATOLL_PRED_PER_MODEL];
    f[0] = 1;
    f[1] = (double)g->op_start[i] / n_ops;
    f[2] = (double)g->op_end[i] / n_ops;
    f[3] = (double)atoll_model_slice_ns(models[m], g->op_start[i], g->op_end[i]) / 1e6;
  }
  x[n_in - 1] = (double)batch;
  return n_in;
}

/* Leaky ReLU: a unit pushed below zero by an unlucky step still learns. */
static double act(double v) { return v > 0 ? v : 0.01 * v; }
static double act_grad(double v) { return v > 0 ? 1 : 0.01; }

/* The forward pass from normalised inputs; keeps every layer's pre-activations in z when not NULL
 * (for training). Returns the normalised output. */
static double forward(const atoll_mlp *m, const double *xn, double z[ATOLL_PRED_LAYERS][ATOLL_PRED_HIDDEN]) {
  double h[ATOLL_PRED_HIDDEN], h2[ATOLL_PRED_HIDDEN], zz[ATOLL_PRED_HIDDEN];
  for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++) {
    double s = m->b0[j];
    for (uint32_t i = 0; i < m->n_in; i++)
      s += m->w0[j][i] * xn[i];
    zz[j] = s;
    h[j] = act(s);
  }
  if (z)
    memcpy(z[0], zz, sizeof zz);
  for (uint32_t l = 0; l + 1 < ATOLL_PRED_LAYERS; l++) {
    for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++) {
      double s = m->b[l][j];
      for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++)
        s += m->w[l][j][i] * h[i];
      zz[j] = s;
      h2[j] = act(s);
    }
    if (z)
      memcpy(z[l + 1], zz, sizeof zz);
    memcpy(h, h2, sizeof h);
  }
  double out = m->bo;
  for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++)
    out += m->wo[i] * h[i];
  return out;
}

static void normalise(const atoll_mlp *m, const double *x, double *xn) {
  for (uint32_t i = 0; i < m->n_in; i++)
    xn[i] = (x[i] - m->in_mean[i]) * m->in_scale[i];
}

double atoll_mlp_forward_ns(const atoll_mlp *m, const double *x) {
  double xn[ATOLL_PRED_MAX_IN];
  normalise(m, x, xn);
  double out = forward(m, xn, NULL) * m->out_scale + m->out_mean;
  return exp(out) * 1000.0; /* the network predicts ln(us) */
}

int64_t atoll_predictor_predict_ns(const atoll_predictor *p, const atoll_model *const *models, const atoll_group *g) {
  double x[ATOLL_PRED_MAX_IN];
  atoll_predictor_features(models, p->n_models, p->batch, g, x);
  double ns = atoll_mlp_forward_ns(&p->mlp, x);
  return ns < 9.0e18 ? (int64_t)llround(ns) : INT64_MAX;
}

/* --- training --- */

/* splitmix64: a small generator of our own, so training draws the same numbers on every libc. */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) * (1.0 / 9007199254740992.0); }

/* Every trainable parameter as one flat array view, so Adam treats them alike. */
enum {
  N_W0 = ATOLL_PRED_HIDDEN * ATOLL_PRED_MAX_IN,
  N_W = (ATOLL_PRED_LAYERS - 1) * ATOLL_PRED_HIDDEN * ATOLL_PRED_HIDDEN,
  N_PARAMS = N_W0 + ATOLL_PRED_HIDDEN + N_W + (ATOLL_PRED_LAYERS - 1) * ATOLL_PRED_HIDDEN + ATOLL_PRED_HIDDEN + 1
};

typedef struct grads {
  double w0[ATOLL_PRED_HIDDEN][ATOLL_PRED_MAX_IN], b0[ATOLL_PRED_HIDDEN];
  double w[ATOLL_PRED_LAYERS - 1][ATOLL_PRED_HIDDEN][ATOLL_PRED_HIDDEN], b[ATOLL_PRED_LAYERS - 1][ATOLL_PRED_HIDDEN];
  double wo[ATOLL_PRED_HIDDEN], bo;
} grads;

/* The parameters of the MLP laid out as a grads struct (same member order and types). */
static void params_to(const atoll_mlp *m, grads *p) {
  memcpy(p->w0, m->w0, sizeof p->w0);
  memcpy(p->b0, m->b0, sizeof p->b0);
  memcpy(p->w, m->w, sizeof p->w);
  memcpy(p->b, m->b, sizeof p->b);
  memcpy(p->wo, m->wo, sizeof p->wo);
  p->bo = m->bo;
}
static void params_from(atoll_mlp *m, const grads *p) {
  memcpy(m->w0, p->w0, sizeof p->w0);
  memcpy(m->b0, p->b0, sizeof p->b0);
  memcpy(m->w, p->w, sizeof p->w);
  memcpy(m->b, p->b, sizeof p->b);
  memcpy(m->wo, p->wo, sizeof p->wo);
  m->bo = p->bo;
}

/* Adds the gradient of 0.5 * (out - t)^2 for one normalised sample to g. */
static void backprop(const atoll_mlp *m, const double *xn, double t, grads *g) {
  double z[ATOLL_PRED_LAYERS][ATOLL_PRED_HIDDEN];
  double out = forward(m, xn, z);
  double d_out = out - t;
  double delta[ATOLL_PRED_HIDDEN], prev[ATOLL_PRED_HIDDEN];
  uint32_t last = ATOLL_PRED_LAYERS - 1;
  for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++) {
    g->wo[i] += d_out * act(z[last][i]);
    delta[i] = d_out * m->wo[i] * act_grad(z[last][i]);
  }
  g->bo += d_out;
  for (uint32_t l = last; l >= 1; l--) {
    const double(*w)[ATOLL_PRED_HIDDEN] = m->w[l - 1];
    for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++) {
      g->b[l - 1][j] += delta[j];
      for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++)
        g->w[l - 1][j][i] += delta[j] * act(z[l - 1][i]);
    }
    for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++) {
      double s = 0;
      for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++)
        s += w[j][i] * delta[j];
      prev[i] = s * act_grad(z[l - 1][i]);
    }
    memcpy(delta, prev, sizeof delta);
  }
  for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++) {
    g->b0[j] += delta[j];
    for (uint32_t i = 0; i < m->n_in; i++)
      g->w0[j][i] += delta[j] * xn[i];
  }
}

static uint64_t gcd_u64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

typedef struct adam {
  grads mom, vel;
  uint64_t t;
} adam;

static void adam_step(grads *p, const grads *g, adam *a, double lr, double scale) {
  double *pp = (double *)p, *m = (double *)&a->mom, *v = (double *)&a->vel;
  const double *gg = (const double *)g;
  a->t++;
  double c1 = 1 - pow(0.9, (double)a->t), c2 = 1 - pow(0.999, (double)a->t);
  for (size_t i = 0; i < sizeof(grads) / sizeof(double); i++) {
    double gi = gg[i] * scale;
    m[i] = 0.9 * m[i] + 0.1 * gi;
    v[i] = 0.999 * v[i] + 0.001 * gi * gi;
    pp[i] -= lr * (m[i] / c1) / (sqrt(v[i] / c2) + 1e-8);
  }
}

/* Statics would make training non-reentrant; the large work areas are the caller's stack frames
 * here, sized by the fixed network (a few hundred KB). */
void atoll_mlp_train(atoll_mlp *m, uint32_t n_in, const double *x, const double *y_ns, uint32_t n, uint32_t epochs,
                     uint64_t seed) {
  memset(m, 0, sizeof *m);
  m->n_in = n_in;
  if (n == 0)
    return;
  /* Normalisation: zero mean, unit spread; a constant input gets scale 0 (it carries nothing). */
  for (uint32_t i = 0; i < n_in; i++) {
    double s = 0, s2 = 0;
    for (uint32_t k = 0; k < n; k++)
      s += x[(size_t)k * n_in + i];
    double mean = s / n;
    for (uint32_t k = 0; k < n; k++) {
      double d = x[(size_t)k * n_in + i] - mean;
      s2 += d * d;
    }
    double sd = sqrt(s2 / n);
    m->in_mean[i] = mean;
    m->in_scale[i] = sd > 1e-12 ? 1.0 / sd : 0;
  }
  double s = 0, s2 = 0;
  for (uint32_t k = 0; k < n; k++)
    s += log(y_ns[k] / 1000.0);
  m->out_mean = s / n;
  for (uint32_t k = 0; k < n; k++) {
    double d = log(y_ns[k] / 1000.0) - m->out_mean;
    s2 += d * d;
  }
  m->out_scale = s2 > 0 ? sqrt(s2 / n) : 1;
  /* He-style initialisation from the seed. */
  uint64_t rng = seed;
  double r0 = sqrt(6.0 / n_in), r = sqrt(6.0 / ATOLL_PRED_HIDDEN);
  for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++)
    for (uint32_t i = 0; i < n_in; i++)
      m->w0[j][i] = (2 * uniform(&rng) - 1) * r0;
  for (uint32_t l = 0; l + 1 < ATOLL_PRED_LAYERS; l++)
    for (uint32_t j = 0; j < ATOLL_PRED_HIDDEN; j++)
      for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++)
        m->w[l][j][i] = (2 * uniform(&rng) - 1) * r;
  for (uint32_t i = 0; i < ATOLL_PRED_HIDDEN; i++)
    m->wo[i] = (2 * uniform(&rng) - 1) * r;

  enum { BATCH = 32 };
  static const double lr0 = 3e-3;
  adam a;
  grads g, p;
  memset(&a, 0, sizeof a);
  double xn[ATOLL_PRED_MAX_IN];
  /* Sample order: a permutation redrawn every epoch (Fisher-Yates on an index array the size of
   * the data would need allocation; a multiplicative walk with a random odd stride and offset
   * visits every sample once per epoch instead). */
  for (uint32_t e = 0; e < epochs; e++) {
    uint64_t stride = 0, off = next_u64(&rng) % n;
    do
      stride = next_u64(&rng) % n;
    while (n > 1 && (stride == 0 || gcd_u64(stride, n) != 1));
    if (n == 1)
      stride = 1;
    /* The learning rate decays linearly to a tenth over the run. */
    double lr = lr0 * (1.0 - 0.9 * (double)e / (double)epochs);
    uint32_t k = 0;
    while (k < n) {
      memset(&g, 0, sizeof g);
      uint32_t b = 0;
      for (; b < BATCH && k < n; b++, k++) {
        uint32_t idx = (uint32_t)((off + (uint64_t)k * stride) % n);
        normalise(m, &x[(size_t)idx * n_in], xn);
        double t = (log(y_ns[idx] / 1000.0) - m->out_mean) / m->out_scale;
        backprop(m, xn, t, &g);
      }
      params_to(m, &p);
      adam_step(&p, &g, &a, lr, 1.0 / b);
      params_from(m, &p);
    }
  }
}
