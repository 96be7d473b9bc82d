/* k_conv2d.h — direct 2-D convolution, one image, NCHW, optional bias. Included by ak_dispatch.c.
 *
 * Slots:
 *   p[0] in  (float[Cin][H][W], read)
 *   p[1] w   (float[Cout][Cin][KH][KW], read)
 *   p[2] bias (float[Cout], read) or NULL
 *   p[3] out (float[Cout][OH][OW], written)
 *   i[0] Cin  i[1] H  i[2] W  i[3] Cout  i[4] KH  i[5] KW  i[6] stride  i[7] pad  i[8] OH  i[9] OW
 *   i[10] tile_c (output channels per block)  i[11] tile_r (output rows per block)
 *   with tile_c * tile_r * OW <= 1024 and tile_c * KH * KW <= 1024.
 * Grid: ceil(Cout / tile_c) * ceil(OH / tile_r) blocks; block b computes channels
 * [b / row_tiles * tile_c, +tile_c) x output rows [b % row_tiles * tile_r, +tile_r) x all columns.
 *
 * The tiling is the version (e.g. 16 channels x all rows, or 4 channels x 4 rows). Every output is
 *     ((0 + sum over ci, then kh, then kw, in increasing order, of in * w) + bias[oc])
 * with taps that fall into the zero padding skipped (not added as 0, so the sign of a zero sum
 * does not depend on the padding), each product and sum rounded separately: the same for every
 * tiling, so tilings agree bit for bit.
 *
 * Scratch: acc[1024] (one accumulator per output of the tile), Ws[1024] (the tile's weights for
 * one input channel). Preemption point: once per input channel. */

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
  if (tc == 0 || tr == 0 || stride == 0 || pad < 0 || OW == 0 || OH == 0 || KH * KW == 0 ||
      tc * tr * OW > 1024 || tc * KH * KW > 1024)
    return AK_BAD_ARGS;

  const uint32_t row_tiles = (OH + tr - 1) / tr;
  const uint32_t oc0 = c->block / row_tiles * tc, oh0 = c->block % row_tiles * tr;
  if (oc0 >= Cout)
    return AK_DONE;
  const uint32_t nc = Cout - oc0 < tc ? Cout - oc0 : tc;
  const uint32_t nr = OH - oh0 < tr ? OH - oh0 : tr;
  const uint32_t taps = KH * KW;

  float *acc = smem, *Ws = smem + 1024;
  AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) { acc[(oc * nr + r) * OW + ow] = 0.0f; }
  for (uint32_t ci = 0; ci < Cin; ci++) {
    AK_PREEMPT_POINT(c);
    AK_BARRIER(); /* the previous channel's products are done before Ws is overwritten */
    AK_FOR_ELEMS2(oc, t, nc, taps) { Ws[oc * taps + t] = AK_LD(&w[((oc0 + oc) * Cin + ci) * taps + t]); }
    AK_BARRIER();
    const float *x = in + ci * H * W;
    AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) {
      float s = acc[(oc * nr + r) * OW + ow];
      const int32_t ih0 = (int32_t)((oh0 + r) * stride) - pad, iw0 = (int32_t)(ow * stride) - pad;
      for (uint32_t kh = 0; kh < KH; kh++) {
        const int32_t ih = ih0 + (int32_t)kh;
        if (ih < 0 || ih >= (int32_t)H)
          continue;
        for (uint32_t kw = 0; kw < KW; kw++) {
          const int32_t iw = iw0 + (int32_t)kw;
          if (iw < 0 || iw >= (int32_t)W)
            continue;
          s = AK_FADD(s, AK_FMUL(AK_LD(&x[(uint32_t)ih * W + (uint32_t)iw]), Ws[oc * taps + kh * KW + kw]));
        }
      }
      acc[(oc * nr + r) * OW + ow] = s;
    }
  }
  AK_FOR_ELEMS3(oc, r, ow, nc, nr, OW) {
    float v = acc[(oc * nr + r) * OW + ow];
    if (bias)
      v = AK_FADD(v, AK_LD(&bias[oc0 + oc]));
    AK_ST(&out[((oc0 + oc) * OH + oh0 + r) * OW + ow], v);
  }
  return AK_DONE;
}
