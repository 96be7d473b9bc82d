/* InSS's decisions as pure functions (docs/inss.md): the latency model (t_inf = t_d + t_s + t_r,
 * with the scheduling and cache interference of the co-located models), the task latency with the
 * batching wait, BDA (the binary search over the batch size, InSS Alg. 1) and the deterministic
 * placement-and-share search that stands in for SAC-D. The policies inss and gpulet
 * (core/policy_inss.c, core/policy_gpulet.c) and `atoll predict` call them; the tests feed them
 * hand-made models. */
#ifndef ATOLL_CORE_INSS_H
#define ATOLL_CORE_INSS_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/inss.h"

/* The solo running time o_r of profile p at batch b on pct % of the GPU: locally weighted linear
 * regression of ln(time) on ln(batch) and ln(pct) over the profile's samples, Gaussian weights of
 * width bw in the same log space. 0 when the profile has no samples. */
double atoll_inss_run_ns(const atoll_inss_profile *p, double bw, double b, double pct);

/* A model's place on one GPU: which profile, its share (%) and batch. */
typedef struct atoll_inss_slot {
  uint32_t prof;
  uint32_t pct;
  uint32_t batch;
} atoll_inss_slot;

/* t_inf of slot i among the n slots of one GPU (the others are its co-located models):
 * t_d x b + (o_sch + int) x n_kernels + o_r x (1 + alpha_cache x sum of the others' l), with
 * int = alpha_s x n + beta_s when n > 1 and 0 alone (o_sch is inside o_r: docs/inss.md). */
double atoll_inss_inf_ns(const atoll_inss_model *m, const atoll_inss_slot *gpu, uint32_t n, uint32_t i);

/* The task latency bound of a request under FIFO batching at rate lambda (per second): it waits
 * for the batch to fill, (b - 1) / lambda, or for the batch running before it, whichever is longer,
 * then runs: max(t_inf, (b - 1) / lambda) + t_inf (InSS Eq. 2 at its worst). */
double atoll_inss_task_ns(double inf_ns, uint32_t b, double lambda);

typedef enum atoll_inss_bda_status {
  ATOLL_INSS_BDA_OK = 0,
  ATOLL_INSS_BDA_MEMORY = 1,     /* not even batch 1 fits the memory left */
  ATOLL_INSS_BDA_SLO = 2,        /* not even batch 1 meets the SLO */
  ATOLL_INSS_BDA_THROUGHPUT = 3, /* the largest batch within memory and SLO serves less than lambda */
} atoll_inss_bda_status;

/* The chance that a request waits in the queue longer than its SLO leaves it, Poisson arrivals
 * at lambda served in batches of b taking inf_ns each: Kingman's exponential approximation of the
 * waiting-time tail of a queue with Poisson arrivals (c_a^2 = 1) and deterministic service
 * (c_s^2 = 0), rho exp(-2 (1 - rho) slack / t_inf), with rho = lambda t_inf / b and
 * slack = SLO - (b - 1) / lambda - t_inf. 1 when rho >= 1 or slack < 0. */
double atoll_inss_tail(double inf_ns, uint32_t b, double lambda, double slo_ns);

/* The chance that a request misses its SLO under policy inss's batcher (core/inss_batcher.c): its
 * queue launches once b requests wait or once the oldest has waited T = SLO - 2 t_inf(b), batches
 * of K = min(b, 1 + arrivals within T) run t(K), linear between inf1_ns (b = 1) and infb_ns, one at
 * a time. The batches' wait has the GI/G/1 Cramer-Lundberg tail of these launch gaps and running
 * times, and a request at place j of its batch adds its wait for the rest, min(S_{b-j}, T). The
 * same as atoll_inss_tail at b = 1; 1 when the load reaches 1 or t_inf(b) the SLO. */
double atoll_inss_tail_batched(double inf1_ns, double infb_ns, uint32_t b, double lambda, double slo_ns);

/* The sum over the k places of a batch the timeout launched of the moment generating function, at
 * x = theta T >= 0, of each place's wait for the rest, divided by its largest term (place 1's,
 * e^x): place j waits T x Beta(k - j + 1, j - 1), whose function is Kummer's 1F1(k - j + 1; k; x).
 * The hockey-stick identity sum_a (a)_i = (k)_(i+1) / (i + 1) folds the k series into one,
 * sum_i (k + i) x^i / (i + 1)! = (k - 1)(e^x - 1)/x + e^x; so the ratio is
 * 1 + (k - 1)(1 - e^-x)/x (k at x = 0). atoll_inss_tail_batched uses it where no place's term
 * reaches its cap of 1. */
