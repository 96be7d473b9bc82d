/* The scheduler core and its baseline policies (core/sched.c, core/policy_{rt_only,seq,streams,orion}.c), driven
 * through a fake device (sched_fake.h) that records every stream and launch and lets the test
 * decide when commands start and complete. Every event is followed by fk_check(): the core is
 * valid, commands sit on their task's stream in op order, nothing waits on an idle stream (or, for
 * seq and orion, an idle GPU), and each policy's rule on what may run at once holds. */
#include "tests/core/sched_fake.h"

static const atoll_policy_kind implemented[] = {ATOLL_POLICY_RT_ONLY, ATOLL_POLICY_SEQ, ATOLL_POLICY_STREAMS,
                                                ATOLL_POLICY_ORION};
enum { N_IMPLEMENTED = sizeof implemented / sizeof *implemented };

/* --- queue and stream layout --- */

/* rt-only, seq and orion: one RT queue shared by both RT clients, one queue per BE client, one
 * stream per queue; stream settings at their defaults (priority 0, the device's stock DQ depth). */
static void reef_layout_for_rt_only_seq_orion(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_RT_ONLY, ATOLL_POLICY_SEQ, ATOLL_POLICY_ORION};
  for (size_t i = 0; i < 3; i++) {
    fk_scenario(kinds[i]);
    fk_start_ok(NULL, NULL);
    assert_int_equal(core.n_queues, 3);
    assert_int_equal(fk.n_streams, 3);
    uint32_t rtq = core.client_queue[RT0];
    assert_int_equal(core.client_queue[RT1], rtq);
    assert_int_not_equal(core.client_queue[BE0], rtq);
    assert_int_not_equal(core.client_queue[BE1], rtq);
    assert_int_not_equal(core.client_queue[BE0], core.client_queue[BE1]);
    assert_true(core.queues[rtq].rt);
    assert_false(core.queues[core.client_queue[BE0]].rt);
    assert_false(core.queues[core.client_queue[BE1]].rt);
    /* One stream each, all distinct, as created. */
    assert_int_not_equal(fk_stream_of(RT0), fk_stream_of(BE0));
    assert_int_not_equal(fk_stream_of(RT0), fk_stream_of(BE1));
    assert_int_not_equal(fk_stream_of(BE0), fk_stream_of(BE1));
    for (uint32_t s = 0; s < fk.n_streams; s++) {
      assert_int_equal(fk.cfg[s].priority, 0);
      assert_int_equal(fk.cfg[s].dq_capacity, 0);
      assert_true(atoll_cuset_is_empty(&fk.cfg[s].cus));
    }
    /* BE streams are named after their client (traces show them). */
    assert_string_equal(fk.names[fk_stream_of(BE0)], "be0");
    assert_string_equal(fk.names[fk_stream_of(BE1)], "be1");
    assert_int_equal(fk.n_log, 0); /* nothing launched before any request */
  }
}

/* streams: every client its own queue and stream, each queue RT or BE as its client. */
static void streams_layout_one_queue_per_client(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_STREAMS);
  fk_start_ok(NULL, NULL);
  assert_int_equal(core.n_queues, FK_CLIENTS);
  assert_int_equal(fk.n_streams, FK_CLIENTS);
  for (uint32_t a = 0; a < FK_CLIENTS; a++) {
    assert_int_equal(core.queues[core.client_queue[a]].rt, sc.clients[a].cls == ATOLL_CLASS_RT);
    assert_string_equal(fk.names[fk_stream_of(a)], sc.clients[a].name);
    for (uint32_t b = a + 1; b < FK_CLIENTS; b++) {
      assert_int_not_equal(core.client_queue[a], core.client_queue[b]);
      assert_int_not_equal(fk_stream_of(a), fk_stream_of(b));
    }
  }
}

/* A one-RT-client scenario still gets its RT queue; a BE-only one has none. */
static void layout_with_one_rt_or_no_rt_client(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  sc.n_clients = 2; /* rt0, be0 */
  fk_start_ok(NULL, NULL);
  assert_int_equal(core.n_queues, 2);
  assert_int_equal(fk.n_streams, 2);
  assert_true(core.queues[core.client_queue[RT0]].rt);

  static atoll_client be_only[2];
  be_only[0] = fk_clients[BE0], be_only[1] = fk_clients[BE1];
  fk_scenario(ATOLL_POLICY_SEQ);
  sc.clients = be_only, sc.n_clients = 2;
  fk_start_ok(NULL, NULL);
  assert_int_equal(core.n_queues, 2);
  assert_int_equal(fk.n_streams, 2);
  assert_false(core.queues[0].rt);
  assert_false(core.queues[1].rt);
  /* BE work runs without an RT queue. */
  fk_arrive(0);
  assert_int_equal(fk.n_log, 1);
  fk_complete_task(fk.log[0].stream, NULL, NULL);
  assert_int_equal(fk.done[0][0], 1);
}

