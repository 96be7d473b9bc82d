/* The policy interface inside the core: each policy reacts to the core's events by choosing what
 * to launch. Policies are listed in include/atoll/policies.h and picked by kind from the table
 * generated there (core/policy_registry.c), so the core's state holds no function pointers and
 * stays a plain value. A policy file includes this header only: what it may call on the core is
 * declared here and in sched.h. */
#ifndef ATOLL_CORE_POLICY_H
#define ATOLL_CORE_POLICY_H

#include "atoll/policy.h"
#include "core/sched.h"

typedef struct atoll_policy_ops {
  /* The queue layout: true gives every client its own queue (streams), false the REEF layout. */
  bool queue_per_client;
  /* Bytes of the policy's own state (atoll__policy_state): zeroed at init, then the policy's.
   * It must be a plain value (no pointers, padding kept zero): the core copies, hashes and
   * compares it byte for byte. */
  size_t state_size;
  /* Its options, read by io/ through atoll_policy_options. */
  const atoll_policy_option *options;
  uint32_t n_options;
  /* Defaults that depend on the scenario and rules across options (atoll_policy_finish_options). */
  const char *(*finish_options)(atoll_scenario *s, uint64_t given, uint32_t *bad);
  /* Queue and stream setup: adjusts queue q's stream before the core creates it. */
  void (*setup_queue)(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg);
  /* The queues and streams exist: sets up the state area. */
  void (*init)(atoll_core *c);
  /* Admission: false sheds the arriving request (the policy gives up on it before queueing). */
  bool (*admit)(const atoll_core *c, uint32_t client, int64_t now);
  /* A task was queued on q. */
  void (*on_queued)(atoll_core *c, uint32_t q, int64_t now);
  /* One op of q's active task completed and the task has more ops (some maybe not launched). */
  void (*on_op_done)(atoll_core *c, uint32_t q, int64_t now);
  /* Completion: q's active task completed, failed or was shed (q->active is already -1). */
  void (*on_task_done)(atoll_core *c, uint32_t q, int64_t now);
  bool (*client_active)(const atoll_core *c, uint32_t client);
  /* A preempted task's running op completed after all (the preemption waited for it). */
  void (*on_awaited_done)(atoll_core *c, int64_t now);
  /* A timer the policy set (atoll__timer_set) is due. */
  void (*on_timer)(atoll_core *c, uint64_t cookie, int64_t now);
  /* Invariants of the state area, for atoll_core_is_valid; NULL: none. */
  bool (*state_valid)(const atoll_core *c);
  /* Streams of the policy's own beyond the queues' (dart's node workers), created after init; a
   * non-zero return fails atoll_core_init. NULL: none. */
  int (*create_streams)(atoll_core *c);
  /* The largest batch the policy forms for a client by itself (gslice's own batching), which a
   * device must have room for (atoll_policy_batch_limit). NULL: none beyond the client's batch:. */
  uint32_t (*batch_limit)(const atoll_scenario *s, uint32_t client);
  /* Before a run of several GPUs: places the clients whose gpu: was not given (clients: a copy of
   * s's to change); true when it moved one. NULL: the scenario's placement stands. */
  bool (*place)(const atoll_scenario *s, atoll_client *clients);
  /* Why a client's batch: cannot apply under the policy (it sizes its batches itself, or runs one
   * request at a time), for the loader's error at that client's batch:; NULL: the scenario's
   * batcher works in front of it. */
  const char *own_batches;
} atoll_policy_ops;

const atoll_policy_ops *atoll__policy_ops(atoll_policy_kind kind);

/* The policy's state area (state_size bytes, suitably aligned for any scalar). */
static inline void *atoll__policy_state(atoll_core *c) { return c->pstate; }
static inline const void *atoll__policy_state_c(const atoll_core *c) { return c->pstate; }

/* Shared mechanisms. */
/* Makes q's next pending task (FIFO, or earliest deadline for an EDF RT queue) active; false when
 * nothing is pending. */
bool atoll__queue_activate(atoll_core *c, uint32_t q);
/* Makes pending entry `pick` (0: the oldest) of q active; false when there is none or q has an
 * active task. */
