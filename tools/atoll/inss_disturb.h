/* Outside disturbance of `atoll fit inss --device cpu`'s runs (docs/inss.md, "Native"): which
 * requests ran while a CU worker of the CPU back-end was taken off its CPU by something other than
 * the run, so that the fit leaves their batches out (atoll_request_record.disturbed).
 *
 * Every block a CU worker runs is timed twice, by the wall clock and by the worker thread's own CPU
 * clock; a block whose wall time exceeds its thread's CPU time by more than `lost_ns` was
 * descheduled that long in the middle of its work. What took its CPU is either one of the run's
 * own host threads (scheduler, command processor, clients: the CPU time the co-located models share,
 * which is interference the model must keep) or another process. The run's host threads run for
 * microseconds at a time (a dispatch, a completion, a post), while another process that preempts a
 * worker keeps the CPU for a scheduler slice (about a millisecond or more), so a threshold between
 * the two tells them apart: ATOLL_INSS_LOST_NS, set from measured distributions (docs/inss.md). */
#ifndef ATOLL_TOOLS_INSS_DISTURB_H
#define ATOLL_TOOLS_INSS_DISTURB_H

#include <stdint.h>

#include "core/sched.h"
#include "run/results.h"

enum { ATOLL_INSS_LOST_NS = 300000 };

typedef struct atoll_inss_disturb_stats {
  uint64_t blocks;         /* blocks timed */
  uint64_t lost_blocks;    /* of them, descheduled for more than lost_ns */
  uint64_t lost_hist[5];   /* blocks by time lost: < 20 us, < 100 us, < 300 us, < 1 ms, more */
} atoll_inss_disturb_stats;

/* Starts timing the CPU back-end's blocks (before the run opens it); `lost_ns` the threshold.
 * n_clients and per_client size the record of the requests' start and completion times. 0 or
 * ATOLL_ENOMEM. */
int atoll__inss_disturb_begin(int64_t lost_ns, uint32_t n_clients, uint32_t per_client);

/* The observer (atoll_native_opts.tap) that stamps each request's start and completion. */
const atoll_core_observer *atoll__inss_disturb_tap(void);

/* Stops timing and marks every request of res that was running (its start to its completion)
 * while a disturbed block ran; adds to *st. Returns the requests marked. */
uint32_t atoll__inss_disturb_end(atoll_run_results *res, atoll_inss_disturb_stats *st);

#endif
