/* Timeline trace in Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing).
 *
 * A streaming writer of the format's primitives: spans, instants, counters and async slices are
 * written as they happen, so a long run costs no memory. Tracks are (group, index) pairs rendered
 * as one process per group and one thread per index, named once with atoll_trace_name_track().
 * Times are nanoseconds; the file carries microseconds with three decimals. The writer knows
 * nothing of any device: what atoll draws with it (queues, preemption steps, padded launches,
 * requests) is timeline.h, which the simulator, the native runtime and the explorer share.
 *
 * Events need not be written in time order (viewers sort them); spans on one track must nest
 * (a span inside another, or after it), so overlapping work goes to async slices. */
#ifndef ATOLL_SIM_TRACE_H
#define ATOLL_SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

typedef enum atoll_track_group {
  ATOLL_TRACK_CU = 1,     /* a CU or a group of CUs */
  ATOLL_TRACK_STREAM = 2, /* a device stream: kernels in execution */
  ATOLL_TRACK_CLIENT = 3, /* a client: its requests from arrival to completion */
  ATOLL_TRACK_SCHED = 4,  /* the scheduler: modes, preemptions */
  ATOLL_TRACK_QUEUES = 5  /* host and device queue depths (counters), per stream */
} atoll_track_group;

/* A run of several GPUs draws each GPU's groups as processes of their own: GPU n's group g is
 * pid n * ATOLL_TRACE_PIDS_PER_GPU + g, so GPU 0's pids are the groups themselves. */
#define ATOLL_TRACE_PIDS_PER_GPU 8u

typedef struct atoll_trace {
  FILE *f;
  int first;   /* no event written yet (comma handling) */
  int owns_file;
  uint32_t named_groups; /* bit g: the process_name of group g has been written (GPU 0's pids) */
  int failed;            /* a write failed; atoll_trace_close reports ATOLL_EIO */
  int64_t from_ns, to_ns; /* the window (atoll_trace_set_window); to_ns <= from_ns: everything */
  uint32_t gpu;           /* the GPU whose run is drawn now (atoll_trace_set_gpu) */
  int several_gpus;       /* process names carry the GPU: "GPU 1: CUs" */
  uint64_t named_pids;    /* bit p: the process_name of pid p (32 <= p < 64) has been written */
} atoll_trace;

/* path "-" writes to stdout. Returns 0 or ATOLL_EIO. A trace that is not open (zero-initialised,
 * or closed) ignores every call below, so callers need not test whether tracing is on. */
int atoll_trace_open(atoll_trace *t, const char *path);
/* The same on a stream the caller opened and closes (atoll_trace_close flushes it, no more): for a
 * file written whole or not at all (io/out_file.h). */
int atoll_trace_open_stream(atoll_trace *t, FILE *f);
void atoll_trace_name_track(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name);
/* A complete span ("ph":"X"). args_json is NULL or the inside of a JSON object, e.g.
 * "\"op\":12,\"blocks\":480", written as is. */
void atoll_trace_span(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name, const char *category,
                      int64_t start_ns, int64_t dur_ns, const char *args_json);
/* An instant event ("ph":"i"), e.g. a mode switch. */
void atoll_trace_instant(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name,
                         const char *category, int64_t at_ns, const char *args_json);
/* A counter sample ("ph":"C"): from at_ns on, series `series` of the counter track `name` in
 * group g has `value`. Viewers draw one step graph per (group, name); samples that repeat the
 * previous value are allowed but only cost space. */
void atoll_trace_counter(atoll_trace *t, atoll_track_group g, const char *name, const char *series, int64_t at_ns,
                         int64_t value);
/* An async slice: a span that may overlap other spans of its group, e.g. the requests of one
 * client, written as a "ph":"b" / "ph":"e" pair. Slices of the same (group, category, id) nest: a
 * begin while a slice of that id is open starts its child, and ends close the innermost slice
 * first. atoll_trace_async writes one slice; begin and end write a nested set in order (parent
 * begin, children, parent end: viewers keep the file order of events at equal times). Begin and
 * end ignore the window: check the whole set once with atoll_trace_wants. */
void atoll_trace_async(atoll_trace *t, atoll_track_group g, const char *name, const char *category, uint64_t id,
                       int64_t start_ns, int64_t end_ns, const char *args_json);
void atoll_trace_async_begin(atoll_trace *t, atoll_track_group g, const char *name, const char *category,
                             uint64_t id, int64_t at_ns, const char *args_json);
void atoll_trace_async_end(atoll_trace *t, atoll_track_group g, const char *name, const char *category, uint64_t id,
                           int64_t at_ns);
/* True when the trace is open and [start_ns, end_ns] touches its window. */
int atoll_trace_wants(const atoll_trace *t, int64_t start_ns, int64_t end_ns);
/* Keeps only events that touch [from_ns, to_ns): spans and slices that overlap it, instants and
 * counter samples inside it. to_ns <= from_ns keeps everything (the default). Traces of long runs
 * are large (DISB A's 10 s make ~150 MB): a window keeps a readable part. */
void atoll_trace_set_window(atoll_trace *t, int64_t from_ns, int64_t to_ns);
/* The events written from now on belong to GPU `gpu` of a run of several (of_several != 0): its
 * groups get pids of their own and names that say the GPU. (0, 0), the default, is one GPU. */
void atoll_trace_set_gpu(atoll_trace *t, uint32_t gpu, int of_several);
/* A part of `whole` that another thread writes at the same time (one GPU of a native run of
 * several): a temporary file with whole's window, appended to whole by atoll_trace_append_part.
 * A whole that is not open gives a part that is not open. Returns 0 or ATOLL_EIO. */
int atoll_trace_open_part(atoll_trace *part, const atoll_trace *whole);
/* Moves part's events into whole, after whole's own, and closes part. 0 or ATOLL_EIO. */
int atoll_trace_append_part(atoll_trace *whole, atoll_trace *part);
/* Finishes the JSON; returns 0 or ATOLL_EIO if any write failed. */
int atoll_trace_close(atoll_trace *t);

#endif
