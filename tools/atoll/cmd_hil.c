/* atoll hil SCENARIO: hardware in the loop. Measure the device, predict the scenario with the
 * simulator from those measurements, run it for real, and compare (docs/hil.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/measure_awake.h"
#include "tools/atoll/measure_priority.h"
#include "tools/atoll/native_cli.h"
#include "native/runtime/nprofile.h"
#include "run/report.h"
#include "run/driver.h"
#include "sim/run.h"

const atoll_subcommand atoll_cmd_hil_def = {
    "hil", atoll_cmd_hil, "predict a scenario from device measurements, run it natively, compare",
    "usage: atoll hil SCENARIO [--device cpu|cpu-gpu|cuda|hip] [--cus N] [--slots N] [--pin] [--max-error PCT]\n"
    "                 [--repeats N] [--keep-awake N] [--nice N]\n"
    "                 [--set PATH=VALUE]... [--policy NAME] [--seed N] [--duration-ms N]\n"
    "\n"
    "The hardware-in-the-loop check (docs/hil.md): measures the device and every native model of\n"
    "SCENARIO as `atoll native --profile` does, simulates the scenario on that preset with those\n"
    "profiles, runs it natively with the same arrivals (same seed; `load` arrivals are turned into\n"
    "rates from the measured standalone latencies, so both runs see the same requests), and prints\n"
    "predicted against measured: RT latency p50/p99, each BE client's throughput, preemption\n"
    "latency p50, with the relative error (predicted / measured - 1). SCENARIO has one device\n"
    "(gpu_count: 1): the preset measured alone does not describe devices that share the CPUs.\n"
    "\n"
    "  --cus N, --slots N the CPU back-end's CUs and resident blocks per CU, as `atoll native`'s\n"
    "                     (0, as omitting them, the default)\n"
    "  --max-error PCT    exit 1 when the RT latency p50 error exceeds PCT percent\n"
    "  --repeats N        timed runs per op of the measurement, whose median is the op's time\n"
    "                     (default 15, 1-200)\n"
    "  --keep-awake N     N busy loops at nice 19 (0-256, default none) keep the CPUs out of their\n"
    "                     idle state while the device is measured and while it runs (`atoll native\n"
    "                     --help`; docs/native.md, \"Idle CPUs\")\n"
    "  --nice N           measure and run the device's threads at nice N (-20..19, default: as found;\n"
    "                     `atoll native --help`; docs/native.md, \"Priority\")\n"
    "\n"
    "exit: 0 compared (and within --max-error); 1 outside --max-error or a native output differed\n"
    "from its reference; 2 bad input; 4 device unavailable.\n"};

/* The scenario both runs use: the measured preset, the measured profiles, rates instead of loads. */
typedef struct hil_scenario {
  atoll_scenario s;
  atoll_scenario_model *models;
  atoll_client *clients;
} hil_scenario;

static double err_pct(double pred, double meas) {
  return meas > 0 && isfinite(pred) && isfinite(meas) ? 100.0 * (pred / meas - 1.0) : NAN;
}

static void row(const char *name, double pred, double meas, const char *unit) {
  char e[32];
  double x = err_pct(pred, meas);
  if (isfinite(x))
    snprintf(e, sizeof e, "%+.1f %%", x);
  else
    snprintf(e, sizeof e, "n/a");
  printf("%-34s %12.3f %12.3f %10s  %s\n", name, pred, meas, e, unit);
}

