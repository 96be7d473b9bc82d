/* The edf policy (core/policy_edf.c) on the fake device (sched_fake.h): one request on the GPU at a
 * time, the earliest absolute deadline first across RT and BE clients, and with drop_late a
 * queued request shed once its deadline passed (through the timer it asked for). */
#include <string.h>

#include "atoll/policy.h"
#include "tests/core/sched_fake.h"
#include "tests/atoll_test.h"

enum { MS = 1000000 };

static void set_drop_late(bool on) {
  uint32_t n = 0;
  const atoll_policy_option *o = atoll_policy_options(ATOLL_POLICY_EDF, &n);
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(o[i].key, "drop_late") == 0) {
      atoll_policy_option_set(&sc.policy, &o[i], on);
      return;
    }
  fail_msg("edf has no option drop_late");
}

/* The one request on the GPU, completed whole; returns its client. */
static uint32_t complete_running(void) {
  int32_t s = fk_busy_stream();
  assert_true(s >= 0);
  uint32_t client;
  fk_complete_task((uint32_t)s, &client, NULL);
  return client;
}

/* Deadlines (relative): rt0 10 ms, be0 3 ms, rt1 20 ms, be1 none. With be1 on the GPU, requests of
 * rt1, rt0 and be0 queue in that order and run by absolute deadline: be0, rt0, rt1; a second be1
 * request (no deadline) waits behind them all, though it arrived first. */
static void earliest_deadline_first_across_classes(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_EDF);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_EDF);
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 10 * MS, [BE0] = 3 * MS, [RT1] = 20 * MS, [BE1] = 0};
  fk_start_ok(NULL, deadlines);
  fk_arrive(BE1);
  assert_int_equal(fk_outstanding(), 2); /* all of be1's ops launched at once */
  fk.now = 1 * MS;
  fk_arrive(BE1);
  fk_arrive(RT1);
  fk_arrive(RT0);
  fk_arrive(BE0);
  assert_int_equal(fk.n_log, 1); /* nothing else started: one request at a time */
  assert_int_equal(complete_running(), BE1);
  assert_int_equal(complete_running(), BE0);
  assert_int_equal(complete_running(), RT0);
  assert_int_equal(complete_running(), RT1);
  assert_int_equal(complete_running(), BE1);
  assert_int_equal(fk_busy_stream(), -1);
  assert_int_equal(fk.n_timers, 0); /* drop_late is off: no timers */
}

/* Equal absolute deadlines go by arrival, then by client index: be1 (arrived at 1 ns) before be0
 * and rt1 (both at 2 ns), be0 (client 1) before rt1 (client 2). */
static void ties_go_by_arrival_then_client(void **state) {
  (void)state;
  fk_scenario(ATOLL_POLICY_EDF);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_EDF);
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 5 * MS, [BE0] = 5 * MS - 1, [RT1] = 5 * MS - 1,
                                                [BE1] = 5 * MS};
  fk_start_ok(NULL, deadlines);
  fk_arrive(RT0);
  fk.now = 1;
  fk_arrive(BE1);
  fk.now = 2;
  fk_arrive(RT1);
  fk_arrive(BE0);
  assert_int_equal(complete_running(), RT0);
  assert_int_equal(complete_running(), BE1);
  assert_int_equal(complete_running(), BE0);
  assert_int_equal(complete_running(), RT1);
}

/* drop_late: a queued request whose deadline passed is shed when its timer fires, the running one
 * is not; without drop_late it runs late. */
static void drop_late_sheds_queued_requests_past_their_deadline(void **state) {
  (void)state;
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 10 * MS, [BE0] = 0, [RT1] = 30 * MS, [BE1] = 0};
  for (int on = 0; on < 2; on++) {
    fk_scenario(ATOLL_POLICY_EDF);
    sc.policy = atoll_policy_defaults(ATOLL_POLICY_EDF);
    set_drop_late(on);
    fk_start_ok(NULL, deadlines);
    uint64_t first = fk_arrive(RT0); /* runs at once */
    uint64_t late = fk_arrive(RT0);  /* waits; deadline 10 ms */
    fk_arrive(RT1);                  /* waits; deadline 30 ms */
    assert_int_equal(fk.n_timers, on ? 3 : 0);
    fk.now = 10 * MS + 1;
    if (on) {
      assert_int_equal(fk.timer_at, 30 * MS + 1); /* the last asked for: rt1's */
      atoll_core_on_timer(&core, fk.timer_cookie, fk.now);
      fk_after_event();
    }
    assert_int_equal(fk.shed[RT0][late], on);
    assert_int_equal(fk.shed[RT0][first], 0);
    assert_int_equal(complete_running(), RT0);
    assert_int_equal(fk.done[RT0][first], 1);
    if (!on)
      assert_int_equal(complete_running(), RT0); /* the late one runs late */
    assert_int_equal(complete_running(), RT1);
    assert_int_equal(fk_busy_stream(), -1);
    assert_true(atoll_core_is_valid(&core));
  }
}

/* The GPU frees up after a deadline passed with no timer due yet: the late one is shed at the pick. */
static void drop_late_sheds_at_the_pick_too(void **state) {
  (void)state;
  static const int64_t deadlines[FK_CLIENTS] = {[RT0] = 10 * MS, [BE0] = 0, [RT1] = 0, [BE1] = 0};
  fk_scenario(ATOLL_POLICY_EDF);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_EDF);
  set_drop_late(true);
  fk_start_ok(NULL, deadlines);
  fk_arrive(BE0);
  uint64_t late = fk_arrive(RT0);
  uint64_t be1 = fk_arrive(BE1);
  fk.now = 20 * MS;
  assert_int_equal(complete_running(), BE0);
  assert_int_equal(fk.shed[RT0][late], 1);
  assert_int_equal(complete_running(), BE1);
  assert_int_equal(fk.done[BE1][be1], 1);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(earliest_deadline_first_across_classes, fk_teardown),
      cmocka_unit_test_teardown(ties_go_by_arrival_then_client, fk_teardown),
      cmocka_unit_test_teardown(drop_late_sheds_queued_requests_past_their_deadline, fk_teardown),
      cmocka_unit_test_teardown(drop_late_sheds_at_the_pick_too, fk_teardown),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
