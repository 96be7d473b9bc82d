/* The abacus policy (core/policy_abacus.c) and its baselines fcfs and sjf (core/serial.c) on the
 * fake device (sched_fake.h). Without a predictor abacus predicts a group to take the sum of its
 * ops' standalone times (every fake kernel: 50 us), so each headroom case below is worked out by
 * hand: m3 (clients rt0, be0) takes 150 us alone, m2 (rt1, be1) 100 us. */
#include <string.h>

#include "atoll/policy.h"
#include "tests/core/sched_fake.h"
#include "tests/atoll_test.h"

enum { US = 1000, MS = 1000000 };

static void set_option(atoll_policy_kind k, const char *key, int64_t v) {
  uint32_t n = 0;
  const atoll_policy_option *o = atoll_policy_options(k, &n);
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(o[i].key, key) == 0) {
      atoll_policy_option_set(&sc.policy, &o[i], v);
      return;
    }
  fail_msg("%s has no option %s", atoll_policy_name(k), key);
}

static void start_abacus(const int64_t *deadlines, bool pipelined) {
  fk_scenario(ATOLL_POLICY_ABACUS);
  sc.policy = atoll_policy_defaults(ATOLL_POLICY_ABACUS);
  set_option(ATOLL_POLICY_ABACUS, "pipelined", pipelined);
  fk_start_ok(NULL, deadlines);
}

/* Commands outstanding on client c's stream. */
static uint32_t on_stream(uint32_t c) { return fk.count[fk_stream_of(c)]; }

/* Completes every outstanding command, stream by stream (one group). */
static void complete_group(void) {
  for (uint32_t s = 0; s < fk.n_streams; s++)
    while (fk.count[s])
      fk_complete(s);
}

/* be1 (no deadline) runs alone; meanwhile rt0 (10 ms) and rt1 (1 ms) arrive. The next group is led
 * by rt1, the least headroom, with both its ops, and rt0's three ops fit its headroom whole
 * (250 us <= 900 us): both run together, rt1's launched first. */
static void least_headroom_leads_and_others_fill_its_headroom(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 10 * MS, [RT1] = 1 * MS};
  start_abacus(dl, true);
  fk_arrive(BE1);
  assert_int_equal(on_stream(BE1), 2); /* alone: a group of its whole model */
  fk_arrive(RT0);
  fk_arrive(RT1);
  assert_int_equal(fk.n_log, 1); /* nothing joins a running group */
  fk.now = 100 * US;
  complete_group();
  assert_int_equal(fk.n_log, 3);
  assert_int_equal(fk.log[1].stream, fk_stream_of(RT1));
  assert_int_equal(fk.log[1].n, 2);
  assert_int_equal(fk.log[2].stream, fk_stream_of(RT0));
  assert_int_equal(fk.log[2].n, 3);
  assert_true(atoll_core_is_valid(&core));
}

/* rt1's headroom (deadline 250 us, the group starting at 100 us) is 150 us: its own 100 us leave
 * room for one 50 us op of rt0, the longest prefix that fits (the multi-way search tries eighths
 * of rt0's three ops). rt0's other two ops form the next group. */
static void the_added_prefix_is_the_longest_that_fits(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 10 * MS, [RT1] = 250 * US};
  start_abacus(dl, true);
  fk_arrive(BE1);
  fk_arrive(RT0);
  fk_arrive(RT1);
  fk.now = 100 * US;
  complete_group();
  assert_int_equal(fk.n_log, 3);
  assert_int_equal(fk.log[1].stream, fk_stream_of(RT1));
  assert_int_equal(fk.log[1].n, 2);
  assert_int_equal(fk.log[2].stream, fk_stream_of(RT0));
  assert_int_equal(fk.log[2].n, 1);
  fk.now = 200 * US;
  complete_group();
  assert_int_equal(fk.n_log, 4);
  assert_int_equal(fk.log[3].stream, fk_stream_of(RT0));
  assert_int_equal(fk.log[3].n, 2);
  complete_group();
  assert_int_equal(fk.done[RT0][0], 1);
  assert_int_equal(fk.done[RT1][0], 1);
}

/* An added query must still make its own deadline after the group: rt0 (deadline 340 us, 240 us of
 * headroom when the group starts at 100 us) would fit one op beside rt1 (group 150 us), but its
 * other two ops alone then end at 250 us of headroom: it is left out of this group. */
