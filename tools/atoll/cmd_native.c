/* atoll native SCENARIO: run a scenario for real on a native device (the CPU back-end, or a GPU
 * module), with the same core and the same report as `atoll sim`; --profile measures the device. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/measure_awake.h"
#include "tools/atoll/measure_priority.h"
#include "tools/atoll/native_cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"
#include "io/suggest.h"
#include "run/report.h"

const atoll_subcommand atoll_cmd_native_def = {
    "native", atoll_cmd_native, "run a scenario for real on a native device (cpu, cuda, hip)",
    "usage: atoll native SCENARIO [--device cpu|cpu-gpu|cuda|hip] [--cus N] [--slots N] [--pin] [--verify]\n"
    "                    [--json FILE|-] [--csv FILE] [--trace FILE] [--inject FAULTS]\n"
    "                    [--keep-awake N] [--nice N] [--set PATH=VALUE]... [--policy NAME] [--seed N]\n"
    "                    [--duration-ms N] [--latency-opts LIST]\n"
    "       atoll native --profile SCENARIO [--device D] [--cus N] [--slots N] [--pin] [--repeats N] [-o DIR]\n"
    "                    [--keep-awake N] [--nice N]\n"
    "\n"
    "Runs SCENARIO on a real device: client threads send requests at the scenario's arrival times,\n"
    "the scheduler core (the same code `atoll sim` runs) decides, the native runtime (docs/native.md)\n"
    "queues and preempts, and every kernel computes for real. Every model of the scenario needs a\n"
    "native implementation (`native: NAME` in its profile). The report is `atoll sim`'s (mode\n"
    "\"native\"); standalone latencies are measured on the device first.\n"
    "\n"
    "  --device D         cpu (threads as CUs, always available), cuda or hip (loadable modules)\n"
    "  --cus N            CUs of the CPU back-end, 1-64 (default, or 0: one per CPU but one, left to\n"
    "                     the host threads)\n"
    "  --slots N          CPU back-end: resident blocks per CU, 1-64 (default, or 0: 1)\n"
    "  --pin              pin CU workers (and the scheduler) to CPUs\n"
    "  --verify           compare every completed request's output bit for bit with an\n"
    "                     uninterrupted run on the same device (adds \"verify\" to the report),\n"
    "                     and a sample's kernels with the CPU build within the libm tolerance\n"
    "  --json FILE|-      write the JSON report; '-' writes it to stdout instead of the table\n"
    "  --csv FILE         write one CSV row per client\n"
    "  --trace FILE       write a Chrome trace-event timeline\n"
    "  --inject FAULTS    fault injection, FAULTS = kernel:P,alloc:P (probabilities): a kernel launch\n"
    "                     faults on the device, a request's buffers cannot be allocated; each fails\n"
    "                     its request alone (reported per client: failed, failure); see\n"
    "                     docs/native-faults.md\n"
    "  --latency-opts LIST preemption-latency options, comma-separated (docs/native-gpu.md):\n"
    "                     dense-points, kill-poll=S (0-8), top-priority, rt-sm-reserve=N (atoll's\n"
    "                     spatial option: high-priority streams on the first N CUs, needs\n"
    "                     policy.priority: true), persistent-be (GPUs)\n"
    "  --profile          measure every native model of SCENARIO on the device and write its\n"
    "                     profile (DIR/models/MODEL.yaml) and the device preset (DIR/gpus/NAME.yaml),\n"
    "                     DIR given by -o (default .), all or none of them; see docs/hil.md\n"
    "  --repeats N        timed runs per op of --profile, whose median is the op's time (default 15,\n"
    "                     1-200): fewer for a quick, rougher profile\n"
    "  --keep-awake N     N busy loops at nice 19 (0-256, default none) keep the CPUs out of their\n"
    "                     idle state while the device runs, as `atoll fit inss --device cpu` does: on\n"
    "                     a virtual machine a thread woken on an idle CPU waits for the host\n"
    "                     (docs/native.md, \"Idle CPUs\")\n"
    "  --nice N           run the device's threads at nice N (-20..19, default: as found), e.g. -20\n"
    "                     to keep their CPUs against other load; a raise the system refuses goes as\n"
    "                     far as it allows, and the run says where it ran (docs/native.md, \"Priority\")\n"
    "\n"
    "exit: 0 every bound holds (and --verify found no mismatch); 1 a bound is violated or an output\n"
    "differs, or a request failed without --inject; 2 bad input (including a model without a native\n"
    "implementation); 4 device unavailable. With --inject, failed requests alone do not change it.\n"};

/* Removes the boolean options from argv (atoll_cli_parse knows only valued ones). */
int atoll__native_flags(int *argc, char **argv, const char *const *names, bool *values, uint32_t n) {
  int k = 1;
  for (uint32_t i = 0; i < n; i++)
    values[i] = false;
  for (int i = 1; i < *argc; i++) {
    uint32_t f = 0;
    while (f < n && strcmp(argv[i], names[f]) != 0)
      f++;
    if (f < n)
      values[f] = true;
    else
      argv[k++] = argv[i];
  }
  *argc = k;
  return 0;
}

