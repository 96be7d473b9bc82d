/* Kernel timing on the simulated GPU (sim/kernel_timing.c): a kernel alone takes its profiled time
 * less the launch overhead, the demand fit recovers the sharing slowdown it was generated from,
 * kernels without a per-occupancy list saturate a CU exactly at full occupancy, and copies take
 * their measured time or latency + bytes / bandwidth.
 *
 * Rounding bound for a kernel alone. The block time bt1 is solved from the target run time and
 * rounded to the nearest ns; a block on a CU with demand D runs floor(bt1 x max(1, D)) ns. Each of
 * the kernel's W waves (W = ceil(blocks / (CUs x occupancy))) therefore adds at most 1/2 x S ns from
 * bt1's rounding (S = max(1, occupancy x u), the wave's slowdown) and 1 ns from the floor:
 *     |alone - target| <= W x (S / 2 + 1) ns.
 * For kernels that never share a CU beyond saturation (S = 1) that is 1.5 ns per wave. */
#include <math.h>
#include <string.h>

#include "tests/atoll_test.h"
#include "sim/kernel_timing.h"

/* An MI50 with the preset's figures that kernel timing reads. */
static atoll_gpu mi50(void) {
  atoll_gpu g = {.name = "mi50", .vendor = "amd", .cus = 60, .max_blocks_per_cu = 40, .max_threads_per_cu = 2560,
                 .registers_per_cu = 65536, .shared_bytes_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 2};
  g.costs = (atoll_gpu_costs){.hq_transmit_ns = 9700, .cp_dispatch_ns = 5100, .stream_switch_ns = 30000,
                              .launch_sync_ns = 15100, .copy_latency_ns = 10000, .copy_bytes_per_us = 12000};
  return g;
}

static atoll_op kernel_op(uint32_t blocks, uint32_t occupancy, int64_t time_ns, const int64_t *list, uint32_t n_list) {
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "k"};
  op.shape = (atoll_kernel_shape){.grid = {blocks, 1, 1}, .block = {64, 1, 1}, .occupancy = occupancy,
                                   .time_ns = time_ns, .time_per_occupancy_ns = list, .n_time_per_occupancy = n_list};
  return op;
}

static atoll_kernel_timing prepare(const atoll_gpu *g, const atoll_op *op) {
  atoll_model m = {.name = "m", .ops = op, .n_ops = 1};
  atoll_kernel_timing kt;
  memset(&kt, 0xA5, sizeof kt); /* prepare must set every field */
  atoll_kernel_timing_prepare(g, &m, 0, &kt);
  return kt;
}

