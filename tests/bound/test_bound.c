/* The analytic RT bound (sim/bound.h): the FIFO response-time iteration on hand-computed cases, the
 * blocking term's parts, refusals with their reasons, and soundness against sampled simulations
 * (the simulated maximum never exceeds the bound). */
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "sim/bound.h"
#include "sim/run.h"
#include "tests/test_scenario.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path
#define NEVER INT64_MAX

static void fifo_two_clients_released_together(void **state) {
  (void)state;
  /* Both arrive at 0 behind a blocking of 1: the later one in the queue ends at 1 + 2 + 3. */
  int64_t c[] = {2, 3}, t[] = {10, 10}, r, busy;
  uint32_t points;
  assert_true(atoll_bound_fifo(c, t, 2, 1, &r, &busy, &points));
  assert_int_equal(r, 6);
  assert_int_equal(busy, 6);
  assert_int_equal(points, 1);
}

static void fifo_backlog_spans_several_arrivals(void **state) {
  (void)state;
  /* C = 3 every 4 behind a blocking of 3: the busy period is L = 3 + ceil(L/4) * 3 = 12; the
   * request at 0 waits 3 + 3 = 6, the one at 4 ends at 3 + 6 = 9 (5 after it arrived), the one at
   * 8 at 12 (4 after): the first is the worst. */
  int64_t c[] = {3}, t[] = {4}, r, busy;
  uint32_t points;
  assert_true(atoll_bound_fifo(c, t, 1, 3, &r, &busy, &points));
  assert_int_equal(busy, 12);
  assert_int_equal(r, 6);
  assert_int_equal(points, 3);
}

static void fifo_later_arrival_can_be_worst(void **state) {
  (void)state;
  /* A: C 1 every 2; B: C 4 every 100. Released together at 0 (W = 5). A's second request at 2
   * finds 1 + 4 + 1 = 6 ahead: ends at 6, 4 after it arrived; at 4: 8 - 4 = 4; the worst is 5 at 0.
   * With a blocking of 10, the busy period L = 10 + ceil(L/2) + 4 settles at 28 and every offset a
   * gives 10 + (a/2 + 1) + 4 - a, largest at a = 0: 15. */
  int64_t c[] = {1, 4}, t[] = {2, 100}, r, busy;
  uint32_t points;
  assert_true(atoll_bound_fifo(c, t, 2, 0, &r, &busy, &points));
  assert_int_equal(r, 5);
  assert_true(atoll_bound_fifo(c, t, 2, 10, &r, &busy, &points));
  assert_int_equal(r, 15);
  assert_int_equal(busy, 28);
}

static void fifo_once_only_client_counts_once(void **state) {
  (void)state;
  int64_t c[] = {5, 2}, t[] = {NEVER, 10}, r, busy;
  uint32_t points;
  assert_true(atoll_bound_fifo(c, t, 2, 0, &r, &busy, &points));
  assert_int_equal(r, 7);
}

static void fifo_overload_has_no_bound(void **state) {
  (void)state;
  int64_t c[] = {6, 5}, t[] = {10, 10}, r, busy;
  uint32_t points;
  assert_false(atoll_bound_fifo(c, t, 2, 0, &r, &busy, &points));
  assert_int_equal(r, NEVER);
  assert_int_equal(busy, NEVER);
}

/* DISB's RT clients are blocking (docs/scenarios.md), and a blocking client's bound holds only while
 * its requests complete within its period; D's may not (48 ms of RT work against VGG's 46 ms), so
 * there both bound and run send D's RT requests on their schedule, as tools/bound-vs-sim.sh does. */
#define OPEN_D                                                                                                    \
  "clients.rt_resnet152.arrival.blocking=false", "clients.rt_vgg.arrival.blocking=false",                        \
      "clients.rt_yolov3.arrival.blocking=false", "clients.rt_bert.arrival.blocking=false",                      \
      "clients.rt_gpt2.arrival.blocking=false"

/* Computes the bound of a shipped scenario under a policy; fails the test on refusal. */
static atoll_test_scenario *bound_of(const char *path, const char *policy, atoll_bound_result *r) {
  const char *sets[] = {policy, OPEN_D};
  atoll_test_scenario *l = atoll_test_load(path, sets, strstr(path, "disb/D.yaml") ? 6 : 1);
  char why[256] = "";
  int rc = atoll_bound_compute(&l->s, NULL, r, why, sizeof why);
  if (rc)
    fail_msg("bound refused: %s (%s)", atoll_strerror(rc), why);
  return l;
}

static void rt_only_has_no_blocking(void **state) {
  (void)state;
  atoll_bound_result r;
  atoll_test_scenario *l = bound_of(SRC("scenarios/disb/A.yaml"), "policy=rt-only", &r);
  assert_int_equal(r.blocking.total_ns, 0);
  assert_int_equal(r.n_clients, 1);
  int64_t alone;
  assert_int_equal(atoll_sim_standalone_ns(&l->s, l->s.clients[r.clients[0].client].model, &alone), 0);
  assert_int_equal(r.clients[0].task_ns, alone);
  assert_int_equal(r.clients[0].wcrt_ns, alone); /* half load: each request finds the queue empty */
  assert_true(r.clients[0].schedulable);
  atoll_bound_free(&r);
  atoll_test_unload(l);
}

