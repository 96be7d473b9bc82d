/* Model-granularity serving for fcfs and sjf (serial.h). */
#include "core/serial.h"

static const atoll_task *head(const atoll_core *c, uint32_t q) {
  uint64_t id;
  return atoll_ring_peek(&c->queues[q].pending, 0, &id) == 0 ? &c->tasks[id] : NULL;
}

void atoll__serial_init(atoll_core *c) { ((atoll_serial_state *)atoll__policy_state(c))->owner = -1; }

void atoll__serial_pick(atoll_core *c, atoll_serial_before before, int64_t now) {
  atoll_serial_state *st = atoll__policy_state(c);
  if (st->owner >= 0)
    return;
  for (uint32_t q = 0; q < c->n_queues; q++)
    for (const atoll_task *t = head(c, q); t && t->deadline_ns < now; t = head(c, q))
      atoll__queue_shed_at(c, q, 0, now);
  int32_t best = -1;
  for (uint32_t q = 0; q < c->n_queues; q++) {
    const atoll_task *t = head(c, q);
    if (t && (best < 0 || before(c, t, head(c, (uint32_t)best))))
      best = (int32_t)q;
  }
  if (best < 0 || !atoll__queue_activate_at(c, (uint32_t)best, 0))
    return;
  st->owner = best;
  atoll__launch_rest(c, (uint32_t)best);
}

void atoll__serial_done(atoll_core *c) { ((atoll_serial_state *)atoll__policy_state(c))->owner = -1; }

bool atoll__serial_state_valid(const atoll_core *c) {
  return ((const atoll_serial_state *)atoll__policy_state_c(c))->owner < (int32_t)c->n_queues;
}
