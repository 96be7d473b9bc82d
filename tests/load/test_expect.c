/* `expect:` bounds: parsing, the report field grammar and the holds/margin arithmetic. */
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "tests/atoll_test.h"

static const char *const clients[] = {"cam", "bg"};

static int parse(const char *text, char *field, atoll_cmp *cmp, double *v, atoll_expect_error *err) {
  return atoll_expect_parse(text, field, 64, cmp, v, err);
}

static void parses_each_comparison(void **state) {
  (void)state;
  char f[64];
  atoll_cmp c;
  double v;
  atoll_expect_error e;
  assert_int_equal(parse("rt.norm_latency.p99 <= 1.05", f, &c, &v, &e), 0);
  assert_string_equal(f, "rt.norm_latency.p99");
  assert_int_equal(c, ATOLL_CMP_LE);
  assert_cmp(v, ==, 1.05);
  assert_int_equal(parse("  total_norm_throughput>=0.5 ", f, &c, &v, &e), 0);
  assert_string_equal(f, "total_norm_throughput");
  assert_int_equal(c, ATOLL_CMP_GE);
  assert_int_equal(parse("a<3", f, &c, &v, &e), 0);
  assert_int_equal(c, ATOLL_CMP_LT);
  assert_int_equal(parse("a > -2e3", f, &c, &v, &e), 0);
  assert_int_equal(c, ATOLL_CMP_GT);
  assert_cmp(v, ==, -2000.0);
}

