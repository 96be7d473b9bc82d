/* nm_run.c — running native models on the calling thread with the CPU kernel library: argument
 * binding (shared with the runtime and the back-ends), block ranges, the uninterrupted reference,
 * host tensor allocation. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/models/nmodel.h"

void atoll_nmodel_bind_args(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *tensors, ak_args *out) {
  const atoll_nop *o = &m->ops[op];
  memset(out, 0, sizeof *out);
  for (int s = 0; s < AK_MAX_PTRS; s++)
    out->p[s] = o->ptr[s] == ATOLL_NARG_NONE ? NULL : tensors[o->ptr[s]];
  memcpy(out->i, o->v[version].ints, sizeof out->i);
}

int atoll_nmodel_run_blocks(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *tensors,
                            uint32_t block_lo, uint32_t block_n, const volatile uint32_t *kill) {
  if (op >= m->n_ops || m->ops[op].kind != ATOLL_OP_KERNEL || version >= m->ops[op].n_versions)
    return ATOLL_EINVAL;
  const atoll_nversion *v = &m->ops[op].v[version];
  if (block_lo > v->grid || block_n > v->grid - block_lo)
    return ATOLL_EINVAL;
  ak_args a;
  atoll_nmodel_bind_args(m, op, version, tensors, &a);
  for (uint32_t b = block_lo; b < block_lo + block_n; b++) {
    ak_ctx c = {.block = b, .grid = v->grid, .threads = v->threads, .kill = kill, .trace = NULL};
    int rc = ak_run_block(v->kernel, &a, &c);
    if (rc == AK_KILLED)
      return AK_KILLED;
    if (rc != AK_DONE)
      return ATOLL_EINVAL;
  }
  return AK_DONE;
}

int atoll_nmodel_run_reference(const atoll_nmodel *m, void *const *host_tensors) {
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_nop *o = &m->ops[i];
    if (o->kind == ATOLL_OP_MEMSET) {
      memset(host_tensors[o->ptr[0]], o->value, m->tensors[o->ptr[0]].bytes);
      continue;
    }
    if (o->kind != ATOLL_OP_KERNEL)
      continue; /* copies: the host tensor is the device tensor here */
    int rc = atoll_nmodel_run_blocks(m, i, 0, host_tensors, 0, o->v[0].grid, NULL);
    if (rc != AK_DONE)
      return ATOLL_EINVAL;
  }
  return 0;
}

void **atoll_nmodel_alloc_host(const atoll_nmodel *m) {
  void **t = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *t);
  if (!t)
    return NULL;
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    size_t bytes = (size_t)(m->tensors[i].bytes + 63) / 64 * 64;
    t[i] = aligned_alloc(64, bytes);
    if (!t[i]) {
      atoll_nmodel_free_host(m, t);
      return NULL;
    }
    memset(t[i], 0, bytes);
  }
  if (m->init_weights)
    m->init_weights(t);
  return t;
}

void atoll_nmodel_free_host(const atoll_nmodel *m, void **tensors) {
  if (!tensors)
    return;
  for (uint32_t i = 0; i < m->n_tensors; i++)
    free(tensors[i]);
  free(tensors);
}
