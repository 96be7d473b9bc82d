/* The shape memo (sim/shape_memo.c): every op gets exactly the timing atoll_kernel_timing_prepare
 * gives it, whether its shape was prepared before or not; shapes that differ in any field the
 * timing reads are prepared apart, and shapes that differ only elsewhere share one preparation.
 * Runs given a memo (atoll_sim_opts.shape_memo) take their timings from it when they time their
 * kernels on the memo's GPU object, and their results are those of runs that prepare their own. */
#include <string.h>

#include "tests/atoll_test.h"
#include "sim/run.h"
#include "sim/shape_memo.h"
#include "tests/sim/run_figures.h"
#include "tests/test_scenario.h"

static atoll_gpu mi50(void) {
  atoll_gpu g = {.name = "mi50", .vendor = "amd", .cus = 60, .max_blocks_per_cu = 40, .max_threads_per_cu = 2560,
                 .registers_per_cu = 65536, .shared_bytes_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 2,
                 .memory_bytes_per_ns = 1024};
  g.costs = (atoll_gpu_costs){.hq_transmit_ns = 9700, .cp_dispatch_ns = 5100, .stream_switch_ns = 30000,
                              .launch_sync_ns = 15100, .copy_latency_ns = 10000, .copy_bytes_per_us = 12000};
  return g;
}

static void assert_same_timing(const atoll_kernel_timing *a, const atoll_kernel_timing *b, uint32_t op) {
  if (a->is_copy != b->is_copy || a->blocks != b->blocks || a->block_units != b->block_units ||
      a->demand != b->demand || a->bt1_ns != b->bt1_ns || a->copy_ns != b->copy_ns || a->mem != b->mem ||
      a->mem_alone != b->mem_alone)
    fail_msg("op %u: memo gave blocks %u units %u demand %u bt1 %lld mem %llu, prepare blocks %u units %u demand %u "
             "bt1 %lld mem %llu", op, a->blocks, a->block_units, a->demand, (long long)a->bt1_ns,
             (unsigned long long)a->mem, b->blocks, b->block_units, b->demand, (long long)b->bt1_ns,
             (unsigned long long)b->mem);
}

enum { N_OPS = 24, N_LISTS = 6 };

/* Lists of its own for every op (equal content at different addresses), so that only the content
 * can make two shapes alike. */
static int64_t lists[N_OPS][N_LISTS];

static atoll_kernel_shape base_shape(uint32_t op) {
  for (uint32_t k = 0; k < N_LISTS; k++)
    lists[op][k] = 40000 + 30000 * (int64_t)k * (k + 1);
  return (atoll_kernel_shape){.grid = {1200, 1, 1}, .block = {64, 1, 1}, .occupancy = 8, .time_ns = 300000,
                              .time_per_occupancy_ns = lists[op], .n_time_per_occupancy = N_LISTS, .registers = 32};
}

/* Ops 0-5 repeat the base shape (two of them with other fields the timing does not read), 6-12
 * each change one field it reads, 13-14 repeat two of those, 15 is a copy, the rest repeat. */
static void make_ops(atoll_op *ops, uint64_t *bytes) {
  for (uint32_t i = 0; i < N_OPS; i++) {
    ops[i] = (atoll_op){.kind = ATOLL_OP_KERNEL, .name = "k", .shape = base_shape(i)};
    bytes[i] = 256 * (i % 5); /* memory traffic is the op's own, never the memo's */
  }
  ops[3].shape.block = (atoll_dim3){256, 1, 1}, ops[3].shape.registers = 96, ops[3].shape.shared_bytes = 4096;
  ops[4].shape.grid = (atoll_dim3){600, 2, 1}; /* the same number of blocks */
  ops[6].shape.grid.x = 1201;
  ops[7].shape.grid.y = 2;
  ops[8].shape.grid.z = 3;
  ops[9].shape.occupancy = 4;
  ops[10].shape.time_ns = 310000;
  ops[11].shape.n_time_per_occupancy = N_LISTS - 1;
  lists[12][N_LISTS - 1] += 7000;
  ops[13].shape.grid.y = 2;
  lists[14][N_LISTS - 1] += 7000;
  ops[15] = (atoll_op){.kind = ATOLL_OP_MEMCPY_H2D, .bytes = 1 << 20};
}

