/* The trace readers: the text format's accepted forms and its errors (the bad-input corpus checks
 * the command line; these check the reader directly), and NVBit mem_trace output in both
 * generations: launch grouping, lane coalescing, sizes from opcodes, atomics, skipped lines. */
#include "tests/idem/idem_test.h"

static void expect_access(const idem_trace *t, uint32_t op, uint32_t k, bool write, uint64_t lo, uint64_t hi) {
  assert_cmp(k, <, t->ops[op].n_acc);
  const idem_access *a = &t->acc[t->ops[op].first + k];
  if (a->write != write || a->lo != lo || a->hi != hi) {
    print_error("op %u access %u is %c [0x%llx, 0x%llx), expected %c [0x%llx, 0x%llx)\n", op, k, a->write ? 'w' : 'r',
                (unsigned long long)a->lo, (unsigned long long)a->hi, write ? 'w' : 'r', (unsigned long long)lo,
                (unsigned long long)hi);
    fail();
  }
}

static void text_accepts_the_documented_forms(void **state) {
  (void)state;
  idem_trace t;
  trace_from_text(&t, "# header\n\n  kernel conv1   # trailing comment\n"
                      "r 0x7f0000001000 602112\r\n"
                      "\tw\t4096\t0x10\n"
                      "memset zero_out\nw 0X20 16\n"
                      "memcpy weights_h2d\nkernel empty\n"
                      "w 0xffffffffffffff00 255\n");
  assert_u64(t.n_ops, 4);
  assert_string_equal(t.ops[0].name, "conv1");
  assert_int_equal(t.ops[0].kind, IDEM_OP_KERNEL);
  assert_u64(t.ops[0].line, 3);
  expect_access(&t, 0, 0, false, 0x7f0000001000, 0x7f0000001000 + 602112);
  expect_access(&t, 0, 1, true, 4096, 4096 + 16);
  assert_int_equal(t.ops[1].kind, IDEM_OP_MEMSET);
  expect_access(&t, 1, 0, true, 0x20, 0x30);
  assert_int_equal(t.ops[2].kind, IDEM_OP_MEMCPY);
  assert_u64(t.ops[2].n_acc, 0);
  expect_access(&t, 3, 0, true, 0xffffffffffffff00, UINT64_MAX);
  idem_trace_free(&t);
}

static void text_errors_name_line_and_column(void **state) {
  (void)state;
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"r 0 1\n", "1:1: access line before any op line (start an op with 'kernel NAME', 'memcpy NAME' or 'memset NAME')"},
      {"kernel k\nrw 0 1\n", "2:1: unknown line 'rw' (expected kernel, memcpy, memset, r or w)"},
      {"kernel\n", "1:7: missing op name (an op line is 'kernel NAME')"},
      {"memcpy a b\n", "1:10: unexpected 'b' after the op name (names have no blanks; comments start with #)"},
      {"kernel k\nr -5 1\n", "2:3: bad address '-5' (hex 0x... or decimal)"},
      {"kernel k\nr 0x 1\n", "2:3: bad address '0x' (hex 0x... or decimal)"},
      {"kernel k\nr 12ab 1\n", "2:3: bad address '12ab' (hex 0x... or decimal)"},
      {"kernel k\nr 0x10000000000000000 1\n", "2:3: address '0x10000000000000000' does not fit in 64 bits"},
      {"kernel k\nw 16\n", "2:5: missing length (an access line is 'r|w ADDRESS LENGTH')"},
      {"kernel k\nw 16 0\n", "2:6: length must be > 0"},
      {"kernel k\nw 16 1 2\n", "2:8: unexpected '2' after the length"},
      {"kernel k\nw 0xffffffffffffffff 1\n", "2:22: range 0xffffffffffffffff + 1 runs past the end of the 64-bit address space"},
  };
  char got[600];
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    text_error(cases[k].text, got, sizeof got);
    if (strcmp(got, cases[k].want) != 0) {
      print_error("input %zu: got\n  %s\nexpected\n  %s\n", k, got, cases[k].want);
      fail();
    }
  }
}

static void text_without_ops_is_an_error(void **state) {
  (void)state;
  idem_trace t;
  idem_trace_init(&t);
  FILE *f = fmemopen((void *)"# nothing\n", 10, "r");
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_rc(idem_read_text(f, "empty.txt", &t, &d), ATOLL_EPARSE);
  fclose(f);
  assert_u64(d.line, 0);
  assert_string_equal(d.file, "empty.txt");
  idem_trace_free(&t);
}

/* A NUL byte is refused where it is: the reader took "kernel k\0x" as "kernel k". */
static void text_refuses_a_nul_byte(void **state) {
  (void)state;
  static const char text[] = "kernel k\0x\nw 0x10 4\n";
  idem_trace t;
  idem_trace_init(&t);
  FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
  assert_non_null(f);
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_rc(idem_read_text(f, "nul.txt", &t, &d), ATOLL_EPARSE);
  fclose(f);
  assert_u64(d.line, 1);
  assert_u64(d.col, 9);
  assert_string_equal(d.msg, "a NUL byte: a text trace holds text only");
  idem_trace_free(&t);
}

