/* atoll check SCENARIO: load and validate a scenario, print a one-screen summary. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/policies.h"
#include "tools/atoll/cli.h"
#include "run/driver.h"
#include "sim/dart_bound.h"
#include "sim/run.h"

const atoll_subcommand atoll_cmd_check_def = {
    "check", atoll_cmd_check, "validate a scenario and print a summary",
    "usage: atoll check SCENARIO [--set PATH=VALUE]... [--policy NAME] [--seed N] [--duration-ms N]\n"
    "\n"
    "Loads SCENARIO (YAML, see docs/scenarios.md) with its GPU preset and model profiles, checks\n"
    "everything a run would need, and prints a summary. Warns when a real-time client's offered\n"
    "load (requests per second x the model's standalone latency on the simulated GPU, as `atoll sim`\n"
    "uses it: docs/scenarios.md, \"Load\") is 1 or more.\n"
    "\n"
    "  --set PATH=VALUE   override a value, e.g. clients.cam.arrival.load=0.5, policy.dq_capacity=8\n"
    "  --policy NAME      replace the policy (one of:" ATOLL_POLICY_NAMES ")\n"
    "  --seed N           shorthand for --set seed=N\n"
    "  --duration-ms N    shorthand for --set duration_ms=N\n"
    "\n"
    "Under dart, base-gpu and base-cpu it runs DART's admission control: the response-time test of\n"
    "`atoll bound --analysis dart` over the RT clients; each task that misses is refused by name,\n"
    "with its bound against its deadline (docs/dart.md).\n"
    "\n"
    "exit: 0 valid (and admitted); 1 an RT task refused by admission control; 2 bad input\n"
    "(FILE:LINE:COL: message on stderr).\n"};

/* DART's admission control (§V-2): every RT task must pass the response-time test. */
static int admit(const atoll_scenario *s) {
  if (s->policy.kind != ATOLL_POLICY_DART && s->policy.kind != ATOLL_POLICY_BASE_GPU &&
      s->policy.kind != ATOLL_POLICY_BASE_CPU)
    return ATOLL_EXIT_OK;
  atoll_dart_bound_result r;
  char why[256] = "";
  int rc = atoll_dart_bound_compute(s, NULL, &r, why, sizeof why);
  if (rc) {
    printf("admission not analysed: %s\n", rc == ATOLL_EINVAL ? why : atoll_strerror(rc));
    return ATOLL_EXIT_OK;
  }
  if (r.schedulable)
    printf("admitted: every RT task passes the response-time test (atoll bound --analysis dart)\n");
  for (uint32_t i = 0; i < r.n_tasks; i++) {
    const atoll_dart_bound_task *t = &r.tasks[i];
    if (t->ok)
      continue;
    char b[48], d[32];
    if (t->wcrt_ns == INT64_MAX)
      snprintf(b, sizeof b, "none (no node configuration passes)");
    else
      atoll_fmt_ns(b, sizeof b, t->wcrt_ns);
    atoll_fmt_ns(d, sizeof d, t->deadline_ns);
    printf("refused: %s: bound %s > deadline %s\n", s->clients[t->client].name, b, d);
  }
  rc = r.schedulable ? ATOLL_EXIT_OK : ATOLL_EXIT_VIOLATED;
  atoll_dart_bound_free(&r);
  return rc;
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
    if (a->blocking) /* one request in flight (docs/scenarios.md) */
      snprintf(buf + strlen(buf), size - strlen(buf), ", blocking");
    return;
  case ATOLL_ARRIVAL_TRACE:
    snprintf(buf, size, "trace, %u arrivals%s (%.1f Hz)", a->n_times, a->repeat_ns ? ", repeating" : "", rate);
    return;
  case ATOLL_ARRIVAL_STEP:
    snprintf(buf, size, "step, %u steps (poisson, up to %.1f Hz)", a->n_steps, rate);
    return;
  case ATOLL_ARRIVAL_CLOSED:
    snprintf(buf, size, "closed loop");
    return;
  }
}

