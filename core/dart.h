/* DART's resource management (docs/dart.md), as pure functions over numbers: the CPU cost model,
 * per-node operator times, the stage allocation of Eq. 7-8 and the response-time test of Eq. 5-6
 * that overrun enforcement re-runs. No I/O: the simulator (sim/dart_run.c) and tests call these. */
#ifndef ATOLL_CORE_DART_H
#define ATOLL_CORE_DART_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/cuset.h"
#include "atoll/scenario.h"

/* One core's sustained GFLOP/s for the CPU cost model: the native CPU back-end's float GEMM on one
 * core of the machine the project is developed on, as `build/release/bin/bench_kernels --gflops`
 * prints it (docs/dart.md, "CPU cost model"). A node may set its own (gflops_per_core). */
#define ATOLL_CPU_GFLOPS_PER_CORE 5.0
/* Parallel efficiency of a stage over c cores: speedup c / (1 + a (c - 1)) (gains diminish with
 * cores, as DART's per-layer profiles show, §VI-B). */
#define ATOLL_CPU_SERIAL_FRACTION 0.1
/* FLOPs per ns of MI50 kernel time assumed for an op whose profile gives no `flops:` (REEF's
 * measured profiles): REEF's alexnet kernels sum to 8740 us for AlexNet's 1.43 GFLOP (0.714 G
 * multiply-adds), 164 GFLOP/s; each kernel is credited its share of the time. */
#define ATOLL_GPU_EQUIV_FLOPS_PER_NS 164.0
/* Batched execution (BE only, §IV-A.3): a kernel running b requests takes (1 + k (b - 1)) times
 * its batch-1 time; on the GPU k = 0.25 (idle SMs fill), on CPU cores k = 1 (no gain, which is
 * why the paper runs BaseCPU unbatched); copies scale with b. */
#define ATOLL_GPU_BATCH_SLOPE 0.25

/* The cost of an RT stage preempting its node's BE worker (eps^cp, and on the GPU node the switch of
 * the feeding core, §IV-B.1): a thread wake-up at RT priority, as the simulator charges it. */
#define ATOLL_DART_PREEMPT_NS 10000

/* CPU speedup of c cores over one. */
double atoll_dart_cpu_speedup(uint32_t cores);
/* The floating-point operations of op `op` of m: its profile's flops, or the GPU-time estimate. */
double atoll_dart_op_flops(const atoll_model *m, uint32_t op);
/* Op `op` of m on node n at batch b (>= 1), in ns. GPU node: the profile's time (kernel or copy);
 * CPU node: the op's measured one-core time (m->op_cpu_ns) / speedup(cores) where the profile gives
 * it, else FLOPs / (gflops_per_core * speedup(cores)); times b on a CPU node; copies cost nothing
 * on a CPU node. */
int64_t atoll_dart_op_ns(const atoll_node *n, const atoll_model *m, uint32_t op, uint32_t batch);

/* The batch a client's jobs run at under dart and base-gpu (docs/dart.md, "BE batching"): a
 * back-to-back BE client's `batch: {max: B}`, else the policy's `be_batch` (an alias setting B for
 * every BE client without its own batch:); 1 for RT clients, for base-cpu (BaseCPU runs
 * unbatched) and for other policies. */
uint32_t atoll_dart_be_batch(const atoll_scenario *s, uint32_t client);

/* Eq. 7-8: places the L layers of one task on the N nodes in order (each layer on a node no
 * earlier than the layer before's), minimising the most loaded node's utilization, where node k
 * already carries w[k] and layer y adds u[y * N + k] on node k. Writes node_of[y]; returns the
 * resulting maximum utilization, or a negative value when L or N is 0 or scratch is too small.
 * Ties in the maximum go to the placement with the least utilization of the task itself.
 * scratch: scratch_n >= 2 (L + 1) N doubles in scratch_m and as many uint32_t in scratch_arg. */
double atoll_dart_partition(uint32_t L, uint32_t N, const double *u, const double *w, uint32_t *node_of,
                            double *scratch_m, uint32_t *scratch_arg, uint32_t scratch_n);

/* One RT task for the response-time test: its period, deadline, priority order (0 highest) and
 * per-node stage time (0: no stage there), over n_nodes nodes. */
typedef struct atoll_dart_rt_task {
  int64_t period_ns, deadline_ns;
  uint32_t prio;
  const int64_t *stage_ns; /* [n_nodes] */
} atoll_dart_rt_task;

/* The number of split-and-merges between two tasks' paths (Eq. 6's SM): rows over n_nodes nodes,
 * a node on the path where its stage time is > 0; paths visit nodes in index order. */