static uint32_t ceil_u(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

/* Checks a kernel alone against its target with the bound above; returns the error. */
static int64_t check_alone(const atoll_gpu *g, const atoll_op *op, const char *what) {
  atoll_kernel_timing kt = prepare(g, op);
  const atoll_kernel_shape *s = &op->shape;
  assert_int_equal(kt.is_copy, 0);
  assert_int_equal(kt.blocks, s->grid.x);
  assert_int_equal(kt.block_units, g->registers_per_cu / s->occupancy);
  assert_cmp(kt.bt1_ns, >=, 1);
  int64_t target = s->time_ns - g->costs.launch_sync_ns;
  if (target < ATOLL_MIN_KERNEL_NS)
    target = ATOLL_MIN_KERNEL_NS;
  int64_t alone = atoll_kernel_alone_ns(g, &kt);
  uint32_t waves = ceil_u(kt.blocks, (uint64_t)g->cus * s->occupancy);
  double slow = fmax(1.0, (double)s->occupancy * kt.demand / ATOLL_DEMAND_ONE);
  double bound = waves * (slow / 2 + 1);
  if (fabs((double)(alone - target)) > bound)
    fail_msg("%s: alone %lld ns, target %lld ns (error %lld, bound %.1f: %u waves, slowdown %.3f)", what,
             (long long)alone, (long long)target, (long long)(alone - target), bound, waves, slow);
  return alone - target;
}

/* Shapes without a per-occupancy list: fewer blocks than CUs, exactly one full wave, a partial
 * tail wave, many waves at an occupancy that does not divide 1024, occupancy 1, the largest
 * occupancy. */
static void alone_time_is_profiled_time_less_overhead(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  static const struct {
    uint32_t blocks, occupancy;
    int64_t time_ns;
  } shapes[] = {{40, 4, 100000},  {240, 4, 100000},  {250, 4, 100000},  {1000, 3, 777777}, {121, 1, 55555},
                {2400, 40, 200000}, {5000, 7, 3884000}, {1, 1, 20000}, {61, 1, 30000},  {7, 2, 16200}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    atoll_op op = kernel_op(shapes[i].blocks, shapes[i].occupancy, shapes[i].time_ns, NULL, 0);
    char what[64];
    snprintf(what, sizeof what, "%u blocks, occupancy %u", shapes[i].blocks, shapes[i].occupancy);
    check_alone(&g, &op, what);
  }
  /* One full wave and fewer blocks than CUs run for exactly bt1 (no sharing slowdown): exact. */
  atoll_op full = kernel_op(240, 4, 100000, NULL, 0);
  atoll_kernel_timing kt = prepare(&g, &full);
  assert_int_equal(kt.bt1_ns, 100000 - 15100);
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt), 100000 - 15100);
  /* A partial tail wave: two waves of half the run each. */
  atoll_op tail = kernel_op(250, 4, 100000, NULL, 0);
  kt = prepare(&g, &tail);
  assert_int_equal(kt.bt1_ns, (100000 - 15100) / 2);
}

/* The same with per-occupancy lists (fitted demand, real slowdown): bound W x (S/2 + 1). */
static void alone_time_with_per_occupancy_lists(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  static const uint32_t blocks[] = {1200, 6000, 700, 250};
  static const double us[] = {0.125, 0.25, 0.375, 0.5, 0.7, 1.0};
  for (size_t b = 0; b < 4; b++) {
    for (size_t i = 0; i < 6; i++) {
      int64_t list[10];
      for (uint32_t k = 1; k <= 10; k++)
        list[k - 1] = 15100 + llround(ceil_u(blocks[b], 60 * k) * 100000.0 * fmax(1, k * us[i]));
      atoll_op op = kernel_op(blocks[b], 10, 900000, list, 10);
      char what[64];
      snprintf(what, sizeof what, "%u blocks, u %.3f", blocks[b], us[i]);
      check_alone(&g, &op, what);
    }
  }
  /* The list sets the sharing shape, not the normal-launch time (alexnet's case: a fast padded
   * form): the kernel still takes time_us less the overhead. */
  int64_t fast[4] = {146000, 150000, 160000, 170000};
  atoll_op op = kernel_op(3000, 4, 3884000, fast, 4);
  check_alone(&g, &op, "fast per-occupancy list");
}

/* A kernel whose profiled time is within the launch overhead still runs ATOLL_MIN_KERNEL_NS. */
static void short_kernel_gets_minimum_run_time(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  static const int64_t times[] = {10000, 15100, 16099, 0};
  for (size_t i = 0; i < 4; i++) {
    atoll_op op = kernel_op(16, 4, times[i], NULL, 0);
    atoll_kernel_timing kt = prepare(&g, &op);
    int64_t alone = atoll_kernel_alone_ns(&g, &kt);
    if (alone != ATOLL_MIN_KERNEL_NS)
      fail_msg("time %lld ns: alone %lld ns, expected %d", (long long)times[i], (long long)alone, ATOLL_MIN_KERNEL_NS);
  }
  /* Just above the threshold, the run time follows the profile again. */
  atoll_op op = kernel_op(16, 4, 17100, NULL, 0);
  atoll_kernel_timing kt = prepare(&g, &op);
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt), 2000);
}

/* Synthetic per-occupancy list from the model itself: at k blocks per CU each block runs
 * max(1, k u) times slower, over ceil(B / (C k)) waves, plus the launch overhead. */
