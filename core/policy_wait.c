/* wait: block-level wait-based preemption with lazy eviction (REEF §6.4's baseline): the stock DQ
 * depth, no HQ reset, every launched BE kernel (in the HQ or the DQ) evicted through the CP, running
 * blocks waited for, RT work launched once the device is synchronized (preempt.c). */
#include "core/preempt.h"

static const atoll_preempt_style style = {.reset_based = false, .padding = false};
ATOLL_PREEMPT_POLICY(wait, style, NULL, 0, NULL); /* no options of its own */
