/* atoll sweep: run a scenario over the cross product of --set value lists and policies, one CSV
 * row per run. Runs are independent, so they are spread over worker threads (one per core by
 * default); rows are written in cross-product order whatever order the runs finish in. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/progress.h"
#include "tools/atoll/mpi_ranks.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"
#include "tools/atoll/sweep_shard.h"
#include "run/report.h"
#include "sim/dart_run.h"
#include "sim/run.h"

const atoll_subcommand atoll_cmd_sweep_def = {
    "sweep", atoll_cmd_sweep, "run a scenario over a grid of overrides and policies",
    "usage: atoll sweep SCENARIO --set PATH=v1,v2,... [--set ...] [--policy a,b,...] --csv FILE\n"
    "                   [--jobs N] [--shard K/N] [--seed N] [--duration-ms N] [--quiet]\n"
    "       atoll sweep --merge SHARD_FILE... --csv FILE\n"
    "\n"
    "Simulates SCENARIO once for every combination of the listed values (each --set with commas is an\n"
    "axis; commas inside [...] or {...} belong to the value) and every policy in --policy, and writes\n"
    "one CSV row per run: the swept values, RT pooled normalized latency, every client's normalized\n"
    "latency and throughput, total normalized throughput, preemptions, CU busy fractions and whether\n"
    "every expect: bound held. A one-line summary per run goes to stdout (to stderr with --csv -, which\n"
    "writes the CSV to stdout). This is how the paper's figures are reproduced\n"
    "(docs/simulator-results.md).\n"
    "\n"
    "  --jobs N    worker threads (default: the number of cores, at most 256)\n"
    "  --quiet     no progress line (shown on a terminal once the sweep lasts 2 s)\n"
    "  --shard K/N run only runs K-1, K-1+N, K-1+2N, ... of the cross product (1 <= K <= N) and write\n"
    "              them as shard K of N (a Slurm array task each; docs/scale-out.md)\n"
    "  --merge     join the N shard files of one sweep into the CSV a one-process sweep writes, byte\n"
    "              for byte; a missing, repeated or unfinished shard is refused\n"
    "\n"
    "exit: 0 every run's bounds hold; 1 a bound was violated in some run; 2 bad input.\n"};

/* MAX_RUNS: the product of the swept lists' lengths (docs/limits.md); a sweep keeps a row and a
 * line per run in memory. SET_TEXT: the longest --set text, so that one axis's PATH=VALUE fits. */
enum { MAX_AXES = 8, MAX_VALUES = 64, MAX_RUNS = 1000000, SET_TEXT = 1024 };

typedef struct axis {
  char path[256];
  const char *values[MAX_VALUES];
  uint32_t n;
  const char *option; /* the shorthand it came from ("--policy"), for the loader's messages; NULL: --set */
  const char *text;   /* as given, for messages */
} axis;

typedef struct sweep {
  const char *scenario;
  axis axes[MAX_AXES];
  uint32_t n_axes;
  const atoll_set_override *fixed; /* non-swept --set options, applied first */
  uint32_t n_fixed;
  uint32_t n_runs;
  uint32_t shard, n_shards; /* this process runs runs r with r % n_shards == shard */
  char **rows;     /* per run: the CSV row, or NULL on failure */
  char **summary;  /* per run: the stdout line */
  int *status;     /* per run: exit status of that run */
  uint32_t next, finished;
  atoll_progress progress; /* runs finished; updated under lock */
  pthread_mutex_t lock;
  /* The scenario's profiles as the fixed --set options leave it, loaded once: each run takes them
   * instead of parsing their YAML again (io/load.h). Read-only while the runs use it. */
  atoll_model_memo memo;
  const atoll_scenario *head; /* the loaded scenario whose clients head the CSV's columns */
} sweep;

/* Splits "PATH=a,b,[c,d]" into an axis; commas nested in brackets or braces stay in the value.
 * ATOLL_ERANGE: more than MAX_VALUES values. */
static int split_axis(char *text, axis *ax) {
  char *eq = strchr(text, '=');
  if (!eq || eq == text)
    return ATOLL_EINVAL;
  snprintf(ax->path, sizeof ax->path, "%.*s", (int)(eq - text), text);
  ax->n = 0;
  int depth = 0;
  char *start = eq + 1;
  for (char *p = start;; p++) {
    if (*p == '[' || *p == '{')
      depth++;
    else if ((*p == ']' || *p == '}') && depth > 0)
      depth--;
    if ((*p == ',' && depth == 0) || *p == '\0') {
      bool end = *p == '\0';
      *p = '\0';
      if (p == start)
        return ATOLL_EINVAL;
      if (ax->n == MAX_VALUES)
        return ATOLL_ERANGE;
      ax->values[ax->n++] = start;
      start = p + 1;
      if (end)
        break;
    }
  }
  return 0;
}

