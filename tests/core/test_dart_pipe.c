/* dart's stage pipeline in the core (core/dart_pipe.c), through a fake device that records stream
 * configurations, launches and timers: node streams bound to their nodes' CUs with the RT worker
 * at the higher priority, stages launched on their node's stream of their class and handed to the
 * next node when their last op completes, one RT stage at a time per node (deadline-monotonic),
 * and enforcement: a WCET timer that finds its stage running demotes the client, the stage's end
 * raises the WCET and re-runs the response-time test, which brings the client back to RT at its
 * next request or alerts. A client has several requests in the pipeline, one per stage, each on
 * its own set of activations, and a BE client's requests enter as batches of its BE batch. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "core/dart.h"
#include "core/policy.h"
#include "core/sched.h"
#include "tests/atoll_test.h"

enum { MAX_LOG = 4096, N_OPS = 4, N_CLIENTS = 3, N_NODES = 2, MAX_REQ = 2048 };

typedef struct rec {
  uint32_t stream, n_cmds, op, batch;
  bool rt, completed;
  uint64_t tag[N_OPS];
} rec;

static struct {
  uint32_t n_streams, n_log, n_timers, n_events;
  atoll_stream_cfg cfg[16];
  rec log[MAX_LOG];
  int64_t timer_at[MAX_LOG];
  uint64_t timer_cookie[MAX_LOG];
  uint32_t event_client[MAX_LOG], event_what[MAX_LOG];
  int64_t now;
  uint32_t refuse, n_refused; /* the next launch calls to refuse; those refused so far */
  /* What the core told of each request: done, failed, dropped. */
  uint8_t done[N_CLIENTS][MAX_REQ], failed[N_CLIENTS][MAX_REQ], dropped[N_CLIENTS][MAX_REQ];
  uint64_t refused_req[MAX_LOG];  /* the request of each refused launch */
  uint64_t failed_order[MAX_LOG]; /* the failed requests, as told */
  uint32_t n_failed;
} fk;

static atoll_core core;

static int64_t f_now(void *ctx) {
  (void)ctx;
  return fk.now;
}
static int f_create(void *ctx, const atoll_stream_cfg *cfg, uint32_t *stream) {
  (void)ctx;
  fk.cfg[fk.n_streams] = *cfg;
  *stream = fk.n_streams++;
  return 0;
}
static int f_launch(void *ctx, uint32_t stream, const atoll_cmd *cmds, uint32_t n) {
  (void)ctx;
  if (fk.refuse > 0) {
    fk.refuse--;
    if (fk.n_refused < MAX_LOG)
      fk.refused_req[fk.n_refused] = core.tasks[atoll_tag_task(cmds[0].tag)].req;
    fk.n_refused++;
    return ATOLL_EIO;
  }
  assert_cmp(fk.n_log, <, MAX_LOG);
  rec *r = &fk.log[fk.n_log++];
  *r = (rec){.stream = stream, .n_cmds = n, .op = cmds[0].op, .rt = cmds[0].rt, .batch = cmds[0].batch};
  for (uint32_t i = 0; i < n && i < N_OPS; i++)
    r->tag[i] = cmds[i].tag;
  return 0;
}
static int f_timer(void *ctx, int64_t at, uint64_t cookie) {
  (void)ctx;
  assert_cmp(fk.n_timers, <, MAX_LOG);
  fk.timer_at[fk.n_timers] = at;
  fk.timer_cookie[fk.n_timers++] = cookie;
  return 0;
}
static const atoll_device_ops ops = {.now = f_now, .create_stream = f_create, .launch = f_launch, .set_timer = f_timer};

static void on_enforcement(void *ctx, uint32_t client, uint32_t what, int64_t now) {
  (void)ctx, (void)now;
  if (fk.n_events >= MAX_LOG)
    return;
  fk.event_client[fk.n_events] = client;
  fk.event_what[fk.n_events++] = what;
}
static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)now;
  fk.done[client][req]++;
}
static void on_failed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)now;
  fk.failed[client][req]++;
  if (fk.n_failed < MAX_LOG)
    fk.failed_order[fk.n_failed++] = req;
}
static void on_dropped(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)now;
  fk.dropped[client][req]++;
}
static const atoll_core_observer obs = {
    .enforcement = on_enforcement, .request_done = on_done, .request_failed = on_failed, .request_dropped = on_dropped};

