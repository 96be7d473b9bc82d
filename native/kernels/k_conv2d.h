/* k_conv2d.h — direct 2-D convolution, one image, NCHW, zero padding, optional bias. Included by
 * ak_dispatch.c.
 *
 * Slots:
 *   p[0] in  (float[Cin][H][W], read)
 *   p[1] w   (float[Cout][Cin][KH][KW], read)
 *   p[2] bias (float[Cout], read) or NULL
 *   p[3] out (float[Cout][OH][OW], written)
 *   i[0] Cin  i[1] H  i[2] W  i[3] Cout  i[4] KH  i[5] KW  i[6] stride  i[7] pad  i[8] OH  i[9] OW
 *   i[10] tile_c (output channels per block)  i[11] tile_r (output rows per block)
 *   with tile_c * tile_r * OW <= 1024, tile_c * KH * KW <= 1024 and
 *   ((tile_r - 1) * stride + KH) * (W + 2 * pad) <= 1024 (the padded input rows of a tile).
 * Grid: ceil(Cout / tile_c) * ceil(OH / tile_r) blocks; block b computes channels
 * [b / row_tiles * tile_c, +tile_c) x output rows [b % row_tiles * tile_r, +tile_r) x all columns.
 *
 * The tiling is the version (e.g. 8 channels x 4 rows, or 1 channel x 8 rows). Every output is
 *     ((0 + sum over ci, then kh, then kw, in increasing order, of x * w) + bias[oc])
 * where x is the zero-padded input, each product and sum rounded separately: the same for every
 * tiling, so tilings agree bit for bit. (A padded tap adds 0 * w = +-0, which leaves a sum that
 * started at +0 unchanged for finite weights.)
 *
 * Per input channel the block stages its weights (Ws) and its zero-padded input rows (Xs) in
 * shared scratch, then adds one tap (kh, kw) at a time to every output of the tile: the CPU's
 * innermost loop runs along an output row (contiguous, vectorisable) and each output still gets
 * its taps in the defined order. Scratch: acc[1024], Ws[1024], Xs[1024]. Preemption point: once per
 * input channel. */

static AK_DEVICE int ak_k_conv2d(const ak_args *a, const ak_ctx *c, float *smem) {
  const float *in = (const float *)a->p[0];
  const float *w = (const float *)a->p[1];
  const float *bias = (const float *)a->p[2];
  float *out = (float *)a->p[3];
  const uint32_t Cin = (uint32_t)a->i[0], H = (uint32_t)a->i[1], W = (uint32_t)a->i[2];
  const uint32_t Cout = (uint32_t)a->i[3], KH = (uint32_t)a->i[4], KW = (uint32_t)a->i[5];
  const uint32_t stride = (uint32_t)a->i[6];
  const int32_t pad = a->i[7];
  const uint32_t OH = (uint32_t)a->i[8], OW = (uint32_t)a->i[9];
  const uint32_t tc = (uint32_t)a->i[10], tr = (uint32_t)a->i[11];
  const uint32_t xw = W + 2 * (uint32_t)pad; /* a padded input row */
  if (tc == 0 || tr == 0 || stride == 0 || pad < 0 || OW == 0 || OH == 0 || KH * KW == 0 ||
      tc * tr * OW > 1024 || tc * KH * KW > 1024 || ((tr - 1) * stride + KH) * xw > 1024)
    return AK_BAD_ARGS;

  const uint32_t row_tiles = (OH + tr - 1) / tr;
  const uint32_t oc0 = c->block / row_tiles * tc, oh0 = c->block % row_tiles * tr;
  if (oc0 >= Cout)
    return AK_DONE;
  const uint32_t nc = Cout - oc0 < tc ? Cout - oc0 : tc;
  const uint32_t nr = OH - oh0 < tr ? OH - oh0 : tr;
  const uint32_t taps = KH * KW;

  const uint32_t xr = (nr - 1) * stride + KH; /* padded input rows the tile reads */
  const int32_t ih0 = (int32_t)(oh0 * stride) - pad;

  /* Three disjoint regions of the scratch (restrict: no aliasing between them). */
  float *AK_RESTRICT acc = smem;
  float *AK_RESTRICT Ws = smem + 1024;
  float *AK_RESTRICT Xs = smem + 2048;
  AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) { acc[((size_t)oc * nr + r) * OW + ow] = 0.0f; }
  for (uint32_t ci = 0; ci < Cin; ci++) {
    AK_PREEMPT_POINT(c);
    AK_BARRIER(); /* the previous channel's products are done before Ws and Xs are overwritten */
    AK_FOR_ELEMS2(oc, t, nc, taps) { Ws[oc * taps + t] = AK_LD(&w[((oc0 + oc) * Cin + ci) * taps + t]); }
    const float *x = in + ci * H * W;
    AK_FOR_ELEMS2(i, j, xr, xw) {
      const int32_t ih = ih0 + (int32_t)i, iw = (int32_t)j - pad;
      Xs[i * xw + j] = ih < 0 || ih >= (int32_t)H || iw < 0 || iw >= (int32_t)W ? 0.0f
                                                                                : AK_LD(&x[(uint32_t)ih * W + (uint32_t)iw]);
    }
    AK_BARRIER();
    for (uint32_t kh = 0; kh < KH; kh++) {
      for (uint32_t kw = 0; kw < KW; kw++) {
        AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) {
          /* size_t offsets: 32-bit index arithmetic could wrap, which stops the CPU vectoriser. */
          const size_t e = ((size_t)oc * nr + r) * OW + ow;
          acc[e] = AK_FADD(acc[e], AK_FMUL(Xs[((size_t)r * stride + kh) * xw + (size_t)ow * stride + kw],
                                           Ws[(size_t)oc * taps + kh * KW + kw]));
        }
      }
    }
  }
  AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) {
    float v = acc[((size_t)oc * nr + r) * OW + ow];
    if (bias)
      v = AK_FADD(v, AK_LD(&bias[oc0 + oc]));
    AK_ST(&out[((oc0 + oc) * OH + oh0 + r) * OW + ow], v);
  }
  return AK_DONE;
}
