/* The GPU back-end's block-level decisions, run on the CPU: the same inline functions the device
 * entry (native/gpu/gpu_entry.h) and the host side (gpu_backend.cpp) use. */
#include "tests/atoll_test.h"

#include <string.h>

#include "native/gpu/gpu_launch.h"

static void set_range(gpu_launch_desc *d, uint32_t i, uint32_t kernel, uint32_t grid, uint32_t threads, uint32_t lo,
                      uint32_t n) {
  d->r[i].kernel = kernel;
  d->r[i].grid = grid;
  d->r[i].threads = threads;
  d->r[i].block_lo = lo;
  d->r[i].block_n = n;
}

/* A padded launch: RT range of 5 blocks, then BE parts of 3 and 2 blocks. Every block index maps to
 * exactly one (range, local) pair, in order, and the launch has exactly 10 blocks. */
static void find_range_partitions_the_grid(void **state) {
  (void)state;
  gpu_launch_desc d;
  memset(&d, 0, sizeof d);
  d.n_ranges = 3;
  set_range(&d, 0, AK_K_GEMM, 5, 128, 0, 5);
  set_range(&d, 1, AK_K_ADD, 40, 256, 17, 3);
  set_range(&d, 2, AK_K_SPIN, 8, 64, 6, 2);
  const uint32_t want_range[10] = {0, 0, 0, 0, 0, 1, 1, 1, 2, 2};
  const uint32_t want_local[10] = {0, 1, 2, 3, 4, 0, 1, 2, 0, 1};
  for (uint32_t b = 0; b < 10; b++) {
    uint32_t local = 99;
    uint32_t r = gpu_find_range(&d, b, &local);
    assert_int_equal(r, want_range[b]);
    assert_int_equal(local, want_local[b]);
  }
  uint32_t local = 0;
  assert_int_equal(gpu_find_range(&d, 10, &local), 3); /* past every range */
  assert_int_equal(gpu_find_range(&d, UINT32_MAX, &local), 3);
  uint32_t threads = 0;
  assert_int_equal(gpu_launch_shape(&d, &threads), 10);
  assert_int_equal(threads, 256); /* the widest range */
}

static void launch_shape_rejects_malformed_ranges(void **state) {
  (void)state;
  gpu_launch_desc d;
  memset(&d, 0, sizeof d);
  d.n_ranges = 1;
  uint32_t threads = 7;
  set_range(&d, 0, AK_K_ADD, 10, 64, 8, 3); /* blocks 8..10 of a 10-block grid */
  assert_int_equal(gpu_launch_shape(&d, &threads), 0);
  set_range(&d, 0, AK_K_ADD, 10, 0, 0, 3); /* zero threads */
  assert_int_equal(gpu_launch_shape(&d, &threads), 0);
  set_range(&d, 0, AK_K_ADD, 10, 64, 0, 0); /* empty range */
  assert_int_equal(gpu_launch_shape(&d, &threads), 0);
  set_range(&d, 0, AK_K_ADD, UINT32_MAX, 64, UINT32_MAX - 1, 2); /* block_lo + n wraps in 32 bits */
  assert_int_equal(gpu_launch_shape(&d, &threads), 0);
  assert_int_equal(threads, 7); /* untouched on failure */
  set_range(&d, 0, AK_K_ADD, 10, 64, 7, 3); /* the last three blocks: fine */
  assert_int_equal(gpu_launch_shape(&d, &threads), 3);
  assert_int_equal(threads, 64);
}

/* Decision words: a word of another launch (an older sequence number in the reused slot) is
 * undecided; the decision of this launch says RUN or EVICT; only RUN counts as started. */
static void decision_words_are_keyed_by_sequence(void **state) {
  (void)state;
  const uint64_t seq = 41;
  const uint64_t stale = gpu_decision(40, 0);
  assert_false(gpu_decided_for(stale, seq));
  assert_false(gpu_launch_started(stale, seq));
  assert_false(gpu_decided_for(0, seq)); /* a fresh word: sequence numbers start at 1 */
  const uint64_t run = gpu_decision(seq, 0), evict = gpu_decision(seq, 1);
  assert_true(gpu_decided_for(run, seq));
  assert_true(gpu_decided_for(evict, seq));
  assert_false(gpu_decision_evicts(run));
  assert_true(gpu_decision_evicts(evict));
  assert_true(gpu_launch_started(run, seq));
  assert_false(gpu_launch_started(evict, seq));
  /* A large sequence number keeps its key (63 bits). */
  const uint64_t big = (UINT64_C(1) << 62) + 5;
  assert_true(gpu_launch_started(gpu_decision(big, 0), big));
  assert_false(gpu_decided_for(gpu_decision(big, 0), big + 1));
}

