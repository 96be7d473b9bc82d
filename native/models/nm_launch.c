/* nm_launch.c — the back-end launch (native/backend.h) that runs one op of a native model whole:
 * what the self-test and the verification pass submit, each op on its own. */
#include <string.h>

#include "native/models/nm_launch.h"

void atoll_nmodel_launch(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *dev, const void *h2d_src,
                         void *d2h_dst, uint64_t tag, atoll_nlaunch *l) {
  const atoll_nop *o = &m->ops[op];
  const uint32_t t = o->ptr[0];
  memset(l, 0, sizeof *l);
  l->tag = tag;
  switch (o->kind) {
  case ATOLL_OP_KERNEL: {
    const atoll_nversion *v = &o->v[version];
    l->kind = ATOLL_NL_KERNEL;
    atoll_nmodel_bind_args(m, op, version, dev, &l->k.args);
    l->k.kernel = v->kernel;
    l->k.grid = v->grid;
    l->k.threads = v->threads;
    l->k.block_n = v->grid;
    l->k.occupancy = v->occupancy;
    l->k.tag = tag;
    break;
  }
  case ATOLL_OP_MEMCPY_H2D:
    *l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_H2D, .tag = tag, .dst = dev[t], .src = h2d_src, .bytes = m->tensors[t].bytes};
    break;
  case ATOLL_OP_MEMCPY_D2H:
    *l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_D2H, .tag = tag, .dst = d2h_dst, .src = dev[t], .bytes = m->tensors[t].bytes};
    break;
  case ATOLL_OP_MEMSET:
    *l = (atoll_nlaunch){
        .kind = ATOLL_NL_MEMSET, .tag = tag, .dst = dev[t], .value = o->value, .bytes = m->tensors[t].bytes};
    break;
  }
}
