/* The timeline trace writer: valid Chrome trace-event JSON, lazy process names, exact
 * microsecond timestamps, escaping, write-failure reporting, and the GPUs of a run of several. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "tests/report/json_check.h"
#include "run/trace.h"

/* A fresh temporary path; the file exists (empty) until unlinked. */
static void temp_path(char path[64]) {
  snprintf(path, 64, "/tmp/atoll_trace_XXXXXX");
  int fd = mkstemp(path);
  assert_cmp(fd, >=, 0);
  close(fd);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_non_null(buf);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Runs fill on an open trace in a temporary file and returns the file's text, checked valid. */
static char *write_trace(void (*fill)(atoll_trace *)) {
  char path[64];
  temp_path(path);
  atoll_trace t;
  assert_int_equal(atoll_trace_open(&t, path), ATOLL_OK);
  fill(&t);
  assert_int_equal(atoll_trace_close(&t), ATOLL_OK);
  char *text = slurp(path);
  unlink(path);
  if (!json_valid(text))
    fail_msg("invalid JSON:\n%s", text);
  return text;
}

static long count(const char *text, const char *needle) {
  long n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* The string at a JSON path of the trace is `want`. */
static void assert_string_at(const char *text, const char *path, const char *want) {
  char s[64];
  if (!json_string_at(text, path, s, sizeof s))
    fail_msg("no string at %s", path);
  assert_string_equal(s, want);
}

/* Each {path, want} of a table: the string at the path is want. */
static void assert_strings_at(const char *text, const char *const (*table)[2], size_t n) {
  for (size_t i = 0; i < n; i++)
    assert_string_at(text, table[i][0], table[i][1]);
}

static void fill_timeline(atoll_trace *t) {
  atoll_trace_name_track(t, ATOLL_TRACK_CU, 0, "CU 0");
  atoll_trace_name_track(t, ATOLL_TRACK_CU, 1, "CU 1");
  atoll_trace_name_track(t, ATOLL_TRACK_STREAM, 3, "rt stream");
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "conv2d", "kernel", 1000, 2500, "\"op\":12,\"blocks\":480");
  atoll_trace_span(t, ATOLL_TRACK_STREAM, 3, "conv2d", NULL, 500, 3000, NULL);
  atoll_trace_instant(t, ATOLL_TRACK_SCHED, 0, "preempt", "mode", 1200, NULL);
}

static void timeline_is_valid_trace_json(void **state) {
  (void)state;
  char *text = write_trace(fill_timeline);
  assert_string_at(text, "displayTimeUnit", "ns");
  /* Three thread names, three process names (CU, stream, scheduler) and three events. */
  assert_int_equal(json_count_at(text, "traceEvents"), 9);
  static const char *const names[][2] = {{"traceEvents.0.name", "process_name"},
                                         {"traceEvents.0.args.name", "CUs"},
                                         {"traceEvents.1.name", "thread_name"},
                                         {"traceEvents.1.args.name", "CU 0"},
                                         {"traceEvents.3.args.name", "streams"}};
  assert_strings_at(text, names, sizeof names / sizeof names[0]);
  double v = 0;
  assert_true(json_number_at(text, "traceEvents.4.pid", &v));
  assert_cmp(v, ==, ATOLL_TRACK_STREAM);
  assert_true(json_number_at(text, "traceEvents.4.tid", &v));
  assert_cmp(v, ==, 3);
  free(text);
}

static void process_names_are_written_once_per_used_group(void **state) {
  (void)state;
  char *text = write_trace(fill_timeline);
  assert_int_equal(count(text, "\"process_name\""), 3);
  assert_int_equal(count(text, "\"CUs\""), 1);
  assert_int_equal(count(text, "\"streams\""), 1);
  assert_int_equal(count(text, "\"scheduler\""), 1);
  assert_int_equal(count(text, "\"clients\""), 0);
  /* The scheduler's name comes before its first event. */
  assert_true(strstr(text, "\"scheduler\"") < strstr(text, "\"preempt\""));
  free(text);
}

static void fill_spans_and_args(atoll_trace *t) {
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "conv2d", "kernel", 1000, 2500, "\"op\":12,\"blocks\":480");
  atoll_trace_instant(t, ATOLL_TRACK_SCHED, 0, "preempt", "mode", 1200, "\"epoch\":3");
}

