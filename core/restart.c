/* Restart points from idempotence metadata; see restart.h. */
#include "core/restart.h"

uint32_t atoll_restart_point(const atoll_model *m, uint32_t running) {
  const atoll_op *op = &m->ops[running];
  /* A group entry applies to every kind of op: a copy that is idempotent only with the ops before
   * it must be redone from their entry, like a kernel. */
  return op->idem == ATOLL_IDEM_GROUP ? op->group_entry : running;
}
