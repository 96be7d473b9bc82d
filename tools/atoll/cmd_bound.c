/* atoll bound SCENARIO: an analytic worst-case response time for every RT client (sim/bound.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/bound.h"
#include "sim/dart_bound.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"
#include "io/json_out.h"

const atoll_subcommand atoll_cmd_bound_def = {
    "bound", atoll_cmd_bound, "compute a worst-case RT response time analytically",
    "usage: atoll bound SCENARIO [--analysis rt-queue|dart] [--json FILE|-] [--spread F]\n"
    "                   [--set PATH=VALUE]... [--policy NAME]\n"
    "\n"
    "--analysis rt-queue (the default, except under dart, base-gpu and base-cpu):\n"
    "Bounds the response time of every RT client of SCENARIO under rt-only, reset or reef: RT tasks\n"
    "run one at a time from a FIFO queue, so a request waits for the RT requests that can arrive\n"
    "before it in the same busy period (from each client's minimum inter-arrival time), plus one\n"
    "blocking term for taking the GPU from BE work (docs/bound.md). Task times are the models'\n"
    "standalone latencies on the scenario's simulated GPU, with reef's padding overheads.\n"
    "\n"
    "--analysis dart (the default under dart, base-gpu and base-cpu): DART's response-time test\n"
    "(Eq. 5-6, with the stage overheads of Eq. 1-4) on the stage plan the simulator runs, or under\n"
    "base-gpu and base-cpu the single-processor non-preemptive test (docs/dart.md).\n"
    "\n"
    "  --json FILE|-   rt-queue: write {\"clients\":[{\"name\",\"wcrt_us\",\"deadline_us\",\"schedulable\"}], ...}\n"
    "                  dart: write {\"schedulable\":B,\"tasks\":[{\"client\",\"wcrt_us\",\"deadline_us\",\"ok\"}]}\n"
    "  --spread F      block durations may exceed the profile by the fraction F (default: sim.timing_spread);\n"
    "                  rt-queue only\n"
    "  --set PATH=VALUE, --policy NAME\n"
    "                  as for atoll sim\n"
    "\n"
    "exit: 0 every RT client is schedulable (bound <= deadline); 1 one is not, or no finite bound\n"
    "exists; 2 bad input, or an RT client without a minimum inter-arrival time (poisson, closed\n"
    "loop), an EDF RT queue, or a policy the analysis does not cover (the reason is printed).\n"};

static void print_us(FILE *f, int64_t ns) {
  if (ns == INT64_MAX)
    fputs("null", f);
  else
    fprintf(f, "%.3f", (double)ns / 1e3);
}

/* What a JSON output is written from (atoll_cli_write_file's context): r or dart. */
typedef struct bound_output {
  const atoll_scenario *s;
  const atoll_bound_result *r;
  const atoll_dart_bound_result *dart;
} bound_output;

static int write_json(FILE *f, const void *ctx) {
  const atoll_scenario *s = ((const bound_output *)ctx)->s;
  const atoll_bound_result *r = ((const bound_output *)ctx)->r;
  fprintf(f, "{\"policy\":\"%s\",\"clients\":[", atoll_policy_name(s->policy.kind));
  for (uint32_t i = 0; i < r->n_clients; i++) {
    const atoll_bound_client *c = &r->clients[i];
    fprintf(f, "%s{\"name\":", i ? "," : "");
    atoll_json_write_string(f, s->clients[c->client].name);
    fputs(",\"wcrt_us\":", f);
    print_us(f, c->wcrt_ns);
    fputs(",\"deadline_us\":", f);
    if (c->deadline_ns)
      print_us(f, c->deadline_ns);
    else
      fputs("null", f);
    fprintf(f, ",\"schedulable\":%s,\"task_us\":", c->schedulable ? "true" : "false");
    print_us(f, c->task_ns);
    fputs(",\"min_gap_us\":", f);
    print_us(f, c->min_gap_ns);
    fputc('}', f);
  }
  const atoll_bound_blocking *b = &r->blocking;
  fputs("],\"blocking_us\":{\"hq_reset\":", f);
  print_us(f, b->hq_reset_ns);
  fputs(",\"eviction\":", f);
  print_us(f, b->eviction_ns);
  fputs(",\"stream_switch\":", f);
  print_us(f, b->stream_switch_ns);
  fputs(",\"cu_reset\":", f);
  print_us(f, b->cu_reset_ns);
  fputs(",\"unkillable\":", f);
  print_us(f, b->unkillable_ns);
  fputs(",\"copy\":", f);
  print_us(f, b->copy_ns);
  fputs(",\"total\":", f);
  print_us(f, b->total_ns);
  fprintf(f, "},\"utilization\":%.6f,\"busy_period_us\":", r->utilization);
  print_us(f, r->busy_period_ns);
  fprintf(f, ",\"offsets_evaluated\":%u}\n", r->points);
  return 0;
}

