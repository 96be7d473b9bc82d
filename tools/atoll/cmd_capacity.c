/* atoll capacity SCENARIO: the highest load scale at which every client keeps its violation ratio
 * within a bound, found by bisection on the simulator (docs/gslice.md, "Capacity"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/json_out.h"
#include "run/report.h"
#include "sim/run.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_capacity_def = {
    "capacity", atoll_cmd_capacity, "find the highest load scale every client's SLO survives",
    "usage: atoll capacity SCENARIO --policy P [--miss R] [--json FILE|-] [--set PATH=VALUE]... [--seed N]\n"
    "                      [--duration-ms N] [--quiet]\n"
    "\n"
    "Scales every client's arrival rate (rate_hz or load) by s and finds, by bisection on the simulated\n"
    "GPU, the highest s at which every client's violation ratio is at most R (default 0.01). A\n"
    "client's violation ratio is (requests of the window completed after their deadline_ms, shed or\n"
    "failed, plus the dropped ones) / (its requests plus the dropped ones): the report's\n"
    "violation_ratio. s doubles from 1 while it holds (up to 1024) or halves while it fails (down to\n"
    "1/1024), then 12 bisection steps narrow it; prints s with each client's figures at s.\n"
    "\n"
    "  --policy P         the policy to run (a --set shorthand)\n"
    "  --miss R           the violation ratio allowed, in [0, 1) (default 0.01)\n"
    "  --json FILE|-      write {\"scale\", \"violations\" (the worst client's ratio at scale), \"policy\",\n"
    "                     \"miss\", \"clients\": [{\"name\", \"violation_ratio\", \"throughput_rps\", \"goodput_rps\",\n"
    "                     \"gue\"}]}\n"
    "\n"
    "exit: 0 a scale was found; 1 the scenario misses R even at 1/1024 of its load; 2 bad input.\n"};

enum { STEPS = 12 };

/* One run at scale x into *res and *rep (the report points into the results, so both are the
 * caller's): the worst client's violation ratio. With keep false both are freed again. */
static int probe(const atoll_scenario *s, atoll_client *scaled, double x, double *worst, atoll_run_results *res,
                 atoll_report *rep, bool keep) {
  for (uint32_t i = 0; i < s->n_clients; i++) {
    scaled[i] = s->clients[i];
    scaled[i].arrival.rate_hz *= x;
    scaled[i].arrival.load *= x;
  }
  atoll_scenario one = *s;
  one.clients = scaled;
  int rc = atoll_sim_run(&one, NULL, res);
  if (rc)
    return rc;
  /* The results name the scenario they ran: the caller's, whose clients outlive this call. */
  res->scenario = s;
  if ((rc = atoll_report_compute(res, rep))) {
    atoll_run_results_free(res);
    return rc;
  }
  *worst = 0;
  for (uint32_t i = 0; i < s->n_clients; i++)
    if (!isnan(rep->clients[i].violation_ratio) && rep->clients[i].violation_ratio > *worst)
      *worst = rep->clients[i].violation_ratio;
  if (!keep) {
    atoll_report_free(rep);
    atoll_run_results_free(res);
  }
  return 0;
}

/* A probe whose figures are not kept. */
static int try_scale(const atoll_scenario *s, atoll_client *scaled, double x, double *worst) {
  atoll_run_results res;
  atoll_report rep;
  return probe(s, scaled, x, worst, &res, &rep, false);
}

static int write_json(FILE *f, const atoll_scenario *s, double scale, double worst, double miss,
                      const atoll_report *rep) {
  fprintf(f, "{\"scale\": %.6g, \"violations\": %.6g, \"policy\": \"%s\", \"miss\": %.6g, \"clients\": [", scale, worst,
          atoll_policy_name(s->policy.kind), miss);
  for (uint32_t i = 0; i < s->n_clients; i++) {
    const atoll_client_report *c = &rep->clients[i];
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    atoll_json_write_string(f, s->clients[i].name);
    fprintf(f, ", \"violation_ratio\": %.6g, \"throughput_rps\": %.6g, \"goodput_rps\": %.6g, \"gue\": %.6g}",
            isnan(c->violation_ratio) ? 0 : c->violation_ratio, isnan(c->throughput_rps) ? 0 : c->throughput_rps,
            isnan(c->goodput_rps) ? 0 : c->goodput_rps, isnan(c->gue) ? 0 : c->gue);
  }
  fprintf(f, "]}\n");
  return ferror(f) ? ATOLL_EIO : 0;
}