/* dq_capacity: the policy's value reaches every stream; unset, 0 (the device's stock depth). */
static void dq_capacity_option_reaches_every_stream(void **state) {
  (void)state;
  for (size_t i = 0; i < N_IMPLEMENTED; i++) {
    fk_scenario(implemented[i]);
    sc.policy.dq_capacity = 8;
    fk_start_ok(NULL, NULL);
    assert_cmp(fk.n_streams, >=, 3);
    for (uint32_t s = 0; s < fk.n_streams; s++)
      assert_int_equal(fk.cfg[s].dq_capacity, 8);
    fk_scenario(implemented[i]);
    fk_start_ok(NULL, NULL);
    for (uint32_t s = 0; s < fk.n_streams; s++)
      assert_int_equal(fk.cfg[s].dq_capacity, 0);
  }
}

/* streams with priority: true: RT clients' streams get priority 1, BE streams 0; without it all 0. */
static void streams_priority_option_raises_rt_streams(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_STREAMS);
  sc.policy.priority = true;
  fk_start_ok(NULL, NULL);
  assert_int_equal(fk.cfg[fk_stream_of(RT0)].priority, 1);
  assert_int_equal(fk.cfg[fk_stream_of(RT1)].priority, 1);
  assert_int_equal(fk.cfg[fk_stream_of(BE0)].priority, 0);
  assert_int_equal(fk.cfg[fk_stream_of(BE1)].priority, 0);
  fk_scenario(ATOLL_POLICY_STREAMS);
  fk_start_ok(NULL, NULL);
  for (uint32_t s = 0; s < fk.n_streams; s++)
    assert_int_equal(fk.cfg[s].priority, 0);
}

/* reef, reset and wait are not implemented yet: no storage size, init refuses with ENOTSUP and
 * creates no stream. */
/* The preempting policies keep REEF's layout (one RT queue shared by the RT clients, one queue per
 * BE client); reef and reset restrict every DQ to 4 (REEF §4.2), wait keeps the stock depth. */
static void preempting_policies_use_reef_layout_and_dq_depths(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_REEF, ATOLL_POLICY_RESET, ATOLL_POLICY_WAIT};
  static const uint32_t depth[] = {4, 4, 0};
  for (size_t i = 0; i < 3; i++) {
    fk_scenario(kinds[i]);
    sc.policy.dkp = kinds[i] == ATOLL_POLICY_REEF;
    assert_cmp(atoll_core_size(&sc, NULL), >, 0);
    fk_start_ok(NULL, NULL);
    assert_int_equal(fk.n_streams, 3); /* rt, be0, be1 */
    assert_int_equal(core.client_queue[RT0], core.client_queue[RT1]);
    assert_int_not_equal(core.client_queue[BE0], core.client_queue[BE1]);
    for (uint32_t st = 0; st < fk.n_streams; st++)
      assert_int_equal(fk.cfg[st].dq_capacity, depth[i]);
    assert_true(atoll_core_client_active(&core, BE0));
    fk_teardown(NULL);
  }
}

/* init checks its storage and its device. */
static void init_rejects_short_storage_and_missing_device_ops(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_reset();
  size_t size = atoll_core_size(&sc, NULL);
  assert_cmp(size, >, 0);
  core_mem = malloc(size);
  atoll_device dev = {.ops = &fk_ops};
  assert_int_equal(atoll_core_init(&core, core_mem, size - 1, &sc, dev, NULL, NULL, NULL, NULL), ATOLL_EINVAL);
  assert_int_equal(fk.n_streams, 0);
  atoll_device_ops no_launch = fk_ops;
  no_launch.launch = NULL;
  atoll_device bad = {.ops = &no_launch};
  assert_int_equal(atoll_core_init(&core, core_mem, size, &sc, bad, NULL, NULL, NULL, NULL), ATOLL_EINVAL);
  /* A smaller pending limit needs less storage. */
  atoll_core_limits small = {.pending_per_client = 2};
  assert_cmp(atoll_core_size(&sc, &small), <, size);
  /* No observer is fine: the core runs a task to completion without one. */
  assert_int_equal(atoll_core_init(&core, core_mem, size, &sc, dev, NULL, NULL, NULL, NULL), 0);
  atoll_core_on_arrival(&core, BE0, 0, 0);
  assert_int_equal(fk.n_log, 1);
  fk_complete_task(fk.log[0].stream, NULL, NULL);
  assert_int_equal(fk.n_ev, 0);
  assert_true(atoll_core_is_valid(&core));
}

