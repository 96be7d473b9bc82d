/* The device interface: what a device (simulated or native) provides to the scheduler core.
 *
 * As in an RTOS port, the device supplies mechanism and the core makes every decision. The core
 * calls the device through this table of function pointers; the device reports back by calling
 * the core's event functions (core/sched.h: atoll_core_on_cmd_done, ...). Commands name model ops
 * by (model, op) indices, the one index space of docs/models.md, and carry a tag the core chooses
 * and the device echoes on completion.
 *
 * Optional entries are NULL where a device lacks the mechanism; the core checks before calling
 * and falls back (e.g. no CU reset: wait for running blocks, as on stock drivers). */
#ifndef ATOLL_DEVICE_H
#define ATOLL_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/cuset.h"

typedef struct atoll_cmd {
  uint32_t model; /* scenario model index */
  uint32_t op;    /* index into that model's ops */
  uint64_t tag;   /* the core's identifier, echoed by on_cmd_done */
  uint8_t rt;     /* the command belongs to real-time work (for accounting and traces) */
  /* Kernels may run a range of their blocks: [block_lo, block_lo + block_n); block_n 0 = all. A
   * kernel partly run by padded launches is finished this way. */
  uint32_t block_lo, block_n;
  /* Which implementation of a multi-version kernel (0: the default shape). */
  uint32_t version;
  /* Requests the model run serves (a batch, docs/simulator.md "Batching"); 0 and 1: one. */
  uint32_t batch;
} atoll_cmd;

/* One BE block range padded into an RT kernel's launch (REEF §5). */
typedef struct atoll_pad_part {
  atoll_cmd cmd;       /* the BE kernel, its block range and version */
  uint32_t occupancy;  /* blocks per CU in the padded launch (the launch's minimum occupancy) */
  uint32_t cus;        /* CUs of its own: parts take consecutive CUs after the RT kernel's */
} atoll_pad_part;

typedef struct atoll_stream_cfg {
  uint32_t priority;    /* 0 normal; higher values are served first by the CP and block dispatcher */
  uint32_t dq_capacity; /* device-queue depth; 0: the device's stock depth */
  atoll_cuset cus;      /* CUs the stream may run blocks on; empty: all (docs/partitions.md). A device
                         * that cannot bind a stream refuses a non-empty set (ATOLL_ENOTSUP) */
  const char *name;     /* for traces */
  /* The stream is a client process of its own under CUDA MPS (policies mps-default, mps-static,
   * gslice): it submits through a hardware channel of its own, so dispatch alternating between two
   * such streams is not a stream switch (docs/gslice.md). */
  bool own_channel;
} atoll_stream_cfg;

typedef struct atoll_device_ops {
  /* Required. */
  int64_t (*now)(void *dev);
  int (*create_stream)(void *dev, const atoll_stream_cfg *cfg, uint32_t *stream);
  /* Appends commands to a stream's host queue; they run in order, one after another. */
  int (*launch)(void *dev, uint32_t stream, const atoll_cmd *cmds, uint32_t n);
  /* Asks for atoll_core_on_timer(cookie) at time at (>= now). */
  int (*set_timer)(void *dev, int64_t at, uint64_t cookie);

  /* Optional (NULL when absent). */
  int (*reset_hq)(void *dev, uint32_t stream, bool async_reclaim, uint32_t *dropped);
  int (*set_preempt_flag)(void *dev, uint32_t stream, bool on);
  int (*reset_cus)(void *dev);
  int (*set_dq_capacity)(void *dev, uint32_t stream, uint32_t capacity);
  /* A padded (dkp) launch: the RT kernel `rt` on `rt_cus` reserved CUs and the BE block ranges
   * `parts` on the others, as one kernel (REEF §5). Queued on `stream` like any command; each
   * part's blocks are reported with atoll_core_on_blocks_done before `rt` completes. */
  int (*launch_padded)(void *dev, uint32_t stream, const atoll_cmd *rt, uint32_t rt_cus, const atoll_pad_part *parts,
                       uint32_t n_parts);
  /* The execution index: the tag of the last command of this stream whose kernel started (the
   * preemptor prologue's record); ATOLL_ENOENT when none has. A tag, not a bare op index, so the
   * core can tell a kernel of the task it preempts from one of the task before it on the stream. */
  int (*exec_index)(void *dev, uint32_t stream, uint64_t *tag);
  /* Re-binds a stream to another CU set (empty: all), as a re-provisioned MPS client (gslice's
   * shadow switch, docs/gslice.md): kernels dispatched from then on run there; one running keeps
   * its CUs. A device without it cannot re-partition at run time. */
  int (*set_stream_cus)(void *dev, uint32_t stream, const atoll_cuset *cus);
  /* A device synchronize: asks for atoll_core_on_timer(cookie) once every command launched so far,
   * on every stream, has left it, completed or lazily evicted (with nothing left, at once). REEF's
   * wait-based baseline synchronizes the device this way before it launches RT work; a device
   * without it cannot say when its streams drained (the wait policy then resets the HQs). */
  int (*notify_drained)(void *dev, uint64_t cookie);
} atoll_device_ops;

typedef struct atoll_device {
  const atoll_device_ops *ops;
  void *ctx;
} atoll_device;

#endif
