/* atoll predict SCENARIO: a placement's predicted batch latencies (InSS's model, docs/inss.md)
 * beside the simulated ones. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "core/inss.h"
#include "core/inss_scenario.h"
#include "io/inss_io.h"
#include "sim/inss_fit.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_predict_def = {
    "predict", atoll_cmd_predict, "a placement's predicted latency beside the simulated one",
    "usage: atoll predict SCENARIO [--model MODEL.yaml] [--policy NAME] [--seed N] [--set PATH=VALUE]...\n"
    "\n"
    "For every client of SCENARIO: its GPU, share and batch, the GPU execution latency of one batch\n"
    "that InSS's model predicts among the models co-located with it, and what the simulated GPU\n"
    "measures when the GPU's clients run together (each sends its batches periodically, 1.3x the\n"
    "predicted latency apart; the mean of 19). The placement is the inss policy's decision when the\n"
    "scenario runs inss, else the scenario's own (gpu:, share: or cus:, batch: max). The model is the\n"
    "policy's model: file, the --model file, or one fitted at start (atoll fit inss). At most 4\n"
    "clients per GPU.\n"
    "\n"
    "  --model MODEL.yaml  the latency model to use (written by atoll fit inss)\n"
    "  --policy NAME       the scenario's policy (inss: its placement is predicted)\n"
    "  --seed N            the seed of a model fitted at start (shorthand for --set seed=N)\n"
    "  --set PATH=VALUE    override a value of the scenario\n"
    "\n"
    "exit: 0 printed; 2 bad input.\n"};

int atoll_cmd_predict(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_predict_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--model"};
  const char *vals[1] = {NULL};
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 1, true, &rc))
    return rc;
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (vals[0]) {
    atoll_diag d;
    atoll_diag_clear(&d);
    atoll_inss_model *m = NULL;
    if (atoll_inss_model_load_file(&a, vals[0], &m, &d) != 0) {
      rc = atoll_cli_report(&d);
      atoll_arena_free(&a);
      return rc;
    }
    const char *why = atoll_inss_model_mismatch(&a, m, &s);
    if (why) {
      fprintf(stderr, "atoll predict: %s does not fit the scenario: %s\n", vals[0], why);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    s.inss = m;
  }
  /* The model's batch term and the fit's runs stop at InSS's largest batch (under inss the scenario
   * is refused above it; under another policy the client's own batch is predicted). */
  for (uint32_t c = 0; c < s.n_clients; c++)
    if (s.clients[c].batch_max > ATOLL_INSS_MAX_BATCH) {
      fprintf(stderr,
              "atoll predict: %s: client %s batches up to %" PRIu32 " requests; InSS's latency model covers "
              "batches of 1 to %d (set its batch: max to at most %d)\n",
              s.path, s.clients[c].name, s.clients[c].batch_max, ATOLL_INSS_MAX_BATCH, ATOLL_INSS_MAX_BATCH);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
  if ((rc = atoll_cli_inss_model(&a, &s, true)))
    return rc;
  uint32_t n = s.n_clients;
  if (n > ATOLL_INSS_MAX_MODELS) {
    fprintf(stderr, "atoll predict: at most %d clients\n", ATOLL_INSS_MAX_MODELS);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  atoll_client cl[ATOLL_INSS_MAX_MODELS];
  memcpy(cl, s.clients, n * sizeof *cl);
  uint32_t pct[ATOLL_INSS_MAX_MODELS], batch[ATOLL_INSS_MAX_MODELS];
  bool inss = s.policy.kind == ATOLL_POLICY_INSS;
  if (inss)
    atoll__inss_place(&s, cl, 5, ATOLL_INSS_MAX_BATCH, 0.01);
  atoll_scenario placed = s;
  placed.clients = cl;
  for (uint32_t c = 0; c < n; c++) {
    uint32_t cus = atoll_cuset_count(&cl[c].cus);
    pct[c] = cus ? (cus * 100 + s.gpu.cus - 1) / s.gpu.cus : 100;
    batch[c] = cl[c].batch_max ? cl[c].batch_max : 1;
  }
  for (uint32_t g = 0; inss && g < atoll_scenario_gpus(&s); g++) {
    uint32_t idx[ATOLL_INSS_MAX_MODELS], k;
    atoll_inss_plan plan;
    if (atoll__inss_gpu_plan(&placed, g, NULL, 5, ATOLL_INSS_MAX_BATCH, 0.01, idx, &k, &plan))
      for (uint32_t j = 0; j < k; j++)
        pct[idx[j]] = plan.pct[j], batch[idx[j]] = plan.batch[j];
  }
  printf("%-3s %-14s %-14s %5s %5s %10s %13s %13s %8s\n", "gpu", "client", "model", "share", "batch", "co-located",
         "predicted_us", "simulated_us", "error_%");
  double sum = 0;
  uint32_t cnt = 0, crowded = 0; /* crowded: GPUs with too many clients to simulate */
  for (uint32_t g = 0; g < atoll_scenario_gpus(&s) && rc == 0; g++) {
    atoll_inss_slot slot[ATOLL_INSS_MAX_MODELS];
    uint32_t who[ATOLL_INSS_MAX_MODELS], k = 0;
    for (uint32_t c = 0; c < n; c++)
      if (cl[c].gpu == g) {
        slot[k] = (atoll_inss_slot){.prof = atoll__inss_profile_of(&s, c), .pct = pct[c], .batch = batch[c]};
        who[k++] = c;
      }
    if (k == 0)
      continue;
    if (k > ATOLL_INSS_FIT_MAX_COLOC) {
      printf("%-3" PRIu32 " (%" PRIu32 " clients: more than %d, not simulated)\n", g, k, ATOLL_INSS_FIT_MAX_COLOC);
      crowded++;
      continue;
    }
    double obs[ATOLL_INSS_FIT_MAX_COLOC];
    int err = atoll_sim_inss_observe(&s, s.inss, slot, k, obs);
    if (err) {
      if (err == ATOLL_ENOTSUP && s.engine == ATOLL_ENGINE_RATE) /* it said "not supported by this device" */
        fprintf(stderr, "atoll predict: the simulated runs bind each client to its share of the CUs, which "
                        "sim.engine=rate does not model; predict on fluid or blocks\n");
      else
        fprintf(stderr, "atoll predict: %s\n", atoll_strerror(err));
      rc = ATOLL_EXIT_BAD_INPUT;
      break;
    }
    for (uint32_t j = 0; j < k; j++) {
      double pred = atoll_inss_inf_ns(s.inss, slot, k, j), e = 100.0 * (pred - obs[j]) / obs[j];
      printf("%-3" PRIu32 " %-14s %-14s %5" PRIu32 " %5" PRIu32 " %10" PRIu32 " %13.1f %13.1f %8.2f\n", g,
             cl[who[j]].name, s.models[cl[who[j]].model].name, slot[j].pct, slot[j].batch, k - 1, pred / 1e3,
             obs[j] / 1e3, e);
      if (isfinite(e))
        sum += fabs(e), cnt++;
    }
  }
  if (rc == 0 && cnt == 0 && crowded) {
    fprintf(stderr, "atoll predict: no client compared: every GPU with clients has more than %d (gpu_count:, or "
                    "clients' gpu:, spreads them)\n", ATOLL_INSS_FIT_MAX_COLOC);
    rc = ATOLL_EXIT_BAD_INPUT;
  } else if (rc == 0) {
    printf("MAPE %.2f %% over %" PRIu32 " clients\n", cnt ? sum / cnt : NAN, cnt);
  }
  atoll_arena_free(&a);
  return rc;
}
