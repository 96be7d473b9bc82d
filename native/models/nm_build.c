/* nm_build.c — the native-model builder (nm_build.h): launch shapes, tilings and tensor roles of
 * each op, derived from tensor shapes, with bounds checks against the tensors. */
#include "native/models/nm_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "native/kernels/ak_catalog.h"

/* ---- deterministic data ---- */

static uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

float atoll__nm_uniform(uint32_t seed, uint32_t stream, uint32_t i) {
  uint32_t h = mix(mix(seed ^ 0x9e3779b9u) ^ stream * 0x85ebca6bu);
  h = mix(h ^ i * 0xc2b2ae35u ^ 0x27d4eb2fu);
  return (float)(int32_t)(h >> 8) / 8388608.0f - 1.0f;
}

uint32_t atoll__nm_hash_name(const char *name) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

void atoll__nm_init_weights(const nm_def *d, void *const *host_tensors) {
  for (uint32_t t = 0; t < d->m.n_tensors; t++) {
    if (d->tensors[t].kind != ATOLL_TENSOR_WEIGHT || !host_tensors[t])
      continue;
    float *w = host_tensors[t];
    uint64_t n = d->tensors[t].bytes / sizeof(float);
    for (uint64_t i = 0; i < n; i++)
      w[i] = d->init[t].offset + d->init[t].scale * atoll__nm_uniform(d->seed, t, (uint32_t)i);
  }
}

void atoll__nm_make_input(const nm_def *d, uint64_t request, void *host_input) {
  float *x = host_input;
  uint64_t n = d->tensors[d->m.input].bytes / sizeof(float);
  /* Stream 0x80000000 + request (folded to 32 bits): disjoint from the tensor streams. */
  uint32_t stream = 0x80000000u ^ (uint32_t)request ^ (uint32_t)(request >> 32) * 0x9e3779b9u;
  for (uint64_t i = 0; i < n; i++)
    x[i] = atoll__nm_uniform(d->seed, stream, (uint32_t)i);
}

/* ---- model, tensors, names ---- */

static void fail(nm_def *d, const char *msg) {
  if (!d->error)
    d->error = msg;
}

void atoll__nm_begin(nm_def *d, const char *name) {
  memset(d, 0, sizeof *d);
  d->m.name = name;
  d->seed = atoll__nm_hash_name(name);
}

const char *atoll__nm_end(nm_def *d, uint32_t input, uint32_t output) {
  d->m.tensors = d->tensors;
  d->m.ops = d->ops;
  d->m.input = input;
  d->m.output = output;
  if (input >= d->m.n_tensors || output >= d->m.n_tensors)
    fail(d, "input or output is not a tensor");
  else if (d->tensors[input].kind != ATOLL_TENSOR_INPUT || d->tensors[output].kind != ATOLL_TENSOR_OUTPUT)
    fail(d, "the input/output tensors are not of kind input/output");
  /* The REEF profile shape: the input's h2d first, the output's d2h last. */
  if (d->m.n_ops < 2 || d->ops[0].kind != ATOLL_OP_MEMCPY_H2D || d->ops[0].ptr[0] != input ||
      d->ops[d->m.n_ops - 1].kind != ATOLL_OP_MEMCPY_D2H || d->ops[d->m.n_ops - 1].ptr[0] != output)
    fail(d, "a model starts with the input's memcpy h2d and ends with the output's memcpy d2h");
  return d->error;
}

const char *atoll__nm_name(nm_def *d, const char *fmt, ...) {
  char *at = d->pool + d->pool_used;
  size_t room = NM_NAME_POOL - d->pool_used;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(at, room, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= room) {
    fail(d, "name pool full");
    return "?";
  }
  d->pool_used += (uint32_t)n + 1;
  return at;
}

uint32_t atoll__nm_tensor(nm_def *d, const char *name, uint64_t floats, atoll_tensor_kind kind) {
  if (d->m.n_tensors == NM_MAX_TENSORS || floats == 0) {
    fail(d, "too many tensors, or an empty one");
    return 0;
  }
  uint32_t t = d->m.n_tensors++;
  d->tensors[t].name = name;
  d->tensors[t].bytes = floats * sizeof(float);
  d->tensors[t].kind = kind;
  d->tensors[t].dtype = "float32";
  return t;
}

