/* The CSV reader (io/csv.h) behind the rocprof and Nsight Systems imports: the fields of records
 * that quote, double quotes, break lines inside quotes and hold a quote mid-field; and memory in
 * proportion to the text (each record once took the rest of the text from the arena, so a
 * 225 KB rocprof CSV of 3,000 rows ran out of the arena's cap). */
#include "tests/atoll_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/arena.h"
#include "io/csv.h"
#include "io/diag.h"

static void read_record(atoll_csv *c, atoll_arena *a, uint32_t want_line, uint32_t want_n,
                        const char *const *want) {
  atoll_diag d;
  atoll_diag_clear(&d);
  char **f = NULL;
  uint32_t n = 0, line = 0;
  assert_int_equal(atoll_csv_next(c, a, &f, &n, &line, &d), 1);
  assert_int_equal(line, want_line);
  assert_int_equal(n, want_n);
  for (uint32_t i = 0; i < n; i++)
    assert_string_equal(f[i], want[i]);
}

static void fields_of_tricky_records(void **state) {
  (void)state;
  /* A quote mid-field is text; a quoted field may hold commas, doubled quotes and a line break;
   * CRLF ends a record as LF does; blank lines are skipped. */
  const char text[] = "a\"b,\"x\ny\",c\r\n\n\"q,\"\"r\"\"\",,\"\"\nlast";
  atoll_source src = {.name = "t.csv", .text = text, .len = sizeof text - 1};
  atoll_csv c;
  atoll_csv_init(&c, &src);
  atoll_arena a;
  atoll_arena_init(&a);
  read_record(&c, &a, 1, 3, (const char *const[]){"a\"b", "x\ny", "c"});
  read_record(&c, &a, 4, 3, (const char *const[]){"q,\"r\"", "", ""});
  read_record(&c, &a, 5, 1, (const char *const[]){"last"});
  atoll_diag d;
  atoll_diag_clear(&d);
  char **f;
  uint32_t n, line;
  assert_int_equal(atoll_csv_next(&c, &a, &f, &n, &line, &d), 0);
  atoll_arena_free(&a);
}

static void memory_follows_the_text(void **state) {
  (void)state;
  enum { ROWS = 20000 };
  size_t cap = (size_t)ROWS * 64 + 64, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  len += (size_t)snprintf(text + len, cap - len, "Index,KernelName,BeginNs\n");
  for (uint32_t i = 0; i < ROWS; i++)
    len += (size_t)snprintf(text + len, cap - len, "%u,\"kernel_%u\",%u\n", i, i, 1000 * i);
  atoll_source src = {.name = "big.csv", .text = text, .len = len};
  atoll_csv c;
  atoll_csv_init(&c, &src);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  char **f;
  uint32_t n, line, records = 0;
  int rc;
  while ((rc = atoll_csv_next(&c, &a, &f, &n, &line, &d)) == 1)
    records++;
  assert_int_equal(rc, 0);
  assert_int_equal(records, ROWS + 1);
  /* The fields' text and pointers with the arena's rounding: a few times the text, not the
   * quadratic sum of what follows each record (about 5 GB here). */
  assert_true(a.reserved < 8 * len);
  atoll_arena_free(&a);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fields_of_tricky_records),
      cmocka_unit_test(memory_follows_the_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
