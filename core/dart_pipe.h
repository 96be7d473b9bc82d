/* dart's stage pipeline on a device of queues (docs/dart.md, "Native"): the node workers, stage
 * hand-over and overrun enforcement of core/policy_dart.c when the runner gave the core a pipeline
 * (atoll_core_limits.dart). Internal to the core: the policy file and this one share the state. */
#ifndef ATOLL_CORE_DART_PIPE_H
#define ATOLL_CORE_DART_PIPE_H

#include "core/dart.h"
#include "core/policy.h"

/* One request of a client in the pipeline (a task the policy took from its queue: the queue's
 * `active` stays -1, several of a client's tasks are in flight). */
typedef struct atoll_dart_pipe_req {
  int64_t stage_start_ns; /* when its running stage was handed to its node */
  int32_t task;           /* the core's task (a batch's leader), or -1: the entry is free */
  uint32_t stage;         /* the stage it is at */
  uint32_t seq;           /* the client's hand-over count when this stage was handed over */
  uint8_t running;        /* that stage is on its node's worker */
  uint8_t in_rt;          /* ... the RT worker (else the BE one) */
  uint8_t overran;        /* its running stage passed its WCET */
  uint8_t pad_;
} atoll_dart_pipe_req;

/* Per client: its requests in the pipeline, and enforcement. Fields are written one by one (never
 * as a struct value) so that padding stays zero for the core's byte-wise hash. */
typedef struct atoll_dart_pipe_client {
  int64_t wcet_ns[ATOLL_DART_MAX_NODES]; /* per stage: the RT budget, raised by an overrun */
  atoll_dart_pipe_req req[ATOLL_DART_PIPE_DEPTH];
  uint32_t seq;                          /* stage hand-overs so far: a WCET timer names one */
  uint8_t demoted;                       /* an RT client served by BE workers (enforcement) */
  uint8_t recover;                       /* the test passed: RT again from its next request */
  uint8_t pad_[2];
} atoll_dart_pipe_client;

typedef struct atoll_dart_state {
  int32_t owner;       /* one node's worker (no pipeline): the queue whose request runs, or -1 */
  uint8_t dispatching; /* atoll__dart_pipe_dispatch is running: a call from inside it ... */
  uint8_t again;       /* ... asks for another round after the current one instead of nesting */
  uint8_t pad_[2];
  uint32_t stream[ATOLL_DART_MAX_NODES][2]; /* per node: [0] BE worker's stream, [1] RT worker's */
  /* The request whose stage the worker runs: client * ATOLL_DART_PIPE_DEPTH + its entry, or -1. */
  int32_t busy[ATOLL_DART_MAX_NODES][2];
  atoll_dart_pipe_client cl[ATOLL_DART_PIPE_CLIENTS];
} atoll_dart_state;

/* Timer cookies of the WCET budgets: the client and its hand-over count. */
#define ATOLL_DART_COOKIE(client, seq) (((uint64_t)(client) << 32) | (uint32_t)(seq))

void atoll__dart_pipe_init(atoll_core *c);
int atoll__dart_pipe_streams(atoll_core *c);
void atoll__dart_pipe_dispatch(atoll_core *c, int64_t now);
void atoll__dart_pipe_op_done(atoll_core *c, uint32_t q, int64_t now);
void atoll__dart_pipe_task_done(atoll_core *c, uint32_t q, int64_t now);
void atoll__dart_pipe_timer(atoll_core *c, uint64_t cookie, int64_t now);
bool atoll__dart_pipe_valid(const atoll_core *c);

#endif