uint32_t atoll__nm_weight(nm_def *d, const char *name, uint64_t floats, float scale, float offset) {
  uint32_t t = atoll__nm_tensor(d, name, floats, ATOLL_TENSOR_WEIGHT);
  d->init[t].scale = scale;
  d->init[t].offset = offset;
  return t;
}

/* ---- ops ---- */

static atoll_nop *new_op(nm_def *d, atoll_op_kind kind, const char *name) {
  if (d->m.n_ops == NM_MAX_OPS) {
    fail(d, "too many ops");
    return NULL;
  }
  atoll_nop *op = &d->ops[d->m.n_ops++];
  memset(op, 0, sizeof *op);
  op->kind = kind;
  op->name = name;
  for (int s = 0; s < AK_MAX_PTRS; s++)
    op->ptr[s] = ATOLL_NARG_NONE;
  return op;
}

void atoll__nm_copy(nm_def *d, atoll_op_kind kind, uint32_t tensor) {
  atoll_nop *op = new_op(d, kind, kind == ATOLL_OP_MEMCPY_H2D ? "input_h2d" : "output_d2h");
  if (!op)
    return;
  op->ptr[0] = tensor;
  if (kind == ATOLL_OP_MEMCPY_H2D) {
    op->writes[op->n_writes++] = tensor;
  } else {
    op->reads[op->n_reads++] = tensor;
  }
}

void atoll__nm_spin_op(atoll_nop *o, uint32_t out, int32_t iters) {
  memset(o, 0, sizeof *o);
  o->kind = ATOLL_OP_KERNEL;
  o->name = "spin";
  for (int s = 0; s < AK_MAX_PTRS; s++)
    o->ptr[s] = ATOLL_NARG_NONE;
  o->ptr[0] = out;
  o->v[0] = (atoll_nversion){.kernel = AK_K_SPIN, .grid = 1, .threads = 1, .occupancy = 1};
  o->v[0].ints[0] = iters;
  o->v[0].ints[1] = 1000;
  o->n_versions = 1;
  o->writes[0] = out;
  o->n_writes = 1;
}

static void add_role(uint32_t *list, uint32_t *n, uint32_t t) {
  for (uint32_t i = 0; i < *n; i++)
    if (list[i] == t)
      return;
  list[(*n)++] = t;
}

/* A kernel op bound to tensors; roles come from the catalogue's slot masks. */
static atoll_nop *kernel_op(nm_def *d, const char *name, uint32_t kernel, const uint32_t *ptrs, uint32_t n_ptrs) {
  const ak_kernel_info *k = ak_kernel_info_get(kernel);
  atoll_nop *op = new_op(d, ATOLL_OP_KERNEL, name);
  if (!op || !k)
    return NULL;
  for (uint32_t s = 0; s < n_ptrs; s++) {
    if (ptrs[s] == ATOLL_NARG_NONE) {
      if (!(k->optional >> s & 1u))
        fail(d, "a required kernel argument is unbound");
      continue;
    }
    if (ptrs[s] >= d->m.n_tensors) {
      fail(d, "kernel argument bound to an unknown tensor");
      continue;
    }
    op->ptr[s] = ptrs[s];
    if (k->reads >> s & 1u)
      add_role(op->reads, &op->n_reads, ptrs[s]);
    if (k->writes >> s & 1u)
      add_role(op->writes, &op->n_writes, ptrs[s]);
  }
  return op;
}

static void add_version(nm_def *d, atoll_nop *op, uint32_t kernel, uint32_t grid, uint32_t threads, uint32_t occupancy,
                        const int32_t *ints, uint32_t n_ints) {
  if (!op)
    return;
  /* Tilings that come out the same on this shape (same grid) are one version. */
  for (uint32_t v = 0; v < op->n_versions; v++)
    if (op->v[v].grid == grid)
      return;
  if (op->n_versions == ATOLL_NMODEL_MAX_VERSIONS || grid == 0) {
    fail(d, "too many versions, or an empty grid");
    return;
  }
  atoll_nversion *v = &op->v[op->n_versions++];
  memset(v, 0, sizeof *v);
  v->kernel = kernel;
  v->grid = grid;
  v->threads = threads;
  v->occupancy = occupancy;
  memcpy(v->ints, ints, n_ints * sizeof *ints);
}

