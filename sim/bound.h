/* Analytic worst-case response time of RT requests (`atoll bound`).
 *
 * Under rt-only, reset and reef, RT tasks are served one at a time from one FIFO queue, so an RT
 * request completes after every RT request that arrived before it in the same RT busy period, plus
 * one blocking term per busy period (switching the GPU from BE to RT work: preemption, a copy
 * already on the engine, a BE kernel that may not be killed). This is a response-time analysis in
 * the style of DART's eq. 5 (seed 002), adapted from fixed priorities to FIFO:
 *
 *   busy period   L = B + sum_j ceil(L / T_j) * C_j          (iterated from B + sum_j C_j)
 *   response      R = max over a in [0, L) of  B + sum_j (floor(a / T_j) + 1) * C_j - a
 *
 * where C_j is client j's RT task time, T_j its minimum inter-arrival time and a the arrival offset
 * of the analysed request in the busy period (it is maximal just at arrival instants, so only those
 * are evaluated). Under FIFO every client gets the same R; a client is schedulable when R <= its
 * deadline. docs/bound.md derives each term and says what the bound assumes. */
#ifndef ATOLL_SIM_BOUND_H
#define ATOLL_SIM_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atoll/scenario.h"

typedef struct atoll_bound_client {
  uint32_t client;     /* scenario client index */
  int64_t task_ns;     /* C: one RT task, alone on the GPU, with the policy's per-kernel overheads */
  int64_t min_gap_ns;  /* T: minimum inter-arrival time */
  int64_t deadline_ns; /* 0: none */
  int64_t wcrt_ns;     /* INT64_MAX: unbounded (utilization >= 1) */
  bool schedulable;
} atoll_bound_client;

/* The blocking term B, by cause (all 0 under rt-only or without BE clients). */
typedef struct atoll_bound_blocking {
  int64_t hq_reset_ns;       /* resetting the BE host queues */
  int64_t eviction_ns;       /* the CP draining the BE device queues (lazy eviction) */
  int64_t stream_switch_ns;  /* the CP moving between streams while it does */
  int64_t cu_reset_ns;       /* killing the running BE blocks */
  int64_t unkillable_ns;     /* the longest BE kernel that must run to its end instead */
  int64_t copy_ns;           /* the longest BE copy (copies are not preempted) */
  int64_t total_ns;
} atoll_bound_blocking;

typedef struct atoll_bound_result {
  atoll_bound_client *clients; /* the RT clients, in scenario order */
  uint32_t n_clients;
  atoll_bound_blocking blocking;
  double utilization;  /* sum_j C_j / T_j */
  int64_t busy_period_ns; /* INT64_MAX when unbounded */
  uint32_t points;        /* arrival offsets evaluated */
} atoll_bound_result;

typedef struct atoll_bound_opts {
  /* Block durations may exceed the profile by this fraction (the explorer's timing spread):
   * task times are scaled by 1 + spread. */
  double spread;
} atoll_bound_opts;

/* Computes the bound. Returns 0; ATOLL_EINVAL with the reason in why (an RT client without a
 * minimum inter-arrival time, an EDF RT queue, a policy the analysis does not cover); ATOLL_ENOMEM.
 * Free with atoll_bound_free. */
int atoll_bound_compute(const atoll_scenario *s, const atoll_bound_opts *opts, atoll_bound_result *out, char *why,
                        size_t why_len);
void atoll_bound_free(atoll_bound_result *r);

/* A client's minimum inter-arrival time, less the largest arrival jitter: INT64_MAX when it arrives
 * once, <= 0 when it has none (poisson, closed loop, two arrivals at one instant). */
int64_t atoll_bound_min_gap_ns(const atoll_scenario *s, const atoll_client *c, int64_t standalone_ns);

/* The response-time iteration alone, on given task times and gaps (n >= 1): fills wcrt (the same
 * for every FIFO client), the busy period and the number of offsets evaluated. Returns false when
 * the utilization is 1 or more (no finite bound). Exposed for tests. */
bool atoll_bound_fifo(const int64_t *task_ns, const int64_t *min_gap_ns, uint32_t n, int64_t blocking_ns,
                      int64_t *wcrt_ns, int64_t *busy_ns, uint32_t *points);

/* Writes the message into why (when given) and returns ATOLL_EINVAL: the analyses' refusals. */
int atoll__bound_fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
