/* atoll compare SCENARIO --policy a,b,c: one scenario under several policies, side by side.
 *
 * Each policy is one ordinary simulation (the scenario with policy=NAME as an override, loaded
 * and reported exactly as `atoll sim` does), run on worker threads; the table takes its figures
 * from the run reports. RT latencies are also shown relative to rt-only on the same scenario,
 * which is how REEF's Fig. 15 normalizes them; rt-only is run as the reference even when it is not
 * one of the columns. */
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "atoll/policies.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/progress.h"
#include "run/report.h"
#include "sim/run.h"

const atoll_subcommand atoll_cmd_compare_def = {
    "compare", atoll_cmd_compare, "run a scenario under several policies and compare them in one table",
    "usage: atoll compare SCENARIO --policy a,b,... [--markdown] [--jobs N]\n"
    "                     [--set PATH=VALUE]... [--seed N] [--duration-ms N] [--quiet]\n"
    "\n"
    "Simulates SCENARIO once per policy (each run is `atoll sim SCENARIO --policy NAME`) and prints one\n"
    "table with the policies as columns: pooled RT latency mean and p99 (in ms, relative to rt-only\n"
    "on the same scenario, and relative to the model's standalone latency), RT and BE throughput,\n"
    "total normalized throughput (REEF's overall throughput), preemptions, and how many of the\n"
    "scenario's expect: bounds held. rt-only is also run as the reference when it is not listed.\n"
    "The other options apply to every column; --set policy.OPTION=VALUE must suit every listed\n"
    "policy, and the reference rt-only run added when not listed runs without it.\n"
    "\n"
    "  --policy a,b,...  the policies, in column order (any of:" ATOLL_POLICY_NAMES ")\n"
    "  --markdown        a Markdown table (for docs) instead of aligned text\n"
    "  --jobs N          worker threads (default: the number of cores, at most 64)\n"
    "  --quiet, -q       no progress line\n"
    "\n"
    "The scenario's bounds were written for its own policy, so a bound another policy violates is a\n"
    "finding, not an error: exit 0 once every run completed; 2 bad input or a run that failed.\n"};

/* More than the policies there are (19, docs/policies.md), so that every one fits in one table. */
enum { MAX_POLICIES = 32 };

/* What the table shows of one run. */
typedef struct figures {
  double rt_mean_ms, rt_p99_ms, rt_norm_mean, rt_norm_p99;
  double rt_rps, be_rps, be_norm, total_norm;
  uint32_t preemptions;
  double preempt_mean_us;
  uint32_t bounds, bounds_held;
} figures;

typedef struct comparison {
  const atoll_subcommand *cmd;
  const atoll_run_opts *base; /* the options without the policy list */
  const char *policy[MAX_POLICIES + 1];
  uint32_t policy_at; /* where the policy list stood among the settings: each column's goes there */
  int32_t added_ref;  /* the rt-only run added as the reference when not listed; -1 when listed */
  char set_text[MAX_POLICIES + 1][96];
  figures fig[MAX_POLICIES + 1];
  int status[MAX_POLICIES + 1]; /* 0 ok, else an exit code */
  /* The scenario's profiles, loaded once for every policy's run (io/load.h); read-only meanwhile. */
  atoll_model_memo memo;
  uint32_t n, next, finished;
  bool failed; /* a run failed: no other starts (its error is the command's; one message, not n) */
  atoll_progress progress;
  pthread_mutex_t lock;
} comparison;

static void collect(const atoll_report *r, figures *f) {
  const atoll_scenario *s = r->res->scenario;
  *f = (figures){.rt_mean_ms = r->rt_latency_us.mean / 1000.0, .rt_p99_ms = r->rt_latency_us.p99 / 1000.0,
                 .rt_norm_mean = r->rt_norm_latency.mean, .rt_norm_p99 = r->rt_norm_latency.p99,
                 .total_norm = r->total_norm_throughput, .preemptions = r->preemption_count,
                 .preempt_mean_us = r->preemption_latency_us.mean, .bounds = s->n_expects};
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client_report *cr = &r->clients[c];
    if (s->clients[c].cls == ATOLL_CLASS_RT) {
      f->rt_rps += cr->throughput_rps;
    } else {
      f->be_rps += cr->throughput_rps;
      if (!isnan(cr->norm_throughput))
        f->be_norm += cr->norm_throughput;
    }
  }
  for (uint32_t e = 0; e < s->n_expects; e++)
    f->bounds_held += r->verdicts[e].holds;
}

