/* Spatial partitions in the simulator (docs/partitions.md), on both CU engines: a client bound to
 * half the CUs has the latency of its model alone on a GPU with half the CUs (within 1 %); share 50
 * is exactly CUs 0-29; two clients on disjoint halves each keep within 5 % of alone-on-half; sets
 * with gaps ("0-14,30-44") behave as their CU count. The
 * reference GPU is the preset with cus halved whose kernel timing is fitted on the full preset, so
 * each block takes the time it takes on the full GPU (atoll_sim_opts.timing_gpu). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "run/report.h"
#include "sim/run.h"
#include "tests/test_scenario.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path

static const char *const engines[] = {"sim.engine=fluid", "sim.engine=blocks"};

/* Mean latency (us) of client c over a run of s. */
static double mean_latency(const atoll_scenario *s, const atoll_sim_opts *o, uint32_t c) {
  atoll_run_results res;
  int rc = atoll_sim_run(s, o, &res);
  if (rc)
    fail_msg("atoll_sim_run: %s", atoll_strerror(rc));
  atoll_report rep;
  assert_int_equal(atoll_report_compute(&res, &rep), 0);
  assert_true(rep.clients[c].completed > 0);
  double mean = rep.clients[c].latency_us.mean;
  atoll_report_free(&rep);
  atoll_run_results_free(&res);
  return mean;
}

/* Client c of path alone, unbound, on the scenario's GPU cut to its binding's CU count. */
static double alone_on_part(const char *path, const char *engine, uint32_t c) {
  const char *sets[] = {engine};
  atoll_test_scenario *l = atoll_test_load(path, sets, 1);
  atoll_gpu full = l->s.gpu;
  atoll_client one = l->s.clients[c];
  uint32_t cus = atoll_cuset_count(&one.cus);
  assert_true(cus > 0 && cus < full.cus);
  one.cus = (atoll_cuset){{0}};
  atoll_scenario alone = l->s;
  alone.clients = &one, alone.n_clients = 1;
  alone.gpu.cus = cus;
  atoll_sim_opts o = {.timing_gpu = &full};
  double mean = mean_latency(&alone, &o, 0);
  atoll_test_unload(l);
  return mean;
}

static double bound(const char *path, const char *engine, uint32_t c) {
  const char *sets[] = {engine};
  atoll_test_scenario *l = atoll_test_load(path, sets, 1);
  double mean = mean_latency(&l->s, NULL, c);
  atoll_test_unload(l);
  return mean;
}

static void within(double got, double want, double rel, const char *what) {
  print_message("%s: %.3f us, alone on the part %.3f us (%+.3f %%)\n", what, got, want, 100 * (got - want) / want);
  if (!(fabs(got - want) <= rel * want))
    fail_msg("%s: %.3f us, alone on the part %.3f us (%+.2f %%, allowed %.0f %%)", what, got, want,
             100 * (got - want) / want, 100 * rel);
}

static void bound_half_matches_alone_on_half_gpu(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++) {
    double b = bound(SRC("scenarios/partitions/vgg-half.yaml"), engines[e], 0);
    double a = alone_on_part(SRC("scenarios/partitions/vgg-half.yaml"), engines[e], 0);
    within(b, a, 0.01, engines[e]);
  }
}

static void binding_slows_a_model_down(void **state) {
  (void)state;
  const char *sets[] = {"sim.engine=fluid"};
  atoll_test_scenario *l = atoll_test_load(SRC("scenarios/partitions/vgg-half.yaml"), sets, 1);
  double half = mean_latency(&l->s, NULL, 0);
  atoll_client free_client = l->s.clients[0];
  free_client.cus = (atoll_cuset){{0}};
  atoll_scenario s = l->s;
  s.clients = &free_client;
  double all = mean_latency(&s, NULL, 0);
  if (!(half > all * 1.05))
    fail_msg("bound to 30 CUs %.3f us, on all 60 %.3f us: the binding had no effect", half, all);
  atoll_test_unload(l);
}

static void share_50_is_cus_0_to_29(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++) {
    const char *sets[] = {engines[e]};
    atoll_test_scenario *h = atoll_test_load(SRC("scenarios/partitions/vgg-half.yaml"), sets, 1);
    atoll_test_scenario *s = atoll_test_load(SRC("scenarios/partitions/vgg-share.yaml"), sets, 1);
    assert_true(atoll_cuset_equal(&h->s.clients[0].cus, &s->s.clients[0].cus));
    double a = mean_latency(&h->s, NULL, 0), b = mean_latency(&s->s, NULL, 0);
    if (a != b)
      fail_msg("%s: share 50 %.6f us, cus 0-29 %.6f us", engines[e], b, a);
    atoll_test_unload(h);
    atoll_test_unload(s);
  }
}

static void disjoint_halves_each_near_alone_on_half(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++)
    for (uint32_t c = 0; c < 2; c++) {
      double b = bound(SRC("scenarios/partitions/two-halves.yaml"), engines[e], c);
      double a = alone_on_part(SRC("scenarios/partitions/two-halves.yaml"), engines[e], c);
      print_message("%s ", engines[e]);
      within(b, a, 0.05, c == 0 ? "vgg beside rnet" : "rnet beside vgg");
    }
}

/* A set with a gap: 30 CUs in two runs give the latency of 30 CUs in one (the engines place blocks
 * only on the set's CUs, and nothing in the simulated GPU depends on where the CUs lie). */
static void gaps_match_alone_on_part(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++) {
    double b = bound(SRC("scenarios/partitions/vgg-gaps.yaml"), engines[e], 0);
    double a = alone_on_part(SRC("scenarios/partitions/vgg-gaps.yaml"), engines[e], 0);
    print_message("%s ", engines[e]);
    within(b, a, 0.01, "vgg on 0-14,30-44");
  }
}

/* Two interleaved sets (vgg on 0-14,30-44, rnet on 15-29,45-59) are disjoint partitions like two
 * halves: each within 5 % of alone on its part. */
static void interleaved_sets_each_near_alone_on_part(void **state) {
  (void)state;
  for (int e = 0; e < 2; e++)
    for (uint32_t c = 0; c < 2; c++) {
      double b = bound(SRC("scenarios/partitions/two-interleaved.yaml"), engines[e], c);
      double a = alone_on_part(SRC("scenarios/partitions/two-interleaved.yaml"), engines[e], c);
      print_message("%s ", engines[e]);
      within(b, a, 0.05, c == 0 ? "vgg beside rnet, interleaved" : "rnet beside vgg, interleaved");
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(bound_half_matches_alone_on_half_gpu),
    cmocka_unit_test(binding_slows_a_model_down),
    cmocka_unit_test(share_50_is_cus_0_to_29),
    cmocka_unit_test(disjoint_halves_each_near_alone_on_half),
    cmocka_unit_test(gaps_match_alone_on_part),
    cmocka_unit_test(interleaved_sets_each_near_alone_on_part),
};
ATOLL_TEST_MAIN(tests)
