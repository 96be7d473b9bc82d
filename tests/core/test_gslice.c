/* GSLICE's decisions (core/gslice.c) on hand-computed inputs: Algorithm 1's keep / grow / shrink
 * with its band, change factor and step grid; weighted max-min fairness; SLAB and AIMD batch
 * sizes. Each expected figure is worked out in the comment beside it. */
#include "core/gslice.h"

#include "atoll/cuset.h"

#include "tests/atoll_test.h"

static const atoll_gslice_tune_cfg paper = {.band_pct = 5, .step_pct = 5, .min_pct = 5};

static atoll_gslice_decision tune(double slo_ms, double lat_ms, double tput, double rate, uint32_t pct) {
  atoll_gslice_obs o = {.slo_ns = slo_ms * 1e6, .avg_latency_ns = lat_ms * 1e6, .avg_tput_rps = tput,
                        .arrival_rps = rate, .pct = pct};
  return atoll_gslice_tune(&o, &paper);
}

/* Both residuals inside the 5 % band: no change. diffL = (10 - 9.7) / 10 = 3 %, diffT = -2 %. */
static void inside_the_band_keeps(void **state) {
  (void)state;
  atoll_gslice_decision d = tune(10, 9.7, 98, 100, 30);
  assert_int_equal(d.action, ATOLL_GSLICE_KEEP);
  assert_int_equal(d.pct, 30);
  assert_true(d.diff_l_pct > 2.99 && d.diff_l_pct < 3.01);
  assert_true(d.diff_t_pct > -2.01 && d.diff_t_pct < -1.99);
}

/* Latency over the SLO: diffL = -20 %, changeFactor = |10 - 12| / 12 = 1/6, change = 30 / 6 = 5:
 * 35 %. */
static void late_grows_by_the_change_factor(void **state) {
  (void)state;
  atoll_gslice_decision d = tune(10, 12, 50, 50, 30);
  assert_int_equal(d.action, ATOLL_GSLICE_GROW);
  assert_int_equal(d.pct, 35);
  assert_true(d.change_factor > 0.1666 && d.change_factor < 0.1667);
}

/* Throughput short of the arrivals: diffT = -20 % grows although latency has room; changeFactor =
 * max(1/9, 20/80) = 0.25, change 7.5: 37.5, up to the grid: 40 %. */
static void falling_behind_grows_to_the_grid(void **state) {
  (void)state;
  atoll_gslice_decision d = tune(10, 9, 80, 100, 30);
  assert_int_equal(d.action, ATOLL_GSLICE_GROW);
  assert_int_equal(d.pct, 40);
}

/* A small shortfall still moves one whole step: diffL = -6 %, change 50 x 0.6 / 10.6 = 2.8: 55 %. */
static void the_smallest_change_is_one_step(void **state) {
  (void)state;
  assert_int_equal(tune(10, 10.6, 100, 100, 50).pct, 55);
  assert_int_equal(tune(10, 30, 10, 100, 80).pct, 100); /* changeFactor capped at 1, share at 100 */
}

/* Both residuals positive beyond the band: diffL = 20 %, diffT = 20 %, changeFactor = max(2/8,
 * 20/120) = 0.25, change 10: 30 %. */
static void spare_both_ways_shrinks(void **state) {
  (void)state;
  atoll_gslice_decision d = tune(10, 8, 120, 100, 40);
  assert_int_equal(d.action, ATOLL_GSLICE_SHRINK);
  assert_int_equal(d.pct, 30);
  assert_int_equal(tune(10, 1, 200, 100, 10).pct, 5); /* never below one step */
}

/* Latency to spare but throughput just matching the arrivals (in the band): neither short nor
 * spare both ways, so nothing changes; and nothing measured yet changes nothing. */
static void spare_latency_alone_keeps(void **state) {
  (void)state;
  assert_int_equal(tune(10, 5, 100, 100, 30).action, ATOLL_GSLICE_KEEP);
  assert_int_equal(tune(10, 0, 0, 100, 30).action, ATOLL_GSLICE_KEEP);
}

static void maxmin_equal_weights_fills_the_small_first(void **state) {
  (void)state;
  /* Offers 33.3 each: 20 is met; the 80 left gives 40 and 40. */
  uint32_t d[3] = {20, 50, 60}, out[3];
  atoll_gslice_maxmin(d, NULL, 3, 100, out);
  assert_int_equal(out[0], 20);
  assert_int_equal(out[1], 40);
  assert_int_equal(out[2], 40);
  /* Demands that fit get what they ask, no more. */
  uint32_t small[2] = {10, 20};
  atoll_gslice_maxmin(small, NULL, 2, 100, out);
  assert_int_equal(out[0], 10);
  assert_int_equal(out[1], 20);
}

