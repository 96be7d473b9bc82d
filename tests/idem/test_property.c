/* Property test: on random small traces the sweep and REEF's backward growth give, op by op, the
 * entry the definition gives byte by byte (idem_test.h, brute_entries). The traces mix kernels,
 * memcpys and memsets, overlapping and touching ranges, reads and writes in any order within an op,
 * ops with no access and ops with many (past the sorted fast path), in a small byte universe placed
 * at address 0, in the middle and at the top of the 64-bit space.
 *
 * IDEM_PROPERTY_TRACES and IDEM_PROPERTY_SEED override the count (default 20,000) and the seed. */
#include "tests/idem/idem_test.h"

static uint32_t env_u32(const char *name, uint32_t dflt) {
  const char *v = getenv(name);
  return v && *v ? (uint32_t)strtoul(v, NULL, 0) : dflt;
}

static void random_trace(uint64_t *rng, idem_trace *t, uint64_t *base, uint32_t *space) {
  static const uint32_t spaces[] = {8, 16, 64};
  *space = spaces[rng_below(rng, 3)];
  uint32_t where = rng_below(rng, 3);
  *base = where == 0 ? 0 : where == 1 ? 0x7f0000000000ULL : UINT64_MAX - *space;
  idem_trace_init(t);
  uint32_t n_ops = 1 + rng_below(rng, 12);
  for (uint32_t i = 0; i < n_ops; i++) {
    uint32_t k = rng_below(rng, 10);
    idem_op_kind kind = k < 7 ? IDEM_OP_KERNEL : k < 9 ? IDEM_OP_MEMSET : IDEM_OP_MEMCPY;
    char name[16];
    int len = snprintf(name, sizeof name, "op%u", i);
    assert_rc(idem_trace_add_op(t, kind, name, (size_t)len, 0), ATOLL_OK);
    uint32_t n_acc = rng_below(rng, 50) == 0 ? 33 + rng_below(rng, 8) : rng_below(rng, 6);
    for (uint32_t a = 0; a < n_acc; a++) {
      uint32_t lo = rng_below(rng, *space);
      uint32_t hi = lo + 1 + rng_below(rng, *space - lo < 12 ? *space - lo : 12);
      /* Copies and memsets mostly write; kernels read about as often as they write. */
      bool write = kind == IDEM_OP_KERNEL ? rng_below(rng, 2) == 0 : rng_below(rng, 4) != 0;
      assert_rc(idem_trace_add_access(t, write, *base + lo, *base + hi), ATOLL_OK);
    }
  }
}

static void random_traces_match_the_per_byte_definition(void **state) {
  (void)state;
  uint32_t n_traces = env_u32("IDEM_PROPERTY_TRACES", 20000);
  uint64_t rng = env_u32("IDEM_PROPERTY_SEED", 20240601) | 1;
  uint32_t ops = 0, restorable_groups = 0, not_restorable = 0;
  for (uint32_t k = 0; k < n_traces; k++) {
    idem_trace t;
    uint64_t base;
    uint32_t space;
    random_trace(&rng, &t, &base, &space);
    uint32_t want[12], sweep[12], grow[12];
    brute_entries(&t, base, space, want);
    assert_rc(idem_search(&t, sweep), ATOLL_OK);
    assert_rc(idem_search_grow(&t, grow), ATOLL_OK);
    for (uint32_t i = 0; i < t.n_ops; i++) {
      if (sweep[i] != want[i] || grow[i] != want[i]) {
        fprintf(stderr, "trace %u (base 0x%llx):\n", k, (unsigned long long)base);
        print_trace(stderr, &t);
        check_entries(sweep, want, t.n_ops, "sweep");
        check_entries(grow, want, t.n_ops, "grow");
      }
      ops++;
      restorable_groups += want[i] != NONE && want[i] != i;
      not_restorable += want[i] == NONE;
    }
    idem_trace_free(&t);
  }
  /* Make sure the generator exercises every outcome, not just the easy one. */
  assert_cmp(restorable_groups, >, n_traces / 20);
  assert_cmp(not_restorable, >, n_traces / 20);
  printf("property: %u random traces, %u ops (%u restored by a longer group, %u not restorable): sweep, "
         "growth and the per-byte definition agree on every op\n",
         n_traces, ops, restorable_groups, not_restorable);
}

static void sweep_streams_like_the_whole_trace(void **state) {
  (void)state;
  /* idem_sweep_op one op at a time, with the dependency observer on, gives what idem_search gives. */
  uint64_t rng = 7;
  for (int k = 0; k < 2000; k++) {
    idem_trace t;
    uint64_t base;
    uint32_t space;
    random_trace(&rng, &t, &base, &space);
    uint32_t whole[12], one;
    assert_rc(idem_search(&t, whole), ATOLL_OK);
    idem_sweep s;
    assert_rc(idem_sweep_init(&s), ATOLL_OK);
    for (uint32_t i = 0; i < t.n_ops; i++) {
      assert_rc(idem_sweep_op(&s, &t.acc[t.ops[i].first], t.ops[i].n_acc, &one), ATOLL_OK);
      assert_u64(one, whole[i]);
    }
    idem_sweep_free(&s);
    idem_trace_free(&t);
  }
}

static void large_random_traces_sweep_matches_growth(void **state) {
  (void)state;
  /* Thousands of ops over a megabyte, ranges up to 4 KiB: the maps hold many blocks of pieces and
   * groups get long. The per-byte definition is too slow here; REEF's growth is the reference. */
  uint64_t rng = 4242;
  for (int k = 0; k < 6; k++) {
    idem_trace t;
    idem_trace_init(&t);
    uint32_t n_ops = 3000;
    for (uint32_t i = 0; i < n_ops; i++) {
      assert_rc(idem_trace_add_op(&t, rng_below(&rng, 8) ? IDEM_OP_KERNEL : IDEM_OP_MEMSET, "k", 1, 0), ATOLL_OK);
      uint32_t n_acc = 1 + rng_below(&rng, 8);
      for (uint32_t a = 0; a < n_acc; a++) {
        uint64_t lo = 0x7f0000000000ULL + rng_below(&rng, 1u << 20);
        uint64_t len = 1 + rng_below(&rng, rng_below(&rng, 4) ? 64 : 4096);
        assert_rc(idem_trace_add_access(&t, rng_below(&rng, 3) == 0, lo, lo + len), ATOLL_OK);
      }
    }
    uint32_t *sweep = malloc(n_ops * sizeof *sweep), *grow = malloc(n_ops * sizeof *grow);
    assert_true(sweep && grow);
    assert_rc(idem_search(&t, sweep), ATOLL_OK);
    assert_rc(idem_search_grow(&t, grow), ATOLL_OK);
    check_entries(sweep, grow, n_ops, "sweep vs growth");
    free(sweep);
    free(grow);
    idem_trace_free(&t);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(random_traces_match_the_per_byte_definition),
    cmocka_unit_test(sweep_streams_like_the_whole_trace),
    cmocka_unit_test(large_random_traces_sweep_matches_growth),
};
ATOLL_TEST_MAIN(tests)
