/* The latency predictor's cost (docs/abacus.md): loads a scenario with abacus's predictor, then
 * times predictions of groups drawn by instance-based sampling. Prints the median over runs of the
 * CPU time per prediction: the forward pass alone (features computed beforehand) and features plus
 * forward pass, as the policy calls it. Not a test: it prints figures and compares nothing.
 *   bench_predictor [SCENARIO] [--runs N]     (N from 1 to 1000, default 7)
 * Default: scenarios/seeds/abacus/quad-high.yaml (four models, 17 inputs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "io/load.h"
#include "sim/predictor_train.h"

/* Process CPU time: on a shared machine other load stretches wall time, not this. */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* MAX_RUNS: a run takes under a second; more than this is a typo, not a measurement. */
enum { GROUPS = 1024, REPS = 50, MAX_RUNS = 1000 };
static const char usage[] = "bench_predictor [SCENARIO] [--runs 1..1000]";

int main(int argc, char **argv) {
  const char *path = ATOLL_SOURCE_DIR "/scenarios/seeds/abacus/quad-high.yaml";
  int runs = 7;
  for (int i = 1; i < argc; i++) {
    long long v;
    if (strcmp(argv[i], "--runs") == 0) {
      if (!bench_opt_int("bench_predictor", argc, argv, &i, 1, MAX_RUNS, &v))
        return bench_usage(usage);
      runs = (int)v;
    } else if (argv[i][0] != '-') {
      path = argv[i];
    } else {
      fprintf(stderr, "bench_predictor: unknown option '%s'\n", argv[i]);
      return bench_usage(usage);
    }
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_scenario s;
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_scenario_load_file(&a, path, NULL, 0, &s, &d) != 0 || !s.predictor) {
    fprintf(stderr, "bench_predictor: %s: %s\n", path, d.msg[0] ? d.msg : "the scenario names no predictor");
    atoll_arena_free(&a);
    return 2;
  }
  const atoll_model *mt[ATOLL_PRED_MAX_MODELS];
  for (uint32_t m = 0; m < s.n_models; m++)
    mt[m] = &s.models[m].model;
  static atoll_group g[GROUPS];
  static double x[GROUPS][ATOLL_PRED_MAX_IN];
  uint64_t rng = 1;
  for (int i = 0; i < GROUPS; i++) {
    atoll_group_sample(&s, &rng, &g[i]);
    atoll_predictor_features(mt, s.n_models, s.predictor->batch, &g[i], x[i]);
  }
  double *fwd = calloc((size_t)runs, sizeof *fwd), *full = calloc((size_t)runs, sizeof *full);
  if (!fwd || !full) {
    fprintf(stderr, "bench_predictor: out of memory for %d runs\n", runs);
    free(fwd);
    free(full);
    atoll_arena_free(&a);
    return 1;
  }
  volatile double sink = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now_s();
    for (int k = 0; k < REPS; k++)
      for (int i = 0; i < GROUPS; i++)
        sink += atoll_mlp_forward_ns(&s.predictor->mlp, x[i]);
    double t1 = now_s();
    for (int k = 0; k < REPS; k++)
      for (int i = 0; i < GROUPS; i++)
        sink += (double)atoll_predictor_predict_ns(s.predictor, mt, &g[i]);
    double t2 = now_s();
    fwd[r] = (t1 - t0) / (REPS * GROUPS) * 1e6;
    full[r] = (t2 - t1) / (REPS * GROUPS) * 1e6;
  }
  double fwd_med = bench_median(fwd, (size_t)runs), full_med = bench_median(full, (size_t)runs);
  printf("predictor %s: %u inputs, %d hidden layers of %d\n", path, s.predictor->mlp.n_in, ATOLL_PRED_LAYERS,
         ATOLL_PRED_HIDDEN);
  printf("forward pass            median %.3f us CPU per prediction (%d runs of %d)\n", fwd_med, runs,
         REPS * GROUPS);
  printf("features + forward pass median %.3f us CPU per prediction\n", full_med);
  free(fwd);
  free(full);
  atoll_arena_free(&a);
  return sink < 0; /* keeps the predictions from being optimised away */
}
