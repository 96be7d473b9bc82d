/* Stage plans and stage times on CPU and GPU nodes (run/dart_plan.h). */
#include "run/dart_plan.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "core/dart.h"

/* Signalling from one node to the next (eps^s, §IV-B.1): a condition-variable wake-up. */
enum { SIGNAL_NS = 20000 };

int64_t atoll_dart_stage_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t client, uint32_t stage,
                            uint32_t batch) {
  const atoll_dart_stage *st = &p->clients[client].stages[stage];
  const atoll_model *m = &s->models[s->clients[client].model].model;
  int64_t t = 0;
  for (uint32_t op = st->op_lo; op < st->op_hi; op++)
    t += atoll_dart_op_ns(&p->nodes[st->node], m, op, batch);
  if (stage + 1 < p->clients[client].n_stages)
    t += p->signal_ns;
  return t;
}

static int gpu_node(const atoll_scenario *s) {
  for (uint32_t k = 0; k < s->n_nodes; k++)
    if (s->nodes[k].kind == ATOLL_NODE_GPU)
      return (int)k;
  return -1;
}

/* Eq. 7-8 for clients [lo, hi) (BE clients only when be_only), heaviest first (Alg. 1's order:
 * average utilization over the nodes), on nodes that already carry w (updated with what is
 * placed). */
static int place_clients(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p, uint32_t lo,
                         uint32_t hi, double *w, bool be_only) {
  uint32_t N = p->n_nodes, maxL = 1;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (s->models[s->clients[c].model].model.n_ops > maxL)
      maxL = s->models[s->clients[c].model].model.n_ops;
  double longest = 0;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (periods_ns[c] > longest)
      longest = periods_ns[c];
  if (longest <= 0)
    longest = 1e8;
  size_t cells = 2 * (size_t)(maxL + 1) * N;
  double *u = malloc((size_t)maxL * N * sizeof *u), *M = malloc(cells * sizeof *M), *avg = calloc(s->n_clients, sizeof *avg);
  uint32_t *arg = malloc(cells * sizeof *arg), *node_of = malloc(maxL * sizeof *node_of),
           *order = malloc(s->n_clients * sizeof *order);
  int rc = u && M && avg && arg && node_of && order ? 0 : ATOLL_ENOMEM;
  for (uint32_t c = lo; c < hi && rc == 0; c++) {
    const atoll_model *m = &s->models[s->clients[c].model].model;
    double T = periods_ns[c] > 0 ? periods_ns[c] : longest;
    for (uint32_t op = 0; op < m->n_ops; op++)
      for (uint32_t k = 0; k < N; k++)
        avg[c] += (double)atoll_dart_op_ns(&p->nodes[k], m, op, 1) / T / N;
    order[c] = c;
  }
  for (uint32_t i = lo + 1; i < hi && rc == 0; i++) /* stable insertion sort, heaviest first */
    for (uint32_t j = i; j > lo && avg[order[j]] > avg[order[j - 1]]; j--) {
      uint32_t x = order[j];
      order[j] = order[j - 1], order[j - 1] = x;
    }
  for (uint32_t i = lo; i < hi && rc == 0; i++) {
    uint32_t c = order[i];
    if (be_only && s->clients[c].cls != ATOLL_CLASS_BE)
      continue;
    const atoll_model *m = &s->models[s->clients[c].model].model;
    double T = periods_ns[c] > 0 ? periods_ns[c] : longest;
    /* A batched BE task: its batch's time per request, so that a node that batches well (the GPU)
     * looks as cheap as it is for it. A back-to-back BE task (no period) would use a node whole:
     * its period is its time per request on the node where the model runs fastest, so its
     * utilization there is 1 and a layer moved elsewhere weighs what it costs. */
    uint32_t b = atoll_dart_be_batch(s, c);
    if (periods_ns[c] <= 0 && s->clients[c].cls == ATOLL_CLASS_BE) {
      T = -1;
      for (uint32_t k = 0; k < N; k++) {
        double tk = 0;
        for (uint32_t op = 0; op < m->n_ops; op++)
          tk += (double)atoll_dart_op_ns(&p->nodes[k], m, op, b) / b;
        if (tk > 0 && (T < 0 || tk < T))
          T = tk;
      }
      if (T <= 0)
        T = longest;
    }
    for (uint32_t op = 0; op < m->n_ops; op++)
      for (uint32_t k = 0; k < N; k++)
        u[(size_t)op * N + k] = (double)atoll_dart_op_ns(&p->nodes[k], m, op, b) / b / T;
    if (atoll_dart_partition(m->n_ops, N, u, w, node_of, M, arg, (uint32_t)cells) < 0) {
      rc = ATOLL_EINVAL;
      break;
    }
    atoll_dart_client_plan *cp = &p->clients[c];
    cp->n_stages = 0;
    for (uint32_t op = 0; op < m->n_ops; op++) {
      w[node_of[op]] += u[(size_t)op * N + node_of[op]];
      if (cp->n_stages == 0 || cp->stages[cp->n_stages - 1].node != node_of[op])
        cp->stages[cp->n_stages++] = (atoll_dart_stage){.node = node_of[op], .op_lo = op, .op_hi = op + 1};
      else
        cp->stages[cp->n_stages - 1].op_hi = op + 1;
    }
  }
  free(u), free(M), free(avg), free(arg), free(node_of), free(order);
  return rc;
}

