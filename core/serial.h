/* Model-granularity serving, shared by the fcfs and sjf policies (Abacus's baselines, §7.1): the
 * GPU runs one whole request at a time, never preempted, and when it frees up the policy's order
 * picks the next one over the heads of the per-client queues. A queued request already past its
 * deadline is shed first rather than run late (Nexus's query drop). A client's requests share its
 * relative deadline and its model, so each queue's oldest request is its earliest and its
 * shortest: only queue heads need comparing. */
#ifndef ATOLL_CORE_SERIAL_H
#define ATOLL_CORE_SERIAL_H

#include "core/policy.h"

/* The policy's state: the queue whose request is on the GPU, or -1. */
typedef struct atoll_serial_state {
  int32_t owner;
} atoll_serial_state;

/* Whether a should run before b (both queue heads). */
typedef bool (*atoll_serial_before)(const atoll_core *c, const atoll_task *a, const atoll_task *b);

void atoll__serial_init(atoll_core *c);
/* Sheds queue heads past their deadline, then, when the GPU is free, launches the head that comes
 * first by `before` in whole. */
void atoll__serial_pick(atoll_core *c, atoll_serial_before before, int64_t now);
/* q's request left the GPU. */
void atoll__serial_done(atoll_core *c);
bool atoll__serial_state_valid(const atoll_core *c);

/* The ops of a serial policy ordered by `before`: every policy of this family differs only in its
 * order, so each file is its order and this one line. */
#define ATOLL_SERIAL_POLICY(name, before)                                                                     \
  static void name##_on_queued(atoll_core *c, uint32_t q, int64_t now) {                                      \
    (void)q;                                                                                                  \
    atoll__serial_pick(c, before, now);                                                                       \
  }                                                                                                           \
  static void name##_on_task_done(atoll_core *c, uint32_t q, int64_t now) {                                   \
    (void)q;                                                                                                  \
    atoll__serial_done(c);                                                                                    \
    atoll__serial_pick(c, before, now);                                                                       \
  }                                                                                                           \
  const atoll_policy_ops atoll__policy_##name = {                                                             \
      .queue_per_client = true,                                                                               \
      .state_size = sizeof(atoll_serial_state),                                                               \
      .init = atoll__serial_init,                                                                             \
      .on_queued = name##_on_queued,                                                                          \
      .on_task_done = name##_on_task_done,                                                                    \
      .state_valid = atoll__serial_state_valid,                                                               \
  }

#endif
