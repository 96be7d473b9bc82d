/* atoll capacity SCENARIO: the highest load scale at which every client keeps its violation ratio
 * within a bound, found by bisection on the simulator (docs/gslice.md, "Capacity"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/json_out.h"
#include "run/driver.h"
#include "run/report.h"
#include "sim/run.h"
#include "sim/shape_memo.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/progress.h"
#include "tools/atoll/report_out.h"

const atoll_subcommand atoll_cmd_capacity_def = {
    "capacity", atoll_cmd_capacity, "find the highest load scale every client's SLO survives",
    "usage: atoll capacity SCENARIO [--policy P] [--miss R] [--min-requests N] [--warmup-ms N] [--json FILE|-]\n"
    "                      [--set PATH=VALUE]... [--seed N] [--duration-ms N] [--quiet]\n"
    "\n"
    "Scales every client's arrival rate (rate_hz or load) by s and finds, by bisection on the simulated\n"
    "GPU, the highest s at which every client's violation ratio is at most R (default 0.01). A\n"
    "client's violation ratio is (requests of the window completed after their deadline_ms or still\n"
    "waiting past it at the end, shed or failed, plus the dropped ones) / (its requests plus the\n"
    "dropped ones): the report's violation_ratio. s doubles from 1 while it holds (up to 1024) or\n"
    "halves while it fails (down to 1/1024), then 12 bisection steps narrow it; prints s with each\n"
    "client's figures at s. Where it still holds at 1024, s is at least 1024 and no higher scale was\n"
    "probed. A client with no request in the window (a class the policy does not serve, as BE under\n"
    "rt-only) has no ratio and is not counted; where no client has one there is nothing to measure,\n"
    "which is bad input.\n"
    "\n"
    "  --policy P         the policy to run (a --set shorthand; default: the scenario's)\n"
    "  --miss R           the violation ratio allowed, in [0, 1) (default 0.01)\n"
    "  --min-requests N   run each probe long enough that every client expects at least N requests after\n"
    "                     warmup_ms at the scale probed (its duration_ms when that is longer): the same\n"
    "                     measurement for every policy, one that can resolve R (default 0: duration_ms)\n"
    "  --warmup-ms N      count violations only from N ms on (steady state, past a self-tuning policy's\n"
    "                     first re-partitions): each probe runs N ms plus the scenario's measured window\n"
    "                     (duration_ms - warmup_ms), or longer per --min-requests\n"
    "  --json FILE|-      write {\"scale\", \"violations\" (the worst client's ratio at scale), \"policy\",\n"
    "                     \"miss\", \"duration_ms\" (the last probe's), \"capped\" (true: s is at least scale),\n"
    "                     \"clients\": [{\"name\", \"requests\", \"violation_ratio\" and \"gue\" (null without\n"
    "                     requests), \"throughput_rps\", \"goodput_rps\"}]}; where no scale holds, scale 0,\n"
    "                     the worst ratio at 1/1024 and no clients\n"
    "  --quiet, -q        no progress line (the probes run so far, shown on a terminal after 2 s)\n"
    "\n"
    "exit: 0 a scale was found; 1 the scenario misses R even at 1/1024 of its load; 2 bad input.\n"};

enum { STEPS = 12 };

/* How each probe runs: the requests every client should see after the warm-up, and each model's
 * standalone latency, which turns a `load:` into a rate. */
typedef struct probe_cfg {
  uint32_t min_requests;
  const int64_t *standalone_ns;
  int64_t duration_ns; /* the last probe's */
  /* Every probe runs the same models on the same GPU: the standalone latencies above, measured once,
   * and the kernels' timings, prepared by the first probe (they are timed on the loaded scenario's
   * GPU, which each probe's copy of the scenario copies: sim/shape_memo.h). */
  atoll_sim_opts opts;
  /* NULL, or under gslice the clients with their starting shares, worked out once (opts says so). */
  const atoll_client *started;
  atoll_progress *progress; /* counts the probes */
  uint32_t probes;
  double no_plan_at; /* > 0: the scale at which a dart-family probe had no plan (its run's EINVAL) */
  char no_plan_why[512]; /* then why, in atoll sim's words */
} probe_cfg;

/* The duration of a probe at scaled rates: the scenario's, or longer, so that the slowest client
 * expects min_requests requests after the warm-up. */
