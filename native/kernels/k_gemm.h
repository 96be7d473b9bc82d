/* k_gemm.h — batched, strided matrix multiply: C = alpha * (A . B) + bias. Included by ak_dispatch.c
 * only (one translation unit per build: CPU, tracer, CUDA, HIP).
 *
 * Slots:
 *   p[0] A (float, read)   element (b, m, k) at A[b*i9 + m*i3 + k*i4]
 *   p[1] B (float, read)   element (b, k, n) at B[b*i10 + k*i5 + n*i6]
 *   p[2] C (float, written) element (b, m, n) at C[b*i11 + m*i7 + n]
 *   p[3] bias (float[N], read) or NULL
 *   i[0] M  i[1] N  i[2] K  i[3] a_sm  i[4] a_sk  i[5] b_sk  i[6] b_sn  i[7] c_sm
 *   i[8] batch  i[9] a_sb  i[10] b_sb  i[11] c_sb  i[12] alpha (float bits)
 *   i[13] tile_m (<= 64)  i[14] tile_n (<= 64), tile_m * tile_n <= 1024
 * Grid: batch * ceil(M / tile_m) * ceil(N / tile_n) blocks; block b computes one tile_m x tile_n
 * tile of one batch entry (blocks past the grid's work return at once).
 *
 * The tiling is the version: (32, 32), (16, 64), (64, 16)... partition the same output over
 * different grids. Results do not depend on it: every element is
 *     alpha * (((0 + A0*B0) + A1*B1) + ... + A(K-1)*B(K-1)) + bias[n]
 * summed in increasing k with each product and sum rounded separately (AK_FADD/AK_FMUL), whatever
 * the tile: a tile only decides which block computes the element and how k is staged (panels of
 * GEMM_KT through shared scratch), never the order of the additions. So tilings agree bit for bit.
 *
 * Scratch: acc[1024] (one accumulator per tile element), As[64 x 16], Bs[16 x 64]. Preemption
 * point: once per k panel (every GEMM_KT = 16 steps of k). */
#define GEMM_KT 16u
/* With the dense_points option (backend.h), a point every GEMM_DENSE_STEP steps inside a panel. */
#define GEMM_DENSE_STEP 4u

static AK_DEVICE int ak_k_gemm(const ak_args *a, const ak_ctx *c, float *smem) {
  const float *A = (const float *)a->p[0];
  const float *B = (const float *)a->p[1];
  float *C = (float *)a->p[2];
  const float *bias = (const float *)a->p[3];
  const uint32_t M = (uint32_t)a->i[0], N = (uint32_t)a->i[1], K = (uint32_t)a->i[2];
  const uint32_t a_sm = (uint32_t)a->i[3], a_sk = (uint32_t)a->i[4];
  const uint32_t b_sk = (uint32_t)a->i[5], b_sn = (uint32_t)a->i[6], c_sm = (uint32_t)a->i[7];
  const uint32_t batch = (uint32_t)a->i[8];
  const float alpha = ak_f32(a->i[12]);
  const uint32_t tm = (uint32_t)a->i[13], tn = (uint32_t)a->i[14];
  if (tm == 0 || tn == 0 || tm > 64 || tn > 64 || tm * tn > 1024 || M == 0 || N == 0)
    return AK_BAD_ARGS;

  const uint32_t tiles_m = (M + tm - 1) / tm, tiles_n = (N + tn - 1) / tn;
  const uint32_t per_batch = tiles_m * tiles_n;
  const uint32_t bt = c->block / per_batch, tile = c->block % per_batch;
  if (bt >= batch)
    return AK_DONE;
  const uint32_t m0 = tile / tiles_n * tm, n0 = tile % tiles_n * tn;
  const uint32_t rows = M - m0 < tm ? M - m0 : tm;
  const uint32_t cols = N - n0 < tn ? N - n0 : tn;
  A += (uint32_t)a->i[9] * bt;
  B += (uint32_t)a->i[10] * bt;
  C += (uint32_t)a->i[11] * bt;

  /* Three disjoint regions of the scratch: restrict lets the compiler vectorise the tile loops. */
  float *AK_RESTRICT acc = smem;
  float *AK_RESTRICT As = smem + 1024;
  float *AK_RESTRICT Bs = smem + 2048;
  AK_FOR_ELEMS2(r, j, rows, cols) { acc[r * tn + j] = 0.0f; }
  for (uint32_t k0 = 0; k0 < K; k0 += GEMM_KT) {
    const uint32_t kn = K - k0 < GEMM_KT ? K - k0 : GEMM_KT;
    AK_PREEMPT_POINT(c);
    AK_BARRIER(); /* the previous panel's products are done before its scratch is overwritten */
    AK_FOR_ELEMS2(r, kk, rows, kn) { As[r * GEMM_KT + kk] = AK_LD(&A[(m0 + r) * a_sm + (k0 + kk) * a_sk]); }
    AK_FOR_ELEMS2(kk, j, kn, cols) { Bs[kk * tn + j] = AK_LD(&B[(k0 + kk) * b_sk + (n0 + j) * b_sn]); }
    AK_BARRIER();
    /* k outermost: every element still adds its products in increasing k, and the CPU loop over
     * j is contiguous (vectorisable). */
    for (uint32_t kk = 0; kk < kn; kk++) {
      AK_DENSE_POINT(c, kk % GEMM_DENSE_STEP == GEMM_DENSE_STEP - 1); /* a few per panel (option) */
      AK_FOR_ELEMS2(r, j, rows, cols) {
        /* size_t offsets: 32-bit index arithmetic could wrap, which stops the CPU vectoriser. */
        const size_t e = (size_t)r * tn + j;
        acc[e] = AK_FADD(acc[e], AK_FMUL(As[(size_t)r * GEMM_KT + kk], Bs[(size_t)kk * tn + j]));
      }
    }
  }
  AK_FOR_ELEMS2(r, j, rows, cols) {
    float v = AK_FMUL(alpha, acc[r * tn + j]);
    if (bias)
      v = AK_FADD(v, AK_LD(&bias[n0 + j]));
    AK_ST(&C[(m0 + r) * c_sm + n0 + j], v);
  }
  return AK_DONE;
}