static void synth_list(int64_t *list, uint32_t n, uint32_t blocks, uint32_t cus, double u, int64_t bt1_ns,
                       int64_t overhead_ns) {
  for (uint32_t k = 1; k <= n; k++)
    list[k - 1] = overhead_ns + llround(ceil_u(blocks, (uint64_t)cus * k) * (double)bt1_ns * fmax(1.0, k * u));
}

/* The fit recovers u on its grid of 8/1024: exactly for grid values, to the nearest grid point
 * (within 4/1024) otherwise; on two GPUs and two block counts. */
static void fit_demand_recovers_u(void **state) {
  (void)state;
  static const double grid_us[] = {128, 256, 384, 512, 640, 1024};
  static const double off_grid_us[] = {204.8, 307.2, 716.8, 150.3};
  static const struct {
    uint32_t cus, blocks;
    int64_t overhead;
  } cfg[] = {{60, 1200, 15100}, {60, 6000, 15100}, {80, 2400, 0}};
  for (size_t c = 0; c < 3; c++) {
    for (size_t i = 0; i < 6 + 4; i++) {
      bool on_grid = i < 6;
      double u1024 = on_grid ? grid_us[i] : off_grid_us[i - 6];
      int64_t list[10];
      synth_list(list, 10, cfg[c].blocks, cfg[c].cus, u1024 / 1024, 100000, cfg[c].overhead);
      atoll_kernel_shape s = {.grid = {cfg[c].blocks, 1, 1}, .block = {64, 1, 1}, .occupancy = 10,
                              .time_ns = 500000, .time_per_occupancy_ns = list, .n_time_per_occupancy = 10};
      uint32_t fit = atoll_fit_demand(&s, cfg[c].cus, cfg[c].overhead);
      double tol = on_grid ? 0 : 4.0001;
      if (fabs(fit - u1024) > tol)
        fail_msg("%u CUs, %u blocks: u = %.1f/1024 fitted as %u/1024", cfg[c].cus, cfg[c].blocks, u1024, fit);
      assert_int_equal(fit % 8, 0);
    }
  }
}

/* Kernels without a list (or a one-entry list) get u = ceil(1024 / occupancy): full occupancy
 * saturates a CU exactly. So does a kernel whose list cannot show sharing (no CU gets 2 blocks). */
static void demand_without_list_saturates_at_occupancy(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  static const uint32_t occ[] = {1, 2, 3, 4, 7, 10, 40};
  for (size_t i = 0; i < sizeof occ / sizeof *occ; i++) {
    uint32_t want = (1024 + occ[i] - 1) / occ[i];
    atoll_kernel_shape s = {.grid = {600, 1, 1}, .block = {64, 1, 1}, .occupancy = occ[i], .time_ns = 100000};
    assert_int_equal(atoll_fit_demand(&s, 60, 15100), want);
    int64_t one[1] = {90000};
    s.time_per_occupancy_ns = one, s.n_time_per_occupancy = 1;
    assert_int_equal(atoll_fit_demand(&s, 60, 15100), want);
    atoll_op op = kernel_op(600, occ[i], 100000, NULL, 0);
    assert_int_equal(prepare(&g, &op).demand, want);
    assert_cmp(want * occ[i], >=, ATOLL_DEMAND_ONE);
    assert_cmp((want - 1) * occ[i], <, ATOLL_DEMAND_ONE);
  }
  int64_t list[10];
  synth_list(list, 10, 60, 60, 0.5, 100000, 15100);
  atoll_kernel_shape s = {.grid = {60, 1, 1}, .block = {64, 1, 1}, .occupancy = 4, .time_ns = 100000,
                          .time_per_occupancy_ns = list, .n_time_per_occupancy = 10};
  assert_int_equal(atoll_fit_demand(&s, 60, 15100), 256);
}

/* memcpy / memset: the measured copy time when there is one, else latency + bytes / bandwidth
 * (bandwidth in bytes per us, result in whole ns, rounded down). Alone, a copy takes just that. */
