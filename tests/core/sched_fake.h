/* A fake device and a hand-built scenario for driving the scheduler core (core/sched.c) without a
 * simulation: the device only records what the core asks of it (streams created, commands
 * launched, per stream in order), and the test decides when each command starts and completes by
 * calling the core's event functions with the recorded tags.
 *
 * The scenario has two models (m3: three kernels, m2: two kernels) and four clients, RT and BE
 * interleaved so that the queue layout cannot follow the client order by accident:
 *   0 rt0 (RT, m3)   1 be0 (BE, m3)   2 rt1 (RT, m2)   3 be1 (BE, m2)
 * Header-only (static functions) so that each test binary that includes it is self-contained. */
#ifndef ATOLL_TEST_SCHED_FAKE_H
#define ATOLL_TEST_SCHED_FAKE_H

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "core/sched.h"

enum { FK_MAX_STREAMS = 16, FK_MAX_Q = 256, FK_MAX_LOG = 4096, FK_MAX_REQ = 8192, FK_CLIENTS = 4 };
enum { RT0 = 0, BE0 = 1, RT1 = 2, BE1 = 3 };

typedef struct fk_launch {
  uint32_t stream, n;
  atoll_cmd cmds[8];
} fk_launch;

typedef struct fk_event {
  int kind; /* 's' started, 'd' done, 'x' dropped, 'h' shed, 'f' failed */
  uint32_t client;
  uint64_t req;
  int64_t now;
  uint32_t launches; /* launch calls made so far, when the event fired */
} fk_event;

typedef struct fake {
  int64_t now;
  uint32_t n_streams;
  atoll_stream_cfg cfg[FK_MAX_STREAMS];
  char names[FK_MAX_STREAMS][48];
  /* Outstanding commands per stream, oldest first; head_started: the head was reported started. */
  atoll_cmd q[FK_MAX_STREAMS][FK_MAX_Q];
  uint32_t head[FK_MAX_STREAMS], count[FK_MAX_STREAMS];
  uint8_t head_started[FK_MAX_STREAMS];
  fk_launch log[FK_MAX_LOG];
  uint32_t n_log;     /* launch calls; log[i % FK_MAX_LOG] is call i (tests read the first ones) */
  uint32_t n_cmds;    /* commands launched */
  uint32_t n_timers;
  int64_t timer_at;      /* the last timer asked for */
  uint64_t timer_cookie;
  uint32_t fail_launches; /* the next launch calls to refuse */
  /* Observer records. */
  fk_event ev[FK_MAX_LOG];
  uint32_t n_ev;
  uint8_t started[FK_CLIENTS][FK_MAX_REQ], done[FK_CLIENTS][FK_MAX_REQ], dropped[FK_CLIENTS][FK_MAX_REQ];
  uint8_t shed[FK_CLIENTS][FK_MAX_REQ], failed[FK_CLIENTS][FK_MAX_REQ];
  int64_t started_at[FK_CLIENTS][FK_MAX_REQ];
  uint32_t batch[FK_CLIENTS][FK_MAX_REQ]; /* request_batch: the batch it completed in (0: alone) */
  uint64_t next_req[FK_CLIENTS];
  /* Per task slot: the next op index the core must launch for it (launches are in op order). */
  uint32_t next_op[1 << 16];
} fake;

static fake fk;
static uint32_t fk_checked_launches; /* launch calls already checked by fk_check_launches */

/* --- the device --- */

static inline int64_t fk_now(void *ctx) {
  (void)ctx;
  return fk.now;
}

static inline int fk_create_stream(void *ctx, const atoll_stream_cfg *cfg, uint32_t *stream) {
  (void)ctx;
  assert_true(fk.n_streams < FK_MAX_STREAMS);
  uint32_t s = fk.n_streams++;
  fk.cfg[s] = *cfg;
  snprintf(fk.names[s], sizeof fk.names[s], "%s", cfg->name ? cfg->name : "");
  fk.cfg[s].name = fk.names[s];
  *stream = s;
  return 0;
}