/* Elements of a tensor; 0 for an unbound slot. */
static uint64_t elems(const nm_def *d, uint32_t t) {
  return t < d->m.n_tensors ? d->tensors[t].bytes / sizeof(float) : 0;
}

static void need(nm_def *d, uint32_t t, uint64_t n, const char *what) {
  if (t != ATOLL_NARG_NONE && elems(d, t) < n)
    fail(d, what);
}

#define CEIL(a, b) (((a) + (b)-1) / (b))

void atoll__nm_gemm(nm_def *d, const char *name, uint32_t A, uint32_t B, uint32_t bias, uint32_t C,
                    const nm_gemm_shape *s) {
  /* The highest element each operand touches must lie inside its tensor. */
  uint64_t a_hi = (uint64_t)(s->batch - 1) * s->a_sb + (uint64_t)(s->M - 1) * s->a_sm +
                  (uint64_t)(s->K - 1) * s->a_sk + 1;
  uint64_t b_hi = (uint64_t)(s->batch - 1) * s->b_sb + (uint64_t)(s->K - 1) * s->b_sk +
                  (uint64_t)(s->N - 1) * s->b_sn + 1;
  uint64_t c_hi = (uint64_t)(s->batch - 1) * s->c_sb + (uint64_t)(s->M - 1) * s->c_sm + s->N;
  need(d, A, a_hi, "gemm: A is too small");
  need(d, B, b_hi, "gemm: B is too small");
  need(d, C, c_hi, "gemm: C is too small");
  need(d, bias, s->N, "gemm: bias is too small");
  const uint32_t ptrs[4] = {A, B, C, bias};
  atoll_nop *op = kernel_op(d, name, AK_K_GEMM, ptrs, 4);
  /* Version 0 is 32x32 tiles; then 16x16 (4x the blocks) and 32x16 (2x the blocks). */
  static const uint32_t tiles[][2] = {{32, 32}, {16, 16}, {32, 16}};
  for (uint32_t t = 0; t < 3; t++) {
    uint32_t tm = tiles[t][0], tn = tiles[t][1];
    int32_t ints[15] = {(int32_t)s->M,    (int32_t)s->N,    (int32_t)s->K,    (int32_t)s->a_sm, (int32_t)s->a_sk,
                        (int32_t)s->b_sk, (int32_t)s->b_sn, (int32_t)s->c_sm, (int32_t)s->batch, (int32_t)s->a_sb,
                        (int32_t)s->b_sb, (int32_t)s->c_sb, ak_bits(s->alpha), (int32_t)tm,      (int32_t)tn};
    uint32_t grid = s->batch * CEIL(s->M, tm) * CEIL(s->N, tn);
    add_version(d, op, AK_K_GEMM, grid, 256, tm * tn >= 1024 ? 4 : 8, ints, 15);
  }
}

void atoll__nm_linear(nm_def *d, const char *name, uint32_t X, uint32_t W, uint32_t bias, uint32_t Y, uint32_t M,
                      uint32_t N, uint32_t K) {
  nm_gemm_shape s = {.M = M, .N = N, .K = K, .a_sm = K, .a_sk = 1, .b_sk = N, .b_sn = 1, .c_sm = N, .batch = 1,
                     .alpha = 1.0f};
  atoll__nm_gemm(d, name, X, W, bias, Y, &s);
}

