/* driver.h — the device-neutral part of a run, one copy for every device (sim/run.c, the native
 * runner native/runtime/nrun.c) and for the tools that reason about runs without one (the
 * explorer sim/explore.c, the response-time bound sim/bound.c, the report run/report.c).
 *
 * It owns:
 *   - the rules: a client's arrival rate (rate_hz, or load times its model's standalone
 *     throughput) and its relative deadline (explicit, or a uniform client's period);
 *   - arrivals: one generator per client (core/workload.c) and the deadlines the core is given;
 *   - the observer that records requests and preemptions into the results and draws them on the
 *     timeline; a device adds only what it alone knows (its preemption marks, the cost of running
 *     an op again, what a completion or a drop means for its own request buffers);
 *   - the results (results.h): one initialisation and one free for every device;
 *   - the order of a run: each model's standalone latency (measured on the device unless given),
 *     then the run itself.
 *
 * A device's own times may have another origin than the run's: the recorder converts them
 * (run time = device time - base), and the tap sees the device's times unchanged. */
#ifndef ATOLL_RUN_DRIVER_H
#define ATOLL_RUN_DRIVER_H

#include <stdint.h>

#include "atoll/scenario.h"
#include "run/results.h"
#include "core/sched.h"
#include "run/timeline.h"
#include "core/workload.h"

/* --- the rules --- */

/* A uniform or poisson client's arrival rate: rate_hz, or its load times the standalone
 * throughput of its model (standalone_ns: that model's latency alone). 0 for other arrival kinds. */
double atoll_run_rate_hz(const atoll_client *c, int64_t standalone_ns);
/* The one definition of load (docs/scenarios.md, "Load"), used by check, sim, native and hil:
 * a client's offered load is the requests it offers per second x its model's standalone latency
 * on the device the run uses (simulated alone for sim and check, measured alone for native and
 * hil): the fraction of that device the client would keep busy if it ran alone. A uniform or
 * poisson client offers atoll_run_rate_hz; a trace client its arrivals over the trace's span (or
 * its repeat period); a closed-loop client offers nothing of its own (0). */
double atoll_run_offered_rate_hz(const atoll_client *c, int64_t standalone_ns);
double atoll_run_offered_load(const atoll_client *c, int64_t standalone_ns);
/* The load of a rate: rate_hz x standalone_ns (0 when either is not positive). */
double atoll_run_load_of_rate(double rate_hz, int64_t standalone_ns);
/* A client's relative deadline in ns: its explicit deadline, or a uniform client's period
 * (1e9 / atoll_run_rate_hz). 0 when it has none: no explicit deadline and not uniform, or a period
 * that is not positive or exceeds any run (4.6e18 ns). Callers that need whole nanoseconds (the
 * core, the bound) truncate it; the report compares latencies with it as is. */
double atoll_run_deadline_ns(const atoll_client *c, int64_t standalone_ns);

/* --- arrivals --- */

typedef struct atoll_run_arrivals {
  atoll_client_gen *gens; /* per client; each advanced by one thread only */
  int64_t *deadline_ns;   /* per client, for atoll_core_init (0: none) */
  uint32_t n;
} atoll_run_arrivals;

/* One generator per client, seeded from the scenario, at the rates the rule gives with
 * standalone_ns (per model). Returns 0 or ATOLL_ENOMEM (nothing to free then). */
int atoll_run_arrivals_init(atoll_run_arrivals *a, const atoll_scenario *s, const int64_t *standalone_ns);
void atoll_run_arrivals_free(atoll_run_arrivals *a);
/* Client c's first arrival (a closed-loop client sends its first request at 0) and its next one
 * after that (open clients; negative when there is none). */
int64_t atoll_run_first_arrival(atoll_run_arrivals *a, const atoll_scenario *s, uint32_t c);
int64_t atoll_run_next_arrival(atoll_run_arrivals *a, uint32_t c);

/* --- results --- */

/* Empty results for a run of s on a device of mode ("sim", "native"): a record list per client,
 * a standalone latency per model, the window and the scenario's CU count. 0 or ATOLL_ENOMEM. */
int atoll_run_results_init(atoll_run_results *res, const atoll_scenario *s, const char *mode);
/* Frees everything results hold, whichever device filled them; safe on freed results. */
void atoll_run_results_free(atoll_run_results *res);

/* --- the observer that records --- */

/* What the device measured of the preemption being closed, in the run's time: when its host
 * queue reset, device queue eviction and CU kill were done (at or before the preemption: not
 * done), the commands it evicted, and the device's total killed GPU time so far. */
