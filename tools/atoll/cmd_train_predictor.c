/* atoll train-predictor SCENARIO -o PRED.yaml: trains abacus's latency predictor on operator groups
 * of the scenario's models measured on its simulated GPU or, with --device, on a native device
 * (docs/abacus.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "io/predictor_io.h"
#include "native/runtime/ngroup_time.h"
#include "sim/predictor_train.h"
#include "tools/atoll/native_cli.h"

const atoll_subcommand atoll_cmd_train_predictor_def = {
    "train-predictor", atoll_cmd_train_predictor, "train abacus's group latency predictor",
    "usage: atoll train-predictor SCENARIO -o PRED.yaml [--samples N] [--seed S] [--epochs N] [--set PATH=VALUE]...\n"
    "                             [--device cpu|cpu-gpu|cuda|hip] [--repeats N]\n"
    "\n"
    "Trains the overlap-aware latency predictor of the abacus policy (docs/abacus.md) for the\n"
    "models and GPU of SCENARIO: draws N operator groups (default 2000) by Abacus's instance-based\n"
    "sampling, measures each on the simulated GPU (its slices launched together on an idle GPU),\n"
    "fits an MLP of 3 hidden layers of 32 on 80 % of them and reports its error on the held-out 20 %,\n"
    "by group size. The scenario's policy is not used (a predictor file it names need not exist yet).\n"
    "The same scenario, N, seed and epochs give the same file, byte for byte.\n"
    "With --device, each group is measured on that native device instead: its slices of the models'\n"
    "native implementations (`native: NAME` in every profile), one hardware queue each, submitted\n"
    "together on the idle device and timed to the last completion, the median of --repeats runs.\n"
    "Measured latencies vary from run to run, so the file does too.\n"
    "\n"
    "  -o PRED.yaml       where to write the predictor (plain YAML); '-' for stdout\n"
    "  --samples N        groups drawn, training and held-out together (default 2000)\n"
    "  --seed S           the sampling's and the training's seed (shorthand for --set seed=S)\n"
    "  --epochs N         passes over the training split (default 300)\n"
    "  --set PATH=VALUE   override a value of the scenario\n"
    "  --device D         measure the groups on native device D instead of the simulator\n"
    "  --repeats N        runs of each group on the device, the median kept (default 5)\n"
    "\n"
    "exit: 0 trained; 2 bad input (including a model without a native implementation under --device),\n"
    "or the file could not be written; 4 the device is unavailable.\n"};

static int parse_u32(const atoll_subcommand *cmd, const char *opt, const char *v, uint32_t lo, uint32_t *out) {
  uint64_t n;
  if (!atoll_cli_parse_uint(v, lo, 10000000, &n))
    return atoll_cli_usage_error(cmd, "%s needs an integer from %" PRIu32 " to 10000000", opt, lo);
  *out = (uint32_t)n;
  return 0;
}

int atoll_cmd_train_predictor(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_train_predictor_def;
  atoll_run_opts o;
  static const char *const extra[] = {"-o", "--samples", "--epochs", "--device", "--repeats"};
  const char *vals[5] = {NULL};
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 5, true, &rc))
    return rc;
  if (!vals[0])
    return atoll_cli_usage_error(cmd, "-o PRED.yaml is required");
  atoll_predictor_train_opts t = {.samples = 2000, .epochs = 300, .test_fraction = 0.2};
  if (vals[1] && (rc = parse_u32(cmd, "--samples", vals[1], 10, &t.samples)))
    return rc;
  if (vals[2] && (rc = parse_u32(cmd, "--epochs", vals[2], 1, &t.epochs)))
    return rc;
  uint32_t repeats = 5;
  if (vals[4] && (rc = parse_u32(cmd, "--repeats", vals[4], 1, &repeats)))
    return rc;
  if (repeats > 64)
    return atoll_cli_usage_error(cmd, "--repeats needs an integer from 1 to 64");
  if (vals[4] && !vals[3])
    return atoll_cli_usage_error(cmd, "--repeats applies to --device only");
  /* The policy is irrelevant here, and abacus's may name the very file being trained. */
  atoll_cli_force_set(&o, (atoll_set_override){.text = "policy=fcfs"});
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (s.n_models > ATOLL_PRED_MAX_MODELS) {
    atoll_arena_free(&a);
    return atoll_cli_usage_error(cmd, "a predictor covers at most %d models; the scenario has %" PRIu32,
                                 ATOLL_PRED_MAX_MODELS, s.n_models);
  }
  t.seed = s.seed;
  /* On a native device only the measurement of a group changes: the sampling and training are the
   * simulator's, so the two predictors differ only by their ground truth. */
  const atoll_nmodel *nm[ATOLL_PRED_MAX_MODELS] = {NULL};
  atoll_ngroup_timer *timer = NULL;
  if (vals[3]) {
    if ((rc = atoll__native_models(&s, nm))) {
      fprintf(stderr, "atoll train-predictor: --device %s measures groups of the models' native implementations: "
              "every model of the scenario needs one\n", vals[3]);
      atoll_arena_free(&a);
      return rc;
    }
    char err[512] = "";
    atoll_native_opts no = {.device = vals[3], .nmodels = nm};
    if ((rc = atoll_ngroup_timer_open(&timer, &s, &no, repeats, err, sizeof err))) {
      atoll_arena_free(&a);
      return atoll__native_fail("train-predictor", rc == ATOLL_EIO ? ATOLL_EINVAL : rc, err);
    }
    t.measure = atoll_ngroup_time, t.measure_ctx = timer;
  }
  atoll_predictor p;
  atoll_predictor_eval e;
  rc = atoll_predictor_train_sim(&s, &t, &p, &e);
  atoll_ngroup_timer_close(timer);
  if (rc) {
    fprintf(stderr, "atoll train-predictor: %s\n", atoll_strerror(rc));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  bool to_stdout = strcmp(vals[0], "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(vals[0], "w");
  int wrc = f ? atoll_predictor_write(&p, f) : ATOLL_EIO;
  if (f && !to_stdout && fclose(f) != 0)
    wrc = ATOLL_EIO;
  if (wrc) {
    fprintf(stderr, "atoll train-predictor: cannot write '%s'\n", vals[0]);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  FILE *msg = to_stdout ? stderr : stdout;
  fprintf(msg, "trained on %" PRIu32 " groups, held out %" PRIu32 " (seed %llu, %" PRIu32 " epochs)", p.train_samples,
          p.test_samples, (unsigned long long)s.seed, t.epochs);
  if (vals[3])
    fprintf(msg, ", measured on native device %s (median of %" PRIu32 ")", vals[3], repeats);
  fprintf(msg, "\n");
  static const char *const size_name[] = {"all", "single", "pairs", "triplets", "quads"};
  for (uint32_t k = 0; k <= ATOLL_GROUP_MAX; k++)
    if (e.n[k])
      fprintf(msg, "held-out MAPE %-9s %6.2f %%  (%" PRIu32 " groups)\n", size_name[k], 100 * e.mape[k], e.n[k]);
  fprintf(msg, "held-out p99 |error|   %.1f us\n", e.p99_abs_err_us);
  atoll_arena_free(&a);
  return ATOLL_EXIT_OK;
}