void atoll__nm_conv(nm_def *d, const char *name, uint32_t in, uint32_t w, uint32_t bias, uint32_t out, uint32_t Cin,
                    uint32_t H, uint32_t W, uint32_t Cout, uint32_t k, uint32_t stride, uint32_t pad) {
  if (H + 2 * pad < k || W + 2 * pad < k || stride == 0) {
    fail(d, "conv: window larger than the padded image");
    return;
  }
  const uint32_t OH = (H + 2 * pad - k) / stride + 1, OW = (W + 2 * pad - k) / stride + 1;
  need(d, in, (uint64_t)Cin * H * W, "conv: input is too small");
  need(d, w, (uint64_t)Cout * Cin * k * k, "conv: weights are too small");
  need(d, bias, Cout, "conv: bias is too small");
  need(d, out, (uint64_t)Cout * OH * OW, "conv: output is too small");
  if (OW > 1024 || k * k > 1024) {
    fail(d, "conv: a row of output or a filter does not fit the scratch");
    return;
  }
  const uint32_t ptrs[4] = {in, w, bias, out};
  atoll_nop *op = kernel_op(d, name, AK_K_CONV2D, ptrs, 4);
  /* Three tilings with different block counts: version 0 has up to 8 channels x as many rows as
   * fill 1024 outputs; version 1 one channel x up to 8 rows (more, smaller blocks); version 2 up to
   * 16 channels x rows filling 512 outputs. */
  static const uint32_t want_c[3] = {8, 1, 16}, want_out[3] = {1024, 1024, 512};
  for (uint32_t t = 0; t < 3; t++) {
    uint32_t tc = want_c[t] < Cout ? want_c[t] : Cout;
    if (tc * k * k > 1024)
      tc = 1024 / (k * k);
    if (tc * OW > want_out[t])
      tc = want_out[t] / OW ? want_out[t] / OW : 1;
    uint32_t tr = want_out[t] / (tc * OW) ? want_out[t] / (tc * OW) : 1;
    if (t == 1 && tr > 8)
      tr = 8;
    if (tr > OH)
      tr = OH;
    /* The tile's zero-padded input rows must fit the scratch too (k_conv2d.h). */
    uint32_t xw = W + 2 * pad, max_rows = 1024 / xw;
    if (max_rows < k) {
      fail(d, "conv: the padded input rows do not fit the scratch");
      return;
    }
    if ((tr - 1) * stride + k > max_rows)
      tr = (max_rows - k) / stride + 1;
    int32_t ints[12] = {(int32_t)Cin,    (int32_t)H,   (int32_t)W,  (int32_t)Cout, (int32_t)k,  (int32_t)k,
                        (int32_t)stride, (int32_t)pad, (int32_t)OH, (int32_t)OW,   (int32_t)tc, (int32_t)tr};
    add_version(d, op, AK_K_CONV2D, CEIL(Cout, tc) * CEIL(OH, tr), 256, tc * tr * OW > 512 ? 4 : 8, ints, 12);
  }
}

enum { ELT_PER_BLOCK = 1024, ROWS_PER_BLOCK = 16 };

void atoll__nm_bias_relu(nm_def *d, const char *name, uint32_t x, uint32_t bias, uint32_t out, uint32_t C,
                         uint32_t inner, int relu) {
  uint32_t n = (uint32_t)elems(d, out);
  need(d, x, n, "bias_relu: input smaller than output");
  need(d, bias, C, "bias_relu: bias is too small");
  const uint32_t ptrs[3] = {x, bias, out};
  atoll_nop *op = kernel_op(d, name, AK_K_BIAS_RELU, ptrs, 3);
  int32_t ints[5] = {(int32_t)n, (int32_t)C, (int32_t)inner, relu, ELT_PER_BLOCK};
  add_version(d, op, AK_K_BIAS_RELU, CEIL(n, ELT_PER_BLOCK), 256, 8, ints, 5);
}