/* A --set as the user typed it, for messages: "--set PATH=V" or "--policy V". */
static const char *set_name(const atoll_set_override *set, char *buf, size_t size) {
  const char *eq = strchr(set->text, '=');
  if (set->option && eq)
    snprintf(buf, size, "%s %s", set->option, eq + 1);
  else
    snprintf(buf, size, "--set %s", set->text);
  return buf;
}

static void run_index_to_values(const sweep *sw, uint32_t run, uint32_t *pick) {
  /* The last axis varies fastest. */
  for (int32_t a = (int32_t)sw->n_axes - 1; a >= 0; a--) {
    pick[a] = run % sw->axes[a].n;
    run /= sw->axes[a].n;
  }
}

static void csv_cell(FILE *f, const char *s) {
  bool quote = strpbrk(s, ",\"\n") != NULL;
  if (!quote) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* A policy axis already names each run's policy; the policy column is for runs that do not sweep it. */
static bool policy_is_axis(const sweep *sw) {
  for (uint32_t a = 0; a < sw->n_axes; a++)
    if (strcmp(sw->axes[a].path, "policy") == 0)
      return true;
  return false;
}

static void num(FILE *f, double v) {
  if (v != v)
    fputs(",", f);
  else
    fprintf(f, ",%.6g", v);
}

static void format_row(const sweep *sw, const uint32_t *pick, const atoll_report *r, char **row) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return;
  for (uint32_t a = 0; a < sw->n_axes; a++) {
    if (a)
      fputc(',', f);
    csv_cell(f, sw->axes[a].values[pick[a]]);
  }
  const atoll_scenario *s = r->res->scenario;
  if (!policy_is_axis(sw))
    fprintf(f, "%s%s", sw->n_axes ? "," : "", atoll_policy_name(s->policy.kind));
  num(f, r->rt_norm_latency.mean), num(f, r->rt_norm_latency.p50), num(f, r->rt_norm_latency.p95);
  num(f, r->rt_norm_latency.p99), num(f, r->rt_norm_latency.max);
  num(f, r->total_norm_throughput);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    num(f, r->clients[c].norm_latency.mean), num(f, r->clients[c].norm_latency.p99);
    num(f, r->clients[c].norm_throughput);
  }
  fprintf(f, ",%u", r->preemption_count);
  num(f, r->preemption_latency_us.p99);
  num(f, r->cu_busy_frac), num(f, r->cu_busy_frac_rt), num(f, r->cu_busy_frac_be);
  fprintf(f, ",%s", r->all_hold ? "true" : "false");
  /* Absolute figures (appended, so earlier columns keep their places): what plots of latency in
   * ms and preemption means need (tools/plot). */
  num(f, r->rt_latency_us.mean), num(f, r->rt_latency_us.p99);
  num(f, r->preemption_latency_us.mean), num(f, r->preemption_latency_us.p50);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    num(f, r->clients[c].latency_us.mean), num(f, r->clients[c].latency_us.p99);
    num(f, r->clients[c].throughput_rps);
  }
  fputc('\n', f);
  if (fclose(f) == 0)
    *row = buf;
  else
    free(buf);
}

/* The overrides of one run: the fixed ones, then the run's value of each list (texts holds them). */
static uint32_t run_sets(const sweep *sw, const uint32_t *pick, atoll_set_override *sets, char (*texts)[SET_TEXT]) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < sw->n_fixed; i++)
    sets[n++] = sw->fixed[i];
  for (uint32_t a = 0; a < sw->n_axes; a++) {
    snprintf(texts[a], SET_TEXT, "%s=%s", sw->axes[a].path, sw->axes[a].values[pick[a]]);
    sets[n++] = (atoll_set_override){.text = texts[a], .option = sw->axes[a].option};
  }
  return n;
}

/* Whether s has the clients, in order, that head the CSV's columns: a --set may add, remove or
 * rename clients, and such a run's row would not fit the header. */
static bool same_clients(const atoll_scenario *s, const atoll_scenario *head) {
  if (!head)
    return true;
  if (s->n_clients != head->n_clients)
    return false;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (strcmp(s->clients[c].name, head->clients[c].name) != 0)
      return false;
  return true;
}

