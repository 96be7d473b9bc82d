/* ngroup_time.h — an operator group's latency measured on a native device, for training abacus's
 * predictor on the device itself (`atoll train-predictor --device`, docs/abacus.md).
 *
 * The group is run as abacus runs one (docs/abacus.md): each member's slice of ops [op_start,
 * op_end) of its native model, on a hardware queue of its own, all submitted at once on an idle
 * device; its latency is the time from the first submit to the last launch's completion. The
 * back-end is driven directly (as `atoll native --profile` times kernels, nprofile.c), without the
 * runtime's host queues: what is timed is the device's overlap of the slices. A shared machine is
 * noisy, so each group runs `repeats` times after one warm-up run and the median is kept. */
#ifndef ATOLL_NATIVE_NGROUP_TIME_H
#define ATOLL_NATIVE_NGROUP_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "atoll/predictor.h"
#include "atoll/scenario.h"
#include "native/runtime/nrun.h"

typedef struct atoll_ngroup_timer atoll_ngroup_timer;

/* Opens the device o selects (o->device, cus, slots, pinning) with every model of s on it
 * (o->nmodels[m] for model m, checked against its profile op for op: atoll_native_check), one
 * queue per group member and each model's tensors filled as after a reference run. Returns 0,
 * ATOLL_ENODEV (device unavailable), ATOLL_EINVAL (a model without a matching native one) or
 * ATOLL_ENOMEM, with the reason in err. */
int atoll_ngroup_timer_open(atoll_ngroup_timer **out, const atoll_scenario *s, const atoll_native_opts *o,
                            uint32_t repeats, char *err, size_t err_len);
/* The median latency of group g (models index s's, which must be the scenario the timer was
 * opened with). The signature of atoll_predictor_train_opts.measure: timer is the ctx. Returns 0,
 * ATOLL_EINVAL for a malformed group, or ATOLL_EIO when a launch failed or never completed. */
int atoll_ngroup_time(void *timer, const atoll_scenario *s, const atoll_group *g, int64_t *out_ns);
void atoll_ngroup_timer_close(atoll_ngroup_timer *t);

#endif
