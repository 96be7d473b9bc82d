/* The gslice policy (core/policy_gslice.c) driven through the fake device (sched_fake.h), with a
 * re-binding op and the share observer added: an IF that falls behind grows at the manager's
 * round; its shadow loads for the preset's time while the old share serves; once loaded, the switch
 * waits for its running batch, re-binds its stream and idles it for the switch's time; and a
 * shadow the GPU's memory cannot hold is refused. */
#include "core/policy.h"
#include "tests/core/sched_fake.h"

enum { LOAD_NS = 300000000, SWITCH_NS = 80000, TUNE_MS = 100 };

static struct {
  uint32_t n_rebinds, rebind_stream;
  atoll_cuset rebind_set;
  uint32_t n_steps, step[16], step_client[16], step_pct[16];
  int64_t step_start[16], step_end[16];
  uint32_t n_shares;
} gs;

static int gs_set_cus(void *ctx, uint32_t stream, const atoll_cuset *cus) {
  (void)ctx;
  gs.n_rebinds++;
  gs.rebind_stream = stream;
  gs.rebind_set = *cus;
  return 0;
}

static void gs_share(void *ctx, uint32_t client, uint32_t pct, uint32_t batch, int64_t now) {
  (void)ctx, (void)client, (void)pct, (void)batch, (void)now;
  gs.n_shares++;
}

static void gs_step(void *ctx, uint32_t client, uint32_t step, uint32_t pct, int64_t start, int64_t end) {
  (void)ctx;
  assert_true(gs.n_steps < 16);
  uint32_t i = gs.n_steps++;
  gs.step[i] = step, gs.step_client[i] = client, gs.step_pct[i] = pct, gs.step_start[i] = start, gs.step_end[i] = end;
}

static const atoll_device_ops gs_ops = {.now = fk_now, .create_stream = fk_create_stream, .launch = fk_launch_cmds,
                                        .set_timer = fk_set_timer, .set_stream_cus = gs_set_cus};
static const atoll_core_observer gs_obs = {.request_batch = fk_obs_batch, .request_started = fk_obs_started,
                                           .request_done = fk_obs_done, .request_dropped = fk_obs_dropped,
                                           .request_shed = fk_obs_shed, .request_failed = fk_obs_failed,
                                           .share_changed = gs_share, .partition_step = gs_step};

/* be0 (model m3) at 30 % with a 1 ms SLO, the only client of GPU 0 (the others are another GPU's,
 * so the manager weighs be0 alone). */
static uint32_t be0_floor; /* be0's SLO floor (the knee sweep's, set by the simulator) */

static void start(double memory_mb) {
  fk_scenario(ATOLL_POLICY_GSLICE);
  fk_clients[BE0].share_floor_pct = be0_floor;
  sc.gpu_count = 2;
  fk_clients[RT0].gpu = fk_clients[RT1].gpu = fk_clients[BE1].gpu = 1;
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_GSLICE);
  sc.policy.param[0] = TUNE_MS; /* tune_ms */
  sc.policy.param[5] = 0;       /* batching off: one request per run */
  sc.gpu.partition_load_ns = LOAD_NS;
  sc.gpu.partition_switch_ns = SWITCH_NS;
  sc.gpu.memory_mb = memory_mb;
  fk_models[0].model.footprint_known = true;
  fk_models[0].model.weights_mb = 100, fk_models[0].model.activations_mb_per_batch = 1;
  fk_reset();
  memset(&gs, 0, sizeof gs);
  int64_t deadlines[FK_CLIENTS] = {0, 1000000, 0, 0};
  size_t size = atoll_core_size(&sc, NULL);
  core_mem = malloc(size);
  assert_non_null(core_mem);
  assert_int_equal(atoll_core_init(&core, core_mem, size, &sc, (atoll_device){.ops = &gs_ops}, &gs_obs, NULL, NULL,
                                   deadlines),
                   0);
  assert_true(atoll_core_is_valid(&core));
}

static uint64_t cookie(uint32_t kind, uint32_t q) { return ((uint64_t)kind << 32) | q; }

/* be0 gets 20 requests in the first window and completes one of them: 3 ms late, 1 of 20 served. */
static void fall_behind(void) {
  for (int i = 0; i < 20; i++)
    fk_arrive(BE0);
  fk.now = 4000000;
  fk_complete_task(fk_stream_of(BE0), NULL, NULL);
}

