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
#include "run/results.h"

/* The solo grid: batches x shares (42 samples per model). */
enum { ATOLL_INSS_FIT_BATCHES = 6, ATOLL_INSS_FIT_PCTS = 7, ATOLL_INSS_FIT_SETS = 24, ATOLL_INSS_FIT_MAX_COLOC = 4,
       ATOLL_INSS_FIT_MAX_RUN = 64 /* batches per client in one run */,
       ATOLL_INSS_FIT_MAX_SAMPLES = 8 /* measurements of one solo sample or set (rounds, re-measured) */ };

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
  uint32_t n_remeasured; /* solo samples and sets measured again for disagreeing rounds (plan.spread) */
  /* plan.drop_disturbed: batches left out as disturbed, runs measured again for them, and figures
   * taken from disturbed batches because no run kept one. */
  uint32_t n_disturbed, n_disturbed_reruns, n_disturbed_only;
} atoll_inss_fit_report;

/* Fits m (profiles named as s's models) on s's simulated GPU (atoll_inss_fit_sim's plan). 0 or an
 * error code. */
int atoll_sim_inss_fit(const atoll_scenario *s, atoll_inss_model *m, atoll_inss_fit_report *rep);

/* Runs one scenario the fit built (a solo or co-location run: its clients bound to CU sets under
 * mps-static, trace arrivals, standalone latencies not needed) and fills res, which the fit frees.
 * The simulator's is atoll_sim_inss_runner; a native device's is the caller's (sim/ cannot call
 * native/: tools/atoll/inss_native.c). 0 or an error code. */
typedef int (*atoll_inss_runner)(const atoll_scenario *s, void *ctx, atoll_run_results *res);
int atoll_sim_inss_runner(const atoll_scenario *s, void *ctx, atoll_run_results *res);

/* What the fit runs and where. */
typedef struct atoll_inss_fit_plan {
  atoll_inss_runner run;
  void *ctx;
  /* The solo grid: every batch at every share (at most ATOLL_INSS_MAX_POINTS samples). */
  const uint32_t *batches, *pcts;
  uint32_t n_batches, n_pcts;
  /* Each solo sample: the mean of `solo_runs` - 1 batches (the first is not counted), solo_gap_ns
   * apart; 0: twice the model's measured latency (its profile's) times the batch, plus 1 ms. */
  uint32_t solo_runs;
  int64_t solo_gap_ns;
  /* Co-location sets: n_sets (<= ATOLL_INSS_FIT_SETS; even ones fit, odd ones held out) of
   * min_coloc..max_coloc models, shares in units of 100 / share_units % (at least one each), batches
   * drawn from set_batches, batches_per_run batches per client. */
  uint32_t n_sets, min_coloc, max_coloc, share_units;
  const uint32_t *set_batches;
  uint32_t n_set_batches;
  uint32_t batches_per_run;
  /* Batches of a co-location run arrive gap_factor x their predicted latency apart (the simulator:
   * 1.3; a noisy device: more, so that a slow batch does not queue the next ones); each client's
   * figure is the mean of its batches' latencies, or their median (a device whose other load
   * delays a few batches). */
  double gap_factor;
  bool median;
  /* A batch's requests arrive together and launch when all have come, or after this (the
   * simulator: 1 ns, as they come at the same instant; a native client posts them one by one). */
  int64_t batch_timeout_ns;
  /* Also fit alpha_cache, with each model's L2 line from its solo samples (its memory traffic
   * alone over memory_gb_s: atoll_inss_fit_native's plan); false: alpha_cache and l2 stay 0. */
  bool fit_cache;
  double memory_gb_s;
  /* A device whose other load comes and goes (the simulator's plan: 0, 0, 0, false: every sample
   * measured once, every batch counted):
   * - rounds: the solo grid and the sets are measured this many times, round by round (all solo
   *   samples, then all sets, then again), each figure the median of its rounds, so that load that
   *   comes and goes falls on the solo and the co-located runs alike;
   * - a solo sample or set whose measurements disagree, the largest over the smallest above
   *   `spread` (or one that measured nothing), is measured again, up to max_samples in all
   *   (<= ATOLL_INSS_FIT_MAX_SAMPLES), the median of all taken;
   * - drop_queued: a batch that arrived before the one before it had completed (it waited, and
   *   its latency holds the wait) is not counted; a run that keeps fewer than half of its counted
   *   batches is measured again with its batches twice, then four times, as far apart. */
  uint32_t rounds, max_samples;
  double spread;
  bool drop_queued;
  /* A device shared with other processes (atoll_inss_fit_native's plan; the simulator's: false, 0):
   * a batch one of whose requests the runner marked disturbed (atoll_request_record.disturbed:
   * another process held a CU worker's CPU while it ran) is not counted, and a run is measured
   * again, up to disturbed_runs times in all, until each client has kept at least half of its
   * counted batches over the runs; its figure is the median of the batches kept over them (of the
   * disturbed ones where none was kept). */
  bool drop_disturbed;
  uint32_t disturbed_runs;
  /* A sample's figure over its rounds and re-measurements: the smallest (the native plan: other
   * processes only ever add time, and a run's figure is already its batches' median) rather than
   * the median (false: the simulator's, which measures once). */
  bool least_of_rounds;
  /* Rounds after the first measure the solo samples and the sets in turn rather than all solo
   * samples first (false: the simulator's). */
  bool interleave;
  /* Solo samples drop a batch that queued behind the one before, whatever drop_queued says, and run
   * again further apart (the simulator's plan: nothing else loads its GPU, so a queued solo batch
   * only means that the gap was shorter than the batch, and its figure would hold the wait). */
  bool solo_unqueued;
} atoll_inss_fit_plan;