static void spans_and_instants_carry_their_fields(void **state) {
  (void)state;
  char *text = write_trace(fill_spans_and_args);
  char s[64];
  double v = 0;
  /* 0: CUs process name, 1: the span, 2: scheduler process name, 3: the instant. */
  assert_true(json_string_at(text, "traceEvents.1.ph", s, sizeof s));
  assert_string_equal(s, "X");
  assert_true(json_string_at(text, "traceEvents.1.cat", s, sizeof s));
  assert_string_equal(s, "kernel");
  assert_true(json_number_at(text, "traceEvents.1.args.op", &v));
  assert_cmp(v, ==, 12);
  assert_true(json_number_at(text, "traceEvents.1.args.blocks", &v));
  assert_cmp(v, ==, 480);
  assert_true(json_number_at(text, "traceEvents.1.dur", &v));
  assert_cmp(v, ==, 2.5);
  assert_true(json_string_at(text, "traceEvents.3.ph", s, sizeof s));
  assert_string_equal(s, "i");
  assert_true(json_string_at(text, "traceEvents.3.s", s, sizeof s));
  assert_string_equal(s, "t");
  assert_null(json_at(text, "traceEvents.3.dur"));
  assert_true(json_number_at(text, "traceEvents.3.args.epoch", &v));
  assert_cmp(v, ==, 3);
  free(text);
}

static void fill_times(atoll_trace *t) {
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "a", NULL, 0, 1, NULL);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "b", NULL, 999, 0, NULL);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "c", NULL, 1000, 1000000, NULL);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "d", NULL, 1234567, 20, NULL);
  atoll_trace_instant(t, ATOLL_TRACK_CU, 0, "e", NULL, -1500, NULL);
  atoll_trace_instant(t, ATOLL_TRACK_CU, 0, "f", NULL, 86400000000000LL, NULL);
}

static void timestamps_are_microseconds_with_three_decimals(void **state) {
  (void)state;
  char *text = write_trace(fill_times);
  static const char *const wanted[] = {"\"ts\":0.000,\"dur\":0.001,", "\"ts\":0.999,\"dur\":0.000,",
                                       "\"ts\":1.000,\"dur\":1000.000,", "\"ts\":1234.567,\"dur\":0.020,",
                                       "\"ts\":-1.500,", "\"ts\":86400000000.000,"};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
    if (!strstr(text, wanted[i]))
      fail_msg("trace lacks %s:\n%s", wanted[i], text);
  free(text);
}

static const char *const odd_name = "say \"hi\" \\ back\\slash\n\ttab \x01 end";

static void fill_odd_names(atoll_trace *t) {
  atoll_trace_name_track(t, ATOLL_TRACK_CLIENT, 2, odd_name);
  atoll_trace_span(t, ATOLL_TRACK_CLIENT, 2, odd_name, "cat \"q\"", 0, 10, NULL);
}

static void names_are_json_escaped(void **state) {
  (void)state;
  char *text = write_trace(fill_odd_names);
  char s[128];
  assert_true(json_string_at(text, "traceEvents.1.args.name", s, sizeof s));
  assert_string_equal(s, odd_name);
  assert_true(json_string_at(text, "traceEvents.2.name", s, sizeof s));
  assert_string_equal(s, odd_name);
  assert_true(json_string_at(text, "traceEvents.2.cat", s, sizeof s));
  assert_string_equal(s, "cat \"q\"");
  free(text);
}

static void fill_nothing(atoll_trace *t) { (void)t; }

static void empty_trace_is_valid(void **state) {
  (void)state;
  char *text = write_trace(fill_nothing);
  assert_int_equal(json_count_at(text, "traceEvents"), 0);
  free(text);
}

static void unopened_trace_ignores_calls(void **state) {
  (void)state;
  atoll_trace t = {0};
  atoll_trace_name_track(&t, ATOLL_TRACK_CU, 0, "CU 0");
  atoll_trace_span(&t, ATOLL_TRACK_CU, 0, "k", NULL, 0, 1, NULL);
  atoll_trace_instant(&t, ATOLL_TRACK_CU, 0, "i", NULL, 0, NULL);
  assert_int_equal(atoll_trace_close(&t), ATOLL_OK);
  /* Closing twice is harmless too. */
  assert_int_equal(atoll_trace_close(&t), ATOLL_OK);
}

static void open_fails_on_a_bad_path(void **state) {
  (void)state;
  atoll_trace t;
  assert_int_equal(atoll_trace_open(&t, "/nonexistent-atoll-dir/trace.json"), ATOLL_EIO);
  assert_null(t.f);
}

static void close_reports_a_failed_write(void **state) {
  (void)state;
  if (access("/dev/full", W_OK) != 0)
    ATOLL_SKIP("/dev/full is absent or not writable here");
  atoll_trace t;
  assert_int_equal(atoll_trace_open(&t, "/dev/full"), ATOLL_OK);
  for (int i = 0; i < 1000; i++)
    atoll_trace_span(&t, ATOLL_TRACK_CU, 0, "kernel", "k", i * 1000, 1000, NULL);
  assert_int_equal(atoll_trace_close(&t), ATOLL_EIO);
}

