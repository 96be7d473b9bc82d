/* Kernel selection and pruning for dynamic kernel padding (core/dkp.c): the chosen blocks never
 * exceed the free CUs, never break Rule 1 or Rule 2, and pruning keeps exactly the non-dominated
 * versions (checked against a brute-force reference on random version sets). */
#include <string.h>

#include "atoll_test.h"
#include "dkp.h"

static atoll_gpu gpu(void) {
  atoll_gpu g = {.name = "g", .vendor = "amd", .cus = 60, .max_blocks_per_cu = 40, .max_threads_per_cu = 2560,
                 .registers_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 1};
  g.costs.launch_sync_ns = 10000;
  g.costs.copy_bytes_per_us = 1;
  return g;
}

static atoll_kernel_shape shape(uint32_t blocks, uint32_t occ, int64_t time_us, int64_t block_us) {
  return (atoll_kernel_shape){.grid = {blocks, 1, 1}, .block = {256, 1, 1}, .occupancy = occ,
                              .time_ns = time_us * 1000, .block_time_ns = block_us * 1000};
}

static atoll_op kernel_op(atoll_kernel_shape s) { return (atoll_op){.kind = ATOLL_OP_KERNEL, .name = "k", .shape = s}; }

static void rt_reserves_the_cus_it_spreads_over(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  atoll_kernel_shape small = shape(16, 8, 100, 50), big = shape(480, 8, 100, 50);
  assert_int_equal(atoll_dkp_rt_cus(&g, &small), 16);
  assert_int_equal(atoll_dkp_rt_cus(&g, &big), 60);
}

static void rules_one_and_two_filter_candidates(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  atoll_kernel_shape rt = shape(16, 8, 110, 100); /* runs 100 us after the 10 us launch overhead */
  atoll_op ok = kernel_op(shape(400, 8, 500, 40));        /* block 40 us < 100, occupancy 8 >= 8 */
  atoll_op slow = kernel_op(shape(400, 8, 500, 120));     /* Rule 1: 120 us blocks outlast the RT kernel */
  atoll_op low_occ = kernel_op(shape(400, 4, 500, 40));   /* Rule 2: occupancy 4 < 8 */
  atoll_dkp_candidate c[3] = {{&slow, ATOLL_DKP_ALL, -1}, {&low_occ, ATOLL_DKP_ALL, -1},
                              {&ok, ATOLL_DKP_ALL, -1}};
  atoll_dkp_choice out[3];
  uint32_t rt_cus;
  uint32_t n = atoll_dkp_select(&g, &rt, c, 3, 0, out, 3, &rt_cus);
  assert_int_equal(rt_cus, 16);
  assert_int_equal(n, 1);
  assert_int_equal(out[0].candidate, 2);
  /* 44 free CUs x occupancy 8 x floor(100 / 40) = 2 waves = 704 block slots; 400 blocks fit. */
  assert_int_equal(out[0].blocks, 400);
  assert_int_equal(out[0].occupancy, 8);
  assert_int_equal(out[0].cus, 25); /* ceil(400 / (8 x 2)) */
}

static void choices_never_exceed_free_cus(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  uint64_t x = 12345;
  for (int trial = 0; trial < 2000; trial++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    atoll_kernel_shape rt = shape(1 + (uint32_t)(x >> 33) % 80, 1 + (uint32_t)(x >> 20) % 16, 20 + (x >> 40) % 400, 5);
    atoll_op ops[6];
    atoll_dkp_candidate c[6];
    for (int i = 0; i < 6; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      ops[i] = kernel_op(shape(1 + (uint32_t)(x >> 33) % 3000, 1 + (uint32_t)(x >> 45) % 32, 50 + (x >> 20) % 2000,
                               1 + (x >> 50) % 300));
      c[i] = (atoll_dkp_candidate){&ops[i], (x & 1) ? ATOLL_DKP_ALL : (uint32_t)(x >> 24) % 500, -1};
    }
    atoll_dkp_choice out[6];
    uint32_t rt_cus, n = atoll_dkp_select(&g, &rt, c, 6, (uint32_t)trial, out, 6, &rt_cus);
    uint32_t used = rt_cus;
    for (uint32_t k = 0; k < n; k++) {
      const atoll_kernel_shape *be = atoll_dkp_shape(c[out[k].candidate].op, out[k].version);
      used += out[k].cus;
      assert_true(out[k].blocks > 0);
      assert_true(be->occupancy >= rt.occupancy);                        /* Rule 2 */
      assert_true(be->block_time_ns < rt.time_ns - g.costs.launch_sync_ns); /* Rule 1 (no list: block time) */
      if (c[out[k].candidate].blocks_left != ATOLL_DKP_ALL)
        assert_true(out[k].blocks <= c[out[k].candidate].blocks_left);
    }
    if (used > g.cus)
      fail_msg("trial %d: %u CUs used of %u", trial, used, g.cus);
  }
}