static atoll_op model_ops[N_OPS];
static atoll_scenario_model models[1];
static atoll_client clients[N_CLIENTS];
static atoll_scenario sc;
static void *mem;
static atoll_dart_client_plan plans[N_CLIENTS];
static int64_t wcet[N_CLIENTS * ATOLL_DART_MAX_NODES], periods[N_CLIENTS];
static const int64_t deadlines[N_CLIENTS] = {20000000, 10000000, 0};
static atoll_dart_pipeline pipe;

/* Clients: rt_b (RT, deadline 20 ms), rt_a (RT, 10 ms: the higher priority), be (BE). Every model
 * has four ops: RT clients run ops 0-1 on node 0 and 2-3 on node 1, the BE client op 0 on node 0
 * and 1-3 on node 1. Node 0 is CU 0, node 1 CU 1. RT stages' WCET: 100 us. */
static void setup_with(int64_t be_batch) {
  for (int i = 0; i < N_OPS; i++)
    model_ops[i] = (atoll_op){.kind = ATOLL_OP_KERNEL, .name = "k",
                              .shape = {.grid = {8, 1, 1}, .block = {64, 1, 1}, .occupancy = 1, .time_ns = 50000}};
  models[0] = (atoll_scenario_model){"m", "m.yaml", {.name = "m", .gpu = "g", .ops = model_ops, .n_ops = N_OPS}};
  clients[0] = (atoll_client){"rt_b", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 50}, 0};
  clients[1] = (atoll_client){"rt_a", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 100}, 0};
  clients[2] = (atoll_client){"be", 0, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0};
  sc = (atoll_scenario){.path = "fake.yaml",
                        .gpu = {.name = "g", .cus = 2, .max_blocks_per_cu = 1, .registers_per_cu = 65536},
                        .models = models,
                        .n_models = 1,
                        .clients = clients,
                        .n_clients = N_CLIENTS,
                        .policy = {.kind = ATOLL_POLICY_DART, .param = {be_batch}},
                        .duration_ns = 1000000000,
                        .seed = 1};
  for (uint32_t c = 0; c < N_CLIENTS; c++) {
    bool rt = c < 2;
    plans[c] = (atoll_dart_client_plan){.n_stages = 2};
    plans[c].stages[0] = (atoll_dart_stage){.node = 0, .op_lo = 0, .op_hi = rt ? 2 : 1};
    plans[c].stages[1] = (atoll_dart_stage){.node = 1, .op_lo = rt ? 2 : 1, .op_hi = N_OPS};
    for (uint32_t s = 0; s < ATOLL_DART_MAX_NODES; s++)
      wcet[c * ATOLL_DART_MAX_NODES + s] = 100000;
    periods[c] = deadlines[c];
  }
  memset(&pipe, 0, sizeof pipe);
  pipe.n_nodes = N_NODES;
  atoll_cuset_add_range(&pipe.node_cus[0], 0, 0);
  atoll_cuset_add_range(&pipe.node_cus[1], 1, 1);
  pipe.clients = plans;
  pipe.wcet_ns = wcet;
  pipe.period_ns = periods;
  memset(&fk, 0, sizeof fk);
  atoll_core_limits lim = {.dart = &pipe};
  size_t size = atoll_core_size(&sc, &lim);
  mem = malloc(size);
  assert_non_null(mem);
  assert_int_equal(atoll_core_init(&core, mem, size, &sc, (atoll_device){.ops = &ops}, &obs, NULL, &lim, deadlines),
                   0);
}

static void setup(void) { setup_with(1); }

static void teardown(void) { free(mem); }

/* Streams: one per client queue (0-2), then per node its BE and RT workers (3 + 2k, 4 + 2k). */
static uint32_t node_stream(uint32_t node, bool rt) { return N_CLIENTS + 2 * node + (rt ? 1 : 0); }

/* Completes every command of launch i, in order. */
static void complete(uint32_t i) {
  rec *r = &fk.log[i];
  assert_false(r->completed);
  r->completed = true;
  for (uint32_t k = 0; k < r->n_cmds; k++)
    atoll_core_on_cmd_done(&core, r->stream, r->tag[k], fk.now);
  assert_true(atoll_core_is_valid(&core));
}

