/* The baseline policies of REEF's evaluation that need no preemption:
 *
 *  rt-only  RT clients alone, through the RT queue, one task at a time: the reference latency.
 *  seq      one task on the GPU at a time, RT first, never preempted (Clockwork-style).
 *  streams  every client on its own stream, all running concurrently (GPU streams, Triton-style);
 *           option priority: RT streams are high-priority queues, whose kernels the block
 *           dispatcher serves first when CUs free up (dispatch itself is per queue and parallel).
 *  orion    one kernel on the GPU at a time, RT kernels first (REEF §6.6's Orion comparison). */
#include <stddef.h>

#include "policy.h"

/* --- rt-only and streams: each queue runs its tasks one after another on its own stream --- */

static void run_queue(atoll_core *c, uint32_t q) {
  if (atoll__queue_activate(c, q))
    atoll__launch_rest(c, q);
}

static void each_queue_on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)now;
  run_queue(c, q);
}

static void each_queue_on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)now;
  run_queue(c, q);
}

static bool rt_clients_only(const atoll_core *c, uint32_t client) {
  return c->s->clients[client].cls == ATOLL_CLASS_RT;
}

static const atoll_policy_ops rt_only_ops = {
    .queue_per_client = false,
    .on_queued = each_queue_on_queued,
    .on_task_done = each_queue_on_task_done,
    .client_active = rt_clients_only,
};

static const atoll_policy_ops streams_ops = {
    .queue_per_client = true,
    .on_queued = each_queue_on_queued,
    .on_task_done = each_queue_on_task_done,
};

/* --- seq: the GPU belongs to one task at a time --- */

static void seq_pick(atoll_core *c) {
  if (c->owner >= 0)
    return;
  int32_t q = atoll__rt_queue(c);
  if (q < 0 || !atoll__queue_activate(c, (uint32_t)q)) {
    q = atoll__next_be_queue(c);
    if (q < 0 || !atoll__queue_activate(c, (uint32_t)q))
      return;
  }
  c->owner = q;
  atoll__launch_rest(c, (uint32_t)q);
}

static void seq_on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  seq_pick(c);
}

static void seq_on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  c->owner = -1;
  seq_pick(c);
}

static const atoll_policy_ops seq_ops = {
    .queue_per_client = false,
    .on_queued = seq_on_queued,
    .on_task_done = seq_on_task_done,
};

/* --- orion: one kernel at a time; RT kernels first, BE kernels round robin --- */

static bool queue_has_unlaunched(const atoll_core *c, uint32_t q) {
  const atoll_queue *qu = &c->queues[q];
  if (qu->active < 0)
    return false;
  const atoll_task *t = &c->tasks[qu->active];
  return t->next_launch < c->s->models[c->s->clients[t->client].model].model.n_ops;
}

static void orion_pick(atoll_core *c) {
  if (c->owner >= 0)
    return;
  int32_t q = atoll__rt_queue(c);
  if (q >= 0 && !queue_has_unlaunched(c, (uint32_t)q) && !atoll__queue_activate(c, (uint32_t)q))
    q = -1;
  if (q < 0) {
    q = atoll__next_be_queue(c);
    if (q < 0)
      return;
    if (!queue_has_unlaunched(c, (uint32_t)q))
      atoll__queue_activate(c, (uint32_t)q);
  }
  c->owner = q;
  atoll__launch_next(c, (uint32_t)q);
}

static void orion_on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  orion_pick(c);
}

static void orion_on_op_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q, (void)now;
  c->owner = -1;
  orion_pick(c);
}

static const atoll_policy_ops orion_ops = {
    .queue_per_client = false,
    .on_queued = orion_on_queued,
    .on_op_done = orion_on_op_done,
    .on_task_done = orion_on_op_done,
};

const atoll_policy_ops *atoll__policy_ops(atoll_policy_kind kind) {
  switch (kind) {
  case ATOLL_POLICY_RT_ONLY:
    return &rt_only_ops;
  case ATOLL_POLICY_SEQ:
    return &seq_ops;
  case ATOLL_POLICY_STREAMS:
    return &streams_ops;
  case ATOLL_POLICY_ORION:
    return &orion_ops;
  case ATOLL_POLICY_WAIT:
  case ATOLL_POLICY_RESET:
  case ATOLL_POLICY_REEF:
    return atoll__policy_ops_preempt();
  default:
    return NULL;
  }
}
