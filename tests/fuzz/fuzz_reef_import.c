/* Fuzz target: the REEF model importer (io/reef_import.c). The input is the three files of a REEF
 * model directory, <m>.json, <m>.profile.json and <m>.params.json, separated by NUL bytes (JSON
 * text holds none). An imported model must be valid, and the profile atoll writes for it must load
 * back with the same names, ops and tensors (atoll_model_write_checked, the writer `atoll import`
 * uses): an import never writes what atoll cannot read. */
#include <string.h>

#include "atoll/error.h"
#include "tests/fuzz/fuzz.h"
#include "io/load.h"
#include "io/model_write_checked.h"
#include "io/reef_import.h"

static const atoll_gpu *mi50(void) {
  static atoll_arena a;
  static atoll_gpu g;
  static bool done;
  if (!done) {
    atoll_diag d;
    atoll_diag_clear(&d);
    atoll_arena_init(&a);
    if (atoll_gpu_load_file(&a, ATOLL_SOURCE_DIR "/scenarios/gpus/mi50.yaml", &g, &d) != 0) {
      atoll_diag_print(&d, stderr);
      abort();
    }
    done = true;
  }
  return &g;
}

static void check_round_trip(const atoll_model *m) {
  atoll_diag d;
  atoll_diag_clear(&d);
  /* The checked writer loads the text back before it writes; what it writes is not kept. */
  const int rc =
      atoll_model_write_checked(fuzz_null_stream(), m, "fuzz", ATOLL_SOURCE_DIR "/scenarios/models", mi50(), &d);
  if (rc != 0)
    atoll_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  atoll_source src[3] = {{.name = "m.json"}, {.name = "m.profile.json"}, {.name = "m.params.json"}};
  /* Three parts: the first two end at a NUL; the third runs to the end. */
  const char *p = text, *end = text + size;
  for (int i = 0; i < 3; i++) {
    const char *nul = i < 2 ? memchr(p, '\0', (size_t)(end - p)) : end;
    if (!nul) {
      free(text);
      return 0;
    }
    src[i].text = p;
    src[i].len = (size_t)(nul - p);
    p = nul + (i < 2);
  }
  if (memchr(src[2].text, '\0', src[2].len)) {
    free(text);
    return 0;
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_model m;
  int rc = atoll_reef_import_sources(&a, "m", &src[0], &src[1], &src[2], mi50(), &m, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc == 0) {
    FUZZ_CHECK(atoll_model_is_valid(&m));
    check_round_trip(&m);
  }
  atoll_arena_free(&a);
  free(text);
  return 0;
}
