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
   * non-preemptive blocking, 5 ms. B: its own stage, 3, plus the jobs of A that can overlap B's,
   * released in (-R_A, R_B): ceil((3 + 5) / 10) = 1, then ceil((5 + 5) / 10) = 1: 5 ms. (The
   * paper's count, ceil(R_B / T_A) releases plus one job in the pipeline, would charge A twice.) */
  int64_t a[1] = {2}, b[1] = {3}, r[2];
  atoll_dart_rt_task t[2] = {{.period_ns = 10, .deadline_ns = 10, .prio = 0, .stage_ns = a},
                             {.period_ns = 20, .deadline_ns = 20, .prio = 1, .stage_ns = b}};
  assert_true(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[0], 5);
  assert_int_equal(r[1], 5);
  t[1].deadline_ns = 4;
  assert_false(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[0], 5);
  assert_int_equal(r[1], 5); /* the first value past the deadline (3, then 5), which proves the miss */
  /* Two nodes: a pipeline of 2 + 1 pays the largest stage on its first node once more. */
  int64_t p[2] = {2, 1};
  atoll_dart_rt_task one = {.period_ns = 100, .deadline_ns = 100, .prio = 0, .stage_ns = p};
  assert_true(atoll_dart_rt_test(&one, 1, 2, r));
  assert_int_equal(r[0], 4);
}

/* Eq. 5 iterated to a fixed point over several steps, on a pipeline of two nodes. Tasks (stage
 * times on nodes 0 and 1; period = deadline):
 *   H (prio 0): {2, 0}, T 5      M (prio 1): {1, 3}, T 12      L (prio 2): {0, 4}, T 40
 * C_max: H 2, M 3, L 4.
 * No two paths split and merge again, so every job is charged its C_max once. Ce holds the task's
 * own job; Eq. 5 counts each higher-priority task h's jobs released in (-R_h, R): ceil((R + R_h) / T_h).
 * H: path {0}, last node 0. Ce = C_H = 2, plus node 0's largest lower-priority stage (M's 1) = 3.
 *    No higher-priority task: R = 3.
 * M: path {0, 1}. Ce = C_M = 3; node 0 (not last): largest RT stage 2 and lower-priority
 *    stage 0; node 1: lower-priority L's 4. Ce = 3 + 2 + 4 = 9.
 *    R0 = 9; R1 = 9 + ceil((9+3)/5) 2 = 15; R2 = 9 + ceil(18/5) 2 = 17; R3 = 9 + ceil(20/5) 2 = 17.
 *    15 > 12 already: M misses (the iteration stops there).
 * With M's deadline and period 20: the iteration goes on to the fixed point 17 <= 20, schedulable.
 * L: path {1}. Ce = C_L = 4 (no node before its last, nothing of lower priority).
 *    R0 = 4; R1 = 4 + ceil((4+3)/5) 2 + ceil((4+17)/20) 3 = 14; R2 = 4 + 4 2 + 2 3 = 18;
 *    R3 = 4 + 5 2 + 2 3 = 20; R4 = 4 + ceil(23/5) 2 + ceil(37/20) 3 = 20. Fixed point 20 by Eq. 5.
 *    L has one stage, so node 1's single-processor test bounds it too: blocking max(C_L 4, no
 *    lower-priority stage) = 4; M's stage on node 1 is released up to R_M = 17 after M's arrival
 *    (node 1 is not M's first), H has none there: w = 4 + (floor((w + 17) / 20) + 1) 3:
 *    w0 = 4, w1 = 4 + 2 x 3 = 10, w2 = 4 + (27/20 + 1) 3 = 10; R = 10 + 4 = 14 < 20: R_L = 14.
 *    (H has one stage too: blocking max(2, M's 1) = 2, R = 2 + 2 = 4, above Eq. 5's 3, which stays.) */
