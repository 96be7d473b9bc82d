/* DART's node model (sim/dart_run.h, docs/dart.md). Few requests are in flight at once (a job per
 * RT release, one batched job per BE client), so the next event is found by scanning the nodes and
 * the clients' next arrivals rather than through an event queue. */
#include "sim/dart_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "core/dart.h"
#include "run/driver.h"
#include "run/dart_plan.h"
#include "sim/dart_bound.h"
#include "sim/run.h"

/* The cost of RT preempting a BE stage on a node: core/dart.h's (eps^cp, §IV-B.1). */
enum { PREEMPT_NS = ATOLL_DART_PREEMPT_NS, MAX_BATCH = 64 };

typedef struct job {
  uint32_t client, stage, batch, n_ids;
  uint64_t ids[MAX_BATCH];
  int64_t arrival_ns, deadline_ns; /* absolute deadline: EDF among BE (INT64_MAX: none) */
  int64_t remaining_ns, ran_ns;    /* of the current stage */
  uint8_t live, rt, ready, started, demoted_here;
} job;

typedef struct node_state {
  int32_t running; /* job index, or -1 */
  int64_t since_ns;
  uint8_t preempt_wanted; /* an RT stage waits for the running BE stage's copy to end */
} node_state;

typedef struct client_state {
  int64_t next_ns; /* next arrival, or -1 */
  uint8_t rt_class;
  int64_t wcet_ns[ATOLL_DART_MAX_NODES];
  uint32_t prio; /* deadline-monotonic order, 0 highest */
} client_state;

typedef struct dart_sim {
  const atoll_scenario *s;
  atoll_dart_plan plan;
  atoll_run_arrivals arr;
  atoll_run_recorder rec;
  atoll_trace *trace;
  atoll_run_results *res;
  job *jobs;
  uint32_t n_jobs, cap_jobs;
  node_state nodes[ATOLL_DART_MAX_NODES];
  client_state *cl;
  bool *admitted; /* per client: running (a task arriving at run time: once admission accepted it) */
  uint8_t *decided;
  int oom;
} dart_sim;

bool atoll_dart_policy(atoll_policy_kind k) {
  return k == ATOLL_POLICY_DART || k == ATOLL_POLICY_BASE_GPU || k == ATOLL_POLICY_BASE_CPU;
}

static bool is_dart(const dart_sim *d) { return d->s->policy.kind == ATOLL_POLICY_DART; }

static uint32_t node_of(const dart_sim *d, const job *j) { return d->plan.clients[j->client].stages[j->stage].node; }

/* Whether job a's stage goes before job b's on a node: RT deadline-monotonic, then BE EDF. */
static bool before(const dart_sim *d, const job *a, const job *b) {
  if (a->rt != b->rt)
    return a->rt;
  if (a->rt && d->cl[a->client].prio != d->cl[b->client].prio)
    return d->cl[a->client].prio < d->cl[b->client].prio;
  if (!a->rt && a->deadline_ns != b->deadline_ns)
    return a->deadline_ns < b->deadline_ns;
  if (a->arrival_ns != b->arrival_ns)
    return a->arrival_ns < b->arrival_ns;
  return a->client < b->client;
}

static void instant(dart_sim *d, uint32_t c, const char *what, int64_t t) {
  if (d->trace)
    atoll_trace_instant(d->trace, ATOLL_TRACK_CLIENT, c, what, "dart", t, NULL);
}

/* How long the running BE stage on a GPU node stays unpreemptible: to the end of a copy it is in. */
static int64_t copy_left(const dart_sim *d, const job *j) {
  const atoll_dart_stage *st = &d->plan.clients[j->client].stages[j->stage];
  const atoll_node *n = &d->plan.nodes[st->node];
  if (n->kind != ATOLL_NODE_GPU)
    return 0;
  const atoll_model *m = &d->s->models[d->s->clients[j->client].model].model;
  int64_t at = 0;
  for (uint32_t op = st->op_lo; op < st->op_hi; op++) {
    int64_t t = atoll_dart_op_ns(n, m, op, j->batch);
    if (j->ran_ns < at + t)
      return m->ops[op].kind == ATOLL_OP_KERNEL ? 0 : at + t - j->ran_ns;
    at += t;
  }
  return 0;
}

