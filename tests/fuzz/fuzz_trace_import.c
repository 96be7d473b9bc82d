/* Fuzz target: the GPU-trace importers (io/torch_import.c, io/profiler_csv_import.c, io/csv.c). The
 * first byte picks the format (0 Kineto JSON, 1 Nsight Systems CSV, 2 rocprof CSV, by its value
 * mod 3); the rest is the file. An imported model must be valid, and the profile atoll writes for it
 * must load back with the same ops (atoll_model_write_checked, the writer `atoll import` uses): an
 * import never writes what atoll cannot read. */
#include <string.h>

#include "atoll/error.h"
#include "tests/fuzz/fuzz.h"
#include "io/load.h"
#include "io/model_write_checked.h"
#include "io/profiler_csv_import.h"
#include "io/torch_import.h"

static const atoll_gpu *preset(const char *name) {
  static atoll_arena a;
  static atoll_gpu g[2];
  static bool done;
  if (!done) {
    atoll_diag d;
    atoll_diag_clear(&d);
    atoll_arena_init(&a);
    if (atoll_gpu_load_file(&a, ATOLL_SOURCE_DIR "/scenarios/gpus/h200.yaml", &g[0], &d) != 0 ||
        atoll_gpu_load_file(&a, ATOLL_SOURCE_DIR "/scenarios/gpus/mi50.yaml", &g[1], &d) != 0) {
      atoll_diag_print(&d, stderr);
      abort();
    }
    done = true;
  }
  return strcmp(name, "h200") == 0 ? &g[0] : &g[1];
}

static void check_round_trip(const atoll_model *m, const atoll_gpu *g) {
  atoll_diag d;
  atoll_diag_clear(&d);
  /* The checked writer loads the text back before it writes; what it writes is not kept. */
  const int rc =
      atoll_model_write_checked(fuzz_null_stream(), m, "fuzz", ATOLL_SOURCE_DIR "/scenarios/models", g, &d);
  if (rc != 0)
    atoll_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  char *text = fuzz_text(data + 1, size - 1);
  if (memchr(text, '\0', size - 1)) {
    free(text);
    return 0;
  }
  int kind = data[0] % 3;
  const atoll_gpu *g = preset(kind == 2 ? "mi50" : "h200");
  atoll_source src = {.name = "t", .text = text, .len = size - 1};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_model m;
  atoll_torch_opts o = {.name = "m", .iteration = -1};
  int rc = kind == 0 ? atoll_torch_import_source(&a, &src, g, &o, &m, NULL, &d)
                     : atoll_csv_trace_import_source(&a, &src, kind == 1 ? ATOLL_CSV_NSYS : ATOLL_CSV_ROCPROF, g, &o,
                                                     &m, NULL, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc == 0) {
    FUZZ_CHECK(atoll_model_is_valid(&m));
    check_round_trip(&m, g);
  }
  atoll_arena_free(&a);
  free(text);
  return 0;
}
