/* atoll bound SCENARIO: an analytic worst-case response time for every RT client (sim/bound.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/bound.h"
#include "tools/atoll/cli.h"
#include "io/json_out.h"

const atoll_subcommand atoll_cmd_bound_def = {
    "bound", atoll_cmd_bound, "compute a worst-case RT response time analytically",
    "usage: atoll bound SCENARIO [--json FILE|-] [--spread F]\n"
    "                   [--set PATH=VALUE]... [--policy NAME]\n"
    "\n"
    "Bounds the response time of every RT client of SCENARIO under rt-only, reset or reef: RT tasks\n"
    "run one at a time from a FIFO queue, so a request waits for the RT requests that can arrive\n"
    "before it in the same busy period (from each client's minimum inter-arrival time), plus one\n"
    "blocking term for taking the GPU from BE work (docs/bound.md). Task times are the models'\n"
    "standalone latencies on the scenario's simulated GPU, with reef's padding overheads.\n"
    "\n"
    "  --json FILE|-   write {\"clients\":[{\"name\",\"wcrt_us\",\"deadline_us\",\"schedulable\"}], ...}\n"
    "  --spread F      block durations may exceed the profile by the fraction F (default: sim.timing_spread)\n"
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

static void write_json(FILE *f, const atoll_scenario *s, const atoll_bound_result *r) {
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

int atoll_cmd_bound(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_bound_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--json", "--spread"};
  const char *vals[2];
  int rc = atoll_cli_parse(cmd, argc, argv, &o, extra, vals, 2, true);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  atoll_bound_opts bo = {0};
  if (vals[1]) {
    char *end;
    bo.spread = strtod(vals[1], &end);
    if (*end || end == vals[1] || !(bo.spread >= 0 && bo.spread < 100))
      return atoll_cli_usage_error(cmd, "--spread wants a fraction in [0, 100), not '%s'", vals[1]);
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
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
  bool json_stdout = vals[0] && strcmp(vals[0], "-") == 0;
  if (!json_stdout)
    print_table(stdout, &s, &r);
  if (vals[0]) {
    FILE *f = json_stdout ? stdout : fopen(vals[0], "w");
    if (!f) {
      perror(vals[0]);
      exit_code = ATOLL_EXIT_BAD_INPUT;
    } else {
      write_json(f, &s, &r);
      if (f != stdout && fclose(f) != 0) {
        fprintf(stderr, "atoll bound: writing %s failed\n", vals[0]);
        exit_code = ATOLL_EXIT_BAD_INPUT;
      }
    }
  }
  atoll_bound_free(&r);
  atoll_arena_free(&a);
  return exit_code;
}
