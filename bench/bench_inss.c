/* The cost of InSS's decision (docs/inss.md, "Decision time"): atoll_inss_decide for 2 to 16
 * models on 4 GPUs, the models cycling through the 8 profiles of scenarios/seeds/inss/mi50-model-8.yaml
 * at the rates and SLOs of scenarios/seeds/inss/8models.yaml. Prints the median wall time of 5
 * decisions and the share fits tried, per model count. It takes no arguments.
 *   bench_inss */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "atoll/error.h"
#include "bench/bench_util.h"
#include "core/inss.h"
#include "io/arena.h"
#include "io/inss_io.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  if (argc > 1) { /* an option given would otherwise be ignored, and the run mistaken for its result */
    fprintf(stderr, "bench_inss: unexpected argument '%s' (it takes none)\n", argv[1]);
    return bench_usage("bench_inss");
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_inss_model *m = NULL;
  if (atoll_inss_model_load_file(&a, ATOLL_SOURCE_DIR "/scenarios/seeds/inss/mi50-model-8.yaml", &m, &d) != 0) {
    atoll_diag_print(&d, stderr);
    atoll_arena_free(&a);
    return 2;
  }
  /* 8models.yaml's clients, in its order (the model file's order): rate (1/s) and SLO (ms). */
  static const double rate[8] = {40, 80, 60, 150, 50, 30, 40, 400};
  static const double slo_ms[8] = {55.3, 18.4, 22.3, 8.3, 40.0, 52.8, 34.5, 1.0};
  printf("models  gpus  decision_ms(median of 5)  share_fits  scale  all_served\n");
  for (uint32_t n = 2; n <= ATOLL_INSS_MAX_MODELS; n += 2) {
    atoll_inss_demand dem[ATOLL_INSS_MAX_MODELS];
    for (uint32_t i = 0; i < n; i++)
      dem[i] = (atoll_inss_demand){.prof = i % m->n_models, .lambda = rate[i % 8], .slo_ns = slo_ms[i % 8] * 1e6,
                                   .gpu = -1};
    atoll_inss_plan_cfg cfg = {.gpus = 4, .step_pct = 5, .mem_mb = 16384, .max_batch = 32, .miss = 0.01};
    atoll_inss_plan plan;
    double t[5];
    for (int r = 0; r < 5; r++) {
      double t0 = now_s();
      atoll_inss_decide(m, dem, n, &cfg, &plan);
      t[r] = (now_s() - t0) * 1e3;
    }
    double med = bench_median(t, 5);
    printf("%6" PRIu32 "  %4u  %24.2f  %10" PRIu32 "  %5.3f  %s\n", n, cfg.gpus, med, plan.evaluations, plan.scale,
           plan.ok ? "yes" : "no");
  }
  atoll_arena_free(&a);
  return 0;
}
