/* GPU memory of a placement (core/memory.c): known footprints summed per instance, unknown ones
 * counted, the preset's capacity carried, per GPU; one instance's memory; and a footprint from a
 * tensor table. */
#include "atoll/memory.h"

#include "atoll/error.h"
#include "tests/atoll_test.h"

static void sums_instances_and_counts_unknown_footprints(void **state) {
  (void)state;
  atoll_scenario_model models[2] = {{.name = "big"}, {.name = "tiny"}};
  models[0].model.footprint_known = true;
  models[0].model.weights_mb = 9000, models[0].model.activations_mb_per_batch = 120;
  atoll_client clients[3] = {{.name = "a", .model = 0}, {.name = "b", .model = 0}, {.name = "c", .model = 1}};
  atoll_scenario s = {.models = models, .n_models = 2, .clients = clients, .n_clients = 3};
  s.gpu.memory_mb = 16384;
  atoll_gpu_memory m;
  assert_int_equal(atoll_scenario_gpu_memory(&s, 0, &m), ATOLL_OK);
  assert_true(m.used_mb == 18240 && m.capacity_mb == 16384);
  assert_int_equal(m.instances, 3);
  assert_int_equal(m.unknown, 1);
  assert_int_equal(atoll_scenario_gpu_memory(&s, 1, &m), ATOLL_EINVAL);
  /* Two GPUs: each counts only its own clients, and a batching client holds the activations of
   * its largest batch. */
  s.gpu_count = 2;
  clients[1].gpu = 1, clients[1].batch_max = 4;
  assert_int_equal(atoll_scenario_gpu_memory(&s, 0, &m), ATOLL_OK);
  assert_true(m.used_mb == 9120 && m.instances == 2 && m.unknown == 1);
  assert_int_equal(atoll_scenario_gpu_memory(&s, 1, &m), ATOLL_OK);
  assert_true(m.used_mb == 9000 + 4 * 120 && m.instances == 1 && m.unknown == 0);
  assert_int_equal(atoll_scenario_gpu_memory(&s, 2, &m), ATOLL_EINVAL);
}

/* One instance: weights plus its largest batch's activations, batch 0 read as 1, and nothing for a
 * model without a footprint (its fields are not trusted even when set). */
static void instance_holds_weights_and_largest_batch(void **state) {
  (void)state;
  atoll_model m = {.footprint_known = true, .weights_mb = 500, .activations_mb_per_batch = 12.5};
  assert_true(atoll_model_instance_mb(&m, 0) == 512.5);
  assert_true(atoll_model_instance_mb(&m, 1) == 512.5);
  assert_true(atoll_model_instance_mb(&m, 32) == 900);
  m.footprint_known = false;
  assert_true(atoll_model_instance_mb(&m, 32) == 0);
}

/* Weights are the weight tensors' bytes; everything else is per-request activations (MB of 2^20). */
static void footprint_from_tensor_table(void **state) {
  (void)state;
  const atoll_tensor t[] = {{.name = "data", .bytes = 1 << 20, .kind = ATOLL_TENSOR_INPUT},
                            {.name = "w0", .bytes = 3 << 20, .kind = ATOLL_TENSOR_WEIGHT},
                            {.name = "w1", .bytes = 1 << 19, .kind = ATOLL_TENSOR_WEIGHT},
                            {.name = "t0", .bytes = 1 << 18, .kind = ATOLL_TENSOR_INTERMEDIATE},
                            {.name = "output", .bytes = 1 << 18, .kind = ATOLL_TENSOR_OUTPUT}};
  atoll_model m = {.tensors = t, .n_tensors = 5};
  atoll_model_footprint_from_tensors(&m);
  assert_true(m.footprint_known);
  assert_true(m.weights_mb == 3.5);
  assert_true(m.activations_mb_per_batch == 1.5);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(sums_instances_and_counts_unknown_footprints),
    cmocka_unit_test(footprint_from_tensor_table),
    cmocka_unit_test(instance_holds_weights_and_largest_batch),
};
ATOLL_TEST_MAIN(tests)