static void node_streams_are_bound_with_rt_first(void **state) {
  (void)state;
  setup();
  assert_int_equal(fk.n_streams, N_CLIENTS + 2 * N_NODES);
  for (uint32_t k = 0; k < N_NODES; k++)
    for (uint32_t rt = 0; rt < 2; rt++) {
      const atoll_stream_cfg *cfg = &fk.cfg[node_stream(k, rt)];
      assert_true(atoll_cuset_equal(&cfg->cus, &pipe.node_cus[k]));
      assert_int_equal(cfg->priority, rt);
    }
  teardown();
}

static void stages_are_handed_from_node_to_node(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 0, 0, 0); /* rt_b: its first stage on node 0's RT worker */
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].stream, node_stream(0, true));
  assert_int_equal(fk.log[0].n_cmds, 2);
  assert_true(fk.log[0].rt);
  atoll_core_on_arrival(&core, 2, 0, 0); /* be: node 0's BE worker is free */
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, node_stream(0, false));
  assert_int_equal(fk.log[1].n_cmds, 1);
  assert_false(fk.log[1].rt);
  atoll_core_on_arrival(&core, 1, 0, 0); /* rt_a: node 0's RT worker is busy (non-preemptive) */
  assert_int_equal(fk.n_log, 2);
  fk.now = 50000;
  complete(0); /* rt_b's stage 0 ends: rt_b to node 1's RT worker, rt_a takes node 0's */
  assert_int_equal(fk.n_log, 4);
  bool saw_b = false, saw_a = false;
  for (uint32_t i = 2; i < 4; i++) {
    if (fk.log[i].stream == node_stream(1, true) && fk.log[i].op == 2)
      saw_b = true;
    if (fk.log[i].stream == node_stream(0, true) && fk.log[i].op == 0)
      saw_a = true;
  }
  assert_true(saw_b && saw_a);
  complete(1); /* be's stage 0 ends: its ops 1-3 go to node 1's BE worker */
  assert_int_equal(fk.n_log, 5);
  assert_int_equal(fk.log[4].stream, node_stream(1, false));
  assert_int_equal(fk.log[4].op, 1);
  assert_int_equal(fk.log[4].n_cmds, 3);
  assert_int_equal(fk.n_events, 0);
  teardown();
}

/* The WCET timer of rt_a's first stage fires while it runs: a demotion. */
static void start_and_overrun(void) {
  atoll_core_on_arrival(&core, 1, 0, 0);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.n_timers, 1);
  assert_int_equal(fk.timer_at[0], 100000);
  fk.now = 100000;
  atoll_core_on_timer(&core, fk.timer_cookie[0], fk.now);
  assert_int_equal(fk.n_events, 1);
  assert_int_equal(fk.event_client[0], 1);
  assert_int_equal(fk.event_what[0], ATOLL_ENFORCE_DEMOTION);
}

static void overrun_demotes_then_the_test_brings_it_back(void **state) {
  (void)state;
  setup();
  start_and_overrun();
  fk.now = 300000; /* the stage took 300 us: still schedulable at 10 ms */
  complete(0);
  assert_int_equal(fk.n_events, 2);
  assert_int_equal(fk.event_what[1], ATOLL_ENFORCE_RECOVERY);
  /* Demoted: its second stage runs in node 1's BE worker. */
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, node_stream(1, false));
  assert_false(fk.log[1].rt);
  complete(1);
  /* Its next request is RT again. */
  atoll_core_on_arrival(&core, 1, 1, fk.now);
  assert_int_equal(fk.n_log, 3);
  assert_int_equal(fk.log[2].stream, node_stream(0, true));
  assert_true(fk.log[2].rt);
  teardown();
}

static void a_stale_timer_does_nothing(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 1, 0, 0);
  fk.now = 50000;
  complete(0); /* the stage ended within its WCET */
  atoll_core_on_timer(&core, fk.timer_cookie[0], 100000);
  assert_int_equal(fk.n_events, 0);
  assert_int_equal(fk.log[1].stream, node_stream(1, true));
  teardown();
}

static void an_unschedulable_wcet_alerts_and_stays_be(void **state) {
  (void)state;
  setup();
  start_and_overrun();
  fk.now = 30000000; /* 30 ms: past rt_a's 10 ms deadline */
  complete(0);
  assert_int_equal(fk.n_events, 2);
  assert_int_equal(fk.event_what[1], ATOLL_ENFORCE_ALERT);
  complete(1);
  atoll_core_on_arrival(&core, 1, 1, fk.now);
  assert_int_equal(fk.log[fk.n_log - 1].stream, node_stream(0, false));
  teardown();
}