static void maxmin_weights_share_what_is_left(void **state) {
  (void)state;
  uint32_t out[3];
  /* Weights 2:1:1 over 100, every demand 80: 50, 25, 25. */
  uint32_t d[3] = {80, 80, 80};
  double w[3] = {2, 1, 1};
  atoll_gslice_maxmin(d, w, 3, 100, out);
  assert_int_equal(out[0], 50);
  assert_int_equal(out[1], 25);
  assert_int_equal(out[2], 25);
  /* Weights 1:1:2, demands 10, 80, 80: offers 25, 25, 50; 10 is met; 90 left over weights 1:2
   * gives 30 and 60. */
  uint32_t d2[3] = {10, 80, 80};
  double w2[3] = {1, 1, 2};
  atoll_gslice_maxmin(d2, w2, 3, 100, out);
  assert_int_equal(out[0], 10);
  assert_int_equal(out[1], 30);
  assert_int_equal(out[2], 60);
  /* GSLICE's weights (the demands themselves): 20, 50, 60 scaled by 100 / 130, floored. */
  uint32_t d3[3] = {20, 50, 60};
  double w3[3] = {20, 50, 60};
  atoll_gslice_maxmin(d3, w3, 3, 100, out);
  assert_int_equal(out[0], 15);
  assert_int_equal(out[1], 38);
  assert_int_equal(out[2], 46);
}

/* Fairness's floored shares back on the 5 % grid without leaving the GPU idle: GSLICE's weights
 * over demands 15, 70 and 20 give 14.3, 66.7 and 19.0 of 100, floored to 10, 65 and 15 (90 %);
 * the two steps that frees go back to the IFs below their demand, in IF order: 15, 70, 15. */
static void grid_gives_back_the_steps_flooring_frees(void **state) {
  (void)state;
  uint32_t d[3] = {15, 70, 20}, alloc[3], out[3];
  double w[3] = {15, 70, 20};
  atoll_gslice_maxmin(d, w, 3, 100, alloc);
  assert_int_equal(alloc[0], 14);
  assert_int_equal(alloc[1], 66);
  assert_int_equal(alloc[2], 19);
  atoll_gslice_to_grid(alloc, d, 3, 100, 5, out);
  assert_int_equal(out[0], 15);
  assert_int_equal(out[1], 70);
  assert_int_equal(out[2], 15);
  /* Never past a demand nor the room, never below one step: demands 50 and 80 cut to 33 and 52 of
   * 85 floor to 30 and 50; one step fits the room and goes to the first below its demand. */
  uint32_t d2[2] = {50, 80}, a2[2] = {33, 52}, o2[2];
  atoll_gslice_to_grid(a2, d2, 2, 85, 5, o2);
  assert_int_equal(o2[0], 35);
  assert_int_equal(o2[1], 50);
  uint32_t d3[2] = {5, 5}, a3[2] = {2, 2}, o3[2];
  atoll_gslice_to_grid(a3, d3, 2, 4, 5, o3);
  assert_int_equal(o3[0], 5);
  assert_int_equal(o3[1], 5);
}

/* SLAB, a late batch (latency 30 ms over a 20 ms SLO): the proportion to the run alone. */
static uint32_t slab_late(uint32_t b, int64_t run_ns, uint32_t max) {
  return atoll_gslice_slab(b, b, run_ns, 10000000, 30000000, 20000000, max);
}

static void slab_and_aimd_batch_sizes(void **state) {
  (void)state;
  assert_int_equal(slab_late(4, 8000000, 16), 5);  /* 4 x 10 / 8 */
  assert_int_equal(slab_late(4, 20000000, 16), 2); /* 4 x 10 / 20 */
  assert_int_equal(slab_late(4, 2000000, 16), 8);  /* 20, at most twice 4 */
  assert_int_equal(slab_late(4, 2000000, 6), 6);   /* the maximum */
  assert_int_equal(slab_late(1, 50000000, 16), 1); /* never below 1 */
  assert_int_equal(atoll_gslice_aimd(4, true, 16), 5);
  assert_int_equal(atoll_gslice_aimd(10, false, 16), 9);
  assert_int_equal(atoll_gslice_aimd(1, false, 16), 1);
  assert_int_equal(atoll_gslice_aimd(16, true, 16), 16);
}

