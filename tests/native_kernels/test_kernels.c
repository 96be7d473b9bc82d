/* Every kernel of the library against a straightforward scalar reference on the same inputs, the
 * tilings of gemm and conv2d against each other (bit for bit), partitioning independence of the
 * elementwise kernels, the catalogue against the kernel list, and argument checks.
 *
 * The references compute the result the kernel documents (k_*.h) in the plainest loops: for
 * gemm, conv2d and pooling the summation order is part of the definition, so they must agree bit
 * for bit. softmax, layernorm and gelu are also compared bit for bit with a float reference of the
 * documented formula (same libm), and within a tolerance with a double-precision evaluation, which
 * checks the formula itself. */
#include "native/kernels/ak_catalog.h"
#include "tests/native_kernels/nk_test.h"

typedef struct gemm_shape {
  uint32_t M, N, K, batch;
  int trans_b; /* B given as [N][K] (as attention's K^T is) */
  int bias;
  float alpha;
} gemm_shape;

static void gemm_args(ak_args *a, const gemm_shape *s, const float *A, const float *B, float *C, const float *bias,
                      uint32_t tm, uint32_t tn) {
  memset(a, 0, sizeof *a);
  a->p[0] = (void *)A;
  a->p[1] = (void *)B;
  a->p[2] = C;
  a->p[3] = (void *)bias;
  int32_t *i = a->i;
  i[0] = (int32_t)s->M, i[1] = (int32_t)s->N, i[2] = (int32_t)s->K;
  i[3] = (int32_t)s->K, i[4] = 1;                        /* A [M][K] */
  if (s->trans_b)
    i[5] = 1, i[6] = (int32_t)s->K;                      /* B [N][K] */
  else
    i[5] = (int32_t)s->N, i[6] = 1;                      /* B [K][N] */
  i[7] = (int32_t)s->N;
  i[8] = (int32_t)s->batch;
  i[9] = (int32_t)(s->M * s->K), i[10] = (int32_t)(s->K * s->N), i[11] = (int32_t)(s->M * s->N);
  i[12] = ak_bits(s->alpha);
  i[13] = (int32_t)tm, i[14] = (int32_t)tn;
}

static void gemm_ref(const gemm_shape *s, const float *A, const float *B, const float *bias, float *C) {
  for (uint32_t b = 0; b < s->batch; b++)
    for (uint32_t m = 0; m < s->M; m++)
      for (uint32_t n = 0; n < s->N; n++) {
        float acc = 0.0f;
        for (uint32_t k = 0; k < s->K; k++) {
          float bv = s->trans_b ? B[b * s->K * s->N + n * s->K + k] : B[b * s->K * s->N + k * s->N + n];
          acc = acc + A[b * s->M * s->K + m * s->K + k] * bv;
        }
        float v = s->alpha * acc;
        if (bias)
          v = v + bias[n];
        C[b * s->M * s->N + m * s->N + n] = v;
      }
}

static void run_gemm(const gemm_shape *s, uint32_t tm, uint32_t tn, float *C, const float *A, const float *B,
                     const float *bias) {
  ak_args a;
  gemm_args(&a, s, A, B, C, bias, tm, tn);
  uint32_t grid = s->batch * nk_ceil(s->M, tm) * nk_ceil(s->N, tn);
  assert_int_equal(nk_run(AK_K_GEMM, &a, grid, 256, NULL), AK_DONE);
}

static void gemm_matches_reference(void **state) {
  (void)state;
  static const gemm_shape shapes[] = {
      {64, 64, 64, 1, 0, 0, 1.0f},   {37, 53, 29, 1, 0, 1, 1.0f},   {1, 1, 1, 1, 0, 0, 1.0f},
      {16, 16, 100, 4, 1, 0, 0.25f}, {70, 130, 17, 2, 0, 1, 0.5f},
  };
  for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
    const gemm_shape *s = &shapes[t];
    float *A = nk_alloc((size_t)s->batch * s->M * s->K, 1), *B = nk_alloc((size_t)s->batch * s->K * s->N, 2);
    float *bias = s->bias ? nk_alloc(s->N, 3) : NULL;
    size_t nc = (size_t)s->batch * s->M * s->N;
    float *C = nk_alloc(nc, 9), *R = nk_alloc(nc, 10);
    run_gemm(s, 32, 32, C, A, B, bias);
    gemm_ref(s, A, B, bias, R);
    nk_assert_same(C, R, nc, "gemm vs reference");
    free(A), free(B), free(bias), free(C), free(R);
  }
}

