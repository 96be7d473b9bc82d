/* nm_transformer.c — "transformer": a pre-norm transformer encoder (BERT/GPT-2-like blocks at toy
 * size) built from the kernel library.
 *
 *   input x [S][D]                                   S = 64 tokens, D = 128, 4 heads of 32
 *   per layer (NL layers):
 *     h = layernorm(x)
 *     q, k, v = h Wq + bq, h Wk + bk, h Wv + bv       three gemms
 *     scores[head] = q_head k_head^T / sqrt(32)       one batched, strided gemm (batch = heads)
 *     p = softmax(scores)                             rows = heads * S
 *     ctx[:, head] = p[head] v_head                   one batched, strided gemm
 *     x1 = x + (ctx Wo + bo)                          gemm, add
 *     x2 = x1 + (gelu(layernorm(x1) W1 + b1) W2 + b2) layernorm, gemm, gelu, gemm, add
 *   output = x2 of the last layer
 *
 * Every op writes a fresh tensor, so every kernel is idempotent. */
#include <math.h>

#include "native/models/nm_build.h"

#define S 64u
#define D 128u
#define HEADS 4u
#define DH (D / HEADS)
#define F (4u * D)
#define NL 2u

static nm_def def;

static void init_weights(void *const *host_tensors) { atoll__nm_init_weights(&def, host_tensors); }
static void make_input(uint64_t request, void *host_input) { atoll__nm_make_input(&def, request, host_input); }

static uint32_t act(nm_def *d, uint32_t layer, const char *name, uint32_t floats) {
  return atoll__nm_tensor(d, atoll__nm_name(d, "l%u_%s", layer, name), floats, ATOLL_TENSOR_INTERMEDIATE);
}

static uint32_t weight(nm_def *d, uint32_t layer, const char *name, uint32_t floats, float scale, float offset) {
  return atoll__nm_weight(d, atoll__nm_name(d, "l%u_%s", layer, name), floats, scale, offset);
}

/* One encoder layer from x; returns its output tensor (or `out` for the last layer). */
static uint32_t layer(nm_def *d, uint32_t l, uint32_t x, uint32_t out) {
  const float sd = sqrtf(3.0f / (float)D), sf = sqrtf(3.0f / (float)F);
  uint32_t g1 = weight(d, l, "ln1_g", D, 0.1f, 1.0f), be1 = weight(d, l, "ln1_b", D, 0.1f, 0.0f);
  uint32_t wq = weight(d, l, "wq", D * D, sd, 0.0f), bq = weight(d, l, "bq", D, 0.02f, 0.0f);
  uint32_t wk = weight(d, l, "wk", D * D, sd, 0.0f), bk = weight(d, l, "bk", D, 0.02f, 0.0f);
  uint32_t wv = weight(d, l, "wv", D * D, sd, 0.0f), bv = weight(d, l, "bv", D, 0.02f, 0.0f);
  uint32_t wo = weight(d, l, "wo", D * D, sd, 0.0f), bo = weight(d, l, "bo", D, 0.02f, 0.0f);
  uint32_t g2 = weight(d, l, "ln2_g", D, 0.1f, 1.0f), be2 = weight(d, l, "ln2_b", D, 0.1f, 0.0f);
  uint32_t w1 = weight(d, l, "w1", D * F, sd, 0.0f), b1 = weight(d, l, "b1", F, 0.02f, 0.0f);
  uint32_t w2 = weight(d, l, "w2", F * D, sf, 0.0f), b2 = weight(d, l, "b2", D, 0.02f, 0.0f);
  uint32_t h = act(d, l, "ln1", S * D), q = act(d, l, "q", S * D), k = act(d, l, "k", S * D), v = act(d, l, "v", S * D);
  uint32_t sc = act(d, l, "scores", HEADS * S * S), p = act(d, l, "probs", HEADS * S * S);
  uint32_t ctx = act(d, l, "ctx", S * D), ao = act(d, l, "attn_out", S * D), x1 = act(d, l, "x1", S * D);
  uint32_t h2 = act(d, l, "ln2", S * D), f1 = act(d, l, "ff1", S * F), gl = act(d, l, "gelu", S * F);
  uint32_t f2 = act(d, l, "ff2", S * D);
  uint32_t x2 = out != ATOLL_NARG_NONE ? out : act(d, l, "out", S * D);

  atoll__nm_layernorm(d, atoll__nm_name(d, "l%u_ln1", l), x, g1, be1, h, S, D, 1e-5f);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_q_proj", l), h, wq, bq, q, S, D, D);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_k_proj", l), h, wk, bk, k, S, D, D);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_v_proj", l), h, wv, bv, v, S, D, D);
  /* scores[hd][i][j] = sum_e q[i][hd*DH + e] k[j][hd*DH + e] / sqrt(DH): B is k read transposed. */
  nm_gemm_shape qk = {.M = S, .N = S, .K = DH, .a_sm = D, .a_sk = 1, .b_sk = 1, .b_sn = D, .c_sm = S,
                      .batch = HEADS, .a_sb = DH, .b_sb = DH, .c_sb = S * S, .alpha = 1.0f / sqrtf((float)DH)};
  atoll__nm_gemm(d, atoll__nm_name(d, "l%u_attn_scores", l), q, k, ATOLL_NARG_NONE, sc, &qk);
  atoll__nm_softmax(d, atoll__nm_name(d, "l%u_attn_softmax", l), sc, p, HEADS * S, S);
  /* ctx[i][hd*DH + e] = sum_j p[hd][i][j] v[j][hd*DH + e]. */
  nm_gemm_shape pv = {.M = S, .N = DH, .K = S, .a_sm = S, .a_sk = 1, .b_sk = D, .b_sn = 1, .c_sm = D,
                      .batch = HEADS, .a_sb = S * S, .b_sb = DH, .c_sb = DH, .alpha = 1.0f};
  atoll__nm_gemm(d, atoll__nm_name(d, "l%u_attn_context", l), p, v, ATOLL_NARG_NONE, ctx, &pv);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_out_proj", l), ctx, wo, bo, ao, S, D, D);
  atoll__nm_add(d, atoll__nm_name(d, "l%u_attn_residual", l), x, ao, x1);
  atoll__nm_layernorm(d, atoll__nm_name(d, "l%u_ln2", l), x1, g2, be2, h2, S, D, 1e-5f);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_ff1", l), h2, w1, b1, f1, S, F, D);
  atoll__nm_gelu(d, atoll__nm_name(d, "l%u_gelu", l), f1, gl);
  atoll__nm_linear(d, atoll__nm_name(d, "l%u_ff2", l), gl, w2, b2, f2, S, D, F);
  atoll__nm_add(d, atoll__nm_name(d, "l%u_ff_residual", l), x1, f2, x2);
  return x2;
}

const atoll_nmodel *atoll__nm_transformer(const char **error) {
  nm_def *d = &def;
  atoll__nm_begin(d, "transformer");
  uint32_t x = atoll__nm_tensor(d, "tokens", S * D, ATOLL_TENSOR_INPUT);
  uint32_t y = atoll__nm_tensor(d, "hidden", S * D, ATOLL_TENSOR_OUTPUT);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  uint32_t cur = x;
  for (uint32_t l = 0; l < NL; l++)
    cur = layer(d, l, cur, l + 1 == NL ? y : ATOLL_NARG_NONE);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, y);
  d->m.init_weights = init_weights;
  d->m.make_input = make_input;
  *error = atoll__nm_end(d, x, y);
  return *error ? NULL : &d->m;
}