static void start_stage(dart_sim *d, uint32_t k, uint32_t ji, int64_t t, bool preempting) {
  job *j = &d->jobs[ji];
  j->ready = 0;
  d->nodes[k].running = (int32_t)ji;
  d->nodes[k].since_ns = t;
  d->nodes[k].preempt_wanted = 0;
  if (preempting)
    j->remaining_ns += PREEMPT_NS;
  if (!j->started) {
    j->started = 1;
    for (uint32_t i = 0; i < j->n_ids; i++)
      atoll_run_observer.request_started(&d->rec, j->client, j->ids[i], t);
  }
}

/* The GPU node's busy time in the report's CU-time books: in DART's model the GPU node is one
 * processor, so a stage on it holds the whole GPU (its copies included) from since_ns to t. Only
 * the part within the measured window counts, as the CU engines count it. */
static void count_gpu_busy(dart_sim *d, uint32_t k, const job *j, int64_t since_ns, int64_t t) {
  if (d->plan.nodes[k].kind != ATOLL_NODE_GPU)
    return;
  int64_t from = since_ns > d->s->warmup_ns ? since_ns : d->s->warmup_ns;
  int64_t to = t < d->s->duration_ns ? t : d->s->duration_ns;
  if (to <= from)
    return;
  int64_t cu_ns = (to - from) * (int64_t)d->res->cus;
  d->res->cu_busy_ns += cu_ns;
  if (j->rt)
    d->res->cu_busy_rt_ns += cu_ns;
  else
    d->res->cu_busy_be_ns += cu_ns;
}

/* Puts the running stage's progress into its job. */
static void settle(dart_sim *d, uint32_t k, int64_t t) {
  node_state *n = &d->nodes[k];
  if (n->running < 0)
    return;
  job *j = &d->jobs[n->running];
  int64_t e = t - n->since_ns;
  count_gpu_busy(d, k, j, n->since_ns, t);
  j->ran_ns += e, j->remaining_ns -= e;
  n->since_ns = t;
}

static void dispatch(dart_sim *d, uint32_t k, int64_t t) {
  node_state *n = &d->nodes[k];
  int32_t best = -1;
  for (uint32_t i = 0; i < d->n_jobs; i++) {
    job *j = &d->jobs[i];
    if (j->live && j->ready && node_of(d, j) == k && (best < 0 || before(d, j, &d->jobs[best])))
      best = (int32_t)i;
  }
  if (best < 0)
    return;
  if (n->running < 0) {
    start_stage(d, k, (uint32_t)best, t, false);
    return;
  }
  job *r = &d->jobs[n->running];
  /* Only dart's RT worker preempts its node's BE worker; RT stages are never preempted. */
  if (!is_dart(d) || r->rt || !d->jobs[best].rt)
    return;
  if (copy_left(d, r) > 0) {
    n->preempt_wanted = 1;
    return;
  }
  settle(d, k, t);
  r->ready = 1;
  start_stage(d, k, (uint32_t)best, t, true);
}

static int new_job(dart_sim *d, uint32_t c, uint32_t batch, int64_t t) {
  uint32_t ji = d->n_jobs;
  for (uint32_t i = 0; i < d->n_jobs; i++)
    if (!d->jobs[i].live) {
      ji = i;
      break;
    }
  if (ji == d->n_jobs) {
    if (d->n_jobs == d->cap_jobs) {
      uint32_t cap = d->cap_jobs ? 2 * d->cap_jobs : 64;
      job *nj = realloc(d->jobs, cap * sizeof *nj);
      if (!nj)
        return ATOLL_ENOMEM;
      d->jobs = nj, d->cap_jobs = cap;
    }
    d->n_jobs++;
  }
  job *j = &d->jobs[ji];
  *j = (job){.client = c, .batch = batch, .arrival_ns = t, .live = 1, .ready = 1, .rt = d->cl[c].rt_class};
  for (uint32_t i = 0; i < batch; i++)
    if (atoll_run_record_arrival(&d->rec, c, t, &j->ids[j->n_ids++]))
      return ATOLL_ENOMEM;
  int64_t rel = d->arr.deadline_ns[c];
  j->deadline_ns = rel > 0 ? t + rel : INT64_MAX;
  j->remaining_ns = atoll_dart_stage_ns(d->s, &d->plan, c, 0, batch);
  /* The injected overrun (policy options inject_*): this request's first stage runs longer. */
  const int64_t *p = d->s->policy.param;
  if (is_dart(d) && p[1] == (int64_t)c + 1 && (uint64_t)p[2] == j->ids[0])
    j->remaining_ns = j->remaining_ns * p[3] / 100;
  dispatch(d, node_of(d, j), t);
  return 0;
}