static void gemm_tilings_are_bit_identical(void **state) {
  (void)state;
  static const uint32_t tiles[][2] = {{32, 32}, {16, 64}, {64, 16}, {8, 8}, {1, 64}, {64, 1}, {3, 5}};
  const gemm_shape s = {96, 80, 300, 2, 0, 1, 1.0f};
  float *A = nk_alloc((size_t)s.batch * s.M * s.K, 4), *B = nk_alloc((size_t)s.batch * s.K * s.N, 5);
  float *bias = nk_alloc(s.N, 6);
  size_t nc = (size_t)s.batch * s.M * s.N;
  float *first = nk_alloc(nc, 7), *C = nk_alloc(nc, 8);
  run_gemm(&s, tiles[0][0], tiles[0][1], first, A, B, bias);
  for (size_t t = 1; t < sizeof tiles / sizeof tiles[0]; t++) {
    memset(C, 0xff, nc * sizeof *C);
    run_gemm(&s, tiles[t][0], tiles[t][1], C, A, B, bias);
    char what[64];
    snprintf(what, sizeof what, "gemm tile %ux%u vs 32x32", tiles[t][0], tiles[t][1]);
    nk_assert_same(C, first, nc, what);
  }
  free(A), free(B), free(bias), free(first), free(C);
}

typedef struct conv_shape {
  uint32_t Cin, H, W, Cout, KH, KW, stride, pad;
  int bias;
} conv_shape;

static uint32_t conv_oh(const conv_shape *s) { return (s->H + 2 * s->pad - s->KH) / s->stride + 1; }
static uint32_t conv_ow(const conv_shape *s) { return (s->W + 2 * s->pad - s->KW) / s->stride + 1; }

static void conv_ref(const conv_shape *s, const float *in, const float *w, const float *bias, float *out) {
  uint32_t OH = conv_oh(s), OW = conv_ow(s);
  for (uint32_t oc = 0; oc < s->Cout; oc++)
    for (uint32_t oh = 0; oh < OH; oh++)
      for (uint32_t ow = 0; ow < OW; ow++) {
        float acc = 0.0f;
        for (uint32_t ci = 0; ci < s->Cin; ci++)
          for (uint32_t kh = 0; kh < s->KH; kh++)
            for (uint32_t kw = 0; kw < s->KW; kw++) {
              long ih = (long)(oh * s->stride + kh) - (long)s->pad, iw = (long)(ow * s->stride + kw) - (long)s->pad;
              if (ih < 0 || iw < 0 || ih >= (long)s->H || iw >= (long)s->W)
                continue;
              acc = acc + in[(ci * s->H + (uint32_t)ih) * s->W + (uint32_t)iw] *
                              w[((oc * s->Cin + ci) * s->KH + kh) * s->KW + kw];
            }
        out[(oc * OH + oh) * OW + ow] = bias ? acc + bias[oc] : acc;
      }
}

static int run_conv(const conv_shape *s, uint32_t tc, uint32_t tr, const float *in, const float *w, const float *bias,
                    float *out) {
  ak_args a;
  memset(&a, 0, sizeof a);
  a.p[0] = (void *)in, a.p[1] = (void *)w, a.p[2] = (void *)bias, a.p[3] = out;
  uint32_t OH = conv_oh(s), OW = conv_ow(s);
  const uint32_t v[12] = {s->Cin, s->H, s->W, s->Cout, s->KH, s->KW, s->stride, s->pad, OH, OW, tc, tr};
  for (int k = 0; k < 12; k++)
    a.i[k] = (int32_t)v[k];
  return nk_run(AK_K_CONV2D, &a, nk_ceil(s->Cout, tc) * nk_ceil(OH, tr), 128, NULL);
}

static const conv_shape conv_shapes[] = {
    {3, 16, 16, 8, 3, 3, 1, 1, 1}, {5, 13, 11, 7, 3, 3, 2, 0, 0}, {16, 8, 8, 12, 1, 1, 1, 0, 1},
    {2, 12, 12, 3, 5, 5, 1, 2, 1}, {4, 9, 9, 6, 3, 3, 2, 1, 0},
};

