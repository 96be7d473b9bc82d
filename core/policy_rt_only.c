/* rt-only: RT clients alone, through the RT queue, one task at a time: the reference latency. */
#include "core/policy.h"

static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  (void)now;
  if (atoll__queue_activate(c, q))
    atoll__launch_rest(c, q);
}

static bool rt_clients_only(const atoll_core *c, uint32_t client) {
  return c->s->clients[client].cls == ATOLL_CLASS_RT;
}

const atoll_policy_ops atoll__policy_rt_only = {
    .queue_per_client = false,
    .on_queued = run_queue,
    .on_task_done = run_queue,
    .client_active = rt_clients_only,
};