/* SLAB's headroom: a batch within the SLO never lowers the limit, and a full one tries one more,
 * where the proportion to the run alone would shrink it. SLO 2 ms, target 1 ms (50 %), a request
 * alone running 1.03 ms (the whole GPU's latency, slowed 3 % by a neighbour): the proportion says
 * 1 x 1 / 1.03 = 0.97, half of 1 at least: 0.5, so 1. */
static void slab_headroom_tries_one_more(void **state) {
  (void)state;
  /* Full (1 of 1), latency 1.03 ms within 2 ms: 2. Without the headroom rule it stayed at 1. */
  assert_int_equal(atoll_gslice_slab(1, 1, 1030000, 1000000, 1030000, 2000000, 16), 2);
  /* Cut short (1 of 2), within: the limit stays 2 (the proportion alone gives 0.5, so 1). */
  assert_int_equal(atoll_gslice_slab(2, 1, 1030000, 1000000, 1500000, 2000000, 16), 2);
  /* Full (2 of 2), the batch of two ran 1.05 ms, its oldest 1.9 ms in all: 3. */
  assert_int_equal(atoll_gslice_slab(2, 2, 1050000, 1000000, 1900000, 2000000, 16), 3);
  /* The same batch late (2.1 ms): the proportion, 2 x 1 / 1.05 = 1.9: 1. */
  assert_int_equal(atoll_gslice_slab(2, 2, 1050000, 1000000, 2100000, 2000000, 16), 1);
  /* Cut short and late, the proportion above what ran (1 x 1 / 0.5 = 2): the limit 4 stays. */
  assert_int_equal(atoll_gslice_slab(4, 1, 500000, 1000000, 2500000, 2000000, 16), 4);
  /* Within and full at the maximum: the maximum. */
  assert_int_equal(atoll_gslice_slab(16, 16, 900000, 1000000, 1900000, 2000000, 16), 16);
}

/* The SLO floor from a latency-over-share curve (docs/gslice.md, "SLO floors"): the smallest share
 * whose run takes at most run_pct % of the SLO. BERT-base on the simulated H200 (atoll model knee):
 * 40 % 2900.527 us, 50 % 2896.495, 100 % 2896.488; SLO 5.792 ms, half of it 2896 us: no share's
 * run fits, so 100. With the SLO 5x alone (14.48 ms, half 7240 us) the 10 % point (6848 us) fits. */
static void floor_from_the_latency_curve(void **state) {
  (void)state;
  uint32_t pct[4] = {10, 40, 50, 100};
  double lat[4] = {6848000, 2900527, 2896495, 2896488};
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 4, 5792000, 50), 100);
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 4, 14480000, 50), 10);
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 4, 5801000, 50), 50);  /* half: 2900.5 us */
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 4, 5802000, 50), 40);  /* half: 2901 us */
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 4, 5792000, 0), 0);    /* floors off */
  assert_int_equal(atoll_gslice_floor_pct(pct, lat, 0, 5792000, 50), 0);   /* no curve */
}

/* Algorithm 1 never takes an IF below its SLO floor. The paper's rule on a noisy window at a few
 * requests per second: latency 3 of 10 ms, throughput 5/s against 4/s arriving, both residuals
 * positive: diffL = 70 %, diffT = 25 %, changeFactor = max(7/3, 1/5) capped at 1: shrink 100 ->
 * 5 %. With the floor at 100 it keeps 100; at 60 it stops at 60; a share under its floor that the
 * band would keep (diffL 3 %, diffT -2 %) grows to it. */
static void tune_never_below_the_floor(void **state) {
  (void)state;
  atoll_gslice_obs o = {.slo_ns = 10e6, .avg_latency_ns = 3e6, .avg_tput_rps = 5, .arrival_rps = 4, .pct = 100};
  atoll_gslice_decision d = atoll_gslice_tune(&o, &paper);
  assert_int_equal(d.action, ATOLL_GSLICE_SHRINK);
  assert_int_equal(d.pct, 5);
  o.floor_pct = 100;
  d = atoll_gslice_tune(&o, &paper);
  assert_int_equal(d.action, ATOLL_GSLICE_KEEP);
  assert_int_equal(d.pct, 100);
  o.floor_pct = 60;
  d = atoll_gslice_tune(&o, &paper);
  assert_int_equal(d.action, ATOLL_GSLICE_SHRINK);
  assert_int_equal(d.pct, 60);
  atoll_gslice_obs in_band = {.slo_ns = 10e6, .avg_latency_ns = 9.7e6, .avg_tput_rps = 98, .arrival_rps = 100,
                              .pct = 30, .floor_pct = 45};
  d = atoll_gslice_tune(&in_band, &paper);
  assert_int_equal(d.action, ATOLL_GSLICE_GROW);
  assert_int_equal(d.pct, 45);
}