static void conv2d_matches_reference(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof conv_shapes / sizeof conv_shapes[0]; t++) {
    const conv_shape *s = &conv_shapes[t];
    size_t no = (size_t)s->Cout * conv_oh(s) * conv_ow(s);
    float *in = nk_alloc((size_t)s->Cin * s->H * s->W, 11), *w = nk_alloc((size_t)s->Cout * s->Cin * s->KH * s->KW, 12);
    float *bias = s->bias ? nk_alloc(s->Cout, 13) : NULL;
    float *out = nk_alloc(no, 14), *ref = nk_alloc(no, 15);
    assert_int_equal(run_conv(s, 4, 2, in, w, bias, out), AK_DONE);
    conv_ref(s, in, w, bias, ref);
    nk_assert_same(out, ref, no, "conv2d vs reference");
    free(in), free(w), free(bias), free(out), free(ref);
  }
}

static void conv2d_tilings_are_bit_identical(void **state) {
  (void)state;
  static const uint32_t tiles[][2] = {{1, 1}, {16, 2}, {4, 4}, {3, 5}, {2, 32}};
  const conv_shape s = {6, 32, 32, 16, 3, 3, 1, 1, 1};
  uint32_t OH = conv_oh(&s), OW = conv_ow(&s);
  size_t no = (size_t)s.Cout * OH * OW;
  float *in = nk_alloc((size_t)s.Cin * s.H * s.W, 16), *w = nk_alloc((size_t)s.Cout * s.Cin * 9, 17);
  float *bias = nk_alloc(s.Cout, 18), *first = nk_alloc(no, 19), *out = nk_alloc(no, 20);
  assert_int_equal(run_conv(&s, tiles[0][0], tiles[0][1], in, w, bias, first), AK_DONE);
  for (size_t t = 1; t < sizeof tiles / sizeof tiles[0]; t++) {
    memset(out, 0xff, no * sizeof *out);
    if (tiles[t][0] * tiles[t][1] * OW > 1024)
      continue;
    assert_int_equal(run_conv(&s, tiles[t][0], tiles[t][1], in, w, bias, out), AK_DONE);
    char what[64];
    snprintf(what, sizeof what, "conv2d tile %ux%u vs 1x1", tiles[t][0], tiles[t][1]);
    nk_assert_same(out, first, no, what);
  }
  free(in), free(w), free(bias), free(first), free(out);
}

static void bias_relu_matches_reference(void **state) {
  (void)state;
  const uint32_t C = 6, inner = 50, n = C * inner * 2; /* two images: the channel index wraps */
  float *x = nk_alloc(n, 21), *b = nk_alloc(C, 22), *out = nk_alloc(n, 23), *ref = nk_alloc(n, 24);
  for (int mode = 0; mode < 3; mode++) {
    const float *bias = mode == 2 ? NULL : b;
    int relu = mode != 1;
    ak_args a = {.p = {x, (void *)bias, out}, .i = {(int32_t)n, (int32_t)C, (int32_t)inner, relu, 128}};
    assert_int_equal(nk_run(AK_K_BIAS_RELU, &a, nk_ceil(n, 128), 128, NULL), AK_DONE);
    for (uint32_t i = 0; i < n; i++) {
      float v = bias ? x[i] + bias[i / inner % C] : x[i];
      ref[i] = relu && !(v > 0.0f) ? 0.0f : v;
    }
    nk_assert_same(out, ref, n, "bias_relu");
  }
  free(x), free(b), free(out), free(ref);
}

static void pool_ref(int max, uint32_t C, uint32_t H, uint32_t W, uint32_t k, uint32_t s, const float *in, float *out) {
  uint32_t OH = (H - k) / s + 1, OW = (W - k) / s + 1;
  for (uint32_t ch = 0; ch < C; ch++)
    for (uint32_t oh = 0; oh < OH; oh++)
      for (uint32_t ow = 0; ow < OW; ow++) {
        const float *x = in + (ch * H + oh * s) * W + ow * s;
        float m = x[0], sum = 0.0f;
        for (uint32_t i = 0; i < k; i++)
          for (uint32_t j = 0; j < k; j++) {
            m = x[i * W + j] > m ? x[i * W + j] : m;
            sum = sum + x[i * W + j];
          }
        out[(ch * OH + oh) * OW + ow] = max ? m : sum / (float)(k * k);
      }
}

