/* The reports: --json is valid JSON with the documented fields (checked with the independent
 * reader of tests/report/json_check.h), the summary counts and histogram, and the DOT view's
 * clusters, highlights and dependency edges. */
#include "tests/idem/idem_test.h"

#include "tests/report/json_check.h"
#include "idem/report.h"

/* fig9 plus a not-restorable kernel, a memset group and a copy. */
static const char trace_text[] = "kernel K0\nr 0x100 1\nr 0x101 1\nw 0x102 1\nw 0x103 1\n"
                                 "kernel K1\nr 0x103 1\nw 0x104 1\n"
                                 "kernel K2\nr 0x104 1\nw 0x105 1\n"
                                 "kernel K3\nr 0x102 1\nr 0x104 1\nw 0x104 1\n"
                                 "kernel \"quoted\\name\"\nr 0x900 4\nw 0x900 4\n"
                                 "memset zero\nw 0x500 8\nkernel acc\nr 0x500 8\nw 0x500 8\n"
                                 "memcpy out\nr 0x500 8\n";

typedef struct out {
  idem_trace t;
  uint32_t e[8];
  idem_summary s;
} out;

static void setup(out *o) {
  trace_from_text(&o->t, trace_text);
  assert_rc(idem_search(&o->t, o->e), ATOLL_OK);
  assert_rc(idem_summary_compute(&o->t, o->e, &o->s), ATOLL_OK);
}

static void teardown(out *o) {
  idem_summary_free(&o->s);
  idem_trace_free(&o->t);
}

static char *capture_json(out *o) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_rc(idem_write_json(f, "t.txt", IDEM_FMT_TEXT, &o->t, o->e, &o->s), ATOLL_OK);
  fclose(f);
  return buf;
}

static void summary_counts(void **state) {
  (void)state;
  out o;
  setup(&o);
  check_entries(o.e, (const uint32_t[]){0, 1, 2, 1, NONE, 5, 5, 7}, 8, "entries");
  assert_u64(o.s.ops, 8);
  assert_u64(o.s.kernels, 6);
  assert_u64(o.s.memsets, 1);
  assert_u64(o.s.memcpys, 1);
  assert_u64(o.s.idempotent_kernels, 3);
  assert_u64(o.s.group_kernels, 2);
  assert_u64(o.s.not_restorable_kernels, 1);
  assert_u64(o.s.largest_op, 3);
  assert_u64(o.s.largest_ops, 3);
  assert_u64(o.s.largest_kernels, 3);
  /* Fig. 10 bins: acc's group holds one kernel (the memset completes it), K3's three. */
  assert_u64(o.s.n_hist, 2);
  assert_u64(o.s.hist[0].kernels, 1);
  assert_u64(o.s.hist[0].count, 1);
  assert_u64(o.s.hist[1].kernels, 3);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  idem_print_summary(f, "t.txt", IDEM_FMT_TEXT, &o.t, o.e, &o.s, 20);
  fclose(f);
  assert_non_null(strstr(buf, "idempotent      3 of 6 kernels (50.0%)\n"));
  assert_non_null(strstr(buf, "not restorable  1 kernel: "));
  assert_non_null(strstr(buf, "  op 3 K3: group 1..3 (3 ops, 3 kernels)\n"));
  assert_non_null(strstr(buf, "  op 4 \"quoted\\name\": not restorable\n"));
  free(buf);
  teardown(&o);
}