/* An NVBit line with `n` active lanes of stride `stride` from base, the rest inactive (0). */
static int nv_line(char *buf, size_t size, const char *prefix, const char *op, uint64_t base, uint64_t stride, int n) {
  int len = snprintf(buf, size, "%s%s - ", prefix, op);
  for (int l = 0; l < 32; l++)
    len += snprintf(buf + len, size - (size_t)len, "0x%016llx ", (unsigned long long)(l < n ? base + stride * (uint64_t)l : 0));
  len += snprintf(buf + len, size - (size_t)len, "\n");
  return len;
}

static int read_nvbit_text(idem_trace *t, const char *text, atoll_diag *d) {
  idem_trace_init(t);
  atoll_diag_clear(d);
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  int rc = idem_read_nvbit(f, "nv.txt", t, d);
  fclose(f);
  return rc;
}

static const char launch0[] = "MEMTRACE: CTX 0x0000000000000001 - LAUNCH - Kernel pc 0x0000000000000002 - Kernel name "
                              "add(float*, float const*) - grid launch id 7 - grid size 1,1,1 - block size 64,1,1 - "
                              "nregs 8 - shmem 0 - cuda stream id 0\n";
static const char launch1[] = "MEMTRACE: CTX 0x0000000000000001 - LAUNCH - Kernel pc 0x0000000000000003 - Kernel name "
                              "bump - grid launch id 8 - grid size 1,1,1 - block size 32,1,1 - nregs 8 - shmem 0 - "
                              "cuda stream id 0\n";

static void nvbit_new_format_groups_coalesces_and_sizes(void **state) {
  (void)state;
  char text[16384];
  size_t len = 0;
  const char *p7 = "MEMTRACE: CTX 0x0000000000000001 - grid_launch_id 7 - CTA 0,0,0 - warp 0 - ";
  const char *p8 = "MEMTRACE: CTX 0x0000000000000001 - grid_launch_id 8 - CTA 0,0,0 - warp 1 - ";
  len += (size_t)snprintf(text + len, sizeof text - len, "NVBit banner\nMEMTRACE: STARTING CONTEXT 0x1\n%s", launch0);
  len += (size_t)nv_line(text + len, sizeof text - len, p7, "LDG.E.64", 0x10000, 8, 32);   /* 256 B */
  len += (size_t)nv_line(text + len, sizeof text - len, p7, "LDS.U.128", 0x100, 16, 32);   /* shared: skipped */
  len += (size_t)nv_line(text + len, sizeof text - len, p7, "STG.E.128", 0x20000, 16, 8);  /* 8 lanes, 128 B */
  len += (size_t)nv_line(text + len, sizeof text - len, p7, "LDG.E.U8", 0x30000, 4, 3);    /* 3 lanes, gaps */
  len += (size_t)nv_line(text + len, sizeof text - len, p7, "LDG.E.64", 0x10000, 8, 32);   /* repeat: dropped */
  len += (size_t)snprintf(text + len, sizeof text - len, "application output\n%s", launch1);
  len += (size_t)nv_line(text + len, sizeof text - len, p8, "ATOM.E.ADD.F32.FTZ.RN.STRONG.GPU", 0x40000, 0, 32);
  idem_trace t;
  atoll_diag d;
  int rc = read_nvbit_text(&t, text, &d);
  if (rc)
    atoll_diag_print(&d, stderr);
  assert_rc(rc, ATOLL_OK);
  assert_u64(t.n_ops, 2);
  assert_string_equal(t.ops[0].name, "add(float*, float const*)");
  assert_string_equal(t.ops[1].name, "bump");
  assert_u64(t.ops[0].n_acc, 5);
  expect_access(&t, 0, 0, false, 0x10000, 0x10100);
  expect_access(&t, 0, 1, true, 0x20000, 0x20080);
  expect_access(&t, 0, 2, false, 0x30000, 0x30001);
  expect_access(&t, 0, 3, false, 0x30004, 0x30005);
  expect_access(&t, 0, 4, false, 0x30008, 0x30009);
  /* The atomic's lanes all hit one word: one range, read then written. */
  assert_u64(t.ops[1].n_acc, 2);
  expect_access(&t, 1, 0, false, 0x40000, 0x40004);
  expect_access(&t, 1, 1, true, 0x40000, 0x40004);
  uint32_t e[2];
  assert_rc(idem_search(&t, e), ATOLL_OK);
  assert_u64(e[0], 0);
  assert_u64(e[1], NONE);
  idem_trace_free(&t);
}