/* One policy's run: the base options with policy=NAME where the list stood, loaded as `atoll sim`
 * loads a scenario with --policy NAME there. */
static void run_one(comparison *cmp, uint32_t i) {
  atoll_run_opts o = *cmp->base;
  uint32_t dropped_before = 0; /* policy options dropped before the policy's place */
  int status = ATOLL_EXIT_BAD_INPUT;
  snprintf(cmp->set_text[i], sizeof cmp->set_text[i], "policy=%s", cmp->policy[i]);
  /* An error in the name echoes it as the user gave it: "--policy NAME", not "policy=NAME". */
  /* The added reference runs without the listed policies' own options (policy.OPTION=...): they
   * were given for the columns, and rt-only takes none of them. */
  if ((int32_t)i == cmp->added_ref) {
    uint32_t kept = 0;
    for (uint32_t k = 0; k < o.n_sets; k++) {
      if (strncmp(o.sets[k].text, "policy.", 7) != 0)
        o.sets[kept++] = o.sets[k];
      else if (k < cmp->policy_at)
        dropped_before++;
    }
    o.n_sets = kept;
  }
  atoll_cli_force_set_at(&o, cmp->policy_at - dropped_before,
                         (atoll_set_override){.text = cmp->set_text[i], .option = "--policy"});
  atoll_arena a;
  atoll_scenario s;
  if (atoll_cli_load_scenario_memo(cmp->cmd, &o, &cmp->memo, &a, &s) == 0) {
    atoll_run_results res;
    int rc = atoll_sim_run(&s, NULL, &res);
    atoll_report rep;
    if (rc != 0) {
      char why[256];
      fprintf(stderr, "atoll compare: policy %s: %s\n", cmp->policy[i],
              rc == ATOLL_ENOTSUP ? atoll_sim_unsupported(&s, s.engine, why, sizeof why) : atoll_strerror(rc));
    } else if (atoll_report_compute(&res, &rep) != 0) {
      fprintf(stderr, "atoll compare: out of memory\n");
    } else {
      collect(&rep, &cmp->fig[i]);
      status = 0;
      atoll_report_free(&rep);
    }
    if (rc == 0)
      atoll_run_results_free(&res);
    atoll_arena_free(&a);
  }
  pthread_mutex_lock(&cmp->lock);
  cmp->status[i] = status;
  cmp->failed = cmp->failed || status != 0;
  pthread_mutex_unlock(&cmp->lock);
}

static void *worker(void *arg) {
  comparison *cmp = arg;
  for (;;) {
    pthread_mutex_lock(&cmp->lock);
    uint32_t i = cmp->failed ? cmp->n : cmp->next++;
    pthread_mutex_unlock(&cmp->lock);
    if (i >= cmp->n)
      return NULL;
    run_one(cmp, i);
    pthread_mutex_lock(&cmp->lock);
    atoll_progress_update(&cmp->progress, ++cmp->finished);
    pthread_mutex_unlock(&cmp->lock);
  }
}

/* ---- The table ---------------------------------------------------------------------------- */

typedef enum row_fmt { F_MS, F_RATIO, F_RPS, F_NORM, F_COUNT, F_US, F_BOUNDS } row_fmt;

typedef struct row {
  const char *label;
  row_fmt fmt;
  size_t offset; /* of a double in figures; unused for counts and bounds */
  bool vs_ref;   /* divided by the rt-only reference's value at the same offset */
} row;

static const row rows[] = {
    {"RT latency mean (ms)", F_MS, offsetof(figures, rt_mean_ms), false},
    {"RT latency p99 (ms)", F_MS, offsetof(figures, rt_p99_ms), false},
    {"RT latency mean (x rt-only)", F_RATIO, offsetof(figures, rt_mean_ms), true},
    {"RT latency p99 (x rt-only)", F_RATIO, offsetof(figures, rt_p99_ms), true},
    {"RT latency mean (x standalone)", F_RATIO, offsetof(figures, rt_norm_mean), false},
    {"RT latency p99 (x standalone)", F_RATIO, offsetof(figures, rt_norm_p99), false},
    {"RT throughput (req/s)", F_RPS, offsetof(figures, rt_rps), false},
    {"BE throughput (req/s)", F_RPS, offsetof(figures, be_rps), false},
    {"BE throughput (normalized)", F_NORM, offsetof(figures, be_norm), false},
    {"total normalized throughput", F_NORM, offsetof(figures, total_norm), false},
    {"preemptions", F_COUNT, 0, false},
    {"preemption latency mean (us)", F_US, offsetof(figures, preempt_mean_us), false},
    {"expect bounds held", F_BOUNDS, 0, false},
};
enum { N_ROWS = sizeof rows / sizeof rows[0] };

