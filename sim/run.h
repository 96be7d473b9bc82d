/* One simulation run of a scenario: the runner around the core and the simulated device.
 *
 * The runner generates arrivals (core/workload.c), feeds them to the core, pumps the event queue
 * until duration_ms, and records every request. Before the run it measures each model's
 * standalone latency on the same simulated GPU (one request, nothing else running), which
 * normalizes latencies and turns `load` arrivals into rates. */
#ifndef ATOLL_SIM_RUN_H
#define ATOLL_SIM_RUN_H

#include "atoll/scenario.h"
#include "results.h"
#include "trace.h"

#include "sched.h"

typedef struct atoll_sim_opts {
  atoll_trace *trace;             /* NULL: no timeline */
  const atoll_core_observer *tap; /* NULL, or also told of every core event (tests, tools) */
  void *tap_ctx;
  /* NULL, or called every few thousand events with the simulated time and the run's end (for a
   * progress line; it must not touch the run). */
  void (*progress)(void *ctx, int64_t now_ns, int64_t end_ns);
  void *progress_ctx;
} atoll_sim_opts;

/* Fills res (free with atoll_sim_results_free). Returns 0, ATOLL_ENOTSUP for a policy the core
 * does not implement, or ATOLL_ENOMEM. */
int atoll_sim_run(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res);
void atoll_sim_results_free(atoll_run_results *res);
/* A uniform or poisson client's arrival rate: rate_hz, or its load times the standalone throughput
 * of its model (standalone_ns: that model's latency alone). 0 for other arrival kinds. */
double atoll_sim_client_rate_hz(const atoll_client *c, int64_t standalone_ns);
/* A model's latency alone on the scenario's GPU (one request, an otherwise idle device). */
int atoll_sim_standalone_ns(const atoll_scenario *s, uint32_t model, int64_t *out);

#endif
