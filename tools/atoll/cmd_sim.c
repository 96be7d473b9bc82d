/* atoll sim SCENARIO: run a scenario on the simulated GPU and check its bounds. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/progress.h"
#include "sim/replay.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"
#include "run/report.h"
#include "sim/dart_run.h"
#include "sim/run.h"

const atoll_subcommand atoll_cmd_sim_def = {
    "sim", atoll_cmd_sim, "run a scenario on the simulated GPU and check its bounds",
    "usage: atoll sim SCENARIO [--json FILE|-] [--csv FILE] [--trace FILE [--trace-window FROM:TO]]\n"
    "                 [--replay FILE] [--set PATH=VALUE]... [--policy NAME] [--seed N] [--duration-ms N] [--quiet]\n"
    "\n"
    "Simulates SCENARIO (docs/scenarios.md) on the discrete-event model of its GPU (docs/simulator.md)\n"
    "and prints, per client, requests, throughput and latency (absolute and normalized by the\n"
    "model's standalone latency on the same simulated GPU), then checks every expect: bound.\n"
    "Same scenario and seed give the same report, byte for byte (apart from run timings).\n"
    "\n"
    "  --json FILE|-      write the JSON report (docs/report.md); '-' writes it to stdout instead of the table\n"
    "  --csv FILE         write one CSV row per client\n"
    "  --trace FILE       write a Chrome trace-event timeline (docs/traces.md: ui.perfetto.dev)\n"
    "  --trace-window FROM:TO\n"
    "                     trace only what touches [FROM, TO) ms of simulated time\n"
    "  --replay FILE      run the schedule in FILE (written by atoll explore --witness; docs/explore.md) on the\n"
    "                     blocks engine\n"
    "  --quiet, -q        no progress line (shown on a terminal once a run lasts 2 s)\n"
    "  --set PATH=VALUE   override a scenario value; --policy, --seed, --duration-ms are shorthands\n"
    "\n"
    "exit: 0 every bound holds; 1 a bound is violated (which, by how much, and the request that set a\n"
    "max are printed on stderr); 2 bad input.\n"};

static void show_progress(void *ctx, int64_t now_ns, int64_t end_ns) {
  (void)end_ns;
  atoll_progress_update(ctx, (double)now_ns / 1e9);
}

/* A decimal number of ms up to `stop` (strtod alone also takes hex, inf and nan), within the
 * nanosecond clock's range (int64: 9.2e12 ms, about 292 years). */
static bool parse_ms(const char *text, char stop, const char **next, double *out) {
  size_t len = strspn(text, "0123456789.eE+-");
  char *end;
  *out = strtod(text, &end);
  *next = end;
  return len > 0 && end == text + len && *end == stop && *out >= 0 && *out <= 9e12;
}

/* "FROM:TO" in ms, FROM < TO, both decimal, from 0 to 9e12. */
static bool parse_window(const char *text, double out[2]) {
  const char *next;
  return parse_ms(text, ':', &next, &out[0]) && parse_ms(next + 1, '\0', &next, &out[1]) && out[1] > out[0];
}

