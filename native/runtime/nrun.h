/* nrun.h — one native run of a scenario: the runner around the core and the native runtime.
 *
 * The counterpart of sim/run.h on a real device. Each client is a thread that sends its requests
 * at the scenario's arrival times (core/workload.c, the generators the simulator uses) or, closed
 * loop, when its previous request completed; each request carries its own input, made by the
 * native model from the request's sequence number. The scheduler thread runs the same core the
 * simulator links, on the runtime's device (nrt.h). The device-neutral part is the driver's
 * (run/driver.h), as for the simulator: the rate and deadline rules, arrival generators, the
 * observer that records requests and preemptions, the results (run/results.h, mode "native", so the
 * report is the same) and the order of a run. Before the run each model is measured alone (rt-only,
 * one closed-loop client, median latency), which normalizes latencies and turns `load` arrivals
 * into rates, as the simulator's standalone run does.
 *
 * Times in the results count from the moment the clients start (the run's time 0). */
#ifndef ATOLL_NATIVE_NRUN_H
#define ATOLL_NATIVE_NRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "run/driver.h" /* run/: the results and their free */
#include "native/fault.h"
#include "native/models/nmodel.h"
#include "native/runtime/nrt.h"
#include "run/results.h"
#include "run/timeline.h" /* run/: atoll_trace (idem/ has a trace.h of its own) */

typedef struct atoll_native_opts {
  const char *device;          /* back-end name ("cpu", "cuda", "hip"); NULL: "cpu" */
  uint32_t cus;                /* 0: the device's own count */
  uint32_t slots_per_cu;       /* CPU back-end: 0 = its default */
  bool pin_threads;
  int sched_cpu;               /* pin the scheduler thread (<0: no) */
  int64_t spin_ns;             /* scheduler busy-poll window (0: 200 us; <0: never park) */
  bool verify;                 /* check every completed request's output (nverify.h) */
  atoll_trace *trace;          /* NULL: no timeline */
  /* Per scenario model, its native implementation (the caller resolved `native:` names). */
  const atoll_nmodel *const *nmodels;
  /* Standalone latencies to use instead of measuring them (per model, ns); NULL: measure. */
  const int64_t *standalone_ns;
  const atoll_core_observer *tap; /* also told of every core event (tests); may be NULL */
  void *tap_ctx;
  /* Fault injection (fault.h); NULL: none. The standalone measurements run without it. A failed
   * request is counted in its client's records (failed, failure) and does not fail the run. */
  const atoll_nfault_cfg *inject;
  /* Preemption-latency options passed to the back-end (backend.h; docs/native-gpu.md). */
  atoll_npreempt_tuning tuning;
  uint32_t rt_reserve_cus;     /* atoll's SM reserve for RT (nrt.h); 0: off */
  /* End the run once every request has completed, where every client's arrivals are a trace
   * without repeat_ms (a measurement: `atoll fit inss --device`); else, or when some request never
   * completes, at the scenario's duration. */
  bool end_when_done;
} atoll_native_opts;

/* What the run did on the device beyond the report. */
typedef struct atoll_native_info {
  char device[64];
  uint32_t cus, slots;
  atoll_nrt_stats stats;
  uint32_t preempted_tasks;   /* tasks preempted (a preemption may stop several) */
  uint32_t group_restores;    /* of them, restarted at a group entry before the interrupted op */
  uint32_t killed_restores;   /* of them, whose running kernel was killed */
  /* --verify's CPU-build check (nverify.h): the requests checked op by op, their kernel launches,
   * of them bit-identical and outside the libm tolerance, and the largest element difference. */
  uint32_t verify_cpu_requests, verify_cpu_launches, verify_cpu_bit_exact, verify_cpu_out_of_tolerance;
  double verify_cpu_max_abs_diff;
} atoll_native_info;

/* Parses `atoll native --latency-opts LIST` (docs/native-gpu.md, "Preemption latency options"):
 * a comma-separated list of dense-points, kill-poll=S (0..8), top-priority, rt-sm-reserve=N,
 * persistent-be.
 * Returns 0, or ATOLL_EINVAL with the reason in err (the outputs untouched). */
int atoll_nlatency_parse(const char *text, atoll_npreempt_tuning *tuning, uint32_t *rt_reserve_cus, char *err,
                         size_t err_len);

/* Checks that every model of s has a native implementation matching its profile op for op, and
 * that the policy fits the device. Returns 0, or ATOLL_EINVAL with the reason in err. */
int atoll_native_check(const atoll_scenario *s, const atoll_nmodel *const *nmodels, char *err, size_t err_len);

/* Fills res (free with atoll_run_results_free, run/driver.h) through the driver and, when not
 * NULL, info. Returns 0,
 * ATOLL_ENODEV when the device is unavailable (err says why), ATOLL_EINVAL for a scenario the
 * native runner cannot run (err says why), ATOLL_EIO when a launch faulted, or ATOLL_ENOMEM. */
int atoll_native_run(const atoll_scenario *s, const atoll_native_opts *o, atoll_run_results *res,
                     atoll_native_info *info, char *err, size_t err_len);
/* A model's latency alone on the device: median over `runs` closed-loop requests after one
 * warm-up request. */
int atoll_native_standalone_ns(const atoll_scenario *s, const atoll_native_opts *o, uint32_t model, uint32_t runs,
                               int64_t *out, char *err, size_t err_len);

#endif