static void pooling_matches_reference(void **state) {
  (void)state;
  static const uint32_t cases[][5] = {{4, 16, 16, 2, 2}, {3, 9, 7, 3, 2}, {8, 8, 8, 8, 8}, {2, 5, 5, 1, 1}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    uint32_t C = cases[t][0], H = cases[t][1], W = cases[t][2], k = cases[t][3], s = cases[t][4];
    uint32_t OH = (H - k) / s + 1, OW = (W - k) / s + 1, no = C * OH * OW;
    float *in = nk_alloc((size_t)C * H * W, 25), *out = nk_alloc(no, 26), *ref = nk_alloc(no, 27);
    for (int max = 0; max < 2; max++) {
      ak_args a = {.p = {in, out}, .i = {(int32_t)C, (int32_t)H, (int32_t)W, (int32_t)k, (int32_t)s, (int32_t)OH,
                                        (int32_t)OW, 7}};
      assert_int_equal(nk_run(max ? AK_K_MAXPOOL : AK_K_AVGPOOL, &a, nk_ceil(no, 7), 64, NULL), AK_DONE);
      pool_ref(max, C, H, W, k, s, in, ref);
      nk_assert_same(out, ref, no, max ? "maxpool" : "avgpool");
    }
    free(in), free(out), free(ref);
  }
}

static void softmax_matches_reference(void **state) {
  (void)state;
  const uint32_t rows = 150, cols = 37;
  float *x = nk_alloc((size_t)rows * cols, 28), *out = nk_alloc((size_t)rows * cols, 29);
  float *ref = nk_alloc((size_t)rows * cols, 30);
  for (uint32_t i = 0; i < rows * cols; i++)
    x[i] *= 8.0f;
  ak_args a = {.p = {x, out}, .i = {(int32_t)rows, (int32_t)cols, 16}};
  assert_int_equal(nk_run(AK_K_SOFTMAX, &a, nk_ceil(rows, 16), 16, NULL), AK_DONE);
  for (uint32_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float m = xr[0], sum = 0.0f;
    double dm = xr[0], dsum = 0.0;
    for (uint32_t j = 1; j < cols; j++)
      m = xr[j] > m ? xr[j] : m, dm = xr[j] > dm ? xr[j] : dm;
    for (uint32_t j = 0; j < cols; j++)
      sum = sum + expf(xr[j] - m), dsum += exp(xr[j] - dm);
    for (uint32_t j = 0; j < cols; j++) {
      ref[r * cols + j] = expf(xr[j] - m) / sum;
      double want = exp(xr[j] - dm) / dsum;
      if (fabs(out[r * cols + j] - want) > 1e-6 + 1e-5 * want)
        fail_msg("softmax row %u col %u: %.9g, double reference %.9g", r, j, (double)out[r * cols + j], want);
    }
  }
  nk_assert_same(out, ref, (size_t)rows * cols, "softmax vs float reference");
  free(x), free(out), free(ref);
}

static void layernorm_matches_reference(void **state) {
  (void)state;
  const uint32_t rows = 70, cols = 96;
  const float eps = 1e-5f;
  float *x = nk_alloc((size_t)rows * cols, 31), *g = nk_alloc(cols, 32), *b = nk_alloc(cols, 33);
  float *out = nk_alloc((size_t)rows * cols, 34), *ref = nk_alloc((size_t)rows * cols, 35);
  for (uint32_t i = 0; i < rows * cols; i++)
    x[i] = x[i] * 3.0f + 0.5f;
  ak_args a = {.p = {x, g, b, out}, .i = {(int32_t)rows, (int32_t)cols, ak_bits(eps), 8}};
  assert_int_equal(nk_run(AK_K_LAYERNORM, &a, nk_ceil(rows, 8), 8, NULL), AK_DONE);
  for (uint32_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float sum = 0.0f, sq = 0.0f;
    double dsum = 0.0, dsq = 0.0;
    for (uint32_t j = 0; j < cols; j++)
      sum = sum + xr[j], dsum += xr[j];
    float mean = sum / (float)cols;
    double dmean = dsum / cols;
    for (uint32_t j = 0; j < cols; j++) {
      float d = xr[j] - mean;
      sq = sq + d * d;
      dsq += (xr[j] - dmean) * (xr[j] - dmean);
    }
    float inv = 1.0f / sqrtf(sq / (float)cols + eps);
    double dinv = 1.0 / sqrt(dsq / cols + eps);
    for (uint32_t j = 0; j < cols; j++) {
      ref[r * cols + j] = (xr[j] - mean) * inv * g[j] + b[j];
      double want = (xr[j] - dmean) * dinv * g[j] + b[j];
      if (fabs(out[r * cols + j] - want) > 1e-5)
        fail_msg("layernorm row %u col %u: %.9g, double reference %.9g", r, j, (double)out[r * cols + j], want);
    }
  }
  nk_assert_same(out, ref, (size_t)rows * cols, "layernorm vs float reference");
  free(x), free(g), free(b), free(out), free(ref);
}

