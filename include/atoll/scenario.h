/* A scenario: one GPU, the models, the clients that send requests, a policy and the bounds to check.
 * Built by the loader (io/) from YAML; every string and array lives in the scenario's arena. */
#ifndef ATOLL_SCENARIO_H
#define ATOLL_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/cuset.h"
#include "atoll/gpu.h"
#include "atoll/inss.h"
#include "atoll/model.h"
#include "atoll/policies.h"
#include "atoll/predictor.h"

typedef enum atoll_client_class { ATOLL_CLASS_RT, ATOLL_CLASS_BE } atoll_client_class;

typedef enum atoll_arrival_kind {
  ATOLL_ARRIVAL_UNIFORM,
  ATOLL_ARRIVAL_POISSON,
  ATOLL_ARRIVAL_CLOSED,
  ATOLL_ARRIVAL_TRACE,
  ATOLL_ARRIVAL_STEP
} atoll_arrival_kind;

typedef struct atoll_arrival {
  atoll_arrival_kind kind;
  /* uniform / poisson: exactly one of rate_hz and load is set (> 0); load is a fraction of the
   * model's standalone throughput on the device the run uses, resolved to a rate at run time. */
  double rate_hz;
  double load;
  /* trace: arrival offsets, sorted, from times_ms or file; repeat_ns > 0 replays them. */
  const int64_t *times_ns;
  uint32_t n_times;
  int64_t repeat_ns;
  /* step: Poisson arrivals whose rate steps: from step_at_ns[i] (increasing, the first 0) the rate
   * is step_rate_hz[i] (>= 0, one of them > 0); the last runs to the end of the run. */
  const int64_t *step_at_ns;
  const double *step_rate_hz;
  uint32_t n_steps;
  /* every kind but closed (key blocking): the client waits for each request before it sends the
   * next, as REEF's DISB harness does: a request is sent at its time on the schedule or, when the
   * one before is still running then, as soon as that one completes; the schedule itself is kept.
   * At most one request is in flight, and its latency counts from when it was sent. */
  bool blocking;
} atoll_arrival;

typedef struct atoll_client {
  const char *name;
  uint32_t model; /* index into atoll_scenario.models */
  atoll_client_class cls;
  atoll_arrival arrival;
  int64_t deadline_ns; /* 0: none (uniform clients default to their period) */
  /* The CUs its stream may use (keys share: and cus:, docs/partitions.md); empty: all. */
  atoll_cuset cus;
  /* The GPU it runs on, 0 .. gpu_count-1 (key gpu:, or placed by atoll_scenario_place_clients). */
  uint32_t gpu;
  /* A fixed-size batcher in front of the policy (key batch: {max, timeout_ms}): requests wait until
   * batch_max of them are there or the first has waited batch_timeout_ns, then run as one model run.
   * batch_max 0 or 1: every request runs alone. */
  uint32_t batch_max;
  int64_t batch_timeout_ns;
  bool gpu_given; /* gpu: was in the scenario (else the placement chose it) */
  /* gslice's SLO floor (docs/gslice.md, "SLO floors"): the smallest share on which one run of the
   * model fits the SLO's run allowance, set by the simulator's knee sweep; 0: none known. */
  uint32_t share_floor_pct;
} atoll_client;

typedef struct atoll_scenario_model {
  const char *name;
  const char *path; /* as resolved, for messages */
  atoll_model model;
} atoll_scenario_model;

typedef enum atoll_policy_kind {
#define ATOLL_POLICY_ENUM(id, text, ops) ATOLL_POLICY_##id,
  ATOLL_POLICY_LIST(ATOLL_POLICY_ENUM)
#undef ATOLL_POLICY_ENUM
  ATOLL_POLICY_COUNT
} atoll_policy_kind;

typedef enum atoll_rt_queue { ATOLL_RT_QUEUE_FIFO, ATOLL_RT_QUEUE_EDF } atoll_rt_queue;

enum { ATOLL_POLICY_PARAMS = 12 };

typedef struct atoll_policy_cfg {
  atoll_policy_kind kind;
  bool dkp;            /* reef: dynamic kernel padding (default on) */
  bool multi_version;  /* reef: multi-version kernel selection */
  bool priority;       /* streams, reset, reef: RT queues are high-priority streams */
  uint32_t dq_capacity; /* 0: the policy's default (reef/reset: 4, others: the GPU's) */
  uint32_t rt_queue;    /* an atoll_rt_queue */
  bool async_reclaim;   /* reef/reset: HQ reset hands commands to a GC thread (default on) */
  bool reset_cu;        /* reef/reset: kill running BE blocks (default on) */
  /* Options of policies that have no named field above: each policy's option table
   * (atoll_policy_options) says which slot holds which of its options. */
  int64_t param[ATOLL_POLICY_PARAMS];
} atoll_policy_cfg;

/* How the simulated device runs blocks on its CUs (docs/simulator.md, "CU engines"): pooled over
 * the CUs with one completion per group of blocks (the default), block by block on each CU, or
 * pooled with events per kernel and rates that change as kernels come and go (rate). */
typedef enum atoll_sim_engine { ATOLL_ENGINE_FLUID, ATOLL_ENGINE_BLOCKS, ATOLL_ENGINE_RATE } atoll_sim_engine;
enum { ATOLL_ENGINE_COUNT = 3 };
/* The engines' names as a scenario's sim.engine spells them, indexed by atoll_sim_engine: the one
 * list the loader reads and the simulator prints. */
