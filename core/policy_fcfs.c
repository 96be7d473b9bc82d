/* fcfs: first come, first served at model granularity (Abacus's baseline, §7.1): one request at a
 * time, the earliest arrival over all clients next (ties: the lower client index); a queued
 * request already past its deadline is shed (serial.h). */
#include "core/serial.h"

static bool before(const atoll_core *c, const atoll_task *a, const atoll_task *b) {
  (void)c;
  return a->arrival_ns < b->arrival_ns;
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q;
  atoll__serial_pick(c, before, now);
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q;
  atoll__serial_done(c);
  atoll__serial_pick(c, before, now);
}

const atoll_policy_ops atoll__policy_fcfs = {
    .queue_per_client = true,
    .state_size = sizeof(atoll_serial_state),
    .init = atoll__serial_init,
    .on_queued = on_queued,
    .on_task_done = on_task_done,
    .state_valid = atoll__serial_state_valid,
};
