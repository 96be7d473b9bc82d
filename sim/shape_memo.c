#include "sim/shape_memo.h"

#include <stdlib.h>

#include "atoll/error.h"

static atoll__shape_slot *slot_for(const atoll_shape_memo *memo, const atoll_kernel_shape *s) {
  uint32_t mask = memo->cap - 1, i = (uint32_t)atoll_kernel_shape_timing_hash(s) & mask;
  while (memo->slots[i].shape && !atoll_kernel_shape_times_alike(memo->slots[i].shape, s))
    i = (i + 1) & mask;
  return &memo->slots[i];
}

static int grow(atoll_shape_memo *memo, uint32_t cap) {
  atoll_shape_memo bigger = {.g = memo->g, .cap = cap, .n = memo->n};
  bigger.slots = calloc(cap, sizeof *bigger.slots);
  if (!bigger.slots)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < memo->cap; i++)
    if (memo->slots[i].shape)
      *slot_for(&bigger, memo->slots[i].shape) = memo->slots[i];
  free(memo->slots);
  *memo = bigger;
  return 0;
}

int atoll_shape_memo_init(atoll_shape_memo *memo, const atoll_gpu *g, uint32_t shapes) {
  *memo = (atoll_shape_memo){.g = g};
  uint32_t cap = 16;
  while (cap < 2 * (uint64_t)shapes && cap < (UINT32_C(1) << 30))
    cap *= 2;
  return grow(memo, cap);
}

void atoll_shape_memo_free(atoll_shape_memo *memo) {
  free(memo->slots);
  *memo = (atoll_shape_memo){0};
}

void atoll_shape_memo_prepare(atoll_shape_memo *memo, const atoll_model *m, uint32_t op, atoll_kernel_timing *out) {
  const atoll_op *o = &m->ops[op];
  /* Copies cost nothing to prepare; a memo that cannot grow prepares without it (same result). */
  if (o->kind != ATOLL_OP_KERNEL || (2 * (memo->n + 1) > memo->cap && grow(memo, 2 * memo->cap) != 0)) {
    atoll_kernel_timing_prepare(memo->g, m, op, out);
    return;
  }
  atoll__shape_slot *sl = slot_for(memo, &o->shape);
  if (sl->shape) {
    *out = sl->timing;
  } else {
    atoll_kernel_timing_prepare_shape(memo->g, &o->shape, out);
    sl->shape = &o->shape, sl->timing = *out;
    memo->n++;
  }
  /* The rest of atoll_kernel_timing_prepare: the op's own memory traffic. */
  atoll_kernel_timing_memory(memo->g, atoll_op_bytes_per_block(m, op), out);
}
