/* The policy interface inside the core: each policy reacts to the core's events by choosing what
 * to launch. Policies are picked by kind from a static table, so the core's state holds no
 * function pointers and stays a plain value. Helpers here are the mechanisms policies share. */
#ifndef ATOLL_CORE_POLICY_H
#define ATOLL_CORE_POLICY_H

#include "sched.h"

typedef struct atoll_policy_ops {
  /* The queue layout: true gives every client its own queue (streams), false the REEF layout. */
  bool queue_per_client;
  /* A task was queued on q. */
  void (*on_queued)(atoll_core *c, uint32_t q, int64_t now);
  /* One op of q's active task completed and the task has more ops. */
  void (*on_op_done)(atoll_core *c, uint32_t q, int64_t now);
  /* q's active task completed (q->active is already -1). */
  void (*on_task_done)(atoll_core *c, uint32_t q, int64_t now);
  bool (*client_active)(const atoll_core *c, uint32_t client);
  /* A preempted task's running op completed after all (the preemption waited for it). */
  void (*on_awaited_done)(atoll_core *c, int64_t now);
} atoll_policy_ops;

const atoll_policy_ops *atoll__policy_ops(atoll_policy_kind kind);
/* wait, reset and reef (policy_preempt.c). */
const atoll_policy_ops *atoll__policy_ops_preempt(void);

/* Shared mechanisms. */
/* Makes q's next pending task (FIFO, or earliest deadline for an EDF RT queue) active; false when
 * nothing is pending. */
bool atoll__queue_activate(atoll_core *c, uint32_t q);
/* Launches every not yet launched op of q's active task. */
int atoll__launch_rest(atoll_core *c, uint32_t q);
/* Launches the next op of q's active task. */
int atoll__launch_next(atoll_core *c, uint32_t q);
/* The next BE queue, round robin from the cursor, that has an active task with unlaunched ops or
 * pending tasks; -1 when none. */
int32_t atoll__next_be_queue(atoll_core *c);
/* Index of the RT queue in the REEF layout, or -1 when the scenario has no RT client. */
int32_t atoll__rt_queue(const atoll_core *c);
/* Forgets a task's padding: the next padded blocks come from op n_done, none has run. */
void atoll__task_pad_clear(atoll_task *t);

#endif
