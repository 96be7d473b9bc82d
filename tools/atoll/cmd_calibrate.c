/* atoll calibrate: fit a GPU preset's free timing parameter to measured model latencies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "calibrate.h"
#include "cli.h"

const atoll_subcommand atoll_cmd_calibrate_def = {
    "calibrate", atoll_cmd_calibrate, "fit a GPU preset's timing to measured model latencies",
    "usage: atoll calibrate GPU PROFILE.yaml... [--markdown]\n"
    "\n"
    "Simulates each model profile alone on GPU (a preset name or file) and fits the preset's two free\n"
    "parameters, launch_sync_us (the launch + synchronisation cost inside every isolated timing, of a\n"
    "kernel or of a whole model) and cp_dispatch_us (the gap between back-to-back kernels), to the\n"
    "profiles' measured model latencies: the values that minimize the largest relative error.\n"
    "Prints, per model, measured and simulated latency, the error, and the leave-one-out error (fitted\n"
    "without that model). Models that no physical model can reconcile are excepted, with the arithmetic.\n"
    "docs/calibration.md is this command's --markdown output.\n"
    "\n"
    "exit: 0 every reconcilable model within 5% fitted and 10% leave-one-out; 1 otherwise; 2 bad input.\n"};

static void print_table(const atoll_calib *c, const atoll_calib_model *ms, uint32_t n, bool md) {
  if (md) {
    printf("| model | kernels | measured (us) | simulated, as measured (us) | error | leave-one-out error (refit launch_sync / cp_dispatch) |\n");
    printf("|---|---|---|---|---|---|\n");
  } else {
    printf("%-14s %7s %13s %14s %8s %10s\n", "model", "kernels", "measured us", "simulated us", "error", "loo error");
  }
  for (uint32_t i = 0; i < n; i++) {
    const atoll_calib_model *m = &ms[i];
    atoll_model_stats st;
    atoll_model_stats_compute(m->model, &st);
    char loo[96];
    if (m->irreconcilable)
      snprintf(loo, sizeof loo, "excepted");
    else
      snprintf(loo, sizeof loo, "%+.1f%% (%.1f / %.1f us)", m->loo_error * 100, m->loo_launch_sync_ns / 1e3,
               m->loo_cp_dispatch_ns / 1e3);
    if (md)
      printf("| %s | %u | %.0f | %.0f | %+.1f%% | %s |\n", m->model->name, st.kernels,
             m->model->measured_latency_ns / 1e3, m->simulated_ns / 1e3, m->error * 100, loo);
    else
      printf("%-14s %7u %13.0f %14.0f %+7.1f%% %s\n", m->model->name, st.kernels, m->model->measured_latency_ns / 1e3,
             m->simulated_ns / 1e3, m->error * 100, loo);
  }
  printf("%sfitted launch_sync_us = %.1f, cp_dispatch_us = %.1f (scanned 0..%.0f us, 1 us then 0.1 us grid); "
         "largest error over reconcilable models %.1f%%\n",
         md ? "\n" : "", c->launch_sync_ns / 1e3, c->cp_dispatch_ns / 1e3, c->max_ns / 1e3, c->max_abs_error * 100);
  for (uint32_t i = 0; i < n; i++)
    if (ms[i].irreconcilable)
      printf("%sexcepted %s: %s\n", md ? "\n" : "", ms[i].model->name, ms[i].why);
}

int atoll_cmd_calibrate(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_calibrate_def;
  atoll_run_opts o;
  bool md = false;
  int kept = 1;
  for (int i = 1; i < argc; i++) /* --markdown is a flag; the parser takes valued options only */
    if (strcmp(argv[i], "--markdown") == 0)
      md = true;
    else
      argv[kept++] = argv[i];
  int rc = atoll_cli_parse(cmd, kept, argv, &o, NULL, NULL, 0, false);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  if (o.n_positional < 2)
    return atoll_cli_usage_error(cmd, "expected a GPU and at least one PROFILE.yaml");
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  const char *gname = o.positional[0];
  const char *gpath = strchr(gname, '/') ? gname : atoll_gpu_find_preset(&a, gname, ".");
  atoll_gpu g;
  if (!gpath) {
    atoll_arena_free(&a);
    return atoll_cli_usage_error(cmd, "unknown GPU preset '%s'", gname);
  }
  uint32_t n = o.n_positional - 1;
  atoll_model *models = atoll_arena_calloc(&a, n, sizeof *models);
  atoll_calib_model *cms = atoll_arena_calloc(&a, n, sizeof *cms);
  rc = atoll_gpu_load_file(&a, gpath, &g, &d);
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    rc = atoll_model_load_file(&a, o.positional[i + 1], &g, &models[i], &d);
    if (rc == 0 && models[i].measured_latency_ns <= 0) {
      atoll_diag_set(&d, NULL, 0, 0, NULL, "%s: no measured_latency_us to calibrate against", o.positional[i + 1]);
      rc = ATOLL_EINVAL;
    }
    cms[i].model = &models[i];
  }
  if (rc) {
    atoll_arena_free(&a);
    return atoll_cli_report(&d);
  }
  atoll_calib c;
  rc = atoll_calibrate(&g, cms, n, 30000, &c);
  if (rc) {
    fprintf(stderr, "atoll calibrate: %s\n", atoll_strerror(rc));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  print_table(&c, cms, n, md);
  int exit_code = ATOLL_EXIT_OK;
  for (uint32_t i = 0; i < n; i++)
    if (!cms[i].irreconcilable && (fabs(cms[i].error) > 0.05 || fabs(cms[i].loo_error) > 0.10))
      exit_code = ATOLL_EXIT_VIOLATED;
  atoll_arena_free(&a);
  return exit_code;
}
