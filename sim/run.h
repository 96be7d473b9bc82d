/* One simulation run of a scenario: the runner around the core and the simulated device.
 *
 * The runner takes arrivals from the driver (run/driver.h: the rate and deadline rules, one
 * generator per client), feeds them to the core, pumps the event queue until duration_ms, and
 * lets the driver's observer record every request. Before the run it measures each model's
 * standalone latency on the same simulated GPU (one request, nothing else running), which
 * normalizes latencies and turns `load` arrivals into rates. */
#ifndef ATOLL_SIM_RUN_H
#define ATOLL_SIM_RUN_H

#include "atoll/scenario.h"
#include "sim/choice.h"
#include "run/driver.h"
#include "run/results.h"
#include "run/trace.h"

#include "core/sched.h"

/* A run in progress, as the explorer sees it between two events (opaque). */
typedef struct atoll_sim_state atoll_sim_state;

typedef struct atoll_sim_opts {
  atoll_trace *trace;             /* NULL: no timeline */
  const atoll_core_observer *tap; /* NULL, or also told of every core event (tests, tools) */
  void *tap_ctx;
  /* NULL, or called every few thousand events with the simulated time and the run's end (for a
   * progress line; it must not touch the run). */
  void (*progress)(void *ctx, int64_t now_ns, int64_t end_ns);
  void *progress_ctx;
  /* NULL, or asked at every choice point (choice.h). With a chooser the runner also makes the order
   * of events due at the same instant a choice, and drops cancelled events unhandled (which changes
   * nothing else), so a chooser answering 0 everywhere gives the ordinary run. */
  const atoll_chooser *chooser;
  /* NULL, or called between events, before the next one is taken; returning false ends the run
   * there (the explorer prunes a state it has seen). Not called again after a dropped cancelled
   * event: the state is the one it just saw. */
  bool (*boundary)(void *ctx, atoll_sim_state *st);
  void *boundary_ctx;
  /* NULL, or every model's standalone latency, already measured (atoll_sim_standalone_ns): runs
   * repeated many times skip measuring them again. */
  const int64_t *standalone_ns;
  /* NULL, or the core's limits (the explorer sizes the core to the scenario's requests: a smaller
   * core is faster to set up and to hash). */
  const atoll_core_limits *core_limits;
  /* NULL, or the GPU the kernels' timing is fitted on (atoll_simdev_cfg.timing_gpu). */
  const atoll_gpu *timing_gpu;
  /* NULL, or kernel timings prepared before, shared by runs (atoll_simdev_cfg.shape_memo). */
  struct atoll_shape_memo *shape_memo;
  /* Under gslice: the clients already carry the starting shares and floors that
   * atoll_sim_gslice_start gives them (sim/knee.h), so the run does not sweep the knees again.
   * atoll capacity computes them once for all its probes: they depend on the GPU, the models, the
   * deadlines, the given shares and the policy's options, not on the rates a probe scales. */
  bool gslice_started;
} atoll_sim_opts;

/* What the state hash covers besides the state that decides the future: nothing of the past, the
 * past requests' and preemptions' records too (then equal hashes mean equal reports). */
typedef enum atoll_sim_hash_past { ATOLL_HASH_FUTURE_ONLY, ATOLL_HASH_WITH_RECORDS } atoll_sim_hash_past;
/* A hash of the run's state between two events: the time, the core, the device and its CUs, the
 * pending events (as a multiset: with a chooser their order at one instant is a choice), the
 * arrival generators and the requests in flight. ATOLL_ENOTSUP when the CU engine cannot say. */
int atoll_sim_state_hash(const atoll_sim_state *st, atoll_sim_hash_past past, uint64_t *out);
/* The run's records so far (requests still in flight have done_ns < 0). */
const atoll_run_results *atoll_sim_state_results(const atoll_sim_state *st);
int64_t atoll_sim_state_now(const atoll_sim_state *st);
/* Events taken from the queue so far in this run. */
uint64_t atoll_sim_state_events(const atoll_sim_state *st);
/* Whether client c has nothing more to do in this run: no request in flight, none to arrive. */
bool atoll_sim_state_client_idle(const atoll_sim_state *st, uint32_t c);

