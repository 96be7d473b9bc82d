/* Helpers shared by the fuzz harnesses; see fuzz.h. */
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "atoll/error.h"

_Noreturn void fuzz_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", what, file, line);
  abort();
}

char *fuzz_text(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s)
    abort();
  if (size)
    memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

bool fuzz_has_nul(const uint8_t *data, size_t size) { return size && memchr(data, 0, size) != NULL; }

FILE *fuzz_null_stream(void) {
  static FILE *f;
  if (!f)
    f = fopen("/dev/null", "w");
  if (!f)
    abort();
  return f;
}

void fuzz_check_diag(const atoll_diag *d, int rc, bool located_parse_errors) {
  /* FUZZ_VERBOSE=1 shows each input's outcome, to see what a corpus file exercises. */
  static int verbose = -1;
  if (verbose < 0)
    verbose = getenv("FUZZ_VERBOSE") != NULL;
  if (verbose) {
    if (rc == 0)
      fprintf(stderr, "ok\n");
    else
      atoll_diag_print(d, stderr);
  }
  if (rc == 0) {
    FUZZ_CHECK(!d->set);
    return;
  }
  FUZZ_CHECK(rc < 0);
  FUZZ_CHECK(d->set);
  FUZZ_CHECK(d->msg[0] != '\0');
  if (d->line > 0) {
    FUZZ_CHECK(d->file[0] != '\0');
    FUZZ_CHECK(d->col >= 1);
  }
  if (located_parse_errors && rc == ATOLL_EPARSE && d->line == 0) {
    fprintf(stderr, "unlocated parse error: %s: %s\n", d->file, d->msg);
    FUZZ_CHECK(d->line > 0);
  }
  atoll_diag_print(d, fuzz_null_stream());
}
