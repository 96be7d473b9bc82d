/* ak_catalog.c — the host-side catalogue of the kernel library (ak_catalog.h). The layouts here
 * repeat the comments at the kernel bodies (k_*.h); tests/native_kernels checks the ids and names
 * against AK_KERNEL_LIST. */
#include "native/kernels/ak_catalog.h"

#include <string.h>

#define P(s) (1u << (s))

static const ak_kernel_info kernels[] = {
    {AK_K_GEMM, "gemm", 4, 15, P(0) | P(1) | P(3), P(2), P(3),
     "p0 A, p1 B, p2 C, p3 bias[N] or NULL",
     "i0 M, i1 N, i2 K, i3 a_sm, i4 a_sk, i5 b_sk, i6 b_sn, i7 c_sm, i8 batch, i9 a_sb, i10 b_sb, "
     "i11 c_sb, i12 alpha bits, i13 tile_m, i14 tile_n",
     "C = alpha * A.B + bias, batched and strided; grid batch*ceil(M/tile_m)*ceil(N/tile_n)"},
    {AK_K_CONV2D, "conv2d", 4, 12, P(0) | P(1) | P(2), P(3), P(2),
     "p0 in[Cin][H][W], p1 w[Cout][Cin][KH][KW], p2 bias[Cout] or NULL, p3 out[Cout][OH][OW]",
     "i0 Cin, i1 H, i2 W, i3 Cout, i4 KH, i5 KW, i6 stride, i7 pad, i8 OH, i9 OW, i10 tile_c, i11 tile_r",
     "direct NCHW convolution; grid ceil(Cout/tile_c)*ceil(OH/tile_r)"},
    {AK_K_BIAS_RELU, "bias_relu", 3, 5, P(0) | P(1), P(2), P(1), "p0 x, p1 bias[C] or NULL, p2 out",
     "i0 n, i1 C, i2 inner, i3 relu, i4 per_block", "out = [relu](x + bias[(e/inner)%C])"},
    {AK_K_MAXPOOL, "maxpool", 2, 8, P(0), P(1), 0, "p0 in[C][H][W], p1 out[C][OH][OW]",
     "i0 C, i1 H, i2 W, i3 k, i4 s, i5 OH, i6 OW, i7 per_block", "k x k max pooling, stride s, no padding"},
    {AK_K_AVGPOOL, "avgpool", 2, 8, P(0), P(1), 0, "p0 in[C][H][W], p1 out[C][OH][OW]",
     "i0 C, i1 H, i2 W, i3 k, i4 s, i5 OH, i6 OW, i7 per_block", "k x k average pooling, stride s, no padding"},
    {AK_K_SOFTMAX, "softmax", 2, 3, P(0), P(1), 0, "p0 x[rows][cols], p1 out", "i0 rows, i1 cols, i2 rows_per_block",
     "row-wise softmax"},
    {AK_K_LAYERNORM, "layernorm", 4, 4, P(0) | P(1) | P(2), P(3), 0,
     "p0 x[rows][cols], p1 gamma[cols], p2 beta[cols], p3 out", "i0 rows, i1 cols, i2 eps bits, i3 rows_per_block",
     "row-wise layer normalisation"},
    {AK_K_GELU, "gelu", 2, 2, P(0), P(1), 0, "p0 x, p1 out", "i0 n, i1 per_block", "GELU, tanh approximation"},
    {AK_K_ADD, "add", 3, 2, P(0) | P(1), P(2), 0, "p0 a, p1 b, p2 out", "i0 n, i1 per_block", "out = a + b"},
    {AK_K_ADD_INPLACE, "add_inplace", 2, 2, P(0) | P(1), P(0), 0, "p0 out (read, then written), p1 x",
     "i0 n, i1 per_block", "out += x (not idempotent)"},
    {AK_K_SPIN, "spin", 1, 2, 0, P(0), 0, "p0 out[grid]", "i0 iterations, i1 iterations per preemption point",
     "synthetic busy kernel for runtime tests"},
};

#define N_KERNELS (sizeof kernels / sizeof kernels[0])

const ak_kernel_info *ak_kernel_info_get(uint32_t id) {
  for (uint32_t i = 0; i < N_KERNELS; i++)
    if (kernels[i].id == id)
      return &kernels[i];
  return NULL;
}

const ak_kernel_info *ak_kernel_find(const char *name) {
  for (uint32_t i = 0; name && i < N_KERNELS; i++)
    if (strcmp(kernels[i].name, name) == 0)
      return &kernels[i];
  return NULL;
}

uint32_t ak_kernel_count(void) { return (uint32_t)N_KERNELS; }