/*@ requires \valid_read(a + (0 .. n_nodes - 1)) && \valid_read(b + (0 .. n_nodes - 1));
    assigns \nothing;
    ensures \result <= n_nodes;
*/
uint32_t atoll_dart_split_merges(const int64_t *a, const int64_t *b, uint32_t n_nodes);
/* Eq. 6: C*_e of task i, the delay its own path composes (saturating at INT64_MAX): its own job
 * and those of equal priority or without a period, the stage-additive term and the lower-priority
 * blocking on its nodes; the jobs of higher-priority periodic tasks are Eq. 5's. */
int64_t atoll_dart_ce_ns(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, uint32_t i);
/* Eq. 5-6 (non-preemptive pipelines, delay composition): the worst-case response time of every
 * task into r_ns[i] -- the fixed point, or, when the iteration passes the task's deadline, the
 * first value past it (a lower bound of the fixed point that proves the miss); returns true when
 * every task meets its deadline. Each higher-priority task h is charged the ceil((R_i + R_h) / T_h)
 * jobs of its that can overlap i's (docs/dart.md), so tasks are analysed by priority and a bound
 * holds while the higher-priority tasks meet their deadlines. Stage times are Eq. 1-4's: the
 * overheads already in them. */
bool atoll_dart_rt_test(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, int64_t *r_ns);

/* The response time of task i when its path is one node k, by the single-processor test of that
 * node's RT worker (non-preemptive, fixed priorities): a higher-priority task's stage on k is
 * released at its arrival where k is its first node, else with a jitter of its bound r_ns[h]
 * (higher-priority bounds must be in r_ns). The fixed point; -1 when it passes min(D_i, T_i), when
 * i has several stages, or when the test does not apply (a tie in priority, a task without a
 * period on k). atoll_dart_rt_test keeps the smaller of this and Eq. 5. */
int64_t atoll_dart_node_rt_ns(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, uint32_t i,
                              const int64_t *r_ns);

/* One task of a single processor without preemption (BaseGPU, BaseCPU): its job time, period,
 * deadline and priority order (0 highest). */
typedef struct atoll_np_task {
  int64_t c_ns, period_ns, deadline_ns;
  uint32_t prio;
} atoll_np_task;

/* The standard response-time test for non-preemptive fixed priorities on one processor: a job
 * starts after the longest lower-priority job (be_block_ns: the longest BE job; or its own previous
 * job) and every higher-priority release up to its start, R = w + C. r_ns[i] as for
 * atoll_dart_rt_test; returns true when every task meets its deadline. Valid for deadlines <=
 * periods. */
bool atoll_np_rt_test(const atoll_np_task *t, uint32_t n, int64_t be_block_ns, int64_t *r_ns);

/* --- stage plans (run/dart_plan.h builds them) --- */

enum { ATOLL_DART_MAX_NODES = 16 };

typedef struct atoll_dart_stage {
  uint32_t node;       /* index into the plan's nodes */
  uint32_t op_lo, op_hi; /* the operators [op_lo, op_hi) of the model */
} atoll_dart_stage;

typedef struct atoll_dart_client_plan {
  atoll_dart_stage stages[ATOLL_DART_MAX_NODES];
  uint32_t n_stages;
} atoll_dart_client_plan;

/* Clients a pipeline may serve (the policy keeps per-client enforcement state of fixed size). */
enum { ATOLL_DART_PIPE_CLIENTS = 32 };

/* The stage pipeline dart runs on a device of queues (the native runtime, docs/dart.md "Native"):
 * handed to atoll_core_init (atoll_core_limits.dart) by a runner that built the plan. Each node
 * becomes two streams bound to its CUs, an RT one (priority 1) and a BE one; a stage is launched
 * on its node's stream when the node's worker of its class is free. Configuration, not state: the
 * core keeps the pointer, which must outlive it. */
typedef struct atoll_dart_pipeline {
  uint32_t n_nodes;
  atoll_cuset node_cus[ATOLL_DART_MAX_NODES]; /* a node's CUs; empty: the whole device (a GPU node) */
  const atoll_dart_client_plan *clients;      /* per scenario client */
  const int64_t *wcet_ns;   /* [client * ATOLL_DART_MAX_NODES + stage]: an RT stage's budget */
  const int64_t *period_ns; /* per client: its period for the response-time test (0: none) */
} atoll_dart_pipeline;

/* Requests of one client the pipeline holds at once: one per stage of its plan, at most this many.
 * Each runs on its own set of activations (the runner allocates atoll_dart_pipe_depth sets;
 * atoll_core_task_set names a task's). */
enum { ATOLL_DART_PIPE_DEPTH = 4 };

static inline uint32_t atoll_dart_pipe_depth(const atoll_dart_pipeline *p, uint32_t client) {
  uint32_t n = p ? p->clients[client].n_stages : 1;
  return n < 1 ? 1 : n > ATOLL_DART_PIPE_DEPTH ? ATOLL_DART_PIPE_DEPTH : n;
}

#endif