/* rt-only serves RT clients only; every other policy serves everyone. */
static void rt_only_ignores_be_clients(void **state) {
  (void)state;
  for (size_t i = 0; i < N_IMPLEMENTED; i++) {
    fk_scenario(implemented[i]);
    fk_start_ok(NULL, NULL);
    bool rt_only = implemented[i] == ATOLL_POLICY_RT_ONLY;
    assert_true(atoll_core_client_active(&core, RT0));
    assert_true(atoll_core_client_active(&core, RT1));
    assert_int_equal(atoll_core_client_active(&core, BE0), !rt_only);
    assert_int_equal(atoll_core_client_active(&core, BE1), !rt_only);
    assert_false(atoll_core_client_active(&core, FK_CLIENTS));
  }
}

/* rt-only: RT tasks one after another through the shared RT queue, in arrival order, each launched
 * whole on the RT stream. */
static void rt_only_runs_rt_tasks_in_order_one_at_a_time(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_RT_ONLY);
  fk_start_ok(NULL, NULL);
  uint32_t rts = fk_stream_of(RT0);
  fk_arrive(RT1);
  fk_arrive(RT0);
  fk_arrive(RT1);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].stream, rts);
  assert_int_equal(fk.log[0].n, 2); /* rt1's model: 2 ops */
  static const uint32_t want_client[] = {RT1, RT0, RT1};
  static const uint64_t want_req[] = {0, 0, 1};
  for (int i = 0; i < 3; i++) {
    uint32_t c;
    uint64_t r;
    fk.now += 1000;
    fk_complete_task(rts, &c, &r);
    assert_int_equal(c, want_client[i]);
    assert_int_equal(r, want_req[i]);
    assert_int_equal(fk.done[c][r], 1);
  }
  assert_int_equal(fk.n_log, 3);
  assert_int_equal(fk_outstanding(), 0);
}

/* seq: one whole task at a time; RT before BE even when BE arrived first; RT in arrival order; BE
 * round robin across BE clients. */
static void seq_one_task_at_a_time_rt_first_be_round_robin(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  fk_arrive(BE0); /* A: runs at once */
  assert_int_equal(fk.n_log, 1);
  fk_arrive(BE0); /* B */
  fk_arrive(BE0); /* C */
  fk_arrive(BE1); /* D */
  fk_arrive(RT1); /* E: after every BE arrival above, yet next */
  fk_arrive(RT0); /* F */
  assert_int_equal(fk.n_log, 1);
  static const uint32_t want_client[] = {BE0, RT1, RT0, BE1, BE0, BE0};
  static const uint64_t want_req[] = {0, 0, 0, 0, 1, 2};
  for (int i = 0; i < 6; i++) {
    /* Each launch call holds a whole task, on its client's stream. */
    assert_int_equal(fk.n_log, (uint32_t)i + 1);
    const fk_launch *l = &fk.log[i];
    const atoll_task *t = fk_task(&l->cmds[0]);
    if (t->client != want_client[i] || t->req != want_req[i])
      fail_msg("task %d: client %u req %llu launched, expected client %u req %llu", i, t->client,
               (unsigned long long)t->req, want_client[i], (unsigned long long)want_req[i]);
    assert_int_equal(l->n, fk_model_ops(t->client));
    assert_int_equal(l->stream, fk_stream_of(t->client));
    for (uint32_t k = 0; k < l->n; k++)
      assert_int_equal(l->cmds[k].op, k);
    fk.now += 1000;
    uint32_t c;
    uint64_t r;
    fk_complete_task(l->stream, &c, &r);
    assert_int_equal(c, want_client[i]);
    assert_int_equal(r, want_req[i]);
  }
  assert_int_equal(fk_outstanding(), 0);
  assert_int_equal(fk.n_log, 6);
}

