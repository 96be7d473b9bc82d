/* atoll calibrate: fit a GPU preset's free timing parameter to measured model latencies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/calibrate.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"

const atoll_subcommand atoll_cmd_calibrate_def = {
    "calibrate", atoll_cmd_calibrate, "fit a GPU preset's timing to measured model latencies",
    "usage: atoll calibrate GPU PROFILE.yaml... [--markdown] [--report] [--csv FILE]\n"
    "                       [--device-times | --launch-bound] [--grid FILE [--grid-us LS0:LS1:CP0:CP1]]\n"
    "\n"
    "Simulates each model profile alone on GPU (a preset name or file) and fits the preset's two free\n"
    "parameters, launch_sync_us (the launch + synchronisation cost inside every isolated timing, of a\n"
    "kernel or of a whole model) and cp_dispatch_us (the gap between back-to-back kernels), to the\n"
    "profiles' measured model latencies: the values that minimize the largest relative error.\n"
    "Prints, per model, measured and simulated latency, the error, and the leave-one-out error (fitted\n"
    "without that model). Models that no physical model can reconcile are excepted, with the arithmetic.\n"
    "docs/calibration.md is this command's --markdown output.\n"
    "\n"
    "  --report        also cross-validate: each model predicted by the fit without it (leave-one-out)\n"
    "                  and by the fit without its fold (3-fold: the reconcilable models dealt in turn\n"
    "                  into 3 folds); prints each model's errors and the largest and mean of each\n"
    "  --csv FILE      write one row per model (measured, simulated, errors, fold) for\n"
    "                  `tools/plot calibration FILE -o PNG`, the fit-quality plot (implies --report)\n"
    "  --device-times  the profiles' kernel times are device durations (atoll import torch-trace) and\n"
    "                  measured_latency_us is GPU-only (a CUDA graph): launch_sync_us is 0 and only\n"
    "                  cp_dispatch_us is fitted (docs/gpus.md)\n"
    "  --launch-bound  fit host_launch_us, the host's cost per launch that the launch-bound mode\n"
    "                  charges, to the profiles' measured_eager_latency_us; other costs as in GPU\n"
    "  --grid FILE     also write each model's simulated latency as measured at every point of a 0.1 us\n"
    "                  grid of launch_sync_us LS0..LS1 and cp_dispatch_us CP0..CP1 (--grid-us, in us;\n"
    "                  default 8:18:0:10), one CSV row each, for tools/calibration-structure.py --grid\n"
    "  FILE '-' is standard output, the tables then left off it; a FILE is written whole or not at all\n"
    "\n"
    "exit: 0 every reconcilable model within 5% fitted and 10% leave-one-out (--device-times: 10% and\n"
    "15%; --launch-bound: 15% and 15%); 1 otherwise; 2 bad input.\n"};

static void refit_text(const atoll_calib *c, const atoll_calib_model *m, char *buf, size_t size) {
  if (c->mode == ATOLL_CALIB_ISOLATED)
    snprintf(buf, size, "%+.1f%% (%.1f / %.1f us)", m->loo_error * 100, m->loo_launch_sync_ns / 1e3,
             m->loo_cp_dispatch_ns / 1e3);
  else
    snprintf(buf, size, "%+.1f%% (%.1f us)", m->loo_error * 100,
             (c->mode == ATOLL_CALIB_DEVICE ? m->loo_cp_dispatch_ns : m->loo_host_launch_ns) / 1e3);
}

static void print_fitted(const atoll_calib *c, bool md) {
  const char *lead = md ? "\n" : "";
  if (c->mode == ATOLL_CALIB_ISOLATED)
    printf("%sfitted launch_sync_us = %.1f, cp_dispatch_us = %.1f", lead, c->launch_sync_ns / 1e3, c->cp_dispatch_ns / 1e3);
  else if (c->mode == ATOLL_CALIB_DEVICE)
    printf("%sdevice times: launch_sync_us = 0; fitted cp_dispatch_us = %.1f", lead, c->cp_dispatch_ns / 1e3);
  else
    printf("%slaunch-bound: fitted host_launch_us = %.1f", lead, c->host_launch_ns / 1e3);
  printf(" (scanned 0..%.0f us, 1 us then 0.1 us grid); largest error over reconcilable models %.1f%%\n",
         c->max_ns / 1e3, c->max_abs_error * 100);
}

static void print_table(const atoll_calib *c, const atoll_calib_model *ms, uint32_t n, bool md) {
  const char *refit = c->mode == ATOLL_CALIB_ISOLATED ? "refit launch_sync / cp_dispatch"
                      : c->mode == ATOLL_CALIB_DEVICE ? "refit cp_dispatch"
                                                      : "refit host_launch";
  if (md) {
    printf("| model | kernels | measured (us) | simulated, as measured (us) | error | leave-one-out error (%s) |\n", refit);
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
    else if (isnan(m->loo_error))
      snprintf(loo, sizeof loo, "none (no other model to refit on)");
    else
      refit_text(c, m, loo, sizeof loo);
    double measured = atoll_calib_measured_ns(m->model, c->mode) / 1e3;
    if (md)
      printf("| %s | %u | %.0f | %.0f | %+.1f%% | %s |\n", m->model->name, st.kernels, measured, m->simulated_ns / 1e3,
             m->error * 100, loo);
    else
      printf("%-14s %7u %13.0f %14.0f %+7.1f%% %s\n", m->model->name, st.kernels, measured, m->simulated_ns / 1e3,
             m->error * 100, loo);
  }
  print_fitted(c, md);
  for (uint32_t i = 0; i < n; i++)
    if (ms[i].irreconcilable)
      printf("%sexcepted %s: %s\n", md ? "\n" : "", ms[i].model->name, ms[i].why);
}

enum { KFOLD = 3 };

static void held_out_text(char *buf, size_t size, double error) {
  if (isnan(error))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, "%+.1f%%", error * 100);
}

static void summarize(const char *what, const atoll_calib_model *ms, uint32_t n, bool loo, bool md) {
  double worst = 0, sum = 0;
  uint32_t k = 0;
  const char *at = "-";
  for (uint32_t i = 0; i < n; i++) {
    double e = loo ? ms[i].loo_error : ms[i].kfold_error;
    if (ms[i].irreconcilable || isnan(e))
      continue;
    sum += fabs(e), k++;
    if (fabs(e) >= worst)
      worst = fabs(e), at = ms[i].model->name;
  }
  printf("%s%s: largest |error| %.2f%% (%s), mean |error| %.2f%% over %u models\n", md ? "\n" : "", what,
         worst * 100, at, k ? sum / k * 100 : 0.0, k);
}

/* Cross-validation: each model's leave-one-out and k-fold errors, then their largest and mean. */
static void print_report(const atoll_calib_model *ms, uint32_t n, uint32_t folds, bool md) {
  if (md) {
    printf("\n| model | fold | fitted error | leave-one-out error | %u-fold error |\n|---|---|---|---|---|\n", folds);
  } else {
    char head[16];
    snprintf(head, sizeof head, "%u-fold", folds);
    printf("\ncross-validation\n%-14s %5s %9s %9s %9s\n", "model", "fold", "fitted", "loo", head);
  }
  for (uint32_t i = 0; i < n; i++) {
    const atoll_calib_model *m = &ms[i];
    if (m->irreconcilable) {
      if (md)
        printf("| %s | - | %+.1f%% | excepted | excepted |\n", m->model->name, m->error * 100);
      else
        printf("%-14s %5s %+8.1f%% %9s %9s\n", m->model->name, "-", m->error * 100, "excepted", "excepted");
      continue;
    }
    char loo[16], kfold[16]; /* "-" where a held-out fit had no model to fit on (NaN) */
    held_out_text(loo, sizeof loo, m->loo_error);
    held_out_text(kfold, sizeof kfold, m->kfold_error);
    if (md)
      printf("| %s | %u | %+.1f%% | %s | %s |\n", m->model->name, m->fold + 1, m->error * 100, loo, kfold);
    else
      printf("%-14s %5u %+8.1f%% %9s %9s\n", m->model->name, m->fold + 1, m->error * 100, loo, kfold);
  }
  summarize("leave-one-out", ms, n, true, md);
  char what[32];
  snprintf(what, sizeof what, "%u-fold", folds);
  summarize(what, ms, n, false, md);
}

