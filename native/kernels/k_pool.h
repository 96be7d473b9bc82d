/* k_pool.h — max and average pooling, NCHW, one image, k x k window, stride s, no padding
 * (OH = (H - k) / s + 1). Included by ak_dispatch.c.
 *
 * Slots (both):
 *   p[0] in (float[C][H][W], read)  p[1] out (float[C][OH][OW], written)
 *   i[0] C  i[1] H  i[2] W  i[3] k  i[4] s  i[5] OH  i[6] OW  i[7] per_block (outputs per block)
 * Block b computes outputs [b * per_block, +per_block) in (c, oh, ow) order, in rounds of
 * POOL_POINT outputs with a preemption point before each. Each output is computed alone, in the
 * window's row-major order, so the partitioning never changes a result. */

#define POOL_POINT 1024u

/* max: starts from the window's first element, then `v > m ? v : m` in row-major order. */
static AK_DEVICE int ak_k_maxpool(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *in = (const float *)a->p[0];
  float *out = (float *)a->p[1];
  const uint32_t H = (uint32_t)a->i[1], W = (uint32_t)a->i[2], k = (uint32_t)a->i[3], s = (uint32_t)a->i[4];
  const uint32_t OH = (uint32_t)a->i[5], OW = (uint32_t)a->i[6], per_block = (uint32_t)a->i[7];
  const uint32_t n = (uint32_t)a->i[0] * OH * OW;
  if (per_block == 0 || k == 0 || s == 0 || OH == 0 || OW == 0)
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  for (uint32_t r0 = 0; r0 < cnt; r0 += POOL_POINT) {
    const uint32_t rn = cnt - r0 < POOL_POINT ? cnt - r0 : POOL_POINT;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t o = lo + r0 + e;
      const uint32_t ch = o / (OH * OW), oh = o / OW % OH, ow = o % OW;
      const float *x = in + (ch * H + oh * s) * W + ow * s;
      float m = AK_LD(&x[0]);
      for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++) {
          const float v = AK_LD(&x[i * W + j]);
          m = v > m ? v : m;
        }
      AK_ST(&out[o], m);
    }
  }
  return AK_DONE;
}

/* avg: (0 + sum of the window in row-major order) / (k * k), correctly rounded division. */
static AK_DEVICE int ak_k_avgpool(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *in = (const float *)a->p[0];
  float *out = (float *)a->p[1];
  const uint32_t H = (uint32_t)a->i[1], W = (uint32_t)a->i[2], k = (uint32_t)a->i[3], s = (uint32_t)a->i[4];
  const uint32_t OH = (uint32_t)a->i[5], OW = (uint32_t)a->i[6], per_block = (uint32_t)a->i[7];
  const uint32_t n = (uint32_t)a->i[0] * OH * OW;
  if (per_block == 0 || k == 0 || s == 0 || OH == 0 || OW == 0)
    return AK_BAD_ARGS;
  const float area = (float)(k * k);
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  for (uint32_t r0 = 0; r0 < cnt; r0 += POOL_POINT) {
    const uint32_t rn = cnt - r0 < POOL_POINT ? cnt - r0 : POOL_POINT;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t o = lo + r0 + e;
      const uint32_t ch = o / (OH * OW), oh = o / OW % OH, ow = o % OW;
      const float *x = in + (ch * H + oh * s) * W + ow * s;
      float sum = 0.0f;
      for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < k; j++)
          sum = AK_FADD(sum, AK_LD(&x[i * W + j]));
      AK_ST(&out[o], AK_FDIV(sum, area));
    }
  }
  return AK_DONE;
}