static void gelu_matches_reference(void **state) {
  (void)state;
  const uint32_t n = 5000;
  float *x = nk_alloc(n, 36), *out = nk_alloc(n, 37), *ref = nk_alloc(n, 38);
  for (uint32_t i = 0; i < n; i++)
    x[i] *= 6.0f;
  ak_args a = {.p = {x, out}, .i = {(int32_t)n, 1000}};
  assert_int_equal(nk_run(AK_K_GELU, &a, 5, 256, NULL), AK_DONE);
  for (uint32_t i = 0; i < n; i++) {
    float v = x[i];
    ref[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * (v * v * v))));
    double dv = v, want = 0.5 * dv * (1.0 + tanh(sqrt(2.0 / M_PI) * (dv + 0.044715 * dv * dv * dv)));
    if (fabs(out[i] - want) > 1e-6 + 1e-6 * fabs(want))
      fail_msg("gelu(%.9g) = %.9g, double reference %.9g", (double)v, (double)out[i], want);
  }
  nk_assert_same(out, ref, n, "gelu vs float reference");
  free(x), free(out), free(ref);
}

static void adds_match_reference(void **state) {
  (void)state;
  const uint32_t n = 10007;
  float *x = nk_alloc(n, 39), *y = nk_alloc(n, 40), *out = nk_alloc(n, 41), *ref = nk_alloc(n, 42);
  ak_args a = {.p = {x, y, out}, .i = {(int32_t)n, 4096}};
  assert_int_equal(nk_run(AK_K_ADD, &a, nk_ceil(n, 4096), 256, NULL), AK_DONE);
  for (uint32_t i = 0; i < n; i++)
    ref[i] = x[i] + y[i];
  nk_assert_same(out, ref, n, "add");
  /* In place: out += y, starting from out = x. */
  memcpy(out, x, n * sizeof *x);
  ak_args b = {.p = {out, y}, .i = {(int32_t)n, 333}};
  assert_int_equal(nk_run(AK_K_ADD_INPLACE, &b, nk_ceil(n, 333), 64, NULL), AK_DONE);
  nk_assert_same(out, ref, n, "add_inplace");
  free(x), free(y), free(out), free(ref);
}

static void add_inplace_twice_adds_twice(void **state) {
  (void)state;
  /* The in-place add is a real non-idempotent kernel: running it again changes its output. */
  const uint32_t n = 1000;
  float *out = nk_alloc(n, 43), *x = nk_alloc(n, 44), *once = nk_alloc(n, 45);
  ak_args a = {.p = {out, x}, .i = {(int32_t)n, 256}};
  assert_int_equal(nk_run(AK_K_ADD_INPLACE, &a, 4, 64, NULL), AK_DONE);
  memcpy(once, out, n * sizeof *out);
  assert_int_equal(nk_run(AK_K_ADD_INPLACE, &a, 4, 64, NULL), AK_DONE);
  uint32_t differ = 0;
  for (uint32_t i = 0; i < n; i++)
    differ += nk_bits(out[i]) != nk_bits(once[i]);
  if (differ < n / 2)
    fail_msg("re-running add_inplace changed only %u of %u elements", differ, n);
  free(out), free(x), free(once);
}

static void elementwise_partitioning_does_not_matter(void **state) {
  (void)state;
  /* The per-block counts are a launch choice: 1 element per block up to all in one block. */
  const uint32_t n = 9000;
  float *x = nk_alloc(n, 46), *first = nk_alloc(n, 47), *out = nk_alloc(n, 48);
  static const uint32_t per[] = {n, 1, 7, 4096, 5000};
  for (size_t t = 0; t < sizeof per / sizeof per[0]; t++) {
    ak_args a = {.p = {x, t ? out : first}, .i = {(int32_t)n, (int32_t)per[t]}};
    assert_int_equal(nk_run(AK_K_GELU, &a, nk_ceil(n, per[t]), 32, NULL), AK_DONE);
    if (t)
      nk_assert_same(out, first, n, "gelu with another per_block");
  }
  free(x), free(first), free(out);
}

