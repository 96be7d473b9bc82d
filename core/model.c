/* Model invariants and summary figures. Pure computation over a loaded model. */
#include <string.h>

#include "atoll/model.h"

uint64_t atoll_dim3_count(atoll_dim3 d) { return (uint64_t)d.x * d.y * d.z; }

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

int64_t atoll_derive_block_time_ns(const atoll_kernel_shape *s, uint32_t cus) {
  uint64_t blocks = atoll_dim3_count(s->grid);
  if (blocks == 0 || cus == 0 || s->occupancy == 0)
    return 0;
  /* At occupancy 1 a kernel of B blocks runs ceil(B / C) waves of one block per CU; at full
   * occupancy ceil(B / (C * occupancy)) waves. Each wave lasts one block time. */
  int64_t t;
  if (s->n_time_per_occupancy > 0)
    t = s->time_per_occupancy_ns[0] / (int64_t)ceil_div(blocks, cus);
  else
    t = s->time_ns / (int64_t)ceil_div(blocks, (uint64_t)cus * s->occupancy);
  return t > 0 ? t : 1;
}

uint32_t atoll_derive_registers(const atoll_kernel_shape *s, uint32_t registers_per_cu, uint32_t max_per_thread) {
  uint64_t threads = atoll_dim3_count(s->block) * s->occupancy;
  if (threads == 0)
    return 0;
  uint64_t r = registers_per_cu / threads;
  if (r > max_per_thread)
    r = max_per_thread;
  return (uint32_t)r;
}

const char *atoll_op_kind_name(atoll_op_kind k) {
  switch (k) {
  case ATOLL_OP_KERNEL:
    return "kernel";
  case ATOLL_OP_MEMCPY_H2D:
    return "memcpy h2d";
  case ATOLL_OP_MEMCPY_D2H:
    return "memcpy d2h";
  case ATOLL_OP_MEMSET:
    return "memset";
  }
  return "?";
}

const char *atoll_tensor_kind_name(atoll_tensor_kind k) {
  static const char *const names[] = {"input", "output", "weight", "intermediate"};
  return (unsigned)k < 4 ? names[k] : "?";
}

bool atoll_kernel_shape_is_valid(const atoll_kernel_shape *s) {
  if (!s || s->grid.x == 0 || s->grid.y == 0 || s->grid.z == 0 || s->block.x == 0 || s->block.y == 0 ||
      s->block.z == 0)
    return false;
  if (s->occupancy == 0 || s->time_ns <= 0 || s->block_time_ns <= 0)
    return false;
  /* Bounds far above any real kernel that keep block counts in 32 bits (below ATOLL_DKP_ALL) and a
   * GPU-wide round of blocks below 2^32 (core/dkp.c's proved arithmetic relies on both). */
  uint64_t xy = (uint64_t)s->grid.x * s->grid.y;
  if (s->occupancy > 65535 || xy >= UINT32_MAX || xy * s->grid.z >= UINT32_MAX)
    return false;
  if (s->registers > ATOLL_MAX_REGISTERS_PER_THREAD)
    return false;
  if (s->n_time_per_occupancy > s->occupancy || (s->n_time_per_occupancy > 0 && !s->time_per_occupancy_ns))
    return false;
  for (uint32_t i = 0; i < s->n_time_per_occupancy; i++)
    if (s->time_per_occupancy_ns[i] <= 0)
      return false;
  return true;
}

static bool indices_valid(const uint32_t *idx, uint32_t n, uint32_t limit) {
  if (n > 0 && !idx)
    return false;
  for (uint32_t i = 0; i < n; i++)
    if (idx[i] >= limit)
      return false;
  return true;
}