static int64_t probe_duration_ns(const atoll_scenario *s, const atoll_client *scaled, const probe_cfg *pc) {
  int64_t d = s->duration_ns;
  for (uint32_t i = 0; pc->min_requests > 0 && i < s->n_clients; i++) {
    double hz = atoll_run_rate_hz(&scaled[i], pc->standalone_ns[scaled[i].model]);
    if (!(hz > 0))
      continue;
    double need = (double)s->warmup_ns + ceil((double)pc->min_requests * 1e9 / hz);
    if (need > 4e18)
      need = 4e18;
    if (need > (double)d)
      d = (int64_t)need;
  }
  return d;
}

/* One run at scale x into *res and *rep (the report points into the results, so both are the
 * caller's): the worst client's violation ratio. With keep false both are freed again. */
static int probe(const atoll_scenario *s, atoll_client *scaled, double x, probe_cfg *pc, double *worst,
                 atoll_run_results *res, atoll_report *rep, bool keep) {
  for (uint32_t i = 0; i < s->n_clients; i++) {
    scaled[i] = pc->started ? pc->started[i] : s->clients[i];
    scaled[i].arrival.rate_hz *= x;
    scaled[i].arrival.load *= x;
  }
  atoll_scenario one = *s;
  one.clients = scaled;
  one.duration_ns = pc->duration_ns = probe_duration_ns(s, scaled, pc);
  int rc = atoll_sim_run(&one, &pc->opts, res);
  atoll_progress_update(pc->progress, ++pc->probes);
  /* A dart-family run fails with atoll_dart_plan_for's EINVAL where no plan fits the rates probed. */
  if (rc == ATOLL_EINVAL && atoll_sim_dart_plan_failure(&one, pc->no_plan_why, sizeof pc->no_plan_why))
    pc->no_plan_at = x;
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

/* The clients with a violation ratio: those with requests in the window. */
static uint32_t measured_clients(const atoll_scenario *s, const atoll_report *rep) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->n_clients; i++)
    n += !isnan(rep->clients[i].violation_ratio);
  return n;
}

/* A probe whose figures are not kept. */
static int try_scale(const atoll_scenario *s, atoll_client *scaled, double x, probe_cfg *pc, double *worst) {
  atoll_run_results res;
  atoll_report rep;
  return probe(s, scaled, x, pc, worst, &res, &rep, false);
}

/* A figure, or null where it is undefined (a ratio over no requests). */
static void json_figure(FILE *f, const char *key, double v) {
  if (isnan(v))
    fprintf(f, ", \"%s\": null", key);
  else
    fprintf(f, ", \"%s\": %.6g", key, v);
}

/* What the JSON is written from (atoll_cli_write_file's context); rep NULL where no scale holds. */
typedef struct capacity_output {
  const atoll_scenario *s;
  double scale, worst, miss;
  bool capped;
  int64_t duration_ns;
  const atoll_report *rep;
} capacity_output;

static int write_json(FILE *f, const void *ctx) {
  const capacity_output *o = ctx;
  const atoll_scenario *s = o->s;
  fprintf(f, "{\"scale\": %.6g, \"violations\": %.6g, \"policy\": \"%s\", \"miss\": %.6g, \"duration_ms\": %.6g, ",
          o->scale, o->worst, atoll_policy_name(s->policy.kind), o->miss, (double)o->duration_ns / 1e6);
  fprintf(f, "\"capped\": %s, \"clients\": [", o->capped ? "true" : "false");
  for (uint32_t i = 0; o->rep && i < s->n_clients; i++) {
    const atoll_client_report *c = &o->rep->clients[i];
    fprintf(f, "%s{\"name\": ", i ? ", " : "");
    atoll_json_write_string(f, s->clients[i].name);
    fprintf(f, ", \"requests\": %u", c->requests);
    json_figure(f, "violation_ratio", c->violation_ratio);
    fprintf(f, ", \"throughput_rps\": %.6g, \"goodput_rps\": %.6g", isnan(c->throughput_rps) ? 0 : c->throughput_rps,
            isnan(c->goodput_rps) ? 0 : c->goodput_rps);
    json_figure(f, "gue", c->gue);
    fputc('}', f);
  }
  fprintf(f, "]}\n");
  return 0;
}