static void reset_blocking_adds_its_parts(void **state) {
  (void)state;
  atoll_bound_result r;
  atoll_test_scenario *l = bound_of(SRC("scenarios/disb/C.yaml"), "policy=reset", &r);
  const atoll_bound_blocking *b = &r.blocking;
  const atoll_gpu_costs *k = &l->s.gpu.costs;
  assert_cmp(b->eviction_ns, >, 0);
  assert_cmp(b->stream_switch_ns, >, 0);
  assert_int_equal(b->cu_reset_ns, k->cu_reset_ns);
  assert_int_equal(b->total_ns,
                   b->hq_reset_ns + b->eviction_ns + b->stream_switch_ns + b->cu_reset_ns + b->unkillable_ns + b->copy_ns);
  /* Five BE streams, asynchronous reclamation: one constant HQ reset each. */
  assert_int_equal(b->hq_reset_ns, 5 * k->hq_reset_async_ns);
  assert_int_equal(r.clients[0].wcrt_ns, r.clients[0].task_ns + b->total_ns);
  atoll_bound_free(&r);
  atoll_test_unload(l);
}

static void reef_charges_padding_overheads(void **state) {
  (void)state;
  atoll_bound_result reset, reef;
  atoll_test_scenario *a = bound_of(SRC("scenarios/disb/A.yaml"), "policy=reset", &reset);
  atoll_test_scenario *b = bound_of(SRC("scenarios/disb/A.yaml"), "policy=reef", &reef);
  assert_cmp(reef.clients[0].task_ns, >, reset.clients[0].task_ns);
  assert_int_equal(reef.blocking.total_ns, reset.blocking.total_ns);
  atoll_bound_free(&reset), atoll_bound_free(&reef);
  atoll_test_unload(a), atoll_test_unload(b);
}

static void refusals_name_the_reason(void **state) {
  (void)state;
  struct {
    const char *path, *set, *needle;
  } cases[] = {
      {SRC("scenarios/examples/preempt.yaml"), "policy=reset", "client 'rt': poisson arrivals"},
      {SRC("scenarios/disb/A.yaml"), "policy=seq", "policy 'seq'"},
      {SRC("scenarios/disb/A.yaml"), "policy.rt_queue=edf", "FIFO RT queue"},
      /* Both were said to be two arrivals at the same instant. */
      {SRC("scenarios/examples/tiny.yaml"), "sim.arrival_jitter_us=[0, 30000]",
       "client 'cam': sim.arrival_jitter_us's largest offset (30000.000 us) is not shorter than its minimum "
       "inter-arrival time (999.999 us)"},
      {SRC("scenarios/examples/tiny.yaml"), "clients.cam.arrival.rate_hz=1e9",
       "client 'cam': at 1e+09 Hz, arrivals rounded to whole nanoseconds may coincide"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *sets[] = {cases[i].set};
    atoll_test_scenario *l = atoll_test_load(cases[i].path, sets, 1);
    atoll_bound_result r;
    char why[256] = "";
    assert_int_equal(atoll_bound_compute(&l->s, NULL, &r, why, sizeof why), ATOLL_EINVAL);
    if (!strstr(why, cases[i].needle))
      fail_msg("reason '%s' lacks '%s'", why, cases[i].needle);
    atoll_test_unload(l);
  }
}

/* Soundness against sampling: no simulated RT latency exceeds the bound. */
static void simulated_max_within_bound(void **state) {
  (void)state;
  const char *paths[] = {SRC("scenarios/disb/A.yaml"), SRC("scenarios/disb/C.yaml"), SRC("scenarios/disb/D.yaml")};
  const char *policies[] = {"policy=rt-only", "policy=reset", "policy=reef"};
  for (size_t p = 0; p < 3; p++) {
    for (size_t q = 0; q < 3; q++) {
      atoll_bound_result r;
      atoll_test_scenario *l = bound_of(paths[p], policies[q], &r);
      const char *sets[] = {policies[q], "duration_ms=3000", OPEN_D};
      atoll_test_scenario *run = atoll_test_load(paths[p], sets, p == 2 ? 7 : 2);
      atoll_run_results res;
      assert_int_equal(atoll_sim_run(&run->s, NULL, &res), 0);
      for (uint32_t i = 0; i < r.n_clients; i++) {
        const atoll_client_records *c = &res.clients[r.clients[i].client];
        int64_t worst = 0;
        for (uint32_t k = 0; k < c->n; k++)
          if (c->req[k].done_ns >= 0 && c->req[k].done_ns - c->req[k].arrival_ns > worst)
            worst = c->req[k].done_ns - c->req[k].arrival_ns;
        assert_cmp(worst, >, 0);
        if (worst > r.clients[i].wcrt_ns)
          fail_msg("%s %s: simulated %lld ns > bound %lld ns", paths[p], policies[q], (long long)worst,
                   (long long)r.clients[i].wcrt_ns);
      }
      atoll_run_results_free(&res);
      atoll_bound_free(&r);
      atoll_test_unload(l), atoll_test_unload(run);
    }
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(fifo_two_clients_released_together),
    cmocka_unit_test(fifo_backlog_spans_several_arrivals),
    cmocka_unit_test(fifo_later_arrival_can_be_worst),
    cmocka_unit_test(fifo_once_only_client_counts_once),
    cmocka_unit_test(fifo_overload_has_no_bound),
    cmocka_unit_test(rt_only_has_no_blocking),
    cmocka_unit_test(reset_blocking_adds_its_parts),
    cmocka_unit_test(reef_charges_padding_overheads),
    cmocka_unit_test(refusals_name_the_reason),
    cmocka_unit_test(simulated_max_within_bound),
};

ATOLL_TEST_MAIN(tests)
