/* Idempotence metadata (io/idem_meta.h): what idem_checker writes loads back to the same thing,
 * applies to a model whose ops match, and is refused — with FILE:LINE:COL — when it is malformed or
 * describes other ops. */
#include "tests/idem/idem_test.h"

#include <unistd.h>

#include "io/idem_meta.h"
#include "io/load.h"
#include "idem/report.h"

#define TINY ATOLL_SOURCE_DIR "/scenarios/examples/tiny-model.yaml"

/* Writes text to a fresh temporary file; returns its path (static storage, one at a time). */
static const char *temp_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/idem_meta_XXXXXX");
  int fd = mkstemp(path);
  assert_cmp(fd, >=, 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void written_metadata_loads_back(void **state) {
  (void)state;
  idem_trace t;
  trace_from_text(&t, "memcpy in\nw 0x0 16\nkernel \"odd\\name\"\nr 0x0 16\nw 0x100 16\nkernel inplace\n"
                      "r 0x100 16\nw 0x100 16\nkernel bad\nr 0x200 4\nw 0x200 4\nmemset z\nw 0x300 4\n");
  uint32_t e[5];
  assert_rc(idem_search(&t, e), ATOLL_OK);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_idem_meta meta;
  assert_rc(idem_build_meta(&a, "trace \"x\".txt", &t, e, &meta), ATOLL_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_rc(atoll_idem_meta_write(f, &meta), ATOLL_OK);
  fclose(f);
  const char *path = temp_file(buf);
  atoll_idem_meta back;
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = atoll_idem_meta_load_file(&a, path, &back, &d);
  if (rc)
    atoll_diag_print(&d, stderr);
  assert_rc(rc, ATOLL_OK);
  unlink(path);
  assert_string_equal(back.source, "trace \"x\".txt");
  assert_u64(back.n_ops, 5);
  static const atoll_idem want[] = {ATOLL_IDEM_YES, ATOLL_IDEM_YES, ATOLL_IDEM_GROUP, ATOLL_IDEM_NONE, ATOLL_IDEM_YES};
  for (uint32_t i = 0; i < 5; i++) {
    assert_int_equal(back.ops[i].kind, meta.ops[i].kind);
    assert_string_equal(back.ops[i].name, t.ops[i].name);
    assert_int_equal(back.ops[i].idem, want[i]);
  }
  assert_u64(back.ops[2].group_entry, 1);
  assert_non_null(strstr(buf, "{kind: kernel, name: \"bad\", idempotent: false}  # op 3: not restorable"));
  free(buf);
  atoll_arena_free(&a);
  idem_trace_free(&t);
}

static void applies_to_a_matching_profile(void **state) {
  (void)state;
  const char *path = temp_file("atoll_idem: 1\nn_ops: 5\nops:\n"
                               "  - {kind: memcpy, name: whatever, idempotent: true}\n"
                               "  - {kind: kernel, name: conv_kernel0, idempotent: true}\n"
                               "  - {kind: kernel, name: relu_kernel0, group_entry: 1}\n"
                               "  - {kind: kernel, name: dense_kernel0, idempotent: false}\n"
                               "  - {kind: memcpy, name: out, group_entry: 3}\n");
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_model m;
  assert_rc(atoll_model_load_file(&a, TINY, NULL, &m, &d), ATOLL_OK);
  const atoll_op *before = m.ops;
  uint32_t none = 99;
  int rc = atoll_idem_meta_apply_file(&a, path, &m, &none, &d);
  if (rc)
    atoll_diag_print(&d, stderr);
  assert_rc(rc, ATOLL_OK);
  unlink(path);
  assert_ptr_not_equal(m.ops, before); /* the model's own array is left alone */
  assert_int_equal(m.ops[1].idem, ATOLL_IDEM_YES);
  assert_int_equal(m.ops[2].idem, ATOLL_IDEM_GROUP);
  assert_u64(m.ops[2].group_entry, 1);
  assert_int_equal(m.ops[3].idem, ATOLL_IDEM_NONE);
  assert_int_equal(m.ops[4].idem, ATOLL_IDEM_UNKNOWN); /* copies keep no idempotence in a profile */
  assert_u64(none, 1);
  assert_true(atoll_model_is_valid(&m));
  atoll_arena_free(&a);
}

/* "LINE:COL: message" of a failed load (and apply to the tiny profile when apply is set). */
static void expect_error(const char *text, bool apply, const char *want) {
  const char *path = temp_file(text);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc;
  if (apply) {
    atoll_model m;
    assert_rc(atoll_model_load_file(&a, TINY, NULL, &m, &d), ATOLL_OK);
    rc = atoll_idem_meta_apply_file(&a, path, &m, NULL, &d);
  } else {
    atoll_idem_meta meta;
    rc = atoll_idem_meta_load_file(&a, path, &meta, &d);
  }
  unlink(path);
  atoll_arena_free(&a);
  assert_rc(rc, ATOLL_EPARSE);
  char got[700];
  snprintf(got, sizeof got, "%u:%u: %s", d.line, d.col, d.msg);
  if (strcmp(got, want) != 0) {
    print_error("got\n  %s\nexpected\n  %s\n", got, want);
    fail();
  }
}

static void malformed_metadata_is_refused(void **state) {
  (void)state;
  expect_error("atoll_idem: 2\nn_ops: 1\nops:\n  - {kind: kernel, name: k, idempotent: true}\n", false,
               "1:13: 2 is not supported here (expected 1)");
  expect_error("atoll_idem: 1\nops:\n  - {kind: kernel, name: k, idempotent: true}\n", false,
               "1:1: missing required key 'n_ops'");
  expect_error("atoll_idem: 1\nn_ops: 2\nops:\n  - {kind: kernel, name: k, idempotent: true}\n", false,
               "4:3: n_ops is 2 but ops lists 1 operations");
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: kernel, name: k}\n", false,
               "4:5: an op needs 'idempotent: true', 'group_entry: N' or 'idempotent: false' (not restorable)");
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: kernel, name: k, group_entry: 1}\n", false,
               "4:42: group_entry 1 is after this op (ops[0]); a group entry is at or before its op");
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: kernel, name: k, idempotent: true, group_entry: 0}\n", false,
               "4:60: group_entry given for an op marked idempotent: true");
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: launch, name: k, idempotent: true}\n", false,
               "4:12: unknown op kind 'launch' (expected one of: kernel, memcpy, memset)");
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: kernel, name: k, idempotent: true, time: 3}\n", false,
               "4:47: unknown key 'time' in op (expected one of: kind, name, idempotent, group_entry)");
}