static void rejects_malformed_bounds_with_offsets(void **state) {
  (void)state;
  char f[64];
  atoll_cmp c;
  double v;
  atoll_expect_error e;
  assert_int_equal(parse("rt.norm_latency.p99 = 1", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 20);
  assert_int_equal(parse("<= 1", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 0);
  assert_int_equal(parse("x <= ", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 5);
  assert_int_equal(parse("x <= 1 2", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(parse("x <= nan", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(parse("x <= inf", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(parse("x <= 0x10", f, &c, &v, &e), ATOLL_EPARSE);
}

static void rejects_bounds_outside_a_doubles_range(void **state) {
  (void)state;
  char f[64];
  atoll_cmp c;
  double v;
  atoll_expect_error e;
  /* strtod gives infinity for 1e999 and ERANGE for 1e-400; the bound printed blank in the report. */
  assert_int_equal(parse("total_norm_throughput >= 1e999", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 25);
  assert_non_null(strstr(e.msg, "outside the range of a double"));
  assert_int_equal(parse("total_norm_throughput <= -1e999", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(parse("total_norm_throughput <= 1e-400", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 25);
  assert_int_equal(parse("total_norm_throughput <= 1e300", f, &c, &v, &e), 0);
  assert_int_equal(parse("total_norm_throughput >= 0", f, &c, &v, &e), 0);
  assert_int_equal(parse("total_norm_throughput >= 1e-300", f, &c, &v, &e), 0);
}

static void rejects_bounds_that_can_never_hold(void **state) {
  (void)state;
  char f[64];
  atoll_cmp c;
  double v;
  atoll_expect_error e;
  /* Every report field is at least 0: a latency below -1 was accepted and failed every run. */
  assert_int_equal(parse("rt.norm_latency.p99 <= -1", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(e.offset, 23);
  assert_non_null(strstr(e.msg, "can never hold"));
  assert_int_equal(parse("clients.cam.dropped < 0", f, &c, &v, &e), ATOLL_EPARSE);
  assert_int_equal(parse("clients.cam.dropped <= 0", f, &c, &v, &e), 0);
  assert_int_equal(parse("clients.cam.dropped < 1", f, &c, &v, &e), 0);
  assert_int_equal(parse("total_norm_throughput >= -1", f, &c, &v, &e), 0);
}

static void accepts_every_documented_field(void **state) {
  (void)state;
  static const char *const good[] = {
      "rt.norm_latency.mean", "rt.norm_latency.p95", "rt.latency_us.max", "total_norm_throughput",
      "clients.cam.latency_us.p50", "clients.bg.norm_latency.max", "clients.cam.requests",
      "clients.cam.completed", "clients.cam.dropped", "clients.bg.throughput_rps", "clients.bg.norm_throughput",
      "clients.cam.deadline_misses", "preemptions.count", "preemptions.latency_us.p99",
      "preemptions.breakdown_us.cu_kill", "preemptions.restored_kernels", "preemptions.wasted_gpu_us",
      "preemptions.restore_us", "gpu.cu_busy_frac", "gpu.cu_busy_frac_be"};
  atoll_expect_error e;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    int rc = atoll_expect_field_check(good[i], clients, 2, &e);
    if (rc != 0)
      fail_msg("%s rejected: %s", good[i], e.msg);
  }
}

static void rejects_unknown_fields_at_the_right_place(void **state) {
  (void)state;
  atoll_expect_error e;
  assert_int_equal(atoll_expect_field_check("rt.norm_latency.p98", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(e.offset, strlen("rt.norm_latency."));
  assert_non_null(strstr(e.msg, "statistic"));
  assert_int_equal(atoll_expect_field_check("clients.nobody.latency_us.max", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(e.offset, strlen("clients."));
  assert_non_null(strstr(e.msg, "client"));
  assert_int_equal(atoll_expect_field_check("preemptions.latency_us.p95", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(atoll_expect_field_check("total_norm_throughput.x", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(atoll_expect_field_check("rt", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(atoll_expect_field_check("", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(atoll_expect_field_check("clients.cam", clients, 2, &e), ATOLL_ENOENT);
  assert_int_equal(atoll_expect_field_check("clients.ca.requests", clients, 2, &e), ATOLL_ENOENT);
}

/* The enumeration behind "did you mean" names every field once, each one the grammar accepts. */
static void field_names_are_the_grammar(void **state) {
  (void)state;
  char name[128], prev[128] = "";
  atoll_expect_error e;
  uint32_t n = 0, with_client = 0;
  while (atoll_expect_field_name(n, "cam", name, sizeof name) == ATOLL_OK) {
    if (atoll_expect_field_check(name, clients, 2, &e) != ATOLL_OK)
      fail_msg("%s rejected: %s", name, e.msg);
    assert_string_not_equal(name, prev);
    with_client += strncmp(name, "clients.cam.", 12) == 0;
    strcpy(prev, name);
    n++;
  }
  assert_int_equal(atoll_expect_field_name(n, "cam", name, sizeof name), ATOLL_ENOENT);
  assert_int_equal(n, 55); /* 36 patterns, 4 of them with 5 statistics and 1 with 4 */
  assert_int_equal(with_client, 25);
  assert_int_equal(atoll_expect_field_name(0, "cam", name, sizeof name), ATOLL_OK);
  assert_string_equal(name, "rt.norm_latency.mean");
  assert_int_equal(atoll_expect_field_name(0, "cam", name, 20), ATOLL_EINVAL); /* 20 bytes and its NUL */
  assert_int_equal(atoll_expect_field_name(0, "cam", name, 21), ATOLL_OK);
}

static void holds_and_margin(void **state) {
  (void)state;
  double m;
  assert_true(atoll_expect_holds(ATOLL_CMP_LE, 1.05, 1.0, &m));
  assert_cmp(m, >, 0.0499);
  assert_cmp(m, <, 0.0501);
  assert_false(atoll_expect_holds(ATOLL_CMP_LE, 1.05, 1.10, &m));
  assert_cmp(m, <, 0);
  assert_true(atoll_expect_holds(ATOLL_CMP_LE, 1.0, 1.0, &m));
  assert_false(atoll_expect_holds(ATOLL_CMP_LT, 1.0, 1.0, &m));
  assert_true(atoll_expect_holds(ATOLL_CMP_GE, 0.5, 0.7, &m));
  assert_cmp(m, >, 0.1999);
  assert_cmp(m, <, 0.2001);
  assert_false(atoll_expect_holds(ATOLL_CMP_GT, 0.5, 0.5, &m));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(parses_each_comparison),
    cmocka_unit_test(rejects_malformed_bounds_with_offsets),
    cmocka_unit_test(rejects_bounds_outside_a_doubles_range),
    cmocka_unit_test(rejects_bounds_that_can_never_hold),
    cmocka_unit_test(accepts_every_documented_field),
    cmocka_unit_test(rejects_unknown_fields_at_the_right_place),
    cmocka_unit_test(field_names_are_the_grammar),
    cmocka_unit_test(holds_and_margin),
};
ATOLL_TEST_MAIN(tests)