static void do_run(sweep *sw, uint32_t run) {
  uint32_t pick[MAX_AXES];
  run_index_to_values(sw, run, pick);
  atoll_set_override sets[64 + MAX_AXES];
  char texts[MAX_AXES][SET_TEXT]; /* PATH=VALUE, no longer than the --set text it comes from */
  uint32_t n = run_sets(sw, pick, sets, texts);
  atoll_arena arena;
  atoll_arena_init(&arena);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s;
  char *line = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&line, &len);
  int status = ATOLL_EXIT_BAD_INPUT;
  bool fitted = false;
  char why[512];
  double mape = 0;
  int fit_rc = 0;
  if (atoll_scenario_load_file_memo(&arena, sw->scenario, sets, n, &sw->memo, &s, &d) != 0) {
    fprintf(out, "run %u: ", run);
    atoll_diag_print(&d, out);
  } else if (!same_clients(&s, sw->head)) {
    fprintf(out, "run %u: its clients are not those that head the CSV's columns (a --set that adds, removes or "
            "renames clients): one CSV cannot hold both\n", run);
  } else if (atoll_sim_refusal(&s, why, sizeof why)) { /* what atoll sim refuses, in its words */
    fprintf(out, "run %u: %s\n", run, why);
  } else if ((fit_rc = atoll_cli_fit_inss(&arena, &s, false, &fitted, &mape)) != 0) {
    /* Under inss or gpulet a run without an InSS model fits one, as atoll sim does for the same
     * options (the fit simulates on the run's GPU, its models and its options, seed included). */
    fprintf(out, "run %u: fitting InSS's model: %s (policy %s)\n", run, atoll_cli_fit_why(&s, fit_rc),
            atoll_policy_name(s.policy.kind));
  } else {
    if (fitted) {
      char who[32];
      snprintf(who, sizeof who, "run %u: ", run);
      atoll_cli_fit_note(&s, who, mape);
    }
    atoll_run_results res;
    int rc = atoll_sim_run(&s, NULL, &res);
    atoll_report rep;
    if (rc == ATOLL_ENOTSUP)
      fprintf(out, "run %u: %s\n", run, atoll_sim_unsupported(&s, s.engine, why, sizeof why));
    else if (rc == ATOLL_EINVAL && atoll_sim_dart_plan_failure(&s, why, sizeof why))
      fprintf(out, "run %u: %s\n", run, why);
    else if (rc != 0)
      fprintf(out, "run %u: %s (policy %s)\n", run, atoll_strerror(rc), atoll_policy_name(s.policy.kind));
    else if (atoll_report_compute(&res, &rep) == 0) {
      format_row(sw, pick, &rep, &sw->rows[run]);
      fprintf(out, "run %u:", run);
      for (uint32_t a = 0; a < sw->n_axes; a++)
        fprintf(out, " %s=%s", sw->axes[a].path, sw->axes[a].values[pick[a]]);
      if (!policy_is_axis(sw))
        fprintf(out, " policy=%s", atoll_policy_name(s.policy.kind));
      fprintf(out, "  rt norm mean %.3f p99 %.3f  total norm thr %.3f%s\n", rep.rt_norm_latency.mean,
              rep.rt_norm_latency.p99, rep.total_norm_throughput, rep.all_hold ? "" : "  (bound violated)");
      status = rep.all_hold ? ATOLL_EXIT_OK : ATOLL_EXIT_VIOLATED;
      atoll_report_free(&rep);
    }
    if (rc == 0)
      atoll_run_results_free(&res);
  }
  fclose(out);
  sw->summary[run] = line;
  sw->status[run] = status;
  atoll_arena_free(&arena);
}

static void *worker(void *arg) {
  sweep *sw = arg;
  for (;;) {
    pthread_mutex_lock(&sw->lock);
    uint64_t run = sw->shard + (uint64_t)sw->next++ * sw->n_shards; /* N up to UINT32_MAX */
    pthread_mutex_unlock(&sw->lock);
    if (run >= sw->n_runs)
      return NULL;
    do_run(sw, (uint32_t)run);
    pthread_mutex_lock(&sw->lock);
    atoll_progress_update(&sw->progress, ++sw->finished);
    pthread_mutex_unlock(&sw->lock);
  }
}

static void mpi_run_one(void *ctx, uint32_t run) { do_run(ctx, run); }

/* base: the scenario with the fixed --set options only, or when that does not load the first run
 * that loads (every run's clients are checked against it: same_clients). */