static void spin_is_deterministic(void **state) {
  (void)state;
  float out[3] = {0}, again[3] = {0};
  ak_args a = {.p = {out}, .i = {1000, 64}};
  assert_int_equal(nk_run(AK_K_SPIN, &a, 3, 32, NULL), AK_DONE);
  float v = 0.0f;
  for (int i = 0; i < 1000; i++)
    v = v * 0.999f + 1.0f;
  assert_int_equal(nk_bits(out[0]), nk_bits(v));
  a.p[0] = again;
  assert_int_equal(nk_run(AK_K_SPIN, &a, 3, 32, NULL), AK_DONE);
  nk_assert_same(again, out, 3, "spin twice");
}

static void catalogue_matches_kernel_list(void **state) {
  (void)state;
  static const char *const names[] = {
#define NAME_(ID, name) #name,
      AK_KERNEL_LIST(NAME_)
#undef NAME_
  };
  assert_int_equal(ak_kernel_count(), AK_K_COUNT - 1);
  assert_int_equal(sizeof names / sizeof names[0], AK_K_COUNT - 1);
  for (uint32_t id = 1; id < AK_K_COUNT; id++) {
    const ak_kernel_info *k = ak_kernel_info_get(id);
    assert_non_null(k);
    assert_string_equal(k->name, names[id - 1]);
    assert_ptr_equal(ak_kernel_find(k->name), k);
    assert_cmp(k->n_ptrs, <=, AK_MAX_PTRS);
    assert_cmp(k->n_ints, <=, AK_MAX_INTS);
    assert_cmp((k->reads | k->writes) >> k->n_ptrs, ==, 0);
    assert_cmp(k->writes, !=, 0);
  }
  assert_null(ak_kernel_info_get(0));
  assert_null(ak_kernel_info_get(AK_K_COUNT));
  assert_null(ak_kernel_find("nope"));
}

static void bad_ids_and_arguments_are_refused(void **state) {
  (void)state;
  float buf[16] = {0};
  ak_args a = {.p = {buf, buf, buf}};
  ak_ctx c = {.block = 0, .grid = 1, .threads = 1};
  assert_int_equal(ak_run_block(0, &a, &c), AK_BAD_KERNEL);
  assert_int_equal(ak_run_block(AK_K_COUNT, &a, &c), AK_BAD_KERNEL);
  /* A gemm tile larger than the shared scratch, and elementwise kernels with 0 per block. */
  const gemm_shape s = {4, 4, 4, 1, 0, 0, 1.0f};
  gemm_args(&a, &s, buf, buf, buf, NULL, 64, 32);
  assert_int_equal(ak_run_block(AK_K_GEMM, &a, &c), AK_BAD_ARGS);
  ak_args e = {.p = {buf, buf, buf}, .i = {4, 0}};
  assert_int_equal(ak_run_block(AK_K_ADD, &e, &c), AK_BAD_ARGS);
  assert_int_equal(ak_run_block(AK_K_GELU, &e, &c), AK_BAD_ARGS);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(gemm_matches_reference),
      cmocka_unit_test(gemm_tilings_are_bit_identical),
      cmocka_unit_test(conv2d_matches_reference),
      cmocka_unit_test(conv2d_tilings_are_bit_identical),
      cmocka_unit_test(bias_relu_matches_reference),
      cmocka_unit_test(pooling_matches_reference),
      cmocka_unit_test(softmax_matches_reference),
      cmocka_unit_test(layernorm_matches_reference),
      cmocka_unit_test(gelu_matches_reference),
      cmocka_unit_test(adds_match_reference),
      cmocka_unit_test(add_inplace_twice_adds_twice),
      cmocka_unit_test(elementwise_partitioning_does_not_matter),
      cmocka_unit_test(spin_is_deterministic),
      cmocka_unit_test(catalogue_matches_kernel_list),
      cmocka_unit_test(bad_ids_and_arguments_are_refused),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
