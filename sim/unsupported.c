/* What the simulator cannot run in a scenario, for the message of an ATOLL_ENOTSUP (run.h). */
#include <stdio.h>

#include "atoll/policies.h"
#include "core/policy.h"
#include "atoll/error.h"
#include "run/dart_plan.h"
#include "sim/dart_run.h"
#include "sim/run.h"

const char *atoll_sim_rate_lacks(const atoll_scenario *s) {
  /* What makes CU-restricted kernels: padded launches' parts keep to CU ranges, and these policies
   * bind each client's stream to a CU set (mps-default ignores the clients' sets). */
  if (s->policy.kind == ATOLL_POLICY_REEF && s->policy.dkp)
    return "dynamic kernel padding (reef's dkp, whose padded parts keep to CU ranges)";
  switch (s->policy.kind) {
  case ATOLL_POLICY_MPS_STATIC:
  case ATOLL_POLICY_GSLICE:
  case ATOLL_POLICY_INSS:
  case ATOLL_POLICY_GPULET:
    return "streams bound to CU sets (this policy partitions the CUs)";
  default:
    break;
  }
  if (s->policy.kind != ATOLL_POLICY_MPS_DEFAULT)
    for (uint32_t i = 0; i < s->n_clients; i++)
      if (!atoll_cuset_is_empty(&s->clients[i].cus))
        return "streams bound to CU sets (a client's share: or cus:)";
  return NULL;
}

const char *atoll_sim_refusal(const atoll_scenario *s, char *buf, size_t size) {
  if (atoll_dart_policy(s->policy.kind))
    return NULL; /* their own simulator, which checks its plan as it starts */
  bool refused = !atoll__policy_ops(s->policy.kind) ||
                 (s->engine == ATOLL_ENGINE_BLOCKS && s->gpu.cus > ATOLL_BLOCKS_MAX_CUS) ||
                 (s->engine == ATOLL_ENGINE_RATE && atoll_sim_rate_lacks(s));
  return refused ? atoll_sim_unsupported(s, s->engine, buf, size) : NULL;
}

const char *atoll_sim_unsupported(const atoll_scenario *s, atoll_sim_engine engine, char *buf, size_t size) {
  if (!atoll__policy_ops(s->policy.kind)) {
    snprintf(buf, size, "policy '%s' is not implemented by this version of the simulator",
             atoll_policy_name(s->policy.kind));
    return buf;
  }
  if (engine == ATOLL_ENGINE_BLOCKS && s->gpu.cus > ATOLL_BLOCKS_MAX_CUS) {
    snprintf(buf, size,
             "the blocks CU engine simulates at most %u CUs, and GPU '%s' has %u (sim.engine: fluid runs it; "
             "atoll explore and --replay need blocks)",
             ATOLL_BLOCKS_MAX_CUS, s->gpu.name ? s->gpu.name : "-", s->gpu.cus);
    return buf;
  }
  const char *lacks = engine == ATOLL_ENGINE_RATE ? atoll_sim_rate_lacks(s) : NULL;
  if (lacks) {
    snprintf(buf, size, "the rate CU engine does not model %s (sim.engine: fluid runs it)", lacks);
    return buf;
  }
  /* The loaders refuse the rest first (a CU set on a shared queue, or not one range of CUs);
   * reaching here means a scenario built some other way asked for one of them. */
  snprintf(buf, size,
           "the scenario asks for something the simulated device does not support (a client's CU set "
           "on a shared queue, or one that is not a single range of CUs)");
  return buf;
}

const char *atoll_sim_dart_plan_failure(const atoll_scenario *s, char *buf, size_t size) {
  if (!atoll_dart_policy(s->policy.kind))
    return NULL;
  atoll_dart_plan p;
  int rc = atoll_dart_plan_for(s, &p);
  if (rc == 0)
    atoll_dart_plan_free(&p);
  if (rc != ATOLL_EINVAL)
    return NULL;
  const char *policy = atoll_policy_name(s->policy.kind);
  if (s->policy.kind == ATOLL_POLICY_DART && s->node_search_cores)
    snprintf(buf, size,
             "no configuration of the %u searched cores passes dart's response-time test for these clients "
             "(DART's Alg. 1 finds none; docs/dart.md): give nodes:, more cores, or longer deadlines",
             (unsigned)s->node_search_cores);
  else if (s->n_nodes == 0 && s->policy.kind != ATOLL_POLICY_BASE_GPU)
    snprintf(buf, size, "policy %s needs nodes: the scenario has none (docs/dart.md)", policy);
  else
    snprintf(buf, size, "policy %s cannot place these clients' models on the scenario's nodes (docs/dart.md)", policy);
  return buf;
}
