/* Fuzz target: the scenario loader (io/scenario_load.c), which also runs the `expect:` parser, the
 * GPU preset loader for inline GPUs and, through the files a scenario names, the profile loader.
 * The input is a scenario's text; the files it names resolve against tests/fuzz/fixtures, which
 * links the small profiles and traces the bad-input corpus and the examples use (models/tiny.yaml,
 * traces/bad.txt, tiny-model.yaml, ...), so every seed resolves and no run parses a large profile.
 * A failed load must leave the output untouched. */
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "io/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  atoll_source src = {.name = "fuzz.yaml", .text = text, .len = size};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s, untouched;
  memset(&s, 0xa5, sizeof s);
  memcpy(&untouched, &s, sizeof s);
  int rc = atoll_scenario_load_source(&a, &src, ATOLL_SOURCE_DIR "/tests/fuzz/fixtures", NULL, 0, &s, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc != 0)
    FUZZ_CHECK(memcmp(&s, &untouched, sizeof s) == 0);
  else
    FUZZ_CHECK(atoll_scenario_is_valid(&s));
  atoll_arena_free(&a);
  free(text);
  return 0;
}