static void nvbit_old_format(void **state) {
  (void)state;
  char text[8192];
  size_t len = (size_t)snprintf(text, sizeof text, "Kernel vecAdd(double*, double*, double*, int) - grid size 1,1,1 - block "
                                                   "size 32,1,1 - nregs 16 - shmem 0 - cuda stream id 0\n");
  len += (size_t)nv_line(text + len, sizeof text - len, "CTA 0,0,0 - warp 0 - ", "LDG.E.64", 0x1000, 8, 32);
  len += (size_t)nv_line(text + len, sizeof text - len, "CTA 0,0,0 - warp 0 - ", "STG.E.64", 0x1000, 8, 32);
  idem_trace t;
  atoll_diag d;
  assert_rc(read_nvbit_text(&t, text, &d), ATOLL_OK);
  assert_u64(t.n_ops, 1);
  assert_string_equal(t.ops[0].name, "vecAdd(double*, double*, double*, int)");
  expect_access(&t, 0, 0, false, 0x1000, 0x1100);
  expect_access(&t, 0, 1, true, 0x1000, 0x1100);
  uint32_t e;
  assert_rc(idem_search(&t, &e), ATOLL_OK);
  assert_u64(e, NONE); /* reads x then writes it: in place, and nothing produced x */
  idem_trace_free(&t);
}

static void nvbit_errors(void **state) {
  (void)state;
  char text[8192];
  idem_trace t;
  atoll_diag d;
  /* A launch id that is not the current launch. */
  size_t len = (size_t)snprintf(text, sizeof text, "%s", launch0);
  nv_line(text + len, sizeof text - len, "MEMTRACE: CTX 0x1 - grid_launch_id 3 - CTA 0,0,0 - warp 0 - ", "LDG.E", 0x10, 4,
          1);
  assert_rc(read_nvbit_text(&t, text, &d), ATOLL_EPARSE);
  assert_u64(d.line, 2);
  assert_non_null(strstr(d.msg, "grid_launch_id 3 is not the launch above"));
  idem_trace_free(&t);
  /* More than 32 lanes. */
  len = (size_t)snprintf(text, sizeof text, "Kernel k - grid size 1,1,1 - x\nCTA 0,0,0 - warp 0 - LDG.E -");
  for (int l = 0; l < 33; l++)
    len += (size_t)snprintf(text + len, sizeof text - len, " 0x%x", 0x100 + 4 * l);
  snprintf(text + len, sizeof text - len, "\n");
  assert_rc(read_nvbit_text(&t, text, &d), ATOLL_EPARSE);
  assert_string_equal(d.msg, "more than 32 lane addresses");
  idem_trace_free(&t);
  /* A lane whose access would pass the top of the address space. */
  snprintf(text, sizeof text, "Kernel k - grid size 1,1,1 - x\nCTA 0,0,0 - warp 0 - STG.E.64 - 0xfffffffffffffffc\n");
  assert_rc(read_nvbit_text(&t, text, &d), ATOLL_EPARSE);
  assert_string_equal(d.msg, "address + access size passes 2^64");
  idem_trace_free(&t);
  /* A LAUNCH line without its launch id. */
  snprintf(text, sizeof text, "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - Kernel name k\n");
  assert_rc(read_nvbit_text(&t, text, &d), ATOLL_EPARSE);
  assert_string_equal(d.msg, "LAUNCH line without 'Kernel name NAME - grid launch id N'");
  idem_trace_free(&t);
}

static void shipped_nvbit_sample(void **state) {
  (void)state;
  idem_trace t;
  idem_trace_init(&t);
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_rc(idem_read_path(IDEM_FMT_NVBIT, ATOLL_SOURCE_DIR "/scenarios/idem/nvbit_sample.txt", &t, &d), ATOLL_OK);
  assert_u64(t.n_ops, 3);
  uint32_t e[3];
  assert_rc(idem_search(&t, e), ATOLL_OK);
  check_entries(e, (const uint32_t[]){0, 0, NONE}, 3, "nvbit_sample.txt");
  idem_trace_free(&t);
}

static void format_names(void **state) {
  (void)state;
  assert_int_equal(idem_format_parse("text"), IDEM_FMT_TEXT);
  assert_int_equal(idem_format_parse("nvbit"), IDEM_FMT_NVBIT);
  assert_int_equal(idem_format_parse("reef-model"), IDEM_FMT_REEF_MODEL);
  assert_int_equal(idem_format_parse("profile"), IDEM_FMT_PROFILE);
  assert_int_equal(idem_format_parse("json"), -1);
  assert_string_equal(idem_format_name(IDEM_FMT_REEF_MODEL), "reef-model");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(text_accepts_the_documented_forms),
    cmocka_unit_test(text_errors_name_line_and_column),
    cmocka_unit_test(text_without_ops_is_an_error),
    cmocka_unit_test(text_refuses_a_nul_byte),
    cmocka_unit_test(nvbit_new_format_groups_coalesces_and_sizes),
    cmocka_unit_test(nvbit_old_format),
    cmocka_unit_test(nvbit_errors),
    cmocka_unit_test(shipped_nvbit_sample),
    cmocka_unit_test(format_names),
};
ATOLL_TEST_MAIN(tests)