int atoll_cmd_sim(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_sim_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--json", "--csv", "--trace", "--trace-window", "--replay"};
  const char *vals[5];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 5, true, &rc))
    return rc;
  static const char *const outputs[] = {"--json", "--csv", "--trace"};
  bool output_stdout; /* the table then stays off stdout, which holds the output */
  if ((rc = atoll_cli_check_outputs(cmd, vals, outputs, 3, o.positional, o.n_positional, &output_stdout)))
    return rc;
  double window_ms[2] = {0, 0};
  if (vals[3] && (!vals[2] || !parse_window(vals[3], window_ms)))
    return atoll_cli_usage_error(cmd, vals[2] ? "--trace-window takes FROM:TO in ms, FROM < TO, from 0 to 9e12"
                                              : "--trace-window needs --trace FILE");
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  /* A window past the run's end draws an empty timeline, silently. */
  if (vals[3] && window_ms[0] * 1e6 >= (double)s.duration_ns) {
    atoll_arena_free(&a);
    return atoll_cli_usage_error(cmd, "--trace-window %s starts at or after the run's end (%.10g ms): the timeline "
                                 "would be empty", vals[3], (double)s.duration_ns / 1e6);
  }
  /* The explorer's choices are the shared core's: dart's family runs on a simulator of its own,
   * which has none, and ignored the file. */
  if (vals[4] && atoll_dart_policy(s.policy.kind)) {
    atoll_arena_free(&a);
    return atoll_cli_usage_error(cmd, "--replay: policy %s has no explorer choices to replay (dart, base-gpu and "
                                 "base-cpu run on their own simulator; docs/explore.md)",
                                 atoll_policy_name(s.policy.kind));
  }
  atoll_cli_trace trace; /* whole or not at all: a failed run leaves the file as it was */
  bool tracing = vals[2] != NULL;
  if (tracing && atoll_cli_trace_open(&trace, vals[2]) != 0) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (tracing && vals[3])
    atoll_trace_set_window(&trace.trace, (int64_t)(window_ms[0] * 1e6), (int64_t)(window_ms[1] * 1e6));
  atoll_run_results res;
  atoll_progress progress = {0};
  atoll_progress_start(&progress, atoll_progress_wanted(o.quiet) ? stderr : NULL, "sim", "s simulated",
                       (double)s.duration_ns / 1e9);
  atoll_sim_opts so = {.trace = tracing ? &trace.trace : NULL, .progress = show_progress, .progress_ctx = &progress};
  /* A schedule from the explorer: its choices, on the engine that has them. */
  atoll_choice_rec *recs = NULL;
  uint32_t n_recs = 0;
  atoll_replay replay;
  atoll_chooser chooser;
  if (vals[4]) {
    char err[256];
    if ((rc = atoll_replay_read(vals[4], &recs, &n_recs, err, sizeof err))) {
      fprintf(stderr, "%s:%s%s\n", vals[4], rc == ATOLL_EPARSE ? "" : " ", rc == ATOLL_ENOMEM ? "out of memory" : err);
      atoll_progress_end(&progress);
      if (tracing)
        atoll_cli_trace_close(&trace, false);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    atoll_replay_init(&replay, recs, n_recs);
    chooser = atoll_replay_chooser(&replay);
    so.chooser = &chooser;
    s.engine = ATOLL_ENGINE_BLOCKS;
  }
  rc = atoll_sim_run(&s, &so, &res);
  bool have_res = rc == 0, said = false;
  if (rc == 0 && vals[4] && replay.diverged) {
    fprintf(stderr, "atoll sim: %s: choice %u does not match this scenario (another scenario, policy or version)\n",
            vals[4], replay.diverged_at + 1);
    rc = ATOLL_EINVAL;
    said = true;
  }
  free(recs);
  atoll_progress_end(&progress);
  if (tracing && atoll_cli_trace_close(&trace, rc == 0) != 0 && rc == 0) {
    perror(vals[2]);
    rc = ATOLL_EIO;
    said = true;
  }
  if (rc) {
    char why[256];
    if (said) /* a diverged replay or a trace not written: said above */
      ;
    else if (rc == ATOLL_ENOTSUP)
      fprintf(stderr, "atoll sim: %s\n", atoll_sim_unsupported(&s, s.engine, why, sizeof why));
    else if (rc == ATOLL_EINVAL && atoll_sim_dart_plan_failure(&s, why, sizeof why))
      fprintf(stderr, "atoll sim: %s\n", why);
    else
      fprintf(stderr, "atoll sim: %s\n", atoll_strerror(rc));
    if (have_res)
      atoll_run_results_free(&res);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  atoll_report rep;
  int exit_code = ATOLL_EXIT_OK;
  if (atoll_report_compute(&res, &rep) != 0) {
    fprintf(stderr, "atoll sim: out of memory\n");
    exit_code = ATOLL_EXIT_BAD_INPUT;
  } else {
    if (!output_stdout)
      atoll_report_print_table(&rep, stdout);
    if (vals[0] && (rc = atoll_cli_write_report(vals[0], &rep, atoll_report_write_json)))
      exit_code = rc;
    if (vals[1] && (rc = atoll_cli_write_report(vals[1], &rep, atoll_report_write_csv)))
      exit_code = rc;
    atoll_report_warn_overload(&rep, "atoll sim", stderr);
    if (exit_code == ATOLL_EXIT_OK && !rep.all_hold) {
      atoll_report_print_violations(&rep, stderr);
      exit_code = ATOLL_EXIT_VIOLATED;
    }
    atoll_report_free(&rep);
  }
  atoll_run_results_free(&res);
  atoll_arena_free(&a);
  return exit_code;
}
