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

typedef struct atoll_cmd {
  uint32_t model; /* scenario model index */
  uint32_t op;    /* index into that model's ops */
  uint64_t tag;   /* the core's identifier, echoed by on_cmd_done */
  uint8_t rt;     /* the command belongs to real-time work (for accounting and traces) */
} atoll_cmd;

typedef struct atoll_stream_cfg {
  uint32_t priority;    /* 0 normal; higher values are served first by the CP and block dispatcher */
  uint32_t dq_capacity; /* device-queue depth; 0: the device's stock depth */
  uint64_t cu_mask;     /* CUs the stream may use (bit i = CU i); 0: all. For spatial-sharing policies */
  const char *name;     /* for traces */
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
  /* The execution index: the tag of the last command of this stream whose kernel started (the
   * preemptor prologue's record); ATOLL_ENOENT when none has. A tag, not a bare op index, so the
   * core can tell a kernel of the task it preempts from one of the task before it on the stream. */
  int (*exec_index)(void *dev, uint32_t stream, uint64_t *tag);
} atoll_device_ops;

typedef struct atoll_device {
  const atoll_device_ops *ops;
  void *ctx;
} atoll_device;

#endif