static void print_table(FILE *f, const atoll_scenario *s, const atoll_bound_result *r) {
  bool all = true;
  for (uint32_t i = 0; i < r->n_clients; i++)
    all = all && r->clients[i].schedulable;
  fprintf(f, "%s: %s RT client %s (policy %s, FIFO RT queue)\n\n", all ? "SCHEDULABLE" : "NOT SCHEDULABLE", all ? "every" : "some",
          all ? "meets its deadline" : "is NOT proved to meet its deadline", atoll_policy_name(s->policy.kind));
  fprintf(f, "%-20s %12s %12s %14s %14s  %s\n", "client", "task", "min gap", "wcrt", "deadline", "schedulable");
  for (uint32_t i = 0; i < r->n_clients; i++) {
    const atoll_bound_client *c = &r->clients[i];
    char task[32], gap[32], wcrt[32], dl[32];
    atoll_fmt_ns(task, sizeof task, c->task_ns);
    if (c->min_gap_ns == INT64_MAX)
      snprintf(gap, sizeof gap, "once");
    else
      atoll_fmt_ns(gap, sizeof gap, c->min_gap_ns);
    if (c->wcrt_ns == INT64_MAX)
      snprintf(wcrt, sizeof wcrt, "unbounded");
    else
      atoll_fmt_ns(wcrt, sizeof wcrt, c->wcrt_ns);
    if (c->deadline_ns)
      atoll_fmt_ns(dl, sizeof dl, c->deadline_ns);
    else
      snprintf(dl, sizeof dl, "none");
    fprintf(f, "%-20s %12s %12s %14s %14s  %s\n", s->clients[c->client].name, task, gap, wcrt, dl,
            c->schedulable ? "yes" : "no");
  }
  char tot[32], busy[32];
  atoll_fmt_ns(tot, sizeof tot, r->blocking.total_ns);
  if (r->busy_period_ns == INT64_MAX)
    snprintf(busy, sizeof busy, "unbounded");
  else
    atoll_fmt_ns(busy, sizeof busy, r->busy_period_ns);
  fprintf(f, "\nblocking %s per busy period; RT utilization %.3f; busy period %s; %u offsets evaluated\n", tot,
          r->utilization, busy, r->points);
}

static bool dart_family(atoll_policy_kind k) {
  return k == ATOLL_POLICY_DART || k == ATOLL_POLICY_BASE_GPU || k == ATOLL_POLICY_BASE_CPU;
}

/* The Interface of `--analysis dart --json` (docs/dart.md): {"schedulable", "tasks": [{"client",
 * "wcrt_us", "deadline_us", "ok"}]}; checks outside the repository read exactly these keys. */
static int write_dart_json(FILE *f, const void *ctx) {
  const atoll_scenario *s = ((const bound_output *)ctx)->s;
  const atoll_dart_bound_result *r = ((const bound_output *)ctx)->dart;
  fprintf(f, "{\"schedulable\":%s,\"tasks\":[", r->schedulable ? "true" : "false");
  for (uint32_t i = 0; i < r->n_tasks; i++) {
    const atoll_dart_bound_task *t = &r->tasks[i];
    fprintf(f, "%s{\"client\":", i ? "," : "");
    atoll_json_write_string(f, s->clients[t->client].name);
    fputs(",\"wcrt_us\":", f);
    print_us(f, t->wcrt_ns);
    fputs(",\"deadline_us\":", f);
    print_us(f, t->deadline_ns);
    fprintf(f, ",\"ok\":%s}", t->ok ? "true" : "false");
  }
  fputs("]}\n", f);
  return 0;
}

static void print_dart_table(FILE *f, const atoll_scenario *s, const atoll_dart_bound_result *r) {
  bool dart = r->policy == ATOLL_POLICY_DART;
  fprintf(f, "%s: %s RT client %s (policy %s, %s)\n\n", r->schedulable ? "SCHEDULABLE" : "NOT SCHEDULABLE",
          r->schedulable ? "every" : "some", r->schedulable ? "meets its deadline" : "is NOT proved to meet its deadline",
          atoll_policy_name(r->policy),
          dart ? "DART Eq. 5-6 over the stage plan" : "one processor, non-preemptive fixed priorities");
  fprintf(f, "%-20s %5s %12s %12s %14s %14s  %s\n", "client", "prio", "period", dart ? "C max" : "C", "wcrt", "deadline",
          "ok");
  for (uint32_t i = 0; i < r->n_tasks; i++) {
    const atoll_dart_bound_task *t = &r->tasks[i];
    char per[32], c[32], w[32], dl[32];
    atoll_fmt_ns(per, sizeof per, t->period_ns);
    atoll_fmt_ns(c, sizeof c, t->c_max_ns);
    if (t->wcrt_ns == INT64_MAX)
      snprintf(w, sizeof w, "none");
    else
      atoll_fmt_ns(w, sizeof w, t->wcrt_ns);
    atoll_fmt_ns(dl, sizeof dl, t->deadline_ns);
    fprintf(f, "%-20s %5u %12s %12s %13s%s %14s  %s\n", s->clients[t->client].name, t->prio, per, c, w,
            t->ok ? " " : ">", dl, t->ok ? "yes" : "no");
  }
  fputc('\n', f);
  if (r->no_plan) {
    fputs("no node configuration of Alg. 1-2 passes the response-time test: no plan, no bound\n", f);
    return;
  }
  if (!dart) {
    char b[32];
    atoll_fmt_ns(b, sizeof b, r->be_block_ns);
    fprintf(f, "node: %s x%u; longest BE job (blocking) %s\n", r->plan.nodes[0].kind == ATOLL_NODE_GPU ? "gpu" : "cpu",
            r->plan.nodes[0].cores, b);
    return;
  }
  for (uint32_t k = 0; k < r->plan.n_nodes; k++) {
    const atoll_dart_bound_eps *e = &r->eps[k];
    char cp[32], gp[32], gm[32];
    atoll_fmt_ns(cp, sizeof cp, e->cp_ns);
    atoll_fmt_ns(gp, sizeof gp, e->gp_ns);
    atoll_fmt_ns(gm, sizeof gm, e->gm_ns);
    fprintf(f, "node %u: %s x%u  eps_cp %s  eps_gp %s  eps_gm %s\n", k,
            r->plan.nodes[k].kind == ATOLL_NODE_GPU ? "gpu" : "cpu", r->plan.nodes[k].cores, cp, gp, gm);
  }
  char sig[32];
  atoll_fmt_ns(sig, sizeof sig, r->plan.signal_ns);
  fprintf(f, "eps_s %s per hand-over to the next node\n", sig);
}

