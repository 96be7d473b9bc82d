/* nm_build.h — building native model descriptions (nmodel.h) from kernel-library ops.
 *
 * A model file fills an nm_def with the builder calls below (tensors, then ops in launch order);
 * each call derives the op's launch shapes (grid, threads, tiling versions) from the tensor
 * shapes, its tensor roles from the kernel catalogue (which pointer slots are read or written),
 * and checks that every access the kernel documents stays inside the tensors it is bound to, so
 * a wrong shape is caught when the model is built rather than as a stray write. Models are built
 * once (nm_catalog.c) into static storage and never change afterwards. */
#ifndef ATOLL_NM_BUILD_H
#define ATOLL_NM_BUILD_H

#include <stdint.h>

#include "native/models/nmodel.h"

#define NM_MAX_TENSORS 96
#define NM_MAX_OPS 96
#define NM_NAME_POOL 4096

/* How init_weights fills a weight tensor: offset + scale * u with u uniform in [-1, 1), from an
 * integer hash of (model seed, tensor index, element index). */
typedef struct nm_init {
  float scale, offset;
} nm_init;

typedef struct nm_def {
  atoll_nmodel m;
  atoll_tensor tensors[NM_MAX_TENSORS];
  atoll_nop ops[NM_MAX_OPS];
  nm_init init[NM_MAX_TENSORS];
  uint32_t seed;
  char pool[NM_NAME_POOL]; /* generated names */
  uint32_t pool_used;
  const char *error;       /* the first builder error (a bug in a model file) */
} nm_def;

/* A float in [-1, 1): exact in float (24 random bits). The same hash fills weights and inputs. */
float atoll__nm_uniform(uint32_t seed, uint32_t stream, uint32_t i);
uint32_t atoll__nm_hash_name(const char *name);

void atoll__nm_begin(nm_def *d, const char *name);
/* Finishes d->m (tensor/op arrays and counts, input/output); returns d->error or NULL. */
const char *atoll__nm_end(nm_def *d, uint32_t input, uint32_t output);
/* A printf-formatted name kept in d's pool. */
const char *atoll__nm_name(nm_def *d, const char *fmt, ...);

uint32_t atoll__nm_tensor(nm_def *d, const char *name, uint64_t floats, atoll_tensor_kind kind);
uint32_t atoll__nm_weight(nm_def *d, const char *name, uint64_t floats, float scale, float offset);

void atoll__nm_copy(nm_def *d, atoll_op_kind kind, uint32_t tensor);

/* A spin kernel op (one block, one thread) that runs `iters` iterations with a preemption point
 * every 1000 and writes its result to tensor `out`: the known-length op that native tests and
 * bench/bench_native_preempt.c build their synthetic models from, filled in one place so they
 * time the same kernel. Fills *o whole (no nm_def: those models are not catalogue models). */
void atoll__nm_spin_op(atoll_nop *o, uint32_t out, int32_t iters);

/* gemm: C[b][m][n] = alpha * sum_k A[b][m][k] B[b][k][n] + bias[n], with explicit strides. */
typedef struct nm_gemm_shape {
  uint32_t M, N, K;
  uint32_t a_sm, a_sk, b_sk, b_sn, c_sm;
  uint32_t batch, a_sb, b_sb, c_sb;
  float alpha;
} nm_gemm_shape;
void atoll__nm_gemm(nm_def *d, const char *name, uint32_t A, uint32_t B, uint32_t bias, uint32_t C,
                    const nm_gemm_shape *s);
/* Y[M][N] = X[M][K] W[K][N] + bias (bias may be ATOLL_NARG_NONE). */
void atoll__nm_linear(nm_def *d, const char *name, uint32_t X, uint32_t W, uint32_t bias, uint32_t Y, uint32_t M,
                      uint32_t N, uint32_t K);
/* NCHW convolution of a [Cin][H][W] image, k x k, stride, pad. */
void atoll__nm_conv(nm_def *d, const char *name, uint32_t in, uint32_t w, uint32_t bias, uint32_t out, uint32_t Cin,
                    uint32_t H, uint32_t W, uint32_t Cout, uint32_t k, uint32_t stride, uint32_t pad);
void atoll__nm_bias_relu(nm_def *d, const char *name, uint32_t x, uint32_t bias, uint32_t out, uint32_t C,
                         uint32_t inner, int relu);
void atoll__nm_pool(nm_def *d, const char *name, int max, uint32_t in, uint32_t out, uint32_t C, uint32_t H,
                    uint32_t W, uint32_t k, uint32_t s);
void atoll__nm_softmax(nm_def *d, const char *name, uint32_t x, uint32_t out, uint32_t rows, uint32_t cols);
void atoll__nm_layernorm(nm_def *d, const char *name, uint32_t x, uint32_t gamma, uint32_t beta, uint32_t out,
                         uint32_t rows, uint32_t cols, float eps);
void atoll__nm_gelu(nm_def *d, const char *name, uint32_t x, uint32_t out);
void atoll__nm_add(nm_def *d, const char *name, uint32_t a, uint32_t b, uint32_t out);
void atoll__nm_add_inplace(nm_def *d, const char *name, uint32_t out, uint32_t x);

/* The model files' init_weights / make_input bodies. */
void atoll__nm_init_weights(const nm_def *d, void *const *host_tensors);
void atoll__nm_make_input(const nm_def *d, uint64_t request, void *host_input);

/* The models (nm_cnn.c, nm_transformer.c, nm_inplace.c), each built into its file's static
 * storage on the first call (nm_catalog.c calls them once, under pthread_once). NULL, with the
 * builder's message in *error, when a model file is inconsistent. */
const atoll_nmodel *atoll__nm_cnn(const char **error);
const atoll_nmodel *atoll__nm_transformer(const char **error);
const atoll_nmodel *atoll__nm_inplace(const char **error);
const atoll_nmodel *atoll__nm_pilotnet(const char **error);
const atoll_nmodel *atoll__nm_lenet(const char **error);

#endif