/* One client's figure from a fit run of `batches` batches of b requests each (r's records in
 * arrival order): the mean, or the median, of its batch latencies (a batch's first request's
 * arrival to its last one's completion), the first batch not counted; with drop_queued, nor a
 * batch that arrived before the one before it had completed. *n_clean (if not NULL): the batches
 * counted. NaN when none. */
double atoll_inss_run_figure(const atoll_client_records *r, uint32_t b, uint32_t batches, bool median,
                             bool drop_queued, uint32_t *n_clean);

/* The latencies of one client's counted batches of a fit run, in arrival order, as
 * atoll_inss_run_figure counts them (with need_all, only batches whose every request completed);
 * with drop_disturbed, nor a batch with a request marked disturbed: *n_disturbed (if not NULL) is
 * increased by their number and disturbed_lat (if not NULL) gets their latencies, in arrival order.
 * lat and disturbed_lat hold up to `batches` values; returns how many lat holds. */
uint32_t atoll_inss_run_batches(const atoll_client_records *r, uint32_t b, uint32_t batches, bool need_all,
                                bool drop_queued, bool drop_disturbed, double *lat, uint32_t *n_disturbed,
                                double *disturbed_lat);

/* The median of the positive values of v[0..n) (NaN when none). */
double atoll_inss_median_of(const double *v, uint32_t n);

/* The smallest of the positive values of v[0..n) (NaN when none). */
double atoll_inss_least_of(const double *v, uint32_t n);

/* Whether measurements v[0..n) of one sample disagree: the largest positive over the smallest
 * above spread, or some value not positive (a run that measured nothing). */
bool atoll_inss_disagree(const double *v, uint32_t n, double spread);

/* The simulated GPU's plan: 42 solo samples (batches 1-32 x shares 5-100 %), 24 sets of 2-4 models
 * on a 10 % grid, batches 1-8, 20 batches per run 1.3x their latency apart, their mean; no cache
 * term. */
void atoll_inss_fit_sim(atoll_inss_fit_plan *p);

/* The bytes one request of md reads and writes in its kernels (each kernel op's tensors, a
 * read-write tensor twice): its memory traffic, from which the fit draws a model's L2 line. */
double atoll_inss_traffic_bytes(const atoll_model *md);

/* Fits m by plan p. 0 or an error code (ATOLL_EINVAL for a plan the scenario cannot run). */
int atoll_inss_fit_by(const atoll_scenario *s, const atoll_inss_fit_plan *p, atoll_inss_model *m,
                      atoll_inss_fit_report *rep);

/* The mean batch latency of each of the n slots running together on one simulated GPU of s (each
 * slot's profile is s's model of the same index in m; its batches arrive periodically, spaced
 * 1.3x its predicted latency, 20 of them; the first is not counted). */
int atoll_sim_inss_observe(const atoll_scenario *s, const atoll_inss_model *m, const atoll_inss_slot *slot, uint32_t n,
                           double *observed_ns);

#endif