bool atoll_op_is_valid(const atoll_model *m, uint32_t op_index) {
  if (!m || op_index >= m->n_ops)
    return false;
  const atoll_op *op = &m->ops[op_index];
  /* Idempotence metadata may name a group for any op (idem_checker traces copies too); a group
   * entry is at or before its op (core/restart.h relies on it). */
  if (op->idem != ATOLL_IDEM_UNKNOWN && op->idem != ATOLL_IDEM_YES && op->idem != ATOLL_IDEM_GROUP &&
      op->idem != ATOLL_IDEM_NONE)
    return false;
  if (op->idem == ATOLL_IDEM_GROUP && op->group_entry > op_index)
    return false;
  switch (op->kind) {
  case ATOLL_OP_KERNEL:
    if (!op->name || !atoll_kernel_shape_is_valid(&op->shape))
      return false;
    if (op->n_versions > 0 && !op->versions)
      return false;
    for (uint32_t v = 0; v < op->n_versions; v++)
      if (!atoll_kernel_shape_is_valid(&op->versions[v]))
        return false;
    if (op->n_batch_times > 0 && !op->batch_times)
      return false;
    for (uint32_t b = 0; b < op->n_batch_times; b++)
      if (op->batch_times[b].batch < 2 || op->batch_times[b].time_ns <= 0 ||
          (b > 0 && op->batch_times[b].batch <= op->batch_times[b - 1].batch))
        return false;
    if (!indices_valid(op->reads, op->n_reads, m->n_tensors) ||
        !indices_valid(op->writes, op->n_writes, m->n_tensors) ||
        !indices_valid(op->readwrites, op->n_readwrites, m->n_tensors))
      return false;
    return true;
  case ATOLL_OP_MEMCPY_H2D:
  case ATOLL_OP_MEMCPY_D2H:
  case ATOLL_OP_MEMSET:
    return op->tensor < m->n_tensors && op->bytes > 0 && op->bytes <= m->tensors[op->tensor].bytes &&
           op->copy_time_ns >= 0;
  }
  return false;
}

bool atoll_model_is_valid(const atoll_model *m) {
  if (!m || !m->name || !m->gpu || m->n_ops == 0 || !m->ops || m->measured_latency_ns < 0)
    return false;
  if (m->n_tensors > 0 && !m->tensors)
    return false;
  for (uint32_t t = 0; t < m->n_tensors; t++) {
    if (!m->tensors[t].name || m->tensors[t].bytes == 0 || (unsigned)m->tensors[t].kind > ATOLL_TENSOR_INTERMEDIATE)
      return false;
    /* Names are unique: the loader resolves ops' tensor references by name. Quadratic, but only
     * debug assertions and tests call this. */
    for (uint32_t u = 0; u < t; u++)
      if (strcmp(m->tensors[t].name, m->tensors[u].name) == 0)
        return false;
  }
  for (uint32_t i = 0; i < m->n_ops; i++)
    if (!atoll_op_is_valid(m, i))
      return false;
  return true;
}

void atoll_model_stats_compute(const atoll_model *m, atoll_model_stats *out) {
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    if (op->kind != ATOLL_OP_KERNEL) {
      if (op->kind == ATOLL_OP_MEMSET)
        out->memsets++;
      else
        out->memcpys++;
      out->sum_copy_time_ns += op->copy_time_ns;
      continue;
    }
    out->kernels++;
    out->total_blocks += atoll_dim3_count(op->shape.grid);
    out->sum_kernel_time_ns += op->shape.time_ns;
    if (op->n_versions > 0)
      out->multi_version_kernels++;
    if (op->idem == ATOLL_IDEM_YES)
      out->idempotent++;
    else if (op->idem == ATOLL_IDEM_GROUP)
      out->group_restored++;
    else if (op->idem == ATOLL_IDEM_NONE)
      out->not_restorable++;
    else
      out->idem_unknown++;
    if (op->shape.derived & ATOLL_DERIVED_BLOCK_TIME)
      out->derived_block_time++;
    if (op->shape.derived & ATOLL_DERIVED_REGISTERS)
      out->derived_registers++;
    /* Distinct kernel names: an op counts when no earlier op launched the same name. */
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++)
      seen = m->ops[j].kind == ATOLL_OP_KERNEL && strcmp(m->ops[j].name, op->name) == 0;
    if (!seen)
      out->distinct_kernels++;
  }
  for (uint32_t t = 0; t < m->n_tensors; t++) {
    out->tensor_bytes += m->tensors[t].bytes;
    if (m->tensors[t].kind == ATOLL_TENSOR_WEIGHT)
      out->weight_bytes += m->tensors[t].bytes;
  }
}

uint64_t atoll_op_bytes_per_block(const atoll_model *m, uint32_t i) {
  return m->op_bytes_per_block ? m->op_bytes_per_block[i] : 0;
}