/* The policy picks the next task before the runner hears of a completion, so that a closed-loop
 * client's next request (sent from request_done) finds the GPU already handed over. */
static void seq_hands_over_before_request_done(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  fk_arrive(BE0);
  fk_arrive(RT0);
  fk_complete_task(fk.log[0].stream, NULL, NULL);
  const fk_event *done = NULL;
  for (uint32_t i = 0; i < fk.n_ev; i++)
    if (fk.ev[i].kind == 'd')
      done = &fk.ev[i];
  assert_non_null(done);
  assert_int_equal(done->client, BE0);
  assert_int_equal(done->launches, 2); /* the RT task was launched before request_done fired */
}

/* orion: one op on the GPU at a time; an RT task's ops go first as soon as it is pending; BE ops
 * alternate between BE clients. */
static void orion_one_op_at_a_time_rt_first(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_ORION);
  fk_start_ok(NULL, NULL);
  typedef struct step {
    uint32_t client;
    uint64_t req;
    uint32_t op;
  } step;
  /* A = be0#0 (3 ops), D = be1#0 (2), F = rt0#0 (3), E = rt1#0 (2), B = be0#1 (3). */
  static const step want[] = {{BE0, 0, 0}, {BE1, 0, 0}, {BE0, 0, 1}, {RT0, 0, 0}, {RT0, 0, 1},
                              {RT0, 0, 2}, {RT1, 0, 0}, {RT1, 0, 1}, {BE1, 0, 1}, {BE0, 0, 2},
                              {BE0, 1, 0}, {BE0, 1, 1}, {BE0, 1, 2}};
  enum { N = sizeof want / sizeof *want };
  fk_arrive(BE0);
  fk_arrive(BE1);
  for (uint32_t i = 0; i < N; i++) {
    assert_int_equal(fk.n_log, i + 1);
    const fk_launch *l = &fk.log[i];
    assert_int_equal(l->n, 1);
    assert_int_equal(fk_outstanding(), 1);
    const atoll_task *t = fk_task(&l->cmds[0]);
    if (t->client != want[i].client || t->req != want[i].req || l->cmds[0].op != want[i].op)
      fail_msg("launch %u: client %u req %llu op %u, expected client %u req %llu op %u", i, t->client,
               (unsigned long long)t->req, l->cmds[0].op, want[i].client, (unsigned long long)want[i].req,
               want[i].op);
    if (i == 2) {
      fk_arrive(RT0); /* while be0's op 1 runs: rt0's ops come next */
      fk_arrive(BE0);
    }
    if (i == 4)
      fk_arrive(RT1); /* pending while rt0 runs: served right after it, before any BE op */
    fk.now += 100;
    fk_complete(l->stream);
  }
  assert_int_equal(fk_outstanding(), 0);
  assert_int_equal(fk.n_log, N);
  assert_int_equal(fk.done[RT0][0] + fk.done[RT1][0] + fk.done[BE0][0] + fk.done[BE0][1] + fk.done[BE1][0], 5);
}

/* streams: every client's task runs on its own stream at once; a client's next task is launched
 * only when its previous one completes, whatever the other streams do. */
static void streams_run_clients_concurrently(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_STREAMS);
  fk_start_ok(NULL, NULL);
  for (uint32_t c = 0; c < FK_CLIENTS; c++)
    fk_arrive(c);
  assert_int_equal(fk.n_log, FK_CLIENTS);
  for (uint32_t c = 0; c < FK_CLIENTS; c++) {
    assert_int_equal(fk.log[c].stream, fk_stream_of(c));
    assert_int_equal(fk.log[c].n, fk_model_ops(c));
    assert_int_equal(fk.count[fk_stream_of(c)], fk_model_ops(c));
  }
  fk_arrive(RT0); /* rt0#1 waits for rt0#0 */
  fk_arrive(RT0); /* rt0#2 */
  assert_int_equal(fk.n_log, FK_CLIENTS);
  fk.now += 500;
  fk_complete_task(fk_stream_of(BE0), NULL, NULL);
  fk_complete_task(fk_stream_of(RT1), NULL, NULL);
  assert_int_equal(fk.n_log, FK_CLIENTS); /* other streams' completions launch nothing of rt0 */
  fk_complete(fk_stream_of(RT0));
  fk_complete(fk_stream_of(RT0));
  assert_int_equal(fk.n_log, FK_CLIENTS);
  fk_complete(fk_stream_of(RT0)); /* rt0#0 done: rt0#1 launched on the same stream */
  assert_int_equal(fk.n_log, FK_CLIENTS + 1);
  const fk_launch *l = &fk.log[FK_CLIENTS];
  assert_int_equal(l->stream, fk_stream_of(RT0));
  assert_int_equal(fk_task(&l->cmds[0])->req, 1);
  assert_int_equal(fk.done[RT0][0], 1);
  assert_int_equal(fk.done[RT0][1], 0);
  uint64_t r;
  fk_complete_task(fk_stream_of(RT0), NULL, &r);
  assert_int_equal(r, 1);
  fk_complete_task(fk_stream_of(RT0), NULL, &r);
  assert_int_equal(r, 2);
  fk_complete_task(fk_stream_of(BE1), NULL, NULL);
  assert_int_equal(fk_outstanding(), 0);
}