/* Admission control (§V-2) at the first request of a task arriving at run time; false when refused
 * (the task then sends nothing: its requests stop, and the report names the refusal). */
static bool admitted_now(dart_sim *d, uint32_t c, int64_t t) {
  if (d->admitted[c])
    return true;
  if (d->decided[c])
    return false;
  d->decided[c] = 1;
  int64_t b, dl;
  if (atoll_dart_admit(d->s, &d->plan, d->admitted, c, &b, &dl)) {
    d->admitted[c] = true;
    instant(d, c, "admitted", t);
    return true;
  }
  char *msg = d->res->clients[c].refusal;
  size_t len = sizeof d->res->clients[c].refusal;
  if (d->s->clients[c].cls == ATOLL_CLASS_BE)
    snprintf(msg, len, "refused at %.3f ms: its longest GPU copy %.1f us > eps_gm %.1f us", (double)t / 1e6,
             (double)b / 1e3, (double)dl / 1e3);
  else if (b == INT64_MAX)
    snprintf(msg, len, "refused at %.3f ms: no bound (deadline %.3f ms)", (double)t / 1e6, (double)dl / 1e6);
  else
    snprintf(msg, len, "refused at %.3f ms: bound %.3f ms > deadline %.3f ms", (double)t / 1e6, (double)b / 1e6,
             (double)dl / 1e6);
  instant(d, c, "refused", t);
  return false;
}

static void arrive(dart_sim *d, uint32_t c, int64_t t) {
  const atoll_client *cl = &d->s->clients[c];
  if (!admitted_now(d, c, t)) {
    d->cl[c].next_ns = -1;
    return;
  }
  bool closed = cl->arrival.kind == ATOLL_ARRIVAL_CLOSED;
  uint32_t batch = closed ? atoll_dart_be_batch(d->s, c) : 1;
  d->cl[c].next_ns = closed ? -1 : atoll_run_next_arrival(&d->arr, c);
  if (new_job(d, c, batch, t))
    d->oom = 1;
}

/* Enforcement (§V-3) after a stage that overran its WCET: the WCET becomes what it took, the
 * response-time test runs again, and the client returns to RT if every RT client passes. */
static void reassess(dart_sim *d, uint32_t c, int64_t t) {
  const atoll_scenario *s = d->s;
  atoll_dart_rt_task *tasks = calloc(s->n_clients, sizeof *tasks);
  int64_t *per_node = calloc((size_t)s->n_clients * ATOLL_DART_MAX_NODES, sizeof *per_node), *r = calloc(s->n_clients, sizeof *r);
  uint32_t n = 0;
  if (tasks && per_node && r) {
    for (uint32_t i = 0; i < s->n_clients; i++) {
      if (s->clients[i].cls != ATOLL_CLASS_RT || !d->admitted[i])
        continue;
      int64_t *row = per_node + (size_t)n * ATOLL_DART_MAX_NODES;
      for (uint32_t st = 0; st < d->plan.clients[i].n_stages; st++)
        row[d->plan.clients[i].stages[st].node] += d->cl[i].wcet_ns[st];
      int64_t dl = d->arr.deadline_ns[i];
      tasks[n++] = (atoll_dart_rt_task){.period_ns = dl, .deadline_ns = dl > 0 ? dl : INT64_MAX / 4,
                                        .prio = d->cl[i].prio, .stage_ns = row};
    }
    if (atoll_dart_rt_test(tasks, n, d->plan.n_nodes, r)) {
      d->cl[c].rt_class = 1;
      d->res->clients[c].recoveries++;
      instant(d, c, "recovery", t);
    } else {
      instant(d, c, "alert: not schedulable", t);
    }
  } else {
    d->oom = 1;
  }
  free(tasks), free(per_node), free(r);
}

/* A closed client's next request (batch), at t, unless one is due or it has a job in flight per
 * stage of its plan already. */
static void next_batch(dart_sim *d, uint32_t c, int64_t t) {
  if (d->s->clients[c].arrival.kind != ATOLL_ARRIVAL_CLOSED || d->cl[c].next_ns >= 0)
    return;
  uint32_t live = 0;
  for (uint32_t i = 0; i < d->n_jobs; i++)
    live += d->jobs[i].live && d->jobs[i].client == c;
  if (live < d->plan.clients[c].n_stages)
    d->cl[c].next_ns = t;
}