static void copies_use_measured_or_derived_time(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  atoll_op measured = {.kind = ATOLL_OP_MEMCPY_H2D, .bytes = 1 << 20, .copy_time_ns = 12345};
  atoll_kernel_timing kt = prepare(&g, &measured);
  assert_int_equal(kt.is_copy, 1);
  assert_int_equal(kt.copy_ns, 12345);
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt), 12345);

  atoll_op d2h = {.kind = ATOLL_OP_MEMCPY_D2H, .bytes = 1200000};
  kt = prepare(&g, &d2h);
  assert_int_equal(kt.is_copy, 1);
  assert_int_equal(kt.copy_ns, 10000 + 100000); /* 1.2 MB at 12000 B/us = 100 us */
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt), 110000);

  atoll_op set = {.kind = ATOLL_OP_MEMSET, .bytes = 1000};
  kt = prepare(&g, &set);
  assert_int_equal(kt.copy_ns, 10000 + 83); /* 1000 B = 83.3 ns */

  atoll_op empty = {.kind = ATOLL_OP_MEMCPY_H2D, .bytes = 0};
  kt = prepare(&g, &empty);
  assert_int_equal(kt.copy_ns, 10000);

  g.costs.copy_bytes_per_us = 1000;
  g.costs.copy_latency_ns = 0;
  kt = prepare(&g, &d2h);
  assert_int_equal(kt.copy_ns, 1200000);
}

/* A kernel alone scales with its profiled time: doubling the run time doubles bt1 and the alone
 * time (within rounding), and the CU count changes the waves. */
static void timing_follows_gpu_size(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  atoll_op op = kernel_op(480, 4, 215100, NULL, 0); /* 480 blocks: 2 waves on 60 CUs at occupancy 4 */
  atoll_kernel_timing kt60 = prepare(&g, &op);
  assert_int_equal(kt60.bt1_ns, 100000);
  g.cus = 120; /* one wave on 120 CUs */
  atoll_kernel_timing kt120 = prepare(&g, &op);
  assert_int_equal(kt120.bt1_ns, 200000);
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt120), 200000);
  /* The timing prepared for 60 CUs, played on 120, finishes in one wave: half the time. */
  assert_int_equal(atoll_kernel_alone_ns(&g, &kt60), 100000);
}

/* Blocks inside a padded launch run REEF's persistent-block form: k to a CU, each round taking the
 * per-occupancy list's time for k (less the launch overhead, over the rounds the grid needs), the
 * time the kernel selection's Rule 1 assumed, and k of them fill a CU without further slowdown. */
static void padded_blocks_run_the_listed_round_time(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  int64_t lat[4] = {100000, 150000, 230000, 330000};
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "k"};
  op.shape = (atoll_kernel_shape){.grid = {150, 1, 1}, .block = {256, 1, 1}, .occupancy = 4, .time_ns = 400000,
                                  .time_per_occupancy_ns = lat, .n_time_per_occupancy = 4};
  int64_t over = g.costs.launch_sync_ns;
  static const int64_t rounds[4] = {3, 2, 1, 1}; /* 150 blocks, 60 x k a round */
  for (uint32_t k = 1; k <= 4; k++) {
    atoll_kernel_timing t;
    atoll_kernel_timing_prepare_shape(&g, &op.shape, &t);
    atoll_kernel_timing_padded(&g, &op, 0, k, &t);
    assert_int_equal(t.bt1_ns, (lat[k - 1] - over) / rounds[k - 1]);
    assert_int_equal(t.block_units, g.registers_per_cu / k);
    assert_cmp(t.demand * k, <=, ATOLL_DEMAND_ONE);
    assert_int_equal(t.blocks, 150); /* the block count is the command's, untouched */
  }
  /* A version is timed from its own list. */
  int64_t vlat[8] = {20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000};
  atoll_kernel_shape v = op.shape;
  v.occupancy = 8, v.time_per_occupancy_ns = vlat, v.n_time_per_occupancy = 8;
  op.versions = &v, op.n_versions = 1;
  atoll_kernel_timing t;
  atoll_kernel_timing_padded(&g, &op, 1, 2, &t);
  assert_int_equal(t.bt1_ns, (20000 - over) / 2);
}