bool atoll__queue_activate_at(atoll_core *c, uint32_t q, uint32_t pick);
/* Batching by the policy: makes q's next pending task active (as atoll__queue_activate) and lets
 * up to max - 1 further pending tasks of the same client ride with it, oldest first: one model
 * run for all of them. false when nothing is pending. A task already leading a batch (the
 * scenario's batcher formed it) takes none. */
bool atoll__queue_activate_batch(atoll_core *c, uint32_t q, uint32_t max);
/* Operator ranges: launches up to `count` not yet launched ops of q's active task, in order; the
 * rest wait until the policy launches them (on_op_done tells it when one completes). A launch the
 * device refuses fails the task (atoll_core_observer.request_failed) and returns the error. */
int atoll__launch_range(atoll_core *c, uint32_t q, uint32_t count);
/* Launches every not yet launched op of q's active task. */
int atoll__launch_rest(atoll_core *c, uint32_t q);
/* As atoll__launch_range, on another stream of the policy's (dart's node workers), the commands
 * marked rt or not; completions still reach the task by its tags. */
int atoll__launch_range_on(atoll_core *c, uint32_t q, uint32_t count, uint32_t stream, bool rt);
/* As atoll__launch_range_on, for task `id`, which the policy holds itself rather than as its
 * queue's active task (dart's pipeline, several of a client's tasks in flight); a refused launch
 * fails that task (on_task_done follows with its queue). */
int atoll__launch_task_on(atoll_core *c, uint32_t id, uint32_t count, uint32_t stream, bool rt);
/* Launches the next op of q's active task. */
int atoll__launch_next(atoll_core *c, uint32_t q);
/* The device refused a launch of q's active task (one the policy made itself): the request fails
 * (request_failed), its slot is freed and on_task_done follows. */
void atoll__queue_fail(atoll_core *c, uint32_t q);
/* Gives up on pending entry `pick` of q (the request is shed: request_shed). */
void atoll__queue_shed_at(atoll_core *c, uint32_t q, uint32_t pick, int64_t now);
/* Gives up on q's active task, which has no command on the device (between operator groups): the
 * request is shed (request_shed), its slot freed and on_task_done follows. */
void atoll__queue_shed_active(atoll_core *c, uint32_t q, int64_t now);
/* Tells the observer an operator group ended (atoll_core_observer.group_done). */
void atoll__group_done(atoll_core *c, uint32_t n_models, int64_t predicted_ns, int64_t start_ns, int64_t now);
/* Re-binds q's stream to the CUs of `cus` (empty: all); ATOLL_ENOTSUP when the device cannot. */
int atoll__queue_set_cus(atoll_core *c, uint32_t q, const atoll_cuset *cus);
/* Tell the observer a client's share or batch changed, or a re-provisioning step (sched.h). */
void atoll__share_changed(atoll_core *c, uint32_t client, uint32_t pct, uint32_t batch, int64_t now);
void atoll__partition_step(atoll_core *c, uint32_t client, atoll_partition_step step, uint32_t pct, int64_t start_ns,
                           int64_t end_ns);
/* Asks the device for on_timer(cookie) at time `at`; ATOLL_ENOTSUP when it has no timers. */
int atoll__timer_set(atoll_core *c, int64_t at, uint64_t cookie);
/* The next BE queue, round robin from the cursor, that has an active task with unlaunched ops or
 * pending tasks; -1 when none. */
int32_t atoll__next_be_queue(atoll_core *c);
/* Index of the RT queue in the REEF layout, or -1 when the scenario has no RT client. */
int32_t atoll__rt_queue(const atoll_core *c);
/* Whether q's active task has ops not yet launched. */
bool atoll__queue_has_unlaunched(const atoll_core *c, uint32_t q);
/* The model a task runs. */
const atoll_model *atoll__task_model(const atoll_core *c, const atoll_task *t);
/* Forgets a task's padding: the next padded blocks come from op n_done, none has run. */
void atoll__task_pad_clear(atoll_task *t);

#endif
