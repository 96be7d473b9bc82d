/* InSS's interference-aware latency model (docs/inss.md): per model, its solo running times over
 * a batch x share grid (read by locally weighted regression), its kernel count and L2 utilisation
 * line, and per GPU the coefficients of the scheduling and cache interference between co-located
 * models. Fitted by `atoll fit inss` (sim/inss_fit.c), read and written by io/inss_io.c, evaluated
 * by core/inss.c. A plain value: no pointers but the model names. */
#ifndef ATOLL_INSS_H
#define ATOLL_INSS_H

#include <stdint.h>

enum {
  ATOLL_INSS_MAX_MODELS = 16,  /* models one fitted file covers */
  ATOLL_INSS_MAX_POINTS = 64,  /* solo samples per model */
  ATOLL_INSS_MAX_BATCH = 32,   /* BDA's batch range, 1 .. 32 (InSS Alg. 1) */
  ATOLL_MAX_GPUS_INSS = 16,    /* GPUs the placement search spreads over */
};

/* One model's solo behaviour on the GPU. */
typedef struct atoll_inss_profile {
  const char *name;     /* the scenario's model name */
  uint32_t n_kernels;   /* n: kernels one run launches */
  double t_d_ns;        /* data upload per request (t_d = t_d_ns x b); 0 where the copies are inside the solo runs */
  double l2_alpha;      /* L2 utilisation l = l2_alpha x rho + l2_beta (rho: the share, 0..1); both 0: unknown */
  double l2_beta;
  double mem_mb;        /* weights: m(b) = mem_mb + act_mb x b */
  double act_mb;
  uint32_t n_points;    /* solo running-time samples o_r(batch, pct) */
  double pt_batch[ATOLL_INSS_MAX_POINTS];
  double pt_pct[ATOLL_INSS_MAX_POINTS];
  double pt_ns[ATOLL_INSS_MAX_POINTS];
} atoll_inss_profile;

typedef struct atoll_inss_model {
  /* Scheduling interference per kernel: int = alpha_s x co-located + beta_s (0 when alone). */
  double alpha_s_ns;
  double beta_s_ns;
  /* t_r = o_r x (1 + alpha_cache x the co-located models' L2 utilisation). */
  double alpha_cache;
  /* The LWR kernel's width, in natural-log units of batch and share. */
  double bandwidth;
  uint32_t n_models;
  atoll_inss_profile prof[ATOLL_INSS_MAX_MODELS];
} atoll_inss_model;

#endif