static int place_range(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p, uint32_t lo, uint32_t hi,
                       double *w) {
  return place_clients(s, periods_ns, p, lo, hi, w, false);
}

static int place(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p) {
  double w[ATOLL_DART_MAX_NODES] = {0};
  return place_range(s, periods_ns, p, 0, s->n_clients, w);
}

/* The allocation Alg. 1 falls back on (docs/dart.md, "Node search"): every RT model whole on the
 * GPU node (node 0), as BaseGPU runs it, and the BE clients by Eq. 7-8 on top of that load. */
static int place_rt_on_gpu(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p) {
  double w[ATOLL_DART_MAX_NODES] = {0};
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (s->clients[c].cls != ATOLL_CLASS_RT)
      continue;
    const atoll_model *m = &s->models[s->clients[c].model].model;
    p->clients[c] = (atoll_dart_client_plan){.stages = {{.node = 0, .op_lo = 0, .op_hi = m->n_ops}}, .n_stages = 1};
    for (uint32_t op = 0; op < m->n_ops && periods_ns[c] > 0; op++)
      w[0] += (double)atoll_dart_op_ns(&p->nodes[0], m, op, 1) / periods_ns[c];
  }
  return place_clients(s, periods_ns, p, 0, s->n_clients, w, true);
}

/* The longest op of client c on the GPU node: its copies' time at `batch` (kernels false), or its
 * kernels' block time (kernels true). */
static int64_t longest_gpu_op_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t c, uint32_t batch,
                                 bool kernels) {
  const atoll_model *m = &s->models[s->clients[c].model].model;
  int64_t longest = 0;
  for (uint32_t st = 0; st < p->clients[c].n_stages; st++) {
    const atoll_dart_stage *g = &p->clients[c].stages[st];
    if (p->nodes[g->node].kind != ATOLL_NODE_GPU)
      continue;
    for (uint32_t op = g->op_lo; op < g->op_hi; op++) {
      if ((m->ops[op].kind == ATOLL_OP_KERNEL) != kernels)
        continue;
      int64_t t = kernels ? m->ops[op].shape.block_time_ns : atoll_dart_op_ns(&p->nodes[g->node], m, op, batch);
      if (t > longest)
        longest = t;
    }
  }
  return longest;
}

int64_t atoll_dart_be_copy_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t c, uint32_t batch) {
  return longest_gpu_op_ns(s, p, c, batch, false);
}

/* The longest block of BE client c's kernels on the GPU node: a kernel already running when RT work
 * arrives keeps its resident blocks to their end (priority streams do not preempt blocks). */
static int64_t be_block_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t c) {
  return longest_gpu_op_ns(s, p, c, 1, true);
}

