/* atoll explore SCENARIO: check the scenario's bounds on every schedule of its declared choices. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tools/atoll/report_out.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/mpi_explore.h"
#include "tools/atoll/mpi_ranks.h"
#include "sim/explore.h"
#include "io/json_out.h"
#include "tools/atoll/progress.h"
#include "sim/dart_run.h"
#include "sim/replay.h"
#include "sim/run.h"
#include "run/trace.h"

const atoll_subcommand atoll_cmd_explore_def = {
    "explore", atoll_cmd_explore, "check a scenario's bounds on every schedule (exhaustive exploration)",
    "usage: atoll explore SCENARIO [--max-states N] [--max-seconds S] [--json FILE|-] [--witness FILE] [--trace FILE]\n"
    "                     [--threads T] [--set PATH=VALUE]... [--policy NAME] [--seed N] [--duration-ms N] [--quiet]\n"
    "\n"
    "Runs SCENARIO on the simulated GPU (blocks engine) once for every answer of every choice point\n"
    "the scenario declares (docs/explore.md): each wave's duration within sim.timing_spread, which\n"
    "ready kernel the block dispatcher serves first, each RT request's lateness from\n"
    "sim.arrival_jitter_us, and the order of events due at the same instant. Runs that reach a state\n"
    "seen before stop there. Prints how many schedules and distinct states were explored, the worst\n"
    "value of every expect: quantity, and for a violated bound a witness schedule.\n"
    "\n"
    "  --max-states N     stop after N distinct states (default 2000000); the result is then incomplete\n"
    "  --max-seconds S    stop after S seconds of wall time (default: no limit); the result is then incomplete\n"
    "  --json FILE|-      write the result as JSON; '-' writes it to stdout instead of the table\n"
    "  --witness FILE     write the witness schedule (one choice per line) for `atoll sim --replay`; a run\n"
    "                     that finds no violated bound removes FILE, so that no older witness stays\n"
    "  --trace FILE       write the witness schedule's timeline (docs/traces.md); removed like --witness\n"
    "  --threads T        worker threads sharing the search (default 1); a complete search gives the same\n"
    "                     verdict, worst values, states and witness with any T (docs/scale-out.md)\n"
    "  --quiet, -q        no progress line\n"
    "\n"
    "exit: 0 every bound holds on every schedule (proved over the declared choices); 1 a bound is\n"
    "violated on some schedule; 2 bad input; 3 the exploration was cut short before finding a violation.\n"};

/* A worker thread or the process killed from outside (a job's time limit, scancel, kill) takes the
 * whole search with it: say so, then die of the signal (a non-zero status). Nothing is written,
 * since the result, the JSON and the witness are written only once the search is over. Faults
 * (SIGSEGV...) are left to the default handler or a sanitizer's, whose report says more. */
