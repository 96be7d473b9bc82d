/* Optional observation hooks of the simulated device: what it does inside, for timelines and tools.
 *
 * The device calls a hook at the moment the modelled thing happens (its queues change, a
 * preemption step is taken, a part of a padded launch ends); any hook may be NULL, and a NULL
 * hooks table costs one test per site. Hooks only observe: they must not call back into the device
 * or the core, so a run with hooks is the same run as without. sim/trace_hooks.c draws them on
 * the timeline (timeline.h). */
#ifndef ATOLL_SIM_SIMDEV_HOOKS_H
#define ATOLL_SIM_SIMDEV_HOOKS_H

#include <stdint.h>

#include "atoll/device.h"
#include "run/timeline.h"

typedef struct atoll_simdev_hooks {
  void *ctx;
  /* A stream's queue depths changed (or may have): hq commands launched and not yet transmitted,
   * dq transmitted and not yet completed or evicted. A command counts in the DQ from the start of
   * its transmit step. */
  void (*queue_depth)(void *ctx, uint32_t stream, const char *stream_name, uint32_t hq, uint32_t dq, int64_t now);
  /* A preemption step (timeline.h's atoll_preempt_step, never ATOLL_STEP_RESTORE: restores are
   * the core's) on stream `stream` (UINT32_MAX for the device-wide CU reset), from start to end. */
  void (*preempt_step)(void *ctx, atoll_preempt_step step, uint32_t stream, const char *stream_name, uint32_t count,
                       int64_t start_ns, int64_t end_ns);
  /* A part of a padded launch on stream `owner` ended: part -1 is the RT kernel, part k >= 0 the
   * launch's k-th BE block range; cmd names the kernel, blocks its block count, [cu_lo, cu_hi)
   * its CUs. */
  void (*pad_part)(void *ctx, uint32_t owner, const char *owner_name, int32_t part, const atoll_cmd *cmd,
                   uint32_t blocks, uint32_t cu_lo, uint32_t cu_hi, int64_t start_ns, int64_t end_ns);
} atoll_simdev_hooks;

/* Calls hook `fn` of d->hooks when both are set (for simdev.c). */
#define ATOLL_SIMDEV_HOOK(hooks, fn, ...)                  \
  do {                                                     \
    if ((hooks) && (hooks)->fn)                            \
      (hooks)->fn((hooks)->ctx, __VA_ARGS__);              \
  } while (0)

#endif
