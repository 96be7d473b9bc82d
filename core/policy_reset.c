/* reset: REEF's reset-based preemption without padding (§4, preempt.c): ① reset the BE streams'
 * host queues (asynchronous reclamation unless async_reclaim is off), ② set their preempt flags,
 * ③ reset the CUs unless reset_cu is off; the DQ is restricted to REEF's depth. */
#include "core/preempt.h"

static const atoll_preempt_style style = {.reset_based = true, .padding = false};
static const atoll_policy_option options[] = {ATOLL_PREEMPT_RESET_OPTIONS};

ATOLL_PREEMPT_POLICY(reset, style, options, sizeof options / sizeof options[0], NULL);
