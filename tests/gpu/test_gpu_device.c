/* Which GPU each instance of the GPU back-end drives with gpu_count N (native/gpu/gpu_device.h): the
 * same inline function the CUDA and HIP modules call when they open an instance. */
#include "tests/atoll_test.h"

#include "native/gpu/gpu_device.h"

/* One device: the base ordinal, whatever the instance number says. */
static void one_device_is_the_base(void **state) {
  (void)state;
  assert_int_equal(gpu_device_ordinal(0, 0, 0, 1), 0);
  assert_int_equal(gpu_device_ordinal(2, 0, 1, 4), 2);
  assert_int_equal(gpu_device_ordinal(2, 5, 0, 4), 2);
  assert_int_equal(gpu_device_ordinal(4, 0, 0, 4), -1); /* no GPU 4 */
  assert_int_equal(gpu_device_ordinal(-1, 0, 0, 4), -1);
}

/* N devices: N consecutive ordinals from the base, each instance its own; an instance past the
 * GPUs present, or past n_devices, has none. */
static void several_devices_take_consecutive_ordinals(void **state) {
  (void)state;
  for (uint32_t d = 0; d < 4; d++)
    assert_int_equal(gpu_device_ordinal(0, d, 4, 4), (int)d);
  assert_int_equal(gpu_device_ordinal(1, 0, 2, 4), 1);
  assert_int_equal(gpu_device_ordinal(1, 1, 2, 4), 2);
  assert_int_equal(gpu_device_ordinal(3, 1, 2, 4), -1); /* gpu_count 2 from GPU 3 of 4 */
  assert_int_equal(gpu_device_ordinal(0, 1, 2, 1), -1); /* gpu_count 2 on a 1-GPU machine */
  assert_int_equal(gpu_device_ordinal(0, 2, 2, 8), -1); /* instance 2 of 2 */
}

/* CUDA's range on recent GPUs: least 0, greatest -5. */
static void priorities_step_or_jump_to_the_top(void **state) {
  (void)state;
  assert_int_equal(gpu_vendor_priority(0, -5, 0, 0), 0);
  assert_int_equal(gpu_vendor_priority(0, -5, 1, 0), -1);
  assert_int_equal(gpu_vendor_priority(0, -5, 9, 0), -5);
  assert_int_equal(gpu_vendor_priority(0, -5, 1, 1), -5);
  assert_int_equal(gpu_vendor_priority(0, -5, 0, 1), 0); /* normal queues stay at the default */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(one_device_is_the_base),
    cmocka_unit_test(several_devices_take_consecutive_ordinals),
    cmocka_unit_test(priorities_step_or_jump_to_the_top),
};
ATOLL_TEST_MAIN(tests)
