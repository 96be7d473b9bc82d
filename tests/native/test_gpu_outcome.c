/* The GPU completion thread's outcome of a launch (gpu_launch.h: gpu_launch_outcome), on the CPU:
 * the status words decide for copies as for kernels. The H200's "restarted at op 18: output
 * differs" was a D2H copy the flag evicted, reported OK because copies ignored their words. */
#include "tests/atoll_test.h"
#include "native/gpu/gpu_launch.h"

static void evicted_copy_is_evicted_not_ok(void **state) {
  (void)state;
  uint32_t w[GPU_ST_WORDS] = {0};
  w[GPU_ST_EVICTED] = 1;
  assert_int_equal(gpu_launch_outcome(0, 0, w), ATOLL_ND_EVICTED);
}

static void untouched_launch_is_ok(void **state) {
  (void)state;
  uint32_t w[GPU_ST_WORDS] = {0};
  assert_int_equal(gpu_launch_outcome(0, 0, w), ATOLL_ND_OK);
}

static void killed_launch_is_killed_even_if_its_blocks_ended(void **state) {
  (void)state;
  uint32_t w[GPU_ST_WORDS] = {0};
  assert_int_equal(gpu_launch_outcome(0, 1, w), ATOLL_ND_KILLED);
  w[GPU_ST_KILLED] = 1;
  assert_int_equal(gpu_launch_outcome(0, 1, w), ATOLL_ND_KILLED);
}

static void vendor_error_and_fault_win(void **state) {
  (void)state;
  uint32_t w[GPU_ST_WORDS] = {0};
  assert_int_equal(gpu_launch_outcome(1, 0, w), ATOLL_ND_FAULT);
  w[GPU_ST_FAULT] = 1;
  assert_int_equal(gpu_launch_outcome(0, 1, w), ATOLL_ND_FAULT);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(evicted_copy_is_evicted_not_ok),
      cmocka_unit_test(untouched_launch_is_ok),
      cmocka_unit_test(killed_launch_is_killed_even_if_its_blocks_ended),
      cmocka_unit_test(vendor_error_and_fault_win),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
