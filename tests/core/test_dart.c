/* DART's numbers (core/dart.c): the CPU cost model and per-device op times, the stage allocation of
 * Eq. 7-8 (with its tie-break) and the response-time test of Eq. 5-6 that enforcement re-runs. */
#include <math.h>

#include "tests/atoll_test.h"
#include "core/dart.h"

static void cpu_speedup_diminishes(void **state) {
  (void)state;
  assert_true(fabs(atoll_dart_cpu_speedup(1) - 1.0) < 1e-12);
  assert_true(fabs(atoll_dart_cpu_speedup(4) - 4.0 / 1.3) < 1e-12);
  /* More cores help, each less than the one before. */
  double prev = 1.0, gain = 1e9;
  for (uint32_t c = 2; c <= 8; c++) {
    double s = atoll_dart_cpu_speedup(c);
    assert_true(s > prev && s - prev < gain);
    gain = s - prev, prev = s;
  }
}

static void op_times_per_device(void **state) {
  (void)state;
  atoll_op ops[2] = {{.kind = ATOLL_OP_KERNEL, .shape = {.time_ns = 1000}},
                     {.kind = ATOLL_OP_MEMCPY_H2D, .copy_time_ns = 300}};
  double flops[2] = {5e6, 0};
  atoll_model m = {.ops = ops, .n_ops = 2, .op_flops = flops};
  atoll_node gpu = {.kind = ATOLL_NODE_GPU, .cores = 1}, cpu1 = {.kind = ATOLL_NODE_CPU, .cores = 1, .gflops_per_core = 5},
             cpu4 = {.kind = ATOLL_NODE_CPU, .cores = 4, .gflops_per_core = 5};
  assert_int_equal(atoll_dart_op_ns(&gpu, &m, 0, 1), 1000);
  assert_int_equal(atoll_dart_op_ns(&gpu, &m, 0, 4), 1750); /* 1 + 0.25 (4 - 1) */
  assert_int_equal(atoll_dart_op_ns(&gpu, &m, 1, 2), 600);  /* copies scale with the batch */
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 0, 1), 1000000); /* 5 MFLOP at 5 GFLOP/s */
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 0, 3), 3000000); /* no batching gain on CPU */
  assert_int_equal(atoll_dart_op_ns(&cpu4, &m, 0, 1), 325000);  /* 1 ms / (4 / 1.3) */
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 1, 1), 0);       /* host memory: no copy */
  /* Without flops: the GPU-time estimate. */
  m.op_flops = NULL;
  assert_true(fabs(atoll_dart_op_flops(&m, 0) - 1000 * ATOLL_GPU_EQUIV_FLOPS_PER_NS) < 1e-6);
}

/* A profile measured on the native CPU device (`cpu_us:`): a CPU node's time is the measured
 * one-core time over its speedup, the FLOPs model is not used; the GPU node keeps its kernel time. */
static void measured_cpu_times_replace_the_cost_model(void **state) {
  (void)state;
  atoll_op ops[3] = {{.kind = ATOLL_OP_KERNEL, .shape = {.time_ns = 1000}},
                     {.kind = ATOLL_OP_KERNEL, .shape = {.time_ns = 1000}},
                     {.kind = ATOLL_OP_MEMCPY_D2H, .copy_time_ns = 300}};
  double flops[3] = {5e6, 5e6, 0};
  int64_t cpu[3] = {2600000, 0, 0}; /* op 1 has no measured time */
  atoll_model m = {.ops = ops, .n_ops = 3, .op_flops = flops, .op_cpu_ns = cpu};
  atoll_node gpu = {.kind = ATOLL_NODE_GPU, .cores = 1}, cpu1 = {.kind = ATOLL_NODE_CPU, .cores = 1, .gflops_per_core = 5},
             cpu4 = {.kind = ATOLL_NODE_CPU, .cores = 4, .gflops_per_core = 5};
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 0, 1), 2600000);
  assert_int_equal(atoll_dart_op_ns(&cpu4, &m, 0, 1), 845000); /* 2.6 ms / (4 / 1.3) */
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 0, 2), 5200000);
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 1, 1), 1000000); /* the FLOPs model */
  assert_int_equal(atoll_dart_op_ns(&cpu1, &m, 2, 1), 0);
  assert_int_equal(atoll_dart_op_ns(&gpu, &m, 0, 1), 1000);
}