double atoll_inss_wait_mgf_ratio(uint32_t k, double x);

/* ln of one place's term of that sum, e^-x 1F1(k - j + 1; k; x) for place j = 1 .. k of a batch of
 * k, at x >= 0: 0 at j = 1. Exact for any x (no series cut short, no overflow): the tail takes it
 * for each place where a place's term reaches its cap. */
double atoll_inss_place_wait_ln(uint32_t k, uint32_t j, double x);

/* The fill waits of a full batch, scaled by e^-x so that nothing overflows: out[k] for k = 0 .. n - 1
 * is E[e^(-x (1 - min(G_k, 1)))], G_k the k-th arrival of a Poisson process of rate y over a unit
 * time (G_0 = 0), that is e^(-theta T) E[e^(theta min(S_k, T))] with x = theta T and y = lambda T.
 * n <= ATOLL_INSS_MAX_BATCH + 1. */
void atoll_inss_fill_wait(uint32_t n, double y, double x, double *out);

/* BDA for slot i of a GPU (InSS Alg. 1): a binary search over b in 1..max_batch for the largest
 * batch whose memory m(b) <= mem_room_mb (<= 0: unbounded) and task latency <= slo_ns, then
 * whether its throughput b / t_inf reaches lambda. When miss > 0 it models policy inss's batcher
 * instead: a batch is within the SLO when 2 t_inf(b) <= slo_ns (its timeout, SLO - 2 t_inf, bounds
 * the fill, so Eq. 2's max(t_inf, fill) + t_inf stays within the SLO), and the batch taken is the one
 * up to the largest found whose tail (atoll_inss_tail_batched) is smallest; it fails THROUGHPUT when
 * that tail exceeds miss. *batch gets the batch found (1 on failure).
 * gpu[i].batch is used as scratch and left at *batch. */
atoll_inss_bda_status atoll_inss_bda(const atoll_inss_model *m, atoll_inss_slot *gpu, uint32_t n, uint32_t i,
                                     double lambda, double slo_ns, double mem_room_mb, uint32_t max_batch,
                                     double miss, uint32_t *batch);

/* What a model asks of the cluster. */
typedef struct atoll_inss_demand {
  uint32_t prof;      /* its profile in the model */
  double lambda;      /* requests per second */
  double slo_ns;
  int32_t gpu;        /* a GPU it must stay on, or -1 */
} atoll_inss_demand;

/* The solo running times one search has worked out, by (profile, batch, share), direct-mapped: a
 * search asks for the same few hundred again and again (the 8-model scenario's first decision,
 * millions of times), and each costs a locally weighted regression over the profile's samples,
 * with an exponential per sample (the samples' logarithms are kept too, once per profile). A slot
 * keeps its key, so a collision only recomputes. atoll_inss_decide keeps one for its search.
 * With the tail bound, the queueing tails too (atoll_inss_tail_batched), by their exact arguments
 * (the doubles' bits): a 3 s run of scenarios/experiments/fig20-be8.yaml asks 1.2 million times
 * for 2,089 different ones, and each finds two decay rates by iteration. */
enum { ATOLL_INSS_RUN_MEMO_SLOTS = 4096, ATOLL_INSS_TAIL_MEMO_SLOTS = 1024 };
typedef struct atoll_inss_tail_slot {
  uint64_t inf1_bits, infb_bits, lambda_bits, slo_bits;
  uint32_t b; /* 0: empty (the function is asked with b >= 1 only) */
  double tail;
} atoll_inss_tail_slot;
/* A profile's samples in logarithms, as the regression takes them: three logarithms a sample that
 * every time worked out again would recompute (a third of a 5 s run of fig20-be8.yaml under inss). */