static void eq5_fixed_point_by_hand(void **state) {
  (void)state;
  int64_t h[2] = {2, 0}, m[2] = {1, 3}, l[2] = {0, 4}, r[3];
  atoll_dart_rt_task t[3] = {{.period_ns = 5, .deadline_ns = 5, .prio = 0, .stage_ns = h},
                             {.period_ns = 12, .deadline_ns = 12, .prio = 1, .stage_ns = m},
                             {.period_ns = 40, .deadline_ns = 40, .prio = 2, .stage_ns = l}};
  assert_int_equal(atoll_dart_ce_ns(t, 3, 2, 0), 3);
  assert_int_equal(atoll_dart_ce_ns(t, 3, 2, 1), 9);
  assert_int_equal(atoll_dart_ce_ns(t, 3, 2, 2), 4);
  assert_false(atoll_dart_rt_test(t, 3, 2, r)); /* M: 15 already exceeds 12 */
  assert_int_equal(r[0], 3);
  assert_int_equal(r[1], 15);
  t[1].period_ns = t[1].deadline_ns = 20;
  assert_true(atoll_dart_rt_test(t, 3, 2, r));
  assert_int_equal(r[0], 3);
  assert_int_equal(r[1], 17);
  assert_int_equal(r[2], 14);
  assert_int_equal(atoll_dart_node_rt_ns(t, 3, 2, 2, r), 14);
  assert_int_equal(atoll_dart_node_rt_ns(t, 3, 2, 0, r), 4);
  assert_int_equal(atoll_dart_node_rt_ns(t, 3, 2, 1, r), -1); /* M has two stages: Eq. 5 only */
}

/* A one-stage task whose window R_i + R_h passes T_h: Eq. 5 charges the higher-priority job that
 * may be in the pipeline when i arrives besides the ones released while it waits, where the
 * single-processor test of its node, starting from the busy period, does not. One node, D = T:
 *   A (prio 0): 2 every 6      B (prio 1): 2 every 8      C (prio 2): 1 every 10
 * Eq. 5: R_A = 2 + B's blocking 2 = 4. B: Ce = 2 + C's 1 = 3; R = 3 + ceil((R + 4) / 6) 2:
 *   3, 7, 7. C: Ce = 1; with R_B = 6 (below): R = 1 + ceil((R + 4) / 6) 2 + ceil((R + 6) / 8) 2:
 *   1, 5, 9, 11 > 10: a miss by Eq. 5 alone.
 * Node test: A: blocking max(2, 2) = 2, R = 2 + 2 = 4. B: blocking max(2, 1) = 2,
 *   w = 2 + (w/6 + 1) 2: 2, 4, 4; R = 4 + 2 = 6 < 7. C: blocking 1, w = 1 + (w/6 + 1) 2 +
 *   (w/8 + 1) 2: 1, 5, 5; R = 5 + 1 = 6 <= 10 (A and B released together just after C's arrival,
 *   each once: 2 + 2 + 1 = 5 is reached). */
static void one_stage_task_takes_its_node_test(void **state) {
  (void)state;
  int64_t a[1] = {2}, b[1] = {2}, c[1] = {1}, r[3];
  atoll_dart_rt_task t[3] = {{.period_ns = 6, .deadline_ns = 6, .prio = 0, .stage_ns = a},
                             {.period_ns = 8, .deadline_ns = 8, .prio = 1, .stage_ns = b},
                             {.period_ns = 10, .deadline_ns = 10, .prio = 2, .stage_ns = c}};
  assert_true(atoll_dart_rt_test(t, 3, 1, r));
  assert_int_equal(r[0], 4);
  assert_int_equal(r[1], 6);
  assert_int_equal(r[2], 6);
  /* The node test alone past min(D, T) gives no bound: C with deadline 5 fails (Eq. 5's first value
   * past the deadline, 5 then 9, is reported). */
  t[2].deadline_ns = 5;
  assert_false(atoll_dart_rt_test(t, 3, 1, r));
  assert_int_equal(atoll_dart_node_rt_ns(t, 3, 1, 2, r), -1);
  assert_int_equal(r[2], 9);
  /* A tie in priority leaves the node test out (the order of equal priorities is not modelled). */
  t[2].deadline_ns = 10;
  t[1].prio = 0;
  assert_int_equal(atoll_dart_node_rt_ns(t, 3, 1, 1, r), -1);
}

/* The job of a higher-priority task already in the pipeline when i arrives is counted: one node,
 * H (2 every 5, priority 0) and L (3 every 100), L first in the array (the test runs by priority,
 * since L's count uses R_H). R_H = 2 + L's blocking 3 = 5. L: Ce = 3; its window (-R_H, R_L) holds
 * ceil((3 + 5) / 5) = 2 jobs of H, then ceil((7 + 5) / 5) = 3, then ceil((9 + 5) / 5) = 3:
 * R_L = 3 + 3 x 2 = 9, where releases in [0, R_L) alone, ceil(R_L / 5), would give 5. */
static void eq5_counts_the_job_in_the_pipeline(void **state) {
  (void)state;
  int64_t h[1] = {2}, l[1] = {3}, r[2];
  atoll_dart_rt_task t[2] = {{.period_ns = 100, .deadline_ns = 100, .prio = 1, .stage_ns = l},
                             {.period_ns = 5, .deadline_ns = 5, .prio = 0, .stage_ns = h}};
  assert_true(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[1], 5);
  assert_int_equal(r[0], 9);
}

