/* atoll fit inss SCENARIO -o MODEL.yaml [--device D]: fits InSS's interference-aware latency model
 * for the scenario's models on its simulated GPU, or from runs on a native device (docs/inss.md):
 * the solo batch x share grid, then the interference coefficients by least squares on half of the
 * co-location sets, the other half held out. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/inss_io.h"
#include "native/cpu/cpu_backend.h"
#include "sim/inss_fit.h"
#include "tools/atoll/inss_native.h"
#include "tools/atoll/measure_awake.h"
#include "tools/atoll/measure_priority.h"
#include "tools/atoll/native_cli.h"
#include "tools/atoll/report_out.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_fit_def = {
    "fit", atoll_cmd_fit, "fit InSS's interference-aware latency model",
    "usage: atoll fit inss SCENARIO -o MODEL.yaml [--device cpu|cpu-gpu|cuda|hip] [--cus N] [--pin]\n"
    "                [--nice N] [--keep-awake N] [--seed N] [--set PATH=VALUE]...\n"
    "\n"
    "Fits InSS's latency model (docs/inss.md) for the models and GPU of SCENARIO on the simulated\n"
    "GPU: each model's solo running time over batches 1-32 x shares 5-100 % (42 runs), read by\n"
    "locally weighted regression; then 24 co-location sets (2-4 models with random shares and\n"
    "batches, from the scenario's seed), the even ones fitting the scheduling interference\n"
    "int = alpha_s x co-located + beta_s per kernel by least squares, the odd ones held out. Prints\n"
    "every set's observed and predicted latencies and the error on each half (MAPE). The\n"
    "scenario's policy is not used. The same scenario gives the same file, byte for byte.\n"
    "\n"
    "With --device the runs are measured on a native device instead (every model needs `native:`):\n"
    "batches 1-4 on every whole number of its CUs, then 16 co-location sets of models on disjoint\n"
    "CUs at batches 1-4, 10 batches each, in 3 rounds (each figure the least of its rounds; one\n"
    "whose measurements differ by over 1.25x is measured again, up to 5 measurements in all; a\n"
    "batch that queued behind the one before, or ran while another process held a CU worker's\n"
    "CPU, is not counted), at nice -20 where the system allows it (--nice), with a loop per CPU at\n"
    "nice 19 keeping the CPUs out of their idle state (--keep-awake); the cache term\n"
    "alpha_cache is fitted too, each model's L2 line its memory traffic alone (docs/inss.md,\n"
    "\"Native\"). Measured, so not repeatable.\n"
    "\n"
    "  -o MODEL.yaml      where to write the model (plain YAML); '-' for stdout (the report then goes to\n"
    "                     stderr)\n"
    "  --device D         fit on a native device (cpu: the CPU back-end's CU workers)\n"
    "  --cus N            the native device's CUs (2-4, default 2: one per CPU of a 2-CPU machine)\n"
    "  --pin              pin the native device's CU workers to CPUs\n"
    "  --sets N           native: co-location sets (2-24, default 16; half of them held out)\n"
    "  --batches N        native: batches per client in each run (3-64, the first not counted;\n"
    "                     default 6 solo, 10 co-located): fewer for a quick, rougher fit\n"
    "  --nice N           native: the measurement's nice value (-20..19, default -20, the highest\n"
    "                     priority, so that other processes' load takes less of its CPUs; where\n"
    "                     the system refuses it, the highest allowed; the output says which)\n"
    "  --keep-awake N     native: N loops at nice 19 that keep the CPUs running while the fit\n"
    "                     measures, so that a thread woken on an idle CPU does not wait for the\n"
    "                     host to run it again (default: one per CPU on the cpu and cpu-gpu\n"
    "                     devices, none on a GPU; 0: none; at most 256)\n"
    "  --seed N           the co-location sets' seed (shorthand for --set seed=N)\n"
    "  --set PATH=VALUE   override a value of the scenario\n"
    "\n"
    "exit: 0 fitted; 2 bad input, or the file could not be written.\n"};

/* A native fit measures at the highest priority by default (measure_priority.h): under two busy
 * loops on a 2-CPU machine, one fit at nice 0 left out 5,897 disturbed batches, ran 506 s and
 * missed by 32.8 % held out; the next at nice -20 left out 1,259, ran 133 s and missed by 4.6 %. */
enum { ATOLL_FIT_NICE = -20 };

/* What write_model (atoll_cli_write_file's callback) needs. */
typedef struct model_output {
  const atoll_inss_model *m;
  const char *note;
} model_output;