int atoll_cmd_hil(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_hil_def;
  static const char *const flags[1] = {"--pin"};
  bool fl[1];
  atoll__native_flags(&argc, argv, flags, fl, 1);
  enum { X_DEVICE, X_CUS, X_SLOTS, X_MAXERR, X_REPEATS, X_AWAKE, X_NICE, N_X };
  static const char *const extra[N_X] = {"--device",  "--cus",        "--slots", "--max-error",
                                         "--repeats", "--keep-awake", "--nice"};
  const char *vals[N_X];
  atoll_run_opts ro;
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &ro, extra, vals, N_X, true, &rc))
    return rc;
  atoll_native_opts no = {.device = vals[X_DEVICE] ? vals[X_DEVICE] : "cpu", .pin_threads = fl[0],
                          .sched_cpu = fl[0] ? 0 : -1};
  double max_err = -1;
  if ((rc = atoll__native_uint(cmd, "--cus", vals[X_CUS], 0, 64, "CUs", &no.cus)) ||
      (rc = atoll__native_uint(cmd, "--slots", vals[X_SLOTS], 0, 64, "slots per CU", &no.slots_per_cu)))
    return rc;
  uint32_t repeats, awake = 0;
  int nice = 0;
  if ((rc = atoll__native_repeats(cmd, vals[X_REPEATS], &repeats)) ||
      (rc = atoll__native_uint(cmd, "--keep-awake", vals[X_AWAKE], 0, ATOLL_MEASURE_AWAKE_MAX, "loops", &awake)) ||
      (rc = atoll__native_nice(cmd, vals[X_NICE], &nice)))
    return rc;
  if (vals[X_MAXERR]) {
    /* Decimal only, as atoll sim's numbers: strtod alone also took "0x28" and " 40". */
    if (!atoll_cli_parse_decimal(vals[X_MAXERR], &max_err) || !(max_err >= 0) || !isfinite(max_err))
      return atoll_cli_usage_error(cmd, "--max-error wants a percentage, not '%s'", vals[X_MAXERR]);
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &ro, &a, &s)))
    return rc;
  /* The preset is measured on one device holding every CPU's CU, but a scenario of several runs
   * them side by side, sharing the CPUs, each with its share of the CUs: the prediction was of
   * another device than the one run (RT p50 -52 % on two-devices.yaml). */
  if (atoll_scenario_gpus(&s) > 1) {
    rc = atoll_cli_usage_error(cmd, "%s has gpu_count: %u: hil measures one device and predicts that one, but "
                               "%u devices would share its CPUs and split its CUs; hil takes scenarios of one "
                               "device (`atoll native` runs this one)",
                               s.path, atoll_scenario_gpus(&s), atoll_scenario_gpus(&s));
    atoll_arena_free(&a);
    return rc;
  }
  /* What the simulator refuses, said before the measurement and in sim's words (it measured, then
   * said "simulation failed: operation not supported by this device"). */
  if (atoll_cli_sim_refused(cmd, &s)) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  bool has_rt = false;
  for (uint32_t c = 0; c < s.n_clients; c++)
    has_rt |= s.clients[c].cls == ATOLL_CLASS_RT;
  if (max_err >= 0 && !has_rt) { /* it failed the run with "error nan %" after measuring */
    rc = atoll_cli_usage_error(cmd, "--max-error compares the RT latency, and %s has no RT client", s.path);
    atoll_arena_free(&a); /* after the message: s.path lives in the arena */
    return rc;
  }
  const atoll_nmodel **nm = calloc(s.n_models ? s.n_models : 1, sizeof *nm);
  if (!nm || (rc = atoll__native_models(&s, nm))) {
    free(nm);
    atoll_arena_free(&a);
    return nm ? rc : ATOLL_EXIT_BAD_INPUT;
  }
  no.nmodels = nm;
  char err[256] = "";
  int exit_code = ATOLL_EXIT_OK;
  /* 1. Measure. */
  fprintf(stderr, "atoll hil: measuring the device and %u models...\n", s.n_models);
  atoll_gpu g;
  atoll_native_costs_note note;
  hil_scenario h = {.s = s};
  h.models = atoll_arena_calloc(&a, s.n_models, sizeof *h.models);
  h.clients = atoll_arena_calloc(&a, s.n_clients, sizeof *h.clients);
  int64_t *alone = atoll_arena_calloc(&a, s.n_models, sizeof *alone);
  rc = h.models && h.clients && alone ? 0 : ATOLL_ENOMEM;
  /* Before the device opens: the threads it starts inherit this thread's priority. */
  atoll_measure_priority prio = {0};
  if (rc == 0 && vals[X_NICE])
    atoll__measure_priority_raise(nice, &prio);
  atoll_measure_awake loops = {0};
  atoll__measure_awake_start(rc == 0 ? awake : 0, &loops);
  if (rc == 0)
    rc = atoll_native_measure_device(&no, "hil", nm, s.n_models, &a, &g, &note, err, sizeof err);
  for (uint32_t m = 0; rc == 0 && m < s.n_models; m++) {
    h.models[m] = s.models[m];
    rc = atoll_native_measure_model(&no, nm[m], &g, repeats, &a, &h.models[m].model, err, sizeof err);
    alone[m] = h.models[m].model.measured_latency_ns;
  }
  atoll__measure_awake_stop(&loops);
  if (rc) {
    int code = atoll__native_fail("hil", rc, err);
    free(nm);
    atoll_arena_free(&a);
    return code;
  }
  for (uint32_t c = 0; c < s.n_clients; c++) {
    h.clients[c] = s.clients[c];
    atoll_arrival *ar = &h.clients[c].arrival;
    /* The rate the load means on this device (docs/scenarios.md, "Load"): the one rule the
     * native run would apply to the same measured latency. */
    if (ar->load > 0) {
      ar->rate_hz = atoll_run_rate_hz(&s.clients[c], alone[h.clients[c].model]);
      ar->load = 0;
    }
  }
  h.s.gpu = g;
  h.s.models = h.models;
  h.s.clients = h.clients;
  /* 2. Predict. */
  fprintf(stderr, "atoll hil: simulating...\n");
  atoll_run_results pred, meas;
  rc = atoll_sim_run(&h.s, NULL, &pred);
  if (rc) {
    /* On the measured preset: what the check above could not know (its CU count) is said as sim says it. */
    char why[256];
    fprintf(stderr, "atoll hil: simulation failed: %s\n",
            rc == ATOLL_ENOTSUP ? atoll_sim_unsupported(&h.s, h.s.engine, why, sizeof why) : atoll_strerror(rc));
    free(nm);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* 3. Run for real, with the standalone latencies just measured. */
  fprintf(stderr, "atoll hil: running natively...\n");
  no.standalone_ns = alone;
  no.verify = true;
  atoll_native_info info;
  atoll__measure_awake_start(awake, &loops);
  rc = atoll_native_run(&h.s, &no, &meas, &info, err, sizeof err);
  atoll__measure_awake_stop(&loops); /* joined: its counts are final */
  if (rc) {
    int code = atoll__native_fail("hil", rc, err);
    atoll_run_results_free(&pred);
    free(nm);
    atoll_arena_free(&a);
    return code;
  }
  /* 4. Compare. */
  atoll_report rp, rm;
  if (atoll_report_compute(&pred, &rp) != 0 || atoll_report_compute(&meas, &rm) != 0) {
    fprintf(stderr, "atoll hil: out of memory\n");
    exit_code = ATOLL_EXIT_BAD_INPUT;
  } else {
    printf("scenario %s  policy %s  device %s  duration %.0f ms\n", s.path, atoll_policy_name(s.policy.kind),
           info.device, s.duration_ns / 1e6);
    printf("device costs: launch %.1f us, dispatch %.1f us, transmit %.1f us, kill %.1f us, eviction %.2f us\n",
           g.costs.launch_sync_ns / 1e3, g.costs.cp_dispatch_ns / 1e3, g.costs.hq_transmit_ns / 1e3,
           g.costs.cu_reset_ns / 1e3, g.costs.evicted_kernel_ns / 1e3);
    printf("%-34s %12s %12s %10s\n", "metric", "predicted", "measured", "error");
    row("RT latency p50", rp.rt_latency_us.p50 / 1e3, rm.rt_latency_us.p50 / 1e3, "ms");
    row("RT latency p99", rp.rt_latency_us.p99 / 1e3, rm.rt_latency_us.p99 / 1e3, "ms");
    for (uint32_t c = 0; c < s.n_clients; c++) {
      if (s.clients[c].cls != ATOLL_CLASS_BE)
        continue;
      char name[80];
      snprintf(name, sizeof name, "BE %s throughput", s.clients[c].name);
      row(name, rp.clients[c].throughput_rps, rm.clients[c].throughput_rps, "req/s");
    }
    if (rp.preemption_count || rm.preemption_count) {
      row("preemption latency p50", rp.preemption_latency_us.p50, rm.preemption_latency_us.p50, "us");
      row("preemptions", rp.preemption_count, rm.preemption_count, "");
    }
    printf("native outputs verified: %u, mismatches %u\n", meas.verify_requests, meas.verify_mismatches);
    if (awake) {
      atoll__measure_awake_print(stdout, &loops, awake, "kept");
      printf(" in the native run\n");
    }
    if (vals[X_NICE])
      atoll__native_print_nice(stdout, &prio, "measured and ran");
    double e50 = err_pct(rp.rt_latency_us.p50, rm.rt_latency_us.p50);
    if (meas.verify_mismatches > 0)
      exit_code = ATOLL_EXIT_VIOLATED;
    if (max_err >= 0 && isnan(e50)) {
      fprintf(stderr, "atoll hil: no RT latency to compare: no RT request completed in the %s run\n",
              rp.rt_latency_us.n == 0 ? "simulated" : "native");
      exit_code = ATOLL_EXIT_VIOLATED;
    } else if (max_err >= 0 && !(fabs(e50) <= max_err)) {
      fprintf(stderr, "atoll hil: RT latency p50 error %.1f %% exceeds %.1f %%\n", e50, max_err);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    atoll_report_free(&rp);
    atoll_report_free(&rm);
  }
  atoll_run_results_free(&pred);
  atoll_run_results_free(&meas);
  free(nm);
  atoll_arena_free(&a);
  return exit_code;
}
