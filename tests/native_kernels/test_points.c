/* The preemption-latency options inside the kernels (backend.h atoll_npreempt_tuning): dense_points
 * adds points inside gemm's K panel, kill_poll_shift makes the spin and element-wise loops poll
 * 2^shift times as often, and neither changes a result. The kernel library is compiled into this
 * test with AK_COUNT_PREEMPT_POINTS (CMakeLists.txt), which counts every point a block reaches. */
#include "tests/native_kernels/nk_test.h"

_Thread_local uint64_t ak_points_reached;

/* Runs block 0 of `k` with the options; returns the points it reached. */
static uint64_t points(uint32_t k, const ak_args *a, uint32_t grid, uint32_t threads, uint32_t dense, uint32_t shift,
                       const volatile uint32_t *kill, int *rc) {
  ak_points_reached = 0;
  ak_ctx c = {.block = 0, .grid = grid, .threads = threads, .kill = kill, .dense_points = dense, .poll_shift = shift};
  *rc = ak_run_block(k, a, &c);
  return ak_points_reached;
}

/* One 32 x 32 tile over K = 256: 16 panels, one point each; dense adds 4 per panel (every 4 k). */
static void gemm_dense_points_add_points_not_differences(void **state) {
  (void)state;
  const uint32_t M = 32, N = 32, K = 256;
  float *A = nk_alloc((size_t)M * K, 1), *B = nk_alloc((size_t)K * N, 2);
  float *C0 = calloc((size_t)M * N, sizeof(float)), *C1 = calloc((size_t)M * N, sizeof(float));
  ak_args a = {.p = {A, B, C0, NULL},
               .i = {(int32_t)M, (int32_t)N, (int32_t)K, (int32_t)K, 1, (int32_t)N, 1, (int32_t)N, 1, 0, 0, 0,
                     ak_bits(1.0f), 32, 32}};
  int rc;
  const uint64_t plain = points(AK_K_GEMM, &a, 1, 64, 0, 0, NULL, &rc);
  assert_int_equal(rc, AK_DONE);
  a.p[2] = C1;
  const uint64_t dense = points(AK_K_GEMM, &a, 1, 64, 1, 0, NULL, &rc);
  assert_int_equal(rc, AK_DONE);
  assert_int_equal(plain, K / 16);
  assert_int_equal(dense, K / 16 + K / 4);
  nk_assert_same(C1, C0, (size_t)M * N, "gemm with dense points");
  /* A kill seen at the first point leaves at once either way. */
  const uint32_t kill = 1;
  assert_int_equal(points(AK_K_GEMM, &a, 1, 64, 1, 0, &kill, &rc), 1);
  assert_int_equal(rc, AK_KILLED);
  free(A), free(B), free(C0), free(C1);
}

/* spin of 4096 iterations with a point every 512: 8 points; poll shift 3: every 64, 64 points. */
static void spin_polls_more_often_same_value(void **state) {
  (void)state;
  float out0 = 0, out1 = 0;
  ak_args a = {.p = {&out0}, .i = {4096, 512}};
  int rc;
  assert_int_equal(points(AK_K_SPIN, &a, 1, 4, 0, 0, NULL, &rc), 8);
  assert_int_equal(rc, AK_DONE);
  a.p[0] = &out1;
  assert_int_equal(points(AK_K_SPIN, &a, 1, 4, 0, 3, NULL, &rc), 64);
  assert_int_equal(rc, AK_DONE);
  assert_int_equal(nk_bits(out0), nk_bits(out1));
  /* A shift past the interval polls every iteration, never every 0. */
  assert_int_equal(points(AK_K_SPIN, &a, 1, 4, 0, 8, NULL, &rc), 2048);
  a.i[1] = 1;
  assert_int_equal(points(AK_K_SPIN, &a, 1, 4, 0, 8, NULL, &rc), 4096);
  /* dense_points alone leaves the spin kernel as it was (it has no tiles). */
  assert_int_equal(points(AK_K_SPIN, &a, 1, 4, 1, 0, NULL, &rc), 4096);
}

/* bias_relu over 8192 elements in one block: ELT_POINT (1024) per point; shift 2: 256. */
static void eltwise_polls_more_often_same_values(void **state) {
  (void)state;
  const uint32_t n = 8192;
  float *x = nk_alloc(n, 3), *o0 = calloc(n, sizeof(float)), *o1 = calloc(n, sizeof(float));
  ak_args a = {.p = {x, NULL, o0}, .i = {(int32_t)n, 0, 0, 1, (int32_t)n}};
  int rc;
  assert_int_equal(points(AK_K_BIAS_RELU, &a, 1, 64, 0, 0, NULL, &rc), n / 1024);
  assert_int_equal(rc, AK_DONE);
  a.p[2] = o1;
  assert_int_equal(points(AK_K_BIAS_RELU, &a, 1, 64, 0, 2, NULL, &rc), n / 256);
  nk_assert_same(o1, o0, n, "bias_relu polling more often");
  free(x), free(o0), free(o1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(gemm_dense_points_add_points_not_differences),
    cmocka_unit_test(spin_polls_more_often_same_value),
    cmocka_unit_test(eltwise_polls_more_often_same_values),
};
ATOLL_TEST_MAIN(tests)