extern const char *const atoll_sim_engine_names[ATOLL_ENGINE_COUNT];
const char *atoll_sim_engine_name(atoll_sim_engine e);
/* Returns 0 and sets *out, or ATOLL_ENOENT for an unknown name. */
int atoll_sim_engine_from_name(const char *name, atoll_sim_engine *out);
/* What a scenario runs with when it names no engine (the zero value, for scenarios built in code). */
#define ATOLL_ENGINE_DEFAULT ATOLL_ENGINE_FLUID
/* The most CUs the blocks engine simulates (it keeps per-CU arrays); fluid has no such bound. The
 * loader refuses `engine: blocks` on a larger GPU; atoll explore, which always uses blocks, says so. */
#define ATOLL_BLOCKS_MAX_CUS 256u

/* A processing node (DART, docs/dart.md): a partition of the CPU's cores, or the GPU with the one
 * core that launches its work. Scenarios without `nodes:` have none (n_nodes 0). */
typedef enum atoll_node_kind { ATOLL_NODE_CPU, ATOLL_NODE_GPU } atoll_node_kind;

typedef struct atoll_node {
  atoll_node_kind kind;
  uint32_t cores;          /* CPU cores (a GPU node: 1, its launching core) */
  double gflops_per_core;  /* CPU cost model: one core's sustained GFLOP/s (docs/dart.md) */
} atoll_node;

typedef enum atoll_cmp { ATOLL_CMP_LE, ATOLL_CMP_GE, ATOLL_CMP_LT, ATOLL_CMP_GT } atoll_cmp;

/* One `expect:` bound: "FIELD OP NUMBER" over a report field (docs/scenarios.md lists them). */
typedef struct atoll_expect {
  const char *text;  /* as written */
  const char *field; /* dotted report path, e.g. "rt.norm_latency.p99" */
  atoll_cmp cmp;
  double value;
} atoll_expect;

typedef struct atoll_scenario {
  const char *path;
  const char *description; /* may be NULL */
  atoll_gpu gpu;
  const atoll_scenario_model *models;
  uint32_t n_models;
  const atoll_client *clients;
  uint32_t n_clients;
  atoll_policy_cfg policy;
  int64_t duration_ns;
  int64_t warmup_ns;
  uint64_t seed;
  const atoll_expect *expects;
  uint32_t n_expects;
  atoll_sim_engine engine; /* sim.engine */
  /* What the explorer may vary (docs/explore.md); an ordinary run takes the nominal option.
   * sim.timing_spread: a wave may take (1 - spread) or (1 + spread) times its nominal time, in
   * [0, 1). sim.arrival_jitter_us: how late each RT request may arrive; 0 comes first and is always
   * there, then the scenario's offsets, increasing. */
  double timing_spread;
  const int64_t *jitter_ns;
  uint32_t n_jitter;
  /* gpu_count: devices of the preset (0 counts as 1, for scenarios built in code). Each client
   * runs on its own GPU (atoll_client.gpu); a run of one device serves the clients of run_gpu and
   * leaves the others inactive (the driver runs every GPU so: run/driver.h). */
  uint32_t gpu_count;
  uint32_t run_gpu;
  /* abacus's latency predictor (policy.predictor, read by io/), or NULL. */
  const atoll_predictor *predictor;
  const char *predictor_path; /* as resolved, for messages */
  /* `nodes:` (docs/scenarios.md): the CPU and GPU nodes DART's policies place stages on. */
  const atoll_node *nodes;
  uint32_t n_nodes;
  /* `nodes: {search_cores: N}`: no given configuration; dart finds one over the GPU and N cores
   * (Alg. 1-2, docs/dart.md). 0: the nodes above are the configuration. */
  uint32_t node_search_cores;
  /* InSS's latency model (policy.model of inss and gpulet, read by io/, or fitted at start by the
   * command line: docs/inss.md), or NULL. */
  const atoll_inss_model *inss;
  const char *inss_path; /* as resolved, for messages; NULL when fitted at start */
  /* sim.memory (docs/simulator.md, "Memory interference"): ATOLL_MEMORY_TENSORS estimates the bytes
   * per block of a kernel whose profile gives none from the tensors it reads and writes; the default,
   * ATOLL_MEMORY_PROFILE, takes only the profile's bytes_per_block. */
  uint32_t memory_estimate;
} atoll_scenario;

enum { ATOLL_MEMORY_PROFILE = 0, ATOLL_MEMORY_TENSORS = 1 };

const char *atoll_policy_name(atoll_policy_kind k);
/* Whether the policy gives every client a stream of its own (a client may then be bound to CUs). */
bool atoll_policy_queue_per_client(atoll_policy_kind k);
/* Returns 0 and sets *out, or ATOLL_ENOENT for an unknown name. */
int atoll_policy_from_name(const char *name, atoll_policy_kind *out);
const char *atoll_cmp_text(atoll_cmp c);
bool atoll_arrival_is_valid(const atoll_arrival *a);
bool atoll_scenario_is_valid(const atoll_scenario *s);
/* The model's standalone latency as known before simulation: measured if the profile has it,
 * else the sum of its ops' standalone times. */
int64_t atoll_model_reference_latency_ns(const atoll_model *m);
/* The largest batch a client may run (ATOLL_MAX_BATCH bounds the scenario key). */
enum { ATOLL_MAX_BATCH = 256 };
/* How many GPUs the scenario has (gpu_count, at least 1). */
uint32_t atoll_scenario_gpus(const atoll_scenario *s);
/* Places every client whose GPU was not given: each on the GPU with the fewest clients so far
 * (ties: the lowest index), in client order, after the given ones are counted. */
void atoll_scenario_place_clients(atoll_scenario *s, atoll_client *clients);
#endif