/* Two GPUs of one run: GPU 1's groups are processes of their own, and both say their GPU. */
static void fill_two_gpus(atoll_trace *t) {
  atoll_trace_set_gpu(t, 0, 1);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "k0", NULL, 0, 1000, NULL);
  atoll_trace_set_gpu(t, 1, 1);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "k1", NULL, 0, 1000, NULL);
  atoll_trace_instant(t, ATOLL_TRACK_SCHED, 0, "preempt", NULL, 500, NULL);
  atoll_trace_set_gpu(t, 0, 0);
}

static void each_gpu_is_drawn_apart(void **state) {
  (void)state;
  char *text = write_trace(fill_two_gpus);
  double v = 0;
  /* 0: GPU 0's CUs name, 1: k0, 2: GPU 1's CUs name, 3: k1, 4: GPU 1's scheduler name, 5: the instant. */
  assert_int_equal(json_count_at(text, "traceEvents"), 6);
  assert_string_at(text, "traceEvents.0.args.name", "GPU 0: CUs");
  assert_true(json_number_at(text, "traceEvents.1.pid", &v));
  assert_cmp(v, ==, ATOLL_TRACK_CU);
  assert_string_at(text, "traceEvents.2.args.name", "GPU 1: CUs");
  assert_true(json_number_at(text, "traceEvents.3.pid", &v));
  assert_cmp(v, ==, ATOLL_TRACE_PIDS_PER_GPU + ATOLL_TRACK_CU);
  assert_string_at(text, "traceEvents.4.args.name", "GPU 1: scheduler");
  assert_true(json_number_at(text, "traceEvents.5.pid", &v));
  assert_cmp(v, ==, ATOLL_TRACE_PIDS_PER_GPU + ATOLL_TRACK_SCHED);
  free(text);
}

/* A part written on its own (another thread's GPU) joins the trace after the trace's own events. */
static void fill_with_parts(atoll_trace *t) {
  atoll_trace empty, one, two;
  assert_int_equal(atoll_trace_open_part(&empty, t), ATOLL_OK);
  assert_int_equal(atoll_trace_open_part(&one, t), ATOLL_OK);
  assert_int_equal(atoll_trace_open_part(&two, t), ATOLL_OK);
  atoll_trace_set_gpu(&one, 1, 1);
  atoll_trace_span(&one, ATOLL_TRACK_CU, 0, "k1", NULL, 0, 1000, NULL);
  atoll_trace_set_gpu(&two, 2, 1);
  atoll_trace_span(&two, ATOLL_TRACK_CU, 0, "k2", NULL, 0, 1000, NULL);
  /* Joined before the trace has an event of its own, then after. */
  assert_int_equal(atoll_trace_append_part(t, &empty), ATOLL_OK);
  assert_int_equal(atoll_trace_append_part(t, &one), ATOLL_OK);
  assert_null(one.f);
  atoll_trace_span(t, ATOLL_TRACK_CU, 0, "k0", NULL, 0, 1000, NULL);
  assert_int_equal(atoll_trace_append_part(t, &two), ATOLL_OK);
}

static void parts_join_the_trace_in_order(void **state) {
  (void)state;
  char *text = write_trace(fill_with_parts);
  assert_int_equal(json_count_at(text, "traceEvents"), 6);
  /* 0-1: part one (GPU 1's CUs, k1), 2-3: the trace's own (CUs, k0), 4-5: part two (GPU 2's). */
  static const char *const order[][2] = {{"traceEvents.0.args.name", "GPU 1: CUs"},
                                         {"traceEvents.1.name", "k1"},
                                         {"traceEvents.3.name", "k0"},
                                         {"traceEvents.4.args.name", "GPU 2: CUs"},
                                         {"traceEvents.5.name", "k2"}};
  assert_strings_at(text, order, sizeof order / sizeof order[0]);
  free(text);
}

static void parts_of_no_trace_are_not_open(void **state) {
  (void)state;
  atoll_trace none = {0}, part;
  assert_int_equal(atoll_trace_open_part(&part, &none), ATOLL_OK);
  assert_null(part.f);
  atoll_trace_span(&part, ATOLL_TRACK_CU, 0, "k", NULL, 0, 1, NULL);
  assert_int_equal(atoll_trace_append_part(&none, &part), ATOLL_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(timeline_is_valid_trace_json),
    cmocka_unit_test(process_names_are_written_once_per_used_group),
    cmocka_unit_test(spans_and_instants_carry_their_fields),
    cmocka_unit_test(timestamps_are_microseconds_with_three_decimals),
    cmocka_unit_test(names_are_json_escaped),
    cmocka_unit_test(empty_trace_is_valid),
    cmocka_unit_test(unopened_trace_ignores_calls),
    cmocka_unit_test(open_fails_on_a_bad_path),
    cmocka_unit_test(close_reports_a_failed_write),
    cmocka_unit_test(each_gpu_is_drawn_apart),
    cmocka_unit_test(parts_join_the_trace_in_order),
    cmocka_unit_test(parts_of_no_trace_are_not_open),
};
ATOLL_TEST_MAIN(tests)
