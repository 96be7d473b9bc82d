/* GPU memory of a placement (core/memory.c): known footprints summed per instance, unknown ones
 * counted, the preset's capacity carried, and only GPU 0 today. */
#include "atoll/memory.h"

#include "atoll/error.h"
#include "atoll_test.h"

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
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(sums_instances_and_counts_unknown_footprints),
};
ATOLL_TEST_MAIN(tests)