static void an_added_query_keeps_its_own_deadline(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 340 * US, [RT1] = 250 * US};
  start_abacus(dl, true);
  fk_arrive(BE1);
  fk_arrive(RT0);
  fk_arrive(RT1);
  fk.now = 100 * US;
  complete_group();
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, fk_stream_of(RT1));
  assert_int_equal(on_stream(RT0), 0);
}

/* A group holds one slice per model: rt0 and be0 both run m3, so with rt0 leading, be0 waits. */
static void one_slice_per_model(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 1 * MS};
  start_abacus(dl, true);
  fk_arrive(BE1);
  fk_arrive(BE0);
  fk_arrive(RT0);
  fk.now = 100 * US;
  complete_group();
  assert_int_equal(fk.n_log, 2);
  assert_int_equal(fk.log[1].stream, fk_stream_of(RT0));
  assert_int_equal(on_stream(BE0), 0);
}

/* Pipelined (Eq. 3): the search for the next group runs while be1's group (predicted 100 us) is on
 * the GPU, so rt1 (arrived at 1 us, deadline 150 us) has 151 - 100 = 51 us of headroom against its
 * predicted 100 us: shed, and counted. Without pipelining the search waits for the group's end; it
 * ended early (10 us), leaving 141 us: rt1 runs. */
static void a_predicted_miss_is_shed_with_the_running_group_subtracted(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT1] = 150 * US};
  for (int pipelined = 0; pipelined < 2; pipelined++) {
    start_abacus(dl, pipelined);
    fk_arrive(BE1);
    fk.now = 1 * US;
    uint64_t r = fk_arrive(RT1);
    assert_int_equal(fk.shed[RT1][r], pipelined);
    fk.now = 10 * US;
    complete_group();
    assert_int_equal(on_stream(RT1), pipelined ? 0 : 2);
    assert_int_equal(fk.n_log, pipelined ? 1 : 2);
    complete_group();
    assert_int_equal(fk.done[RT1][r], !pipelined);
    assert_true(atoll_core_is_valid(&core));
  }
}

/* A query already past its deadline when it would lead is shed at once, and the next one leads. */
static void a_query_past_its_deadline_is_shed(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 100 * US, [RT1] = 10 * MS};
  start_abacus(dl, false);
  fk_arrive(BE1);
  uint64_t r0 = fk_arrive(RT0);
  fk_arrive(RT1);
  fk.now = 500 * US;
  complete_group();
  assert_int_equal(fk.shed[RT0][r0], 1);
  assert_int_equal(fk.log[1].stream, fk_stream_of(RT1));
}

/* The groups reach the observer with their predicted latency. */
static uint32_t n_groups;
static int64_t last_pred, last_len;
static void on_group(void *ctx, uint32_t n_models, int64_t predicted, int64_t start, int64_t now) {
  (void)ctx, (void)n_models;
  n_groups++;
  last_pred = predicted, last_len = now - start;
}

static void groups_are_reported_with_their_prediction(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 10 * MS};
  start_abacus(dl, true);
  atoll_core_observer obs = fk_observer;
  obs.group_done = on_group;
  core.obs = &obs;
  n_groups = 0;
  fk.now = 0;
  fk_arrive(RT0);
  fk.now = 120 * US;
  complete_group();
  assert_int_equal(n_groups, 1);
  assert_int_equal(last_pred, 150 * US);
  assert_int_equal(last_len, 120 * US);
  core.obs = &fk_observer;
}

/* Accounting under random traffic, launch refusals and every policy of the family: each issued
 * request is completed, shed, dropped, failed or still in the core, at every step. */
