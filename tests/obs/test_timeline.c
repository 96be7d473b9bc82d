/* Timelines of whole runs (run/timeline.c over run/trace.c, fed by sim/run.c and the device's
 * hooks): a DISB A run under reef gives valid Chrome trace-event JSON with CU tracks, HQ/DQ depth
 * counters, preemption spans and their steps, padded parts and request slices; what the trace
 * draws agrees with the run (DQ depth within the DQ's capacity, a flag inside every preemption,
 * one slice per completed request); tracing does not change the run; the window keeps only what
 * touches it. The trace is read with tests/report/json_check.h, which shares no code with the
 * writer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "tests/report/json_check.h"
#include "io/load.h"
#include "run/report.h"
#include "sim/run.h"

#define DISB_A ATOLL_SOURCE_DIR "/scenarios/disb/A.yaml"

typedef struct loaded {
  atoll_arena arena;
  atoll_scenario s;
} loaded;

/* DISB A under reef (padding on, as the scenario sets it), shortened to `ms` with no warm-up:
 * VGG requests every ~9.2 ms, so 300 ms hold about 30 preemptions. */
static loaded *load_disb_a(const char *policy, const char *duration) {
  loaded *l = calloc(1, sizeof *l);
  assert_non_null(l);
  atoll_set_override ov[3] = {{.text = policy}, {.text = duration}, {.text = "warmup_ms=0"}};
  atoll_arena_init(&l->arena);
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_scenario_load_file(&l->arena, DISB_A, ov, 3, &l->s, &d) != 0)
    fail_msg("%s:%u:%u: %s", d.file, d.line, d.col, d.msg);
  return l;
}

