/* Regression cases for fuzzing findings on valid input (bad-input findings live in the bad-input
 * corpora, scenarios/bad and scenarios/idem/bad, with their exact messages). The inputs that found
 * them are also replayed through their harnesses from regress/ (ctest label fuzz-regress). */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "idem/readers.h"
#include "idem/report.h"
#include "idem/sweep.h"
#include "io/ytree.h"
#include "io/yquote.h"

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

/* fuzz_idem_text found metadata that idem_checker wrote and could not read back: a name holding
 * bytes that are not UTF-8 (readers now refuse those: the name_not_utf8 files of scenarios/idem/bad). For
 * valid UTF-8 the writer must escape what YAML would refuse raw or fold: controls, C1 controls,
 * the line breaks U+0085, U+2028, U+2029, and U+FFFE/U+FFFF. Each such name reads back unchanged,
 * through each writer: always quoted, plain where safe, and a path plain where safe. */
static void yaml_quoting_round_trips(void **state) {
  (void)state;
  static const char *const names[] = {
      "plain",          "with \"quotes\" and \\",  "tab\there",     "ctl\x01\x1f\x7f",
      "c1 \xc2\x80\xc2\x9f", "nel \xc2\x85",      "ls \xe2\x80\xa8 ps \xe2\x80\xa9",
      "nonchar \xef\xbf\xbe\xef\xbf\xbf", "bom \xef\xbb\xbf mid", "astral \xf0\x9f\x98\x80",
      "void f<int>(float*, char const*)", "  lead and trail  ", "#hash: colon, [flow] {map}",
      "null", "Yes", "1e5", "0x1f", ".inf", "-dash", "models/resnet.yaml", "../m/1.yaml", "-/x.yaml",
      "a b/c.yaml", "dir/null", "./yes", "/abs/p_q-1.yaml", "",
  };
  static void (*const writers[])(FILE *, const char *) = {atoll_yaml_write_quoted, atoll_yaml_write_str,
                                                          atoll_yaml_write_path};
  for (size_t k = 0; k < 3 * (sizeof names / sizeof names[0]); k++) {
    size_t i = k / 3;
    assert_true(atoll_utf8_valid(names[i], strlen(names[i]), NULL));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fputs("k: ", f);
    writers[k % 3](f, names[i]);
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
    atoll_arena a;
    atoll_arena_init(&a);
    atoll_diag d;
    atoll_diag_clear(&d);
    atoll_source src = {.name = "q.yaml", .text = buf, .len = len};
    atoll_ynode *root;
    int rc = atoll_ytree_parse(&a, &src, 0, &root, &d);
    if (rc)
      atoll_diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    const atoll_ynode *v = atoll_ymap_get(root, "k");
    assert_non_null(v);
    if (v->len != strlen(names[i]) || memcmp(v->str, names[i], v->len) != 0)
      fail_msg("name %zu did not read back through writer %zu: wrote %s", i, k % 3, buf);
    atoll_arena_free(&a);
    free(buf);
  }
  size_t bad = 0;
  assert_false(atoll_utf8_valid("ok\xc0\xafx", 5, &bad)); /* overlong '/' */
  assert_int_equal(bad, 2);
  assert_false(atoll_utf8_valid("\xed\xa0\x80", 3, &bad)); /* a surrogate */
  assert_int_equal(bad, 0);
  assert_false(atoll_utf8_valid("ab\xe2\x82", 4, &bad)); /* cut short */
  assert_int_equal(bad, 2);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(ops_without_accesses),
    cmocka_unit_test(yaml_quoting_round_trips),
};

ATOLL_TEST_MAIN(tests)
