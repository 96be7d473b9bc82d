/* The policy registry and what the core offers every policy (core/policy_registry.c, core/sched.c,
 * core/policy.h): the table generated from include/atoll/policies.h, option tables read
 * generically, the policy state area covered by copy, hash and validity, timers routed to the
 * policy, operator ranges, and a launch the device refuses failing its request. */
#include "atoll/policy.h"
#include "core/policy.h"
#include "core/preempt.h"
#include "tests/core/sched_fake.h"
#include "tests/atoll_test.h"

/* Every registered policy has ops that can run, a name that maps back to it, and options whose
 * defaults are in range and read back as set. */
static void registry_covers_every_policy(void **state) {
  (void)state;
  for (int k = 0; k < ATOLL_POLICY_COUNT; k++) {
    const atoll_policy_ops *p = atoll__policy_ops((atoll_policy_kind)k);
    assert_non_null(p);
    assert_non_null(p->on_queued);
    assert_non_null(p->on_task_done);
    atoll_policy_kind back;
    assert_int_equal(atoll_policy_from_name(atoll_policy_name((atoll_policy_kind)k), &back), 0);
    assert_int_equal(back, k);
    uint32_t n = 0;
    const atoll_policy_option *o = atoll_policy_options((atoll_policy_kind)k, &n);
    atoll_policy_cfg cfg = atoll_policy_defaults((atoll_policy_kind)k);
    assert_int_equal(cfg.kind, k);
    for (uint32_t i = 0; i < n; i++) {
      assert_true(o[i].def >= o[i].min && o[i].def <= o[i].max);
      assert_int_equal(atoll_policy_option_get(&cfg, &o[i]), o[i].def);
      atoll_policy_option_set(&cfg, &o[i], o[i].max);
      assert_int_equal(atoll_policy_option_get(&cfg, &o[i]), o[i].max);
    }
  }
  assert_null(atoll__policy_ops(ATOLL_POLICY_COUNT));
}

/* The defaults the options declare are the ones scenarios have always had. */
static void option_defaults(void **state) {
  (void)state;
  atoll_policy_cfg reef = atoll_policy_defaults(ATOLL_POLICY_REEF);
  assert_true(reef.dkp && reef.async_reclaim && reef.reset_cu && !reef.multi_version);
  atoll_policy_cfg reset = atoll_policy_defaults(ATOLL_POLICY_RESET);
  assert_true(!reset.dkp && reset.async_reclaim && reset.reset_cu);
  atoll_policy_cfg wait = atoll_policy_defaults(ATOLL_POLICY_WAIT);
  assert_true(!wait.dkp && !wait.async_reclaim && !wait.reset_cu);
  assert_int_equal(wait.dq_capacity, 0);
  assert_int_equal(wait.rt_queue, ATOLL_RT_QUEUE_FIFO);
  uint32_t n = 0;
  assert_null(atoll_policy_options(ATOLL_POLICY_WAIT, &n));
  assert_int_equal(n, 0);
  atoll_policy_options(ATOLL_POLICY_STREAMS, &n);
  assert_int_equal(n, 1);
}

/* A policy that forms its own batches up to an option max_batch (gslice, inss, gpulet) says so
 * through atoll_policy_batch_limit, which a native device sizes each client's tensors by: inss and
 * gpulet did not, and a native gpulet run copied a batch of 17 inputs into room for one (a
 * heap-buffer-overflow under ASan, a segfault in a release build). A policy without the option
 * goes by the client's batch:. */
static void own_batches_have_room(void **state) {
  (void)state;
  for (int k = 0; k < ATOLL_POLICY_COUNT; k++) {
    fk_scenario((atoll_policy_kind)k);
    sc.policy = atoll_policy_defaults((atoll_policy_kind)k);
    uint32_t n = 0;
    const atoll_policy_option *o = atoll_policy_options((atoll_policy_kind)k, &n);
    const atoll_policy_option *max_batch = NULL;
    for (uint32_t i = 0; i < n; i++)
      if (strcmp(o[i].key, "max_batch") == 0)
        max_batch = &o[i];
    if (!max_batch) {
      assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 1);
      continue;
    }
    assert_non_null(atoll_policy_own_batches((atoll_policy_kind)k));
    assert_int_equal(atoll_policy_batch_limit(&sc, BE0), max_batch->def);
    atoll_policy_option_set(&sc.policy, max_batch, 5);
    assert_int_equal(atoll_policy_batch_limit(&sc, BE0), 5);
  }
}

