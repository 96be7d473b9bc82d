/* nm_trace.c — a model's memory-access trace: the reference run with the tracer build of the
 * kernel library (ak_trace.h), one trace op per model op, in idem_checker's text format.
 *
 * Trace addresses: tensor i is placed at 0x10000 plus the sizes of the tensors before it, each
 * rounded up to 256 bytes (the layout idem_checker uses for REEF models), so a model's trace is
 * the same text on every run. Copies are traced as their whole tensor (h2d writes it, d2h reads
 * it), memsets as a write of the tensor. Kernel accesses are traced by the kernels themselves
 * (AK_LD/AK_ST), so the trace shows what the code does, not what the model description claims. */
#include <stdio.h>
#include <string.h>

#include "native/kernels/ak_trace.h"
#include "atoll/error.h"
#include "native/models/nmodel_profile.h"



static const char *op_word(atoll_op_kind k) {
  return k == ATOLL_OP_KERNEL ? "kernel" : k == ATOLL_OP_MEMSET ? "memset" : "memcpy";
}

int atoll__ntrace_model(const atoll_nmodel *m, uint64_t request, FILE *out) {
  void **t = atoll_nmodel_alloc_host(m);
  ak_tracer *tr = ak_tracer_new(out);
  int rc = t && tr ? 0 : ATOLL_ENOMEM;
  uint64_t addr = 0x10000;
  for (uint32_t i = 0; rc == 0 && i < m->n_tensors; i++) {
    rc = ak_tracer_add_region(tr, t[i], m->tensors[i].bytes, addr);
    addr += (m->tensors[i].bytes + 255) / 256 * 256;
  }
  if (rc == 0) {
    fprintf(out, "# %s: memory-access trace of the native model (request %llu), written by the kernel "
                 "library's tracer\n",
            m->name, (unsigned long long)request);
    m->make_input(request, t[m->input]);
  }
  for (uint32_t i = 0; rc == 0 && i < m->n_ops; i++) {
    const atoll_nop *o = &m->ops[i];
    ak_tracer_op(tr, op_word(o->kind), o->name);
    if (o->kind != ATOLL_OP_KERNEL) {
      uint32_t tensor = o->ptr[0];
      if (o->kind == ATOLL_OP_MEMSET)
        memset(t[tensor], o->value, m->tensors[tensor].bytes);
      ak_tracer_range(tr, t[tensor], m->tensors[tensor].bytes, o->kind != ATOLL_OP_MEMCPY_D2H);
      continue;
    }
    const atoll_nversion *v = &o->v[0];
    ak_args a;
    atoll_nmodel_bind_args(m, i, 0, t, &a);
    for (uint32_t b = 0; rc == 0 && b < v->grid; b++) {
      ak_ctx c = {.block = b, .grid = v->grid, .threads = v->threads, .kill = NULL, .trace = tr};
      if (ak_run_block_trace(v->kernel, &a, &c) != AK_DONE)
        rc = ATOLL_EINVAL;
    }
  }
  if (tr) {
    int frc = ak_tracer_finish(tr);
    if (rc == 0)
      rc = frc;
  }
  ak_tracer_free(tr);
  atoll_nmodel_free_host(m, t);
  return rc;
}