static int bound_dart(const atoll_scenario *s, const char *json, bool json_stdout) {
  atoll_dart_bound_result r;
  char why[256] = "";
  int rc = atoll_dart_bound_compute(s, NULL, &r, why, sizeof why);
  if (rc) {
    if (rc == ATOLL_EINVAL)
      fprintf(stderr, "atoll bound: %s: %s\n", s->path, why);
    else
      fprintf(stderr, "atoll bound: %s\n", atoll_strerror(rc));
    return ATOLL_EXIT_BAD_INPUT;
  }
  int exit_code = r.schedulable ? ATOLL_EXIT_OK : ATOLL_EXIT_VIOLATED;
  if (!json_stdout)
    print_dart_table(stdout, s, &r);
  bound_output out = {.s = s, .dart = &r};
  if (json && (rc = atoll_cli_write_file(json, write_dart_json, &out)))
    exit_code = rc;
  atoll_dart_bound_free(&r);
  return exit_code;
}

int atoll_cmd_bound(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_bound_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--json", "--spread", "--analysis"};
  const char *vals[3];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 3, true, &rc))
    return rc;
  bool json_stdout; /* the table then stays off stdout, which holds the JSON */
  if ((rc = atoll_cli_check_outputs(cmd, vals, extra, 1, o.positional, o.n_positional, &json_stdout)))
    return rc;
  atoll_bound_opts bo = {0};
  if (vals[2] && strcmp(vals[2], "dart") != 0 && strcmp(vals[2], "rt-queue") != 0)
    return atoll_cli_usage_error(cmd, "--analysis wants rt-queue or dart, not '%s'", vals[2]);
  if (vals[1]) {
    if (!atoll_cli_parse_decimal(vals[1], &bo.spread) || !(bo.spread >= 0 && bo.spread < 100))
      return atoll_cli_usage_error(cmd, "--spread wants a fraction in [0, 100), not '%s'", vals[1]);
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (vals[2] ? strcmp(vals[2], "dart") == 0 : dart_family(s.policy.kind)) {
    /* DART's test takes the stage plan's times as they are: a spread would change nothing. */
    if (vals[1]) {
      atoll_arena_free(&a);
      return atoll_cli_usage_error(cmd, "--spread applies to --analysis rt-queue only: the dart analysis (the "
                                   "default under dart, base-gpu and base-cpu) takes no timing spread");
    }
    rc = bound_dart(&s, vals[0], json_stdout);
    atoll_arena_free(&a);
    return rc;
  }
  if (!vals[1])
    bo.spread = s.timing_spread; /* the spread the explorer varies durations by */
  atoll_bound_result r;
  char why[256] = "";
  rc = atoll_bound_compute(&s, &bo, &r, why, sizeof why);
  if (rc) {
    if (rc == ATOLL_EINVAL)
      fprintf(stderr, "atoll bound: %s: %s\n", s.path, why);
    else
      fprintf(stderr, "atoll bound: %s\n", atoll_strerror(rc));
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  int exit_code = ATOLL_EXIT_OK;
  for (uint32_t i = 0; i < r.n_clients; i++)
    if (!r.clients[i].schedulable)
      exit_code = ATOLL_EXIT_VIOLATED;
  if (!json_stdout)
    print_table(stdout, &s, &r);
  bound_output out = {.s = &s, .r = &r};
  if (vals[0] && (rc = atoll_cli_write_file(vals[0], write_json, &out)))
    exit_code = rc;
  atoll_bound_free(&r);
  atoll_arena_free(&a);
  return exit_code;
}