/* reef's rule across options: multi_version needs dkp; its default follows dkp. */
static void reef_finish_options(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_REEF);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_REEF);
  uint32_t bad = 99;
  assert_null(atoll_policy_finish_options(&sc, 0, &bad));
  assert_false(sc.policy.multi_version); /* the fake's kernels have no versions */
  sc.policy.dkp = false;
  sc.policy.multi_version = true;
  assert_non_null(atoll_policy_finish_options(&sc, 1u << 1, &bad));
  uint32_t n = 0;
  assert_string_equal(atoll_policy_options(ATOLL_POLICY_REEF, &n)[bad].key, "multi_version");
}

/* Every byte of the policy's state area is part of the core's state: a change shows in the hash,
 * a copy carries it, and the policy's own invariants are part of validity. */
static void policy_state_is_copied_hashed_and_checked(void **state) {
  (void)state;
  static const atoll_policy_kind with_state[] = {ATOLL_POLICY_SEQ, ATOLL_POLICY_WAIT};
  for (size_t i = 0; i < 2; i++) {
    fk_scenario(with_state[i]);
    fk_start_ok(NULL, NULL);
    size_t n = atoll__policy_ops(with_state[i])->state_size;
    assert_true(n > 0);
    uint64_t h = atoll_core_hash(&core);
    unsigned char *b = atoll__policy_state(&core);
    b[0] ^= 1;
    assert_int_not_equal(atoll_core_hash(&core), h);
    size_t size = atoll_core_size(&sc, NULL);
    void *mem = malloc(size);
    atoll_core copy;
    assert_int_equal(atoll_core_copy(&copy, mem, size, &core), 0);
    assert_int_equal(atoll_core_hash(&copy), atoll_core_hash(&core));
    assert_memory_equal(atoll__policy_state(&copy), b, n);
    assert_ptr_not_equal(atoll__policy_state(&copy), b);
    b[0] ^= 1;
    assert_int_equal(atoll_core_hash(&core), h);
    free(mem);
  }
  /* The wait policy's awaited count (once hashed by hand by the simulator's explorer). */
  fk_scenario(ATOLL_POLICY_WAIT);
  fk_start_ok(NULL, NULL);
  uint64_t h = atoll_core_hash(&core);
  ((atoll_preempt_state *)atoll__policy_state(&core))->awaited = 1;
  assert_int_not_equal(atoll_core_hash(&core), h);
  /* seq's owner must name a queue. */
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  assert_true(atoll_core_is_valid(&core));
  *(int32_t *)atoll__policy_state(&core) = (int32_t)core.n_queues;
  assert_false(atoll_core_is_valid(&core));
  *(int32_t *)atoll__policy_state(&core) = -1;
  assert_true(atoll_core_is_valid(&core));
}

/* Queue setup: reset and reef restrict the DQ to REEF's depth unless the scenario sets one; wait
 * keeps the device's. */
static void setup_queue_sets_dq_depth(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_RESET, ATOLL_POLICY_REEF, ATOLL_POLICY_WAIT};
  for (size_t i = 0; i < 3; i++) {
    fk_scenario(kinds[i]);
    fk_start_ok(NULL, NULL);
    for (uint32_t s = 0; s < fk.n_streams; s++)
      assert_int_equal(fk.cfg[s].dq_capacity, kinds[i] == ATOLL_POLICY_WAIT ? 0 : ATOLL_REEF_DQ_DEPTH);
    sc.policy.dq_capacity = 7;
    fk_start_ok(NULL, NULL);
    for (uint32_t s = 0; s < fk.n_streams; s++)
      assert_int_equal(fk.cfg[s].dq_capacity, 7);
  }
}

/* Option priority of the reset-based policies: off (the default), no stream is high-priority;
 * on, exactly the RT queues are. */
static void reset_based_priority_marks_rt_queues(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_RESET, ATOLL_POLICY_REEF};
  for (size_t i = 0; i < 2; i++) {
    fk_scenario(kinds[i]);
    fk_start_ok(NULL, NULL);
    for (uint32_t s = 0; s < fk.n_streams; s++)
      assert_int_equal(fk.cfg[s].priority, 0);
    sc.policy.priority = true;
    fk_start_ok(NULL, NULL);
    uint32_t rt = 0;
    for (uint32_t s = 0; s < fk.n_streams; s++) {
      assert_int_equal(fk.cfg[s].priority, core.queues[s].rt ? 1 : 0);
      rt += core.queues[s].rt;
    }
    assert_true(rt > 0 && rt < fk.n_streams);
  }
}