static inline int fk_launch_cmds(void *ctx, uint32_t stream, const atoll_cmd *cmds, uint32_t n) {
  (void)ctx;
  assert_true(stream < fk.n_streams);
  assert_true(n > 0);
  if (fk.fail_launches > 0) {
    fk.fail_launches--;
    return ATOLL_EIO;
  }
  fk_launch *l = &fk.log[fk.n_log % FK_MAX_LOG];
  l->stream = stream, l->n = n;
  for (uint32_t i = 0; i < n && i < 8; i++)
    l->cmds[i] = cmds[i];
  fk.n_log++;
  for (uint32_t i = 0; i < n; i++) {
    assert_true(fk.count[stream] < FK_MAX_Q);
    fk.q[stream][(fk.head[stream] + fk.count[stream]) % FK_MAX_Q] = cmds[i];
    fk.count[stream]++;
    fk.n_cmds++;
  }
  return 0;
}

static inline int fk_set_timer(void *ctx, int64_t at, uint64_t cookie) {
  (void)ctx;
  fk.n_timers++;
  fk.timer_at = at;
  fk.timer_cookie = cookie;
  return 0;
}

static const atoll_device_ops fk_ops = {
    .now = fk_now, .create_stream = fk_create_stream, .launch = fk_launch_cmds, .set_timer = fk_set_timer};

/* --- the observer --- */

static inline void fk_record(int kind, uint32_t client, uint64_t req, int64_t now) {
  assert_true(client < FK_CLIENTS);
  assert_true(req < FK_MAX_REQ);
  if (fk.n_ev < FK_MAX_LOG)
    fk.ev[fk.n_ev] = (fk_event){kind, client, req, now, fk.n_log};
  fk.n_ev++;
  if (kind == 's') {
    fk.started[client][req]++;
    fk.started_at[client][req] = now;
  } else if (kind == 'd') {
    fk.done[client][req]++;
  } else if (kind == 'h') {
    fk.shed[client][req]++;
  } else if (kind == 'f') {
    fk.failed[client][req]++;
  } else {
    fk.dropped[client][req]++;
  }
}

static inline void fk_obs_started(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx;
  fk_record('s', client, req, now);
}
static inline void fk_obs_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx;
  fk_record('d', client, req, now);
}
static inline void fk_obs_dropped(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx;
  fk_record('x', client, req, now);
}

static inline void fk_obs_shed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx;
  fk_record('h', client, req, now);
}
static inline void fk_obs_failed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx;
  fk_record('f', client, req, now);
}

static inline void fk_obs_batch(void *ctx, uint32_t client, uint64_t req, uint32_t batch, int64_t now) {
  (void)ctx, (void)now;
  assert_true(client < FK_CLIENTS && req < FK_MAX_REQ);
  assert_false(fk.done[client][req]); /* told before request_done */
  fk.batch[client][req] = batch;
}

static const atoll_core_observer fk_observer = {.request_batch = fk_obs_batch,
                                                .request_started = fk_obs_started,
                                                .request_done = fk_obs_done,
                                                .request_dropped = fk_obs_dropped,
                                                .request_shed = fk_obs_shed,
                                                .request_failed = fk_obs_failed};

/* --- the scenario --- */

static atoll_op fk_ops3[3], fk_ops2[2];
static atoll_scenario_model fk_models[2];
static atoll_client fk_clients[FK_CLIENTS];
static atoll_scenario sc;

static inline atoll_op fk_kernel(const char *name) {
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = name};
  op.shape = (atoll_kernel_shape){.grid = {64, 1, 1}, .block = {256, 1, 1}, .occupancy = 4, .time_ns = 50000,
                                   .block_time_ns = 25000};
  return op;
}