void atoll_dart_plan_eps(const atoll_scenario *s, const atoll_dart_plan *p, const bool *admitted,
                         atoll_dart_bound_eps eps[ATOLL_DART_MAX_NODES]) {
  /* eps^cp where a BE client has a stage: an RT stage there may have to preempt the BE worker. On a
   * node without BE stages the RT worker never preempts anything (the simulator's budget for a
   * stage there is its planned time, sim/dart_run.c). Every BE client of the plan counts, admitted
   * or not: the budgets are set when the run starts. */
  for (uint32_t k = 0; k < p->n_nodes; k++)
    eps[k] = (atoll_dart_bound_eps){0};
  for (uint32_t c = 0; c < s->n_clients; c++)
    for (uint32_t st = 0; s->clients[c].cls == ATOLL_CLASS_BE && st < p->clients[c].n_stages; st++)
      eps[p->clients[c].stages[st].node].cp_ns = ATOLL_DART_PREEMPT_NS;
  int64_t gm = 0, block = 0;
  bool any_be = false;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (s->clients[c].cls != ATOLL_CLASS_BE || (admitted && !admitted[c]))
      continue;
    int64_t cp = atoll_dart_be_copy_ns(s, p, c, atoll_dart_be_batch(s, c)), bl = be_block_ns(s, p, c);
    gm = cp > gm ? cp : gm;
    block = bl > block ? bl : block;
    any_be = true;
  }
  for (uint32_t k = 0; k < p->n_nodes; k++)
    if (p->nodes[k].kind == ATOLL_NODE_GPU && any_be) {
      eps[k].gm_ns = gm;
      eps[k].gp_ns = s->gpu.costs.stream_switch_ns + block;
    }
}

/* Alg. 1's score of a placed configuration (lines 13-15): the RT clients' worst-case response
 * times by Eq. 5 under the deadline-monotonic priorities the RT workers use (ties to the earlier
 * client), each as a fraction of its deadline, weighted by priority order over the RT count
 * (highest priority heaviest) and summed; a negative value when some RT client fails the test.
 * The score takes the plain stage times; a candidate passes only if the test passes with Eq. 4's
 * overheads too (the test `atoll bound` runs on the chosen plan), so that the search never keeps
 * a plan the analysis then rejects while another candidate would pass. */
static double score(const atoll_scenario *s, const double *periods_ns, const atoll_dart_plan *p) {
  uint32_t n = 0, N = p->n_nodes;
  atoll_dart_rt_task *t = calloc(s->n_clients, sizeof *t);
  int64_t *rows = calloc((size_t)s->n_clients * N * 2, sizeof *rows), *r = calloc(s->n_clients, sizeof *r);
  atoll_dart_bound_eps eps[ATOLL_DART_MAX_NODES];
  double sum = -1;
  if (t && rows && r) {
    atoll_dart_plan_eps(s, p, NULL, eps);
    int64_t *with_eps = rows + (size_t)s->n_clients * N;
    for (uint32_t c = 0; c < s->n_clients; c++) {
      if (s->clients[c].cls != ATOLL_CLASS_RT)
        continue;
      int64_t *row = rows + (size_t)n * N, *row_eps = with_eps + (size_t)n * N;
      for (uint32_t st = 0; st < p->clients[c].n_stages; st++) {
        uint32_t k = p->clients[c].stages[st].node;
        int64_t plain = atoll_dart_stage_ns(s, p, c, st, 1);
        row[k] += plain;
        row_eps[k] += plain + eps[k].cp_ns + (eps[k].gp_ns > eps[k].gm_ns ? eps[k].gp_ns : eps[k].gm_ns);
      }
      int64_t T = (int64_t)periods_ns[c];
      t[n++] = (atoll_dart_rt_task){.period_ns = T, .deadline_ns = T > 0 ? T : INT64_MAX / 4, .prio = 0, .stage_ns = row};
    }
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < n; j++)
        if (j != i && (t[j].deadline_ns < t[i].deadline_ns || (t[j].deadline_ns == t[i].deadline_ns && j < i)))
          t[i].prio++;
    for (uint32_t i = 0; i < n; i++)
      t[i].stage_ns = with_eps + (size_t)i * N;
    bool ok = atoll_dart_rt_test(t, n, N, r);
    for (uint32_t i = 0; i < n; i++)
      t[i].stage_ns = rows + (size_t)i * N;
    if (ok && atoll_dart_rt_test(t, n, N, r)) {
      sum = 0;
      for (uint32_t i = 0; i < n; i++)
        sum += (double)(n - t[i].prio) / n * ((double)r[i] / (double)t[i].deadline_ns);
    }
  }
  free(t), free(rows), free(r);
  return sum;
}