void atoll__nm_pool(nm_def *d, const char *name, int max, uint32_t in, uint32_t out, uint32_t C, uint32_t H,
                    uint32_t W, uint32_t k, uint32_t s) {
  if (k > H || k > W || s == 0) {
    fail(d, "pool: bad window");
    return;
  }
  const uint32_t OH = (H - k) / s + 1, OW = (W - k) / s + 1, n = C * OH * OW;
  need(d, in, (uint64_t)C * H * W, "pool: input is too small");
  need(d, out, n, "pool: output is too small");
  const uint32_t ptrs[2] = {in, out};
  atoll_nop *op = kernel_op(d, name, max ? AK_K_MAXPOOL : AK_K_AVGPOOL, ptrs, 2);
  uint32_t per = n < 256 ? n : 256;
  int32_t ints[8] = {(int32_t)C, (int32_t)H, (int32_t)W, (int32_t)k, (int32_t)s, (int32_t)OH, (int32_t)OW, (int32_t)per};
  add_version(d, op, max ? AK_K_MAXPOOL : AK_K_AVGPOOL, CEIL(n, per), 256, 8, ints, 8);
}

void atoll__nm_softmax(nm_def *d, const char *name, uint32_t x, uint32_t out, uint32_t rows, uint32_t cols) {
  need(d, x, (uint64_t)rows * cols, "softmax: input is too small");
  need(d, out, (uint64_t)rows * cols, "softmax: output is too small");
  const uint32_t ptrs[2] = {x, out};
  atoll_nop *op = kernel_op(d, name, AK_K_SOFTMAX, ptrs, 2);
  int32_t ints[3] = {(int32_t)rows, (int32_t)cols, ROWS_PER_BLOCK};
  add_version(d, op, AK_K_SOFTMAX, CEIL(rows, ROWS_PER_BLOCK), 64, 8, ints, 3);
}

void atoll__nm_layernorm(nm_def *d, const char *name, uint32_t x, uint32_t gamma, uint32_t beta, uint32_t out,
                         uint32_t rows, uint32_t cols, float eps) {
  need(d, x, (uint64_t)rows * cols, "layernorm: input is too small");
  need(d, out, (uint64_t)rows * cols, "layernorm: output is too small");
  need(d, gamma, cols, "layernorm: gamma is too small");
  need(d, beta, cols, "layernorm: beta is too small");
  const uint32_t ptrs[4] = {x, gamma, beta, out};
  atoll_nop *op = kernel_op(d, name, AK_K_LAYERNORM, ptrs, 4);
  int32_t ints[4] = {(int32_t)rows, (int32_t)cols, ak_bits(eps), ROWS_PER_BLOCK};
  add_version(d, op, AK_K_LAYERNORM, CEIL(rows, ROWS_PER_BLOCK), 64, 8, ints, 4);
}

void atoll__nm_gelu(nm_def *d, const char *name, uint32_t x, uint32_t out) {
  uint32_t n = (uint32_t)elems(d, out);
  need(d, x, n, "gelu: input smaller than output");
  const uint32_t ptrs[2] = {x, out};
  atoll_nop *op = kernel_op(d, name, AK_K_GELU, ptrs, 2);
  int32_t ints[2] = {(int32_t)n, ELT_PER_BLOCK};
  add_version(d, op, AK_K_GELU, CEIL(n, ELT_PER_BLOCK), 256, 8, ints, 2);
}

void atoll__nm_add(nm_def *d, const char *name, uint32_t a, uint32_t b, uint32_t out) {
  uint32_t n = (uint32_t)elems(d, out);
  need(d, a, n, "add: a smaller than output");
  need(d, b, n, "add: b smaller than output");
  const uint32_t ptrs[3] = {a, b, out};
  atoll_nop *op = kernel_op(d, name, AK_K_ADD, ptrs, 3);
  int32_t ints[2] = {(int32_t)n, ELT_PER_BLOCK};
  add_version(d, op, AK_K_ADD, CEIL(n, ELT_PER_BLOCK), 256, 8, ints, 2);
}

void atoll__nm_add_inplace(nm_def *d, const char *name, uint32_t out, uint32_t x) {
  uint32_t n = (uint32_t)elems(d, out);
  need(d, x, n, "add_inplace: x smaller than output");
  const uint32_t ptrs[2] = {out, x};
  atoll_nop *op = kernel_op(d, name, AK_K_ADD_INPLACE, ptrs, 2);
  int32_t ints[2] = {(int32_t)n, ELT_PER_BLOCK};
  add_version(d, op, AK_K_ADD_INPLACE, CEIL(n, ELT_PER_BLOCK), 256, 8, ints, 2);
}