int atoll_cmd_capacity(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_capacity_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--miss", "--json"};
  const char *vals[2];
  int rc = atoll_cli_parse(cmd, argc, argv, &o, extra, vals, 2, true);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  double miss = 0.01;
  if (vals[0]) {
    char *end;
    miss = strtod(vals[0], &end);
    if (end == vals[0] || *end || !(miss >= 0 && miss < 1))
      return atoll_cli_usage_error(cmd, "--miss takes a ratio in [0, 1), not '%s'", vals[0]);
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  for (uint32_t i = 0; i < s.n_clients; i++) {
    atoll_arrival_kind k = s.clients[i].arrival.kind;
    if (k != ATOLL_ARRIVAL_POISSON && k != ATOLL_ARRIVAL_UNIFORM) {
      fprintf(stderr, "atoll capacity: client '%s' has no rate to scale (poisson or uniform arrivals only)\n",
              s.clients[i].name);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  atoll_client *scaled = calloc(s.n_clients, sizeof *scaled);
  if (!scaled) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  double lo = 0, hi = 0, x = 1, worst = 0;
  /* Bracket: double while it holds, halve while it fails. */
  rc = try_scale(&s, scaled, x, &worst);
  if (rc == 0 && worst <= miss) {
    lo = x;
    while (rc == 0 && lo < 1024 && (rc = try_scale(&s, scaled, 2 * lo, &worst)) == 0 && worst <= miss)
      lo *= 2;
    hi = 2 * lo;
  } else {
    hi = x;
    while (rc == 0 && hi > 1.0 / 1024 && (rc = try_scale(&s, scaled, hi / 2, &worst)) == 0 &&
           worst > miss)
      hi /= 2;
    lo = hi / 2;
    if (rc == 0 && worst > miss)
      lo = 0; /* fails at 1/1024 too */
  }
  for (int i = 0; rc == 0 && lo > 0 && i < STEPS; i++) {
    double mid = (lo + hi) / 2;
    if ((rc = try_scale(&s, scaled, mid, &worst)) == 0) {
      if (worst <= miss)
        lo = mid;
      else
        hi = mid;
    }
  }
  atoll_report rep;
  atoll_run_results res;
  int exit_code = ATOLL_EXIT_OK;
  if (rc == 0 && lo > 0)
    rc = probe(&s, scaled, lo, &worst, &res, &rep, true);
  if (rc) {
    fprintf(stderr, "atoll capacity: %s\n", atoll_strerror(rc));
    exit_code = ATOLL_EXIT_BAD_INPUT;
  } else if (lo == 0) {
    fprintf(stderr, "atoll capacity: every client's violation ratio stays above %g only at 1/1024 of the load or "
                    "below; no scale holds\n", miss);
    exit_code = ATOLL_EXIT_VIOLATED;
  } else {
    bool json_stdout = vals[1] && strcmp(vals[1], "-") == 0;
    if (!json_stdout) {
      printf("scenario %s  policy %s  miss <= %g\n", s.path, atoll_policy_name(s.policy.kind), miss);
      printf("capacity scale %.4g (the worst client's violation ratio %.4f)\n", lo, worst);
      printf("%-16s %10s %12s %12s %10s\n", "client", "violations", "req/s", "goodput/s", "GUE");
      for (uint32_t i = 0; i < s.n_clients; i++) {
        const atoll_client_report *c = &rep.clients[i];
        printf("%-16s %10.4f %12.1f %12.1f %10.1f\n", s.clients[i].name, c->violation_ratio, c->throughput_rps,
               c->goodput_rps, c->gue);
      }
    }
    if (vals[1]) {
      FILE *f = json_stdout ? stdout : fopen(vals[1], "w");
      if (!f || write_json(f, &s, lo, worst, miss, &rep) != 0 || (!json_stdout && fclose(f) != 0)) {
        fprintf(stderr, "atoll capacity: writing %s failed\n", vals[1]);
        exit_code = ATOLL_EXIT_BAD_INPUT;
      }
    }
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
  }
  free(scaled);
  atoll_arena_free(&a);
  return exit_code;
}