static void write_header(const sweep *sw, FILE *f, const atoll_scenario *base) {
  for (uint32_t i = 0; i < sw->n_axes; i++)
    fprintf(f, "%s%s", i ? "," : "", sw->axes[i].path);
  if (!policy_is_axis(sw))
    fprintf(f, "%spolicy", sw->n_axes ? "," : "");
  fprintf(f, ",rt_norm_mean,rt_norm_p50,rt_norm_p95,rt_norm_p99,rt_norm_max,total_norm_throughput");
  if (base)
    for (uint32_t c = 0; c < base->n_clients; c++)
      fprintf(f, ",%s.norm_mean,%s.norm_p99,%s.norm_throughput", base->clients[c].name, base->clients[c].name,
              base->clients[c].name);
  fprintf(f, ",preemptions,preemption_p99_us,cu_busy,cu_busy_rt,cu_busy_be,bounds_hold");
  fprintf(f, ",rt_lat_mean_us,rt_lat_p99_us,preemption_mean_us,preemption_p50_us");
  if (base)
    for (uint32_t c = 0; c < base->n_clients; c++)
      fprintf(f, ",%s.lat_mean_us,%s.lat_p99_us,%s.throughput_rps", base->clients[c].name, base->clients[c].name,
              base->clients[c].name);
  fputc('\n', f);
}

/* The CSV (or shard file) as a whole, for atoll_cli_write_file: a sweep that cannot write it leaves
 * the file that was there as it was, and says why. */
typedef struct csv_out {
  sweep *sw;
  const atoll_scenario *base;
  bool sharded;
  const atoll_set_override *sets; /* the command line's, in its order: the sweep's identity */
  uint32_t n_sets;
  int exit_code; /* out: the highest run status */
} csv_out;

static int write_csv(FILE *csv, const void *ctx) {
  const csv_out *c = ctx;
  sweep *sw = c->sw;
  if (c->sharded)
    atoll_sweep_shard_begin(csv, sw->shard, sw->n_shards, sw->n_runs, sw->scenario, c->sets, c->n_sets);
  write_header(sw, csv, c->base);
  int exit_code = ATOLL_EXIT_OK;
  for (uint64_t r = sw->shard; r < sw->n_runs; r += sw->n_shards) { /* 64 bits: N up to UINT32_MAX */
    if (sw->rows[r])
      fputs(sw->rows[r], csv);
    else if (c->sharded)
      atoll_sweep_shard_no_row(csv, (uint32_t)r);
    if (sw->status[r] > exit_code)
      exit_code = sw->status[r];
  }
  if (c->sharded)
    atoll_sweep_shard_end(csv, exit_code);
  ((csv_out *)ctx)->exit_code = exit_code;
  return 0;
}