/* The four-client scenario under `kind`, every other policy option at its default. */
static inline void fk_scenario(atoll_policy_kind kind) {
  fk_ops3[0] = fk_kernel("k0"), fk_ops3[1] = fk_kernel("k1"), fk_ops3[2] = fk_kernel("k2");
  fk_ops2[0] = fk_kernel("j0"), fk_ops2[1] = fk_kernel("j1");
  fk_models[0] = (atoll_scenario_model){"m3", "m3.yaml", {.name = "m3", .gpu = "mi50", .ops = fk_ops3, .n_ops = 3}};
  fk_models[1] = (atoll_scenario_model){"m2", "m2.yaml", {.name = "m2", .gpu = "mi50", .ops = fk_ops2, .n_ops = 2}};
  fk_clients[RT0] = (atoll_client){"rt0", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 100}, 0};
  fk_clients[BE0] = (atoll_client){"be0", 0, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0};
  fk_clients[RT1] = (atoll_client){"rt1", 1, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_POISSON, .rate_hz = 50}, 0};
  fk_clients[BE1] = (atoll_client){"be1", 1, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0};
  sc = (atoll_scenario){.path = "fake.yaml",
                        .gpu = {.name = "mi50", .cus = 60},
                        .models = fk_models,
                        .n_models = 2,
                        .clients = fk_clients,
                        .n_clients = FK_CLIENTS,
                        .policy = {.kind = kind},
                        .duration_ns = 1000000000,
                        .seed = 1};
}

/* --- the core under test --- */

static atoll_core core;
static void *core_mem;

static inline void fk_reset(void) {
  free(core_mem);
  core_mem = NULL;
  memset(&fk, 0, sizeof fk);
  memset(&core, 0, sizeof core);
  fk_checked_launches = 0;
}

/* Initializes the core on the fake device; returns init's code. */
static inline int fk_start(const atoll_core_limits *lim, const int64_t *deadlines) {
  fk_reset();
  size_t size = atoll_core_size(&sc, lim);
  if (size == 0)
    return ATOLL_ENOTSUP;
  core_mem = malloc(size);
  assert_non_null(core_mem);
  atoll_device dev = {.ops = &fk_ops, .ctx = NULL};
  int rc = atoll_core_init(&core, core_mem, size, &sc, dev, &fk_observer, NULL, lim, deadlines);
  if (rc == 0)
    assert_true(atoll_core_is_valid(&core));
  return rc;
}

static inline void fk_start_ok(const atoll_core_limits *lim, const int64_t *deadlines) {
  int rc = fk_start(lim, deadlines);
  if (rc)
    fail_msg("atoll_core_init: %d (%s)", rc, atoll_strerror(rc));
}

static inline int fk_teardown(void **state) {
  (void)state;
  fk_reset();
  return 0;
}

static inline uint32_t fk_model_ops(uint32_t client) { return sc.models[sc.clients[client].model].model.n_ops; }

/* The stream of a client's queue. */
static inline uint32_t fk_stream_of(uint32_t client) { return core.queues[core.client_queue[client]].stream; }

/* The (client, req) a command belongs to: its task is in use while any of its commands is out. */
static inline const atoll_task *fk_task(const atoll_cmd *cmd) {
  uint32_t t = atoll_tag_task(cmd->tag);
  assert_true(t < core.n_tasks);
  assert_true(core.tasks[t].in_use);
  return &core.tasks[t];
}

static inline uint32_t fk_outstanding(void) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < fk.n_streams; s++)
    n += fk.count[s];
  return n;
}

static inline const atoll_cmd *fk_cmd_at(uint32_t stream, uint32_t i) {
  return &fk.q[stream][(fk.head[stream] + i) % FK_MAX_Q];
}

static inline uint32_t fk_pending_total(void) {
  uint32_t n = 0;
  for (uint32_t q = 0; q < core.n_queues; q++)
    n += atoll_ring_count(&core.queues[q].pending);
  return n;
}