static void json_has_every_op_and_the_summary(void **state) {
  (void)state;
  out o;
  setup(&o);
  char *j = capture_json(&o);
  assert_true(json_valid(j));
  assert_int_equal(json_count_at(j, "ops"), 8);
  double v = 0; /* json_number_at sets it; initialised for the asserts that print it */
  char s[64];
  assert_true(json_number_at(j, "ops.3.group_entry", &v));
  assert_cmp(v, ==, 1);
  assert_true(json_number_at(j, "ops.3.group_size", &v));
  assert_cmp(v, ==, 3);
  assert_true(json_number_at(j, "ops.6.group_kernels", &v));
  assert_cmp(v, ==, 1);
  assert_true(json_null_at(j, "ops.4.group_entry"));
  assert_true(json_null_at(j, "ops.4.group_size"));
  assert_true(json_string_at(j, "ops.4.name", s, sizeof s));
  assert_string_equal(s, "\"quoted\\name\"");
  assert_true(json_string_at(j, "ops.5.kind", s, sizeof s));
  assert_string_equal(s, "memset");
  assert_true(json_number_at(j, "ops.0.index", &v));
  assert_cmp(v, ==, 0);
  assert_true(json_at(j, "ops.0.idempotent"));
  assert_cmp(strncmp(json_at(j, "ops.0.idempotent"), "true", 4), ==, 0);
  assert_true(json_number_at(j, "summary.not_restorable_kernels", &v));
  assert_cmp(v, ==, 1);
  assert_true(json_number_at(j, "summary.largest_group.ops", &v));
  assert_cmp(v, ==, 3);
  assert_true(json_number_at(j, "summary.group_kernels_histogram.1.kernels", &v));
  assert_cmp(v, ==, 3);
  free(j);
  teardown(&o);
}

static void dot_draws_groups_highlights_and_edges(void **state) {
  (void)state;
  out o;
  setup(&o);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_rc(idem_write_dot(f, "t.txt", &o.t, o.e), ATOLL_OK);
  fclose(f);
  assert_non_null(strstr(buf, "digraph idem {"));
  assert_non_null(strstr(buf, "subgraph cluster_0 {"));
  assert_non_null(strstr(buf, "label=\"group 1..3 restores op 3\";\n    op1; op2; op3;\n"));
  assert_non_null(strstr(buf, "label=\"group 5..6 restores op 6\";\n    op5; op6;\n"));
  assert_non_null(strstr(buf, "op4 [label=\"4: \\\"quoted\\\\name\\\"\\nkernel\\nnot restorable\", style=filled"));
  assert_non_null(strstr(buf, "op3 [label=\"3: K3\\nkernel\\nrestart at op 1\""));
  assert_non_null(strstr(buf, "op5 [label=\"5: zero\\nmemset\", shape=ellipse];"));
  assert_non_null(strstr(buf, "op0 -> op1 [label=\"RAW\"];"));
  assert_non_null(strstr(buf, "op2 -> op3 [label=\"WAR\", style=dashed"));
  assert_non_null(strstr(buf, "op6 -> op7 [label=\"RAW\"];"));
  /* Balanced braces: the file is one graph. */
  int depth = 0;
  for (const char *p = buf; *p; p++) {
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1])
          p++;
      continue;
    }
    depth += (*p == '{') - (*p == '}');
    assert_cmp(depth, >=, 0);
  }
  assert_int_equal(depth, 0);
  free(buf);
  teardown(&o);
}

static void overlapping_groups_share_a_cluster(void **state) {
  (void)state;
  idem_trace t;
  trace_from_text(&t, "kernel p\nw 0x0 8\nw 0x10 8\nkernel a\nr 0x0 8\nw 0x0 8\nkernel q\nw 0x20 8\n"
                      "kernel b\nr 0x10 8\nw 0x10 8\n");
  uint32_t e[4];
  assert_rc(idem_search(&t, e), ATOLL_OK);
  check_entries(e, (const uint32_t[]){0, 0, 2, 0}, 4, "entries");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_rc(idem_write_dot(f, "t", &t, e), ATOLL_OK);
  fclose(f);
  assert_non_null(strstr(buf, "label=\"group 0..1 restores op 1\\ngroup 0..3 restores op 3\";\n    op0; op1; op2; op3;\n"));
  assert_null(strstr(buf, "cluster_1"));
  free(buf);
  idem_trace_free(&t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(summary_counts),
    cmocka_unit_test(json_has_every_op_and_the_summary),
    cmocka_unit_test(dot_draws_groups_highlights_and_edges),
    cmocka_unit_test(overlapping_groups_share_a_cluster),
};
ATOLL_TEST_MAIN(tests)