static void on_fatal_signal(int sig) {
  static const char msg[] = "atoll explore: the search was killed (signal ";
  static const char tail[] = "); no verdict and no JSON are written\n";
  char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), 0, 0};
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  ignored = write(2, sig >= 10 ? num : num + 1, sig >= 10 ? 2 : 1);
  ignored = write(2, tail, sizeof tail - 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

static void catch_fatal_signals(void) {
  static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    signal(sigs[i], on_fatal_signal);
}

static void show_progress(void *ctx, uint64_t states, uint64_t schedules) {
  (void)schedules;
  atoll_progress_update(ctx, (double)states);
}

/* A bound is checked on the schedules that ran to the end: where the search stopped before any did,
 * its verdict is unknown, not a pass (the explorer starts every bound as holding), unless the
 * extreme schedules (every wave at its shortest or longest, run beside the search) violated it. */
static bool checked(const atoll_explore_result *r, const atoll_explore_bound *b) {
  return r->schedules > 0 || !b->holds;
}

static void print_value(FILE *f, double v) {
  if (isnan(v))
    fputs("null", f);
  else
    fprintf(f, "%.3f", v);
}

/* What the JSON and the witness file are written from (atoll_cli_write_file's context). */
typedef struct explore_output {
  const atoll_scenario *s;
  const atoll_explore_result *r;
  int ranks;
  const char *path; /* the witness file's, for its replay line */
  const atoll_run_opts *opts; /* the run options, which the replay line repeats */
} explore_output;

static int write_json(FILE *f, const void *ctx) {
  const explore_output *eo = ctx;
  const atoll_scenario *s = eo->s;
  const atoll_explore_result *r = eo->r;
  int ranks = eo->ranks;
  fputs("{\"scenario\":", f);
  atoll_json_write_string(f, s->path);
  fprintf(f, ",\"policy\":\"%s\",\"mode\":\"%s\",\"complete\":%s,\"why\":", atoll_policy_name(s->policy.kind),
          atoll_explore_mode_name(r->mode), r->complete ? "true" : "false");
  if (r->why)
    atoll_json_write_string(f, r->why);
  else
    fputs("null", f);
  fprintf(f,
          ",\"schedules\":%llu,\"pruned\":%llu,\"states\":%llu,\"choices\":%llu,\"events\":%llu,\"replayed_events\":%llu,"
          "\"max_depth\":%u,"
          "\"unfinished\":%llu,\"wall_s\":%.3f,\"states_per_s\":%.0f,\"ranks\":%d,\"threads\":%u,\"choice_points\":{",
          (unsigned long long)r->schedules, (unsigned long long)r->pruned, (unsigned long long)r->states,
          (unsigned long long)r->choices, (unsigned long long)r->events, (unsigned long long)r->replayed_events,
          r->max_depth,
          (unsigned long long)r->unfinished, r->wall_s, r->wall_s > 0 ? (double)r->states / r->wall_s : 0.0, ranks, r->threads);
  for (int k = 0; k < ATOLL_CHOICE_KINDS; k++)
    fprintf(f, "%s\"%s\":%u", k ? "," : "", atoll_choice_kind_name((atoll_choice_kind)k), r->choice_points[k]);
  fputs("},\"worst_rt_latency_us\":", f);
  print_value(f, r->worst_rt_latency_us);
  fputs(",\"nominal_rt_latency_us\":", f);
  print_value(f, r->nominal_rt_latency_us);
  fputs(",\"all_min_rt_latency_us\":", f);
  print_value(f, r->all_min_rt_latency_us);
  fputs(",\"all_max_rt_latency_us\":", f);
  print_value(f, r->all_max_rt_latency_us);
  fputs(",\"bounds\":[", f);
  for (uint32_t i = 0; i < s->n_expects; i++) {
    const atoll_explore_bound *b = &r->bounds[i];
    fputs(i ? ",{\"expect\":" : "{\"expect\":", f);
    atoll_json_write_string(f, s->expects[i].text);
    fputs(",\"worst\":", f);
    print_value(f, b->worst);
    fprintf(f, ",\"holds\":%s,\"margin\":", !checked(r, b) ? "null" : b->holds ? "true" : "false");
    print_value(f, b->margin);
    fputc('}', f);
  }
  fprintf(f, "],\"violated\":%s,\"witness\":", r->violated ? "true" : "false");
  if (r->witness_expect >= 0) {
    fputs("{\"expect\":", f);
    atoll_json_write_string(f, s->expects[r->witness_expect].text);
    fprintf(f, ",\"choices\":%u}", r->n_witness);
  } else {
    fputs("null", f);
  }
  fputs("}\n", f);
  return 0;
}

static void print_table(FILE *f, const atoll_scenario *s, const atoll_explore_result *r) {
  fprintf(f, "explore %s: policy %s, %s mode\n", s->path, atoll_policy_name(s->policy.kind),
          atoll_explore_mode_name(r->mode));
  fprintf(f, "choice points in the nominal schedule:");
  for (int k = 0; k < ATOLL_CHOICE_KINDS; k++)
    fprintf(f, " %s %u%s", atoll_choice_kind_name((atoll_choice_kind)k), r->choice_points[k],
            k + 1 < ATOLL_CHOICE_KINDS ? "," : "\n");
  fprintf(f, "%s: %llu schedules run to the end, %llu cut at a state seen before; %llu distinct states\n",
          r->complete ? "explored every schedule" : "INCOMPLETE", (unsigned long long)r->schedules,
          (unsigned long long)r->pruned, (unsigned long long)r->states);
  if (!r->complete && r->why)
    fprintf(f, "  stopped: %s\n", r->why);
  fprintf(f, "%.2f s, %.0f states/s, %llu events simulated (%.0f%% replaying choices made before), longest schedule "
          "%u choices\n",
          r->wall_s, r->wall_s > 0 ? (double)r->states / r->wall_s : 0.0, (unsigned long long)r->events,
          r->events ? 100.0 * (double)r->replayed_events / (double)r->events : 0.0, r->max_depth);
  if (r->busiest_events != r->events) /* under mpirun: the imbalance (docs/scale-out.md) */
    fprintf(f, "the busiest rank simulated %llu of those events\n", (unsigned long long)r->busiest_events);
  if (!isnan(r->worst_rt_latency_us))
    fprintf(f, "worst RT latency %.1f us (nominal schedule %.1f us)\n", r->worst_rt_latency_us,
            r->nominal_rt_latency_us);
  if (!isnan(r->all_max_rt_latency_us))
    fprintf(f, "every wave at its shortest: %.1f us; every wave at its longest: %.1f us\n", r->all_min_rt_latency_us,
            r->all_max_rt_latency_us);
  if (r->unfinished)
    fprintf(f, "%llu schedules left a request unfinished at the end of the run\n", (unsigned long long)r->unfinished);
  for (uint32_t i = 0; i < s->n_expects; i++) {
    const atoll_explore_bound *b = &r->bounds[i];
    if (!checked(r, b)) {
      fprintf(f, "  %-5s %s   unchecked: no schedule ran to the end\n", "?", s->expects[i].text);
      continue;
    }
    fprintf(f, "  %-5s %s   worst %.3f", b->holds ? "ok" : "FAIL", s->expects[i].text, b->worst);
    if (!isnan(b->margin))
      fprintf(f, " (margin %.3f)", b->margin);
    fputc('\n', f);
  }
}

/* Runs the witness schedule again with a timeline. */
static int trace_witness(const atoll_scenario *s, const atoll_explore_result *r, const char *path) {
  atoll_cli_trace trace;
  if (atoll_cli_trace_open(&trace, path) != 0)
    return ATOLL_EXIT_BAD_INPUT;
  atoll_scenario sb = *s;
  sb.engine = ATOLL_ENGINE_BLOCKS;
  atoll_replay rp;
  atoll_replay_init(&rp, r->witness, r->n_witness);
  atoll_chooser ch = atoll_replay_chooser(&rp);
  atoll_sim_opts so = {.trace = &trace.trace, .chooser = &ch};
  atoll_run_results res;
  int rc = atoll_sim_run(&sb, &so, &res);
  if (rc == 0)
    atoll_run_results_free(&res);
  if (atoll_cli_trace_close(&trace, rc == 0) != 0 || rc) {
    fprintf(stderr, "atoll explore: writing %s failed\n", path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  return 0;
}

/* Appends text to *p as one shell word: bare when every character is plain, else in single quotes
 * ($'...' with escapes where it holds a newline, which would end the header's comment line). */
static void shell_word(char **p, const char *text) {
  char *o = *p;
  *o++ = ' ';
  bool plain = *text != '\0', newline = strchr(text, '\n') != NULL;
  for (const char *c = text; *c; c++)
    plain = plain && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%", *c);
  if (plain) {
    o = stpcpy(o, text);
  } else if (!newline) {
    *o++ = '\'';
    for (const char *c = text; *c; c++)
      o = *c == '\'' ? stpcpy(o, "'\\''") : (*o = *c, o + 1);
    *o++ = '\'';
  } else {
    o = stpcpy(o, "$'");
    for (const char *c = text; *c; c++)
      o = *c == '\n' ? stpcpy(o, "\\n") : *c == '\'' || *c == '\\' ? (*o = '\\', o[1] = *c, o + 2) : (*o = *c, o + 1);
    *o++ = '\'';
  }
  *o = '\0';
  *p = o;
}

/* The witness's header: its replay line repeats every --set, --policy, --seed and --duration-ms in
 * the order given (the order they apply in), shell-quoted to be pasted; without them the replay runs
 * another scenario and its choices mean another schedule. */
static int write_witness(FILE *f, const void *ctx) {
  const explore_output *eo = ctx;
  const atoll_scenario *s = eo->s;
  const atoll_explore_result *r = eo->r;
  size_t size = 512 + 4 * (strlen(s->path) + strlen(eo->path) + strlen(s->expects[r->witness_expect].text));
  for (uint32_t i = 0; i < eo->opts->n_sets; i++)
    size += 4 * strlen(eo->opts->sets[i].text) + 32;
  char *header = malloc(size);
  if (!header)
    return ATOLL_ENOMEM;
  char *p = header + snprintf(header, size, "atoll explore witness: %s, policy %s\nviolates: %s\nreplay: atoll sim",
                              s->path, atoll_policy_name(s->policy.kind), s->expects[r->witness_expect].text);
  shell_word(&p, s->path);
  for (uint32_t i = 0; i < eo->opts->n_sets; i++) {
    const atoll_set_override *set = &eo->opts->sets[i];
    const char *eq = strchr(set->text, '=');
    if (set->option && eq) { /* a shorthand, "--seed 3" as typed */
      shell_word(&p, set->option);
      shell_word(&p, eq + 1);
    } else {
      shell_word(&p, "--set");
      shell_word(&p, set->text);
    }
  }
  shell_word(&p, "--replay");
  shell_word(&p, eo->path);
  int rc = atoll_replay_write(f, header, r->witness, r->n_witness);
  free(header);
  return rc;
}

/* A run without a witness leaves no witness or witness timeline behind: one from an earlier run
 * found next to this run's result would be taken for its counterexample. Only a regular file is
 * removed (a device such as /dev/null stays). */
static void remove_stale(const char *path) {
  struct stat st;
  if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) != 0)
    perror(path);
}

/* mpirun -n N: the ranks share one search, its visited set partitioned by state hash
 * (mpi_explore.h); rank 0 starts at the root. Rank 0 gets the merged result and, for a violation,
 * the sequential search's witness. */
static int explore_ranks(const atoll_scenario *s, const atoll_explore_opts *eo, int rank, atoll_explore_result *r) {
  if (eo->threads > 1 && !atoll_mpi_threads_ok()) {
    fprintf(stderr, "atoll explore: this MPI lets only one thread of a rank call it: use --threads 1 under mpirun\n");
    atoll_mpi_abort(ATOLL_EXIT_BAD_INPUT);
  }
  atoll_mpi_net *net = atoll_mpi_net_new();
  if (!net) {
    fprintf(stderr, "atoll explore: rank %d: %s\n", rank, atoll_strerror(ATOLL_ENOMEM));
    atoll_mpi_abort(ATOLL_EXIT_BAD_INPUT);
  }
  atoll_explore_opts o = *eo;
  o.net = atoll_mpi_net_iface(net);
  o.root = rank == 0;
  if (rank != 0)
    o.progress = NULL;
  int rc = atoll_explore_run(s, &o, r);
  if (rc) {
    fprintf(stderr, "atoll explore: rank %d: %s\n", rank, atoll_strerror(rc));
    atoll_mpi_abort(ATOLL_EXIT_BAD_INPUT);
  }
  if (atoll_mpi_net_finish(net) != 0 || atoll_mpi_explore_merge(s, r) != 0) {
    fprintf(stderr, "atoll explore: rank %d: the ranks' exchange failed\n", rank);
    atoll_mpi_abort(ATOLL_EXIT_BAD_INPUT);
  }
  if (rank == 0 && r->violated && (r->complete || r->witness_expect < 0))
    rc = atoll_explore_witness(s, eo, r);
  return rc;
}

int atoll_cmd_explore(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_explore_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--max-states", "--json", "--witness", "--trace", "--max-seconds", "--threads"};
  const char *vals[6];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 6, true, &rc))
    return rc;
  static const char *const outputs[] = {"--json", "--witness", "--trace"};
  bool output_stdout; /* the table then stays off stdout, which holds the output */
  if ((rc = atoll_cli_check_outputs(cmd, vals + 1, outputs, 3, o.positional, o.n_positional, &output_stdout)))
    return rc;
  atoll_explore_opts eo = {.max_states = 2000000};
  if (vals[0]) {
    uint64_t n;
    if (!atoll_cli_parse_uint(vals[0], 1, UINT64_MAX, &n))
      return atoll_cli_usage_error(cmd, "--max-states wants a positive count, not '%s'", vals[0]);
    eo.max_states = n;
  }
  if (vals[4]) {
    if (!atoll_cli_parse_decimal(vals[4], &eo.max_seconds) || !(eo.max_seconds > 0))
      return atoll_cli_usage_error(cmd, "--max-seconds wants a positive number of seconds, not '%s'", vals[4]);
  }
  if (vals[5]) {
    uint64_t t;
    if (!atoll_cli_parse_uint(vals[5], 1, 256, &t))
      return atoll_cli_usage_error(cmd, "--threads wants a count from 1 to 256, not '%s'", vals[5]);
    eo.threads = (uint32_t)t;
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (atoll_scenario_gpus(&s) > 1) { /* the explorer's state is one device's */
    fprintf(stderr, "atoll explore: %s: gpu_count %u: the explorer covers one GPU\n", s.path, atoll_scenario_gpus(&s));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* The explorer's choices are the shared core's: dart's family runs on a simulator of its own,
   * which has none, so a search would run one schedule and call its bounds proved. */
  if (atoll_dart_policy(s.policy.kind)) {
    fprintf(stderr, "atoll explore: policy %s has no explorer choices to explore (dart, base-gpu and base-cpu run "
                    "on their own simulator; docs/explore.md)\n", atoll_policy_name(s.policy.kind));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* What the simulator refuses, said as sim says it, before the search rather than after it. */
  atoll_scenario blocks = s;
  blocks.engine = ATOLL_ENGINE_BLOCKS; /* the explorer's engine, whatever sim.engine says */
  if (atoll_cli_sim_refused(cmd, &blocks)) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  catch_fatal_signals();
  atoll_progress progress = {0};
  atoll_progress_start(&progress, atoll_progress_wanted(o.quiet) ? stderr : NULL, "explore", "states", 0);
  eo.progress = show_progress;
  eo.progress_ctx = &progress;
  atoll_explore_result r;
  int rank, ranks;
  atoll_mpi_start(&rank, &ranks);
  if (ranks > 1)
    rc = explore_ranks(&s, &eo, rank, &r);
  else
    rc = atoll_explore_run(&s, &eo, &r);
  atoll_progress_end(&progress);
  if (ranks > 1 && rank != 0) {
    /* Rank 0 prints and writes everything. */
    if (rc == 0)
      atoll_explore_free(&r);
    atoll_arena_free(&a);
    atoll_mpi_finish();
    return rc ? ATOLL_EXIT_BAD_INPUT : ATOLL_EXIT_OK;
  }
  if (rc) {
    char why[256];
    if (rc == ATOLL_ENOTSUP)
      fprintf(stderr, "atoll explore: %s\n", atoll_sim_unsupported(&s, ATOLL_ENGINE_BLOCKS, why, sizeof why));
    else
      fprintf(stderr, "atoll explore: %s\n", atoll_strerror(rc));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  int exit_code = r.violated ? ATOLL_EXIT_VIOLATED : r.complete ? ATOLL_EXIT_OK : ATOLL_EXIT_INCOMPLETE;
  if (!output_stdout)
    print_table(stdout, &s, &r);
  explore_output out = {.s = &s, .r = &r, .ranks = ranks, .path = vals[2], .opts = &o};
  if (vals[1] && (rc = atoll_cli_write_file(vals[1], write_json, &out)))
    exit_code = rc;
  if (r.violated && r.witness_expect >= 0) {
    /* Written first, so that the line says "written to" only for a file that was. */
    int wrc = vals[2] ? atoll_cli_write_file(vals[2], write_witness, &out) : 0;
    fprintf(stderr, "expect FAILED on some schedule: %s: worst %.3f; witness schedule of %u choices%s%s\n",
            s.expects[r.witness_expect].text, r.bounds[r.witness_expect].worst, r.n_witness,
            !vals[2] ? " (--witness FILE writes it)" : wrc ? ", not written to " : " written to ",
            vals[2] ? vals[2] : "");
    if (wrc)
      exit_code = wrc;
    if (vals[3] && (rc = trace_witness(&s, &r, vals[3])))
      exit_code = rc;
  } else {
    remove_stale(vals[2]);
    remove_stale(vals[3]);
  }
  atoll_explore_free(&r);
  atoll_arena_free(&a);
  atoll_mpi_finish();
  return exit_code;
}