static void multi_version_picks_shortest_kernel_meeting_rules(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  atoll_kernel_shape rt = shape(8, 8, 110, 50);
  atoll_kernel_shape versions[3] = {shape(200, 8, 300, 30), shape(100, 16, 200, 20), shape(100, 4, 100, 10)};
  atoll_op op = kernel_op(shape(400, 8, 400, 150)); /* its own shape breaks Rule 1 */
  op.versions = versions;
  op.n_versions = 3;
  atoll_dkp_candidate c = {&op, ATOLL_DKP_ALL, -1};
  atoll_dkp_choice out[1];
  uint32_t rt_cus, n = atoll_dkp_select(&g, &rt, &c, 1, 0, out, 1, &rt_cus);
  assert_int_equal(n, 1);
  /* versions[2] is fastest but breaks Rule 2; versions[1] (200 us) beats versions[0] (300 us). */
  assert_int_equal(out[0].version, 2);
  /* A version locked by a partly run op stays. */
  c.version = 1;
  n = atoll_dkp_select(&g, &rt, &c, 1, 0, out, 1, &rt_cus);
  assert_int_equal(n, 1);
  assert_int_equal(out[0].version, 1);
}

static void pruning_keeps_exactly_the_non_dominated(void **state) {
  (void)state;
  uint64_t x = 99;
  for (int trial = 0; trial < 500; trial++) {
    atoll_kernel_shape v[12];
    const atoll_kernel_shape *pv[12];
    uint32_t n = 1 + trial % 12;
    for (uint32_t i = 0; i < n; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      v[i] = shape(1 + (x >> 60), 1, 1 + (x >> 56) % 4, 1 + (x >> 52) % 4);
      v[i].registers = (uint32_t)(x >> 48) % 3;
      v[i].shared_bytes = (uint32_t)(x >> 44) % 3;
      v[i].block.x = 32u << ((x >> 40) % 3);
      pv[i] = &v[i];
    }
    uint8_t keep[12];
    uint32_t kept = atoll_dkp_prune(pv, n, keep);
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
      /* Reference: dominated iff some other version is <= in all six and < in one. */
      bool dominated = false;
      for (uint32_t j = 0; j < n; j++) {
        if (j == i)
          continue;
        const atoll_kernel_shape *a = &v[j], *b = &v[i];
        int64_t fa[6] = {a->time_ns, a->block_time_ns, a->registers, a->shared_bytes, a->block.x, a->grid.x};
        int64_t fb[6] = {b->time_ns, b->block_time_ns, b->registers, b->shared_bytes, b->block.x, b->grid.x};
        bool le = true, lt = false;
        for (int f = 0; f < 6; f++)
          le = le && fa[f] <= fb[f], lt = lt || fa[f] < fb[f];
        dominated = dominated || (le && lt);
      }
      assert_int_equal(keep[i], !dominated);
      count += keep[i];
    }
    assert_int_equal(kept, count);
    assert_true(kept >= 1); /* a finite set always has a non-dominated member */
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rt_reserves_the_cus_it_spreads_over),
    cmocka_unit_test(rules_one_and_two_filter_candidates),
    cmocka_unit_test(choices_never_exceed_free_cus),
    cmocka_unit_test(multi_version_picks_shortest_kernel_meeting_rules),
    cmocka_unit_test(pruning_keeps_exactly_the_non_dominated),
};
ATOLL_TEST_MAIN(tests)
