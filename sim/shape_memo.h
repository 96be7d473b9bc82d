/* Kernel timings prepared once per distinct kernel shape. Fitting a shape's demand and solving its
 * block time (atoll_kernel_timing_prepare_shape) is the costliest part of setting up a simulated
 * device, and a model launches the same kernel code with the same shape many times (DISB C's five
 * models: 1,006 kernels, 148 distinct shapes). The memo hands out the timing an identical shape got
 * before: the same function of the same inputs, so nothing simulated changes. One memo serves one
 * timing GPU. */
#ifndef ATOLL_SIM_SHAPE_MEMO_H
#define ATOLL_SIM_SHAPE_MEMO_H

#include <stdint.h>

#include "sim/kernel_timing.h"

typedef struct atoll__shape_slot {
  const atoll_kernel_shape *shape; /* NULL: empty; else the first shape seen with these inputs */
  atoll_kernel_timing timing;      /* what atoll_kernel_timing_prepare_shape gave it */
} atoll__shape_slot;

typedef struct atoll_shape_memo {
  const atoll_gpu *g;
  atoll__shape_slot *slots; /* open addressing, capacity a power of two, at most half full */
  uint32_t cap, n;
} atoll_shape_memo;

/* A memo for GPU g with room for `shapes` distinct shapes (it grows past that). 0 or ATOLL_ENOMEM. */
int atoll_shape_memo_init(atoll_shape_memo *memo, const atoll_gpu *g, uint32_t shapes);
void atoll_shape_memo_free(atoll_shape_memo *memo);
/* atoll_kernel_timing_prepare(memo->g, m, op, out), with the shape part taken from the memo when
 * an identical shape was prepared before. The memo keeps pointers to m's shapes: m must outlive it. */
void atoll_shape_memo_prepare(atoll_shape_memo *memo, const atoll_model *m, uint32_t op, atoll_kernel_timing *out);

#endif