int atoll_cmd_sweep(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_sweep_def;
  atoll_run_opts o;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--merge") == 0)
      return atoll_sweep_merge(cmd, argc, argv);
  static const char *const extra[] = {"--csv", "--jobs", "--shard"};
  const char *vals[3];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 3, true, &rc))
    return rc;
  /* Before the SCENARIO count: "--csv --jobs 1" took --jobs as the file and 1 as a scenario. */
  static const char *const outputs[] = {"--csv"};
  bool csv_stdout = false; /* then the runs' lines go to stderr: stdout holds the CSV alone */
  if ((rc = atoll_cli_check_outputs(cmd, vals, outputs, 1, o.positional, o.n_positional, &csv_stdout)))
    return rc;
  if (o.n_positional != 1)
    return atoll_cli_usage_error(cmd, "expected one SCENARIO file");
  if (!vals[0])
    return atoll_cli_usage_error(cmd, "--csv FILE is required");
  static sweep sw;
  memset(&sw, 0, sizeof sw);
  sw.scenario = o.positional[0];
  atoll_set_override fixed[64];
  static char texts[64][SET_TEXT];
  char name[SET_TEXT + 32];
  /* Said after the run count, which is checked on every list as given (tests/scaleout). */
  const atoll_set_override *twice = NULL;
  const axis *twice_axis = NULL;
  /* A --set whose value has a top-level comma, or a --policy list, is an axis; others are fixed. */
  for (uint32_t i = 0; i < o.n_sets; i++) {
    if (strlen(o.sets[i].text) >= sizeof texts[i])
      return atoll_cli_usage_error(cmd, "a --set of %zu characters; at most %d", strlen(o.sets[i].text),
                                   SET_TEXT - 1);
    snprintf(texts[i], sizeof texts[i], "%s", o.sets[i].text);
    axis ax;
    char probe[SET_TEXT];
    memcpy(probe, texts[i], sizeof probe);
    int split = split_axis(probe, &ax);
    if (split == ATOLL_ERANGE)
      return atoll_cli_usage_error(cmd, "%s: more than %d values in one swept list (docs/limits.md)",
                                   set_name(&o.sets[i], name, sizeof name), MAX_VALUES);
    const char *eq = strchr(o.sets[i].text, '=');
    size_t path_len = eq ? (size_t)(eq - o.sets[i].text) : strlen(o.sets[i].text);
    /* A run takes one value per path: a second list for a path made runs that never applied the
     * first, and a fixed value after a list was dropped (the lists are applied last). A fixed value
     * before the list is overridden by it, as a later --set overrides an earlier one in atoll sim. */
    for (uint32_t a = 0; a < sw.n_axes && !twice; a++)
      if (strlen(sw.axes[a].path) == path_len && strncmp(sw.axes[a].path, o.sets[i].text, path_len) == 0)
        twice = &o.sets[i], twice_axis = &sw.axes[a];
    if (split == 0 && ax.n > 1) {
      if (sw.n_axes == MAX_AXES)
        return atoll_cli_usage_error(cmd, "at most %d swept --set options", MAX_AXES);
      if (split_axis(texts[i], &sw.axes[sw.n_axes]) != 0)
        return atoll_cli_usage_error(cmd, "bad --set list '%s'", o.sets[i].text);
      sw.axes[sw.n_axes].option = o.sets[i].option;
      sw.axes[sw.n_axes].text = o.sets[i].text;
      sw.n_axes++;
    } else {
      fixed[sw.n_fixed++] = o.sets[i];
    }
  }
  sw.fixed = fixed;
  uint64_t runs = 1;
  for (uint32_t a = 0; a < sw.n_axes; a++)
    if ((runs *= sw.axes[a].n) > MAX_RUNS) /* each factor is at most MAX_VALUES: no overflow */
      return atoll_cli_usage_error(cmd, "the swept lists make more than %d runs", MAX_RUNS);
  sw.n_runs = (uint32_t)runs;
  if (twice) {
    char first[SET_TEXT + 32];
    set_name(&(atoll_set_override){.text = twice_axis->text, .option = twice_axis->option}, first, sizeof first);
    return atoll_cli_usage_error(cmd, "%s: %s is already swept by %s; a run takes one value: give one list",
                                 set_name(twice, name, sizeof name), twice_axis->path, first);
  }
  uint64_t jobs = atoll_cli_default_jobs(256);
  if (vals[1] && !atoll_cli_parse_uint(vals[1], 1, 256, &jobs))
    return atoll_cli_usage_error(cmd, "--jobs takes a number from 1 to 256, not '%s'", vals[1]);
  sw.n_shards = 1;
  if (vals[2]) {
    /* K before the slash, N after it, each a whole number. */
    const char *slash = strchr(vals[2], '/');
    char k_text[24] = "";
    uint64_t k = 0, n = 0;
    bool parsed = slash && (size_t)(slash - vals[2]) < sizeof k_text;
    if (parsed)
      memcpy(k_text, vals[2], (size_t)(slash - vals[2]));
    if (!parsed || !atoll_cli_parse_uint(k_text, 1, UINT32_MAX, &k) ||
        !atoll_cli_parse_uint(slash + 1, 1, UINT32_MAX, &n) || k > n)
      return atoll_cli_usage_error(cmd, "--shard wants K/N with 1 <= K <= N, not '%s'", vals[2]);
    sw.shard = (uint32_t)(k - 1), sw.n_shards = (uint32_t)n;
  }
  /* Its client names head the CSV's columns, and its profiles serve every run. A scenario that
   * loads only with a swept value gives no profiles, and its clients come from the first run that
   * loads (the header omitted them, and the rows had them). When no run loads, the sweep stops
   * here: each run said the same error and the CSV was replaced by a header alone. */
  atoll_arena base_arena;
  atoll_scenario base_s;
  const atoll_scenario *base = atoll_cli_load_memo(sw.scenario, sw.fixed, sw.n_fixed, &base_arena, &base_s, &sw.memo);
  for (uint32_t r = 0; !base && r < sw.n_runs; r++) {
    uint32_t pick[MAX_AXES];
    atoll_set_override sets[64 + MAX_AXES];
    static char run_texts[MAX_AXES][SET_TEXT];
    run_index_to_values(&sw, r, pick);
    uint32_t n = run_sets(&sw, pick, sets, run_texts);
    atoll_diag d;
    atoll_diag_clear(&d);
    atoll_arena_free(&base_arena);
    atoll_arena_init(&base_arena);
    if (atoll_scenario_load_file_memo(&base_arena, sw.scenario, sets, n, NULL, &base_s, &d) == 0)
      base = &base_s;
    else if (r + 1 == sw.n_runs) { /* none loads: run 0's error, as atoll sim says it */
      run_index_to_values(&sw, 0, pick);
      n = run_sets(&sw, pick, sets, run_texts);
      atoll_arena_free(&base_arena);
      atoll_arena_init(&base_arena);
      atoll_diag_clear(&d);
      atoll_scenario_load_file_memo(&base_arena, sw.scenario, sets, n, NULL, &base_s, &d);
      atoll_diag_print(&d, stderr);
      if (sw.n_runs > 1)
        fprintf(stderr, "atoll sweep: none of the %u runs loads (run 0's error above); nothing was run\n", sw.n_runs);
      atoll_arena_free(&base_arena);
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  sw.head = base;
  sw.rows = calloc(sw.n_runs, sizeof *sw.rows);
  sw.summary = calloc(sw.n_runs, sizeof *sw.summary);
  sw.status = calloc(sw.n_runs, sizeof *sw.status);
  int rank, ranks;
  atoll_mpi_start(&rank, &ranks);
  if (ranks > 1 && rank != 0) {
    /* A worker rank: runs what rank 0 hands out; rank 0 prints and writes everything. */
    int failed = sw.rows && sw.summary && sw.status
                     ? atoll_mpi_sweep(&sw, mpi_run_one, sw.shard, sw.n_shards, sw.n_runs, sw.rows, sw.summary, sw.status)
                     : -1;
    free(sw.rows), free(sw.summary), free(sw.status);
    atoll_arena_free(&base_arena);
    atoll_mpi_finish();
    return failed ? ATOLL_EXIT_BAD_INPUT : ATOLL_EXIT_OK;
  }
  if (!sw.rows || !sw.summary || !sw.status) {
    fprintf(stderr, "atoll sweep: out of memory\n");
    free(sw.rows), free(sw.summary), free(sw.status);
    atoll_arena_free(&base_arena);
    if (ranks > 1) /* the other ranks wait for runs: end the whole job */
      atoll_mpi_abort(ATOLL_EXIT_BAD_INPUT);
    return ATOLL_EXIT_BAD_INPUT;
  }
  pthread_mutex_init(&sw.lock, NULL);
  atoll_progress_start(&sw.progress, atoll_progress_wanted(o.quiet) ? stderr : NULL, "sweep", "runs",
                       sw.n_runs > sw.shard ? (sw.n_runs - sw.shard + sw.n_shards - 1) / sw.n_shards : 0);
  if (ranks > 1) {
    if (atoll_mpi_sweep(&sw, mpi_run_one, sw.shard, sw.n_shards, sw.n_runs, sw.rows, sw.summary, sw.status) != 0)
      fprintf(stderr, "atoll sweep: a rank stopped answering\n");
  } else {
    pthread_t th[256];
    long started = 0;
    for (; (uint64_t)started < jobs && (uint32_t)started < sw.n_runs; started++)
      if (pthread_create(&th[started], NULL, worker, &sw) != 0)
        break;
    if (started == 0)
      worker(&sw);
    for (long i = 0; i < started; i++)
      pthread_join(th[i], NULL);
  }
  atoll_progress_end(&sw.progress);
  pthread_mutex_destroy(&sw.lock);
  FILE *lines = csv_stdout ? stderr : stdout;
  for (uint64_t r = sw.shard; r < sw.n_runs; r += sw.n_shards)
    if (sw.summary[r])
      fputs(sw.summary[r], sw.status[r] == ATOLL_EXIT_BAD_INPUT ? stderr : lines);
  csv_out c = {.sw = &sw, .base = base, .sharded = vals[2] != NULL, .sets = o.sets, .n_sets = o.n_sets};
  int exit_code = atoll_cli_write_file(vals[0], write_csv, &c);
  if (exit_code == 0)
    exit_code = c.exit_code;
  for (uint64_t r = sw.shard; r < sw.n_runs; r += sw.n_shards)
    free(sw.rows[r]), free(sw.summary[r]);
  free(sw.rows), free(sw.summary), free(sw.status);
  atoll_arena_free(&base_arena);
  atoll_mpi_finish();
  return exit_code;
}
