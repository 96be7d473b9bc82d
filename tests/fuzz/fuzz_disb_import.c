/* Fuzz target: the DISB importer (io/disb_import.c). The input is a DISB workload (REEF's JSON);
 * its models resolve in scenarios/models. The scenario it writes must load back (from
 * scenarios/disb, where `atoll import disb` writes the shipped ones) with the same clients. */
#include <string.h>

#include "atoll/error.h"
#include "io/disb_import.h"
#include "tests/fuzz/fuzz.h"
#include "io/load.h"

static void check_round_trip(const char *text, size_t len) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_source src = {.name = "written.yaml", .text = text, .len = len};
  atoll_scenario s;
  int rc = atoll_scenario_load_source(&a, &src, ATOLL_SOURCE_DIR "/scenarios/disb", NULL, 0, &s, &d);
  if (rc != 0) {
    atoll_diag_print(&d, stderr);
    fprintf(stderr, "--- written scenario:\n%s", text);
  }
  FUZZ_CHECK(rc == 0);
  FUZZ_CHECK(atoll_scenario_is_valid(&s));
  atoll_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  atoll_source src = {.name = "fuzz.json", .text = text, .len = size};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  char *out = NULL;
  size_t out_len = 0;
  FILE *f = open_memstream(&out, &out_len);
  FUZZ_CHECK(f != NULL);
  int rc = atoll_disb_import_source(&a, &src, ATOLL_SOURCE_DIR "/scenarios/models", ATOLL_SOURCE_DIR "/scenarios/disb", NULL,
                                    f, &d);
  FUZZ_CHECK(fclose(f) == 0);
  fuzz_check_diag(&d, rc, true);
  if (rc == 0)
    check_round_trip(out, out_len);
  else
    FUZZ_CHECK(out_len == 0); /* nothing half-written */
  free(out);
  atoll_arena_free(&a);
  free(text);
  return 0;
}
