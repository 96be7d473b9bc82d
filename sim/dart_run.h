/* The node model for dart, base-gpu and base-cpu (docs/dart.md): requests run as pipelines of
 * stages over CPU and GPU nodes (run/dart_plan.h), each node with an RT worker (deadline-monotonic,
 * non-preemptive among RT stages) and a BE worker (EDF), RT preempting BE under dart; BE batching;
 * and overrun enforcement (demotion to BE, the response-time test, recovery). atoll_sim_run
 * hands these policies' runs here. */
#ifndef ATOLL_SIM_DART_RUN_H
#define ATOLL_SIM_DART_RUN_H

#include <stdbool.h>

#include "atoll/scenario.h"
#include "run/results.h"
#include "run/trace.h"

bool atoll_dart_policy(atoll_policy_kind k);
/* Runs s (its policy one of the three) into res, drawing on trace (NULL: none). */
int atoll_dart_sim_run(const atoll_scenario *s, atoll_trace *trace, atoll_run_results *res);

#endif