/* Shares become consecutive CUs in client order; on the native scenario's 3-CU device three IFs
 * at 30 % each get one CU of their own (CUs 0, 1 and 2); a client of another GPU does not count;
 * shares in effect past 100 % end at the GPU's last CU. */
/* A shadow's load time (docs/gslice.md, "Shadow instances"): the profile's measured time first;
 * else, with the preset's start-up, start-up plus the weights over the copy engine (100 MB at 12000
 * bytes/us: 104857600 / 12000 = 8738.133 us); else the preset's one time, also for a profile
 * without a footprint. */
static void shadow_load_time_per_model(void **state) {
  (void)state;
  atoll_gpu g = {.partition_load_ns = 5000000000LL, .costs = {.copy_bytes_per_us = 12000}};
  atoll_model m = {.footprint_known = true, .weights_mb = 100};
  assert_int_equal(atoll_gslice_load_ns(&m, &g), 5000000000LL); /* no start-up given: the preset's */
  g.partition_init_ns = 2000000000LL;
  assert_int_equal(atoll_gslice_load_ns(&m, &g), 2000000000LL + 8738133);
  m.instance_load_ns = 12000000000LL;
  assert_int_equal(atoll_gslice_load_ns(&m, &g), 12000000000LL);
  atoll_model unknown = {0};
  assert_int_equal(atoll_gslice_load_ns(&unknown, &g), 5000000000LL);
}

static void layout_gives_each_if_its_own_cus(void **state) {
  (void)state;
  atoll_client cl[4] = {{.name = "a"}, {.name = "b"}, {.name = "x", .gpu = 1}, {.name = "c"}};
  atoll_scenario s = {.clients = cl, .n_clients = 4, .gpu_count = 2};
  s.gpu.cus = 3;
  uint32_t pcts[4] = {30, 30, 30, 30};
  for (uint32_t i = 0; i < 4; i++) {
    if (i == 2)
      continue;
    atoll_cuset set = atoll_gslice_layout(&s, pcts, i);
    uint32_t want = i == 3 ? 2 : i;
    assert_int_equal(atoll_cuset_count(&set), 1);
    assert_true(atoll_cuset_has(&set, want));
  }
  s.gpu.cus = 60;
  uint32_t over[4] = {50, 40, 0, 30}; /* 30 + 24 + 18 CUs > 60: c ends at CU 59 */
  atoll_cuset c = atoll_gslice_layout(&s, over, 3);
  assert_int_equal(atoll_cuset_count(&c), 18);
  assert_int_equal(atoll_cuset_end(&c), 60);
  atoll_cuset b = atoll_gslice_layout(&s, over, 1);
  assert_true(atoll_cuset_has(&b, 30) && atoll_cuset_has(&b, 53) && !atoll_cuset_has(&b, 54));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(layout_gives_each_if_its_own_cus),
    cmocka_unit_test(shadow_load_time_per_model),
    cmocka_unit_test(inside_the_band_keeps),
    cmocka_unit_test(late_grows_by_the_change_factor),
    cmocka_unit_test(falling_behind_grows_to_the_grid),
    cmocka_unit_test(the_smallest_change_is_one_step),
    cmocka_unit_test(spare_both_ways_shrinks),
    cmocka_unit_test(spare_latency_alone_keeps),
    cmocka_unit_test(maxmin_equal_weights_fills_the_small_first),
    cmocka_unit_test(maxmin_weights_share_what_is_left),
    cmocka_unit_test(grid_gives_back_the_steps_flooring_frees),
    cmocka_unit_test(slab_and_aimd_batch_sizes),
    cmocka_unit_test(slab_headroom_tries_one_more),
    cmocka_unit_test(floor_from_the_latency_curve),
    cmocka_unit_test(tune_never_below_the_floor),
};
ATOLL_TEST_MAIN(tests)