/* Checks that hold after every event, whatever the policy: the core is valid; every outstanding
 * command names its task's model and class and sits on its task's queue's stream; launches come in
 * op order; nothing waits while its stream (or, for seq and orion, the whole GPU) is idle; and each
 * policy's own rule on what may run at once. */
static inline void fk_check(void) {
  if (!atoll_core_is_valid(&core))
    fail_msg("atoll_core_is_valid failed at t=%lld", (long long)fk.now);
  int32_t one_task = -1;
  for (uint32_t s = 0; s < fk.n_streams; s++) {
    int32_t stream_task = -1;
    for (uint32_t i = 0; i < fk.count[s]; i++) {
      const atoll_cmd *cmd = fk_cmd_at(s, i);
      const atoll_task *t = fk_task(cmd);
      assert_int_equal(cmd->model, sc.clients[t->client].model);
      assert_int_equal(cmd->rt, sc.clients[t->client].cls == ATOLL_CLASS_RT);
      assert_int_equal(fk_stream_of(t->client), s);
      assert_true(cmd->op < fk_model_ops(t->client));
      int32_t id = (int32_t)atoll_tag_task(cmd->tag);
      /* A stream runs one task at a time in every policy implemented so far. */
      if (stream_task >= 0 && stream_task != id)
        fail_msg("stream %u holds commands of tasks %d and %d", s, stream_task, id);
      stream_task = id;
      if (sc.policy.kind == ATOLL_POLICY_SEQ || sc.policy.kind == ATOLL_POLICY_ORION) {
        if (one_task >= 0 && one_task != id)
          fail_msg("%s has two tasks on the GPU (%d and %d)", atoll_policy_name(sc.policy.kind), one_task, id);
        one_task = id;
      }
      if (sc.policy.kind == ATOLL_POLICY_RT_ONLY)
        assert_int_equal(sc.clients[t->client].cls, ATOLL_CLASS_RT);
    }
    /* Work conservation per stream for the per-queue policies. */
    if (fk.count[s] == 0 && (sc.policy.kind == ATOLL_POLICY_RT_ONLY || sc.policy.kind == ATOLL_POLICY_STREAMS)) {
      for (uint32_t q = 0; q < core.n_queues; q++) {
        if (core.queues[q].stream != s)
          continue;
        if (core.queues[q].active >= 0 || !atoll_ring_is_empty(&core.queues[q].pending))
          fail_msg("stream %u idle while its queue %u has work (active %d, pending %u)", s, q,
                   core.queues[q].active, atoll_ring_count(&core.queues[q].pending));
      }
    }
  }
  if (sc.policy.kind == ATOLL_POLICY_ORION && fk_outstanding() > 1)
    fail_msg("orion has %u commands on the GPU", fk_outstanding());
  if ((sc.policy.kind == ATOLL_POLICY_SEQ || sc.policy.kind == ATOLL_POLICY_ORION) && fk_outstanding() == 0) {
    if (fk_pending_total() != 0)
      fail_msg("%s: GPU idle with %u tasks pending", atoll_policy_name(sc.policy.kind), fk_pending_total());
    for (uint32_t q = 0; q < core.n_queues; q++)
      assert_int_equal(core.queues[q].active, -1);
  }
}

/* Checks the launch calls made since the last check: each task slot's ops are launched in op
 * order, each once, and one call's commands are consecutive ops of one task. */
