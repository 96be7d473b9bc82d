/* The reef policy's use of padding (core/policy_reef.c, core/preempt.c), driven through a fake device that only
 * records launches and padded launches: a BE task's next op may be padded into the next RT launch
 * as soon as every block of the op before it has been handed out (padded launches run in order on
 * the RT stream), blocks are reported done in that order, and normal mode resumes the BE task where
 * padding left it. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "core/sched.h"

enum { MAX_LOG = 64, MAX_PARTS = 8, N_OPS = 8 };

typedef struct rec {
  uint32_t stream, n_cmds, n_parts;
  atoll_cmd cmd;            /* the first command (the RT kernel of a padded launch) */
  atoll_pad_part parts[MAX_PARTS];
} rec;

static struct {
  uint32_t n_streams, n_log;
  rec log[MAX_LOG];
  uint32_t fail_padded; /* padded launches still to refuse */
  uint32_t failed[2];   /* requests reported failed, per client */
} fk;

static int64_t f_now(void *ctx) {
  (void)ctx;
  return 0;
}
static int f_create(void *ctx, const atoll_stream_cfg *cfg, uint32_t *stream) {
  (void)ctx, (void)cfg;
  *stream = fk.n_streams++;
  return 0;
}
static int f_launch(void *ctx, uint32_t stream, const atoll_cmd *cmds, uint32_t n) {
  (void)ctx;
  assert_cmp(fk.n_log, <, MAX_LOG);
  fk.log[fk.n_log++] = (rec){.stream = stream, .n_cmds = n, .cmd = cmds[0]};
  return 0;
}
static int f_timer(void *ctx, int64_t at, uint64_t cookie) {
  (void)ctx, (void)at, (void)cookie;
  return 0;
}
static int f_padded(void *ctx, uint32_t stream, const atoll_cmd *rt, uint32_t rt_cus, const atoll_pad_part *parts,
                    uint32_t n) {
  (void)ctx, (void)rt_cus;
  if (fk.fail_padded > 0) {
    fk.fail_padded--;
    return ATOLL_EIO;
  }
  assert_cmp(fk.n_log, <, MAX_LOG);
  assert_cmp(n, <=, MAX_PARTS);
  rec *r = &fk.log[fk.n_log++];
  *r = (rec){.stream = stream, .n_cmds = 1, .cmd = *rt, .n_parts = n};
  memcpy(r->parts, parts, n * sizeof *parts);
  return 0;
}
static const atoll_device_ops ops = {
    .now = f_now, .create_stream = f_create, .launch = f_launch, .set_timer = f_timer, .launch_padded = f_padded};

/* RT: eight 8-block kernels of 200 us run time. BE: eight 8-block kernels whose padded round (one
 * at any occupancy) is 50 us: each BE op fits whole into one RT kernel's launch. */
static atoll_op rt_ops[N_OPS], be_ops[N_OPS];
static int64_t be_lat[4] = {60000, 60000, 60000, 60000};
static atoll_scenario_model models[2];
static atoll_client clients[2];
static atoll_scenario sc;
static atoll_core core;
static void *mem;

static atoll_op kernel(int64_t time_ns, int64_t *lat) {
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "k"};
  op.shape = (atoll_kernel_shape){.grid = {8, 1, 1}, .block = {256, 1, 1}, .occupancy = 4, .time_ns = time_ns,
                                   .block_time_ns = time_ns - 10000, .time_per_occupancy_ns = lat,
                                   .n_time_per_occupancy = lat ? 4 : 0};
  return op;
}

static void setup(void) {
  for (int i = 0; i < N_OPS; i++)
    rt_ops[i] = kernel(210000, NULL), be_ops[i] = kernel(60000, be_lat);
  models[0] = (atoll_scenario_model){"rt", "rt.yaml", {.name = "rt", .gpu = "g", .ops = rt_ops, .n_ops = N_OPS}};
  models[1] = (atoll_scenario_model){"be", "be.yaml", {.name = "be", .gpu = "g", .ops = be_ops, .n_ops = N_OPS}};
  clients[0] = (atoll_client){"rt", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 10}, 0};
  clients[1] = (atoll_client){"be", 1, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0};
  sc = (atoll_scenario){.path = "fake.yaml",
                        .gpu = {.name = "g", .cus = 60, .max_blocks_per_cu = 40, .registers_per_cu = 65536},
                        .models = models,
                        .n_models = 2,
                        .clients = clients,
                        .n_clients = 2,
                        .policy = {.kind = ATOLL_POLICY_REEF, .dkp = true, .async_reclaim = true, .reset_cu = true},
                        .duration_ns = 1000000000,
                        .seed = 1};
  sc.gpu.costs.launch_sync_ns = 10000;
  memset(&fk, 0, sizeof fk);
  size_t size = atoll_core_size(&sc, NULL);
  mem = malloc(size);
  assert_non_null(mem);
  assert_int_equal(atoll_core_init(&core, mem, size, &sc, (atoll_device){.ops = &ops}, NULL, NULL, NULL, NULL), 0);
}

/* Completes launch i: its parts' blocks first (as the device reports them), then the RT kernel. */
static void complete(uint32_t i) {
  const rec *r = &fk.log[i];
  for (uint32_t p = 0; p < r->n_parts; p++)
    atoll_core_on_blocks_done(&core, r->stream, r->parts[p].cmd.tag, r->parts[p].cmd.block_n, 0);
  atoll_core_on_cmd_done(&core, r->stream, r->cmd.tag, 0);
  assert_true(atoll_core_is_valid(&core));
}

