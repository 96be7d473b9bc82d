/* k_rows.h — row-wise kernels: softmax and layer normalisation over the last dimension of a
 * [rows][cols] matrix. Included by ak_dispatch.c.
 *
 * Block b handles rows [b * rows_per_block, +rows_per_block), one row per work item (a thread
 * walks its row sequentially, so the reduction order is fixed: increasing column), in rounds of
 * about ROWS_POINT_ELEMS elements (at least one row) with a preemption point before each. Rows
 * are independent, so the partitioning never changes a result. expf/sqrtf come from the
 * platform's math library: CPU and GPU builds may differ in the last bit (expf), each build is
 * deterministic. */
#include <math.h>

#define ROWS_POINT_ELEMS 2048u

/* Rows per round between preemption points. */
static AK_DEVICE uint32_t ak_rows_per_point(uint32_t cols) {
  return cols >= ROWS_POINT_ELEMS ? 1u : ROWS_POINT_ELEMS / cols;
}

/* softmax: out[r][j] = exp(x[r][j] - max_r) / sum_j exp(x[r][j] - max_r). The exponentials are
 * computed twice (for the sum, then for the output) rather than stored and re-read, so the kernel
 * never reads its output.
 *   p[0] x (read)  p[1] out (written)  i[0] rows  i[1] cols  i[2] rows_per_block */
static AK_DEVICE int ak_k_softmax(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *x = (const float *)a->p[0];
  float *out = (float *)a->p[1];
  const uint32_t rows = (uint32_t)a->i[0], cols = (uint32_t)a->i[1], rpb = (uint32_t)a->i[2];
  if (rpb == 0 || cols == 0)
    return AK_BAD_ARGS;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, rows, rpb, &lo);
  const uint32_t per_point = ak_rows_per_point(cols);
  for (uint32_t r0 = 0; r0 < cnt; r0 += per_point) {
    const uint32_t rn = cnt - r0 < per_point ? cnt - r0 : per_point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const float *xr = x + (lo + r0 + e) * cols;
      float *yr = out + (lo + r0 + e) * cols;
      float m = AK_LD(&xr[0]);
      for (uint32_t j = 1; j < cols; j++) {
        const float v = AK_LD(&xr[j]);
        m = v > m ? v : m;
      }
      float sum = 0.0f;
      for (uint32_t j = 0; j < cols; j++)
        sum = AK_FADD(sum, AK_EXPF(AK_FADD(AK_LD(&xr[j]), -m)));
      for (uint32_t j = 0; j < cols; j++)
        AK_ST(&yr[j], AK_FDIV(AK_EXPF(AK_FADD(AK_LD(&xr[j]), -m)), sum));
    }
  }
  return AK_DONE;
}

/* layernorm: mean = sum(x) / cols; var = sum((x - mean)^2) / cols;
 * out = (x - mean) * (1 / sqrt(var + eps)) * gamma[j] + beta[j], each step rounded separately.
 *   p[0] x (read)  p[1] gamma (float[cols], read)  p[2] beta (float[cols], read)  p[3] out (written)
 *   i[0] rows  i[1] cols  i[2] eps (float bits)  i[3] rows_per_block */
static AK_DEVICE int ak_k_layernorm(const ak_args *a, const ak_ctx *c, float *smem) {
  (void)smem;
  const float *x = (const float *)a->p[0];
  const float *gamma = (const float *)a->p[1];
  const float *beta = (const float *)a->p[2];
  float *out = (float *)a->p[3];
  const uint32_t rows = (uint32_t)a->i[0], cols = (uint32_t)a->i[1], rpb = (uint32_t)a->i[3];
  const float eps = ak_f32(a->i[2]);
  if (rpb == 0 || cols == 0)
    return AK_BAD_ARGS;
  const float fcols = (float)cols;
  uint32_t lo;
  const uint32_t cnt = ak_elt_range(c, rows, rpb, &lo);
  const uint32_t per_point = ak_rows_per_point(cols);
  for (uint32_t r0 = 0; r0 < cnt; r0 += per_point) {
    const uint32_t rn = cnt - r0 < per_point ? cnt - r0 : per_point;
    AK_PREEMPT_POINT(c);
    AK_FOR_ELEMS(e, rn) {
      const float *xr = x + (lo + r0 + e) * cols;
      float *yr = out + (lo + r0 + e) * cols;
      float sum = 0.0f;
      for (uint32_t j = 0; j < cols; j++)
        sum = AK_FADD(sum, AK_LD(&xr[j]));
      const float mean = AK_FDIV(sum, fcols);
      float sq = 0.0f;
      for (uint32_t j = 0; j < cols; j++) {
        const float d = AK_FADD(AK_LD(&xr[j]), -mean);
        sq = AK_FADD(sq, AK_FMUL(d, d));
      }
      const float inv = AK_FDIV(1.0f, sqrtf(AK_FADD(AK_FDIV(sq, fcols), eps)));
      for (uint32_t j = 0; j < cols; j++) {
        const float d = AK_FADD(AK_LD(&xr[j]), -mean);
        AK_ST(&yr[j], AK_FADD(AK_FMUL(AK_FMUL(d, inv), AK_LD(&gamma[j])), AK_LD(&beta[j])));
      }
    }
  }
  return AK_DONE;
}
