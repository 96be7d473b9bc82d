/* streams: every client on its own stream, all running concurrently (GPU streams, Triton-style).
 * Option priority: RT streams are high-priority queues, whose kernels the block dispatcher serves
 * first when CUs free up (dispatch itself is per queue and parallel). */
#include "core/policy.h"

static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  (void)now;
  if (atoll__queue_activate(c, q))
    atoll__launch_rest(c, q);
}

static void setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  cfg->priority = c->queues[q].rt && c->s->policy.priority ? 1 : 0;
}

static const atoll_policy_option options[] = {
    {.key = "priority", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL, .offset = ATOLL_OPTION_AT(priority),
     .def = 0, .max = 1},
};

const atoll_policy_ops atoll__policy_streams = {
    .queue_per_client = true,
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .setup_queue = setup_queue,
    .on_queued = run_queue,
    .on_task_done = run_queue,
};
