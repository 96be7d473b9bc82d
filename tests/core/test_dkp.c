/* Kernel selection and pruning for dynamic kernel padding (core/dkp.c): the chosen blocks never
 * exceed the free CUs, never break Rule 1 or Rule 2 (the BE kernel's occupancy against the blocks
 * per CU the RT kernel runs at), fit inside the RT kernel's time at the BE
 * occupancy chosen (the most that meets Rule 1), the version chosen is the shortest meeting both
 * rules, and pruning keeps exactly the non-dominated versions (the last three checked against
 * brute-force references on random inputs). */
#include <string.h>

#include "tests/atoll_test.h"
#include "core/dkp.h"

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

/* The RT kernel keeps as many CUs as it needs to take its blocks in as many rounds as on the whole
 * GPU: ceil(B / ceil(B / 60)) (REEF's CU partition). */
static void rt_reserves_the_cus_it_spreads_over(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  static const uint32_t blocks[] = {1, 16, 60, 61, 64, 100, 128, 480, 481};
  static const uint32_t want[] = {1, 16, 60, 31, 32, 50, 43, 60, 54};
  for (uint32_t i = 0; i < sizeof blocks / sizeof *blocks; i++) {
    atoll_kernel_shape s = shape(blocks[i], 8, 100, 50);
    uint32_t got = atoll_dkp_rt_cus(&g, &s);
    if (got != want[i])
      fail_msg("%u blocks: %u CUs reserved, want %u", blocks[i], got, want[i]);
    /* Same rounds as on all CUs, and one CU fewer would need another round. */
    assert_int_equal((blocks[i] + got - 1) / got, (blocks[i] + 59) / 60);
    if (got > 1)
      assert_cmp((blocks[i] + got - 2) / (got - 1), >, (blocks[i] + 59) / 60);
  }
}

/* A BE kernel's padded round at k blocks per CU is its per-occupancy entry k (a whole persistent-
 * block run on every CU, less the launch overhead) over the rounds its grid needs there. */
static void block_time_comes_from_the_per_occupancy_list(void **state) {
  (void)state;
  atoll_gpu g = gpu(); /* 60 CUs, 10 us launch overhead */
  int64_t lat[4] = {40000, 50000, 70000, 90000};
  atoll_kernel_shape be = shape(300, 4, 100, 33);
  be.time_per_occupancy_ns = lat;
  be.n_time_per_occupancy = 4;
  assert_int_equal(atoll_dkp_block_ns(&g, &be, 1), 30000 / 5); /* 300 blocks, 60 a round: 5 rounds */
  assert_int_equal(atoll_dkp_block_ns(&g, &be, 2), 40000 / 3); /* 120 a round: 3 */
  assert_int_equal(atoll_dkp_block_ns(&g, &be, 4), 80000 / 2); /* 240 a round: 2 */
  /* Beyond the list, and without one: the profile's block time. */
  assert_int_equal(atoll_dkp_block_ns(&g, &be, 5), 33000);
  be.n_time_per_occupancy = 0;
  assert_int_equal(atoll_dkp_block_ns(&g, &be, 2), 33000);
}

/* Rule 2 compares the kernels' own occupancies; the BE part then runs the most blocks per CU (up
 * to the RT's occupancy) whose round still meets Rule 1, as REEF's scheduler does. */
