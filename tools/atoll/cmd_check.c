/* atoll check SCENARIO: load and validate a scenario, print a one-screen summary. */
#include <string.h>

#include "atoll/error.h"
#include "atoll/policies.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_check_def = {
    "check", atoll_cmd_check, "validate a scenario and print a summary",
    "usage: atoll check SCENARIO [--set PATH=VALUE]... [--policy NAME] [--seed N] [--duration-ms N]\n"
    "\n"
    "Loads SCENARIO (YAML, see docs/scenarios.md) with its GPU preset and model profiles, checks\n"
    "everything a run would need, and prints a summary. Warns when a real-time client's offered\n"
    "load (requests per second x the model's standalone latency) is 1 or more.\n"
    "\n"
    "  --set PATH=VALUE   override a value, e.g. clients.cam.arrival.load=0.5, policy.dq_capacity=8\n"
    "  --policy NAME      replace the policy (one of:" ATOLL_POLICY_NAMES ")\n"
    "  --seed N           shorthand for --set seed=N\n"
    "  --duration-ms N    shorthand for --set duration_ms=N\n"
    "\n"
    "exit: 0 valid; 2 bad input (FILE:LINE:COL: message on stderr).\n"};

/* Requests per second a client offers, from the reference latency for load-based arrivals; 0 for
 * closed-loop clients (their rate is whatever the GPU gives them). */
static double client_rate_hz(const atoll_arrival *a, int64_t ref_ns) {
  switch (a->kind) {
  case ATOLL_ARRIVAL_UNIFORM:
  case ATOLL_ARRIVAL_POISSON:
    return a->rate_hz > 0 ? a->rate_hz : a->load * 1e9 / (double)ref_ns;
  case ATOLL_ARRIVAL_TRACE: {
    int64_t span = a->repeat_ns > 0 ? a->repeat_ns : a->times_ns[a->n_times - 1];
    return span > 0 ? (double)a->n_times * 1e9 / (double)span : 0;
  }
  case ATOLL_ARRIVAL_CLOSED:
    break;
  }
  return 0;
}

static void describe_arrival(char *buf, size_t size, const atoll_arrival *a, double rate) {
  switch (a->kind) {
  case ATOLL_ARRIVAL_UNIFORM:
  case ATOLL_ARRIVAL_POISSON:
    if (a->load > 0)
      snprintf(buf, size, "%s, load %.3g (%.1f Hz)", a->kind == ATOLL_ARRIVAL_UNIFORM ? "uniform" : "poisson", a->load,
               rate);
    else
      snprintf(buf, size, "%s, %.1f Hz", a->kind == ATOLL_ARRIVAL_UNIFORM ? "uniform" : "poisson", rate);
    return;
  case ATOLL_ARRIVAL_TRACE:
    snprintf(buf, size, "trace, %u arrivals%s (%.1f Hz)", a->n_times, a->repeat_ns ? ", repeating" : "", rate);
    return;
  case ATOLL_ARRIVAL_CLOSED:
    snprintf(buf, size, "closed loop");
    return;
  }
}

static void print_summary(const atoll_scenario *s) {
  const atoll_gpu *g = &s->gpu;
  char t1[32], t2[32];
  printf("scenario  %s%s%s\n", s->path, s->description ? "  -- " : "", s->description ? s->description : "");
  printf("gpu       %s (%s, %u CUs, %u blocks/CU, DQ capacity %u)\n", g->name, g->vendor, g->cus, g->max_blocks_per_cu,
         g->dq_capacity);
  const atoll_policy_cfg *p = &s->policy;
  printf("policy    %s", atoll_policy_name(p->kind));
  if (p->kind == ATOLL_POLICY_REEF)
    printf(" (dkp %s, multi_version %s)", p->dkp ? "on" : "off", p->multi_version ? "on" : "off");
  if (p->kind == ATOLL_POLICY_STREAMS && p->priority)
    printf(" (priority streams)");
  if (p->dq_capacity)
    printf(", dq_capacity %u", p->dq_capacity);
  if (p->rt_queue == ATOLL_RT_QUEUE_EDF)
    printf(", RT queue EDF");
  atoll_fmt_ns(t1, sizeof t1, s->duration_ns);
  atoll_fmt_ns(t2, sizeof t2, s->warmup_ns);
  printf("\nrun       %s (warm-up %s), seed %llu\n", t1, t2, (unsigned long long)s->seed);
  printf("models    %u\n", s->n_models);
  for (uint32_t m = 0; m < s->n_models; m++) {
    const atoll_model *md = &s->models[m].model;
    atoll_model_stats st;
    atoll_model_stats_compute(md, &st);
    atoll_fmt_ns(t1, sizeof t1, atoll_model_reference_latency_ns(md));
    printf("  %-12s %4u kernels, %u copies, standalone %s (%s)  %s\n", s->models[m].name, st.kernels,
           st.memcpys + st.memsets, t1, md->measured_latency_ns > 0 ? "measured" : "sum of ops", s->models[m].path);
  }
  printf("clients   %u\n", s->n_clients);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    int64_t ref = atoll_model_reference_latency_ns(&s->models[cl->model].model);
    double rate = client_rate_hz(&cl->arrival, ref);
    char arr[96], dl[48] = "";
    describe_arrival(arr, sizeof arr, &cl->arrival, rate);
    if (cl->deadline_ns) {
      atoll_fmt_ns(t1, sizeof t1, cl->deadline_ns);
      snprintf(dl, sizeof dl, ", deadline %s", t1);
    }
    char load[32] = "";
    if (rate > 0 && cl->arrival.load == 0)
      snprintf(load, sizeof load, ", load %.2f", rate * (double)ref / 1e9);
    printf("  %-12s %s  %-12s %s%s%s\n", cl->name, cl->cls == ATOLL_CLASS_RT ? "rt" : "be",
           s->models[cl->model].name, arr, load, dl);
  }
  printf("expect    %u bound%s\n", s->n_expects, s->n_expects == 1 ? "" : "s");
  for (uint32_t e = 0; e < s->n_expects; e++)
    printf("  %s %s %g\n", s->expects[e].field, atoll_cmp_text(s->expects[e].cmp), s->expects[e].value);
}

static void warn_overload(const atoll_scenario *s) {
  double total = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    if (cl->cls != ATOLL_CLASS_RT)
      continue;
    int64_t ref = atoll_model_reference_latency_ns(&s->models[cl->model].model);
    double load = client_rate_hz(&cl->arrival, ref) * (double)ref / 1e9;
    total += load;
    if (load >= 1.0)
      fprintf(stderr,
              "warning: RT client '%s' offers load %.2f >= 1: its requests arrive at least as fast as the GPU "
              "can serve them alone, so its latency grows without bound\n",
              cl->name, load);
  }
  if (total >= 1.0)
    fprintf(stderr, "warning: RT clients together offer load %.2f >= 1\n", total);
}

int atoll_cmd_check(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_check_def;
  atoll_run_opts o;
  int rc = atoll_cli_parse(cmd, argc, argv, &o, NULL, NULL, 0, true);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  print_summary(&s);
  warn_overload(&s);
  printf("ok: %s is valid\n", s.path);
  atoll_arena_free(&a);
  return ATOLL_EXIT_OK;
}