/* The running stage on node k reached its end or its WCET. */
static void node_event(dart_sim *d, uint32_t k, int64_t t) {
  node_state *n = &d->nodes[k];
  settle(d, k, t);
  job *j = &d->jobs[n->running];
  if (j->remaining_ns > 0) {
    if (n->preempt_wanted && copy_left(d, j) == 0) {
      n->preempt_wanted = 0;
      dispatch(d, k, t);
      return;
    }
    /* An RT stage ran past its WCET: the task is demoted to BE. */
    if (j->rt && is_dart(d) && j->ran_ns >= d->cl[j->client].wcet_ns[j->stage]) {
      j->rt = 0, j->demoted_here = 1;
      d->cl[j->client].rt_class = 0;
      d->res->clients[j->client].demotions++;
      instant(d, j->client, "demotion", t);
      dispatch(d, k, t);
    }
    return;
  }
  n->running = -1;
  uint32_t c = j->client;
  if (j->demoted_here) {
    if (j->ran_ns > d->cl[c].wcet_ns[j->stage])
      d->cl[c].wcet_ns[j->stage] = j->ran_ns;
    reassess(d, c, t);
  }
  /* A back-to-back BE task always has jobs waiting (they overload the system, §VI-C), so its next
   * batch enters the pipeline as soon as the first stage's node is done with this one: at most one
   * batch per stage is in flight. A single-stage plan (the baselines) is the plain closed loop. */
  if (j->stage == 0)
    next_batch(d, c, t);
  if (++j->stage < d->plan.clients[c].n_stages) {
    j->ran_ns = 0, j->demoted_here = 0, j->ready = 1;
    j->remaining_ns = atoll_dart_stage_ns(d->s, &d->plan, c, j->stage, j->batch);
    dispatch(d, node_of(d, j), t);
  } else {
    j->live = 0;
    /* The batch reaches the report's requests per model run (clients.NAME.batch): it said 1/1
     * for every batched client of this family. Told for batches of more than one, as the core does. */
    for (uint32_t i = 0; i < j->n_ids && j->n_ids > 1; i++)
      atoll_run_observer.request_batch(&d->rec, c, j->ids[i], j->n_ids, t);
    for (uint32_t i = 0; i < j->n_ids; i++)
      atoll_run_observer.request_done(&d->rec, c, j->ids[i], t);
    next_batch(d, c, t);
  }
  dispatch(d, k, t);
}

/* When node k's running stage next needs attention: its end, its WCET (RT under dart) or the end
 * of the copy a waiting RT stage waits for. */
static int64_t node_due(const dart_sim *d, uint32_t k) {
  const node_state *n = &d->nodes[k];
  if (n->running < 0)
    return INT64_MAX;
  const job *j = &d->jobs[n->running];
  int64_t left = j->remaining_ns;
  if (j->rt && is_dart(d)) {
    int64_t to_wcet = d->cl[j->client].wcet_ns[j->stage] - j->ran_ns;
    if (to_wcet < left)
      left = to_wcet > 0 ? to_wcet : 0;
  }
  if (n->preempt_wanted) {
    int64_t cl = copy_left(d, j);
    if (cl < left)
      left = cl;
  }
  return n->since_ns + left;
}

static void take_marks(void *ctx, atoll_run_marks *m) {
  (void)ctx;
  memset(m, 0, sizeof *m);
}
static int64_t redo_ns(void *ctx, uint32_t client, uint64_t req, uint32_t op) {
  (void)ctx, (void)client, (void)req, (void)op;
  return 0;
}
static const atoll_run_device_hooks hooks = {.take_marks = take_marks, .redo_ns = redo_ns};