int atoll__native_models(const atoll_scenario *s, const atoll_nmodel **out) {
  for (uint32_t m = 0; m < s->n_models; m++) {
    const atoll_scenario_model *sm = &s->models[m];
    if (!sm->model.native) {
      fprintf(stderr,
              "atoll native: model '%s' (%s) has no native implementation: its profile has no 'native:' key\n"
              "(only models built from the kernel library run natively: see 'atoll-nmodel list')\n",
              sm->name, sm->path ? sm->path : "-");
      return ATOLL_EXIT_BAD_INPUT;
    }
    out[m] = atoll_nmodel_find(sm->model.native);
    if (!out[m]) {
      const char *names[64];
      uint32_t n = 0;
      for (uint32_t i = 0; i < atoll_nmodel_count() && n < 64; i++)
        names[n++] = atoll_nmodel_at(i)->name;
      char hint[96];
      fprintf(stderr, "atoll native: model '%s' (%s): no native model is named '%s'%s (known:", sm->name,
              sm->path ? sm->path : "-", sm->model.native,
              atoll_suggest_text(hint, sizeof hint, sm->model.native, names, n));
      for (uint32_t i = 0; i < atoll_nmodel_count(); i++)
        fprintf(stderr, " %s", atoll_nmodel_at(i)->name);
      fprintf(stderr, ")\n");
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  return 0;
}

int atoll__native_uint(const atoll_subcommand *cmd, const char *opt, const char *text, uint32_t min, uint32_t max,
                       const char *unit, uint32_t *out) {
  if (!text)
    return 0;
  uint64_t v;
  if (!atoll_cli_parse_uint(text, min, max, &v))
    return atoll_cli_usage_error(cmd, "%s wants from %u to %u %s, not '%s'", opt, min, max, unit, text);
  *out = (uint32_t)v;
  return 0;
}

int atoll__native_repeats(const atoll_subcommand *cmd, const char *text, uint32_t *out) {
  *out = ATOLL_PROFILE_REPEATS;
  return atoll__native_uint(cmd, "--repeats", text, 1, ATOLL_PROFILE_REPEATS_MAX, "timed runs per op", out);
}

/* Exit code for a failed native run. */
int atoll__native_fail(const char *what, int rc, const char *err) {
  fprintf(stderr, "atoll %s: %s\n", what, err && err[0] ? err : atoll_strerror(rc));
  return rc == ATOLL_ENODEV ? ATOLL_EXIT_NO_DEVICE : rc == ATOLL_EIO ? ATOLL_EXIT_VIOLATED : ATOLL_EXIT_BAD_INPUT;
}

enum { X_JSON, X_CSV, X_TRACE, X_DEVICE, X_CUS, X_SLOTS, X_OUT, X_INJECT, X_LATENCY, X_REPEATS, X_AWAKE, X_NICE, N_X };
enum { F_VERIFY, F_PIN, F_PROFILE, N_F };

/* What --keep-awake ran, a line (measure_awake.h). */
static void print_awake(FILE *out, const atoll_measure_awake *a, uint32_t asked) {
  atoll__measure_awake_print(out, a, asked, "kept");
  fprintf(out, "\n");
}

/* Where --nice left the device's threads, a line (measure_priority.h). */
void atoll__native_print_nice(FILE *out, const atoll_measure_priority *p, const char *what) {
  char text[160];
  atoll__measure_priority_text(p, text, sizeof text);
  fprintf(out, "%s at %s (--nice)\n", what, text);
}

int atoll__native_nice(const atoll_subcommand *cmd, const char *text, int *out) {
  if (text && !atoll__measure_nice_parse(text, out))
    return atoll_cli_usage_error(cmd, "--nice wants a nice value from -20 to 19, not '%s'", text);
  return 0;
}

int atoll_cmd_native(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_native_def;
  static const char *const flags[N_F] = {"--verify", "--pin", "--profile"};
  bool fl[N_F];
  atoll__native_flags(&argc, argv, flags, fl, N_F);
  static const char *const extra[N_X] = {"--json", "--csv", "--trace", "--device", "--cus", "--slots", "-o",
                                         "--inject", "--latency-opts", "--repeats", "--keep-awake", "--nice"};
  const char *vals[N_X];
  atoll_run_opts o;
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, N_X, true, &rc))
    return rc;
  atoll_native_opts no = {.device = vals[X_DEVICE] ? vals[X_DEVICE] : "cpu", .pin_threads = fl[F_PIN],
                          .sched_cpu = fl[F_PIN] ? 0 : -1, .verify = fl[F_VERIFY]};
  if ((rc = atoll__native_uint(cmd, "--cus", vals[X_CUS], 0, 64, "CUs", &no.cus)) ||
      (rc = atoll__native_uint(cmd, "--slots", vals[X_SLOTS], 0, 64, "slots per CU", &no.slots_per_cu)))
    return rc;
  uint32_t repeats, awake = 0;
  int nice = 0;
  if ((rc = atoll__native_repeats(cmd, vals[X_REPEATS], &repeats)) ||
      (rc = atoll__native_uint(cmd, "--keep-awake", vals[X_AWAKE], 0, ATOLL_MEASURE_AWAKE_MAX, "loops", &awake)) ||
      (rc = atoll__native_nice(cmd, vals[X_NICE], &nice)))
    return rc;
  /* X_JSON, X_CSV, X_TRACE lead vals: at most one on stdout, and then the table stays off it. */
  static const char *const outputs[] = {"--json", "--csv", "--trace"};
  bool output_stdout;
  if ((rc = atoll_cli_check_outputs(cmd, vals, outputs, 3, o.positional, o.n_positional, &output_stdout)))
    return rc;
  if (vals[X_REPEATS] && !fl[F_PROFILE])
    return atoll_cli_usage_error(cmd, "--repeats sets the timed runs of --profile; give it with --profile");
  /* --profile writes DIR/gpus/D.yaml and DIR/models/M.yaml and nothing else; a run writes what its
   * --json, --csv and --trace name. Each refused where the other would ignore it silently. */
  if (vals[X_OUT] && !fl[F_PROFILE])
    return atoll_cli_usage_error(cmd, "-o DIR is where --profile writes; a run writes --json, --csv or --trace");
  if (fl[F_PROFILE] && (vals[X_JSON] || vals[X_CSV] || vals[X_TRACE] || fl[F_VERIFY] || vals[X_INJECT] ||
                        vals[X_LATENCY]))
    return atoll_cli_usage_error(cmd, "--profile measures the device and the models; --json, --csv, --trace, "
                                 "--verify, --inject and --latency-opts are a run's options");
  /* --profile measures the device and the models alone: a run's policy, seed, duration and
   * scenario settings change nothing it writes, and were taken silently. */
  if (fl[F_PROFILE] && o.n_sets > 0)
    return atoll_cli_usage_error(cmd, "--profile measures the device and each model alone; %s is a run's option "
                                 "(--policy, --seed, --duration-ms and --set change nothing it measures)",
                                 o.sets[0].option ? o.sets[0].option : "--set");
  /* sim.* set how the simulator models the device (CU engine, memory estimate, launch mode, what
   * the explorer varies); the native device is the device itself, and took them with no effect. A
   * scenario file's own sim: block stays, for the runs that simulate it (atoll hil, atoll sim). */
  for (uint32_t i = 0; i < o.n_sets; i++)
    if (!o.sets[i].option && (strncmp(o.sets[i].text, "sim.", 4) == 0 || strncmp(o.sets[i].text, "sim=", 4) == 0))
      return atoll_cli_usage_error(cmd, "--set %s: sim.* are simulator settings (how atoll sim models the "
                                   "device); a native run has no use for them",
                                   o.sets[i].text);
  /* "-o --nice" (its value forgotten) took "--nice" as the folder and made it: a missing value, as
   * the outputs' check (outputs.h) says of files. */
  if (vals[X_OUT] && strncmp(vals[X_OUT], "--", 2) == 0)
    return atoll_cli_usage_error(cmd, "-o %s: a value that looks like an option (write ./%s for such a folder)",
                                 vals[X_OUT], vals[X_OUT]);
  /* An empty -o would make "/gpus" of "%s/gpus"; the profiles' paths are built within PATH_MAX. */
  if (vals[X_OUT] && (vals[X_OUT][0] == '\0' || strlen(vals[X_OUT]) > ATOLL_PROFILE_DIR_MAX))
    return atoll_cli_usage_error(cmd, "-o wants a folder of 1 to %d characters, not one of %zu",
                                 ATOLL_PROFILE_DIR_MAX, strlen(vals[X_OUT]));
  atoll_nfault_cfg inject = {0};
  char inject_err[160];
  if (vals[X_INJECT] && atoll_nfault_parse(vals[X_INJECT], &inject, inject_err, sizeof inject_err) != 0)
    return atoll_cli_usage_error(cmd, "--inject: %s", inject_err);
  if (vals[X_LATENCY] &&
      atoll_nlatency_parse(vals[X_LATENCY], &no.tuning, &no.rt_reserve_cus, inject_err, sizeof inject_err) != 0)
    return atoll_cli_usage_error(cmd, "--latency-opts: %s", inject_err);
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  /* The reserve binds high-priority streams to CUs 0..N-1 and the others to N..: without
   * policy.priority every stream is of the others, and the first N CUs stayed idle. */
  if (no.rt_reserve_cus && !s.policy.priority) {
    rc = atoll_cli_usage_error(cmd, "--latency-opts rt-sm-reserve=%u reserves CUs for the RT queues' high-priority "
                               "streams, and %s has no policy.priority: true (without it the first %u CUs would "
                               "stay idle); give --set policy.priority=true",
                               no.rt_reserve_cus, s.path, no.rt_reserve_cus);
    atoll_arena_free(&a);
    return rc;
  }
  if (vals[X_INJECT]) {
    inject.seed = s.seed;
    no.inject = &inject;
  }
  const atoll_nmodel **nm = calloc(s.n_models ? s.n_models : 1, sizeof *nm);
  if (!nm || (rc = atoll__native_models(&s, nm))) {
    free(nm);
    atoll_arena_free(&a);
    return nm ? rc : ATOLL_EXIT_BAD_INPUT;
  }
  no.nmodels = nm;
  atoll_measure_awake loops = {0};
  /* Before the device opens: the threads it starts inherit this thread's priority. */
  atoll_measure_priority prio = {0};
  if (vals[X_NICE])
    atoll__measure_priority_raise(nice, &prio);
  if (fl[F_PROFILE]) {
    atoll__measure_awake_start(awake, &loops);
    rc = atoll__native_profile(&s, &no, vals[X_OUT] ? vals[X_OUT] : ".", repeats, awake, stdout);
    atoll__measure_awake_stop(&loops);
    if (awake)
      print_awake(stdout, &loops, awake);
    if (vals[X_NICE])
      atoll__native_print_nice(stdout, &prio, "measured");
    free(nm);
    atoll_arena_free(&a);
    return rc;
  }
  atoll_cli_trace trace; /* whole or not at all: a refused or failed run leaves the file as it was */
  bool tracing = vals[X_TRACE] != NULL;
  if (tracing && atoll_cli_trace_open(&trace, vals[X_TRACE]) != 0) {
    free(nm);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  no.trace = tracing ? &trace.trace : NULL;
  atoll_run_results res;
  atoll_native_info info;
  char err[256];
  atoll__measure_awake_start(awake, &loops);
  rc = atoll_native_run(&s, &no, &res, &info, err, sizeof err);
  atoll__measure_awake_stop(&loops); /* joined: its counts are final */
  if (tracing && atoll_cli_trace_close(&trace, rc == 0) != 0 && rc == 0) {
    /* Exit 2, as atoll sim's: an output that could not be written (atoll__native_fail takes EIO from
     * the device as a failed run, 1). */
    fprintf(stderr, "atoll native: writing %s failed\n", vals[X_TRACE]);
    free(nm);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (rc) {
    int code = atoll__native_fail("native", rc, err);
    free(nm);
    atoll_arena_free(&a);
    return code;
  }
  atoll_report rep;
  int exit_code = ATOLL_EXIT_OK;
  if (atoll_report_compute(&res, &rep) != 0) {
    fprintf(stderr, "atoll native: out of memory\n");
    exit_code = ATOLL_EXIT_BAD_INPUT;
  } else {
    if (!output_stdout) {
      atoll_report_print_table(&rep, stdout);
      printf("device %s: %llu launches, %llu evicted, %llu killed (%llu CU resets, %.1f us each on average)\n",
             info.device, (unsigned long long)info.stats.launches, (unsigned long long)info.stats.evicted,
             (unsigned long long)info.stats.killed, (unsigned long long)info.stats.cu_resets,
             info.stats.cu_resets ? (double)info.stats.reset_cus_ns_total / 1e3 / (double)info.stats.cu_resets : 0.0);
      if (awake)
        print_awake(stdout, &loops, awake);
      if (vals[X_NICE])
        atoll__native_print_nice(stdout, &prio, "ran");
      if (info.stats.queue_moves)
        printf("device %s: %llu queue moves to re-provisioned CU sets (docs/gslice.md, \"Native\")\n", info.device,
               (unsigned long long)info.stats.queue_moves);
    }
    if (output_stdout && awake)
      print_awake(stderr, &loops, awake);
    if (output_stdout && vals[X_NICE])
      atoll__native_print_nice(stderr, &prio, "ran");
    if (vals[X_JSON] && (rc = atoll_cli_write_report(vals[X_JSON], &rep, atoll_report_write_json)))
      exit_code = rc;
    if (vals[X_CSV] && (rc = atoll_cli_write_report(vals[X_CSV], &rep, atoll_report_write_csv)))
      exit_code = rc;
    atoll_report_warn_overload(&rep, "atoll native", stderr);
    if (exit_code == ATOLL_EXIT_OK && !rep.all_hold) {
      atoll_report_print_violations(&rep, stderr);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    if (res.verified)
      fprintf(output_stdout ? stderr : stdout,
              "verify, CPU build: %u kernel launches of %u requests, %u within the libm tolerance (%u "
              "bit-identical, max |diff| %.3g)\n",
              info.verify_cpu_launches, info.verify_cpu_requests,
              info.verify_cpu_launches - info.verify_cpu_out_of_tolerance, info.verify_cpu_bit_exact,
              info.verify_cpu_max_abs_diff);
    if (exit_code == ATOLL_EXIT_OK && res.verified && res.verify_mismatches > 0) {
      fprintf(stderr, "verify FAILED: %u of %u outputs differ from the uninterrupted reference on the device\n",
              res.verify_mismatches, res.verify_requests);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    if (exit_code == ATOLL_EXIT_OK && res.verified && info.verify_cpu_out_of_tolerance > 0) {
      fprintf(stderr, "verify FAILED: %u of %u kernel launches are outside the libm tolerance of the CPU build\n",
              info.verify_cpu_out_of_tolerance, info.verify_cpu_launches);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    uint32_t failed = 0;
    for (uint32_t c = 0; c < s.n_clients; c++)
      failed += res.clients[c].failed;
    if (exit_code == ATOLL_EXIT_OK && failed > 0 && !no.inject) {
      fprintf(stderr, "%u requests failed on the device (the report names the first of each client)\n", failed);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    atoll_report_free(&rep);
  }
  atoll_run_results_free(&res);
  free(nm);
  atoll_arena_free(&a);
  return exit_code;
}
