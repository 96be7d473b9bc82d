/* fcfs: first come, first served at model granularity (Abacus's baseline, §7.1): one request at a
 * time, the earliest arrival over all clients next (ties: the lower client index); a queued
 * request already past its deadline is shed (serial.h). */
#include "core/serial.h"

static bool before(const atoll_core *c, const atoll_task *a, const atoll_task *b) {
  (void)c;
  return a->arrival_ns < b->arrival_ns;
}

ATOLL_SERIAL_POLICY(fcfs, before);