/* A timer goes to the device; a policy without timers ignores one. */
static void timers_reach_the_device(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  assert_int_equal(atoll__timer_set(&core, 1234, 77), 0);
  assert_int_equal(fk.n_timers, 1);
  assert_int_equal(fk.timer_at, 1234);
  assert_int_equal(fk.timer_cookie, 77);
  uint64_t h = atoll_core_hash(&core);
  atoll_core_on_timer(&core, 77, 1234);
  assert_int_equal(atoll_core_hash(&core), h);
  atoll_device_ops no_timer = fk_ops;
  no_timer.set_timer = NULL;
  core.dev.ops = &no_timer;
  assert_int_equal(atoll__timer_set(&core, 1, 1), ATOLL_ENOTSUP);
  core.dev.ops = &fk_ops;
}

/* Operator ranges: orion launches one op; a range launches the next ops in one call and holds the
 * rest; a range past the end launches what is left. */
static void launch_range_holds_the_rest(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_ORION);
  fk_start_ok(NULL, NULL);
  fk_arrive(RT0); /* m3: three ops, orion launched op 0 */
  uint32_t q = core.client_queue[RT0];
  const atoll_task *t = &core.tasks[core.queues[q].active];
  assert_int_equal(t->next_launch, 1);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(atoll__launch_range(&core, q, 1), 0);
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].n, 1);
  assert_int_equal(fk.log[1].cmds[0].op, 1);
  assert_true(atoll__queue_has_unlaunched(&core, q));
  assert_int_equal(atoll__launch_range(&core, q, 5), 0);
  assert_int_equal(fk.log[2].n, 1);
  assert_int_equal(fk.log[2].cmds[0].op, 2);
  assert_false(atoll__queue_has_unlaunched(&core, q));
  assert_int_equal(atoll__launch_range(&core, q, 5), 0); /* nothing left: no call */
  assert_int_equal(fk.n_log, 3);

  fk_scenario(ATOLL_POLICY_SEQ); /* seq launches a task whole: ranges of 2 and then the rest */
  fk_start_ok(NULL, NULL);
  fk.fail_launches = 0;
  fk_arrive(BE1);
  assert_int_equal(fk.log[0].n, 2);
}

/* A launch the device refuses fails the request: it is reported failed (not done, not dropped),
 * its task slot is freed, and the policy moves on to the next request. */
static void failed_launch_fails_the_request(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  uint32_t free_before = atoll_ring_count(&core.free_tasks);
  fk.fail_launches = 1;
  uint64_t r0 = fk_arrive(RT0);
  assert_int_equal(fk.failed[RT0][r0], 1);
  assert_int_equal(fk.done[RT0][r0] + fk.dropped[RT0][r0] + fk.shed[RT0][r0], 0);
  assert_int_equal(atoll_ring_count(&core.free_tasks), free_before);
  assert_int_equal(fk.n_log, 0);
  uint64_t r1 = fk_arrive(RT0); /* the GPU is free again: the next request runs */
  assert_int_equal(fk.n_log, 1);
  uint32_t client;
  uint64_t req;
  fk_complete_task(fk_stream_of(RT0), &client, &req);
  assert_int_equal(req, r1);
  assert_int_equal(fk.done[RT0][r1], 1);

  /* A failure while others wait: seq hands the GPU to the next one. */
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_start_ok(NULL, NULL);
  fk_arrive(BE0);
  fk_arrive(BE1);
  fk.fail_launches = 1;
  fk_complete_task(fk_stream_of(BE0), &client, &req); /* be0 done; be1's launch fails */
  assert_int_equal(fk.failed[BE1][0], 1);
  assert_int_equal(fk_outstanding(), 0);
  assert_true(atoll_core_is_valid(&core));
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(registry_covers_every_policy, fk_teardown),
      cmocka_unit_test_teardown(option_defaults, fk_teardown),
      cmocka_unit_test_teardown(reef_finish_options, fk_teardown),
      cmocka_unit_test_teardown(own_batches_have_room, fk_teardown),
      cmocka_unit_test_teardown(policy_state_is_copied_hashed_and_checked, fk_teardown),
      cmocka_unit_test_teardown(setup_queue_sets_dq_depth, fk_teardown),
      cmocka_unit_test_teardown(reset_based_priority_marks_rt_queues, fk_teardown),
      cmocka_unit_test_teardown(timers_reach_the_device, fk_teardown),
      cmocka_unit_test_teardown(launch_range_holds_the_rest, fk_teardown),
      cmocka_unit_test_teardown(failed_launch_fails_the_request, fk_teardown),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