typedef struct atoll_run_marks {
  int64_t hq_done_ns, evict_done_ns, kill_done_ns;
  uint32_t evicted;
  int64_t killed_gpu_ns;
  /* The device's own timestamps of the steps (run time; 0: none): the preempt flag written, the
   * last flagged launch evicted, the last killed block stopped, the RT kernel's first prologue.
   * Only the native device has them (nrt.h); results.h's critical path comes from them. */
  int64_t dev_flag_ns, dev_drain_ns, dev_kill_ns, dev_rt_start_ns;
} atoll_run_marks;

/* What only the device knows. Every member may be NULL except take_marks and redo_ns. */
typedef struct atoll_run_device_hooks {
  /* Takes (and clears) the device's marks of the current preemption. */
  void (*take_marks)(void *ctx, atoll_run_marks *m);
  /* The GPU time of running op `op` of client c's model again (a restore from a group entry) for
   * request req: at its batch's size when req leads a batch (docs/simulator.md, "Batching"). */
  int64_t (*redo_ns)(void *ctx, uint32_t client, uint64_t req, uint32_t op);
  /* Request req of client completed at `now` (run time), already recorded and drawn. */
  void (*done)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  /* The core refused the request in record slot `slot`, already uncounted (the slot is reused). */
  void (*dropped)(void *ctx, uint32_t client, uint32_t slot);
  /* Request req of client was shed by the policy or failed (a launch the device refused) at `now`
   * (run time), already counted: it never completes; a closed-loop client sends its next one. */
  void (*ended)(void *ctx, uint32_t client, uint64_t req, int64_t now);
} atoll_run_device_hooks;

typedef struct atoll_run_recorder {
  const atoll_scenario *s;
  atoll_run_results *res;
  atoll_timeline tl;  /* what the trace draws (timeline.h); tl.trace NULL: nothing */
  int64_t base;       /* the device's time at the run's time 0 */
  const atoll_run_device_hooks *dev;
  void *dev_ctx;
  const atoll_core_observer *tap; /* NULL, or also told of every core event, in device time */
  void *tap_ctx;
  /* Preemption bookkeeping: the record waiting for its RT request's first kernel, the last record
   * (restores and re-executions are charged to it), when normal mode last resumed, and the
   * device's killed time already charged. */
  int32_t open_pre, last_pre;
  int64_t resumed_ns, killed_charged_ns;
  uint32_t preempted_tasks; /* tasks the core preempted (a preemption may stop several) */
  uint32_t group_restores;  /* of them, restarted at a group entry before the interrupted op */
  int failed;               /* ATOLL_ENOMEM once a record could not be kept */
} atoll_run_recorder;

/* Starts recording into res (filled by atoll_run_results_init) and starts the timeline on trace
 * (NULL: none), which draws its first track at once. */
void atoll_run_recorder_init(atoll_run_recorder *r, const atoll_scenario *s, atoll_run_results *res,
                             atoll_trace *trace, const atoll_run_device_hooks *dev, void *dev_ctx,
                             const atoll_core_observer *tap, void *tap_ctx);
/* The core's observer; its ctx is the recorder. */
extern const atoll_core_observer atoll_run_observer;
/* Records an arrival of client c at `now` (run time): *id is its record's index, the id the core
 * is given. 0 or ATOLL_ENOMEM. */
int atoll_run_record_arrival(atoll_run_recorder *r, uint32_t c, int64_t now, uint64_t *id);

/* --- the order of a run --- */

typedef struct atoll_run_device {
  const char *mode; /* for the results */
  /* Measures model m alone on the device. */
  int (*standalone_ns)(void *ctx, const atoll_scenario *s, uint32_t m, int64_t *out);
  /* Runs s into res, whose standalone latencies are filled. */
  int (*run)(void *ctx, const atoll_scenario *s, atoll_run_results *res);
  /* Optional, for gpu_count > 1: runs the n GPUs' scenarios (gpus[g]: run_gpu g) at the same time,
   * gpus[g] into res[g]. NULL: the driver runs them one after another with `run`. */
  int (*run_gpus)(void *ctx, const atoll_scenario *gpus, atoll_run_results *res, uint32_t n);
} atoll_run_device;

/* Fills res (free with atoll_run_results_free): each model's standalone latency (given[m], or
 * measured when given is NULL), then the run. On error res holds nothing. */
int atoll_run_drive(const atoll_scenario *s, const int64_t *given_standalone_ns, const atoll_run_device *d,
                    void *ctx, atoll_run_results *res);

#endif
