/* Fuzz target: the GPU preset loader (io/gpu_load.c). A failed load must leave the output
 * untouched; a preset that loads must write (io/gpu_write.c) and load back with every field the
 * writer writes unchanged (io/gpu_write_checked.c), as `atoll native --profile` needs. */
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "io/gpu_write_checked.h"
#include "io/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  atoll_source src = {.name = "fuzz.yaml", .text = text, .len = size};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_gpu g, untouched;
  memset(&g, 0xa5, sizeof g);
  memcpy(&untouched, &g, sizeof g);
  int rc = atoll_gpu_load_source(&a, &src, &g, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc != 0)
    FUZZ_CHECK(memcmp(&g, &untouched, sizeof g) == 0);
  else {
    FUZZ_CHECK(atoll_gpu_is_valid(&g));
    atoll_diag_clear(&d);
    const int wrc = atoll_gpu_write_checked(fuzz_null_stream(), &g, "fuzz", NULL, &d);
    if (wrc != 0)
      fprintf(stderr, "%s\n", d.msg);
    FUZZ_CHECK(wrc == 0);
  }
  atoll_arena_free(&a);
  free(text);
  return 0;
}
