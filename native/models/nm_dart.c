/* nm_dart.c — DART's light models (docs/dart.md) built from the kernel library, at their real
 * sizes: "pilotnet" (NVIDIA's PilotNet) and "lenet" (Caffe's LeNet). Their simulated counterparts
 * are generated from the same layer tables (tools/gen-layer-models.py).
 *
 *   pilotnet: [3][66][200] -> conv 5x5/2 24, 36, 48 -> conv 3x3 64, 64 (each + bias + ReLU)
 *             -> [64][1][18] = 1152 -> dense 100, 50, 10 (+ ReLU) -> dense 1          output [1]
 *   lenet:    [1][28][28] -> conv 5x5 20 (+bias) -> maxpool 2 -> conv 5x5 50 (+bias) -> maxpool 2
 *             -> dense 800->500 + ReLU -> dense 10 -> softmax                      output [10]
 *
 * Every op writes a fresh tensor, so every kernel is idempotent. */
#include <math.h>

#include "native/models/nm_build.h"

static nm_def pilot_def, lenet_def;

static void pilot_weights(void *const *host_tensors) { atoll__nm_init_weights(&pilot_def, host_tensors); }
static void pilot_input(uint64_t request, void *host_input) { atoll__nm_make_input(&pilot_def, request, host_input); }
static void lenet_weights(void *const *host_tensors) { atoll__nm_init_weights(&lenet_def, host_tensors); }
static void lenet_input(uint64_t request, void *host_input) { atoll__nm_make_input(&lenet_def, request, host_input); }

static uint32_t act(nm_def *d, const char *name, uint64_t floats) {
  return atoll__nm_tensor(d, name, floats, ATOLL_TENSOR_INTERMEDIATE);
}

/* conv k x k / s, no padding, + bias + ReLU: [cin][h][w] -> [cout][ho][wo]. */
static uint32_t conv_relu(nm_def *d, const char *name, uint32_t x, uint32_t cin, uint32_t h, uint32_t w, uint32_t cout,
                          uint32_t k, uint32_t s, uint32_t *ho, uint32_t *wo) {
  *ho = (h - k) / s + 1, *wo = (w - k) / s + 1;
  uint32_t wt = atoll__nm_weight(d, atoll__nm_name(d, "%s_w", name), (uint64_t)cout * cin * k * k,
                                 sqrtf(6.0f / (float)(cin * k * k)), 0.0f);
  uint32_t b = atoll__nm_weight(d, atoll__nm_name(d, "%s_b", name), cout, 0.1f, 0.0f);
  uint32_t c = act(d, atoll__nm_name(d, "%s_out", name), (uint64_t)cout * *ho * *wo);
  uint32_t a = act(d, atoll__nm_name(d, "%s_act", name), (uint64_t)cout * *ho * *wo);
  atoll__nm_conv(d, name, x, wt, ATOLL_NARG_NONE, c, cin, h, w, cout, k, s, 0);
  atoll__nm_bias_relu(d, atoll__nm_name(d, "%s_bias_relu", name), c, b, a, cout, *ho * *wo, 1);
  return a;
}

/* dense k -> n (+ bias), then ReLU when relu. */
static uint32_t dense(nm_def *d, const char *name, uint32_t x, uint32_t k, uint32_t n, int relu, uint32_t out) {
  uint32_t wt = atoll__nm_weight(d, atoll__nm_name(d, "%s_w", name), (uint64_t)k * n, sqrtf(3.0f / (float)k), 0.0f);
  uint32_t b = atoll__nm_weight(d, atoll__nm_name(d, "%s_b", name), n, 0.1f, 0.0f);
  uint32_t y = relu || out == ATOLL_NARG_NONE ? act(d, atoll__nm_name(d, "%s_out", name), n) : out;
  atoll__nm_linear(d, name, x, wt, b, y, 1, n, k);
  if (!relu)
    return y;
  uint32_t a = out != ATOLL_NARG_NONE ? out : act(d, atoll__nm_name(d, "%s_act", name), n);
  atoll__nm_bias_relu(d, atoll__nm_name(d, "%s_relu", name), y, ATOLL_NARG_NONE, a, 1, n, 1);
  return a;
}