static inline void fk_check_launches(void) {
  assert_true(fk.n_log - fk_checked_launches <= FK_MAX_LOG);
  for (uint32_t i = fk_checked_launches; i < fk.n_log; i++) {
    const fk_launch *l = &fk.log[i % FK_MAX_LOG];
    for (uint32_t k = 0; k < l->n && k < 8; k++) {
      uint32_t t = atoll_tag_task(l->cmds[k].tag), op = atoll_tag_op(l->cmds[k].tag);
      assert_int_equal(op, l->cmds[k].op);
      assert_true(t < (1u << 16));
      if (op != fk.next_op[t])
        fail_msg("task slot %u: op %u launched, expected op %u", t, op, fk.next_op[t]);
      fk.next_op[t] = op + 1;
      if (op == 0) {
        /* A task just taken from its queue: the queue's choice. EDF on the RT queue takes the
         * earliest deadline; every other queue takes the oldest. */
        const atoll_task *task = &core.tasks[t];
        const atoll_queue *qu = &core.queues[task->queue];
        bool edf = qu->rt && sc.policy.rt_queue == ATOLL_RT_QUEUE_EDF;
        for (uint32_t p = 0; p < atoll_ring_count(&qu->pending); p++) {
          uint64_t id;
          assert_int_equal(atoll_ring_peek(&qu->pending, p, &id), 0);
          const atoll_task *other = &core.tasks[id];
          if (edf ? other->deadline_ns < task->deadline_ns : other->arrival_ns < task->arrival_ns)
            fail_msg("queue %u took task %u (arrival %lld, deadline %lld) before task %llu (arrival %lld, "
                     "deadline %lld)",
                     task->queue, t, (long long)task->arrival_ns, (long long)task->deadline_ns,
                     (unsigned long long)id, (long long)other->arrival_ns, (long long)other->deadline_ns);
        }
      }
      if (k > 0)
        assert_int_equal(atoll_tag_task(l->cmds[k - 1].tag), t);
    }
  }
  fk_checked_launches = fk.n_log;
}

static inline void fk_after_event(void) {
  fk_check_launches();
  fk_check();
}

/* A request from client c; returns its id. */
static inline uint64_t fk_arrive(uint32_t c) {
  uint64_t req = fk.next_req[c]++;
  atoll_core_on_arrival(&core, c, req, fk.now);
  fk_after_event();
  return req;
}

/* Reports the head command of stream s started (once). */
static inline void fk_start_head(uint32_t s) {
  assert_true(fk.count[s] > 0);
  if (fk.head_started[s])
    return;
  fk.head_started[s] = 1;
  atoll_core_on_cmd_started(&core, s, fk_cmd_at(s, 0)->tag, fk.now);
  fk_after_event();
}

/* Completes the head command of stream s (starting it first if it has not started). */
static inline atoll_cmd fk_complete(uint32_t s) {
  assert_true(fk.count[s] > 0);
  fk_start_head(s);
  atoll_cmd cmd = *fk_cmd_at(s, 0);
  const atoll_task *t = fk_task(&cmd);
  uint32_t slot = atoll_tag_task(cmd.tag);
  bool last = atoll_tag_op(cmd.tag) == fk_model_ops(t->client) - 1;
  fk.head[s] = (fk.head[s] + 1) % FK_MAX_Q;
  fk.count[s]--;
  fk.head_started[s] = 0;
  atoll_core_on_cmd_done(&core, s, cmd.tag, fk.now);
  if (last)
    fk.next_op[slot] = 0; /* the slot may now hold a new task */
  fk_after_event();
  return cmd;
}

/* Completes every command of the task at the head of stream s; returns its (client, req). */
static inline void fk_complete_task(uint32_t s, uint32_t *client, uint64_t *req) {
  assert_true(fk.count[s] > 0);
  const atoll_task *t = fk_task(fk_cmd_at(s, 0));
  uint32_t c = t->client;
  uint64_t r = t->req;
  uint32_t n = fk_model_ops(c);
  for (;;) {
    atoll_cmd cmd = fk_complete(s);
    if (atoll_tag_op(cmd.tag) == n - 1)
      break;
    assert_true(fk.count[s] > 0); /* the rest of the task is already launched on this stream */
  }
  if (client)
    *client = c;
  if (req)
    *req = r;
}

/* The stream holding any outstanding command, or -1. */
static inline int32_t fk_busy_stream(void) {
  for (uint32_t s = 0; s < fk.n_streams; s++)
    if (fk.count[s])
      return (int32_t)s;
  return -1;
}

#endif