static void memo_gives_what_prepare_gives(void **state) {
  (void)state;
  atoll_gpu g = mi50();
  atoll_op ops[N_OPS];
  uint64_t bytes[N_OPS];
  make_ops(ops, bytes);
  atoll_model m = {.name = "m", .ops = ops, .n_ops = N_OPS, .op_bytes_per_block = bytes};
  /* Room for one shape: the memo grows as it goes. */
  atoll_shape_memo memo;
  assert_int_equal(atoll_shape_memo_init(&memo, &g, 1), 0);
  for (uint32_t i = 0; i < N_OPS; i++) {
    atoll_kernel_timing want, got;
    atoll_kernel_timing_prepare(&g, &m, i, &want);
    atoll_shape_memo_prepare(&memo, &m, i, &got);
    assert_same_timing(&got, &want, i);
  }
  /* The base shape and the seven one-field changes: eight preparations, the copy none. */
  assert_int_equal(memo.n, 8);
  atoll_shape_memo_free(&memo);
}

static void alike_exactly_in_the_fields_timing_reads(void **state) {
  (void)state;
  atoll_op ops[N_OPS];
  uint64_t bytes[N_OPS];
  make_ops(ops, bytes);
  const atoll_kernel_shape *base = &ops[0].shape;
  for (uint32_t i = 1; i < N_OPS; i++) {
    if (ops[i].kind != ATOLL_OP_KERNEL)
      continue;
    bool alike = i <= 5 || i >= 16;
    if (atoll_kernel_shape_times_alike(base, &ops[i].shape) != alike)
      fail_msg("op %u: alike %d, expected %d", i, !alike, alike);
    if (alike)
      assert_int_equal(atoll_kernel_shape_timing_hash(base), atoll_kernel_shape_timing_hash(&ops[i].shape));
  }
  assert_true(atoll_kernel_shape_times_alike(&ops[7].shape, &ops[13].shape));
  assert_true(atoll_kernel_shape_times_alike(&ops[12].shape, &ops[14].shape));
}

static void runs_share_a_memo_on_their_timing_gpu(void **state) {
  (void)state;
  const char *sets[] = {"policy=streams", "duration_ms=400", "warmup_ms=0"};
  atoll_test_scenario *l = atoll_test_load(ATOLL_SOURCE_DIR "/scenarios/disb/C.yaml", sets, 3);
  const atoll_scenario *s = &l->s;
  assert_true(s->n_clients <= 8);
  double want[8], got[8];
  uint64_t want_events, got_events;
  atoll_test_run_figures(s, NULL, want, &want_events);
  atoll_shape_memo memo;
  assert_int_equal(atoll_shape_memo_init(&memo, &s->gpu, 1), 0);
  /* Timed on the memo's GPU object: the first run fills the memo, the second prepares nothing new. */
  atoll_sim_opts o = {.timing_gpu = &s->gpu, .shape_memo = &memo};
  for (int run = 0; run < 2; run++) {
    uint32_t before = memo.n;
    atoll_test_run_figures(s, &o, got, &got_events);
    assert_int_equal(got_events, want_events);
    assert_memory_equal(got, want, s->n_clients * sizeof *got);
    if (run == 0)
      assert_true(memo.n > 0);
    else
      assert_int_equal(memo.n, before);
  }
  /* Timed on another GPU object, even one with the same values: the memo is not used. */
  atoll_gpu copy = s->gpu;
  atoll_shape_memo other;
  assert_int_equal(atoll_shape_memo_init(&other, &copy, 1), 0);
  atoll_sim_opts o2 = {.shape_memo = &other};
  atoll_test_run_figures(s, &o2, got, &got_events);
  assert_int_equal(other.n, 0);
  assert_memory_equal(got, want, s->n_clients * sizeof *got);
  atoll_shape_memo_free(&other);
  atoll_shape_memo_free(&memo);
  atoll_test_unload(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(memo_gives_what_prepare_gives),
    cmocka_unit_test(alike_exactly_in_the_fields_timing_reads),
    cmocka_unit_test(runs_share_a_memo_on_their_timing_gpu),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
