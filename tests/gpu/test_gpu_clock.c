/* The GPU back-ends' preemption timestamps, vendor-neutral part (native/gpu/gpu_clock.h): the
 * device-to-host clock map, folding a queue's timestamp words into the record, and the launch
 * flags that carry the latency options to the device. */
#include "native/gpu/gpu_clock.h"
#include "tests/atoll_test.h"

static void fit_maps_two_points_and_their_slope(void **state) {
  (void)state;
  /* A device clock at half the host's rate, 1000 ticks behind an offset. */
  gpu_clock_map m = gpu_clock_fit(1000, 5000000, 3000, 5004000);
  assert_int_equal(gpu_clock_to_host(&m, 1000), 5000000);
  assert_int_equal(gpu_clock_to_host(&m, 2000), 5002000);
  assert_int_equal(gpu_clock_to_host(&m, 500), 4999000); /* before the first point */
  /* globaltimer: ns on both sides, an offset only. */
  gpu_clock_map g = gpu_clock_fit(UINT64_C(1700000000000000000), 42000, UINT64_C(1700000000005000000), 5042000);
  assert_int_equal(gpu_clock_to_host(&g, UINT64_C(1700000000000001000)), 43000);
  /* A clock that did not move: slope 1. */
  gpu_clock_map z = gpu_clock_fit(10, 100, 10, 200);
  assert_int_equal(gpu_clock_to_host(&z, 15), 105);
}

static void fold_keeps_latest_evict_and_kill_first_rt_start(void **state) {
  (void)state;
  gpu_clock_map m = gpu_clock_fit(0, 0, 1000, 1000); /* identity */
  atoll_npreempt_times t = {.flag_ns = 100};
  const uint64_t be_q[GPU_T_WORDS] = {180, 150, 0};
  const uint64_t be_q2[GPU_T_WORDS] = {170, 160, 0};
  const uint64_t rt_q[GPU_T_WORDS] = {0, 0, 190};
  const uint64_t rt_q2[GPU_T_WORDS] = {0, 0, 185};
  gpu_times_fold(&t, be_q, &m, 90);
  gpu_times_fold(&t, be_q2, &m, 90);
  gpu_times_fold(&t, rt_q, &m, 90);
  gpu_times_fold(&t, rt_q2, &m, 90);
  assert_int_equal(t.flag_ns, 100);
  assert_int_equal(t.drain_ns, 180);
  assert_int_equal(t.kill_ns, 160);
  assert_int_equal(t.rt_start_ns, 185);
}

/* Words written before the record was armed belong to another preemption; zero words were not
 * written. */
static void fold_leaves_out_earlier_and_unwritten_words(void **state) {
  (void)state;
  gpu_clock_map m = gpu_clock_fit(0, 0, 1000, 1000);
  atoll_npreempt_times t = {0};
  const uint64_t old[GPU_T_WORDS] = {80, 85, 89};
  gpu_times_fold(&t, old, &m, 90);
  assert_int_equal(t.drain_ns + t.kill_ns + t.rt_start_ns, 0);
  const uint64_t none[GPU_T_WORDS] = {0, 0, 0};
  gpu_times_fold(&t, none, &m, 0);
  assert_int_equal(t.drain_ns + t.kill_ns + t.rt_start_ns, 0);
}

static void flags_carry_rt_and_the_options(void **state) {
  (void)state;
  atoll_npreempt_tuning off = {0}, on = {.dense_points = 1, .kill_poll_shift = 3}, big = {.kill_poll_shift = 200};
  assert_int_equal(gpu_launch_flags(0, &off), 0);
  uint32_t f = gpu_launch_flags(1, &on);
  assert_true(f & GPU_LF_RT);
  assert_true(f & GPU_LF_DENSE);
  assert_int_equal(gpu_flags_poll_shift(f), 3);
  assert_int_equal(gpu_flags_poll_shift(gpu_launch_flags(0, &big)), 8); /* at most 8 (backend.h) */
}

/* The tile counter: a word left by the slot's previous launch reads as tile 0; each swap gives the
 * next; what another launch's sequence number holds never leaks into this one's. */
static void tiles_are_claimed_in_turn_per_launch(void **state) {
  (void)state;
  uint64_t w = (uint64_t)4 << 32 | 17, next; /* launch 4 took 17 tiles */
  for (uint32_t want = 0; want < 5; want++) {
    assert_int_equal(gpu_tile_claim(w, 5, &next), want);
    w = next;
  }
  assert_int_equal(gpu_tile_claim(w, 6, &next), 0);
  /* Sequence numbers past 32 bits keep their low half. */
  assert_int_equal(gpu_tile_claim((uint64_t)7 << 32 | 3, ((uint64_t)1 << 32) + 7, &next), 3);
}

static void persistent_grid_is_what_fits(void **state) {
  (void)state;
  assert_int_equal(gpu_persistent_grid(10000, 132, 8), 1056);
  assert_int_equal(gpu_persistent_grid(40, 132, 8), 40);
  assert_int_equal(gpu_persistent_grid(0, 132, 8), 1);
  assert_int_equal(gpu_persistent_grid(50, 0, 8), 1);
  atoll_npreempt_tuning p = {.persistent_be = 1};
  assert_true(gpu_launch_flags(0, &p) & GPU_LF_PERSISTENT);
  assert_false(gpu_launch_flags(1, &p) & GPU_LF_PERSISTENT); /* RT kernels keep their grid */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(fit_maps_two_points_and_their_slope),
    cmocka_unit_test(fold_keeps_latest_evict_and_kill_first_rt_start),
    cmocka_unit_test(fold_leaves_out_earlier_and_unwritten_words),
    cmocka_unit_test(flags_carry_rt_and_the_options),
    cmocka_unit_test(tiles_are_claimed_in_turn_per_launch),
    cmocka_unit_test(persistent_grid_is_what_fits),
};
ATOLL_TEST_MAIN(tests)