static void every_request_is_accounted_for(void **state) {
  (void)state;
  static const atoll_policy_kind kinds[] = {ATOLL_POLICY_ABACUS, ATOLL_POLICY_FCFS, ATOLL_POLICY_SJF};
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 400 * US, [BE0] = 900 * US, [RT1] = 200 * US, [BE1] = 0};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (int pipelined = 0; pipelined < 2; pipelined++) {
      fk_scenario(kinds[k]);
      sc.policy = atoll_policy_defaults(kinds[k]);
      if (kinds[k] == ATOLL_POLICY_ABACUS)
        set_option(ATOLL_POLICY_ABACUS, "pipelined", pipelined);
      atoll_core_limits lim = {.pending_per_client = 3};
      fk_start_ok(&lim, dl);
      uint64_t rng = 12345 + k * 7 + (uint64_t)pipelined, issued = 0;
      for (int step = 0; step < 4000; step++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(rng >> 33);
        fk.now += (int64_t)(r % 40) * US;
        if (r % 3 == 0) {
          if (r % 97 == 0)
            fk.fail_launches = 1;
          fk_arrive((r >> 8) % FK_CLIENTS);
          issued++;
        } else {
          int32_t s = fk_busy_stream();
          for (uint32_t t = 0; t < fk.n_streams && s >= 0; t++)
            if (fk.count[(s + t + (r >> 4)) % fk.n_streams]) {
              s = (int32_t)((s + t + (r >> 4)) % fk.n_streams);
              break;
            }
          if (s >= 0)
            fk_complete((uint32_t)s);
        }
        uint64_t done = 0, shed = 0, dropped = 0, failed = 0, in_core = 0;
        for (uint32_t c = 0; c < FK_CLIENTS; c++)
          for (uint64_t q = 0; q < fk.next_req[c]; q++)
            done += fk.done[c][q], shed += fk.shed[c][q], dropped += fk.dropped[c][q], failed += fk.failed[c][q];
        for (uint32_t t = 0; t < core.n_tasks; t++)
          in_core += core.tasks[t].in_use;
        if (issued != done + shed + dropped + failed + in_core)
          fail_msg("%s: issued %llu != completed %llu + shed %llu + dropped %llu + failed %llu + in flight %llu",
                   atoll_policy_name(kinds[k]), (unsigned long long)issued, (unsigned long long)done,
                   (unsigned long long)shed, (unsigned long long)dropped, (unsigned long long)failed,
                   (unsigned long long)in_core);
        assert_true(atoll_core_is_valid(&core));
      }
      /* Something of every outcome happened, so the sum above was not trivially true. */
      uint64_t d = 0, h = 0;
      for (uint32_t c = 0; c < FK_CLIENTS; c++)
        for (uint64_t q = 0; q < fk.next_req[c]; q++)
          d += fk.done[c][q], h += fk.shed[c][q];
      assert_true(d > 100);
      assert_true(h > 0);
    }
}

/* fcfs takes the earliest arrival, sjf the shortest model (m2 before m3), and both shed a queued
 * request already past its deadline when the GPU frees up. */
static void fcfs_and_sjf_order_and_shed(void **state) {
  (void)state;
  static const int64_t dl[FK_CLIENTS] = {[RT0] = 10 * MS, [BE0] = 50 * US, [RT1] = 10 * MS};
  for (int sjf = 0; sjf < 2; sjf++) {
    atoll_policy_kind k = sjf ? ATOLL_POLICY_SJF : ATOLL_POLICY_FCFS;
    fk_scenario(k);
    sc.policy = atoll_policy_defaults(k);
    fk_start_ok(NULL, dl);
    fk_arrive(BE1);
    fk.now = 1 * US;
    fk_arrive(RT0);
    uint64_t late = fk_arrive(BE0);
    fk.now = 2 * US;
    fk_arrive(RT1);
    assert_int_equal(fk.n_log, 1); /* one request at a time */
    fk.now = 100 * US;
    uint32_t c;
    fk_complete_task((uint32_t)fk_busy_stream(), &c, NULL);
    assert_int_equal(c, BE1);
    assert_int_equal(fk.shed[BE0][late], 1);
    fk_complete_task((uint32_t)fk_busy_stream(), &c, NULL);
    assert_int_equal(c, sjf ? RT1 : RT0);
    fk_complete_task((uint32_t)fk_busy_stream(), &c, NULL);
    assert_int_equal(c, sjf ? RT0 : RT1);
    assert_int_equal(fk_busy_stream(), -1);
  }
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(least_headroom_leads_and_others_fill_its_headroom, fk_teardown),
      cmocka_unit_test_teardown(the_added_prefix_is_the_longest_that_fits, fk_teardown),
      cmocka_unit_test_teardown(one_slice_per_model, fk_teardown),
      cmocka_unit_test_teardown(an_added_query_keeps_its_own_deadline, fk_teardown),
      cmocka_unit_test_teardown(a_predicted_miss_is_shed_with_the_running_group_subtracted, fk_teardown),
      cmocka_unit_test_teardown(a_query_past_its_deadline_is_shed, fk_teardown),
      cmocka_unit_test_teardown(groups_are_reported_with_their_prediction, fk_teardown),
      cmocka_unit_test_teardown(every_request_is_accounted_for, fk_teardown),
      cmocka_unit_test_teardown(fcfs_and_sjf_order_and_shed, fk_teardown),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
