/* See fuzz_idem.h. */
#include "tests/fuzz/fuzz_idem.h"

#include <string.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "tests/fuzz/fuzz.h"
#include "io/idem_meta.h"
#include "idem/readers.h"
#include "idem/report.h"
#include "idem/sweep.h"

static void check_meta_round_trip(const idem_trace *t, const uint32_t *entry) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_idem_meta meta;
  FUZZ_CHECK(idem_build_meta(&a, "fuzz", t, entry, &meta) == ATOLL_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  FUZZ_CHECK(f != NULL);
  FUZZ_CHECK(atoll_idem_meta_write(f, &meta) == ATOLL_OK);
  FUZZ_CHECK(fclose(f) == 0);
  atoll_source src = {.name = "written.yaml", .text = buf, .len = len};
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_idem_meta back;
  int rc = atoll_idem_meta_load_source(&a, &src, &back, &d);
  if (rc != 0) {
    atoll_diag_print(&d, stderr);
    fprintf(stderr, "--- written metadata:\n%s", buf);
  }
  FUZZ_CHECK(rc == ATOLL_OK);
  FUZZ_CHECK(back.n_ops == meta.n_ops);
  for (uint32_t i = 0; i < meta.n_ops; i++) {
    FUZZ_CHECK(back.ops[i].kind == meta.ops[i].kind && back.ops[i].idem == meta.ops[i].idem);
    FUZZ_CHECK(back.ops[i].idem != ATOLL_IDEM_GROUP || back.ops[i].group_entry == meta.ops[i].group_entry);
    FUZZ_CHECK(strcmp(back.ops[i].name, meta.ops[i].name) == 0);
  }
  atoll_arena_free(&a);
  free(buf);
}

static void check_search(const idem_trace *t) {
  uint32_t *entry = malloc((size_t)t->n_ops * sizeof *entry);
  FUZZ_CHECK(entry != NULL);
  FUZZ_CHECK(idem_search(t, entry) == ATOLL_OK);
  for (uint32_t i = 0; i < t->n_ops; i++)
    FUZZ_CHECK(entry[i] == IDEM_NO_ENTRY || entry[i] <= i);
  idem_summary s;
  FUZZ_CHECK(idem_summary_compute(t, entry, &s) == ATOLL_OK);
  FILE *out = fuzz_null_stream();
  idem_print_summary(out, "fuzz", IDEM_FMT_TEXT, t, entry, &s, 8);
  FUZZ_CHECK(idem_write_json(out, "fuzz", IDEM_FMT_TEXT, t, entry, &s) == ATOLL_OK);
  FUZZ_CHECK(idem_write_dot(out, "fuzz", t, entry) == ATOLL_OK);
  check_meta_round_trip(t, entry);
  idem_summary_free(&s);
  free(entry);
}

int fuzz_idem_run(const uint8_t *data, size_t size, fuzz_idem_reader read) {
  /* fmemopen refuses an empty buffer; any one byte with a length of 0 reads as empty. */
  static char empty[1];
  FILE *in = fmemopen(size ? (void *)data : empty, size ? size : 1, "r");
  FUZZ_CHECK(in != NULL);
  if (size == 0)
    FUZZ_CHECK(fseek(in, 0, SEEK_END) == 0);
  idem_trace t;
  idem_trace_init(&t);
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = read(in, "fuzz.txt", &t, &d);
  fclose(in);
  fuzz_check_diag(&d, rc, false);
  if (rc == ATOLL_OK) {
    FUZZ_CHECK(t.n_ops > 0);
    check_search(&t);
  }
  idem_trace_free(&t);
  return 0;
}
