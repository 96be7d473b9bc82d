/* The preemption mechanism the wait, reset and reef policies share (preempt.c). A policy passes
 * its style to each reaction; the state lives in the policy's state area. */
#ifndef ATOLL_CORE_PREEMPT_H
#define ATOLL_CORE_PREEMPT_H

#include "core/pad_guard.h"
#include "core/policy.h"

typedef struct atoll_preempt_style {
  bool reset_based; /* reset the HQ and CUs (async_reclaim, reset_cu); else wait for running blocks */
  bool padding;     /* dynamic kernel padding in real-time mode (option dkp) */
} atoll_preempt_style;

/* reef's option pad_guard (pad_guard.h) lives in the policy's first free parameter slot. */
enum { ATOLL_PREEMPT_PAD_GUARD_PARAM = 0 };

typedef struct atoll_preempt_state {
  uint32_t awaited;       /* running BE kernels a preemption waits for */
  int64_t normal_since;   /* when normal mode (an empty RT queue) last began */
  int64_t guard_cap;      /* the padding guard's credit cap: one RT request's padding overhead */
  atoll_pad_guard guard;  /* slack the RT client has shown, not yet spent on padding */
  uint8_t guard_known;    /* guard_cap and guard_open are set (at the first RT arrival) */
  uint8_t guard_open;     /* some RT client is open-loop: only its queue can grow */
  uint8_t draining;       /* a wait-based preemption waits for the preempted streams to drain */
} atoll_preempt_state;

/* The timer cookie of the device's stream synchronize (notify_drained) a wait-based preemption
 * asks for. */
enum { ATOLL_PREEMPT_DRAINED_COOKIE = 1 };

void atoll__preempt_setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg, const atoll_preempt_style *st);
void atoll__preempt_on_queued(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st);
void atoll__preempt_on_op_done(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st);
void atoll__preempt_on_task_done(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st);
void atoll__preempt_on_awaited_done(atoll_core *c, int64_t now, const atoll_preempt_style *st);
void atoll__preempt_on_timer(atoll_core *c, uint64_t cookie, int64_t now, const atoll_preempt_style *st);

/* The ops of a preempting policy of the given style: its file defines the style and options. */
#define ATOLL_PREEMPT_POLICY(name, style, opts, n_opts, finish)                                                      \
  static void name##_setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {                    \
    atoll__preempt_setup_queue(c, q, cfg, &style);                                                            \
  }                                                                                                           \
  static void name##_on_queued(atoll_core *c, uint32_t q, int64_t now) { atoll__preempt_on_queued(c, q, now, &style); } \
  static void name##_on_op_done(atoll_core *c, uint32_t q, int64_t now) {                                     \
    atoll__preempt_on_op_done(c, q, now, &style);                                                             \
  }                                                                                                           \
  static void name##_on_task_done(atoll_core *c, uint32_t q, int64_t now) {                                   \
    atoll__preempt_on_task_done(c, q, now, &style);                                                           \
  }                                                                                                           \
  static void name##_on_awaited_done(atoll_core *c, int64_t now) { atoll__preempt_on_awaited_done(c, now, &style); } \
  static void name##_on_timer(atoll_core *c, uint64_t cookie, int64_t now) {                                  \
    atoll__preempt_on_timer(c, cookie, now, &style);                                                          \
  }                                                                                                           \
  const atoll_policy_ops atoll__policy_##name = {                                                             \
      .queue_per_client = false,                                                                              \
      .state_size = sizeof(atoll_preempt_state),                                                              \
      .options = opts,                                                                                        \
      .n_options = n_opts,                                                                                    \
      .finish_options = finish,                                                                               \
      .setup_queue = name##_setup_queue,                                                                      \
      .on_queued = name##_on_queued,                                                                          \
      .on_op_done = name##_on_op_done,                                                                        \
      .on_task_done = name##_on_task_done,                                                                    \
      .on_awaited_done = name##_on_awaited_done,                                                              \
      .on_timer = name##_on_timer,                                                                            \
  }

/* The reset-based options (reset, reef). */
#define ATOLL_PREEMPT_RESET_OPTIONS                                                                            \
  {.key = "async_reclaim", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL,                                 \
   .offset = ATOLL_OPTION_AT(async_reclaim), .def = 1, .max = 1},                                             \
  {.key = "reset_cu", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL, .offset = ATOLL_OPTION_AT(reset_cu), \
   .def = 1, .max = 1 },                                                                                      \
  {.key = "priority", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL, .offset = ATOLL_OPTION_AT(priority), \
   .def = 0, .max = 1 }

#endif