/* Overload: A alone fills the node (3 every 3), so B's iteration never reaches a fixed point and
 * stops past its deadline. R_A = 3 + 2 = 5; Ce_B = 2; R = 2 + 3 ceil((R + 5) / 3) = 2, 11, 20, ... */
static void eq5_unschedulable_detected(void **state) {
  (void)state;
  int64_t a[1] = {3}, b[1] = {2}, r[2];
  atoll_dart_rt_task t[2] = {{.period_ns = 3, .deadline_ns = 3, .prio = 0, .stage_ns = a},
                             {.period_ns = 100, .deadline_ns = 100, .prio = 1, .stage_ns = b}};
  assert_false(atoll_dart_rt_test(t, 2, 1, r));
  assert_int_equal(r[0], 3 + 2); /* A: its stage and B's blocking, 5 > 3: A misses too */
  assert_int_equal(r[1], 101); /* R grows by 9 a step (2 + 9k): 92, then 101, the first past 100 */
}

/* Split-and-merge: paths {0, 2} and {0, 1, 2} share 0 and 2 and part between them (SM 1); {0, 1}
 * and {1, 2} share only node 1 (SM 0); a path with itself has none. A higher-priority task whose
 * path splits from i's and merges again is charged its C_max twice for each of its jobs. */
static void split_merges(void **state) {
  (void)state;
  int64_t a[3] = {1, 0, 1}, b[3] = {1, 1, 1}, c[3] = {1, 1, 0}, d[3] = {0, 1, 1}, r[2];
  assert_int_equal(atoll_dart_split_merges(a, b, 3), 1);
  assert_int_equal(atoll_dart_split_merges(b, a, 3), 1);
  assert_int_equal(atoll_dart_split_merges(c, d, 3), 0);
  assert_int_equal(atoll_dart_split_merges(b, b, 3), 0);
  atoll_dart_rt_task t[2] = {{.period_ns = 1000, .deadline_ns = 1000, .prio = 0, .stage_ns = a},
                             {.period_ns = 1000, .deadline_ns = 1000, .prio = 1, .stage_ns = b}};
  /* a: C_max 1, nodes 0 (not last) largest RT stage 1 and b's 1 below it, node 2 b's 1: R_a = 4.
   * b: C_max(b) = 1, nodes 0 and 1 (not last): largest RT stage 1 each: Ce = 3; one job of a
   * (ceil((3 + 4) / 1000)) at 2 x C_max(a): R = 3 + 2 = 5. */
  assert_int_equal(atoll_dart_ce_ns(t, 2, 3, 1), 3);
  assert_true(atoll_dart_rt_test(t, 2, 3, r));
  assert_int_equal(r[0], 4);
  assert_int_equal(r[1], 5);
}

/* The single-processor non-preemptive test (BaseGPU, BaseCPU): A 2 every 10, B 3 every 20, and a
 * BE job of 4. A: blocking max(4, 2, B's 3) = 4, w = 4, R = 6. B: blocking max(4, 3) = 4;
 * w0 = 4; w1 = 4 + (4/10 + 1) 2 = 6; w2 = 4 + (6/10 + 1) 2 = 6: R = 6 + 3 = 9. */
static void np_test_by_hand(void **state) {
  (void)state;
  atoll_np_task t[2] = {{.c_ns = 2, .period_ns = 10, .deadline_ns = 10, .prio = 0},
                        {.c_ns = 3, .period_ns = 20, .deadline_ns = 20, .prio = 1}};
  int64_t r[2];
  assert_true(atoll_np_rt_test(t, 2, 4, r));
  assert_int_equal(r[0], 6);
  assert_int_equal(r[1], 9);
  /* A BE job of 9: A's start waits 9, R = 11 > 10. */
  assert_false(atoll_np_rt_test(t, 2, 9, r));
  assert_int_equal(r[0], 11);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cpu_speedup_diminishes),
      cmocka_unit_test(op_times_per_device),
      cmocka_unit_test(measured_cpu_times_replace_the_cost_model),
      cmocka_unit_test(partition_minimises_the_most_loaded_node),
      cmocka_unit_test(partition_ties_keep_the_task_fast),
      cmocka_unit_test(response_time_test),
      cmocka_unit_test(eq5_fixed_point_by_hand),
      cmocka_unit_test(eq5_counts_the_job_in_the_pipeline),
      cmocka_unit_test(eq5_unschedulable_detected),
      cmocka_unit_test(one_stage_task_takes_its_node_test),
      cmocka_unit_test(split_merges),
      cmocka_unit_test(np_test_by_hand),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
