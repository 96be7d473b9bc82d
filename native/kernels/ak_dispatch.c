/* ak_dispatch.c — the kernel library's one dispatcher: every back-end runs every block through
 * ak_run_block(), so CPU launches, GPU launches and padded launches (whose blocks belong to
 * different kernels) dispatch the same way. This file is compiled as C11 for the CPU library and
 * the tracer library (with AK_TRACE, where ak_run_block is named ak_run_block_trace), and as
 * CUDA/HIP C++ by the GPU back-ends (ak.h explains how). The kernel bodies are included here so
 * that each build is one translation unit and device code needs no separate linking. */
#include "native/kernels/ak.h"

#include "native/kernels/k_common.h" /* first: the bodies use its helpers */
#include "native/kernels/k_conv2d.h"
#include "native/kernels/k_eltwise.h"
#include "native/kernels/k_gemm.h"
#include "native/kernels/k_pool.h"
#include "native/kernels/k_rows.h"

AK_DEVICE int ak_run_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  /* One scratch buffer for every kernel (ak.h, AK_SMEM_FLOATS). Every kernel writes the part it
   * uses before reading it. */
  AK_SHARED float smem[AK_SMEM_FLOATS];
#if defined(AK_TSAN)
  /* The bodies read their arguments and context unreported (ak.h, AK_TSAN): report them here, whole. */
  ak_tsan_read(a, sizeof *a);
  ak_tsan_read(c, sizeof *c);
#endif
  switch (kernel) {
#define AK_CASE_(ID, name)                                                                                 \
  case AK_K_##ID:                                                                                          \
    return ak_k_##name(a, c, smem);
    AK_KERNEL_LIST(AK_CASE_)
#undef AK_CASE_
  default:
    return AK_BAD_KERNEL;
  }
}