static void unload(loaded *l) {
  atoll_arena_free(&l->arena);
  free(l);
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

static char *report_json(const atoll_run_results *res) {
  atoll_report rep;
  assert_int_equal(atoll_report_compute(res, &rep), ATOLL_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(atoll_report_write_json(&rep, f, false), ATOLL_OK);
  fclose(f);
  atoll_report_free(&rep);
  return buf;
}

/* Runs l traced (window: from_ms..to_ms, none when equal) and returns the trace text. */
static char *traced_run(const loaded *l, double from_ms, double to_ms, atoll_run_results *res) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/atoll_timeline_XXXXXX");
  int fd = mkstemp(path);
  assert_cmp(fd, >=, 0);
  close(fd);
  atoll_trace tr;
  assert_int_equal(atoll_trace_open(&tr, path), ATOLL_OK);
  atoll_trace_set_window(&tr, (int64_t)(from_ms * 1e6), (int64_t)(to_ms * 1e6));
  atoll_sim_opts o = {.trace = &tr};
  assert_int_equal(atoll_sim_run(&l->s, &o, res), ATOLL_OK);
  assert_int_equal(atoll_trace_close(&tr), ATOLL_OK);
  char *text = slurp(path);
  unlink(path);
  if (!json_valid(text))
    fail_msg("invalid trace JSON (%zu bytes)", strlen(text));
  return text;
}

/* ---- One pass over the events ---- */

enum { MAX_MARKS = 4096 };

typedef struct tally {
  long events, cu_spans, cu_tracks, stream_spans, counters_hq, counters_dq, rt_parts, be_parts;
  long preemptions, steps[5], request_begins, request_ends, slice_begins, slice_ends, mode_spans;
  double max_dq, min_ts, max_end;
  /* For the window: the earliest and latest instant or counter sample, the earliest end and the
   * latest start of a span or slice. */
  double point_lo, point_hi, span_end_lo, span_start_hi;
  /* Preemption spans and flag instants, to check that each preemption holds a flag. */
  double pre_lo[MAX_MARKS], pre_hi[MAX_MARKS], flag_at[MAX_MARKS];
  long n_pre, n_flag;
} tally;

static const char *const step_names[5] = {"HQ reset", "preempt flag", "DQ eviction", "CU reset", "restore"};

static double num(const char *ev, const char *key) {
  const char *v = json_member(ev, key, strlen(key));
  assert_true(v && json_skip_number(v));
  return strtod(v, NULL);
}

static void str(const char *ev, const char *key, char *buf, size_t size) {
  const char *v = json_member(ev, key, strlen(key));
  buf[0] = '\0';
  if (v)
    assert_true(json_decode_string(v, buf, size));
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void count_event(tally *t, const char *ev) {
  char ph[4], name[128];
  str(ev, "ph", ph, sizeof ph);
  str(ev, "name", name, sizeof name);
  int pid = (int)num(ev, "pid");
  if (ph[0] == 'M') {
    const char *args = json_member(ev, "args", 4);
    char track[128] = "";
    if (args)
      str(args, "name", track, sizeof track);
    if (pid == ATOLL_TRACK_CU && strcmp(name, "thread_name") == 0 && strncmp(track, "CU ", 3) == 0)
      t->cu_tracks++;
    return;
  }
  double ts = num(ev, "ts");
  if (ts < t->min_ts)
    t->min_ts = ts;
  double end = ts;
  if (ph[0] == 'i' || ph[0] == 'C') {
    t->point_lo = fmin(t->point_lo, ts), t->point_hi = fmax(t->point_hi, ts);
  } else if (ph[0] == 'b') {
    /* A request's slices are written as one nested set when the request touches the window, so
     * only their begins are bounded here (a child may end before the window). */
    t->span_start_hi = fmax(t->span_start_hi, ts);
  }
  if (ph[0] == 'X') {
    double dur = num(ev, "dur");
    assert_cmp(dur, >=, 0);
    end = ts + dur;
    t->span_start_hi = fmax(t->span_start_hi, ts), t->span_end_lo = fmin(t->span_end_lo, end);
    if (pid == ATOLL_TRACK_CU)
      t->cu_spans++;
    else if (pid == ATOLL_TRACK_STREAM && strcmp(name, "RT part") == 0)
      t->rt_parts++;
    else if (pid == ATOLL_TRACK_STREAM && num(ev, "tid") >= 100000)
      t->be_parts++;
    else if (pid == ATOLL_TRACK_STREAM)
      t->stream_spans++;
    else if (pid == ATOLL_TRACK_SCHED && strcmp(name, "preemption") == 0 && t->n_pre < MAX_MARKS) {
      t->preemptions++;
      t->pre_lo[t->n_pre] = ts, t->pre_hi[t->n_pre++] = end;
    } else if (pid == ATOLL_TRACK_SCHED && strcmp(name, "real-time") == 0)
      t->mode_spans++;
  } else if (ph[0] == 'C') {
    assert_int_equal(pid, ATOLL_TRACK_QUEUES);
    const char *args = json_member(ev, "args", 4);
    assert_non_null(args);
    double v = num(args, "commands");
    assert_cmp(v, >=, 0);
    if (ends_with(name, " HQ"))
      t->counters_hq++;
    else if (ends_with(name, " DQ")) {
      t->counters_dq++;
      if (v > t->max_dq)
        t->max_dq = v;
    } else
      fail_msg("counter '%s' is neither an HQ nor a DQ", name);
  } else if (ph[0] == 'b' || ph[0] == 'e') {
    assert_int_equal(pid, ATOLL_TRACK_CLIENT);
    const char *args = json_member(ev, "args", 4);
    bool outer = strcmp(name, "queued") != 0 && strcmp(name, "running") != 0;
    if (ph[0] == 'b')
      t->slice_begins++, t->request_begins += outer && args && json_member(args, "request", 7);
    else
      t->slice_ends++, t->request_ends += outer;
  }
  if (pid == ATOLL_TRACK_SCHED)
    for (int s = 0; s < 5; s++)
      if (strcmp(name, step_names[s]) == 0) {
        t->steps[s]++;
        if (s == 1 && t->n_flag < MAX_MARKS)
          t->flag_at[t->n_flag++] = ts;
      }
  if (end > t->max_end)
    t->max_end = end;
}

static void tally_trace(const char *text, tally *t) {
  memset(t, 0, sizeof *t);
  t->min_ts = t->point_lo = t->span_end_lo = INFINITY;
  t->point_hi = t->span_start_hi = -INFINITY;
  const char *p = json_at(text, "traceEvents");
  assert_true(p);
  assert_cmp(*p, ==, '[');
  for (p = json_ws(p + 1); *p != ']'; t->events++) {
    count_event(t, p);
    p = json_ws(json_skip_value(p, 0));
    if (*p == ',')
      p = json_ws(p + 1);
  }
}

static long completed_requests(const atoll_run_results *res, const atoll_scenario *s) {
  long n = 0;
  for (uint32_t c = 0; c < s->n_clients; c++)
    for (uint32_t i = 0; i < res->clients[c].n; i++)
      n += res->clients[c].req[i].done_ns >= 0;
  return n;
}

/* The acceptance trace: CU tracks, counter tracks, preemptions and every step, padded parts. */
static void disb_a_reef_trace_has_every_track(void **state) {
  (void)state;
  loaded *l = load_disb_a("policy={name: reef, dkp: true}", "duration_ms=300");
  atoll_run_results res;
  char *text = traced_run(l, 0, 0, &res);
  tally *t = malloc(sizeof *t);
  assert_non_null(t);
  tally_trace(text, t);
  if (t->cu_tracks < 1 || t->cu_spans < 1)
    fail_msg("CU tracks %ld, CU spans %ld", t->cu_tracks, t->cu_spans);
  if (t->counters_hq < 1 || t->counters_dq < 1)
    fail_msg("counter samples: HQ %ld, DQ %ld", t->counters_hq, t->counters_dq);
  if (t->preemptions < 10)
    fail_msg("%ld preemption spans in 300 ms of DISB A (expected about 30)", t->preemptions);
  for (int s = 0; s < 5; s++)
    if (t->steps[s] < 1)
      fail_msg("no '%s' step in the trace", step_names[s]);
  if (t->rt_parts < 1 || t->be_parts < 1)
    fail_msg("padded launches: RT parts %ld, BE parts %ld", t->rt_parts, t->be_parts);
  if (t->mode_spans < 1)
    fail_msg("no real-time mode span");
  /* The trace agrees with the run: one preemption span per recorded preemption that ended. */
  long ended = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++)
    ended += res.preemptions[i].latency_ns > 0;
  assert_int_equal(t->preemptions, ended);
  free(t);
  free(text);
  atoll_run_results_free(&res);
  unload(l);
}

/* REEF keeps every DQ at depth 4 (§4.2): the DQ counters never exceed it; each preemption holds a
 * preempt flag; every completed request is one slice, and every begin has its end. */
static void trace_agrees_with_the_run(void **state) {
  (void)state;
  loaded *l = load_disb_a("policy={name: reef, dkp: true}", "duration_ms=300");
  atoll_run_results res;
  char *text = traced_run(l, 0, 0, &res);
  tally *t = malloc(sizeof *t);
  assert_non_null(t);
  tally_trace(text, t);
  if (t->max_dq > 4)
    fail_msg("a DQ counter reached %.0f, the DQ holds 4", t->max_dq);
  assert_cmp(t->max_dq, >=, 1);
  for (long i = 0; i < t->n_pre; i++) {
    bool flagged = false;
    for (long k = 0; k < t->n_flag && !flagged; k++)
      flagged = t->flag_at[k] >= t->pre_lo[i] && t->flag_at[k] <= t->pre_hi[i];
    if (!flagged)
      fail_msg("preemption %ld [%.3f, %.3f] us has no preempt flag", i, t->pre_lo[i], t->pre_hi[i]);
  }
  assert_int_equal(t->request_begins, completed_requests(&res, &l->s));
  assert_int_equal(t->request_begins, t->request_ends);
  assert_int_equal(t->slice_begins, t->slice_ends);
  free(t);
  free(text);
  atoll_run_results_free(&res);
  unload(l);
}

/* A traced run reports exactly what an untraced one does: the hooks only observe. */
static void tracing_does_not_change_the_run(void **state) {
  (void)state;
  loaded *l = load_disb_a("policy={name: reef, dkp: true}", "duration_ms=200");
  atoll_run_results traced, plain;
  char *text = traced_run(l, 0, 0, &traced);
  assert_int_equal(atoll_sim_run(&l->s, NULL, &plain), ATOLL_OK);
  char *a = report_json(&traced), *b = report_json(&plain);
  assert_string_equal(a, b);
  free(a), free(b), free(text);
  atoll_run_results_free(&traced);
  atoll_run_results_free(&plain);
  unload(l);
}

/* A window keeps what touches it: nothing ends before it or starts after it, and it is smaller. */
static void window_keeps_only_what_touches_it(void **state) {
  (void)state;
  loaded *l = load_disb_a("policy={name: reef, dkp: true}", "duration_ms=200");
  atoll_run_results whole_res, part_res;
  char *whole = traced_run(l, 0, 0, &whole_res);
  char *part = traced_run(l, 50, 60, &part_res);
  tally *t = malloc(sizeof *t);
  assert_non_null(t);
  tally_trace(part, t);
  /* Instants and counter samples lie inside [50, 60) ms; spans overlap it; slices begin before its end. */
  if (t->point_lo < 50000.0 || t->point_hi >= 60000.0)
    fail_msg("window 50-60 ms: instants and counters from %.3f to %.3f us", t->point_lo, t->point_hi);
  if (t->span_end_lo < 50000.0 || t->span_start_hi >= 60000.0)
    fail_msg("window 50-60 ms: a span ends at %.3f us or starts at %.3f us", t->span_end_lo, t->span_start_hi);
  assert_cmp(t->preemptions, >=, 1);
  assert_cmp(t->counters_dq, >=, 1);
  assert_cmp(strlen(part) * 5, <, strlen(whole));
  free(t), free(whole), free(part);
  atoll_run_results_free(&whole_res);
  atoll_run_results_free(&part_res);
  unload(l);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(disb_a_reef_trace_has_every_track),
    cmocka_unit_test(trace_agrees_with_the_run),
    cmocka_unit_test(tracing_does_not_change_the_run),
    cmocka_unit_test(window_keeps_only_what_touches_it),
};

ATOLL_TEST_MAIN(tests)
