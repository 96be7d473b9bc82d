#include "run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "evq.h"
#include "sched.h"
#include "simdev.h"
#include "workload.h"

typedef struct runner {
  const atoll_scenario *s;
  atoll_evq evq;
  atoll_simdev *dev;
  atoll_core core;
  void *core_mem;
  atoll_client_gen *gens;
  atoll_run_results *res;
  atoll_trace *trace;
  int oom;
} runner;

static int record_arrival(runner *r, uint32_t client, int64_t now, uint64_t *id) {
  atoll_client_records *cr = &r->res->clients[client];
  if (cr->n == cr->cap) {
    uint32_t cap = cr->cap ? cr->cap * 2 : 256;
    atoll_request_record *nr = realloc(cr->req, cap * sizeof *nr);
    if (!nr)
      return ATOLL_ENOMEM;
    cr->req = nr, cr->cap = cap;
  }
  *id = cr->n;
  cr->req[cr->n++] = (atoll_request_record){.id = *id, .arrival_ns = now, .start_ns = -1, .done_ns = -1};
  return 0;
}

static void schedule_arrival(runner *r, uint32_t client, int64_t at) {
  if (at < 0 || at >= r->s->duration_ns)
    return;
  if (atoll_evq_push(&r->evq, at, ATOLL_EV_ARRIVAL, atoll_simev(ATOLL_SIMEV_ARRIVAL, 0, client)))
    r->oom = 1;
}

static void on_started(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  runner *r = ctx;
  r->res->clients[client].req[req].start_ns = now;
}

static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  runner *r = ctx;
  atoll_request_record *rec = &r->res->clients[client].req[req];
  rec->done_ns = now;
  if (r->trace) {
    char args[64];
    snprintf(args, sizeof args, "\"request\":%llu", (unsigned long long)req);
    atoll_trace_span(r->trace, ATOLL_TRACK_CLIENT, client, r->s->models[r->s->clients[client].model].name,
                     r->s->clients[client].cls == ATOLL_CLASS_RT ? "rt" : "be", rec->arrival_ns,
                     now - rec->arrival_ns, args);
  }
  /* A closed-loop client sends its next request as soon as one completes. */
  if (r->s->clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
    schedule_arrival(r, client, now);
}

static void on_dropped(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  runner *r = ctx;
  (void)req, (void)now;
  r->res->clients[client].dropped++;
  /* A dropped request is not a request: its record slot is reused by the next arrival. */
  r->res->clients[client].n--;
}

/* Mode switches (normal / real-time) go to the scheduler track of the timeline. */
static void on_mode(void *ctx, uint32_t mode, int64_t now) {
  runner *r = ctx;
  if (r->trace)
    atoll_trace_instant(r->trace, ATOLL_TRACK_SCHED, 0, mode == ATOLL_MODE_REALTIME ? "real-time mode" : "normal mode",
                        "mode", now, NULL);
}

static const atoll_core_observer observer = {.request_started = on_started,
                                             .request_done = on_done,
                                             .request_dropped = on_dropped,
                                             .mode_changed = on_mode};

static void on_arrival(runner *r, uint32_t client, int64_t now) {
  uint64_t id;
  if (record_arrival(r, client, now, &id)) {
    r->oom = 1;
    return;
  }
  atoll_core_on_arrival(&r->core, client, id, now);
  if (r->s->clients[client].arrival.kind != ATOLL_ARRIVAL_CLOSED)
    schedule_arrival(r, client, atoll_client_gen_next(&r->gens[client]));
}

static double rate_of(const atoll_client *c, const int64_t *standalone_ns) {
  const atoll_arrival *a = &c->arrival;
  if (a->kind != ATOLL_ARRIVAL_UNIFORM && a->kind != ATOLL_ARRIVAL_POISSON)
    return 0;
  return a->rate_hz > 0 ? a->rate_hz : a->load * 1e9 / (double)standalone_ns[c->model];
}

static void runner_free(runner *r) {
  atoll_simdev_destroy(r->dev);
  atoll_evq_free(&r->evq);
  free(r->core_mem);
  free(r->gens);
}

