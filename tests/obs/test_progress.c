/* The progress line (tools/atoll/progress.c) with a fake clock: its text, the delay before the
 * first line, the redraw limit, the erase at the end, and silence without a stream. */
#include <stdlib.h>
#include <string.h>

#include "tests/atoll_test.h"
#include "tools/atoll/progress.h"

static double fake_now;
static double fake_clock(void) { return fake_now; }

static void line_with_total_has_rate_and_eta(void **state) {
  (void)state;
  char buf[160];
  atoll_progress_format(buf, sizeof buf, "sim", "s simulated", 1.5, 3.0, 2.0);
  assert_string_equal(buf, "sim: 1.50/3.00 s simulated (50%)  0.75 s/s  ETA 2.0 s");
  atoll_progress_format(buf, sizeof buf, "sweep", "runs", 7, 20, 3.5);
  assert_string_equal(buf, "sweep: 7/20 runs (35%)  2 runs/s  ETA 6.5 s");
  /* Long ETAs in minutes and hours. */
  atoll_progress_format(buf, sizeof buf, "sweep", "runs", 1, 100, 10);
  assert_string_equal(buf, "sweep: 1/100 runs (1%)  0.1 runs/s  ETA 16 min 30 s");
  atoll_progress_format(buf, sizeof buf, "sweep", "runs", 1, 1000, 10);
  assert_string_equal(buf, "sweep: 1/1000 runs (0%)  0.1 runs/s  ETA 2 h 46 min");
}

static void line_without_total_has_no_eta(void **state) {
  (void)state;
  char buf[160];
  atoll_progress_format(buf, sizeof buf, "explore", "states", 120000, 0, 2.0);
  assert_string_equal(buf, "explore: 120000 states  60000 states/s");
  /* Done: no ETA. */
  atoll_progress_format(buf, sizeof buf, "sweep", "runs", 4, 4, 2.0);
  assert_string_equal(buf, "sweep: 4/4 runs (100%)  2 runs/s");
}

/* Reads what was written to f so far. */
static char *contents(FILE *f) {
  fflush(f);
  long n = ftell(f);
  char *buf = calloc(1, (size_t)n + 1);
  assert_non_null(buf);
  rewind(f);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fseek(f, 0, SEEK_END);
  return buf;
}

static void waits_for_the_delay_then_redraws_at_most_every_200_ms(void **state) {
  (void)state;
  setenv("ATOLL_PROGRESS_DELAY_MS", "2000", 1);
  FILE *f = tmpfile();
  assert_non_null(f);
  atoll_progress p = {.clock = fake_clock};
  fake_now = 100.0;
  atoll_progress_start(&p, f, "sim", "s simulated", 10);
  fake_now = 101.9;
  atoll_progress_update(&p, 1);
  char *text = contents(f);
  assert_string_equal(text, ""); /* a run shorter than the delay prints nothing */
  free(text);
  fake_now = 102.0;
  atoll_progress_update(&p, 2);
  fake_now = 102.1; /* within 200 ms of the last line: not redrawn */
  atoll_progress_update(&p, 3);
  fake_now = 102.4;
  atoll_progress_update(&p, 4);
  atoll_progress_end(&p);
  text = contents(f);
  assert_string_equal(text, "\rsim: 2/10 s simulated (20%)  1 s/s  ETA 8.0 s\033[K"
                            "\rsim: 4/10 s simulated (40%)  1.67 s/s  ETA 3.6 s\033[K"
                            "\r\033[K");
  free(text);
  fclose(f);
  unsetenv("ATOLL_PROGRESS_DELAY_MS");
}

static void silent_without_a_stream_and_end_erases_only_a_drawn_line(void **state) {
  (void)state;
  atoll_progress p = {.clock = fake_clock};
  fake_now = 0;
  atoll_progress_start(&p, NULL, "sim", "s simulated", 10);
  fake_now = 100;
  atoll_progress_update(&p, 5); /* nothing to write to: must not crash */
  atoll_progress_end(&p);
  FILE *f = tmpfile();
  assert_non_null(f);
  atoll_progress_start(&p, f, "sim", "s simulated", 10);
  atoll_progress_end(&p); /* nothing drawn: nothing erased */
  char *text = contents(f);
  assert_string_equal(text, "");
  free(text);
  fclose(f);
  /* --quiet always wins. */
  assert_false(atoll_progress_wanted(true));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(line_with_total_has_rate_and_eta),
    cmocka_unit_test(line_without_total_has_no_eta),
    cmocka_unit_test(waits_for_the_delay_then_redraws_at_most_every_200_ms),
    cmocka_unit_test(silent_without_a_stream_and_end_erases_only_a_drawn_line),
};

ATOLL_TEST_MAIN(tests)