/* Runs one RT task as the blocker, queues `n` RT requests (client, arrival) behind it, then
 * completes everything and returns the order in which the queued ones ran (as indices into the
 * arrivals). The first arrival is the blocker. */
static void rt_order(atoll_policy_kind kind, atoll_rt_queue rq, const int64_t *deadlines, const uint32_t *client,
                     const int64_t *at, uint32_t n, uint32_t *order) {
  fk_scenario(kind);
  sc.policy.rt_queue = rq;
  fk_start_ok(NULL, deadlines);
  uint64_t req_of[16];
  for (uint32_t i = 0; i < n; i++) {
    fk.now = at[i];
    req_of[i] = fk_arrive(client[i]);
  }
  uint32_t rts = fk_stream_of(RT0);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t c;
    uint64_t r;
    fk.now += 100;
    fk_complete_task(rts, &c, &r);
    order[k] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
      if (client[i] == c && req_of[i] == r)
        order[k] = i;
    assert_cmp(order[k], !=, UINT32_MAX);
  }
  assert_int_equal(fk_outstanding(), 0);
}

/* EDF picks the earliest absolute deadline (arrival + the client's relative deadline) among pending
 * RT tasks, ties in arrival order, no deadline last; FIFO takes arrival order. Under rt-only, seq and
 * orion (all use the shared RT queue). */
static void rt_queue_edf_and_fifo_order(void **state) {
  (void)state;
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 10000000, [RT1] = 2000000};
  /* Arrival 0 blocks the RT queue; the rest wait. Absolute deadlines (ms):
   * 1: rt0@1 -> 11   2: rt1@2 -> 4   3: rt0@3 -> 13   4: rt1@9 -> 11 (tie with 1, later)   5: rt1@5 -> 7 */
  static const uint32_t client[] = {RT0, RT0, RT1, RT0, RT1, RT1};
  static const int64_t at[] = {0, 1000000, 2000000, 3000000, 9000000, 9000001};
  /* Arrival 5 is at 9 ms + 1 ns: deadline 11 ms + 1 ns, just after 1's and 4's. */
  static const uint32_t edf[] = {0, 2, 1, 4, 5, 3};
  static const uint32_t fifo[] = {0, 1, 2, 3, 4, 5};
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_RT_ONLY, ATOLL_POLICY_SEQ, ATOLL_POLICY_ORION};
  for (size_t k = 0; k < 3; k++) {
    uint32_t order[6];
    rt_order(kinds[k], ATOLL_RT_QUEUE_EDF, deadlines, client, at, 6, order);
    for (int i = 0; i < 6; i++)
      if (order[i] != edf[i])
        fail_msg("%s edf: position %d ran arrival %u, expected %u", atoll_policy_name(kinds[k]), i, order[i], edf[i]);
    rt_order(kinds[k], ATOLL_RT_QUEUE_FIFO, deadlines, client, at, 6, order);
    for (int i = 0; i < 6; i++)
      if (order[i] != fifo[i])
        fail_msg("%s fifo: position %d ran arrival %u, expected %u", atoll_policy_name(kinds[k]), i, order[i],
                 fifo[i]);
  }
  /* A client without a deadline goes after every client with one, in arrival order. */
  static const int64_t only_rt1[FK_CLIENTS] = {[RT1] = 50000000};
  static const uint32_t client2[] = {RT1, RT0, RT0, RT1};
  static const int64_t at2[] = {0, 1, 2, 3};
  static const uint32_t want2[] = {0, 3, 1, 2};
  uint32_t order[4];
  rt_order(ATOLL_POLICY_RT_ONLY, ATOLL_RT_QUEUE_EDF, only_rt1, client2, at2, 4, order);
  for (int i = 0; i < 4; i++)
    if (order[i] != want2[i])
      fail_msg("no-deadline: position %d ran arrival %u, expected %u", i, order[i], want2[i]);
}