static int run(void *ctx, const atoll_scenario *s, atoll_run_results *res) {
  dart_sim d = {.s = s, .trace = ctx, .res = res};
  int rc = atoll_dart_plan_for(s, &d.plan);
  if (rc)
    return rc;
  rc = atoll_run_arrivals_init(&d.arr, s, res->standalone_ns);
  if (rc) {
    atoll_dart_plan_free(&d.plan);
    return rc;
  }
  atoll_run_recorder_init(&d.rec, s, res, d.trace, &hooks, &d, NULL, NULL);
  d.cl = calloc(s->n_clients, sizeof *d.cl);
  d.admitted = calloc(s->n_clients ? s->n_clients : 1, sizeof *d.admitted);
  d.decided = calloc(s->n_clients ? s->n_clients : 1, 1);
  if (!d.cl || !d.admitted || !d.decided)
    rc = ATOLL_ENOMEM;
  /* dart's admit_from: clients from that one on arrive at run time and pass admission first. */
  int64_t late = is_dart(&d) ? s->policy.param[4] : 0;
  for (uint32_t c = 0; c < s->n_clients && rc == 0; c++)
    d.admitted[c] = late <= 0 || (int64_t)c < late - 1;
  for (uint32_t k = 0; k < ATOLL_DART_MAX_NODES; k++)
    d.nodes[k].running = -1;
  atoll_dart_bound_eps eps[ATOLL_DART_MAX_NODES];
  atoll_dart_plan_eps(s, &d.plan, NULL, eps);
  for (uint32_t c = 0; c < s->n_clients && rc == 0; c++) {
    client_state *cs = &d.cl[c];
    cs->rt_class = s->clients[c].cls == ATOLL_CLASS_RT;
    /* A stage's WCET (Eq. 1, 4): its time plus the cost of preempting the node's BE worker, where
     * the node has BE stages (eps^cp; elsewhere no RT stage ever preempts). */
    for (uint32_t st = 0; st < d.plan.clients[c].n_stages; st++)
      cs->wcet_ns[st] = atoll_dart_stage_ns(s, &d.plan, c, st, 1) + eps[d.plan.clients[c].stages[st].node].cp_ns;
    /* Deadline-monotonic priorities, ties to the earlier client (Table III's tie-breaking). */
    for (uint32_t o = 0; o < s->n_clients; o++) {
      int64_t a = d.arr.deadline_ns[o], b = d.arr.deadline_ns[c];
      if (o != c && s->clients[o].cls == ATOLL_CLASS_RT &&
          ((a > 0 && (b == 0 || a < b)) || (a == b && o < c)))
        cs->prio++;
    }
    cs->next_ns = atoll_run_first_arrival(&d.arr, s, c);
  }
  while (rc == 0 && !d.oom && !d.rec.failed) {
    int64_t t = INT64_MAX;
    int32_t who = -1; /* node k: k; client c: n_nodes + c */
    for (uint32_t k = 0; k < d.plan.n_nodes; k++) {
      int64_t due = node_due(&d, k);
      if (due < t)
        t = due, who = (int32_t)k;
    }
    for (uint32_t c = 0; c < s->n_clients; c++)
      if (d.cl[c].next_ns >= 0 && d.cl[c].next_ns < t)
        t = d.cl[c].next_ns, who = (int32_t)(d.plan.n_nodes + c);
    if (who < 0 || t >= s->duration_ns)
      break;
    res->events++;
    if ((uint32_t)who < d.plan.n_nodes)
      node_event(&d, (uint32_t)who, t);
    else
      arrive(&d, (uint32_t)who - d.plan.n_nodes, t);
  }
  /* Stages still running at the end count to it. */
  for (uint32_t k = 0; k < d.plan.n_nodes && rc == 0; k++)
    if (d.nodes[k].running >= 0)
      count_gpu_busy(&d, k, &d.jobs[d.nodes[k].running], d.nodes[k].since_ns, s->duration_ns);
  atoll_timeline_finish(&d.rec.tl, s->duration_ns);
  if (rc == 0 && (d.oom || d.rec.failed))
    rc = ATOLL_ENOMEM;
  free(d.jobs);
  free(d.cl);
  free(d.admitted);
  free(d.decided);
  atoll_run_arrivals_free(&d.arr);
  atoll_dart_plan_free(&d.plan);
  return rc;
}

/* A model alone on the scenario's GPU, as every other policy's run and atoll check take it
 * (docs/scenarios.md, "Load"): a load: arrival is then the same request rate under every policy,
 * and normalized figures share one reference. It was the model's stages on this policy's
 * placement, which made base-cpu's alexnet 7x "slower alone" and offered it a sixth of the
 * requests that reef got for the same load. The plan is still checked first: a scenario it
 * cannot place fails as before. */
static int standalone(void *ctx, const atoll_scenario *s, uint32_t m, int64_t *out) {
  (void)ctx;
  atoll_dart_plan p;
  int rc = atoll_dart_plan_for(s, &p);
  if (rc)
    return rc;
  atoll_dart_plan_free(&p);
  return atoll_sim_standalone_ns(s, m, out);
}

int atoll_dart_sim_run(const atoll_scenario *s, atoll_trace *trace, atoll_run_results *res) {
  atoll_run_device dev = {.mode = "sim", .standalone_ns = standalone, .run = run};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = atoll_run_drive(s, NULL, &dev, trace, res);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  return rc;
}
