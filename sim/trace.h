/* Timeline trace in Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing).
 *
 * A streaming writer: spans and instants are written as they happen, so a long run costs no
 * memory. Tracks are (group, index) pairs rendered as one process per group and one thread per
 * index, named once with atoll_trace_name_track(). Times are nanoseconds; the file carries
 * microseconds with three decimals. Every later event kind (preemption steps, padding) goes
 * through this one writer. */
#ifndef ATOLL_SIM_TRACE_H
#define ATOLL_SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

typedef enum atoll_track_group {
  ATOLL_TRACK_CU = 1,     /* a CU or a group of CUs */
  ATOLL_TRACK_STREAM = 2, /* a device stream: kernels in execution */
  ATOLL_TRACK_CLIENT = 3, /* a client: its requests from arrival to completion */
  ATOLL_TRACK_SCHED = 4   /* the scheduler: modes, preemptions */
} atoll_track_group;

typedef struct atoll_trace {
  FILE *f;
  int first;   /* no event written yet (comma handling) */
  int owns_file;
  uint32_t named_groups; /* bit g: the process_name of group g has been written */
  int failed;            /* a write failed; atoll_trace_close reports ATOLL_EIO */
} atoll_trace;

/* path "-" writes to stdout. Returns 0 or ATOLL_EIO. A trace that is not open (zero-initialised,
 * or closed) ignores every call below, so callers need not test whether tracing is on. */
int atoll_trace_open(atoll_trace *t, const char *path);
void atoll_trace_name_track(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name);
/* A complete span ("ph":"X"). args_json is NULL or the inside of a JSON object, e.g.
 * "\"op\":12,\"blocks\":480", written as is. */
void atoll_trace_span(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name, const char *category,
                      int64_t start_ns, int64_t dur_ns, const char *args_json);
/* An instant event ("ph":"i"), e.g. a mode switch. */
void atoll_trace_instant(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name,
                         const char *category, int64_t at_ns, const char *args_json);
/* Finishes the JSON; returns 0 or ATOLL_EIO if any write failed. */
int atoll_trace_close(atoll_trace *t);

#endif