/* --- checkpoints: a run saved between two events and resumed from there (the explorer) ---
 * A runner is one run of a scenario set up once; each atoll_sim_runner_run starts from its start
 * state or from a snapshot saved by a run of the same runner (atoll_sim_state_save, called from
 * the boundary callback), and gives the same results as a run from the start that reached that
 * state. A snapshot holds pointers into its runner's device: it is restored into that runner only. */
typedef struct atoll_sim_runner atoll_sim_runner;
typedef struct atoll_sim_snapshot atoll_sim_snapshot;
/* opts (kept, with its chooser and boundary) must give standalone_ns. ATOLL_ENOTSUP where the state
 * cannot be saved: a trace, several GPUs, the fluid engine, DART's policies. */
int atoll_sim_runner_create(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_sim_runner **out);
/* Runs from `from` (NULL: the start) to the end or the boundary's stop; *res stays the runner's,
 * valid until its next run. 0 or ATOLL_ENOMEM. */
int atoll_sim_runner_run(atoll_sim_runner *r, atoll_sim_snapshot *from, const atoll_run_results **res);
void atoll_sim_runner_destroy(atoll_sim_runner *r);
atoll_sim_snapshot *atoll_sim_snapshot_new(void); /* NULL when out of memory */
void atoll_sim_snapshot_free(atoll_sim_snapshot *sn);
/* Saves the state of the run in progress into sn (its storage reused). 0 or ATOLL_ENOMEM. */
int atoll_sim_state_save(const atoll_sim_state *st, atoll_sim_snapshot *sn);
/* Events the run had taken when sn was saved. */
uint64_t atoll_sim_snapshot_events(const atoll_sim_snapshot *sn);

/* Fills res (free with atoll_run_results_free, driver.h) through the driver (run/driver.h): the
 * standalone latencies, then the run. Returns 0, ATOLL_ENOTSUP for a policy the core does not
 * implement, or ATOLL_ENOMEM. */
int atoll_sim_run(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res);
/* The clients a run of s starts with under gslice, each unbound one at its model's knee
 * (atoll_sim_gslice_start, sim/knee.h): *out gets a copy to free, or NULL where a run starts none
 * (another policy) or refuses s before it would (a DART policy; the rate engine lacking what s
 * needs). atoll capacity computes them once for its probes (atoll_sim_opts.gslice_started).
 * 0, ATOLL_ENOMEM, or the sweep's error. */
int atoll_sim_gslice_clients(const atoll_scenario *s, atoll_client **out);
/* For sim.engine rate: the feature of s it does not model (a phrase for a message), or NULL when it
 * runs s; atoll_sim_run refuses such a scenario with ATOLL_ENOTSUP before it starts. */
const char *atoll_sim_rate_lacks(const atoll_scenario *s);
/* Why the simulator returned ATOLL_ENOTSUP for s on that CU engine (atoll explore and --replay
 * always use blocks), as one sentence written into buf: a policy it lacks, a GPU too large for the
 * blocks engine, a feature the rate engine lacks, or what the loaders refuse first. Returns buf. */
const char *atoll_sim_unsupported(const atoll_scenario *s, atoll_sim_engine engine, char *buf, size_t size);
/* What atoll_sim_run refuses in s on its own engine before it starts (written into buf as
 * atoll_sim_unsupported does), or NULL: for atoll check, which says "valid" only of what runs. */
const char *atoll_sim_refusal(const atoll_scenario *s, char *buf, size_t size);
/* Why a run of a dart-family policy failed with ATOLL_EINVAL when s has no plan (the plan is built
 * again, so that no other invalid argument is said to be the plan's), in the words of atoll bound
 * --analysis dart, written into buf; NULL when s is of another policy or has a plan. */
const char *atoll_sim_dart_plan_failure(const atoll_scenario *s, char *buf, size_t size);
/* A model's latency alone on the scenario's GPU (one request, an otherwise idle device). */
int atoll_sim_standalone_ns(const atoll_scenario *s, uint32_t model, int64_t *out);

#endif
