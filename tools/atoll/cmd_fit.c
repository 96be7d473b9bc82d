/* atoll fit inss SCENARIO -o MODEL.yaml: fits InSS's interference-aware latency model for the
 * scenario's models on its simulated GPU (docs/inss.md): the solo batch x share grid, then the
 * scheduling-interference coefficients by least squares on half of the co-location sets, the other
 * half held out. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/inss_io.h"
#include "sim/inss_fit.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_fit_def = {
    "fit", atoll_cmd_fit, "fit InSS's interference-aware latency model",
    "usage: atoll fit inss SCENARIO -o MODEL.yaml [--set PATH=VALUE]...\n"
    "\n"
    "Fits InSS's latency model (docs/inss.md) for the models and GPU of SCENARIO on the simulated\n"
    "GPU: each model's solo running time over batches 1-32 x shares 5-100 % (42 runs), read by\n"
    "locally weighted regression; then 24 co-location sets (2-4 models with random shares and\n"
    "batches, from the scenario's seed), the even ones fitting the scheduling interference\n"
    "int = alpha_s x co-located + beta_s per kernel by least squares, the odd ones held out. Prints\n"
    "every set's observed and predicted latencies and the error on each half (MAPE). The\n"
    "scenario's policy is not used. The same scenario gives the same file, byte for byte.\n"
    "\n"
    "  -o MODEL.yaml      where to write the model (plain YAML); '-' for stdout\n"
    "  --set PATH=VALUE   override a value of the scenario\n"
    "\n"
    "exit: 0 fitted; 2 bad input, or the file could not be written.\n"};

int atoll_cmd_fit(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_fit_def;
  atoll_run_opts o;
  static const char *const extra[] = {"-o"};
  const char *vals[1] = {NULL};
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 1, true, &rc))
    return rc;
  if (o.n_positional < 1 || strcmp(o.positional[0], "inss") != 0)
    return atoll_cli_usage_error(cmd, "expected 'inss SCENARIO' (the one model it fits)");
  if (!vals[0])
    return atoll_cli_usage_error(cmd, "-o MODEL.yaml is required");
  o.positional[0] = o.positional[1];
  o.n_positional--;
  /* The policy is irrelevant here, and inss's may name the very file being fitted. */
  if (o.n_sets < sizeof o.sets / sizeof o.sets[0])
    o.sets[o.n_sets++] = (atoll_set_override){.text = "policy=mps-static"};
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  atoll_inss_model *m = malloc(sizeof *m);
  atoll_inss_fit_report *rep = malloc(sizeof *rep);
  int err = m && rep ? atoll_sim_inss_fit(&s, m, rep) : ATOLL_ENOMEM;
  if (err) {
    fprintf(stderr, "atoll fit: %s\n", atoll_strerror(err));
    rc = ATOLL_EXIT_BAD_INPUT;
  } else {
    printf("InSS model for %s on %s: alpha_s %.1f ns, beta_s %.1f ns per kernel, alpha_cache 0 (no L2 term)\n",
           s.path, s.gpu.name, m->alpha_s_ns, m->beta_s_ns);
    printf("%-4s %-5s %-14s %5s %5s %12s %12s %8s\n", "set", "split", "model", "pct", "batch", "observed_us",
           "predicted_us", "error_%");
    for (uint32_t j = 0; j < rep->n_sets; j++) {
      const atoll_inss_coloc *c = &rep->sets[j];
      for (uint32_t k = 0; k < c->n; k++)
        printf("%-4" PRIu32 " %-5s %-14s %5" PRIu32 " %5" PRIu32 " %12.1f %12.1f %8.2f\n", j, c->train ? "fit" : "test",
               m->prof[c->slot[k].prof].name, c->slot[k].pct, c->slot[k].batch, c->observed_ns[k] / 1e3,
               c->predicted_ns[k] / 1e3, 100.0 * (c->predicted_ns[k] - c->observed_ns[k]) / c->observed_ns[k]);
    }
    printf("solo LWR leave-one-out MAPE %.2f %%\n", rep->mape_solo_pct);
    printf("co-located MAPE: fit %.2f %% (%" PRIu32 " samples), held out %.2f %% (%" PRIu32 " samples)\n",
           rep->mape_train_pct, rep->n_train, rep->mape_test_pct, rep->n_test);
    char note[160];
    snprintf(note, sizeof note, "fitted on the simulated %s; held-out co-located MAPE %.2f %%", s.gpu.name,
             rep->mape_test_pct);
    FILE *f = strcmp(vals[0], "-") == 0 ? stdout : fopen(vals[0], "w");
    if (!f || atoll_inss_model_write(m, note, f) != 0) {
      fprintf(stderr, "atoll fit: cannot write '%s'\n", vals[0]);
      rc = ATOLL_EXIT_BAD_INPUT;
    }
    if (f && f != stdout && fclose(f) != 0 && rc == 0) {
      fprintf(stderr, "atoll fit: cannot write '%s'\n", vals[0]);
      rc = ATOLL_EXIT_BAD_INPUT;
    }
  }
  free(m);
  free(rep);
  atoll_arena_free(&a);
  return rc;
}