typedef struct atoll_inss_sample_logs {
  double batch[ATOLL_INSS_MAX_POINTS], pct[ATOLL_INSS_MAX_POINTS], ns[ATOLL_INSS_MAX_POINTS];
} atoll_inss_sample_logs;
typedef struct atoll_inss_run_memo {
  uint32_t key[ATOLL_INSS_RUN_MEMO_SLOTS]; /* 0: empty */
  double ns[ATOLL_INSS_RUN_MEMO_SLOTS];
  atoll_inss_tail_slot tail[ATOLL_INSS_TAIL_MEMO_SLOTS];
  uint32_t logs_ready; /* bit i: logs[i] holds profile i's samples */
  atoll_inss_sample_logs logs[ATOLL_INSS_MAX_MODELS];
} atoll_inss_run_memo;

/* Empties a memo (before a search on another model). */
void atoll_inss_run_memo_clear(atoll_inss_run_memo *memo);

typedef struct atoll_inss_plan_cfg {
  uint32_t gpus;        /* GPUs to place on */
  uint32_t step_pct;    /* the share grid (5) */
  double mem_mb;        /* each GPU's memory; <= 0: unbounded */
  uint32_t max_batch;   /* <= ATOLL_INSS_MAX_BATCH */
  double miss;          /* BDA's queueing-tail bound (0: InSS's constraints only) */
  /* NULL, or solo running times already worked out for the model the search runs on, by profile,
   * batch and share: atoll_inss_run_ns is a pure function of them, so a time taken from here is
   * the one it would give. atoll_inss_decide sets its own; atoll_inss_fit_gpu reads and fills it. */
  atoll_inss_run_memo *memo;
} atoll_inss_plan_cfg;

/* A decision: each demand's GPU, share and batch, and the highest common scale of the rates at
 * which the placement still passes BDA for every model (the objective: throughput under SLO). */
typedef struct atoll_inss_plan {
  uint32_t gpu[ATOLL_INSS_MAX_MODELS];
  uint32_t pct[ATOLL_INSS_MAX_MODELS];
  uint32_t batch[ATOLL_INSS_MAX_MODELS];
  double scale;          /* 0: not even 1/64 of the rates fits */
  bool ok;               /* every model passes BDA at scale 1 */
  uint32_t evaluations;  /* share fits tried (the search's cost) */
} atoll_inss_plan;

/* The smallest shares on the step grid at which every one of the n slots of one GPU passes BDA
 * at its demand's rate x scale (shares grow one step at a time, the failing models first, as
 * each one's growth raises the others' interference); then the GPU's remaining steps go, one at
 * a time, to the model closest to failing (its queueing tail, or its utilisation when cfg->miss is
 * 0), and the batches are BDA's at those
 * shares. false when the minimal shares add up to more than 100 %. */
bool atoll_inss_fit_gpu(const atoll_inss_model *m, const atoll_inss_demand *d, const uint32_t *members, uint32_t n,
                        double scale, const atoll_inss_plan_cfg *cfg, bool spread, uint32_t *pct, uint32_t *batch);

/* Instances up to this many models are placed by the exact search (core/inss_exact.c); larger
 * ones by the greedy one with local improvement. */
enum { ATOLL_INSS_EXACT_MODELS = 10 };

/* The exact placement (core/inss_exact.c): of every placement of the n models on cfg->gpus GPUs
 * (a model with a gpu stays there), one that fits every model at the highest common rate scale
 * *scale in [1/64, 64], and among those the one whose GPUs' own highest scales (gpu_scale[g],
 * 64 for an empty GPU), from the lowest up, are the largest. order: the models, the hardest
 * first (it only speeds the search up). false, and nothing written, when n is 0 or over
 * ATOLL_INSS_EXACT_MODELS or when not even 1/64 of the rates fits. evals counts the share fits. */
bool atoll_inss_place_exact(const atoll_inss_model *m, const atoll_inss_demand *d, uint32_t n,
                            const atoll_inss_plan_cfg *cfg, const uint32_t *order, uint32_t *gpu_of, double *scale,
                            double *gpu_scale, uint32_t *evals);

/* The placement-and-share search (docs/inss.md): for a scale, models in decreasing order of their
 * solo share need are placed greedily on the GPU whose minimal shares then add up to the least,
 * then single moves and pairwise swaps between GPUs are applied while they lower the most loaded
 * GPU's total; the scale itself is the highest, by bisection over [1/64, 64], at which the search
 * places everything. Deterministic; n <= ATOLL_INSS_MAX_MODELS. */
void atoll_inss_decide(const atoll_inss_model *m, const atoll_inss_demand *d, uint32_t n,
                       const atoll_inss_plan_cfg *cfg, atoll_inss_plan *out);

#endif