static void grows_through_a_shadow_and_a_switch(void **state) {
  (void)state;
  start(0);
  uint32_t q = core.client_queue[BE0], s = fk_stream_of(BE0);
  fall_behind();
  assert_int_equal(fk.count[s], fk_model_ops(BE0)); /* the next request runs on the old share */
  fk.now = TUNE_MS * 1000000LL;
  atoll_core_on_timer(&core, cookie(1, 0), fk.now); /* the manager's round */
  fk_after_event();
  /* Algorithm 1: latency 3x the SLO and throughput 1/20 of the arrivals: changeFactor capped at 1,
   * 30 % doubles to 60 %; the shadow loads until now + 300 ms. */
  assert_int_equal(gs.n_steps, 1);
  assert_int_equal(gs.step[0], ATOLL_PARTITION_SHADOW_LOAD);
  assert_int_equal(gs.step_client[0], BE0);
  assert_int_equal(gs.step_pct[0], 60);
  assert_int_equal(gs.step_end[0] - gs.step_start[0], LOAD_NS);
  assert_int_equal(gs.step_start[0], fk.now);
  /* (the fake keeps the last timer asked for: the next round's, set after the shadow's) */
  assert_int_equal(fk.timer_cookie, cookie(1, 0));
  assert_int_equal(gs.n_rebinds, 0);
  /* Loaded while a request runs: the switch waits for it. */
  fk.now += LOAD_NS;
  atoll_core_on_timer(&core, cookie(2, q), fk.now);
  fk_after_event();
  assert_int_equal(gs.n_rebinds, 0);
  fk.now += 1000;
  uint32_t launches = fk.n_log;
  fk_complete_task(s, NULL, NULL);
  /* The switch: be0's stream now on 60 % of 60 CUs (36), nothing launched during the idle. */
  assert_int_equal(gs.n_rebinds, 1);
  assert_int_equal(gs.step[1], ATOLL_PARTITION_SWITCH);
  assert_int_equal(gs.step_end[1] - gs.step_start[1], SWITCH_NS);
  assert_int_equal(fk.timer_at, fk.now + SWITCH_NS);
  assert_int_equal(fk.n_log, launches);
  assert_int_equal(fk.count[s], 0);
  atoll_cuset want;
  uint32_t next;
  assert_int_equal(atoll_cuset_from_share(60, 0, 60, &want, &next), 0);
  assert_int_equal(gs.rebind_stream, s);
  assert_true(atoll_cuset_equal(&gs.rebind_set, &want));
  fk.now += SWITCH_NS;
  atoll_core_on_timer(&core, cookie(3, q), fk.now);
  fk_after_event();
  assert_int_equal(fk.count[s], fk_model_ops(BE0)); /* serving again, on the new share */
}

/* 200 MB of GPU: be0's instance (100 + 16 x 1 MB at max_batch 16) and its shadow need 232 MB; the
 * change is refused and nothing loads. With 240 MB it would load (the first test has no memory
 * figure, which checks nothing). */
static void a_shadow_memory_cannot_hold_is_refused(void **state) {
  (void)state;
  start(200);
  fall_behind();
  fk.now = TUNE_MS * 1000000LL;
  uint32_t timers = fk.n_timers;
  atoll_core_on_timer(&core, cookie(1, 0), fk.now);
  fk_after_event();
  assert_int_equal(gs.n_steps, 1);
  assert_int_equal(gs.step[0], ATOLL_PARTITION_REFUSED);
  assert_int_equal(fk.n_timers, timers + 1); /* only the next round */
  assert_int_equal(fk.timer_cookie, cookie(1, 0));
  assert_int_equal(gs.n_rebinds, 0);
}

/* An IF under its SLO floor grows to it at the manager's round although Algorithm 1 keeps it (one
 * request in the window, 0.5 ms of its 1 ms SLO, throughput equal to the arrivals: diffL 50 %,
 * diffT 0, not both spare); with the option floor_run_pct 0 the floor is not applied. */
static void an_if_under_its_floor_grows_to_it(void **state) {
  (void)state;
  for (int off = 0; off < 2; off++) {
    be0_floor = 80;
    start(0);
    if (off)
      sc.policy.param[11] = 0; /* floor_run_pct */
    fk_arrive(BE0);
    fk.now = 500000;
    fk_complete_task(fk_stream_of(BE0), NULL, NULL);
    fk.now = TUNE_MS * 1000000LL;
    atoll_core_on_timer(&core, cookie(1, 0), fk.now);
    fk_after_event();
    if (off) {
      assert_int_equal(gs.n_steps, 0);
    } else {
      assert_int_equal(gs.n_steps, 1);
      assert_int_equal(gs.step[0], ATOLL_PARTITION_SHADOW_LOAD);
      assert_int_equal(gs.step_pct[0], 80);
    }
    be0_floor = 0;
    fk_teardown(NULL);
  }
}

/* The batches a device must hold room for (atoll_policy_batch_limit): gslice forms its own, up to
 * max_batch (16 by default, here 7), whatever the client's batch: says; one request with batching
 * off; another policy goes by the client's batch:. A native run sized buffers by batch: alone, and
 * gslice's SLAB batches of up to 16 wrote past them. */
static void batch_limit_counts_the_policys_own_batches(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_GSLICE);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_GSLICE);
  assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 16);
  sc.policy.param[6] = 7; /* max_batch */
  assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 7);
  sc.policy.param[5] = 0; /* batching off */
  assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 1);
  fk_scenario(ATOLL_POLICY_STREAMS);
  assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 1);
  fk_clients[BE0].batch_max = 4;
  assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 4);
  fk_clients[BE0].batch_max = 0;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(grows_through_a_shadow_and_a_switch, fk_teardown),
    cmocka_unit_test_teardown(a_shadow_memory_cannot_hold_is_refused, fk_teardown),
    cmocka_unit_test(batch_limit_counts_the_policys_own_batches),
    cmocka_unit_test(an_if_under_its_floor_grows_to_it),
};
ATOLL_TEST_MAIN(tests)