/* Alg. 2's candidates: the GPU node (one core) and the other cores split into one to three CPU
 * nodes, sizes non-increasing; every candidate is placed (Eq. 7-8) and scored, the best kept. When
 * none passes, the same configurations are tried once more with the RT models whole on the GPU
 * node (place_rt_on_gpu) before the search gives up. */
static int search(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p) {
  uint32_t cpu = s->node_search_cores - 1;
  double gflops = ATOLL_CPU_GFLOPS_PER_CORE, best = -1;
  atoll_dart_client_plan *keep = calloc(s->n_clients, sizeof *keep);
  atoll_node best_nodes[ATOLL_DART_MAX_NODES];
  uint32_t best_n = 0;
  if (!keep)
    return ATOLL_ENOMEM;
  for (int rt_on_gpu = 0; rt_on_gpu < 2 && best < 0; rt_on_gpu++) {
    for (uint32_t a = cpu; a >= 1; a--)
      for (uint32_t b = 0; b <= a && a + b <= cpu; b++)
        for (uint32_t c = 0; c <= b; c++) {
          if (a + b + c != cpu || (b == 0 && c > 0))
            continue;
          uint32_t sizes[3] = {a, b, c};
          p->n_nodes = 0;
          p->nodes[p->n_nodes++] = (atoll_node){.kind = ATOLL_NODE_GPU, .cores = 1, .gflops_per_core = gflops};
          for (int i = 0; i < 3; i++)
            if (sizes[i])
              p->nodes[p->n_nodes++] = (atoll_node){.kind = ATOLL_NODE_CPU, .cores = sizes[i], .gflops_per_core = gflops};
          int rc = rt_on_gpu ? place_rt_on_gpu(s, periods_ns, p) : place(s, periods_ns, p);
          if (rc) {
            free(keep);
            return rc;
          }
          double v = score(s, periods_ns, p);
          if (v >= 0 && (best < 0 || v < best)) {
            best = v, best_n = p->n_nodes;
            memcpy(best_nodes, p->nodes, sizeof best_nodes);
            memcpy(keep, p->clients, s->n_clients * sizeof *keep);
          }
        }
  }
  if (best < 0) {
    free(keep);
    return ATOLL_EINVAL; /* no candidate passes the test: Alg. 1 returns the empty set */
  }
  p->n_nodes = best_n;
  memcpy(p->nodes, best_nodes, sizeof best_nodes);
  memcpy(p->clients, keep, s->n_clients * sizeof *keep);
  free(keep);
  return 0;
}

/* dart with admit_from K: the clients before K form the task set the nodes are configured for;
 * each later one is placed by Eq. 7 on top of them, in order, as it would be on arrival (the
 * simulator's admission then decides whether it runs). */
static int build_with_late(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p, uint32_t first_late) {
  atoll_scenario initial = *s;
  initial.n_clients = first_late;
  initial.policy.param[4] = 0;
  int rc = atoll_dart_plan_build(&initial, periods_ns, p);
  if (rc)
    return rc;
  atoll_dart_client_plan *all = realloc(p->clients, s->n_clients * sizeof *all);
  if (!all) {
    atoll_dart_plan_free(p);
    return ATOLL_ENOMEM;
  }
  memset(all + first_late, 0, (s->n_clients - first_late) * sizeof *all);
  p->clients = all;
  double w[ATOLL_DART_MAX_NODES] = {0};
  /* Placing the initial set again on the chosen nodes gives the same stages and their load. */
  rc = place_range(&initial, periods_ns, p, 0, first_late, w);
  for (uint32_t c = first_late; c < s->n_clients && rc == 0; c++)
    rc = place_range(s, periods_ns, p, c, c + 1, w);
  if (rc)
    atoll_dart_plan_free(p);
  return rc;
}

