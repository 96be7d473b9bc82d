/* What the GPU-trace importers share (internal to io/): one device operation as a profiler records
 * it, how a run of them is cut into iterations, and how one iteration becomes a model profile.
 * torch_import.c (Kineto JSON) and profiler_csv_import.c (Nsight Systems / rocprof CSV) fill the
 * events from their formats; docs/import.md describes the conversion. */
#ifndef ATOLL_IO_GPU_TRACE_H
#define ATOLL_IO_GPU_TRACE_H

#include <stdint.h>

#include "io/arena.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "io/diag.h"
#include "io/ytree.h"

typedef struct atoll__gpu_event {
  const atoll_ynode *node; /* Kineto: the event's JSON node; NULL for CSV rows */
  atoll_op_kind kind;
  const char *name, *op_name; /* kernel name; the framework operator that launched it (may be NULL) */
  double ts, dur;             /* us */
  int64_t stream, correlation, ext_id;
  uint64_t bytes;
  atoll_dim3 grid, block;
  uint32_t regs, shared;
  double launch_ts; /* host launch time (us), or ts when unknown: assigns the op to a ProfilerStep */
  uint32_t step;
  uint32_t line; /* CSV rows: the row's line, for errors (0: none, as for Kineto events and SQLite rows) */
} atoll__gpu_event;

/* Cuts events (any order; sorted here by start) into iterations by the period of their sequence and
 * builds one as atoll_torch_import does; format names the source ("Nsight Systems CSV"). */
struct atoll_torch_opts;
struct atoll_torch_info;
int atoll__gpu_events_import(atoll_arena *a, const atoll_source *src, const char *format, const atoll_gpu *gpu,
                             const struct atoll_torch_opts *o, atoll__gpu_event *ev, uint32_t n, atoll_model *out,
                             struct atoll_torch_info *info, atoll_diag *d);

#endif
