/* dart, base-gpu and base-cpu (docs/dart.md): DART's node workers and the two baselines it is
 * measured against. Their full form runs on nodes (the scenario's `nodes:`) in the simulator's node
 * model, sim/dart_run.c, which reads the options below. Given a stage pipeline by its runner
 * (atoll_core_limits.dart: the native runtime), dart runs its stages over the nodes' workers
 * (core/dart_pipe.c). Otherwise (the explorer, the baselines natively) the three behave as one
 * node's worker: one request at a time, never preempted, RT requests first in deadline-monotonic
 * order (the shorter relative deadline, then the lower client index), then BE requests earliest
 * deadline first (none: by arrival) -- DART's RT/BE classes with the baselines' priority queues.
 *
 * Options (param slots): be_batch, BE requests run as one batched job (1: none); and, for dart,
 * an injected overrun to test enforcement: request inject_request of the inject_client-th client
 * (1-based, 0: none) has its first stage run inject_pct percent of its time (in the pipeline, on
 * a real device, its first stage's budget is cut to 100 / inject_pct of its WCET instead); and
 * admit_from: the admit_from-th client (1-based) and those after it are tasks arriving at run time,
 * admitted by the response-time test at their first request (0: none; the node model applies it). */
#include "core/dart_pipe.h"

#include "atoll/limits.h"

typedef atoll_dart_state dart_state;

enum { OPT_BE_BATCH, OPT_INJECT_CLIENT, OPT_INJECT_REQUEST, OPT_INJECT_PCT, OPT_ADMIT_FROM };

static const atoll_policy_option dart_options[] = {
    {.key = "be_batch", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[0]),
     .def = 1, .min = 1, .max = 64},
    {.key = "inject_client", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[1]),
     .def = 0, .min = 0, .max = ATOLL_MAX_CLIENTS},
    {.key = "inject_request", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[2]),
     .def = 0, .min = 0, .max = 1u << 30},
    {.key = "inject_pct", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[3]),
     .def = 100, .min = 100, .max = 100000},
    {.key = "admit_from", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[4]),
     .def = 0, .min = 0, .max = ATOLL_MAX_CLIENTS},
};

/* The test options name clients by their 1-based place: one past the scenario's clients, or an
 * overrun's request and size with no client to inject into, would run as if not given. */
static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  const int64_t *p = s->policy.param;
  if (p[1] > (int64_t)s->n_clients) {
    *bad = OPT_INJECT_CLIENT;
    return "inject_client is past the scenario's clients; give 1 to their number (1-based), or 0 for none";
  }
  if (p[1] == 0 && (given & (1u << OPT_INJECT_REQUEST | 1u << OPT_INJECT_PCT))) {
    *bad = given & (1u << OPT_INJECT_REQUEST) ? OPT_INJECT_REQUEST : OPT_INJECT_PCT;
    return "an injected overrun has no client to run in; set inject_client (1-based)";
  }
  if (p[4] > (int64_t)s->n_clients) {
    *bad = OPT_ADMIT_FROM;
    return "admit_from is past the scenario's clients; give 1 to their number (1-based), or 0 for none";
  }
  return NULL;
}

static void init(atoll_core *c) {
  ((dart_state *)atoll__policy_state(c))->owner = -1;
  if (c->dart)
    atoll__dart_pipe_init(c);
}

/* The pipeline is dart's alone: the baselines run whole models on one node. */
static bool pipelined(const atoll_core *c) { return c->dart && c->policy == ATOLL_POLICY_DART; }

static const atoll_task *head(const atoll_core *c, uint32_t q) {
  uint64_t id;
  return atoll_ring_peek(&c->queues[q].pending, 0, &id) == 0 ? &c->tasks[id] : NULL;
}

/* Whether queue a's head goes before queue b's. */
static bool before(const atoll_core *c, uint32_t a, uint32_t b) {
  const atoll_task *x = head(c, a), *y = head(c, b);
  bool ra = c->queues[a].rt, rb = c->queues[b].rt;
  if (ra != rb)
    return ra;
  if (ra) {
    int64_t da = c->client_deadline_ns[x->client], db = c->client_deadline_ns[y->client];
    if (da != db)
      return da != 0 && (db == 0 || da < db);
    return x->client < y->client;
  }
  if (x->deadline_ns != y->deadline_ns)
    return x->deadline_ns < y->deadline_ns;
  return x->arrival_ns < y->arrival_ns;
}

static void pick(atoll_core *c) {
  dart_state *st = atoll__policy_state(c);
  if (st->owner >= 0)
    return;
  int32_t best = -1;
  for (uint32_t q = 0; q < c->n_queues; q++)
    if (head(c, q) && (best < 0 || before(c, q, (uint32_t)best)))
      best = (int32_t)q;
  if (best < 0 || !atoll__queue_activate_at(c, (uint32_t)best, 0))
    return;
  st->owner = best;
  atoll__launch_rest(c, (uint32_t)best);
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q;
  if (pipelined(c))
    atoll__dart_pipe_dispatch(c, now);
  else
    pick(c);
}

static void on_op_done(atoll_core *c, uint32_t q, int64_t now) {
  if (pipelined(c))
    atoll__dart_pipe_op_done(c, q, now);
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  if (pipelined(c)) {
    atoll__dart_pipe_task_done(c, q, now);
    return;
  }
  ((dart_state *)atoll__policy_state(c))->owner = -1;
  pick(c);
}

static void on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  if (pipelined(c))
    atoll__dart_pipe_timer(c, cookie, now);
}

static int create_streams(atoll_core *c) { return pipelined(c) ? atoll__dart_pipe_streams(c) : 0; }

static bool state_valid(const atoll_core *c) {
  return ((const dart_state *)atoll__policy_state_c(c))->owner < (int32_t)c->n_queues &&
         (!pipelined(c) || atoll__dart_pipe_valid(c));
}

#define DART_OPS(name, n_opts, finish)                                                                        \
  const atoll_policy_ops atoll__policy_##name = {.queue_per_client = true,                                    \
                                                 .state_size = sizeof(dart_state),                            \
                                                 .options = dart_options,                                     \
                                                 .n_options = (n_opts),                                       \
                                                 .init = init,                                                \
                                                 .on_queued = on_queued,                                      \
                                                 .on_op_done = on_op_done,                                    \
                                                 .on_task_done = on_task_done,                                \
                                                 .on_timer = on_timer,                                        \
                                                 .state_valid = state_valid,                                  \
                                                 .create_streams = create_streams,                            \
                                                 .finish_options = (finish)};
DART_OPS(dart, 5, finish_options)
DART_OPS(base_gpu, 1, NULL)
/* BaseCPU runs unbatched, as in the paper's case study. */
DART_OPS(base_cpu, 0, NULL)