static double value_at(const figures *f, size_t offset) { return *(const double *)((const char *)f + offset); }

/* One cell's text; "-" for a value that is undefined (no RT requests, no preemptions). */
static const char *cell(char buf[32], const row *rw, const figures *f, const figures *ref) {
  double v = 0;
  if (rw->fmt == F_COUNT) {
    snprintf(buf, 32, "%u", f->preemptions);
    return buf;
  }
  if (rw->fmt == F_BOUNDS) {
    snprintf(buf, 32, "%u/%u", f->bounds_held, f->bounds);
    return buf;
  }
  v = value_at(f, rw->offset);
  if (rw->vs_ref)
    v = ref ? v / value_at(ref, rw->offset) : NAN;
  if (!isfinite(v))
    return strcpy(buf, "-");
  static const int prec[] = {[F_MS] = 3, [F_RATIO] = 3, [F_RPS] = 1, [F_NORM] = 3, [F_US] = 1};
  snprintf(buf, 32, "%.*f", prec[rw->fmt], v);
  return buf;
}

static void print_table(const comparison *cmp, uint32_t n_cols, const figures *ref, bool markdown) {
  int label_w = 0, col_w = 8;
  for (uint32_t r = 0; r < N_ROWS; r++)
    if ((int)strlen(rows[r].label) > label_w)
      label_w = (int)strlen(rows[r].label);
  for (uint32_t i = 0; i < n_cols; i++)
    if ((int)strlen(cmp->policy[i]) > col_w)
      col_w = (int)strlen(cmp->policy[i]);
  if (markdown) {
    printf("| |");
    for (uint32_t i = 0; i < n_cols; i++)
      printf(" %s |", cmp->policy[i]);
    printf("\n|---|");
    for (uint32_t i = 0; i < n_cols; i++)
      printf("---:|");
    printf("\n");
  } else {
    printf("%-*s", label_w, "");
    for (uint32_t i = 0; i < n_cols; i++)
      printf("  %*s", col_w, cmp->policy[i]);
    printf("\n");
  }
  for (uint32_t r = 0; r < N_ROWS; r++) {
    if (markdown)
      printf("| %s |", rows[r].label);
    else
      printf("%-*s", label_w, rows[r].label);
    for (uint32_t i = 0; i < n_cols; i++) {
      char buf[32];
      const char *text = cell(buf, &rows[r], &cmp->fig[i], ref);
      if (markdown)
        printf(" %s |", text);
      else
        printf("  %*s", col_w, text);
    }
    printf("\n");
  }
}

/* ---- The command -------------------------------------------------------------------------- */

/* A setting as the user typed it: "--policy a,b" or "--set policy=a,b" (cut to fit a message). */
static const char *as_typed(const atoll_set_override *set, char *buf, size_t size) {
  if (set->option)
    snprintf(buf, size, "%s %.100s", set->option, strchr(set->text, '=') + 1);
  else
    snprintf(buf, size, "--set %.100s", set->text);
  return buf;
}

/* Takes the policy list out of the options: the one policy=... override (what --policy writes);
 * its place is kept for each column's policy=NAME. */
