/* The search results as io/idem_meta.h metadata. */
#include "atoll/error.h"
#include "idem/badset.h"
#include "idem/report.h"

int idem_build_meta(atoll_arena *a, const char *source, const idem_trace *t, const uint32_t *entry,
                    atoll_idem_meta *out) {
  atoll_idem_meta m = {.source = source, .n_ops = t->n_ops};
  m.ops = atoll_arena_calloc(a, t->n_ops ? t->n_ops : 1, sizeof *m.ops);
  if (!m.ops)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < t->n_ops; i++) {
    atoll_idem_meta_op *op = &m.ops[i];
    op->kind = t->ops[i].kind == IDEM_OP_KERNEL   ? ATOLL_IDEM_META_KERNEL
               : t->ops[i].kind == IDEM_OP_MEMSET ? ATOLL_IDEM_META_MEMSET
                                                  : ATOLL_IDEM_META_MEMCPY;
    op->name = t->ops[i].name;
    if (entry[i] == IDEM_NO_ENTRY) {
      op->idem = ATOLL_IDEM_NONE;
    } else if (entry[i] == i) {
      op->idem = ATOLL_IDEM_YES;
    } else {
      op->idem = ATOLL_IDEM_GROUP;
      op->group_entry = entry[i];
    }
  }
  *out = m;
  return ATOLL_OK;
}
