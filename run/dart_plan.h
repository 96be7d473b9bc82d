/* Stage plans on DART's nodes (docs/dart.md): which node runs which operators of each client's
 * model, and how long a stage takes there (core/dart.h's per-device times). dart places stages by
 * Eq. 7-8 over the scenario's nodes; base-gpu runs whole models on the GPU node, base-cpu on one
 * CPU node of all the scenario's cores. */
#ifndef ATOLL_RUN_DART_PLAN_H
#define ATOLL_RUN_DART_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "core/dart.h"

typedef struct atoll_dart_plan {
  atoll_node nodes[ATOLL_DART_MAX_NODES];
  uint32_t n_nodes;
  atoll_dart_client_plan *clients; /* per scenario client */
  int64_t signal_ns;               /* inter-node signalling per stage hand-over (eps^s) */
} atoll_dart_plan;

/* Builds the plan for s's policy (dart, base-gpu or base-cpu); periods_ns: per client, its period
 * (0: none; BE clients' utilization then counts their batch-1 time over the longest RT period).
 * ATOLL_EINVAL when the policy needs nodes the scenario lacks. Free with atoll_dart_plan_free. */
int atoll_dart_plan_build(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *out);
void atoll_dart_plan_free(atoll_dart_plan *p);
/* The plan a run uses for s (the simulator, the native runtime and the analyses alike): periods
 * from the clients' deadlines, else their uniform rates (the policy's view of its task set; see
 * atoll_dart_period_ns). */
int atoll_dart_plan_for(const atoll_scenario *s, atoll_dart_plan *p);
/* A client's period for placement and the response-time test: its deadline, or a uniform client's
 * period; 0 for the others. */
int64_t atoll_dart_period_ns(const atoll_client *c);
/* The time of a client's stage at batch b on its node. */
int64_t atoll_dart_stage_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t client, uint32_t stage,
                            uint32_t batch);

/* Eq. 4's overheads on one node. */
typedef struct atoll_dart_bound_eps {
  int64_t cp_ns; /* preempting the BE worker (ATOLL_DART_PREEMPT_NS; 0 on a node without BE stages) */
  int64_t gp_ns; /* GPU node: preempting BE kernels -- the preset's stream switch plus the longest BE block */
  int64_t gm_ns; /* GPU node: the longest BE copy at the BE batch size (Eq. 3) */
} atoll_dart_bound_eps;

/* Eq. 3-4's overheads on each node of p: eps^cp on every node where a BE client of s has a stage
 * (0 elsewhere: no BE worker to preempt); on the GPU node eps^gp (the preset's stream switch plus
 * the longest BE block there) and eps^gm (the longest BE copy there at its batch), from the BE
 * clients in the task set (admitted: per client, NULL: every client), 0 without BE work. */
void atoll_dart_plan_eps(const atoll_scenario *s, const atoll_dart_plan *p, const bool *admitted,
                         atoll_dart_bound_eps eps[ATOLL_DART_MAX_NODES]);
/* The longest GPU copy of BE client c's stages on the plan's GPU node at batch b (0: none). */
int64_t atoll_dart_be_copy_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t c, uint32_t batch);

#endif