static int write_csv(FILE *f, const atoll_calib *c, const atoll_calib_model *ms, uint32_t n) {
  fprintf(f, "model,kernels,measured_us,simulated_us,error,loo_error,kfold_error,fold,excepted\n");
  for (uint32_t i = 0; i < n; i++) {
    const atoll_calib_model *m = &ms[i];
    atoll_model_stats st;
    atoll_model_stats_compute(m->model, &st);
    fprintf(f, "%s,%u,%.1f,%.1f,%.5f,", m->model->name, st.kernels, atoll_calib_measured_ns(m->model, c->mode) / 1e3,
            m->simulated_ns / 1e3, m->error);
    if (m->irreconcilable) {
      fprintf(f, ",,,1\n");
    } else {
      /* An error with no model to fit on (NaN) is an empty field, as an excepted model's are. */
      for (int k = 0; k < 2; k++) {
        double e = k ? m->kfold_error : m->loo_error;
        if (!isnan(e))
          fprintf(f, "%.5f", e);
        fputc(',', f);
      }
      fprintf(f, "%u,0\n", m->fold + 1);
    }
  }
  return 0;
}

/* --grid: every model at every point of the window, 0.1 us apart, as the ISOLATED fit sees it. */
static int write_grid(FILE *f, const atoll_gpu *g, const atoll_calib_model *ms, uint32_t n,
                      const int64_t win[4], atoll_calib_memo *memo) {
  fprintf(f, "model,launch_sync_us,cp_dispatch_us,simulated_us\n");
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < n; i++)
    for (int64_t ls = win[0]; rc == 0 && ls <= win[1]; ls += 100)
      for (int64_t cp = win[2]; rc == 0 && cp <= win[3]; cp += 100) {
        int64_t t;
        rc = atoll_calib_as_measured_kept(g, memo, i, ms[i].model, ls, cp, &t);
        if (rc == 0)
          fprintf(f, "%s,%.1f,%.1f,%.3f\n", ms[i].model->name, ls / 1e3, cp / 1e3, t / 1e3);
      }
  return rc;
}