/* With a small pending limit, arrivals beyond the queue's room are dropped: request_dropped fires
 * once with the right (client, req), the dropped request never starts or completes, accepted ones
 * all do. Drops come after every accepted request of a burst (no completion in between). */
static void queue_overflow_drops_and_reports(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_SEQ, ATOLL_POLICY_STREAMS, ATOLL_POLICY_ORION,
                                            ATOLL_POLICY_RT_ONLY};
  for (size_t k = 0; k < 4; k++) {
    fk_scenario(kinds[k]);
    atoll_core_limits lim = {.pending_per_client = 2};
    fk_start_ok(&lim, NULL);
    uint32_t c = kinds[k] == ATOLL_POLICY_RT_ONLY ? RT1 : BE1;
    enum { BURST = 40 };
    for (int i = 0; i < BURST; i++)
      fk_arrive(c);
    uint32_t accepted = 0, dropped = 0;
    for (int i = 0; i < BURST; i++) {
      assert_cmp(fk.dropped[c][i], <=, 1);
      if (fk.dropped[c][i]) {
        dropped++;
      } else {
        assert_int_equal(dropped, 0); /* no acceptance after a drop in a burst */
        accepted++;
      }
    }
    if (dropped == 0)
      fail_msg("%s: no drop in a burst of %d with pending_per_client 2", atoll_policy_name(kinds[k]), BURST);
    /* Drain: exactly the accepted requests complete, each once. */
    int32_t s;
    while ((s = fk_busy_stream()) >= 0) {
      fk.now += 10;
      fk_complete(s);
    }
    for (int i = 0; i < BURST; i++) {
      assert_int_equal(fk.done[c][i], fk.dropped[c][i] ? 0 : 1);
      assert_int_equal(fk.started[c][i], fk.dropped[c][i] ? 0 : 1);
    }
    /* Room again after the drain. */
    uint64_t r = fk_arrive(c);
    assert_int_equal(fk.dropped[c][r], 0);
    assert_int_equal(atoll_ring_count(&core.free_tasks), core.n_tasks - 1);
  }
}

/* With one client, pending_per_client is that client's exact limit: one running, two waiting, the
 * next dropped. */
static void pending_limit_exact_with_one_client(void **state) {
  (void)state;
  for (size_t k = 0; k < N_IMPLEMENTED; k++) {
    fk_scenario(implemented[k]);
    sc.n_clients = 1; /* rt0 alone */
    atoll_core_limits lim = {.pending_per_client = 2};
    fk_start_ok(&lim, NULL);
    for (int i = 0; i < 4; i++)
      fk_arrive(RT0);
    assert_int_equal(fk.dropped[RT0][0] + fk.dropped[RT0][1] + fk.dropped[RT0][2], 0);
    if (fk.dropped[RT0][3] != 1)
      fail_msg("%s: 4th request (1 running, 2 waiting) not dropped", atoll_policy_name(implemented[k]));
  }
}

/* --- randomized event sequences --- */

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n) { return atoll_test_rnd(&rnd_state, n); }

/* A few thousand random arrivals, command starts and completions; fk_check() after each. Then a
 * drain. Every request is, in the end, either dropped once (never started or done) or started once
 * and done once, started no later than done; the core's task pool is whole again. */