static void consecutive_be_ops_pad_consecutive_rt_launches(void **state) {
  (void)state;
  setup();
  atoll_core_on_arrival(&core, 0, 0, 0); /* real-time mode: RT ops 0-3 launched, nothing to pad yet */
  atoll_core_on_arrival(&core, 1, 0, 0); /* waits for normal mode, or for padding */
  assert_int_equal(fk.n_log, 4);
  for (uint32_t i = 0; i < 4; i++)
    assert_int_equal(fk.log[i].n_parts, 0);
  /* Each completion launches the next RT op, padded with the BE task's next op: op k + 1 while op
   * k's blocks are still in an earlier launch. */
  for (uint32_t i = 0; i < 4; i++) {
    complete(i);
    assert_int_equal(fk.n_log, 5 + i);
    const rec *r = &fk.log[4 + i];
    assert_int_equal(r->cmd.op, 4 + i);
    if (r->n_parts != 1)
      fail_msg("RT op %u padded with %u parts, want 1", 4 + i, r->n_parts);
    assert_int_equal(r->parts[0].cmd.model, 1);
    assert_int_equal(r->parts[0].cmd.op, i);
    assert_int_equal(r->parts[0].cmd.block_lo, 0);
    assert_int_equal(r->parts[0].cmd.block_n, 8);
    assert_int_equal(r->parts[0].occupancy, 4);
  }
  /* The padded launches complete in order; the BE task's ops complete with them. */
  const atoll_task *be = NULL;
  for (uint32_t t = 0; t < core.n_tasks; t++)
    if (core.tasks[t].in_use && core.tasks[t].client == 1)
      be = &core.tasks[t];
  assert_non_null(be);
  for (uint32_t i = 4; i < 8; i++) {
    complete(i);
    assert_int_equal(be->n_done, i - 3);
  }
  /* The RT task is done: normal mode relaunches the BE task from op 4, whole. */
  const rec *last = &fk.log[fk.n_log - 1];
  assert_int_equal(last->cmd.model, 1);
  assert_int_equal(last->cmd.op, 4);
  assert_int_equal(last->cmd.block_n, 0);
  assert_int_equal(last->n_cmds, 4);
  free(mem);
}

static void on_failed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)req, (void)now;
  fk.failed[client]++;
}

/* A padded launch the device refuses fails the RT request; the BE task keeps the blocks it
 * offered (its padding state as before the launch), and normal mode relaunches it whole. */
static void refused_padded_launch_fails_rt_and_keeps_be(void **state) {
  (void)state;
  setup();
  static const atoll_core_observer obs = {.request_failed = on_failed};
  core.obs = &obs;
  atoll_core_on_arrival(&core, 0, 0, 0);
  atoll_core_on_arrival(&core, 1, 0, 0);
  assert_int_equal(fk.n_log, 4);
  fk.fail_padded = 1;
  complete(0); /* RT op 4's padded launch is refused */
  assert_int_equal(fk.failed[0], 1);
  assert_int_equal(fk.failed[1], 0);
  const atoll_task *be = NULL;
  for (uint32_t t = 0; t < core.n_tasks; t++) {
    if (core.tasks[t].in_use)
      assert_int_equal(core.tasks[t].client, 1); /* the RT task is gone */
    if (core.tasks[t].in_use && core.tasks[t].client == 1)
      be = &core.tasks[t];
  }
  assert_non_null(be);
  assert_int_equal(be->pad_reserved, 0);
  assert_int_equal(be->n_done, 0);
  const rec *last = &fk.log[fk.n_log - 1];
  assert_int_equal(last->cmd.model, 1); /* normal mode: the BE task from op 0, whole */
  assert_int_equal(last->cmd.op, 0);
  assert_int_equal(last->n_cmds, N_OPS);
  assert_int_equal(core.mode, ATOLL_MODE_NORMAL);
  assert_true(atoll_core_is_valid(&core));
  free(mem);
}

/* Without multi_version, padding never picks another version of a BE kernel. */
static void multi_version_off_keeps_the_default_shape(void **state) {
  (void)state;
  setup();
  static atoll_kernel_shape alt;
  alt = be_ops[0].shape;
  alt.time_ns = 30000; /* shorter: multi-version selection would take it */
  for (int i = 0; i < N_OPS; i++)
    be_ops[i].versions = &alt, be_ops[i].n_versions = 1;
  for (int mv = 0; mv < 2; mv++) {
    free(mem);
    sc.policy.multi_version = mv;
    memset(&fk, 0, sizeof fk);
    size_t size = atoll_core_size(&sc, NULL);
    mem = malloc(size);
    assert_int_equal(atoll_core_init(&core, mem, size, &sc, (atoll_device){.ops = &ops}, NULL, NULL, NULL, NULL), 0);
    atoll_core_on_arrival(&core, 0, 0, 0);
    atoll_core_on_arrival(&core, 1, 0, 0);
    complete(0);
    assert_int_equal(fk.log[4].n_parts, 1);
    assert_int_equal(fk.log[4].parts[0].cmd.version, mv ? 1 : 0);
  }
  for (int i = 0; i < N_OPS; i++)
    be_ops[i].versions = NULL, be_ops[i].n_versions = 0;
  free(mem);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(consecutive_be_ops_pad_consecutive_rt_launches),
    cmocka_unit_test(multi_version_off_keeps_the_default_shape),
    cmocka_unit_test(refused_padded_launch_fails_rt_and_keeps_be),
};
ATOLL_TEST_MAIN(tests)