/* Batch model: without a table a batch runs b times the grid, each block as at batch 1, so a
 * kernel of one wave at batch 1 stays one wave (60 CUs x 4 blocks) until its grid outgrows it, and
 * a copy pays its fixed cost once. With a table the grid stays and the block time follows the
 * measured times, interpolated and extrapolated linearly. */
static void batches_scale_the_grid_or_follow_the_table(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  atoll_op op = kernel_op(60, 4, 115100, NULL, 0); /* 100 us of run time, 60 blocks */
  atoll_kernel_timing one = prepare(&g, &op), b4 = one, b8 = one;
  atoll_kernel_timing_batch(&g, &op, 4, &b4);
  atoll_kernel_timing_batch(&g, &op, 8, &b8);
  assert_int_equal(b4.blocks, 240);
  assert_int_equal(b4.bt1_ns, one.bt1_ns);
  int64_t t1 = atoll_kernel_alone_ns(&g, &one), t4 = atoll_kernel_alone_ns(&g, &b4), t8 = atoll_kernel_alone_ns(&g, &b8);
  assert_true(t4 >= t1 && t4 < 2 * t1); /* the CUs held room for 4 blocks each */
  assert_true(t8 > t4);
  atoll_kernel_timing same = one;
  atoll_kernel_timing_batch(&g, &op, 1, &same);
  assert_memory_equal(&same, &one, sizeof one);

  static const atoll_batch_time table[] = {{4, 215100}, {8, 415100}};
  op.batch_times = table, op.n_batch_times = 2;
  assert_int_equal(atoll_batch_table_ns(&op, 1), 115100);
  assert_int_equal(atoll_batch_table_ns(&op, 2), 115100 + 100000 / 3);
  assert_int_equal(atoll_batch_table_ns(&op, 6), 315100);
  assert_int_equal(atoll_batch_table_ns(&op, 16), 815100);
  atoll_kernel_timing m4 = one;
  atoll_kernel_timing_batch(&g, &op, 4, &m4);
  assert_int_equal(m4.blocks, one.blocks);
  assert_true(llabs(atoll_kernel_alone_ns(&g, &m4) - 200000) <= 4); /* 215.1 us less the overhead */

  atoll_kernel_timing copy = {.is_copy = 1, .copy_ns = 30000};
  atoll_kernel_timing_batch(&g, &op, 3, &copy);
  assert_int_equal(copy.copy_ns, 10000 + 3 * 20000);
}

/* A wave's time is bt1 stretched by the demand it meets, at least one CU's worth; past 64 bits (a
 * block of a year under 8 blocks' demand) it is exact in 128 and capped, where it wrapped to a
 * negative time that the engines ran as 1 ns. */
static void stretch_is_exact_past_64_bits(void **state) {
  (void)state;
  assert_int_equal(atoll_stretch_ns(1000, 0), 1000);
  assert_int_equal(atoll_stretch_ns(1000, ATOLL_DEMAND_ONE / 2), 1000);
  assert_int_equal(atoll_stretch_ns(1000, 3 * ATOLL_DEMAND_ONE), 3000);
  const int64_t year = INT64_C(31536000000000000);
  assert_int_equal(atoll_stretch_ns(year, 8 * ATOLL_DEMAND_ONE), 8 * year);
  assert_int_equal(atoll_stretch_ns(year, UINT64_C(1) << 40), ATOLL_MAX_WAVE_NS);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(padded_blocks_run_the_listed_round_time),
    cmocka_unit_test(alone_time_is_profiled_time_less_overhead),
    cmocka_unit_test(alone_time_with_per_occupancy_lists),
    cmocka_unit_test(short_kernel_gets_minimum_run_time),
    cmocka_unit_test(stretch_is_exact_past_64_bits),
    cmocka_unit_test(fit_demand_recovers_u),
    cmocka_unit_test(demand_without_list_saturates_at_occupancy),
    cmocka_unit_test(copies_use_measured_or_derived_time),
    cmocka_unit_test(timing_follows_gpu_size),
    cmocka_unit_test(batches_scale_the_grid_or_follow_the_table),
};
ATOLL_TEST_MAIN(tests)
