/* What atoll draws on a timeline: the vocabulary of a GPU scheduling run, over the trace writer.
 *
 * Every device (the simulated GPU, the native runtime) and the explorer's witness runs describe a
 * run in the same terms, so their traces open the same way and read the same (docs/traces.md):
 *
 *   group "streams"    one track per stream: its kernels (atoll_timeline_kernel), and inside a
 *                      padded launch its RT part; one track per BE part slot of a padded launch;
 *   group "queues"     per stream, the host-queue (HQ) and device-queue (DQ) depth as counters;
 *   group "scheduler"  the preemptions (arrival of the RT request to its first kernel), the mode
 *                      (a span per real-time period and an instant per switch), and one track per
 *                      preemption step: HQ reset, preempt flag, DQ eviction, CU reset, restore;
 *   group "clients"    every request as an async slice (its own row when requests overlap) with
 *                      two children: queued (arrival to first kernel) and running (to completion).
 *
 * Nothing here knows a device: callers pass stream and client indices, names and times in
 * nanoseconds (virtual in the simulator, a monotonic clock natively). All calls do nothing when
 * the timeline's trace is NULL or closed, so a caller need not test whether tracing is on. The
 * timeline keeps a little state (last counter values, which tracks are named, the current mode)
 * in the struct itself: no allocation, no clean-up. */
#ifndef ATOLL_SIM_TIMELINE_H
#define ATOLL_SIM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "run/trace.h"

/* The steps of a preemption (REEF §4), each drawn on a track of its own. */
typedef enum atoll_preempt_step {
  ATOLL_STEP_HQ_RESET = 0,  /* the host drops a stream's HQ: span = host time reclaiming; count = dropped */
  ATOLL_STEP_FLAG = 1,      /* the preempt flag is set on a stream: instant; count = DQ commands it evicts */
  ATOLL_STEP_DQ_EVICT = 2,  /* the CP fetches flagged commands that exit in their prologue: span; count */
  ATOLL_STEP_CU_RESET = 3,  /* CU reset requested (start) until running kernels are killed (end); count = killed */
  ATOLL_STEP_RESTORE = 4,   /* a preempted task: instant when preempted (count = restart op), span from
                               normal mode to its first relaunched kernel when restored */
  ATOLL_STEP_COUNT = 5
} atoll_preempt_step;

enum { ATOLL_TIMELINE_MAX_STREAMS = 128, ATOLL_TIMELINE_MAX_PARTS = 16 };

typedef struct atoll_timeline {
  atoll_trace *trace;
  /* The last HQ / DQ depth written per stream (-1: none yet): repeated samples are skipped. */
  int32_t hq[ATOLL_TIMELINE_MAX_STREAMS], dq[ATOLL_TIMELINE_MAX_STREAMS];
  /* Bit p of part_named[s]: the track of BE part slot p of stream s is named. */
  uint16_t part_named[ATOLL_TIMELINE_MAX_STREAMS];
  uint8_t steps_named;
  bool realtime;            /* in real-time mode since realtime_since_ns */
  int64_t realtime_since_ns;
} atoll_timeline;

/* trace may be NULL (nothing is drawn). */
void atoll_timeline_init(atoll_timeline *tl, atoll_trace *trace);
/* Names stream `stream`'s kernel track. */
void atoll_timeline_stream(atoll_timeline *tl, uint32_t stream, const char *name);
/* A kernel, memcpy or memset on a stream from start to end. rt: it belongs to RT work. args_json as
 * for atoll_trace_span (NULL or the inside of a JSON object). */
void atoll_timeline_kernel(atoll_timeline *tl, uint32_t stream, const char *name, bool rt, int64_t start_ns,
                           int64_t end_ns, const char *args_json);
/* The depths of a stream's queues from `now` on: commands in its HQ (launched, not yet
 * transmitted) and in its DQ (transmitted, not yet completed or evicted). */
void atoll_timeline_queue_depth(atoll_timeline *tl, uint32_t stream, const char *stream_name, uint32_t hq,
                                uint32_t dq, int64_t now);
/* One preemption step on a stream (stream_name may be NULL for device-wide steps such as the CU
 * reset); an instant when end_ns == start_ns. */
void atoll_timeline_preempt_step(atoll_timeline *tl, atoll_preempt_step step, const char *stream_name,
                                 uint32_t count, int64_t start_ns, int64_t end_ns);
/* One preemption, from the RT request's arrival to its first kernel, with its breakdown. */
void atoll_timeline_preemption(atoll_timeline *tl, int64_t at_ns, int64_t latency_ns, int64_t hq_reset_ns,
                               int64_t dq_evict_ns, int64_t cu_kill_ns, uint32_t evicted_kernels);
/* A part of a padded launch on stream `owner`: part < 0 is the RT kernel (drawn inside the
 * launch's span on the owner's track), part >= 0 the BE block range of slot `part`, on a track of
 * its own. `kernel` is op `op` of model `model`; cu_lo..cu_hi - 1 are the CUs it ran on. */
void atoll_timeline_pad_part(atoll_timeline *tl, uint32_t owner, const char *owner_name, int32_t part,
                             const char *kernel, const char *model, uint32_t op, uint32_t blocks, uint32_t cu_lo,
                             uint32_t cu_hi, int64_t start_ns, int64_t end_ns);
/* A client's share (GPU%) and batch size from `now` on: two counters in group "scheduler". */
void atoll_timeline_share(atoll_timeline *tl, const char *client_name, uint32_t pct, uint32_t batch, int64_t now);
/* A re-provisioning step of a client's share (atoll_partition_step: 0 shadow load, 1 switch, 2
 * refused), on the scheduler's "re-partition" track; an instant when end_ns == start_ns. */
void atoll_timeline_partition(atoll_timeline *tl, uint32_t step, const char *client_name, uint32_t pct,
                              int64_t start_ns, int64_t end_ns);
/* A mode switch (true: real-time mode). */
void atoll_timeline_mode(atoll_timeline *tl, bool realtime, int64_t now);
/* A completed request: arrival, first kernel (start_ns < 0: none recorded) and completion. */
void atoll_timeline_request(atoll_timeline *tl, uint32_t client, const char *client_name, const char *model, bool rt,
                            uint64_t request, int64_t arrival_ns, int64_t start_ns, int64_t done_ns);
/* Ends what is still open at the end of the run (a real-time period). */
void atoll_timeline_finish(atoll_timeline *tl, int64_t now);

#endif
