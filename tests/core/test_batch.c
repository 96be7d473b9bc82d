/* Batching in the core (core/sched.c, "the batcher"; atoll__queue_activate_batch) and clients of
 * other GPUs, driven through the fake device (sched_fake.h). */
#include "core/policy.h"
#include "tests/core/sched_fake.h"
#include "tests/atoll_test.h"

enum { TIMEOUT_NS = 5000 };

/* seq with be0 batching up to three requests. */
static void batching_scenario(uint32_t max) {
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_clients[BE0].arrival = (atoll_arrival){.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 100};
  fk_clients[BE0].batch_max = max;
  fk_clients[BE0].batch_timeout_ns = TIMEOUT_NS;
  fk_start_ok(NULL, NULL);
}

/* B requests make one model run: nothing launches before the B-th, then every command carries
 * batch B; the riders start with the run and end with it, each told its batch first. */
static void full_batch_runs_once_and_ends_together(void **state) {
  (void)state;
  batching_scenario(3);
  uint32_t s = fk_stream_of(BE0);
  fk_arrive(BE0);
  fk_arrive(BE0);
  assert_int_equal(fk.n_log, 0);
  assert_int_equal(fk.n_timers, 1);
  assert_int_equal(fk.timer_at, TIMEOUT_NS);
  assert_true(fk.timer_cookie & ATOLL_CORE_COOKIE);
  fk_arrive(BE0);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].n, fk_model_ops(BE0));
  for (uint32_t i = 0; i < fk.log[0].n; i++)
    assert_int_equal(fk.log[0].cmds[i].batch, 3);
  fk.now = 100;
  fk_start_head(s);
  for (uint64_t r = 0; r < 3; r++) {
    assert_true(fk.started[BE0][r]);
    assert_int_equal(fk.started_at[BE0][r], 100);
  }
  fk.now = 900;
  uint32_t client;
  uint64_t req;
  fk_complete_task(s, &client, &req);
  assert_int_equal(req, 0); /* the leader is the oldest */
  for (uint64_t r = 0; r < 3; r++) {
    assert_true(fk.done[BE0][r]);
    assert_int_equal(fk.batch[BE0][r], 3);
  }
  assert_int_equal(core.client_waiting[BE0], 0);
  /* The old timeout finds its batch gone: nothing happens. */
  uint32_t launches = fk.n_log;
  atoll_core_on_timer(&core, fk.timer_cookie, TIMEOUT_NS);
  fk_after_event();
  assert_int_equal(fk.n_log, launches);
}

/* A batch that does not fill goes when its first request has waited the timeout. */
static void timeout_sends_a_partial_batch(void **state) {
  (void)state;
  batching_scenario(4);
  uint32_t s = fk_stream_of(BE0);
  fk_arrive(BE0);
  fk.now = 1000;
  fk_arrive(BE0);
  assert_int_equal(fk.n_log, 0);
  assert_int_equal(fk.timer_at, TIMEOUT_NS); /* from the first arrival */
  fk.now = TIMEOUT_NS;
  atoll_core_on_timer(&core, fk.timer_cookie, fk.now);
  fk_after_event();
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].cmds[0].batch, 2);
  /* The next request starts a new batch with a timer of its own. */
  fk_arrive(BE0);
  assert_int_equal(fk.n_timers, 2);
  assert_int_equal(fk.timer_at, 2 * TIMEOUT_NS);
  fk_complete_task(s, NULL, NULL);
  assert_true(fk.done[BE0][0] && fk.done[BE0][1]);
  assert_false(fk.done[BE0][2]);
  assert_int_equal(fk.batch[BE0][1], 2);
}

/* A client without batch: its commands say batch 1 and no observer hears of batches. */
static void unbatched_clients_run_alone(void **state) {
  (void)state;
  batching_scenario(3);
  fk_arrive(BE1);
  assert_int_equal(fk.n_log, 1);
  assert_int_equal(fk.log[0].cmds[0].batch, 1);
  fk_complete_task(fk_stream_of(BE1), NULL, NULL);
  assert_true(fk.done[BE1][0]);
  assert_int_equal(fk.batch[BE1][0], 0);
}

/* A batching client's queue holds at most pending_per_client requests, riders included. */
static void batch_members_count_against_the_pending_limit(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_SEQ);
  fk_clients[BE0].arrival = (atoll_arrival){.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 100};
  fk_clients[BE0].batch_max = 8, fk_clients[BE0].batch_timeout_ns = TIMEOUT_NS;
  fk_start_ok(&(atoll_core_limits){.pending_per_client = 3}, NULL);
  for (int i = 0; i < 4; i++)
    fk_arrive(BE0);
  assert_true(fk.dropped[BE0][3]);
  assert_false(fk.dropped[BE0][2]);
}

/* A policy's own batching: the active task takes up to max - 1 pending tasks of its client. */
static void policy_activates_a_batch(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_RT_ONLY);
  fk_start_ok(NULL, NULL);
  for (int i = 0; i < 4; i++)
    fk_arrive(RT0); /* one active, three pending */
  fk_arrive(RT1);
  uint32_t q = core.client_queue[RT0];
  assert_int_equal(atoll_ring_count(&core.queues[q].pending), 4);
  /* As if the active task had left the queue without a policy reaction. */
  core.queues[q].active = -1;
  assert_true(atoll__queue_activate_batch(&core, q, 3));
  const atoll_task *t = &core.tasks[core.queues[q].active];
  assert_int_equal(t->client, RT0);
  assert_int_equal(t->batch, 3);
  assert_int_equal(core.tasks[t->batch_next].req, 2);
  assert_int_equal(core.tasks[core.tasks[t->batch_next].batch_next].req, 3);
  /* rt1's task stays, and so does nothing of rt0's. */
  assert_int_equal(atoll_ring_count(&core.queues[q].pending), 1);
  assert_int_equal(core.client_waiting[RT0], 0);
  assert_int_equal(core.client_waiting[RT1], 1);
}

/* A run of one GPU leaves the other GPUs' clients inactive. */
static void clients_of_other_gpus_are_inactive(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_STREAMS);
  sc.gpu_count = 2;
  fk_clients[RT1].gpu = 1;
  fk_clients[BE1].gpu = 1;
  sc.run_gpu = 1;
  fk_start_ok(NULL, NULL);
  assert_false(atoll_core_client_active(&core, RT0));
  assert_false(atoll_core_client_active(&core, BE0));
  assert_true(atoll_core_client_active(&core, RT1));
  assert_true(atoll_core_client_active(&core, BE1));
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(full_batch_runs_once_and_ends_together, fk_teardown),
      cmocka_unit_test_teardown(timeout_sends_a_partial_batch, fk_teardown),
      cmocka_unit_test_teardown(unbatched_clients_run_alone, fk_teardown),
      cmocka_unit_test_teardown(batch_members_count_against_the_pending_limit, fk_teardown),
      cmocka_unit_test_teardown(policy_activates_a_batch, fk_teardown),
      cmocka_unit_test_teardown(clients_of_other_gpus_are_inactive, fk_teardown),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
