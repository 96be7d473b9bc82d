/* Importing a model from a PyTorch profiler (Kineto) Chrome trace (docs/import.md, "PyTorch traces").
 *
 * The trace is Chrome trace-event JSON, plain or gzip-compressed. GPU work is the events of category
 * `kernel`, `gpu_memcpy` and `gpu_memset`; each is one op of the profile, in the order the device ran
 * them. One inference iteration is cut out of the trace: by its `ProfilerStep#N` markers when it has
 * them, otherwise by the shortest period with which the sequence of device ops repeats exactly.
 * Kineto records no memory addresses, so the profile's tensors are only the copies' own buffers and
 * every kernel's idempotence is unknown (idem_checker's metadata can fill it, --idem). */
#ifndef ATOLL_IO_TORCH_IMPORT_H
#define ATOLL_IO_TORCH_IMPORT_H

#include <stdint.h>

#include "io/arena.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "io/diag.h"

typedef enum atoll_torch_split {
  ATOLL_TORCH_BY_STEPS,      /* ProfilerStep#N markers */
  ATOLL_TORCH_BY_REPETITION, /* the op sequence repeats with a period */
  ATOLL_TORCH_WHOLE          /* no markers and no repetition: the whole trace is one iteration */
} atoll_torch_split;

typedef struct atoll_torch_opts {
  const char *name;    /* the model's name; NULL: the file's base name less .json / .json.gz */
  int32_t iteration;   /* 0-based; -1: the last whole iteration */
  int64_t latency_ns;  /* measured latency to record; 0: the iteration's span on the device */
  int64_t eager_latency_ns; /* measured eager (launch-bound) latency to record; 0: none */
} atoll_torch_opts;

typedef struct atoll_torch_info {
  atoll_torch_split split;
  uint32_t iterations;     /* found in the trace */
  uint32_t iteration;      /* the one imported */
  uint32_t kernels, copies; /* of that iteration */
  int64_t kernel_ns;       /* sum of its kernels' durations */
  int64_t span_ns;         /* first op's start to last op's end */
  uint32_t trace_sms;      /* deviceProperties numSms, 0 when absent */
} atoll_torch_info;

/* Reads FILE (.json or .json.gz: gzip is recognised by its content) into a source in arena a; a
 * truncated or corrupt gzip stream is an error naming the file. */
int atoll_source_read_maybe_gz(atoll_arena *a, const char *path, atoll_source *out, atoll_diag *d);

/* Imports one iteration of the trace at path. gpu gives the device limits against which each
 * kernel's occupancy is computed (registers, shared memory, threads and blocks per SM) and its
 * name becomes the model's gpu. Returns 0 or a negative ATOLL_E* code with one located error in d;
 * info (may be NULL) describes what was found. */
int atoll_torch_import(atoll_arena *a, const char *path, const atoll_gpu *gpu, const atoll_torch_opts *o,
                       atoll_model *out, atoll_torch_info *info, atoll_diag *d);
int atoll_torch_import_source(atoll_arena *a, const atoll_source *src, const atoll_gpu *gpu,
                              const atoll_torch_opts *o, atoll_model *out, atoll_torch_info *info, atoll_diag *d);

/* Resident blocks per SM of a kernel: the fewest allowed by threads, registers (on NVIDIA allocated
 * per warp in units of 256), shared memory and the block limit of gpu; at least 1. */
uint32_t atoll_torch_occupancy(const atoll_gpu *gpu, uint32_t threads_per_block, uint32_t registers_per_thread,
                               uint32_t shared_bytes);

#endif