static void be_occupancy_is_the_most_that_meets_rule_1(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  atoll_kernel_shape rt = shape(20, 4, 110, 100); /* runs 100 us */
  /* 40 blocks, one round at any k: rounds of 60, 90, 120, 150 us at k = 1..4 (after the 10 us). */
  int64_t lat[8] = {70000, 100000, 130000, 160000, 190000, 220000, 250000, 280000};
  atoll_op be = kernel_op(shape(40, 8, 70, 60));
  be.shape.time_per_occupancy_ns = lat;
  be.shape.n_time_per_occupancy = 8;
  atoll_dkp_candidate c = {&be, ATOLL_DKP_ALL, -1};
  atoll_dkp_choice out[1];
  uint32_t rt_cus, n = atoll_dkp_select(&g, &rt, &c, 1, 0, out, 1, &rt_cus);
  assert_int_equal(n, 1);
  assert_int_equal(rt_cus, 20);
  assert_int_equal(out[0].occupancy, 2); /* 90 us < 100; 120 us at 3 would outlast the RT kernel */
  assert_int_equal(out[0].blocks, 40);
  assert_int_equal(out[0].cus, 20); /* one 90 us round of 2 blocks per CU */
  /* Rule 2 compares with the blocks per CU the RT kernel runs at: 130 blocks take 3 rounds. A BE
   * kernel of occupancy 2 fails it, however short its blocks; one of 3 passes, and runs at most 3
   * per CU (here 2: a round of 3 takes 120 us). */
  atoll_kernel_shape rt3 = shape(130, 4, 110, 100);
  assert_int_equal(atoll_dkp_rt_occupancy(&g, &rt3), 3);
  be.shape.occupancy = be.shape.n_time_per_occupancy = 2;
  assert_int_equal(atoll_dkp_select(&g, &rt3, &c, 1, 0, out, 1, &rt_cus), 0);
  be.shape.occupancy = be.shape.n_time_per_occupancy = 3;
  assert_int_equal(atoll_dkp_select(&g, &rt3, &c, 1, 0, out, 1, &rt_cus), 1);
  assert_int_equal(out[0].occupancy, 2);
}

static void rules_one_and_two_filter_candidates(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  /* 421 blocks need 8 rounds at one block per CU: the RT kernel runs 8 blocks per CU on 53 CUs,
   * and runs 100 us after the 10 us launch overhead. */
  atoll_kernel_shape rt = shape(421, 8, 110, 100);
  assert_int_equal(atoll_dkp_rt_occupancy(&g, &rt), 8);
  atoll_op ok = kernel_op(shape(400, 8, 500, 40));        /* block 40 us < 100, occupancy 8 >= 8 */
  atoll_op slow = kernel_op(shape(400, 8, 500, 120));     /* Rule 1: 120 us blocks outlast the RT kernel */
  atoll_op low_occ = kernel_op(shape(400, 4, 500, 40));   /* Rule 2: occupancy 4 < 8 */
  atoll_dkp_candidate c[3] = {{&slow, ATOLL_DKP_ALL, -1}, {&low_occ, ATOLL_DKP_ALL, -1},
                              {&ok, ATOLL_DKP_ALL, -1}};
  atoll_dkp_choice out[3];
  uint32_t rt_cus;
  uint32_t n = atoll_dkp_select(&g, &rt, c, 3, 0, out, 3, &rt_cus);
  assert_int_equal(rt_cus, 53);
  assert_int_equal(n, 1);
  assert_int_equal(out[0].candidate, 2);
  /* 7 free CUs x 8 blocks per CU x floor(100 / 40) = 2 rounds = 112 block slots. */
  assert_int_equal(out[0].blocks, 112);
  assert_int_equal(out[0].occupancy, 8);
  assert_int_equal(out[0].cus, 7);
  /* A 16-block RT kernel runs one block per CU: occupancy 4 passes Rule 2 and runs 4 per CU. */
  atoll_kernel_shape small = shape(16, 8, 110, 100);
  assert_int_equal(atoll_dkp_rt_occupancy(&g, &small), 1);
  n = atoll_dkp_select(&g, &small, c, 3, 1, out, 3, &rt_cus);
  assert_int_equal(rt_cus, 16);
  assert_int_equal(n, 1); /* visited first, it takes every free CU */
  assert_int_equal(out[0].candidate, 1);
  assert_int_equal(out[0].occupancy, 4);
  assert_int_equal(out[0].blocks, 352); /* 44 CUs x 4 blocks per CU x 2 rounds */
  assert_int_equal(out[0].cus, 44);
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
      assert_cmp(out[k].blocks, >, 0);
      assert_cmp(be->occupancy, >=, atoll_dkp_rt_occupancy(&g, &rt));   /* Rule 2 */
      assert_cmp(out[k].occupancy, <=, rt.occupancy);
      assert_cmp(out[k].occupancy, <=, be->occupancy);
      assert_cmp(be->block_time_ns, <, rt.time_ns - g.costs.launch_sync_ns); /* Rule 1 (no list: block time) */
      if (c[out[k].candidate].blocks_left != ATOLL_DKP_ALL)
        assert_cmp(out[k].blocks, <=, c[out[k].candidate].blocks_left);
    }
    if (used > g.cus)
      fail_msg("trial %d: %u CUs used of %u", trial, used, g.cus);
  }
}