static void partition_minimises_the_most_loaded_node(void **state) {
  (void)state;
  /* u[y * N + k]: layer y on node k. Keeping layers 0-1 on node 0 and moving 2 to node 1 gives
   * max(0.2, 0.05); every other split is worse. */
  double u[] = {0.1, 0.3, 0.1, 0.3, 0.1, 0.05}, w[2] = {0, 0}, M[2 * 4 * 2];
  uint32_t arg[2 * 4 * 2], node_of[3];
  double r = atoll_dart_partition(3, 2, u, w, node_of, M, arg, 2 * 4 * 2);
  assert_true(fabs(r - 0.2) < 1e-12);
  assert_int_equal(node_of[0], 0);
  assert_int_equal(node_of[1], 0);
  assert_int_equal(node_of[2], 1);
  /* Nodes already loaded: node 0 carries 0.25, so the layers go to node 1. */
  double w2[2] = {0.25, 0};
  double u2[] = {0.1, 0.1, 0.1, 0.1};
  r = atoll_dart_partition(2, 2, u2, w2, node_of, M, arg, 2 * 4 * 2);
  assert_true(fabs(r - 0.25) < 1e-12);
  assert_int_equal(node_of[0], 1);
  assert_int_equal(node_of[1], 1);
  /* Scratch too small, or nothing to place. */
  assert_true(atoll_dart_partition(3, 2, u, w, node_of, M, arg, 7) < 0);
  assert_true(atoll_dart_partition(0, 2, u, w, node_of, M, arg, 16) < 0);
}

static void partition_ties_keep_the_task_fast(void **state) {
  (void)state;
  /* Node 1 already carries 0.9: every placement has that maximum. The tie goes to the least own
   * utilization: both layers on node 0 (0.2), not one on the slow node 2 (0.4). */
  double u[] = {0.1, 0.5, 0.3, 0.1, 0.5, 0.3}, w[3] = {0, 0.9, 0}, M[2 * 3 * 3];
  uint32_t arg[2 * 3 * 3], node_of[2];
  double r = atoll_dart_partition(2, 3, u, w, node_of, M, arg, 2 * 3 * 3);
  assert_true(fabs(r - 0.9) < 1e-12);
  assert_int_equal(node_of[0], 0);
  assert_int_equal(node_of[1], 0);
}

static void response_time_test(void **state) {
  (void)state;
  /* One node: A (priority 0, 2 ms every 10 ms) and B (3 ms every 20 ms). A: its own stage and B's
   * non-preemptive blocking, 5 ms. B: A's and its own stage, 5, plus one release of A: 7 ms. */
  int64_t a[1] = {2}, b[1] = {3}, r[2];
  atoll_dart_rt_task t[2] = {{.period_ns = 10, .deadline_ns = 10, .prio = 0, .stage_ns = a},
                             {.period_ns = 20, .deadline_ns = 20, .prio = 1, .stage_ns = b}};
  assert_true(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[0], 5);
  assert_int_equal(r[1], 7);
  t[1].deadline_ns = 6;
  assert_false(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[0], 5);
  assert_true(r[1] == INT64_MAX);
  /* Two nodes: a pipeline of 2 + 1 pays the largest stage on its first node once more. */
  int64_t p[2] = {2, 1};
  atoll_dart_rt_task one = {.period_ns = 100, .deadline_ns = 100, .prio = 0, .stage_ns = p};
  assert_true(atoll_dart_rt_test(&one, 1, 2, r));
  assert_int_equal(r[0], 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_speedup_diminishes),
      cmocka_unit_test(op_times_per_device),
      cmocka_unit_test(measured_cpu_times_replace_the_cost_model),
      cmocka_unit_test(partition_minimises_the_most_loaded_node),
      cmocka_unit_test(partition_ties_keep_the_task_fast),
      cmocka_unit_test(response_time_test),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
