/* Calibration of a GPU preset's free timing parameter against measured model latencies.
 *
 * Two parameters are free: launch_sync_us, the host launch + synchronisation cost around an
 * isolated measurement (each profiled kernel was timed alone, and so was each whole model: a
 * model's measured latency holds one launch_sync, each kernel's time another), and
 * cp_dispatch_us, the command processor's gap between back-to-back kernels of a stream. Every
 * other cost is fixed from its source (docs/gpu-costs.md). For candidate values each model is
 * simulated alone on the GPU, and its simulated latency plus the isolation overhead (launch_sync
 * less the first command's HQ transmit, which the simulated request already pays) is compared with
 * the measured one; the fit minimizes the largest relative error over the models that can be
 * reconciled with any physical model; leave-one-out refits without each model and predicts it.
 *
 * A model is irreconcilable when the launches of one of its kernels alone, at their measured
 * normal-launch time less the largest overhead scanned, already exceed its measured model
 * latency: no schedule of its kernels can be as fast as measured. */
#ifndef ATOLL_SIM_CALIBRATE_H
#define ATOLL_SIM_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/gpu.h"
#include "atoll/model.h"

/* What is fitted, and against which measurement (docs/calibration.md, docs/gpus.md):
 *  - ISOLATED: REEF-style profiles whose kernel times were each measured around one launch: fits
 *    launch_sync and cp_dispatch to measured_latency (the default, as for the MI50);
 *  - DEVICE: kernel times are device durations (CUPTI) and the latency is the GPU-only one (a
 *    replayed CUDA graph): launch_sync is 0, cp_dispatch is fitted to measured_latency;
 *  - LAUNCH: the host launches each kernel (eager frameworks): host_launch, charged per command in
 *    place of hq_transmit, is fitted to measured_eager_latency, the other costs as given. */
typedef enum atoll_calib_mode { ATOLL_CALIB_ISOLATED, ATOLL_CALIB_DEVICE, ATOLL_CALIB_LAUNCH } atoll_calib_mode;

typedef struct atoll_calib_model {
  const atoll_model *model;
  bool irreconcilable;
  char why[256];           /* the arithmetic, when irreconcilable */
  int64_t simulated_ns;    /* at the fitted value */
  double error;            /* (simulated - measured) / measured */
  double loo_error;        /* leave-one-out: fitted without this model */
  int64_t loo_launch_sync_ns, loo_cp_dispatch_ns, loo_host_launch_ns;
  uint32_t fold;           /* atoll_calib_kfold: the fold this model is held out in (UINT32_MAX: none) */
  double kfold_error;      /* atoll_calib_kfold: predicted by the fit without its fold */
} atoll_calib_model;

enum { ATOLL_CALIB_MAX_MODELS = 256 };

typedef struct atoll_calib {
  atoll_calib_mode mode;
  int64_t launch_sync_ns, cp_dispatch_ns; /* fitted (ISOLATED), cp_dispatch only (DEVICE) */
  int64_t host_launch_ns;                 /* fitted (LAUNCH) */
  double max_abs_error;                   /* over reconcilable models */
  int64_t max_ns;                         /* both scanned over [0, max] */
} atoll_calib;

/* Each model's simulated latency at the 0.1 us points a fit scans, kept across the calls below that
 * take it: a fit, its cross-validation and `atoll calibrate --grid`'s table then simulate each point
 * once. One memo serves one GPU preset, one list of models (in the same order) and one mode, with
 * the same max_ns; a call given a memo made for another mode, count or max_ns is refused
 * (ATOLL_EINVAL), and one on another preset or list would read its latencies: the caller keeps them
 * the same. Beyond 64 MB of points the memo keeps none (every point is simulated anew). */
typedef struct atoll_calib_memo atoll_calib_memo;
/* NULL when n or max_ns is out of range or memory is short. */
atoll_calib_memo *atoll_calib_memo_create(atoll_calib_mode mode, uint32_t n, int64_t max_ns);
void atoll_calib_memo_destroy(atoll_calib_memo *memo);

/* Fits both parameters over [0, max_ns]: a 1 us grid, then a 0.1 us grid around every 1 us point
 * within 10 % of the coarse best (at most 16, the best first); a model's latency at a point is
 * simulated once per call and shared by the leave-one-out fits.
 * g's other costs are used as they are. */
int atoll_calibrate(const atoll_gpu *g, atoll_calib_model *models, uint32_t n, int64_t max_ns, atoll_calib *out);
/* The same for a mode; the one-parameter modes scan their parameter the same way. memo (NULL: one
 * for this call alone) keeps the simulated points for later calls. */
int atoll_calibrate_mode(const atoll_gpu *g, atoll_calib_model *models, uint32_t n, int64_t max_ns,
                         atoll_calib_mode mode, atoll_calib_memo *memo, atoll_calib *out);
/* k-fold cross-validation (after atoll_calibrate_mode, which finds the irreconcilable models): the
 * reconcilable models are dealt in turn into k folds (the i-th into fold i mod k, in the order
 * given); each fold is held out, the parameters are refitted on the rest with the same scan, and
 * each held-out model is predicted (kfold_error). *folds is the number of folds used (fewer than k
 * when there are fewer reconcilable models). memo as in atoll_calibrate_mode (the fit's, to reuse its
 * points). */
int atoll_calib_kfold(const atoll_gpu *g, atoll_calib_model *models, uint32_t n, int64_t max_ns,
                      atoll_calib_mode mode, uint32_t k, atoll_calib_memo *memo, uint32_t *folds);
/* The latency a mode compares with: measured_eager_latency for LAUNCH, else measured_latency. */
int64_t atoll_calib_measured_ns(const atoll_model *m, atoll_calib_mode mode);
/* A model's simulated standalone latency on g (no launch_sync added). */
int atoll_calib_standalone(const atoll_gpu *g, const atoll_model *m, int64_t *out);
/* What the ISOLATED fit compares with measured_latency at one candidate: m's simulated standalone
 * latency on g with launch_sync and cp_dispatch set as given, plus the isolation overhead. `atoll
 * calibrate --grid` tabulates it so that tools/calibration-structure.py can try costs on top of the
 * simulator's own latency. */
int atoll_calib_as_measured(const atoll_gpu *g, const atoll_model *m, int64_t launch_sync_ns, int64_t cp_dispatch_ns,
                            int64_t *out);
/* The same for models[i] of an ISOLATED memo's list (m), looked up in the memo and kept there. */
int atoll_calib_as_measured_kept(const atoll_gpu *g, atoll_calib_memo *memo, uint32_t i, const atoll_model *m,
                                 int64_t launch_sync_ns, int64_t cp_dispatch_ns, int64_t *out);

#endif