/* Runs s with standalone latencies already known (res->standalone_ns). */
static int run_with(const atoll_scenario *s, atoll_trace *trace, atoll_run_results *res) {
  runner r = {.s = s, .res = res, .trace = trace};
  int64_t *deadlines = calloc(s->n_clients, sizeof *deadlines);
  r.gens = calloc(s->n_clients, sizeof *r.gens);
  int rc = deadlines && r.gens ? atoll_evq_init(&r.evq, 4096) : ATOLL_ENOMEM;
  atoll_simdev_cfg dcfg = {.scenario = s, .evq = &r.evq, .trace = trace, .window_start_ns = s->warmup_ns,
                           .window_end_ns = s->duration_ns};
  if (rc == 0)
    rc = atoll_simdev_create(&r.dev, &dcfg);
  size_t size = rc == 0 ? atoll_core_size(s, NULL) : 0;
  if (rc == 0 && size == 0)
    rc = ATOLL_ENOTSUP;
  if (rc == 0 && !(r.core_mem = malloc(size)))
    rc = ATOLL_ENOMEM;
  for (uint32_t c = 0; rc == 0 && c < s->n_clients; c++) {
    double rate = rate_of(&s->clients[c], res->standalone_ns);
    deadlines[c] = s->clients[c].deadline_ns;
    /* A uniform client's default deadline is its period (none when the period exceeds any run). */
    if (!deadlines[c] && s->clients[c].arrival.kind == ATOLL_ARRIVAL_UNIFORM && 1e9 / rate < 4.6e18)
      deadlines[c] = (int64_t)(1e9 / rate);
    atoll_client_gen_init(&r.gens[c], &s->clients[c].arrival, rate, s->seed, c);
  }
  if (rc == 0)
    rc = atoll_core_init(&r.core, r.core_mem, size, s, atoll_simdev_device(r.dev), &observer, &r, NULL, deadlines);
  free(deadlines);
  if (rc) {
    runner_free(&r);
    return rc;
  }
  atoll_simdev_attach(r.dev, &r.core);
  if (trace) {
    for (uint32_t c = 0; c < s->n_clients; c++)
      atoll_trace_name_track(trace, ATOLL_TRACK_CLIENT, c, s->clients[c].name);
    atoll_trace_name_track(trace, ATOLL_TRACK_SCHED, 0, atoll_policy_name(s->policy.kind));
  }
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (!atoll_core_client_active(&r.core, c))
      continue;
    int64_t first = s->clients[c].arrival.kind == ATOLL_ARRIVAL_CLOSED ? 0 : atoll_client_gen_next(&r.gens[c]);
    schedule_arrival(&r, c, first);
  }
  int64_t t;
  uint64_t p;
  while (!r.oom && atoll_evq_peek_time(&r.evq, &t) && t < s->duration_ns) {
    atoll_evq_pop(&r.evq, &t, &p);
    if (atoll_simev_type(p) == ATOLL_SIMEV_ARRIVAL)
      on_arrival(&r, atoll_simev_id(p), t);
    else
      atoll_simdev_handle(r.dev, p, t);
  }
  atoll_simdev_finish(r.dev, s->duration_ns, &res->cu_busy_ns, &res->cu_busy_rt_ns, &res->cu_busy_be_ns);
  res->events = r.evq.processed;
  rc = r.oom ? ATOLL_ENOMEM : 0;
  runner_free(&r);
  return rc;
}

static int alloc_results(const atoll_scenario *s, atoll_run_results *res) {
  memset(res, 0, sizeof *res);
  res->scenario = s;
  res->mode = "sim";
  res->cus = s->gpu.cus;
  res->window_ns = s->duration_ns - s->warmup_ns;
  res->standalone_ns = calloc(s->n_models, sizeof *res->standalone_ns);
  res->clients = calloc(s->n_clients, sizeof *res->clients);
  return res->standalone_ns && res->clients ? 0 : ATOLL_ENOMEM;
}

int atoll_sim_standalone_ns(const atoll_scenario *s, uint32_t model, int64_t *out) {
  /* One RT request at time 0 on an otherwise idle GPU, through the rt-only policy. */
  static const int64_t at_zero[1] = {0};
  atoll_client one = {.name = "standalone", .model = model, .cls = ATOLL_CLASS_RT,
                      .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = at_zero, .n_times = 1}};
  atoll_scenario alone = *s;
  alone.clients = &one;
  alone.n_clients = 1;
  alone.policy = (atoll_policy_cfg){.kind = ATOLL_POLICY_RT_ONLY};
  alone.warmup_ns = 0;
  alone.duration_ns = INT64_MAX / 4;
  alone.n_expects = 0;
  atoll_run_results res;
  int rc = alloc_results(&alone, &res);
  if (rc == 0)
    rc = run_with(&alone, NULL, &res);
  if (rc == 0 && (res.clients[0].n != 1 || res.clients[0].req[0].done_ns < 0))
    rc = ATOLL_EINVAL;
  if (rc == 0)
    *out = res.clients[0].req[0].done_ns;
  atoll_sim_results_free(&res);
  return rc;
}

int atoll_sim_run(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = alloc_results(s, res);
  for (uint32_t m = 0; rc == 0 && m < s->n_models; m++)
    rc = atoll_sim_standalone_ns(s, m, &res->standalone_ns[m]);
  if (rc == 0)
    rc = run_with(s, opts ? opts->trace : NULL, res);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (rc)
    atoll_sim_results_free(res);
  return rc;
}

void atoll_sim_results_free(atoll_run_results *res) {
  if (res->clients && res->scenario)
    for (uint32_t c = 0; c < res->scenario->n_clients; c++)
      free(res->clients[c].req);
  free(res->clients);
  free(res->standalone_ns);
  free(res->preemptions);
  res->clients = NULL;
  res->standalone_ns = NULL;
  res->preemptions = NULL;
}
