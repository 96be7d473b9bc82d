/* The simulated device's hooks (simdev_hooks.h) drawn on a timeline (timeline.h): queue depths as
 * counters, preemption steps, and the parts of padded launches named after their kernels. */
#ifndef ATOLL_SIM_TRACE_HOOKS_H
#define ATOLL_SIM_TRACE_HOOKS_H

#include "atoll/scenario.h"
#include "sim/simdev_hooks.h"
#include "run/timeline.h"

typedef struct atoll_trace_hooks {
  atoll_simdev_hooks hooks; /* pass &hooks to the device; its ctx is this struct */
  atoll_timeline *tl;
  const atoll_scenario *s;  /* names the kernels of padded parts */
} atoll_trace_hooks;

void atoll_trace_hooks_init(atoll_trace_hooks *h, atoll_timeline *tl, const atoll_scenario *s);

#endif