static void multi_version_picks_shortest_kernel_meeting_rules(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  atoll_kernel_shape rt = shape(421, 8, 110, 50); /* runs 8 blocks per CU: Rule 2 needs occupancy 8 */
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

static uint64_t lcg(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 16;
}

/* A random kernel shape with a per-occupancy list (times grow with k, as sharing makes them). */
static atoll_kernel_shape random_shape(uint64_t *x, int64_t *lat) {
  uint32_t occ = 1 + (uint32_t)(lcg(x) % 16);
  atoll_kernel_shape s = shape(1 + (uint32_t)(lcg(x) % 2000), occ, 11 + (int64_t)(lcg(x) % 400), 1 + (int64_t)(lcg(x) % 200));
  int64_t t = 11000 + (int64_t)(lcg(x) % 300000);
  for (uint32_t k = 0; k < occ; k++) {
    lat[k] = t;
    t += (int64_t)(lcg(x) % 60000);
  }
  s.time_per_occupancy_ns = lat;
  s.n_time_per_occupancy = (lcg(x) % 4) ? occ : 0; /* some without a list */
  return s;
}

/* Random RT kernels and BE candidates with per-occupancy lists and up to three versions: every
 * choice meets Rule 2 and Rule 1 at the BE occupancy it runs, which is the highest that does, its
 * blocks fit in the RT kernel's time on its CUs, the CUs add up to at most the GPU's, a partly run
 * op keeps its version and remaining blocks, and the version is the shortest meeting both rules. */
static void random_choices_meet_both_rules_and_fit(void **state) {
  (void)state;
  atoll_gpu g = gpu();
  uint64_t x = 4242;
  for (int trial = 0; trial < 3000; trial++) {
    int64_t rt_lat[16];
    atoll_kernel_shape rt = random_shape(&x, rt_lat);
    int64_t rt_run = rt.time_ns - g.costs.launch_sync_ns > 1000 ? rt.time_ns - g.costs.launch_sync_ns : 1000;
    enum { NC = 5, NV = 3 };
    atoll_op ops[NC];
    atoll_kernel_shape vers[NC][NV];
    int64_t lats[NC][NV + 1][16];
    atoll_dkp_candidate c[NC];
    for (int i = 0; i < NC; i++) {
      ops[i] = kernel_op(random_shape(&x, lats[i][0]));
      ops[i].n_versions = (uint32_t)(lcg(&x) % (NV + 1));
      for (uint32_t v = 0; v < ops[i].n_versions; v++)
        vers[i][v] = random_shape(&x, lats[i][v + 1]);
      ops[i].versions = vers[i];
      uint32_t r = (uint32_t)(lcg(&x) % 4);
      int32_t lock = r == 0 ? (int32_t)(lcg(&x) % (ops[i].n_versions + 1)) : -1;
      c[i] = (atoll_dkp_candidate){&ops[i], lock >= 0 ? 1 + (uint32_t)(lcg(&x) % 700) : ATOLL_DKP_ALL, lock};
    }
    atoll_dkp_choice out[NC];
    uint32_t rt_cus, n = atoll_dkp_select(&g, &rt, c, NC, (uint32_t)trial, out, NC, &rt_cus);
    uint32_t used = rt_cus;
    for (uint32_t k = 0; k < n; k++) {
      const atoll_dkp_candidate *cd = &c[out[k].candidate];
      const atoll_kernel_shape *be = atoll_dkp_shape(cd->op, out[k].version);
      uint32_t occ = out[k].occupancy;
      int64_t round = atoll_dkp_block_ns(&g, be, occ);
      used += out[k].cus;
      assert_cmp(out[k].blocks, >, 0);
      assert_cmp(out[k].cus, >, 0);
      assert_cmp(be->occupancy, >=, atoll_dkp_rt_occupancy(&g, &rt));   /* Rule 2 */
      assert_cmp(occ, >=, 1);
      assert_cmp(occ, <=, rt.occupancy);
      assert_cmp(occ, <=, be->occupancy); /* within the launch's occupancy */
      if (be->n_time_per_occupancy)
        assert_cmp(occ, <=, be->n_time_per_occupancy);
      if (round >= rt_run)                                             /* Rule 1 */
        fail_msg("trial %d: BE round %lld ns at %u per CU, RT kernel %lld ns", trial, (long long)round, occ,
                 (long long)rt_run);
      for (uint32_t k2 = occ + 1; k2 <= rt.occupancy && k2 <= be->occupancy &&
                                  (!be->n_time_per_occupancy || k2 <= be->n_time_per_occupancy); k2++)
        assert_cmp(atoll_dkp_block_ns(&g, be, k2), >=, rt_run);        /* the most blocks per CU that fit */
      /* Its rounds on its CUs end within the RT kernel. */
      uint64_t per_round = (uint64_t)out[k].cus * occ;
      assert_cmp((int64_t)((out[k].blocks + per_round - 1) / per_round) * round, <=, rt_run);
      if (cd->version >= 0) {
        assert_int_equal(out[k].version, (uint32_t)cd->version);
        assert_cmp(out[k].blocks, <=, cd->blocks_left);
      } else {
        assert_cmp(out[k].blocks, <=, atoll_dim3_count(be->grid));
        /* Reference: no other version meets both rules with a shorter kernel time. */
        for (uint32_t v = 0; v <= cd->op->n_versions; v++) {
          const atoll_kernel_shape *o = atoll_dkp_shape(cd->op, v);
          if (o->occupancy < atoll_dkp_rt_occupancy(&g, &rt) || o->time_ns >= be->time_ns)
            continue;
          for (uint32_t k2 = 1; k2 <= rt.occupancy && k2 <= o->occupancy &&
                                (!o->n_time_per_occupancy || k2 <= o->n_time_per_occupancy); k2++)
            if (atoll_dkp_block_ns(&g, o, k2) < rt_run)
              fail_msg("trial %d: version %u (%lld ns) chosen over version %u (%lld ns) that meets both rules", trial,
                       out[k].version, (long long)be->time_ns, v, (long long)o->time_ns);
        }
      }
    }
    if (used > g.cus)
      fail_msg("trial %d: %u CUs used of %u", trial, used, g.cus);
  }
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
    assert_cmp(kept, >=, 1); /* a finite set always has a non-dominated member */
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rt_reserves_the_cus_it_spreads_over),
    cmocka_unit_test(block_time_comes_from_the_per_occupancy_list),
    cmocka_unit_test(be_occupancy_is_the_most_that_meets_rule_1),
    cmocka_unit_test(random_choices_meet_both_rules_and_fit),
    cmocka_unit_test(rules_one_and_two_filter_candidates),
    cmocka_unit_test(choices_never_exceed_free_cus),
    cmocka_unit_test(multi_version_picks_shortest_kernel_meeting_rules),
    cmocka_unit_test(pruning_keeps_exactly_the_non_dominated),
};
ATOLL_TEST_MAIN(tests)