/* What the outputs' callbacks (atoll_cli_write_file) need. */
typedef struct calib_outputs {
  const atoll_calib *c;
  const atoll_gpu *g;
  const atoll_calib_model *ms;
  uint32_t n;
  const int64_t *win;
  atoll_calib_memo *memo;
} calib_outputs;

static int csv_output(FILE *f, const void *ctx) {
  const calib_outputs *o = ctx;
  return write_csv(f, o->c, o->ms, o->n);
}

static int grid_output(FILE *f, const void *ctx) {
  const calib_outputs *o = ctx;
  return write_grid(f, o->g, o->ms, o->n, o->win, o->memo);
}

/* "LS0:LS1:CP0:CP1" in us, each a multiple of 0.1 us from 0 to 1000, LS0 <= LS1 and CP0 <= CP1. */
static bool parse_window(const char *s, int64_t win[4]) {
  double v[4];
  char tail;
  if (sscanf(s, "%lf:%lf:%lf:%lf%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4)
    return false;
  for (int i = 0; i < 4; i++) {
    if (!(v[i] >= 0 && v[i] <= 1000))
      return false;
    win[i] = (int64_t)llround(v[i] * 10) * 100;
    if (fabs(win[i] / 1e3 - v[i]) > 1e-6)
      return false;
  }
  return win[0] <= win[1] && win[2] <= win[3];
}

int atoll_cmd_calibrate(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_calibrate_def;
  atoll_run_opts o;
  bool md = false, report = false;
  const char *csv = NULL, *grid = NULL, *grid_us = "8:18:0:10";
  atoll_calib_mode mode = ATOLL_CALIB_ISOLATED;
  int kept = 1;
  bool device_times = false, launch_bound = false, grid_us_given = false;
  for (int i = 1; i < argc; i++) { /* flags and this command's valued options; the parser takes the rest */
    const char **value = strcmp(argv[i], "--csv") == 0       ? &csv
                         : strcmp(argv[i], "--grid") == 0    ? &grid
                         : strcmp(argv[i], "--grid-us") == 0 ? &grid_us
                                                             : NULL;
    if (value) {
      if (i + 1 == argc)
        return atoll_cli_usage_error(cmd, "%s needs a value", argv[i]);
      grid_us_given = grid_us_given || value == &grid_us;
      report = report || value == &csv;
      *value = argv[++i];
    } else if (strcmp(argv[i], "--markdown") == 0) {
      md = true;
    } else if (strcmp(argv[i], "--report") == 0) {
      report = true;
    } else if (strcmp(argv[i], "--device-times") == 0) {
      device_times = true, mode = ATOLL_CALIB_DEVICE;
    } else if (strcmp(argv[i], "--launch-bound") == 0) {
      launch_bound = true, mode = ATOLL_CALIB_LAUNCH;
    } else {
      argv[kept++] = argv[i];
    }
  }
  if (device_times && launch_bound)
    return atoll_cli_usage_error(cmd, "--device-times and --launch-bound exclude each other");
  if (grid_us_given && !grid)
    return atoll_cli_usage_error(cmd, "--grid-us sets the window of --grid FILE; give it with --grid");
  int64_t window[4];
  if (grid && mode != ATOLL_CALIB_ISOLATED)
    return atoll_cli_usage_error(cmd, "--grid tabulates launch_sync_us and cp_dispatch_us: not with %s",
                                 mode == ATOLL_CALIB_DEVICE ? "--device-times" : "--launch-bound");
  if (!parse_window(grid_us, window))
    return atoll_cli_usage_error(cmd, "--grid-us '%s': expected LS0:LS1:CP0:CP1 in us, multiples of 0.1 from 0 "
                                 "to 1000, LS0 <= LS1 and CP0 <= CP1", grid_us);
  int rc;
  if (!atoll_cli_parse_or_help(cmd, kept, argv, &o, NULL, NULL, 0, false, &rc))
    return rc;
  if (o.n_positional < 2)
    return atoll_cli_usage_error(cmd, "expected a GPU and at least one PROFILE.yaml");
  /* Checked before the fit, which can take minutes: a CSV or grid over a profile or each other
   * replaced what it was computed from. One on standard output keeps the tables off it. */
  static const char *const outputs[] = {"--csv", "--grid"};
  const char *paths[] = {csv, grid};
  bool output_stdout;
  if ((rc = atoll_cli_check_outputs(cmd, paths, outputs, 2, o.positional, o.n_positional, &output_stdout)))
    return rc;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  const char *gname = o.positional[0];
  const char *gpath = strchr(gname, '/') ? gname : atoll_gpu_find_preset(&a, gname, ".");
  atoll_gpu g;
  if (!gpath) {
    const char *near = atoll_gpu_suggest_preset(&a, gname, ".");
    char hint[96] = "";
    if (near)
      snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    int urc = atoll_cli_usage_error(cmd, "unknown GPU preset '%s'%s", gname, hint);
    atoll_arena_free(&a);
    return urc;
  }
  uint32_t n = o.n_positional - 1;
  atoll_model *models = atoll_arena_calloc(&a, n, sizeof *models);
  atoll_calib_model *cms = atoll_arena_calloc(&a, n, sizeof *cms);
  rc = atoll_gpu_load_file(&a, gpath, &g, &d);
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    rc = atoll_model_load_file(&a, o.positional[i + 1], &g, &models[i], &d);
    if (rc == 0 && atoll_calib_measured_ns(&models[i], mode) <= 0) {
      atoll_diag_set(&d, NULL, 0, 0, NULL, "%s: no %s to calibrate against", o.positional[i + 1],
                     mode == ATOLL_CALIB_LAUNCH ? "measured_eager_latency_us" : "measured_latency_us");
      rc = ATOLL_EINVAL;
    }
    /* A model given twice would be fitted with its own copy while held out: leave-one-out says
     * nothing then, and the fit weighs it double. */
    for (uint32_t j = 0; rc == 0 && j < i; j++)
      if (strcmp(models[j].name, models[i].name) == 0) {
        atoll_diag_set(&d, NULL, 0, 0, NULL, "%s: model '%s' is given twice (also %s); each model once",
                       o.positional[i + 1], models[i].name, o.positional[j + 1]);
        rc = ATOLL_EINVAL;
      }
    cms[i].model = &models[i];
  }
  if (rc) {
    atoll_arena_free(&a);
    return atoll_cli_report(&d);
  }
  atoll_calib c;
  /* Eager host costs reach tens of us per launch (docs/gpus.md): a wider scan for them. */
  int64_t max_ns = mode == ATOLL_CALIB_LAUNCH ? 100000 : 30000;
  /* One memo for the fit, its folds and the grid: each point of a model is simulated once. */
  atoll_calib_memo *memo = atoll_calib_memo_create(mode, n, max_ns);
  rc = memo ? atoll_calibrate_mode(&g, cms, n, max_ns, mode, memo, &c) : ATOLL_ENOMEM;
  if (rc) {
    fprintf(stderr, "atoll calibrate: %s\n", atoll_strerror(rc));
    goto bad;
  }
  calib_outputs outs = {.c = &c, .g = &g, .ms = cms, .n = n, .win = window, .memo = memo};
  if (!output_stdout)
    print_table(&c, cms, n, md);
  if (report) {
    uint32_t folds = 0;
    rc = atoll_calib_kfold(&g, cms, n, max_ns, mode, KFOLD, memo, &folds);
    if (rc) {
      fprintf(stderr, "atoll calibrate: cross-validation: %s\n", atoll_strerror(rc));
      goto bad;
    }
    if (!output_stdout)
      print_report(cms, n, folds, md);
    if (csv && atoll_cli_write_file(csv, csv_output, &outs) != 0)
      goto bad;
  }
  if (grid && atoll_cli_write_file(grid, grid_output, &outs) != 0)
    goto bad;
  atoll_calib_memo_destroy(memo);
  int exit_code = ATOLL_EXIT_OK;
  double fitted_max = mode == ATOLL_CALIB_ISOLATED ? 0.05 : mode == ATOLL_CALIB_DEVICE ? 0.10 : 0.15;
  double loo_max = mode == ATOLL_CALIB_ISOLATED ? 0.10 : 0.15;
  for (uint32_t i = 0; i < n; i++)
    if (!cms[i].irreconcilable && (fabs(cms[i].error) > fitted_max || fabs(cms[i].loo_error) > loo_max))
      exit_code = ATOLL_EXIT_VIOLATED;
  atoll_arena_free(&a);
  return exit_code;
bad:
  atoll_calib_memo_destroy(memo);
  atoll_arena_free(&a);
  return ATOLL_EXIT_BAD_INPUT;
}