int atoll_dart_plan_build(const atoll_scenario *s, const double *periods_ns, atoll_dart_plan *p) {
  int64_t late = s->policy.kind == ATOLL_POLICY_DART ? s->policy.param[4] : 0;
  if (late > 0 && late <= (int64_t)s->n_clients)
    return build_with_late(s, periods_ns, p, (uint32_t)late - 1);
  *p = (atoll_dart_plan){.signal_ns = SIGNAL_NS};
  if (s->n_nodes > ATOLL_DART_MAX_NODES)
    return ATOLL_EINVAL;
  if (!(p->clients = calloc(s->n_clients, sizeof *p->clients)))
    return ATOLL_ENOMEM;
  int rc = 0;
  if (s->policy.kind == ATOLL_POLICY_DART && s->node_search_cores) {
    rc = search(s, periods_ns, p);
  } else if (s->policy.kind == ATOLL_POLICY_DART) {
    if (s->n_nodes == 0)
      rc = ATOLL_EINVAL;
    for (uint32_t k = 0; k < s->n_nodes; k++)
      p->nodes[k] = s->nodes[k];
    p->n_nodes = s->n_nodes;
    if (rc == 0)
      rc = place(s, periods_ns, p);
  } else {
    /* The baselines: whole models on one node. */
    if (s->policy.kind == ATOLL_POLICY_BASE_GPU) {
      int g = gpu_node(s);
      p->nodes[0] = g >= 0 ? s->nodes[g] : (atoll_node){.kind = ATOLL_NODE_GPU, .cores = 1};
    } else {
      atoll_node all = {.kind = ATOLL_NODE_CPU, .cores = s->node_search_cores,
                        .gflops_per_core = ATOLL_CPU_GFLOPS_PER_CORE};
      for (uint32_t k = 0; k < s->n_nodes; k++) {
        all.cores += s->nodes[k].cores;
        if (s->nodes[k].kind == ATOLL_NODE_CPU)
          all.gflops_per_core = s->nodes[k].gflops_per_core;
      }
      if (all.cores == 0)
        rc = ATOLL_EINVAL;
      p->nodes[0] = all;
    }
    p->n_nodes = 1;
    for (uint32_t c = 0; c < s->n_clients; c++)
      p->clients[c] = (atoll_dart_client_plan){
          .stages = {{.node = 0, .op_lo = 0, .op_hi = s->models[s->clients[c].model].model.n_ops}}, .n_stages = 1};
  }
  if (rc)
    atoll_dart_plan_free(p);
  return rc;
}

void atoll_dart_plan_free(atoll_dart_plan *p) {
  free(p->clients);
  p->clients = NULL;
}

/* A client's period for placement and the response-time test: its deadline, or a uniform client's
 * period; 0 for the others. */
static double period_hint(const atoll_client *c) {
  if (c->deadline_ns > 0)
    return (double)c->deadline_ns;
  return c->arrival.kind == ATOLL_ARRIVAL_UNIFORM && c->arrival.rate_hz > 0 ? 1e9 / c->arrival.rate_hz : 0;
}

int atoll_dart_plan_for(const atoll_scenario *s, atoll_dart_plan *p) {
  double *periods = calloc(s->n_clients ? s->n_clients : 1, sizeof *periods);
  if (!periods)
    return ATOLL_ENOMEM;
  for (uint32_t c = 0; c < s->n_clients; c++)
    periods[c] = period_hint(&s->clients[c]);
  int rc = atoll_dart_plan_build(s, periods, p);
  free(periods);
  return rc;
}

int64_t atoll_dart_period_ns(const atoll_client *c) { return (int64_t)period_hint(c); }