const atoll_nmodel *atoll__nm_pilotnet(const char **error) {
  nm_def *d = &pilot_def;
  atoll__nm_begin(d, "pilotnet");
  uint32_t x = atoll__nm_tensor(d, "frame", 3 * 66 * 200, ATOLL_TENSOR_INPUT);
  uint32_t y = atoll__nm_tensor(d, "steering", 1, ATOLL_TENSOR_OUTPUT);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  static const uint32_t couts[5] = {24, 36, 48, 64, 64}, ks[5] = {5, 5, 5, 3, 3}, ss[5] = {2, 2, 2, 1, 1};
  uint32_t a = x, c = 3, h = 66, w = 200;
  for (uint32_t i = 0; i < 5; i++) {
    uint32_t ho, wo;
    a = conv_relu(d, atoll__nm_name(d, "conv%u", i + 1), a, c, h, w, couts[i], ks[i], ss[i], &ho, &wo);
    c = couts[i], h = ho, w = wo;
  }
  /* [64][1][18] = 1152, read as a vector. */
  a = dense(d, "fc1", a, c * h * w, 100, 1, ATOLL_NARG_NONE);
  a = dense(d, "fc2", a, 100, 50, 1, ATOLL_NARG_NONE);
  a = dense(d, "fc3", a, 50, 10, 1, ATOLL_NARG_NONE);
  dense(d, "fc4", a, 10, 1, 0, y);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, y);
  d->m.init_weights = pilot_weights;
  d->m.make_input = pilot_input;
  *error = atoll__nm_end(d, x, y);
  return *error ? NULL : &d->m;
}

const atoll_nmodel *atoll__nm_lenet(const char **error) {
  nm_def *d = &lenet_def;
  atoll__nm_begin(d, "lenet");
  uint32_t x = atoll__nm_tensor(d, "digit", 28 * 28, ATOLL_TENSOR_INPUT);
  uint32_t y = atoll__nm_tensor(d, "probs", 10, ATOLL_TENSOR_OUTPUT);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  uint32_t ho, wo;
  /* Caffe's LeNet has no ReLU after its convolutions: bias only. */
  uint32_t w1 = atoll__nm_weight(d, "conv1_w", 20 * 25, sqrtf(6.0f / 25.0f), 0.0f);
  uint32_t b1 = atoll__nm_weight(d, "conv1_b", 20, 0.1f, 0.0f);
  uint32_t c1 = act(d, "conv1_out", 20 * 24 * 24), c1b = act(d, "conv1_bias", 20 * 24 * 24);
  uint32_t p1 = act(d, "pool1", 20 * 12 * 12);
  atoll__nm_conv(d, "conv1", x, w1, ATOLL_NARG_NONE, c1, 1, 28, 28, 20, 5, 1, 0);
  atoll__nm_bias_relu(d, "conv1_bias", c1, b1, c1b, 20, 24 * 24, 0);
  atoll__nm_pool(d, "pool1", 1, c1b, p1, 20, 24, 24, 2, 2);
  uint32_t w2 = atoll__nm_weight(d, "conv2_w", 50 * 20 * 25, sqrtf(6.0f / 500.0f), 0.0f);
  uint32_t b2 = atoll__nm_weight(d, "conv2_b", 50, 0.1f, 0.0f);
  uint32_t c2 = act(d, "conv2_out", 50 * 8 * 8), c2b = act(d, "conv2_bias", 50 * 8 * 8);
  uint32_t p2 = act(d, "pool2", 50 * 4 * 4);
  atoll__nm_conv(d, "conv2", p1, w2, ATOLL_NARG_NONE, c2, 20, 12, 12, 50, 5, 1, 0);
  atoll__nm_bias_relu(d, "conv2_bias", c2, b2, c2b, 50, 8 * 8, 0);
  atoll__nm_pool(d, "pool2", 1, c2b, p2, 50, 8, 8, 2, 2);
  (void)ho, (void)wo;
  uint32_t f1 = dense(d, "ip1", p2, 800, 500, 1, ATOLL_NARG_NONE);
  uint32_t logits = dense(d, "ip2", f1, 500, 10, 0, ATOLL_NARG_NONE);
  atoll__nm_softmax(d, "prob", logits, y, 1, 10);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, y);
  d->m.init_weights = lenet_weights;
  d->m.make_input = lenet_input;
  *error = atoll__nm_end(d, x, y);
  return *error ? NULL : &d->m;
}