static int write_model(FILE *f, const void *ctx) {
  const model_output *o = ctx;
  return atoll_inss_model_write(o->m, o->note, f);
}

int atoll_cmd_fit(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_fit_def;
  atoll_run_opts o;
  static const char *const flags[] = {"--pin"};
  bool pin;
  atoll__native_flags(&argc, argv, flags, &pin, 1);
  static const char *const extra[] = {"-o", "--device", "--cus", "--sets", "--batches", "--nice", "--keep-awake"};
  const char *vals[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 7, true, &rc))
    return rc;
  int nice = ATOLL_FIT_NICE;
  uint32_t cus = 2, sets = 16, batches = 0, awake = 0;
  if ((rc = atoll__native_nice(cmd, vals[5], &nice)) ||
      (rc = atoll__native_uint(cmd, "--cus", vals[2], 2, 4, "CUs", &cus)) ||
      (rc = atoll__native_uint(cmd, "--keep-awake", vals[6], 0, ATOLL_MEASURE_AWAKE_MAX, "loops", &awake)) ||
      (rc = atoll__native_uint(cmd, "--sets", vals[3], 2, ATOLL_INSS_FIT_SETS, "sets", &sets)) ||
      (rc = atoll__native_uint(cmd, "--batches", vals[4], 3, ATOLL_INSS_FIT_MAX_RUN, "batches", &batches)))
    return rc;
  if ((vals[2] || vals[3] || vals[4] || vals[5] || vals[6] || pin) && !vals[1])
    return atoll_cli_usage_error(cmd, "--cus, --sets, --batches, --nice, --keep-awake and --pin set up a native fit: "
                                      "give --device");
  /* The CPU back-ends' CU workers are the CPUs themselves: keep them out of the idle state. */
  if (vals[1] && !vals[6] && (strcmp(vals[1], "cpu") == 0 || strcmp(vals[1], "cpu-gpu") == 0))
    awake = atoll_ncpu_online_cpus();
  if (o.n_positional < 1 || strcmp(o.positional[0], "inss") != 0)
    return atoll_cli_usage_error(cmd, "expected 'inss SCENARIO' (the one model it fits)");
  if (!vals[0])
    return atoll_cli_usage_error(cmd, "-o MODEL.yaml is required");
  o.positional[0] = o.positional[1];
  o.n_positional--;
  /* The policy is irrelevant here, and inss's may name the very file being fitted. */
  atoll_cli_force_set(&o, (atoll_set_override){.text = "policy=mps-static"});
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  const atoll_nmodel **nm = NULL;
  atoll_inss_native_ctx nctx = {0};
  atoll_measure_priority prio = {0};
  atoll_measure_awake loops = {0};
  atoll_inss_fit_plan plan;
  uint32_t pcts[4];
  atoll_inss_fit_sim(&plan);
  if (vals[1]) {
    nm = calloc(s.n_models ? s.n_models : 1, sizeof *nm);
    if (!nm || (rc = atoll__native_models(&s, nm))) {
      free(nm);
      atoll_arena_free(&a);
      return nm ? rc : ATOLL_EXIT_BAD_INPUT;
    }
    /* The fit's runs bind clients to CU sets of the scenario's GPU: it has the device's CUs. */
    s.gpu.cus = cus;
    nctx.no = (atoll_native_opts){.device = vals[1], .cus = cus, .pin_threads = pin, .sched_cpu = -1, .nmodels = nm};
    atoll__inss_fit_native(&plan, cus, s.gpu.memory_bytes_per_ns, pcts, &nctx);
    /* Before the first run opens the device: its threads inherit this thread's priority. */
    atoll__measure_priority_raise(nice, &prio);
    atoll__measure_awake_start(awake, &loops);
    plan.n_sets = sets;
    if (batches)
      plan.solo_runs = plan.batches_per_run = batches;
  }
  atoll_inss_model *m = malloc(sizeof *m);
  atoll_inss_fit_report *rep = malloc(sizeof *rep);
  int err = m && rep ? atoll_inss_fit_by(&s, &plan, m, rep) : ATOLL_ENOMEM;
  atoll__measure_awake_stop(&loops); /* joined: its counts are final */
  const uint32_t n_lowered = (uint32_t)loops.lowered;
  if (err) {
    if (vals[1] && nctx.err[0])
      rc = atoll__native_fail("fit", err, nctx.err);
    else {
      fprintf(stderr, "atoll fit: %s\n", atoll_cli_fit_why(&s, err));
      rc = err == ATOLL_ENODEV ? ATOLL_EXIT_NO_DEVICE : ATOLL_EXIT_BAD_INPUT;
    }
  } else {
    /* With the model on standard output (-o -), the report goes to stderr: stdout stays a model. */
    FILE *rep_out = strcmp(vals[0], "-") == 0 ? stderr : stdout;
    if (vals[1]) {
      fprintf(rep_out, "InSS model for %s on native %s (%" PRIu32 " CUs, %" PRIu32 " runs: %" PRIu32 " rounds, %" PRIu32
              " re-measured): alpha_s %.1f ns, beta_s %.1f ns per kernel, alpha_cache %.4g\n",
              s.path, vals[1], cus, nctx.runs, plan.rounds, rep->n_remeasured, m->alpha_s_ns, m->beta_s_ns,
              m->alpha_cache);
      const atoll_inss_disturb_stats *d = &nctx.disturb;
      if (plan.drop_disturbed)
        fprintf(rep_out,
                "disturbed by other processes: %" PRIu32 " batches left out, %" PRIu32 " runs repeated, %" PRIu32
                " figures of disturbed batches only; %" PRIu64 " of %" PRIu64 " blocks descheduled over %d us"
                " (lost: < 20 us %" PRIu64 ", < 100 us %" PRIu64 ", < 300 us %" PRIu64 ", < 1 ms %" PRIu64
                ", more %" PRIu64 ")\n",
                rep->n_disturbed, rep->n_disturbed_reruns, rep->n_disturbed_only, d->lost_blocks, d->blocks,
                ATOLL_INSS_LOST_NS / 1000, d->lost_hist[0], d->lost_hist[1], d->lost_hist[2], d->lost_hist[3],
                d->lost_hist[4]);
      char ptext[160];
      atoll__measure_priority_text(&prio, ptext, sizeof ptext);
      fprintf(rep_out, "measured at %s; ", ptext);
      atoll__measure_awake_print(rep_out, &loops, awake, "keeping");
      fprintf(rep_out, "\n");
    } else
      fprintf(rep_out,
              "InSS model for %s on %s: alpha_s %.1f ns, beta_s %.1f ns per kernel, alpha_cache 0 (no L2 term)\n",
              s.path, s.gpu.name, m->alpha_s_ns, m->beta_s_ns);
    fprintf(rep_out, "%-4s %-5s %-14s %5s %5s %12s %12s %8s\n", "set", "split", "model", "pct", "batch", "observed_us",
            "predicted_us", "error_%");
    for (uint32_t j = 0; j < rep->n_sets; j++) {
      const atoll_inss_coloc *c = &rep->sets[j];
      for (uint32_t k = 0; k < c->n; k++)
        fprintf(rep_out, "%-4" PRIu32 " %-5s %-14s %5" PRIu32 " %5" PRIu32 " %12.1f %12.1f %8.2f\n", j,
                c->train ? "fit" : "test",
                m->prof[c->slot[k].prof].name, c->slot[k].pct, c->slot[k].batch, c->observed_ns[k] / 1e3,
                c->predicted_ns[k] / 1e3, 100.0 * (c->predicted_ns[k] - c->observed_ns[k]) / c->observed_ns[k]);
    }
    fprintf(rep_out, "solo LWR leave-one-out MAPE %.2f %%\n", rep->mape_solo_pct);
    fprintf(rep_out, "co-located MAPE: fit %.2f %% (%" PRIu32 " samples), held out %.2f %% (%" PRIu32 " samples)\n",
            rep->mape_train_pct, rep->n_train, rep->mape_test_pct, rep->n_test);
    if (vals[1])
      for (uint32_t i = 0; i < m->n_models; i++)
        fprintf(rep_out, "L2 line of %s: l = %.4g x share + %.4g\n", m->prof[i].name, m->prof[i].l2_alpha,
                m->prof[i].l2_beta);
    char note[192];
    if (vals[1])
      snprintf(note, sizeof note,
               "fitted on native %s (%" PRIu32 " CUs) at nice %d; held-out co-located MAPE %.2f %%; %" PRIu32
               " keep-awake loop%s",
               vals[1], cus, prio.now, rep->mape_test_pct, n_lowered, n_lowered == 1 ? "" : "s");
    else
      snprintf(note, sizeof note, "fitted on the simulated %s; held-out co-located MAPE %.2f %%", s.gpu.name,
               rep->mape_test_pct);
    model_output mo = {.m = m, .note = note};
    if (atoll_cli_write_file(vals[0], write_model, &mo) != 0)
      rc = ATOLL_EXIT_BAD_INPUT;
  }
  free(m);
  free(rep);
  free(nm);
  atoll_arena_free(&a);
  return rc;
}