/* Stage i of a client's request k+1 runs beside stage i+1 of request k; the two use different sets
 * of activations; a third request waits until the second has left the first stage. */
static void a_clients_requests_overlap_across_stages(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 2, 0, 0); /* be: request 0, stage 0 on node 0 */
  atoll_core_on_arrival(&core, 2, 1, 0); /* request 1 waits: request 0 is at its first stage */
  atoll_core_on_arrival(&core, 2, 2, 0);
  assert_int_equal(fk.n_log, 1);
  fk.now = 50000;
  complete(0); /* request 0 to node 1; request 1 enters and takes node 0 */
  assert_int_equal(fk.n_log, 3);
  uint32_t on0 = fk.log[1].stream == node_stream(0, false) ? 1 : 2, on1 = 3 - on0;
  assert_int_equal(fk.log[on0].stream, node_stream(0, false));
  assert_int_equal(fk.log[on0].op, 0);
  assert_int_equal(fk.log[on1].stream, node_stream(1, false));
  assert_int_equal(fk.log[on1].op, 1);
  const uint32_t t0 = atoll_tag_task(fk.log[on1].tag[0]), t1 = atoll_tag_task(fk.log[on0].tag[0]);
  assert_int_not_equal(t0, t1);
  assert_int_not_equal(atoll_core_task_set(&core, t0), atoll_core_task_set(&core, t1));
  assert_cmp(atoll_core_task_set(&core, t0), <, atoll_dart_pipe_depth(&pipe, 2));
  assert_cmp(atoll_core_task_set(&core, t1), <, atoll_dart_pipe_depth(&pipe, 2));
  /* Request 2: the pipeline holds two (one per stage), and request 1 is at the first. */
  complete(on1); /* request 0 completes: still request 1 at stage 0 */
  assert_int_equal(fk.n_log, 3);
  complete(on0); /* request 1 to node 1, request 2 to node 0 */
  assert_int_equal(fk.n_log, 5);
  teardown();
}

/* be_batch: a BE client's waiting requests enter as one batched task, a closed client's full. */
static void be_requests_enter_as_batches(void **state) {
  (void)state;
  setup_with(3);
  /* A closed client's batch enters full: nothing before its third request. */
  atoll_core_on_arrival(&core, 2, 0, 0);
  atoll_core_on_arrival(&core, 2, 1, 0);
  assert_int_equal(fk.n_log, 0);
  for (uint64_t r = 2; r <= 6; r++)
    atoll_core_on_arrival(&core, 2, r, 0);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].batch, 3);
  fk.now = 50000;
  complete(0); /* requests 3-5 enter as the next batch of 3; request 6 waits */
  assert_int_equal(fk.n_log, 3);
  uint32_t on0 = fk.log[1].stream == node_stream(0, false) ? 1 : 2;
  assert_int_equal(fk.log[on0].batch, 3);
  assert_int_equal(fk.log[on0].op, 0);
  teardown();
}

/* A refused launch (the device's launch returns an error) fails the request whose stage it was, and
 * that request alone: it is told failed once, its worker is free for the next stage, and the
 * pipeline goes on. Here rt_b's second request is refused at its first stage, handed over when its
 * first request moves on to node 1. */
static void a_refused_stage_fails_its_request_and_frees_the_worker(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 0, 0, 0);
  atoll_core_on_arrival(&core, 0, 1, 0);
  assert_int_equal(fk.n_log, 1);
  fk.refuse = 1;
  fk.now = 50000;
  complete(0); /* request 0 to node 1; request 1 enters, and its stage 0 on node 0 is refused */
  assert_int_equal(fk.n_refused, 1);
  assert_int_equal(fk.failed[0][1], 1);
  assert_int_equal(fk.failed[0][0] + fk.done[0][0] + fk.done[0][1], 0);
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, node_stream(1, true));
  assert_true(atoll_core_is_valid(&core));
  atoll_core_on_arrival(&core, 1, 0, fk.now); /* node 0's RT worker is free: rt_a runs there */
  assert_int_equal(fk.n_log, 3);
  assert_int_equal(fk.log[2].stream, node_stream(0, true));
  fk.now = 100000;
  complete(1);
  assert_int_equal(fk.done[0][0], 1);
  complete(2); /* rt_a to node 1, which request 0 left */
  assert_int_equal(fk.n_log, 4);
  assert_int_equal(fk.log[3].stream, node_stream(1, true));
  complete(3);
  assert_int_equal(fk.done[1][0], 1);
  assert_int_equal(fk.failed[0][1], 1);
  teardown();
}

