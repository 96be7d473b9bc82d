/* orion: one kernel on the GPU at a time, RT kernels first, BE kernels round robin (REEF §6.6's
 * Orion comparison). */
#include "core/policy.h"

typedef struct orion_state {
  int32_t owner; /* the queue whose kernel is on the GPU, or -1 */
} orion_state;

static void init(atoll_core *c) { ((orion_state *)atoll__policy_state(c))->owner = -1; }

static void pick(atoll_core *c) {
  orion_state *st = atoll__policy_state(c);
  if (st->owner >= 0)
    return;
  int32_t q = atoll__rt_queue(c);
  if (q >= 0 && !atoll__queue_has_unlaunched(c, (uint32_t)q) && !atoll__queue_activate(c, (uint32_t)q))
    q = -1;
  if (q < 0) {
    q = atoll__next_be_queue(c);
    if (q < 0)
      return;
    if (!atoll__queue_has_unlaunched(c, (uint32_t)q))
      atoll__queue_activate(c, (uint32_t)q);
  }
  st->owner = q;
  atoll__launch_next(c, (uint32_t)q);
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  pick(c);
}

static void on_op_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  ((orion_state *)atoll__policy_state(c))->owner = -1;
  pick(c);
}

static bool state_valid(const atoll_core *c) {
  return ((const orion_state *)atoll__policy_state_c(c))->owner < (int32_t)c->n_queues;
}

const atoll_policy_ops atoll__policy_orion = {
    .queue_per_client = false,
    .state_size = sizeof(orion_state),
    .init = init,
    .on_queued = on_queued,
    .on_op_done = on_op_done,
    .on_task_done = on_op_done,
    .state_valid = state_valid,
};