int atoll_cmd_capacity(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_capacity_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--miss", "--json", "--min-requests", "--warmup-ms"};
  const char *vals[4];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 4, true, &rc))
    return rc;
  bool json_stdout; /* the table then stays off stdout, which holds the JSON */
  if ((rc = atoll_cli_check_outputs(cmd, vals + 1, extra + 1, 1, o.positional, o.n_positional, &json_stdout)))
    return rc;
  double miss = 0.01;
  if (vals[0]) {
    if (!atoll_cli_parse_decimal(vals[0], &miss) || !(miss >= 0 && miss < 1))
      return atoll_cli_usage_error(cmd, "--miss takes a ratio in [0, 1), not '%s'", vals[0]);
  }
  probe_cfg pc = {0};
  if (vals[2]) {
    uint64_t n;
    if (!atoll_cli_parse_uint(vals[2], 0, 100000000, &n))
      return atoll_cli_usage_error(cmd, "--min-requests takes a count in [0, 100000000], not '%s'", vals[2]);
    pc.min_requests = (uint32_t)n;
  }
  int64_t warmup_ns = -1;
  if (vals[3]) {
    double ms;
    if (!atoll_cli_parse_decimal(vals[3], &ms) || !(ms >= 0 && ms <= 1e9))
      return atoll_cli_usage_error(cmd, "--warmup-ms takes milliseconds in [0, 1e9], not '%s'", vals[3]);
    warmup_ns = llround(ms * 1e6);
  }
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (warmup_ns >= 0) {
    s.duration_ns = warmup_ns + (s.duration_ns - s.warmup_ns);
    s.warmup_ns = warmup_ns;
  }
  /* What every probe would refuse (an engine lacking what the scenario needs), said as sim says it,
   * before the first probe rather than as a bare error code after it. */
  if (atoll_cli_sim_refused(cmd, &s)) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
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
  int64_t *standalone = calloc(s.n_models ? s.n_models : 1, sizeof *standalone);
  if (!scaled || !standalone) {
    free(scaled);
    free(standalone);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  pc.standalone_ns = standalone;
  rc = 0;
  for (uint32_t m = 0; rc == 0 && m < s.n_models; m++)
    rc = atoll_sim_standalone_ns(&s, m, &standalone[m]);
  /* Without the memo (out of memory) each probe prepares its own timings, the same ones. */
  atoll_shape_memo memo;
  bool shared = atoll_shape_memo_init(&memo, &s.gpu, 0) == 0;
  pc.opts = (atoll_sim_opts){.standalone_ns = standalone, .timing_gpu = &s.gpu, .shape_memo = shared ? &memo : NULL};
  /* gslice's starting shares come from knee sweeps (19 runs a model) that no probe's rates change:
   * once here, not at every probe. Where a run would refuse the scenario before sweeping (an engine
   * that lacks what it needs), there are none, and the probes go on refusing it as they did. */
  atoll_client *started = NULL;
  if (rc == 0 && (rc = atoll_sim_gslice_clients(&s, &started)) == 0 && started) {
    pc.started = started;
    pc.opts.gslice_started = true;
  }
  atoll_progress progress = {0};
  atoll_progress_start(&progress, atoll_progress_wanted(o.quiet) ? stderr : NULL, "capacity", "probes", 0);
  pc.progress = &progress;
  double lo = 0, hi = 0, x = 1, worst = 0;
  /* Bracket: double while it holds, halve while it fails. */
  if (rc == 0)
    rc = try_scale(&s, scaled, x, &pc, &worst);
  bool capped = false;
  if (rc == 0 && worst <= miss) {
    lo = x;
    while (rc == 0 && lo < 1024 && (rc = try_scale(&s, scaled, 2 * lo, &pc, &worst)) == 0 && worst <= miss)
      lo *= 2;
    hi = 2 * lo;
    /* It held at every scale up to the limit: 2 * lo was never probed, so there is no failing end
     * to bisect towards, and the capacity is only known to be at least lo. */
    capped = rc == 0 && worst <= miss;
  } else {
    hi = x;
    while (rc == 0 && hi > 1.0 / 1024 && (rc = try_scale(&s, scaled, hi / 2, &pc, &worst)) == 0 &&
           worst > miss)
      hi /= 2;
    lo = hi / 2;
    if (rc == 0 && worst > miss)
      lo = 0; /* fails at 1/1024 too */
  }
  for (int i = 0; rc == 0 && lo > 0 && !capped && i < STEPS; i++) {
    double mid = (lo + hi) / 2;
    if ((rc = try_scale(&s, scaled, mid, &pc, &worst)) == 0) {
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
    rc = probe(&s, scaled, lo, &pc, &worst, &res, &rep, true);
  atoll_progress_end(&progress);
  capacity_output out = {.s = &s, .scale = lo, .worst = worst, .miss = miss, .capped = capped};
  if (rc) {
    if (rc == ATOLL_EINVAL && pc.no_plan_at > 0)
      fprintf(stderr, "atoll capacity: at scale %.4g: %s\n", pc.no_plan_at, pc.no_plan_why);
    else
      fprintf(stderr, "atoll capacity: %s\n", atoll_strerror(rc));
    exit_code = ATOLL_EXIT_BAD_INPUT;
  } else if (lo == 0) {
    /* The last probe was at 1/1024 (the bracket stops there), so worst is its worst ratio. */
    fprintf(stderr, "atoll capacity: a client's violation ratio stays above %g even at 1/1024 of the load (%.3g "
                    "there): no scale holds\n", miss, worst);
    exit_code = ATOLL_EXIT_VIOLATED;
    /* The JSON says so too: a file left from an earlier run would say a scale held. */
    out.duration_ns = pc.duration_ns;
    if (vals[1] && (rc = atoll_cli_write_file(vals[1], write_json, &out)))
      exit_code = rc;
  } else if (measured_clients(&s, &rep) == 0) {
    fprintf(stderr, "atoll capacity: no client had a request in the measured window at scale %.4g under policy %s, "
                    "so no violation ratio was measured (a policy that serves none of the clients' classes, as "
                    "rt-only with BE clients only, or rates too low for the window: --min-requests)\n",
            lo, atoll_policy_name(s.policy.kind));
    exit_code = ATOLL_EXIT_BAD_INPUT;
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
  } else {
    if (!json_stdout) {
      printf("scenario %s  policy %s  miss <= %g\n", s.path, atoll_policy_name(s.policy.kind), miss);
      if (capped)
        printf("capacity scale >= %.4g (every client holds there, the largest scale probed; the worst client's "
               "violation ratio %.4f)\n", lo, worst);
      else
        printf("capacity scale %.4g (the worst client's violation ratio %.4f)\n", lo, worst);
      printf("%-16s %10s %10s %12s %12s %10s\n", "client", "requests", "violations", "req/s", "goodput/s", "GUE");
      for (uint32_t i = 0; i < s.n_clients; i++) {
        const atoll_client_report *c = &rep.clients[i];
        if (isnan(c->violation_ratio)) /* no request: neither ratio is defined */
          printf("%-16s %10u %10s %12.1f %12.1f %10s\n", s.clients[i].name, c->requests, "n/a", c->throughput_rps,
                 c->goodput_rps, "n/a");
        else
          printf("%-16s %10u %10.4f %12.1f %12.1f %10.1f\n", s.clients[i].name, c->requests, c->violation_ratio,
                 c->throughput_rps, c->goodput_rps, c->gue);
      }
    }
    out.duration_ns = pc.duration_ns;
    out.rep = &rep;
    if (vals[1] && (rc = atoll_cli_write_file(vals[1], write_json, &out)))
      exit_code = rc;
    /* A ratio over fewer than 10 / R requests moves by more than R / 10 with each late request:
     * too coarse to hold it to R. */
    for (uint32_t i = 0; i < s.n_clients; i++)
      if (isnan(rep.clients[i].violation_ratio))
        fprintf(stderr, "atoll capacity: note: client '%s' had no request in the window at the scale found: it has no "
                        "violation ratio and is not counted\n", s.clients[i].name);
      else if (miss > 0 && (double)rep.clients[i].requests < 10.0 / miss)
        fprintf(stderr, "atoll capacity: note: client '%s' had %u requests at the scale found, fewer than 10 / %g: its "
                        "ratio is coarse (--min-requests %u runs longer)\n",
                s.clients[i].name, rep.clients[i].requests, miss, (unsigned)ceil(10.0 / miss));
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
  }
  if (shared)
    atoll_shape_memo_free(&memo);
  free(started);
  free(scaled);
  free(standalone);
  atoll_arena_free(&a);
  return exit_code;
}
