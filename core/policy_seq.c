/* seq: one task on the GPU at a time, RT first, never preempted (Clockwork-style). */
#include "core/policy.h"

typedef struct seq_state {
  int32_t owner; /* the queue whose task is on the GPU, or -1 */
} seq_state;

static void init(atoll_core *c) { ((seq_state *)atoll__policy_state(c))->owner = -1; }

static void pick(atoll_core *c) {
  seq_state *st = atoll__policy_state(c);
  if (st->owner >= 0)
    return;
  int32_t q = atoll__rt_queue(c);
  if (q < 0 || !atoll__queue_activate(c, (uint32_t)q)) {
    q = atoll__next_be_queue(c);
    if (q < 0 || !atoll__queue_activate(c, (uint32_t)q))
      return;
  }
  st->owner = q;
  atoll__launch_rest(c, (uint32_t)q);
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  pick(c);
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  ((seq_state *)atoll__policy_state(c))->owner = -1;
  pick(c);
}

static bool state_valid(const atoll_core *c) {
  return ((const seq_state *)atoll__policy_state_c(c))->owner < (int32_t)c->n_queues;
}

const atoll_policy_ops atoll__policy_seq = {
    .queue_per_client = false,
    .state_size = sizeof(seq_state),
    .init = init,
    .on_queued = on_queued,
    .on_task_done = on_task_done,
    .state_valid = state_valid,
};
