/* Loading a scenario in a test: the file with --set overrides, failing the test with the located
 * error when it does not load. Shared by every test binary that runs scenarios. */
#ifndef ATOLL_TEST_SCENARIO_H
#define ATOLL_TEST_SCENARIO_H

#include <stdlib.h>

#include "tests/atoll_test.h"
#include "io/load.h"

typedef struct atoll_test_scenario {
  atoll_arena arena;
  atoll_scenario s;
} atoll_test_scenario;

static inline atoll_test_scenario *atoll_test_load(const char *path, const char *const *sets, uint32_t n) {
  atoll_test_scenario *l = calloc(1, sizeof *l);
  atoll_set_override ov[16];
  assert_non_null(l);
  assert_true(n <= 16);
  for (uint32_t i = 0; i < n; i++)
    ov[i] = (atoll_set_override){.text = sets[i]};
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_arena_init(&l->arena);
  if (atoll_scenario_load_file(&l->arena, path, ov, n, &l->s, &d) != 0)
    fail_msg("%s:%u:%u: %s", d.file, d.line, d.col, d.msg);
  return l;
}

static inline void atoll_test_unload(atoll_test_scenario *l) {
  atoll_arena_free(&l->arena);
  free(l);
}

#endif
