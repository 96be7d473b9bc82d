/* nm_cnn.c — "cnn": a small image classifier built from the kernel library, the native
 * counterpart of the convolutional models REEF serves (ResNet-like, at toy size).
 *
 *   input [3][32][32]
 *   conv1 3->16 3x3 pad 1, bias+relu, maxpool 2        -> [16][16][16]
 *   conv2 16->32 3x3 pad 1, bias+relu                  -> a2 [32][16][16]
 *   residual block: conv3 + bias+relu, conv4 (+bias in the conv), add(a2, .), relu
 *   maxpool 2                                          -> [32][8][8]
 *   conv5 32->64 3x3 pad 1, bias+relu                  -> [64][8][8]
 *   global average pool 8x8                            -> [64]
 *   dense 64->10 (+bias), softmax                      -> output [10]
 *
 * Every op writes a fresh tensor, so every kernel is idempotent. Weights: He-style uniform
 * (scale sqrt(6 / fan_in)) so activations stay of order one through the network. */
#include <math.h>

#include "native/models/nm_build.h"

static nm_def def;

static void init_weights(void *const *host_tensors) { atoll__nm_init_weights(&def, host_tensors); }
static void make_input(uint64_t request, void *host_input) { atoll__nm_make_input(&def, request, host_input); }

static uint32_t conv_weight(nm_def *d, const char *name, uint32_t cout, uint32_t cin, uint32_t k) {
  return atoll__nm_weight(d, name, (uint64_t)cout * cin * k * k, sqrtf(6.0f / (float)(cin * k * k)), 0.0f);
}

const atoll_nmodel *atoll__nm_cnn(const char **error) {
  nm_def *d = &def;
  atoll__nm_begin(d, "cnn");
  const uint32_t NONE = ATOLL_NARG_NONE;
  uint32_t x = atoll__nm_tensor(d, "image", 3 * 32 * 32, ATOLL_TENSOR_INPUT);
  uint32_t w1 = conv_weight(d, "conv1_w", 16, 3, 3), b1 = atoll__nm_weight(d, "conv1_b", 16, 0.1f, 0.0f);
  uint32_t w2 = conv_weight(d, "conv2_w", 32, 16, 3), b2 = atoll__nm_weight(d, "conv2_b", 32, 0.1f, 0.0f);
  uint32_t w3 = conv_weight(d, "conv3_w", 32, 32, 3), b3 = atoll__nm_weight(d, "conv3_b", 32, 0.1f, 0.0f);
  uint32_t w4 = conv_weight(d, "conv4_w", 32, 32, 3), b4 = atoll__nm_weight(d, "conv4_b", 32, 0.1f, 0.0f);
  uint32_t w5 = conv_weight(d, "conv5_w", 64, 32, 3), b5 = atoll__nm_weight(d, "conv5_b", 64, 0.1f, 0.0f);
  uint32_t wd = atoll__nm_weight(d, "dense_w", 64 * 10, sqrtf(3.0f / 64.0f), 0.0f);
  uint32_t bd = atoll__nm_weight(d, "dense_b", 10, 0.1f, 0.0f);
  uint32_t c1 = atoll__nm_tensor(d, "c1", 16 * 32 * 32, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a1 = atoll__nm_tensor(d, "a1", 16 * 32 * 32, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t p1 = atoll__nm_tensor(d, "p1", 16 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t c2 = atoll__nm_tensor(d, "c2", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a2 = atoll__nm_tensor(d, "a2", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t c3 = atoll__nm_tensor(d, "c3", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a3 = atoll__nm_tensor(d, "a3", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t c4 = atoll__nm_tensor(d, "c4", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t r4 = atoll__nm_tensor(d, "r4", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a4 = atoll__nm_tensor(d, "a4", 32 * 16 * 16, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t p2 = atoll__nm_tensor(d, "p2", 32 * 8 * 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t c5 = atoll__nm_tensor(d, "c5", 64 * 8 * 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a5 = atoll__nm_tensor(d, "a5", 64 * 8 * 8, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t g = atoll__nm_tensor(d, "pooled", 64, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t logits = atoll__nm_tensor(d, "logits", 10, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t y = atoll__nm_tensor(d, "probs", 10, ATOLL_TENSOR_OUTPUT);

  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  atoll__nm_conv(d, "conv1", x, w1, NONE, c1, 3, 32, 32, 16, 3, 1, 1);
  atoll__nm_bias_relu(d, "conv1_bias_relu", c1, b1, a1, 16, 32 * 32, 1);
  atoll__nm_pool(d, "pool1", 1, a1, p1, 16, 32, 32, 2, 2);
  atoll__nm_conv(d, "conv2", p1, w2, NONE, c2, 16, 16, 16, 32, 3, 1, 1);
  atoll__nm_bias_relu(d, "conv2_bias_relu", c2, b2, a2, 32, 16 * 16, 1);
  atoll__nm_conv(d, "conv3", a2, w3, NONE, c3, 32, 16, 16, 32, 3, 1, 1);
  atoll__nm_bias_relu(d, "conv3_bias_relu", c3, b3, a3, 32, 16 * 16, 1);
  atoll__nm_conv(d, "conv4", a3, w4, b4, c4, 32, 16, 16, 32, 3, 1, 1);
  atoll__nm_add(d, "residual_add", a2, c4, r4);
  atoll__nm_bias_relu(d, "residual_relu", r4, NONE, a4, 32, 16 * 16, 1);
  atoll__nm_pool(d, "pool2", 1, a4, p2, 32, 16, 16, 2, 2);
  atoll__nm_conv(d, "conv5", p2, w5, NONE, c5, 32, 8, 8, 64, 3, 1, 1);
  atoll__nm_bias_relu(d, "conv5_bias_relu", c5, b5, a5, 64, 8 * 8, 1);
  atoll__nm_pool(d, "global_avgpool", 0, a5, g, 64, 8, 8, 8, 8);
  atoll__nm_linear(d, "dense", g, wd, bd, logits, 1, 10, 64);
  atoll__nm_softmax(d, "softmax", logits, y, 1, 10);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, y);

  d->m.init_weights = init_weights;
  d->m.make_input = make_input;
  *error = atoll__nm_end(d, x, y);
  return *error ? NULL : &d->m;
}