static void range_status_ranks_fault_kill_evict(void **state) {
  (void)state;
  uint32_t w[GPU_ST_WORDS] = {0, 0, 0};
  assert_int_equal(gpu_range_status(w), ATOLL_ND_OK);
  w[GPU_ST_EVICTED] = 1;
  assert_int_equal(gpu_range_status(w), ATOLL_ND_EVICTED);
  w[GPU_ST_KILLED] = 1;
  assert_int_equal(gpu_range_status(w), ATOLL_ND_KILLED);
  w[GPU_ST_FAULT] = 1;
  assert_int_equal(gpu_range_status(w), ATOLL_ND_FAULT);
  w[GPU_ST_EVICTED] = w[GPU_ST_KILLED] = 0;
  assert_int_equal(gpu_range_status(w), ATOLL_ND_FAULT);
}

static void range_from_copies_the_runtime_range(void **state) {
  (void)state;
  atoll_nkernel_range k;
  memset(&k, 0, sizeof k);
  k.kernel = AK_K_CONV2D;
  k.grid = 64;
  k.threads = 128;
  k.block_lo = 16;
  k.block_n = 8;
  k.args.i[3] = 1234;
  int x;
  k.args.p[2] = &x;
  gpu_range r;
  gpu_range_from(&r, &k);
  assert_int_equal(r.kernel, AK_K_CONV2D);
  assert_int_equal(r.grid, 64);
  assert_int_equal(r.threads, 128);
  assert_int_equal(r.block_lo, 16);
  assert_int_equal(r.block_n, 8);
  assert_int_equal(r.args.i[3], 1234);
  assert_ptr_equal(r.args.p[2], &x);
}

/* A batched range (backend.h): its blocks count over the instances, the shape check allows
 * batch * grid of them, and block b runs block b mod grid with its instance's pointers. */
static void batched_range_numbers_blocks_over_instances(void **state) {
  (void)state;
  atoll_nkernel_range k;
  memset(&k, 0, sizeof k);
  static char t0[4096], t1[64];
  k.kernel = AK_K_ADD;
  k.grid = 4;
  k.threads = 32;
  k.block_n = 12;
  k.batch = 3;
  k.args.p[0] = t0, k.args.p[1] = t1;
  k.ptr_stride[0] = 1024; /* p[1] shared: stride 0 */
  gpu_launch_desc d;
  memset(&d, 0, sizeof d);
  d.n_ranges = 1;
  gpu_range_from(&d.r[0], &k);
  assert_int_equal(d.r[0].batch, 3);
  uint32_t threads = 0;
  assert_int_equal(gpu_launch_shape(&d, &threads), 12);
  d.r[0].block_n = 13; /* one past the last instance */
  assert_int_equal(gpu_launch_shape(&d, &threads), 0);
  d.r[0].block_n = 12;
  ak_args a;
  for (uint32_t b = 0; b < 12; b++) {
    assert_int_equal(gpu_range_instance(&d.r[0], b, &a), b % 4);
    assert_ptr_equal(a.p[0], t0 + (b / 4) * 1024);
    assert_ptr_equal(a.p[1], t1);
    assert_ptr_equal(a.p[2], NULL);
  }
  d.r[0].batch = 1; /* unbatched: the block as it is, the arguments untouched */
  assert_int_equal(gpu_range_instance(&d.r[0], 3, &a), 3);
  assert_ptr_equal(a.p[0], t0);
  assert_int_equal(gpu_launch_shape(&d, &threads), 0); /* 12 blocks of a 4-block grid */
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(find_range_partitions_the_grid),
      cmocka_unit_test(launch_shape_rejects_malformed_ranges),
      cmocka_unit_test(decision_words_are_keyed_by_sequence),
      cmocka_unit_test(range_status_ranks_fault_kill_evict),
      cmocka_unit_test(range_from_copies_the_runtime_range),
      cmocka_unit_test(batched_range_numbers_blocks_over_instances),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