/* A device that refuses launch after launch (five, of rt_a's requests only): the failures are told
 * in the order of the refusals, each refusal handled before the next launch (not from inside the
 * handling of the one before, which would take a level of the stack per waiting request and tell
 * the failures last one first), and then the pipeline goes on. No WCET timer is set for a stage the
 * device refused. */
static void refusals_fail_waiting_requests_in_order(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 1, 0, 0);
  for (uint64_t r = 1; r <= 5; r++) /* they wait: request 0 is at its first stage */
    atoll_core_on_arrival(&core, 1, r, 0);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.n_timers, 1);
  fk.refuse = 5;
  fk.now = 50000;
  complete(0);
  assert_int_equal(fk.n_refused, 5);
  assert_int_equal(fk.n_failed, 5);
  for (uint32_t k = 0; k < 5; k++)
    if (fk.failed_order[k] != fk.refused_req[k])
      fail_msg("failure %u told for request %llu, refusal %u was request %llu's", k,
               (unsigned long long)fk.failed_order[k], k, (unsigned long long)fk.refused_req[k]);
  /* Six requests, five failed: the last one runs its first stage on node 0's RT worker. */
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, node_stream(0, true));
  assert_int_equal(fk.failed[1][core.tasks[atoll_tag_task(fk.log[1].tag[0])].req], 0);
  assert_int_equal(fk.n_timers, 2); /* and its budget; none for the refused stages */
  assert_int_equal(fk.timer_cookie[1] >> 32, 1);
  complete(1);
  fk.now = 100000;
  complete(2);
  assert_int_equal(fk.n_failed, 5);
  assert_int_equal(atoll_ring_count(&core.free_tasks), core.n_tasks);
  teardown();
}

/* The core's release of a task that a policy holds apart from its queue's active slot (the
 * pipeline's requests) frees that task alone: a slot naming another of the queue's tasks keeps
 * it. The pipeline itself leaves the slot free between its rounds, so here the slot is set by hand
 * to rt_a's waiting request before its request in the pipeline is released by a refused launch. */
static void releasing_a_held_task_leaves_the_queues_slot_alone(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 1, 0, 0);
  atoll_core_on_arrival(&core, 1, 1, 0);
  const uint32_t q = core.client_queue[1];
  assert_int_equal(core.queues[q].active, -1);
  assert_true(atoll__queue_activate(&core, q)); /* request 1 takes the slot */
  const int32_t waiting = core.queues[q].active;
  assert_int_equal(core.tasks[waiting].req, 1);
  fk.refuse = 1;
  fk.now = 50000;
  complete(0); /* request 0's second stage is refused: request 0 fails */
  assert_int_equal(fk.failed[1][0], 1);
  assert_int_equal(core.queues[q].active, waiting);
  assert_true(core.tasks[waiting].in_use);
  teardown();
}

/* A refused BE batch fails each of its requests once. */
static void a_refused_batch_fails_each_request_once(void **state) {
  (void)state;
  setup_with(3);
  fk.refuse = 1;
  for (uint64_t r = 0; r < 3; r++)
    atoll_core_on_arrival(&core, 2, r, 0);
  assert_int_equal(fk.n_refused, 1);
  for (uint64_t r = 0; r < 3; r++)
    assert_int_equal(fk.failed[2][r], 1);
  for (uint64_t r = 3; r < 6; r++)
    atoll_core_on_arrival(&core, 2, r, 0);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].batch, 3);
  fk.now = 50000;
  complete(0);
  complete(1);
  for (uint64_t r = 3; r < 6; r++)
    assert_int_equal(fk.done[2][r], 1);
  assert_int_equal(atoll_ring_count(&core.free_tasks), core.n_tasks);
  teardown();
}

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n) { return atoll_test_rnd(&rnd_state, n); }