static void random_events(atoll_policy_kind kind, uint64_t seed, uint32_t pending_limit, atoll_rt_queue rq) {
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 30000, [RT1] = 5000};
  fk_scenario(kind);
  sc.policy.rt_queue = rq;
  atoll_core_limits lim = {.pending_per_client = pending_limit};
  fk_start_ok(pending_limit ? &lim : NULL, rq == ATOLL_RT_QUEUE_EDF ? deadlines : NULL);
  rnd_state = seed;
  uint32_t active[FK_CLIENTS], n_active = 0;
  for (uint32_t c = 0; c < FK_CLIENTS; c++)
    if (atoll_core_client_active(&core, c))
      active[n_active++] = c;
  uint32_t arrivals = 0, completions = 0, drops = 0;
  for (int step = 0; step < 4000; step++) {
    fk.now += rnd(2000);
    uint32_t what = rnd(100);
    if (what < 30) {
      uint32_t c = active[rnd(n_active)];
      uint64_t r = fk_arrive(c);
      arrivals++;
      drops += fk.dropped[c][r];
      continue;
    }
    int32_t busy[FK_MAX_STREAMS];
    uint32_t nb = 0;
    for (uint32_t s = 0; s < fk.n_streams; s++)
      if (fk.count[s])
        busy[nb++] = (int32_t)s;
    if (nb == 0)
      continue;
    uint32_t s = (uint32_t)busy[rnd(nb)];
    if (what < 45) {
      fk_start_head(s);
    } else {
      fk_complete(s);
      completions++;
    }
  }
  int32_t s;
  while ((s = fk_busy_stream()) >= 0) {
    fk.now += 10;
    fk_complete(s);
  }
  assert_cmp(arrivals, >, 500);
  assert_cmp(completions, >, 500);
  if (pending_limit)
    assert_cmp(drops, >, 0); /* the limit was exercised */
  uint32_t done = 0;
  for (uint32_t c = 0; c < FK_CLIENTS; c++) {
    for (uint64_t r = 0; r < fk.next_req[c]; r++) {
      if (fk.dropped[c][r]) {
        assert_int_equal(fk.dropped[c][r], 1);
        assert_int_equal(fk.started[c][r], 0);
        assert_int_equal(fk.done[c][r], 0);
      } else {
        if (fk.started[c][r] != 1 || fk.done[c][r] != 1)
          fail_msg("%s: client %u req %llu started %u times, done %u times", atoll_policy_name(kind), c,
                   (unsigned long long)r, fk.started[c][r], fk.done[c][r]);
        done++;
      }
    }
    if (!atoll_core_client_active(&core, c))
      assert_int_equal(fk.next_req[c], 0);
  }
  /* Each done event names a request that started earlier. */
  for (uint32_t i = 0; i < fk.n_ev && i < FK_MAX_LOG; i++)
    if (fk.ev[i].kind == 'd')
      assert_cmp(fk.started_at[fk.ev[i].client][fk.ev[i].req], <=, fk.ev[i].now);
  assert_int_equal(done + drops, arrivals);
  assert_int_equal(atoll_ring_count(&core.free_tasks), core.n_tasks);
  for (uint32_t q = 0; q < core.n_queues; q++) {
    assert_int_equal(core.queues[q].active, -1);
    assert_true(atoll_ring_is_empty(&core.queues[q].pending));
  }
}

static void random_events_rt_only(void **state) {
  (void)state;
  random_events(ATOLL_POLICY_RT_ONLY, 0x1234567ull, 0, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_RT_ONLY, 0x89abcdefull, 3, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_RT_ONLY, 0x5eedull, 5, ATOLL_RT_QUEUE_EDF);
}

static void random_events_seq(void **state) {
  (void)state;
  random_events(ATOLL_POLICY_SEQ, 0x1234567ull, 0, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_SEQ, 0x89abcdefull, 3, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_SEQ, 0x5eedull, 5, ATOLL_RT_QUEUE_EDF);
}

static void random_events_streams(void **state) {
  (void)state;
  random_events(ATOLL_POLICY_STREAMS, 0x1234567ull, 0, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_STREAMS, 0x89abcdefull, 3, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_STREAMS, 0x5eedull, 5, ATOLL_RT_QUEUE_EDF);
}

static void random_events_orion(void **state) {
  (void)state;
  random_events(ATOLL_POLICY_ORION, 0x1234567ull, 0, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_ORION, 0x89abcdefull, 3, ATOLL_RT_QUEUE_FIFO);
  random_events(ATOLL_POLICY_ORION, 0x5eedull, 5, ATOLL_RT_QUEUE_EDF);
}