static int take_policies(comparison *cmp, atoll_run_opts *o, char *list, size_t size) {
  char first[128], second[128];
  int32_t at = -1;
  for (uint32_t i = 0; i < o->n_sets; i++) {
    if (strncmp(o->sets[i].text, "policy=", 7) != 0)
      continue;
    if (at >= 0) /* the columns are one list: a second would silently replace the first */
      return atoll_cli_usage_error(cmp->cmd, "the policy list is given twice (%s, %s): give it once",
                                   as_typed(&o->sets[at], first, sizeof first), as_typed(&o->sets[i], second,
                                   sizeof second));
    at = (int32_t)i;
  }
  if (at < 0)
    return atoll_cli_usage_error(cmp->cmd, "--policy a,b,... is required");
  if (strlen(o->sets[at].text + 7) >= size)
    return atoll_cli_usage_error(cmp->cmd, "the --policy list is longer than %zu characters", size - 1);
  snprintf(list, size, "%s", o->sets[at].text + 7);
  memmove(&o->sets[at], &o->sets[at + 1], (o->n_sets - (uint32_t)at - 1) * sizeof o->sets[0]);
  o->n_sets--;
  cmp->policy_at = (uint32_t)at;
  for (char *p = list, *comma; p; p = comma ? comma + 1 : NULL) {
    if ((comma = strchr(p, ',')))
      *comma = '\0';
    if (*p == '\0')
      return atoll_cli_usage_error(cmp->cmd, "the --policy list has an empty name (two commas, or one at an end)");
    if (cmp->n == MAX_POLICIES)
      return atoll_cli_usage_error(cmp->cmd, "at most %d policies", MAX_POLICIES);
    if (strlen(p) + sizeof "policy=" > sizeof cmp->set_text[0]) /* no policy has so long a name */
      return atoll_cli_usage_error(cmp->cmd, "no policy is named '%s'", p);
    for (uint32_t i = 0; i < cmp->n; i++)
      if (strcmp(cmp->policy[i], p) == 0)
        return atoll_cli_usage_error(cmp->cmd, "policy '%s' listed twice", p);
    cmp->policy[cmp->n++] = p;
  }
  return cmp->n ? 0 : atoll_cli_usage_error(cmp->cmd, "--policy lists no policy");
}

int atoll_cmd_compare(int argc, char **argv) {
  static comparison cmp;
  memset(&cmp, 0, sizeof cmp);
  cmp.cmd = &atoll_cmd_compare_def;
  /* --markdown is a flag, which the shared parser does not know: take it out first. */
  char *args[256];
  int n_args = 0;
  bool markdown = false;
  if (argc > 256)
    return atoll_cli_usage_error(cmp.cmd, "at most 255 arguments, not %d", argc - 1);
  for (int i = 0; i < argc; i++) {
    if (i > 0 && strcmp(argv[i], "--markdown") == 0)
      markdown = true;
    else
      args[n_args++] = argv[i];
  }
  static atoll_run_opts o;
  static const char *const extra[] = {"--jobs"};
  const char *vals[1];
  int rc;
  if (!atoll_cli_parse_or_help(cmp.cmd, n_args, args, &o, extra, vals, 1, true, &rc))
    return rc;
  if (o.n_positional != 1)
    return atoll_cli_usage_error(cmp.cmd, "expected one SCENARIO file");
  static char list[1024];
  if ((rc = take_policies(&cmp, &o, list, sizeof list)))
    return rc;
  uint64_t jobs = atoll_cli_default_jobs(64);
  if (vals[0] && !atoll_cli_parse_uint(vals[0], 1, 64, &jobs))
    return atoll_cli_usage_error(cmp.cmd, "--jobs takes a number from 1 to 64, not '%s'", vals[0]);
  /* The rt-only reference: a listed column, or an extra run after the columns. */
  uint32_t n_cols = cmp.n;
  int32_t ref = -1;
  cmp.added_ref = -1;
  for (uint32_t i = 0; i < cmp.n; i++)
    if (strcmp(cmp.policy[i], "rt-only") == 0)
      ref = (int32_t)i;
  if (ref < 0) {
    ref = cmp.added_ref = (int32_t)cmp.n;
    cmp.policy[cmp.n++] = "rt-only";
  }
  cmp.base = &o;
  /* The scenario with the options but no policy, for its profiles. */
  atoll_arena base_arena;
  atoll_scenario base;
  /* When even that does not load (no such file, a bad --set), every run would say why: one at a
   * time, the first one's message is the only one (a failed run stops the rest). */
  if (!atoll_cli_load_memo(o.positional[0], o.sets, o.n_sets, &base_arena, &base, &cmp.memo))
    jobs = 1;
  pthread_mutex_init(&cmp.lock, NULL);
  atoll_progress_start(&cmp.progress, atoll_progress_wanted(o.quiet) ? stderr : NULL, "compare", "runs", cmp.n);
  pthread_t th[64];
  long started = 0;
  for (; (uint64_t)started < jobs && (uint32_t)started < cmp.n; started++)
    if (pthread_create(&th[started], NULL, worker, &cmp) != 0)
      break;
  if (started == 0)
    worker(&cmp);
  for (long i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  atoll_progress_end(&cmp.progress);
  pthread_mutex_destroy(&cmp.lock);
  atoll_arena_free(&base_arena);
  for (uint32_t i = 0; i < cmp.n; i++)
    if (cmp.status[i])
      return cmp.status[i];
  print_table(&cmp, n_cols, &cmp.fig[ref], markdown);
  return ATOLL_EXIT_OK;
}
