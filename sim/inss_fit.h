/* Fitting InSS's latency model (include/atoll/inss.h, docs/inss.md) on the simulated GPU: each
 * model's solo running time over a batch x share grid, then the interference coefficients by least
 * squares from co-location runs, some of them held out to measure the error. Also the observation
 * behind `atoll predict`: a placement's co-located batch latencies on the simulated GPU. */
#ifndef ATOLL_SIM_INSS_FIT_H
#define ATOLL_SIM_INSS_FIT_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/inss.h"
#include "atoll/scenario.h"
#include "core/inss.h"

/* The solo grid: batches x shares (42 samples per model). */
enum { ATOLL_INSS_FIT_BATCHES = 6, ATOLL_INSS_FIT_PCTS = 7, ATOLL_INSS_FIT_SETS = 24, ATOLL_INSS_FIT_MAX_COLOC = 4 };

/* One co-location set: up to 4 models on one GPU, their shares and batches, what the simulator
 * measured for each (mean batch latency) and what the fitted model predicts. */
typedef struct atoll_inss_coloc {
  uint32_t n;
  atoll_inss_slot slot[ATOLL_INSS_FIT_MAX_COLOC];
  double observed_ns[ATOLL_INSS_FIT_MAX_COLOC];
  double predicted_ns[ATOLL_INSS_FIT_MAX_COLOC];
  bool train; /* used for the fit (else held out) */
} atoll_inss_coloc;

typedef struct atoll_inss_fit_report {
  atoll_inss_coloc sets[ATOLL_INSS_FIT_SETS];
  uint32_t n_sets;
  double mape_train_pct, mape_test_pct;   /* co-located samples (n > 1 each) */
  double mape_solo_pct;                   /* the LWR alone, leave-one-out over the solo grid */
  uint32_t n_train, n_test;
} atoll_inss_fit_report;

/* Fits m (profiles named as s's models) on s's GPU. 0 or an error code. */
int atoll_sim_inss_fit(const atoll_scenario *s, atoll_inss_model *m, atoll_inss_fit_report *rep);

/* The mean batch latency of each of the n slots running together on one simulated GPU of s (each
 * slot's profile is s's model of the same index in m; its batches arrive periodically, spaced
 * 1.3x its predicted latency, 20 of them; the first is not counted). */
int atoll_sim_inss_observe(const atoll_scenario *s, const atoll_inss_model *m, const atoll_inss_slot *slot, uint32_t n,
                           double *observed_ns);

#endif
