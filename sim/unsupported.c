/* What the simulator cannot run in a scenario, for the message of an ATOLL_ENOTSUP (run.h). */
#include <stdio.h>

#include "atoll/policies.h"
#include "core/policy.h"
#include "sim/run.h"

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
  /* The loaders refuse the rest first (a CU set on a shared queue, or not one range of CUs);
   * reaching here means a scenario built some other way asked for one of them. */
  snprintf(buf, size,
           "the scenario asks for something the simulated device does not support (a client's CU set "
           "on a shared queue, or one that is not a single range of CUs)");
  return buf;
}