static void pending_per_client_limits_each_client(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_SEQ, ATOLL_POLICY_STREAMS, ATOLL_POLICY_ORION};
  for (size_t k = 0; k < 3; k++) {
    fk_scenario(kinds[k]);
    atoll_core_limits lim = {.pending_per_client = 2};
    fk_start_ok(&lim, NULL);
    /* be0 takes the GPU (seq, orion) or its own stream (streams); be1 then sends a burst. Under seq
     * and orion none of be1's requests can start while be0's task holds the GPU... */
    fk_arrive(BE0);
    uint32_t running = kinds[k] == ATOLL_POLICY_STREAMS ? 1 : 0; /* streams runs be1's first at once */
    uint32_t first_drop = UINT32_MAX;
    for (uint32_t i = 0; i < 20; i++) {
      uint64_t r = fk_arrive(BE1);
      if (fk.dropped[BE1][r] && first_drop == UINT32_MAX)
        first_drop = i;
    }
    /* ...so be1 may have 2 waiting (plus, under streams, 1 running): the next one is dropped. */
    if (first_drop != 2 + running)
      fail_msg("%s: be1's first dropped request is #%u; with pending_per_client = 2 expected #%u",
               atoll_policy_name(kinds[k]), first_drop, 2 + running);
  }
}

/* The state is a value: a copy in other storage is valid, hashes equal, and is independent of the
 * original; hashing ignores where the state lives. */
static void core_state_copies_and_hashes_as_a_value(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  fk_arrive(BE0);
  fk_arrive(RT0);
  fk_arrive(BE1);
  size_t size = atoll_core_size(&sc, NULL);
  void *mem = malloc(size);
  assert_non_null(mem);
  atoll_core copy;
  assert_int_equal(atoll_core_copy(&copy, mem, size, &core), 0);
  assert_true(atoll_core_is_valid(&copy));
  uint64_t h = atoll_core_hash(&core);
  assert_int_equal(atoll_core_hash(&copy), h);
  assert_int_equal(atoll_core_copy(&copy, mem, size - 1, &core), ATOLL_EINVAL);
  fk_arrive(RT0); /* the original moves on; the copy stays as it was */
  assert_int_not_equal(atoll_core_hash(&core), h);
  assert_int_equal(atoll_core_hash(&copy), h);
  /* Copying the copy into fresh storage keeps the hash: addresses are not part of it. */
  void *mem2 = malloc(size);
  atoll_core copy2;
  assert_int_equal(atoll_core_copy(&copy2, mem2, size, &copy), 0);
  assert_int_equal(atoll_core_hash(&copy2), h);
  assert_int_equal(copy2.queues[copy2.client_queue[BE0]].active, copy.queues[copy.client_queue[BE0]].active);
  free(mem);
  free(mem2);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(core_state_copies_and_hashes_as_a_value, fk_teardown),
    cmocka_unit_test_teardown(pending_per_client_limits_each_client, fk_teardown),
    cmocka_unit_test_teardown(reef_layout_for_rt_only_seq_orion, fk_teardown),
    cmocka_unit_test_teardown(streams_layout_one_queue_per_client, fk_teardown),
    cmocka_unit_test_teardown(layout_with_one_rt_or_no_rt_client, fk_teardown),
    cmocka_unit_test_teardown(dq_capacity_option_reaches_every_stream, fk_teardown),
    cmocka_unit_test_teardown(streams_priority_option_raises_rt_streams, fk_teardown),
    cmocka_unit_test_teardown(preempting_policies_use_reef_layout_and_dq_depths, fk_teardown),
    cmocka_unit_test_teardown(init_rejects_short_storage_and_missing_device_ops, fk_teardown),
    cmocka_unit_test_teardown(rt_only_ignores_be_clients, fk_teardown),
    cmocka_unit_test_teardown(rt_only_runs_rt_tasks_in_order_one_at_a_time, fk_teardown),
    cmocka_unit_test_teardown(seq_one_task_at_a_time_rt_first_be_round_robin, fk_teardown),
    cmocka_unit_test_teardown(seq_hands_over_before_request_done, fk_teardown),
    cmocka_unit_test_teardown(orion_one_op_at_a_time_rt_first, fk_teardown),
    cmocka_unit_test_teardown(streams_run_clients_concurrently, fk_teardown),
    cmocka_unit_test_teardown(rt_queue_edf_and_fifo_order, fk_teardown),
    cmocka_unit_test_teardown(queue_overflow_drops_and_reports, fk_teardown),
    cmocka_unit_test_teardown(pending_limit_exact_with_one_client, fk_teardown),
    cmocka_unit_test_teardown(random_events_rt_only, fk_teardown),
    cmocka_unit_test_teardown(random_events_seq, fk_teardown),
    cmocka_unit_test_teardown(random_events_streams, fk_teardown),
    cmocka_unit_test_teardown(random_events_orion, fk_teardown),
};
ATOLL_TEST_MAIN(tests)