static void print_summary(const atoll_scenario *s, const int64_t *alone) {
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
  /* DART's nodes (docs/dart.md), when the scenario declares them. */
  if (s->node_search_cores)
    printf("nodes     found by dart over the GPU and %u cores\n", s->node_search_cores);
  for (uint32_t k = 0; k < s->n_nodes; k++) {
    const atoll_node *n = &s->nodes[k];
    printf("%s", k ? ", " : "nodes     ");
    if (n->kind == ATOLL_NODE_GPU)
      printf("gpu + 1 core");
    else
      printf("cpu x%u (%g GFLOP/s per core)", n->cores, n->gflops_per_core);
  }
  if (s->n_nodes)
    printf("\n");
  printf("models    %u\n", s->n_models);
  for (uint32_t m = 0; m < s->n_models; m++) {
    const atoll_model *md = &s->models[m].model;
    atoll_model_stats st;
    atoll_model_stats_compute(md, &st);
    atoll_fmt_ns(t1, sizeof t1, alone[m]);
    atoll_fmt_ns(t2, sizeof t2, atoll_model_reference_latency_ns(md));
    printf("  %-12s %4u kernels, %u copies, standalone %s simulated (profile: %s %s)  %s\n", s->models[m].name,
           st.kernels, st.memcpys + st.memsets, t1, t2, md->measured_latency_ns > 0 ? "measured" : "sum of ops",
           s->models[m].path);
  }
  printf("clients   %u\n", s->n_clients);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    int64_t ref = alone[cl->model];
    double rate = atoll_run_offered_rate_hz(cl, ref);
    char arr[96], dl[48] = "";
    describe_arrival(arr, sizeof arr, &cl->arrival, rate);
    if (cl->deadline_ns) {
      atoll_fmt_ns(t1, sizeof t1, cl->deadline_ns);
      snprintf(dl, sizeof dl, ", deadline %s", t1);
    }
    char load[32] = "";
    if (rate > 0 && cl->arrival.load == 0)
      snprintf(load, sizeof load, ", load %.2f", atoll_run_load_of_rate(rate, ref));
    printf("  %-12s %s  %-12s %s%s%s\n", cl->name, cl->cls == ATOLL_CLASS_RT ? "rt" : "be",
           s->models[cl->model].name, arr, load, dl);
  }
  printf("expect    %u bound%s\n", s->n_expects, s->n_expects == 1 ? "" : "s");
  for (uint32_t e = 0; e < s->n_expects; e++)
    printf("  %s %s %g\n", s->expects[e].field, atoll_cmp_text(s->expects[e].cmp), s->expects[e].value);
}

static void warn_overload(const atoll_scenario *s, const int64_t *alone) {
  double total = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    if (cl->cls != ATOLL_CLASS_RT)
      continue;
    double load = atoll_run_offered_load(cl, alone[cl->model]);
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
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, NULL, NULL, 0, true, &rc))
    return rc;
  atoll_arena a;
  atoll_scenario s;
  if ((rc = atoll_cli_load_scenario(cmd, &o, &a, &s)))
    return rc;
  if (atoll_cli_sim_refused(cmd, &s)) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* Loads are fractions of the standalone latency a run uses (docs/scenarios.md, "Load"): the
   * simulated one, which `atoll sim` turns `load` arrivals into rates with. */
  int64_t *alone = calloc(s.n_models ? s.n_models : 1, sizeof *alone);
  if (!alone) {
    atoll_arena_free(&a);
    fprintf(stderr, "atoll check: out of memory\n");
    return ATOLL_EXIT_BAD_INPUT;
  }
  for (uint32_t m = 0; m < s.n_models && rc == 0; m++)
    rc = atoll_sim_standalone_ns(&s, m, &alone[m]);
  if (rc) {
    fprintf(stderr, "atoll check: simulating a model alone failed: %s\n", atoll_strerror(rc));
    free(alone);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  print_summary(&s, alone);
  warn_overload(&s, alone);
  printf("ok: %s is valid\n", s.path);
  rc = admit(&s);
  free(alone);
  atoll_arena_free(&a);
  return rc;
}
