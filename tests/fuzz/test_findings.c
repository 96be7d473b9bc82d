/* Regression cases for fuzzing findings on valid input (bad-input findings live in the bad-input
 * corpora, scenarios/bad and scenarios/idem/bad, with their exact messages). The inputs that found
 * them are also replayed through their harnesses from regress/ (ctest label fuzz-regress). */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll_test.h"
#include "readers.h"
#include "report.h"
#include "sweep.h"

/* Ops that access no memory: the trace has no access array at all. Each op is its own idempotent
 * group, and the search and every writer handle it (fuzz_idem_text found the search forming a
 * pointer into the missing array, which is undefined behaviour). */
static void ops_without_accesses(void **state) {
  (void)state;
  static const char text[] = "kernel a\nmemset b\nkernel c\n";
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  idem_trace t;
  idem_trace_init(&t);
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_int_equal(idem_read_text(f, "t", &t, &d), ATOLL_OK);
  fclose(f);
  assert_int_equal(t.n_ops, 3);
  assert_int_equal(t.n_acc, 0);
  uint32_t entry[3];
  assert_int_equal(idem_search(&t, entry), ATOLL_OK);
  for (uint32_t i = 0; i < 3; i++)
    assert_int_equal(entry[i], i);
  idem_summary s;
  assert_int_equal(idem_summary_compute(&t, entry, &s), ATOLL_OK);
  assert_int_equal(s.idempotent_kernels, 2);
  FILE *out = fopen("/dev/null", "w");
  assert_non_null(out);
  assert_int_equal(idem_write_json(out, "t", IDEM_FMT_TEXT, &t, entry, &s), ATOLL_OK);
  assert_int_equal(idem_write_dot(out, "t", &t, entry), ATOLL_OK);
  fclose(out);
  idem_summary_free(&s);
  idem_trace_free(&t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(ops_without_accesses),
};

ATOLL_TEST_MAIN(tests)
