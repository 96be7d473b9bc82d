/* sjf: shortest job first at model granularity (Abacus's baseline, §7.1): one request at a time,
 * the one whose model is shortest alone next (its reference latency: measured, or the sum of its
 * ops' times), ties to the earlier arrival, then the lower client index; a queued request already
 * past its deadline is shed (serial.h). */
#include "core/serial.h"

static int64_t length(const atoll_core *c, const atoll_task *t) {
  return atoll_model_reference_latency_ns(atoll__task_model(c, t));
}

static bool before(const atoll_core *c, const atoll_task *a, const atoll_task *b) {
  int64_t la = length(c, a), lb = length(c, b);
  if (la != lb)
    return la < lb;
  return a->arrival_ns < b->arrival_ns;
}

ATOLL_SERIAL_POLICY(sjf, before);
