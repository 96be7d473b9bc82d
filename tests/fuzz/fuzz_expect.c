/* Fuzz target: the `expect:` bound parser and field checker (core/expect.c), called directly with
 * the input as the bound's text. Offsets in errors must point inside the text. */
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz_has_nul(data, size))
    return 0; /* a YAML string cannot hold one: the loader refuses it before this parser */
  char *text = fuzz_text(data, size);
  static const char *const clients[] = {"cam", "bg", "rt_resnet152_0"};
  char field[128];
  atoll_cmp cmp;
  double value;
  atoll_expect_error err = {0};
  int rc = atoll_expect_parse(text, field, sizeof field, &cmp, &value, &err);
  if (rc == 0) {
    FUZZ_CHECK(strlen(field) > 0 && strlen(field) < sizeof field);
    FUZZ_CHECK((unsigned)cmp <= ATOLL_CMP_GT);
    err = (atoll_expect_error){0};
    rc = atoll_expect_field_check(field, clients, 3, &err);
    if (rc == 0) {
      double margin;
      (void)atoll_expect_holds(cmp, value, 1.0, &margin);
    } else {
      FUZZ_CHECK(rc == ATOLL_ENOENT && err.msg && err.offset <= strlen(field));
    }
  } else {
    FUZZ_CHECK(rc == ATOLL_EPARSE && err.msg && err.offset <= size);
  }
  free(text);
  return 0;
}
