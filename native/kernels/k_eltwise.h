/* k_eltwise.h — elementwise kernels: bias+relu, gelu, add, in-place add; and the synthetic spin
 * kernel. Included by ak_dispatch.c.
 *
 * Partitioning (all elementwise kernels): the last int slot named `per_block` gives the elements
 * per block; block b handles [b * per_block, min(n, (b + 1) * per_block)), in rounds of
 * ELT_POINT elements with a preemption point before each round. Each element is computed alone,
 * so the partitioning never changes a result. */
#include <math.h>

/* 1024 elements: about 20 us of the slowest (gelu's tanhf) on one core between points. */
#define ELT_POINT 1024u

/* bias_relu: out[e] = x[e] + bias[(e / inner) % C], then max(., 0) when relu != 0.
 *   p[0] x (read)  p[1] bias (float[C], read) or NULL (then out = relu(x))  p[2] out (written)
 *   i[0] n  i[1] C  i[2] inner (elements per channel, e.g. H*W)  i[3] relu  i[4] per_block
 * The max is `v > 0 ? v : 0` (a negative zero and NaN give +0). */
static AK_DEVICE int ak_k_bias_relu(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *x = (const float *)a->p[0];
  const float *bias = (const float *)a->p[1];
  float *out = (float *)a->p[2];
  const uint32_t n = (uint32_t)a->i[0], C = (uint32_t)a->i[1], inner = (uint32_t)a->i[2];
  const int relu = a->i[3] != 0;
  const uint32_t per_block = (uint32_t)a->i[4];
  if (per_block == 0 || (bias && (C == 0 || inner == 0)))
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  const uint32_t point = ak_poll_step(c, ELT_POINT);
  for (uint32_t r0 = 0; r0 < cnt; r0 += point) {
    const uint32_t rn = cnt - r0 < point ? cnt - r0 : point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t i = lo + r0 + e;
      float v = AK_LD(&x[i]);
      if (bias)
        v = AK_FADD(v, AK_LD(&bias[i / inner % C]));
      if (relu)
        v = v > 0.0f ? v : 0.0f;
      AK_ST(&out[i], v);
    }
  }
  return AK_DONE;
}

/* gelu (tanh approximation): out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 *   p[0] x (read)  p[1] out (written)  i[0] n  i[1] per_block
 * tanhf comes from the platform's math library, so CPU and GPU builds may differ in the last bit;
 * each build is deterministic. */
static AK_DEVICE int ak_k_gelu(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *x = (const float *)a->p[0];
  float *out = (float *)a->p[1];
  const uint32_t n = (uint32_t)a->i[0], per_block = (uint32_t)a->i[1];
  if (per_block == 0)
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  const uint32_t point = ak_poll_step(c, ELT_POINT);
  for (uint32_t r0 = 0; r0 < cnt; r0 += point) {
    const uint32_t rn = cnt - r0 < point ? cnt - r0 : point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t i = lo + r0 + e;
      const float v = AK_LD(&x[i]);
      const float cube = AK_FMUL(AK_FMUL(v, v), v);
      const float inner = AK_FMUL(0.7978845608f, AK_FADD(v, AK_FMUL(0.044715f, cube)));
      AK_ST(&out[i], AK_FMUL(AK_FMUL(0.5f, v), AK_FADD(1.0f, AK_TANHF(inner))));
    }
  }
  return AK_DONE;
}

/* add: out = a + b.   p[0] a (read)  p[1] b (read)  p[2] out (written)  i[0] n  i[1] per_block */
static AK_DEVICE int ak_k_add(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *x = (const float *)a->p[0];
  const float *y = (const float *)a->p[1];
  float *out = (float *)a->p[2];
  const uint32_t n = (uint32_t)a->i[0], per_block = (uint32_t)a->i[1];
  if (per_block == 0)
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  const uint32_t point = ak_poll_step(c, ELT_POINT);
  for (uint32_t r0 = 0; r0 < cnt; r0 += point) {
    const uint32_t rn = cnt - r0 < point ? cnt - r0 : point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t i = lo + r0 + e;
      AK_ST(&out[i], AK_FADD(AK_LD(&x[i]), AK_LD(&y[i])));
    }
  }
  return AK_DONE;
}

/* add_inplace: out += x (PyTorch's `out += x`). It reads its output before writing it, so running
 * it twice adds x twice: NOT idempotent. A restore must re-execute it from the op that produced
 * `out` (its idempotent group entry).
 *   p[0] out (read, then written)  p[1] x (read)  i[0] n  i[1] per_block */
static AK_DEVICE int ak_k_add_inplace(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  float *out = (float *)a->p[0];
  const float *x = (const float *)a->p[1];
  const uint32_t n = (uint32_t)a->i[0], per_block = (uint32_t)a->i[1];
  if (per_block == 0)
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, n, per_block, &lo);
  const uint32_t point = ak_poll_step(c, ELT_POINT);
  for (uint32_t r0 = 0; r0 < cnt; r0 += point) {
    const uint32_t rn = cnt - r0 < point ? cnt - r0 : point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const uint32_t i = lo + r0 + e;
      AK_ST(&out[i], AK_FADD(AK_LD(&out[i]), AK_LD(&x[i])));
    }
  }
  return AK_DONE;
}

/* spin: a fixed amount of arithmetic per block, for runtime tests and benches that need kernels
 * of a chosen length without data. Every thread iterates v = v * 0.999 + 1 (from v = thread
 * index) i[0] times, with a preemption point every i[1] iterations; block b then writes thread
 * 0's value to out[b].   p[0] out (float[grid], written)  i[0] iterations  i[1] per_point (> 0)
 * At most AK_SMEM_FLOATS threads per block. */
static AK_DEVICE int ak_k_spin(const ak_args *a, const ak_ctx *c, float *smem) {
  float *out = (float *)a->p[0];
  const uint32_t iters = (uint32_t)a->i[0];
  if (a->i[1] <= 0 || c->threads == 0 || c->threads > AK_SMEM_FLOATS)
    return AK_BAD_ARGS;
  const uint32_t per_point = ak_poll_step(c, (uint32_t)a->i[1]);
  AK_FOR_THREADS(t) { smem[t] = (float)t; }
  for (uint32_t i0 = 0; i0 < iters; i0 += per_point) {
    const uint32_t n = iters - i0 < per_point ? iters - i0 : per_point;
    AK_PREEMPT_POINT(c);
    AK_FOR_THREADS(t) {
      float v = smem[t];
      for (uint32_t i = 0; i < n; i++)
        v = AK_FADD(AK_FMUL(v, 0.999f), 1.0f);
      smem[t] = v;
    }
  }
  AK_BARRIER();
  AK_FOR_ELEMS(e, 1) { AK_ST(&out[c->block + e], smem[0]); }
  return AK_DONE;
}