static void metadata_for_other_ops_is_refused(void **state) {
  (void)state;
  expect_error("atoll_idem: 1\nn_ops: 1\nops:\n  - {kind: kernel, name: k, idempotent: true}\n", true,
               "2:8: the metadata describes 1 operations but model 'tiny' has 5");
  expect_error("atoll_idem: 1\nn_ops: 5\nops:\n  - {kind: kernel, name: a, idempotent: true}\n"
               "  - {kind: kernel, name: conv_kernel0, idempotent: true}\n"
               "  - {kind: kernel, name: relu_kernel0, idempotent: true}\n"
               "  - {kind: kernel, name: dense_kernel0, idempotent: true}\n"
               "  - {kind: memcpy, name: out, idempotent: true}\n",
               true, "4:5: ops[0] is a kernel here but a memcpy in model 'tiny'");
  expect_error("atoll_idem: 1\nn_ops: 5\nops:\n  - {kind: memcpy, name: a, idempotent: true}\n"
               "  - {kind: kernel, name: conv_kernel0, idempotent: true}\n"
               "  - {kind: kernel, name: relu, idempotent: true}\n"
               "  - {kind: kernel, name: dense_kernel0, idempotent: true}\n"
               "  - {kind: memcpy, name: out, idempotent: true}\n",
               true, "6:5: ops[2] is kernel 'relu' here but kernel 'relu_kernel0' in model 'tiny'");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(written_metadata_loads_back),
    cmocka_unit_test(applies_to_a_matching_profile),
    cmocka_unit_test(malformed_metadata_is_refused),
    cmocka_unit_test(metadata_for_other_ops_is_refused),
};
ATOLL_TEST_MAIN(tests)