/* The oldest launch on stream s not completed, or -1 (a stream completes its commands in order). */
static int32_t oldest_on(uint32_t s) {
  for (uint32_t i = 0; i < fk.n_log; i++)
    if (fk.log[i].stream == s && !fk.log[i].completed)
      return (int32_t)i;
  return -1;
}

/* Completes the oldest launch of a random stream that has one; false when none is out. */
static bool complete_some(void) {
  int32_t out[16];
  uint32_t n = 0;
  for (uint32_t st = 0; st < fk.n_streams; st++) {
    int32_t i = oldest_on(st);
    if (i >= 0)
      out[n++] = i;
  }
  if (n == 0)
    return false;
  complete((uint32_t)out[rnd(n)]);
  return true;
}

/* Random arrivals, completions, WCET timers (demotions, recoveries, alerts) and refused launches:
 * the core stays valid, and after a drain every request was told once -- done, failed (a refused
 * launch) or dropped --, the task pool is whole and no queue holds anything. */
static void refused_launches_lose_and_repeat_nothing(void **state) {
  (void)state;
  static const uint64_t seeds[] = {0x1234567ull, 0x89abcdefull, 0x5eedull, 0xfeedbeefull};
  for (uint32_t sd = 0; sd < sizeof seeds / sizeof seeds[0]; sd++) {
    setup();
    rnd_state = seeds[sd];
    uint64_t next_req[N_CLIENTS] = {0};
    uint32_t next_timer = 0;
    for (int step = 0; step < 3000; step++) {
      fk.now += rnd(40000);
      uint32_t what = rnd(100);
      if (what < 8) {
        fk.refuse = 1;
      } else if (what < 40) {
        uint32_t c = rnd(N_CLIENTS);
        if (next_req[c] < MAX_REQ && fk.n_log < MAX_LOG - 64)
          atoll_core_on_arrival(&core, c, next_req[c]++, fk.now);
      } else if (what < 50) {
        for (; next_timer < fk.n_timers && fk.timer_at[next_timer] <= fk.now; next_timer++)
          atoll_core_on_timer(&core, fk.timer_cookie[next_timer], fk.now);
      } else {
        complete_some();
      }
      assert_true(atoll_core_is_valid(&core));
    }
    fk.refuse = 0;
    do
      fk.now += 1000;
    while (complete_some());
    assert_cmp(fk.n_refused, >, 20);
    uint32_t failed = 0, arrivals = 0;
    for (uint32_t c = 0; c < N_CLIENTS; c++)
      for (uint64_t r = 0; r < next_req[c]; r++) {
        arrivals++;
        failed += fk.failed[c][r];
        if (fk.done[c][r] + fk.failed[c][r] + fk.dropped[c][r] != 1)
          fail_msg("seed %u: client %u request %llu: done %u, failed %u, dropped %u", sd, c, (unsigned long long)r,
                   fk.done[c][r], fk.failed[c][r], fk.dropped[c][r]);
      }
    assert_cmp(arrivals, >, 500);
    assert_int_equal(failed, fk.n_refused); /* batch 1: a refused launch fails one request */
    assert_int_equal(atoll_ring_count(&core.free_tasks), core.n_tasks);
    for (uint32_t q = 0; q < core.n_queues; q++) {
      assert_int_equal(core.queues[q].active, -1);
      assert_true(atoll_ring_is_empty(&core.queues[q].pending));
    }
    teardown();
  }
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(node_streams_are_bound_with_rt_first),
      cmocka_unit_test(stages_are_handed_from_node_to_node),
      cmocka_unit_test(overrun_demotes_then_the_test_brings_it_back),
      cmocka_unit_test(a_stale_timer_does_nothing),
      cmocka_unit_test(an_unschedulable_wcet_alerts_and_stays_be),
      cmocka_unit_test(a_clients_requests_overlap_across_stages),
      cmocka_unit_test(be_requests_enter_as_batches),
      cmocka_unit_test(a_refused_stage_fails_its_request_and_frees_the_worker),
      cmocka_unit_test(a_refused_batch_fails_each_request_once),
      cmocka_unit_test(refusals_fail_waiting_requests_in_order),
      cmocka_unit_test(releasing_a_held_task_leaves_the_queues_slot_alone),
      cmocka_unit_test(refused_launches_lose_and_repeat_nothing),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
