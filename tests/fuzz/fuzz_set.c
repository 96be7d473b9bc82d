/* Fuzz target: --set PATH=VALUE overrides (io/set_override.c) grafted onto a fixed scenario, then
 * the loader's strict read of the result. Each input line is one --set argument (at most 64, the
 * command line's limit); a command-line argument cannot hold a NUL, so such inputs are skipped. */
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "io/load.h"

/* Every top-level key, a list of named mappings, a scalar shorthand (policy) and a nested
 * mapping, so that paths can step through each kind of node. */
static const char base[] =
    "description: base scenario of the --set fuzz target\n"
    "gpu: mi50\n"
    "models:\n"
    "  tiny: models/tiny.yaml\n"
    "clients:\n"
    "  - {name: cam, model: tiny, class: rt, arrival: {kind: uniform, rate_hz: 100}, deadline_ms: 5}\n"
    "  - {name: replay, model: tiny, class: rt, arrival: {kind: trace, times_ms: [0, 1.5], repeat_ms: 10}}\n"
    "  - name: bg\n"
    "    model: tiny\n"
    "    class: be\n"
    "    arrival: {kind: closed}\n"
    "policy: reef\n"
    "duration_ms: 100\n"
    "warmup_ms: 10\n"
    "seed: 3\n"
    "expect:\n"
    "  - \"rt.norm_latency.p99 <= 2\"\n"
    "  - \"clients.cam.latency_us.max < 1000\"\n";

enum { MAX_SETS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz_has_nul(data, size))
    return 0;
  char *text = fuzz_text(data, size);
  atoll_set_override sets[MAX_SETS];
  uint32_t n = 0;
  for (char *line = text, *next; line && n < MAX_SETS; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    if (*line)
      sets[n++] = (atoll_set_override){.text = line};
  }
  atoll_source src = {.name = "base.yaml", .text = base, .len = sizeof base - 1};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s;
  int rc = atoll_scenario_load_source(&a, &src, ATOLL_SOURCE_DIR "/tests/fuzz/fixtures", sets, n, &s, &d);
  fuzz_check_diag(&d, rc, true);
  if (rc == 0)
    FUZZ_CHECK(atoll_scenario_is_valid(&s));
  atoll_arena_free(&a);
  free(text);
  return 0;
}
