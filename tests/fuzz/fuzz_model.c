/* Fuzz target: the model-profile loader (io/model_load.c). The input is a profile's text; its
 * `gpu:` preset is looked up from scenarios/models, as for the shipped profiles. A loaded model
 * must pass atoll_model_is_valid(); a failed load must leave the output untouched. */
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
  atoll_model m, untouched;
  memset(&m, 0xa5, sizeof m);
  memcpy(&untouched, &m, sizeof m);
  int rc = atoll_model_load_source(&a, &src, ATOLL_SOURCE_DIR "/scenarios/models", NULL, &m, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc != 0)
    FUZZ_CHECK(memcmp(&m, &untouched, sizeof m) == 0);
  else
    FUZZ_CHECK(atoll_model_is_valid(&m));
  atoll_arena_free(&a);
  free(text);
  return 0;
}
