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

#endif
