/* The GPU back-ends' partition arithmetic (native/gpu/gpu_partition.h): HIP's CU mask words, and
 * the SM count of a CUDA green context rounded to the device's granularity (docs/partitions.md). */
#include "tests/atoll_test.h"

#include "native/gpu/gpu_partition.h"

static void mask_words_put_cu_i_at_bit_i(void **state) {
  (void)state;
  atoll_cuset s = {{0}};
  atoll_cuset_add_range(&s, 0, 9);
  atoll_cuset_add_range(&s, 20, 29);
  atoll_cuset_add_range(&s, 59, 59);
  uint32_t mask[3] = {7, 7, 7};
  gpu_cu_mask_words(&s, mask, 2); /* an MI50: 60 CUs, two words */
  assert_int_equal(mask[0], 0x3FF003FFu);
  assert_int_equal(mask[1], 1u << 27);
  assert_int_equal(mask[2], 7); /* past the words asked for: untouched */
  assert_int_equal(gpu_cuset_count(&s), 21);
  assert_int_equal(gpu_cuset_end(&s), 60);
  atoll_cuset high = {{0}}, none = {{0}};
  atoll_cuset_add_range(&high, 200, 255);
  assert_int_equal(gpu_cuset_end(&high), 256);
  assert_int_equal(gpu_cuset_end(&none), 0);
}

/* With a minimum of 8 and an alignment of 8 (the figures used as the example in the docs): 66 SMs
 * (half of an H100) become 72, 3 become 8, 128 stay; the device's 132 cap any request. With a
 * minimum of 2 and an alignment of 2: 5 becomes 6. No alignment given (0 or 1): the minimum only. */
static void green_sm_count_rounds_up_to_the_granularity(void **state) {
  (void)state;
  assert_int_equal(gpu_green_sm_count(66, 8, 8, 132), 72);
  assert_int_equal(gpu_green_sm_count(3, 8, 8, 132), 8);
  assert_int_equal(gpu_green_sm_count(128, 8, 8, 132), 128);
  assert_int_equal(gpu_green_sm_count(131, 8, 8, 132), 132);
  assert_int_equal(gpu_green_sm_count(5, 2, 2, 80), 6);
  assert_int_equal(gpu_green_sm_count(1, 4, 0, 80), 4);
  assert_int_equal(gpu_green_sm_count(7, 1, 1, 80), 7);
}

/* Bound queues on an H100-like pool of 132 SMs: two disjoint halves of 66 CUs become 72 + 60 (the
 * second is what the first left, not a fresh 72 that could share SMs with it); a queue bound to a
 * set seen before shares its partition; a set overlapping another is refused, and so is a third
 * partition once the pool is spent. */
static void partitions_are_cut_from_what_is_left(void **state) {
  (void)state;
  gpu_partition_table t = {.free_sms = 132};
  atoll_cuset lo = {{0}}, hi = {{0}}, mid = {{0}}, tail = {{0}};
  atoll_cuset_add_range(&lo, 0, 65);
  atoll_cuset_add_range(&hi, 66, 131);
  atoll_cuset_add_range(&mid, 60, 70);
  atoll_cuset_add_range(&tail, 140, 147);
  uint32_t idx = 99;
  assert_int_equal(gpu_partition_pick(&t, &lo, gpu_green_sm_count(66, 8, 8, 132), &idx), GPU_PART_NEW);
  assert_int_equal(idx, 0);
  gpu_partition_commit(&t, &lo, 72);
  assert_int_equal(t.free_sms, 60);
  assert_int_equal(gpu_partition_pick(&t, &hi, gpu_green_sm_count(66, 8, 8, 132), &idx), GPU_PART_EXHAUSTED);
  assert_int_equal(gpu_partition_pick(&t, &hi, 60, &idx), GPU_PART_NEW);
  assert_int_equal(idx, 1);
  gpu_partition_commit(&t, &hi, 60);
  assert_int_equal(t.free_sms, 0);
  assert_int_equal(gpu_partition_pick(&t, &lo, 72, &idx), GPU_PART_REUSE);
  assert_int_equal(idx, 0);
  assert_int_equal(gpu_partition_pick(&t, &hi, 60, &idx), GPU_PART_REUSE);
  assert_int_equal(idx, 1);
  assert_int_equal(gpu_partition_pick(&t, &mid, 16, &idx), GPU_PART_OVERLAP);
  assert_int_equal(idx, 0);
  assert_int_equal(gpu_partition_pick(&t, &tail, 8, &idx), GPU_PART_EXHAUSTED);
  assert_int_equal(t.n, 2);
}

/* The table holds GPU_PARTITIONS_MAX sets; the next is refused as FULL, not written past the end. */
static void partition_table_refuses_past_its_size(void **state) {
  (void)state;
  gpu_partition_table t = {.free_sms = 1000};
  uint32_t idx = 0;
  for (uint32_t i = 0; i < GPU_PARTITIONS_MAX; i++) {
    atoll_cuset one = {{0}};
    atoll_cuset_add_range(&one, i, i);
    assert_int_equal(gpu_partition_pick(&t, &one, 1, &idx), GPU_PART_NEW);
    assert_int_equal(idx, i);
    gpu_partition_commit(&t, &one, 1);
  }
  atoll_cuset next = {{0}};
  atoll_cuset_add_range(&next, GPU_PARTITIONS_MAX, GPU_PARTITIONS_MAX);
  assert_int_equal(gpu_partition_pick(&t, &next, 1, &idx), GPU_PART_FULL);
  assert_int_equal(t.free_sms, 1000 - GPU_PARTITIONS_MAX);
}

/* An RT reserve of 16 SMs and the rest on an H100 (132 SMs, say minimum 8, alignment 8): the rest
 * (116) rounds up to 120, more than the 116 left, so it takes 112 (116 rounded down); a set larger
 * than what is left is still refused, and a set that fits rounded is not cut down. */
static void the_rest_takes_what_is_left(void **state) {
  (void)state;
  assert_int_equal(gpu_green_sm_fit(16, 8, 8, 132, 132), 16);
  assert_int_equal(gpu_green_sm_fit(116, 8, 8, 132, 116), 112);
  assert_int_equal(gpu_green_sm_fit(117, 8, 8, 132, 116), 120); /* > free: EXHAUSTED in pick */
  assert_int_equal(gpu_green_sm_fit(60, 8, 8, 132, 116), 64);
  assert_int_equal(gpu_green_sm_fit(5, 8, 8, 132, 6), 8); /* below the minimum: refused */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(partitions_are_cut_from_what_is_left),
    cmocka_unit_test(partition_table_refuses_past_its_size),
    cmocka_unit_test(mask_words_put_cu_i_at_bit_i),
    cmocka_unit_test(green_sm_count_rounds_up_to_the_granularity),
    cmocka_unit_test(the_rest_takes_what_is_left),
};
ATOLL_TEST_MAIN(tests)
