/* nm_inplace.c — "inplace": a residual network whose residual adds run IN PLACE (PyTorch's
 * `y += x`), so two of its kernels are not idempotent: re-running `y += x` alone after a kill
 * adds x twice. Their minimal idempotent groups start at the convolution that produced y, and a
 * restore must re-execute from there (docs/native-kernels.md shows the trace and the analysis).
 *
 *   input x [16][32][32]
 *   conv1 16->16 3x3 (+bias), relu                          -> a1
 *   conv2 16->16 3x3 (+bias)                                -> y
 *   y += x                (in place: group entry conv2)
 *   relu                                                    -> a2
 *   conv3 16->16 3x3 (+bias)                                -> z
 *   z += a2               (in place: group entry conv3)
 *   global average pool 32x32, dense 16->10, softmax        -> output [10]  */
#include <math.h>

#include "native/models/nm_build.h"

static nm_def def;

static void init_weights(void *const *host_tensors) { atoll__nm_init_weights(&def, host_tensors); }
static void make_input(uint64_t request, void *host_input) { atoll__nm_make_input(&def, request, host_input); }

const atoll_nmodel *atoll__nm_inplace(const char **error) {
  nm_def *d = &def;
  atoll__nm_begin(d, "inplace");
  const uint32_t C = 16, H = 32, NONE = ATOLL_NARG_NONE;
  const float ws = sqrtf(6.0f / (float)(C * 9));
  uint32_t x = atoll__nm_tensor(d, "x", C * H * H, ATOLL_TENSOR_INPUT);
  uint32_t w1 = atoll__nm_weight(d, "conv1_w", C * C * 9, ws, 0.0f), b1 = atoll__nm_weight(d, "conv1_b", C, 0.1f, 0.0f);
  uint32_t w2 = atoll__nm_weight(d, "conv2_w", C * C * 9, ws, 0.0f), b2 = atoll__nm_weight(d, "conv2_b", C, 0.1f, 0.0f);
  uint32_t w3 = atoll__nm_weight(d, "conv3_w", C * C * 9, ws, 0.0f), b3 = atoll__nm_weight(d, "conv3_b", C, 0.1f, 0.0f);
  uint32_t wd = atoll__nm_weight(d, "dense_w", C * 10, sqrtf(3.0f / (float)C), 0.0f);
  uint32_t bd = atoll__nm_weight(d, "dense_b", 10, 0.1f, 0.0f);
  uint32_t c1 = atoll__nm_tensor(d, "c1", C * H * H, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a1 = atoll__nm_tensor(d, "a1", C * H * H, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t y = atoll__nm_tensor(d, "y", C * H * H, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t a2 = atoll__nm_tensor(d, "a2", C * H * H, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t z = atoll__nm_tensor(d, "z", C * H * H, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t g = atoll__nm_tensor(d, "pooled", C, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t logits = atoll__nm_tensor(d, "logits", 10, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t out = atoll__nm_tensor(d, "probs", 10, ATOLL_TENSOR_OUTPUT);

  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  atoll__nm_conv(d, "conv1", x, w1, b1, c1, C, H, H, C, 3, 1, 1);
  atoll__nm_bias_relu(d, "relu1", c1, NONE, a1, C, H * H, 1);
  atoll__nm_conv(d, "conv2", a1, w2, b2, y, C, H, H, C, 3, 1, 1);
  atoll__nm_add_inplace(d, "residual_add_inplace", y, x);
  atoll__nm_bias_relu(d, "relu2", y, NONE, a2, C, H * H, 1);
  atoll__nm_conv(d, "conv3", a2, w3, b3, z, C, H, H, C, 3, 1, 1);
  atoll__nm_add_inplace(d, "residual_add_inplace2", z, a2);
  atoll__nm_pool(d, "global_avgpool", 0, z, g, C, H, H, H, H);
  atoll__nm_linear(d, "dense", g, wd, bd, logits, 1, 10, C);
  atoll__nm_softmax(d, "softmax", logits, out, 1, 10);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, out);

  d->m.init_weights = init_weights;
  d->m.make_input = make_input;
  *error = atoll__nm_end(d, x, out);
  return *error ? NULL : &d->m;
}
