/* The run report: statistics on hand-built results, expect verdicts, and the JSON, CSV and table
 * writers.
 *
 * The fixture is a 1 s run with 100 ms warmup (window 900 ms) on a 60-CU GPU: two RT clients on
 * model "net" (standalone 2 ms) — "cam" (uniform 100 Hz, explicit 3 ms deadline) and "lidar"
 * (uniform 200 Hz, so a 5 ms default deadline) — and one BE client "bg" on model "big"
 * (standalone 4 ms, closed loop, no deadline). Each test starts from a fresh fixture. */
#include <math.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "tests/atoll_test.h"
#include "tests/report/json_check.h"
#include "run/report.h"

#define MS 1000000LL
#define US 1000LL
#define MAX_REQ 128

typedef struct fixture {
  atoll_scenario_model models[2];
  atoll_client clients[3];
  atoll_expect expects[8];
  atoll_scenario sc;
  atoll_request_record req[3][MAX_REQ];
  atoll_client_records recs[3];
  atoll_preemption_record pre[4];
  int64_t standalone[2];
  atoll_run_results res;
} fixture;

static fixture fx;

/* Fails with both values when a and b differ by more than a relative 1e-12. */
#define assert_near(a, b)                                                                           \
  do {                                                                                              \
    double a_ = (a), b_ = (b);                                                                      \
    if (!(fabs(a_ - b_) <= 1e-12 * fmax(1.0, fabs(b_))))                                            \
      fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                                           \
  } while (0)

/* Appends a request to client c: arrival and latency in us; latency < 0 means never completed. */
static void add_req(uint32_t c, int64_t arrival_us, int64_t latency_us) {
  atoll_client_records *r = &fx.recs[c];
  assert_cmp(r->n, <, MAX_REQ);
  int64_t arrival = arrival_us * US;
  r->req[r->n] = (atoll_request_record){r->n, arrival, arrival, latency_us < 0 ? -1 : arrival + latency_us * US};
  r->n++;
}

static void clear_requests(uint32_t c) { fx.recs[c].n = 0; }

static void add_preemption(int64_t at_ms, int64_t lat_us, int64_t hq_us, int64_t dq_us, int64_t cu_us,
                           uint32_t restored, int64_t wasted_us, int64_t restore_us) {
  fx.pre[fx.res.n_preemptions++] = (atoll_preemption_record){.at_ns = at_ms * MS,
                                                              .latency_ns = lat_us * US,
                                                              .hq_reset_ns = hq_us * US,
                                                              .dq_evict_ns = dq_us * US,
                                                              .cu_kill_ns = cu_us * US,
                                                              .restored_kernels = restored,
                                                              .wasted_gpu_ns = wasted_us * US,
                                                              .restore_ns = restore_us * US};
}

static void fixture_scenario(void) {
  fx.models[0] = (atoll_scenario_model){"net", "models/net.yaml", {.name = "net", .gpu = "mi50"}};
  fx.models[1] = (atoll_scenario_model){"big", "models/big.yaml", {.name = "big", .gpu = "mi50"}};
  fx.clients[0] = (atoll_client){"cam", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 100}, 3 * MS};
  fx.clients[1] = (atoll_client){"lidar", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 200}, 0};
  fx.clients[2] = (atoll_client){"bg", 1, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0};
  fx.sc = (atoll_scenario){.path = "scenarios/test.yaml",
                           .gpu = {.name = "mi50", .cus = 60},
                           .models = fx.models,
                           .n_models = 2,
                           .clients = fx.clients,
                           .n_clients = 3,
                           .policy = {.kind = ATOLL_POLICY_REEF, .dkp = true},
                           .duration_ns = 1000 * MS,
                           .warmup_ns = 100 * MS,
                           .seed = 7,
                           .expects = fx.expects,
                           .n_expects = 0};
}

/* cam: one request before warmup (10 ms, must not count), 2/4/2 ms, one uncompleted whose 3 ms
 * deadline passes before the end (996 ms) and one whose deadline does not (998 ms). The unfinished
 * requests wait no longer than their clients' (and the RT pool's) longest completed ones, so the
 * max verdicts below come from completed requests (unfinished_wait_bounds_the_max has the other
 * case).
 * lidar: 5 ms (exactly its deadline: no miss), 6 ms (miss), uncompleted at 995 ms (deadline at
 * exactly the end: miss) and at 996 ms (no miss). bg: one 4 ms request and one uncompleted. */
static void fixture_requests(void) {
  add_req(0, 50000, 10000);
  add_req(0, 100000, 2000);
  add_req(0, 200000, 4000);
  add_req(0, 300000, 2000);
  add_req(0, 998000, -1);
  add_req(0, 996000, -1);
  add_req(1, 150000, 5000);
  add_req(1, 160000, 6000);
  add_req(1, 996000, -1);
  add_req(1, 995000, -1);
  add_req(2, 100000, 4000);
  add_req(2, 500000, -1);
  fx.recs[2].dropped = 3;
}

static void fixture_init(void) {
  memset(&fx, 0, sizeof fx);
  fixture_scenario();
  for (uint32_t c = 0; c < 3; c++)
    fx.recs[c] = (atoll_client_records){.req = fx.req[c], .n = 0, .cap = MAX_REQ};
  fixture_requests();
  fx.standalone[0] = 2 * MS;
  fx.standalone[1] = 4 * MS;
  fx.res = (atoll_run_results){.scenario = &fx.sc,
                               .mode = "sim",
                               .standalone_ns = fx.standalone,
                               .clients = fx.recs,
                               .preemptions = fx.pre,
                               .cap_preemptions = 4,
                               .window_ns = 900 * MS,
                               .cus = 60,
                               .events = 12345,
                               .wall_s = 0.5};
  add_preemption(200, 10, 1, 4, 7, 2, 100, 10);
  add_preemption(300, 30, 2, 5, 8, 0, 0, 0);
  add_preemption(400, 20, 3, 6, 9, 1, 50, 5);
  fx.res.cu_busy_ns = 27000000000LL;    /* 0.5 of 60 CUs x 900 ms */
  fx.res.cu_busy_rt_ns = 10800000000LL; /* 0.2 */
  fx.res.cu_busy_be_ns = 16200000000LL; /* 0.3 */
  fx.res.cu_busy_be_padded_ns = 5400000000LL; /* 0.1 */
}

static void add_expect(const char *text, const char *field, atoll_cmp cmp, double value) {
  fx.expects[fx.sc.n_expects++] = (atoll_expect){text, field, cmp, value};
}

static void compute(atoll_report *r) { assert_int_equal(atoll_report_compute(&fx.res, r), ATOLL_OK); }

/* Sets client c's counted requests to the given latencies (us), all arriving after warmup. */
static void set_latencies(uint32_t c, const int64_t *lat_us, uint32_t n) {
  clear_requests(c);
  for (uint32_t i = 0; i < n; i++)
    add_req(c, 200000 + 1000 * (int64_t)i, lat_us[i]);
}

static char *capture_json(const atoll_report *r, bool include_run) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(atoll_report_write_json(r, f, include_run), ATOLL_OK);
  fclose(f);
  return buf;
}

static char *capture_csv(const atoll_report *r) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(atoll_report_write_csv(r, f, true), ATOLL_OK);
  fclose(f);
  return buf;
}

typedef void (*printer)(const atoll_report *, FILE *);

static char *capture_print(const atoll_report *r, printer p) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  p(r, f);
  fclose(f);
  return buf;
}

static double json_num(const char *json, const char *path) {
  double v = 0;
  if (!json_number_at(json, path, &v))
    fail_msg("no number at %s", path);
  return v;
}

/* ---- Percentiles ---------------------------------------------------------------------------- */

static void percentiles_of_one_to_four(void **state) {
  (void)state;
  fixture_init();
  const int64_t lat[] = {3000, 1000, 4000, 2000};
  set_latencies(0, lat, 4);
  atoll_report r;
  compute(&r);
  const atoll_stats *s = &r.clients[0].latency_us;
  assert_int_equal(s->n, 4);
  assert_near(s->mean, 2500);
  assert_near(s->p50, 2000); /* ceil(0.5 * 4) = 2nd */
  assert_near(s->p95, 4000); /* ceil(3.8) = 4th */
  assert_near(s->p99, 4000);
  assert_near(s->max, 4000);
  atoll_report_free(&r);
}

static void p99_of_a_hundred_values_is_the_99th(void **state) {
  (void)state;
  fixture_init();
  int64_t lat[100];
  for (int i = 0; i < 100; i++)
    lat[i] = ((i * 37) % 100 + 1); /* 1..100 us, shuffled */
  set_latencies(0, lat, 100);
  atoll_report r;
  compute(&r);
  const atoll_stats *s = &r.clients[0].latency_us;
  assert_near(s->p99, 99);
  assert_near(s->p95, 95);
  assert_near(s->p50, 50);
  assert_near(s->max, 100);
  assert_near(s->mean, 50.5);
  atoll_report_free(&r);
}

static void stats_of_one_and_two_samples(void **state) {
  (void)state;
  fixture_init();
  const int64_t one[] = {1500};
  const int64_t two[] = {3000, 1000};
  set_latencies(0, one, 1);
  set_latencies(1, two, 2);
  atoll_report r;
  compute(&r);
  const atoll_stats *a = &r.clients[0].latency_us, *b = &r.clients[1].latency_us;
  assert_int_equal(a->n, 1);
  assert_near(a->mean, 1500);
  assert_near(a->p50, 1500);
  assert_near(a->p99, 1500);
  assert_near(a->max, 1500);
  assert_int_equal(b->n, 2);
  assert_near(b->p50, 1000); /* ceil(1.0) = 1st */
  assert_near(b->p95, 3000); /* ceil(1.9) = 2nd */
  assert_near(b->mean, 2000);
  atoll_report_free(&r);
}

static void ties_keep_the_first_request_as_max(void **state) {
  (void)state;
  fixture_init();
  const int64_t lat[] = {5000, 5000, 3000, 5000};
  set_latencies(0, lat, 4);
  atoll_report r;
  compute(&r);
  const atoll_stats *s = &r.clients[0].latency_us;
  assert_near(s->p50, 5000); /* sorted 3,5,5,5: 2nd */
  assert_near(s->max, 5000);
  assert_int_equal(s->max_client, 0);
  assert_int_equal(s->max_request, 0);
  assert_int_equal(s->max_arrival_ns, 200 * MS);
  atoll_report_free(&r);
}

/* ---- Counting, throughput, deadlines -------------------------------------------------------- */

static void warmup_excludes_early_requests(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  const atoll_client_report *cam = &r.clients[0];
  assert_int_equal(cam->requests, 5);
  assert_int_equal(cam->completed, 3);
  assert_int_equal(cam->latency_us.n, 3);
  assert_near(cam->latency_us.max, 4000); /* not the 10 ms request that arrived at 50 ms */
  assert_near(cam->latency_us.mean, 8000.0 / 3);
  assert_near(cam->latency_us.p50, 2000);
  assert_near(cam->norm_latency.max, 2.0);
  assert_near(cam->norm_latency.p50, 1.0);
  atoll_report_free(&r);
}

static void throughput_and_normalized_throughput(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  assert_near(r.clients[0].throughput_rps, 3 / 0.9);
  assert_near(r.clients[0].norm_throughput, 3 / 0.9 * 0.002);
  assert_near(r.clients[1].throughput_rps, 2 / 0.9);
  assert_near(r.clients[2].throughput_rps, 1 / 0.9);
  assert_near(r.clients[2].norm_throughput, 1 / 0.9 * 0.004);
  assert_near(r.total_norm_throughput, 0.014 / 0.9);
  assert_int_equal(r.clients[2].dropped, 3);
  atoll_report_free(&r);
}

/* Outcomes (docs/report.md): shed and failed as recorded; goodput counts the window's requests
 * completed within their deadline: cam 2 of 3 (4 ms > 3 ms), lidar 1 of 2 (6 ms > its 5 ms
 * period), bg 1 (no deadline); QoS violations add the late ones to the shed, dropped and failed.
 * The text report sums them on one line. */
static void outcomes_shed_failed_and_goodput(void **state) {
  (void)state;
  fixture_init();
  fx.recs[0].shed = 3;
  fx.req[0][4].shed = fx.req[0][5].shed = 1; /* cam's two uncompleted requests */
  fx.req[0][0].shed = 1, fx.req[0][0].done_ns = -1; /* before warmup: not a violation of the window */
  fx.recs[2].failed = 1;
  fx.req[2][1].failed = ATOLL_RUN_FAILED_LAUNCH; /* bg's uncompleted one */
  snprintf(fx.recs[2].failure, sizeof fx.recs[2].failure, "request 1: the device refused a launch");
  atoll_report r;
  compute(&r);
  assert_int_equal(r.clients[0].shed, 3);
  assert_int_equal(r.clients[2].failed, 1);
  assert_near(r.clients[0].goodput_rps, 2 / 0.9);
  assert_near(r.clients[1].goodput_rps, 1 / 0.9);
  assert_near(r.clients[2].goodput_rps, 1 / 0.9);
  /* QoS violations: late + shed + failed in the window, + dropped. cam 1 late + 2 shed (its third
   * shed request arrived before warmup), lidar 1 late + 1 overdue (uncompleted at 995 ms, its
   * deadline at the end: late whenever it completes), bg 3 dropped + 1 failed. */
  assert_int_equal(r.clients[0].qos_violations, 3);
  assert_int_equal(r.clients[1].overdue, 1);
  assert_int_equal(r.clients[1].qos_violations, 2);
  assert_int_equal(r.clients[0].overdue, 0); /* its uncompleted ones are shed, counted once */
  assert_int_equal(r.clients[2].qos_violations, 4);
  assert_near(r.clients[2].violation_ratio, 4.0 / (r.clients[2].requests + 3));
  char *json = capture_json(&r, false);
  assert_near(json_num(json, "clients.0.shed"), 3);
  assert_near(json_num(json, "clients.2.failed"), 1);
  assert_near(json_num(json, "clients.0.goodput_rps"), 2 / 0.9);
  /* GUE: throughput over the mean latency in ms. */
  assert_true(r.clients[0].completed > 0);
  assert_near(r.clients[0].gue, r.clients[0].throughput_rps / (r.clients[0].latency_us.mean / 1e3));
  assert_near(json_num(json, "clients.0.gue"), r.clients[0].gue);
  assert_non_null(strstr(json, "\"failure\": \"request 1: the device refused a launch\""));
  /* No shares series: no keys (only gslice's runs have one). */
  assert_null(strstr(json, "\"shares\""));
  free(json);
  char *t = capture_print(&r, atoll_report_print_table);
  assert_non_null(strstr(t, "outcomes                     dropped 3, shed 3, failed 1; goodput 4.4 req/s; QoS violations 9 ("));
  /* Each client's row has its own: requests, completed, dropped, shed, failed, in that order
   * under the header's names; the pooled row sums the RT clients'. */
  static const char *const rows[] = {
      "client      class model requests completed  dropped   shed failed     req/s",
      "\ncam         rt    net          5         3        0      3      0       3.3",
      "\nlidar       rt    net          4         2        0      0      0       2.2",
      "\nbg          be    big          2         1        3      0      1       1.1",
      "\nrt (pooled) rt    -            9         5        0      3      0         -"};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (!strstr(t, rows[i]))
      fail_msg("table lacks '%s':\n%s", rows[i], t);
  free(t);
  atoll_report_free(&r);
}

static void print_overload(const atoll_report *r, FILE *out) { atoll_report_warn_overload(r, "atoll sim", out); }

/* Overload (docs/report.md): an open client that dropped or shed a request, or completed fewer
 * than 90 % of its window's requests, is warned about with its offered and served rates and
 * loads; a closed-loop client never is. */
static void overload_warns_open_clients_served_less(void **state) {
  (void)state;
  fixture_init();
  static const int64_t lidar_ok[10] = {5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, -1};
  set_latencies(1, lidar_ok, 10); /* 9 of 10 completed: the in-flight margin */
  atoll_report r;
  compute(&r);
  assert_true(atoll_report_client_overloaded(&r, 0));  /* cam: 3 of 5 */
  assert_false(atoll_report_client_overloaded(&r, 1)); /* lidar: 9 of 10 */
  assert_false(atoll_report_client_overloaded(&r, 2)); /* bg: closed loop, even with drops */
  char *t = capture_print(&r, print_overload);
  assert_string_equal(t, "atoll sim: warning: client 'cam' offers more than it is served: 100.0 req/s (load 0.20) "
                         "offered, 3.3 req/s (load 0.01) completed; 3 of its 5 requests completed, 0 dropped, 0 "
                         "shed (docs/report.md, \"Overload\")\n");
  free(t);
  atoll_report_free(&r);
  /* A drop alone is enough: lidar completes all but now refused one arrival. */
  fx.recs[1].dropped = 1;
  compute(&r);
  assert_true(atoll_report_client_overloaded(&r, 1));
  atoll_report_free(&r);
  /* The margin is at least one request: in a short run, 1 of 2 still in flight is no overload
   * (the warning then said "offered 4 req/s, completed 5 req/s"); 1 of 3 completed is. */
  static const int64_t cam_short[3] = {2000, -1, -1};
  set_latencies(0, cam_short, 2);
  compute(&r);
  assert_false(atoll_report_client_overloaded(&r, 0));
  atoll_report_free(&r);
  set_latencies(0, cam_short, 3);
  compute(&r);
  assert_true(atoll_report_client_overloaded(&r, 0));
  atoll_report_free(&r);
}

static void deadline_misses_with_explicit_deadline(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  /* 4 ms > 3 ms, and the request at 996 ms that never completed. */
  assert_int_equal(r.clients[0].deadline_misses, 2);
  atoll_report_free(&r);
}

static void deadline_misses_default_to_uniform_period(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  /* 6 ms > 5 ms, and the uncompleted request whose deadline is exactly the end of the run. */
  assert_int_equal(r.clients[1].deadline_misses, 2);
  assert_int_equal(r.clients[2].deadline_misses, 0); /* closed loop: no deadline */
  atoll_report_free(&r);
}

static void deadline_of_load_based_uniform_client(void **state) {
  (void)state;
  fixture_init();
  fx.clients[1].arrival = (atoll_arrival){.kind = ATOLL_ARRIVAL_UNIFORM, .load = 0.5};
  atoll_report r;
  compute(&r);
  /* Period 2 ms / 0.5 = 4 ms: both completed requests and both uncompleted ones miss. */
  assert_int_equal(r.clients[1].deadline_misses, 4);
  atoll_report_free(&r);
}

static void rt_pools_every_rt_client(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  /* cam 2,4,2 ms and lidar 5,6 ms; bg's 4 ms stays out. */
  assert_int_equal(r.rt_latency_us.n, 5);
  assert_near(r.rt_latency_us.mean, 3800);
  assert_near(r.rt_latency_us.p50, 4000);
  assert_near(r.rt_latency_us.p95, 6000);
  assert_near(r.rt_latency_us.max, 6000);
  assert_int_equal(r.rt_norm_latency.n, 5);
  assert_near(r.rt_norm_latency.mean, 1.9);
  assert_near(r.rt_norm_latency.p50, 2.0);
  assert_near(r.rt_norm_latency.max, 3.0);
  atoll_report_free(&r);
}

static void max_names_the_request_that_set_it(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  assert_int_equal(r.rt_latency_us.max_client, 1);
  assert_int_equal(r.rt_latency_us.max_request, 1);
  assert_int_equal(r.rt_latency_us.max_arrival_ns, 160 * MS);
  assert_int_equal(r.clients[0].latency_us.max_client, 0);
  assert_int_equal(r.clients[0].latency_us.max_request, 2);
  assert_int_equal(r.clients[0].latency_us.max_arrival_ns, 200 * MS);
  atoll_report_free(&r);
}

static void preemption_statistics(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  assert_int_equal(r.preemption_count, 3);
  assert_near(r.preemption_latency_us.mean, 20);
  assert_near(r.preemption_latency_us.p50, 20);
  assert_near(r.preemption_latency_us.p99, 30);
  assert_near(r.preemption_latency_us.max, 30);
  assert_int_equal(r.preemption_latency_us.max_request, 1);
  assert_int_equal(r.preemption_latency_us.max_arrival_ns, 300 * MS);
  assert_near(r.breakdown_us[0], 2);
  assert_near(r.breakdown_us[1], 5);
  assert_near(r.breakdown_us[2], 8);
  assert_int_equal(r.restored_kernels, 3);
  assert_near(r.wasted_gpu_us, 150);
  assert_near(r.restore_us, 15);
  atoll_report_free(&r);
}

static void cu_busy_fractions(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  assert_near(r.cu_busy_frac, 0.5);
  assert_near(r.cu_busy_frac_rt, 0.2);
  assert_near(r.cu_busy_frac_be, 0.3);
  atoll_report_free(&r);
}

/* ---- Fields and verdicts -------------------------------------------------------------------- */

/* Every field of the grammar in core/expect.c, for the fixture's clients. */
static size_t all_fields(char fields[][64], size_t max) {
  static const char *const stats5[] = {"mean", "p50", "p95", "p99", "max"};
  static const char *const counts[] = {"requests", "completed", "dropped", "throughput_rps", "norm_throughput",
                                       "deadline_misses"};
  static const char *const fixed[] = {
      "total_norm_throughput", "preemptions.count", "preemptions.restored_kernels", "preemptions.wasted_gpu_us",
      "preemptions.restore_us", "preemptions.breakdown_us.hq_reset", "preemptions.breakdown_us.dq_evict",
      "preemptions.breakdown_us.cu_kill", "gpu.cu_busy_frac", "gpu.cu_busy_frac_rt", "gpu.cu_busy_frac_be",
      "gpu.cu_busy_frac_be_padded",
      "preemptions.latency_us.mean", "preemptions.latency_us.p50", "preemptions.latency_us.p99",
      "preemptions.latency_us.max"};
  static const char *const clients[] = {"cam", "lidar", "bg"};
  size_t n = 0;
  for (size_t i = 0; i < 5; i++) {
    snprintf(fields[n++], 64, "rt.norm_latency.%s", stats5[i]);
    snprintf(fields[n++], 64, "rt.latency_us.%s", stats5[i]);
  }
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    snprintf(fields[n++], 64, "%s", fixed[i]);
  for (size_t c = 0; c < 3; c++) {
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
      snprintf(fields[n++], 64, "clients.%s.%s", clients[c], counts[i]);
    for (size_t i = 0; i < 5; i++) {
      snprintf(fields[n++], 64, "clients.%s.latency_us.%s", clients[c], stats5[i]);
      snprintf(fields[n++], 64, "clients.%s.norm_latency.%s", clients[c], stats5[i]);
    }
  }
  assert_cmp(n, <=, max);
  return n;
}

static void every_grammar_field_resolves(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  char fields[96][64];
  size_t n = all_fields(fields, 96);
  assert_int_equal(n, 74);
  const char *const names[] = {"cam", "lidar", "bg"};
  for (size_t i = 0; i < n; i++) {
    atoll_expect_error e;
    double v = -1;
    if (atoll_expect_field_check(fields[i], names, 3, &e) != ATOLL_OK)
      fail_msg("%s is not in the grammar: %s", fields[i], e.msg);
    int rc = atoll_report_field(&r, fields[i], &v);
    if (rc != ATOLL_OK)
      fail_msg("%s did not resolve: %d", fields[i], rc);
    if (isnan(v))
      fail_msg("%s resolved to NaN on a fixture where every statistic has samples", fields[i]);
  }
  atoll_report_free(&r);
}

static void fields_resolve_to_their_values(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  static const struct {
    const char *field;
    double value;
  } cases[] = {
      {"rt.latency_us.p50", 4000},        {"rt.norm_latency.max", 3},
      {"clients.cam.requests", 5},        {"clients.cam.completed", 3},
      {"clients.bg.dropped", 3},          {"clients.lidar.deadline_misses", 2},
      {"clients.cam.latency_us.max", 4000}, {"clients.bg.norm_latency.mean", 1},
      {"clients.lidar.throughput_rps", 2 / 0.9}, {"total_norm_throughput", 0.014 / 0.9},
      {"preemptions.count", 3},           {"preemptions.latency_us.p99", 30},
      {"preemptions.breakdown_us.dq_evict", 5}, {"preemptions.restored_kernels", 3},
      {"preemptions.wasted_gpu_us", 150}, {"preemptions.restore_us", 15},
      {"gpu.cu_busy_frac_be", 0.3},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double v = NAN;
    assert_int_equal(atoll_report_field(&r, cases[i].field, &v), ATOLL_OK);
    if (!(fabs(v - cases[i].value) <= 1e-12 * fmax(1, fabs(cases[i].value))))
      fail_msg("%s = %.17g, expected %.17g", cases[i].field, v, cases[i].value);
  }
  atoll_report_free(&r);
}

static void unknown_fields_return_enoent(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  static const char *const bad[] = {"",
                                    "rt",
                                    "rt.latency_us",
                                    "rt.latency_us.p98",
                                    "rt.latency_us.max.x",
                                    "clients.nobody.requests",
                                    "clients.cam",
                                    "clients.cam.requests.x",
                                    "clients..requests",
                                    "clients.ca.requests",
                                    "clients.cam.latency_us.p90",
                                    "preemptions.latency_us.p95",
                                    "preemptions.breakdown_us",
                                    "gpu",
                                    "gpu.cu_busy",
                                    "total_norm_throughput.x",
                                    "total_norm_throughputs",
                                    "throughput"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    /* Between good fields, which the report remembers as accepted (report.c): a bad one is still
     * refused, even one that differs from a remembered one by a character. */
    double ok;
    assert_int_equal(atoll_report_field(&r, "clients.cam.requests", &ok), ATOLL_OK);
    assert_int_equal(atoll_report_field(&r, "rt.latency_us.max", &ok), ATOLL_OK);
    double v = 42;
    int rc = atoll_report_field(&r, bad[i], &v);
    if (rc != ATOLL_ENOENT)
      fail_msg("'%s' gave %d, expected ATOLL_ENOENT", bad[i], rc);
    assert_cmp(v, ==, 42);
  }
  atoll_report_free(&r);
}

static void verdicts_and_margins_for_each_comparison(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.p50 <= 4500", "rt.latency_us.p50", ATOLL_CMP_LE, 4500);
  add_expect("clients.cam.latency_us.p50 >= 2500", "clients.cam.latency_us.p50", ATOLL_CMP_GE, 2500);
  add_expect("total_norm_throughput > 0.01", "total_norm_throughput", ATOLL_CMP_GT, 0.01);
  add_expect("gpu.cu_busy_frac < 0.5", "gpu.cu_busy_frac", ATOLL_CMP_LT, 0.5);
  add_expect("gpu.cu_busy_frac <= 0.5", "gpu.cu_busy_frac", ATOLL_CMP_LE, 0.5);
  atoll_report r;
  compute(&r);
  const atoll_expect_verdict *v = r.verdicts;
  assert_true(v[0].holds);
  assert_near(v[0].value, 4000);
  assert_near(v[0].margin, 500);
  assert_false(v[1].holds);
  assert_near(v[1].margin, -500);
  assert_true(v[2].holds);
  assert_near(v[2].margin, 0.014 / 0.9 - 0.01);
  assert_false(v[3].holds); /* strict: equal is outside */
  assert_near(v[3].margin, 0);
  assert_true(v[4].holds);
  assert_false(r.all_hold);
  for (int i = 0; i < 5; i++)
    assert_false(v[i].has_request);
  atoll_report_free(&r);
}

static void max_verdict_carries_the_request(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.max < 6000", "rt.latency_us.max", ATOLL_CMP_LT, 6000);
  add_expect("preemptions.latency_us.max <= 25", "preemptions.latency_us.max", ATOLL_CMP_LE, 25);
  add_expect("clients.cam.latency_us.p99 <= 5000", "clients.cam.latency_us.p99", ATOLL_CMP_LE, 5000);
  atoll_report r;
  compute(&r);
  const atoll_expect_verdict *v = r.verdicts;
  assert_false(v[0].holds);
  assert_true(v[0].has_request);
  assert_int_equal(v[0].client, 1);
  assert_int_equal(v[0].request, 1);
  assert_int_equal(v[0].arrival_ns, 160 * MS);
  assert_false(v[1].holds);
  assert_near(v[1].margin, -5);
  assert_true(v[1].has_request);
  assert_int_equal(v[1].client, -1); /* a preemption, not a client's request */
  assert_int_equal(v[1].request, 1);
  assert_int_equal(v[1].arrival_ns, 300 * MS);
  assert_true(v[2].holds);
  assert_false(v[2].has_request);
  atoll_report_free(&r);
}

/* A request still waiting when the run ends has a latency of at least its wait: a max bound is
 * judged on that where it is longer than every completed request's, and the request is named. A
 * shed request has no latency to bound. */
static void unfinished_wait_bounds_the_max(void **state) {
  (void)state;
  fixture_init();
  add_req(0, 980000, -1); /* cam: request 6, waiting 20 ms when the window ends at 1000 ms */
  add_expect("clients.cam.latency_us.max <= 5000", "clients.cam.latency_us.max", ATOLL_CMP_LE, 5000);
  add_expect("rt.norm_latency.max <= 4", "rt.norm_latency.max", ATOLL_CMP_LE, 4);
  add_expect("clients.cam.latency_us.p99 <= 5000", "clients.cam.latency_us.p99", ATOLL_CMP_LE, 5000);
  atoll_report r;
  compute(&r);
  const atoll_expect_verdict *v = r.verdicts;
  assert_near(r.clients[0].latency_us.max, 4000); /* the statistic stays the completed requests' */
  /* 3 unfinished beside the 3 completed, the longest 20 ms */
  assert_int_equal(r.clients[0].latency_lower_us.n - r.clients[0].latency_us.n, 3);
  assert_near(r.clients[0].latency_lower_us.max, 20000);
  assert_false(v[0].holds);
  assert_near(v[0].value, 20000);
  assert_near(v[0].margin, -15000);
  assert_true(v[0].unfinished);
  assert_int_equal(v[0].client, 0);
  assert_int_equal(v[0].request, 6);
  assert_int_equal(v[0].arrival_ns, 980 * MS);
  assert_false(v[1].holds); /* pooled over RT: 20 ms over cam's 2 ms standalone */
  assert_near(v[1].value, 10);
  assert_true(v[1].unfinished);
  /* The p99 too: of 2, 4, 2 ms completed and 2, 4, 20 ms waited (unfinished_waits_bound_the_mean
   * has the rest of this rule). */
  assert_false(v[2].holds);
  assert_near(v[2].value, 20000);
  assert_near(r.clients[0].latency_us.p99, 4000);
  assert_false(v[2].unfinished);
  assert_true(v[2].lower_bound);
  char *t = capture_print(&r, atoll_report_print_violations);
  assert_string_equal(t, "expect FAILED: clients.cam.latency_us.max <= 5000: value 20000, bound 5000, margin -15000 "
                         "(set by request 6 of client cam, arrived at 980.000 ms, unfinished when the run ended: its "
                         "wait so far, a lower bound)\n"
                         "expect FAILED: rt.norm_latency.max <= 4: value 10, bound 4, margin -6 (set by request 6 of "
                         "client cam, arrived at 980.000 ms, unfinished when the run ended: its wait so far, a lower "
                         "bound)\n"
                         "expect FAILED: clients.cam.latency_us.p99 <= 5000: value 20000, bound 5000, margin -15000 "
                         "(a lower bound: the requests unfinished when the run ended counted at their wait so far)\n");
  free(t);
  atoll_report_free(&r);
  fx.req[0][6].shed = 1; /* shed: an outcome, not a wait */
  compute(&r);
  assert_true(r.verdicts[0].holds);
  assert_near(r.verdicts[0].value, 4000);
  assert_false(r.verdicts[0].unfinished);
  assert_true(r.verdicts[2].holds);
  assert_false(r.verdicts[2].lower_bound);
  atoll_report_free(&r);
}

/* A mean or percentile bound is judged on the statistic over the completed requests and the
 * unfinished ones at their wait so far where that is larger, and on the completed requests' where
 * it is not (a short wait would pull the mean down, and the request's latency is unknown). */
static void unfinished_waits_bound_the_mean(void **state) {
  (void)state;
  fixture_init(); /* cam: 2, 4, 2 ms completed, waits of 2 and 4 ms at the end (1000 ms) */
  add_expect("clients.cam.latency_us.mean <= 3000", "clients.cam.latency_us.mean", ATOLL_CMP_LE, 3000);
  add_expect("clients.cam.latency_us.p50 <= 3000", "clients.cam.latency_us.p50", ATOLL_CMP_LE, 3000);
  add_expect("rt.latency_us.mean <= 4000", "rt.latency_us.mean", ATOLL_CMP_LE, 4000);
  atoll_report r;
  compute(&r);
  /* (2 + 4 + 2 + 2 + 4) / 5 = 2.8 ms, above the completed 8 / 3 ms */
  assert_near(r.clients[0].latency_lower_us.mean, 2800);
  assert_int_equal(r.clients[0].latency_lower_us.n, 5);
  assert_true(r.verdicts[0].holds);
  assert_near(r.verdicts[0].value, 2800);
  assert_true(r.verdicts[0].lower_bound);
  assert_near(r.verdicts[1].value, 2000); /* p50 of 2, 2, 2, 4, 4: the completed requests' 2 ms */
  assert_false(r.verdicts[1].lower_bound);
  atoll_report_free(&r);
  add_req(0, 999000, -1); /* a 1 ms wait: 15 / 6 ms, below the completed requests' mean */
  compute(&r);
  assert_near(r.clients[0].latency_lower_us.mean, 2500);
  assert_near(r.verdicts[0].value, 8000.0 / 3);
  assert_false(r.verdicts[0].lower_bound);
  atoll_report_free(&r);
  add_req(0, 960000, -1); /* 40 ms: 55 / 7 ms; the RT pool's with lidar's 5, 6 and its 4, 5 ms waits */
  compute(&r);
  assert_false(r.verdicts[0].holds);
  assert_near(r.verdicts[0].value, 55000.0 / 7);
  assert_near(r.rt_latency_us.mean, 3800);
  assert_near(r.rt_latency_lower_us.mean, 75000.0 / 11);
  assert_false(r.verdicts[2].holds);
  assert_true(r.verdicts[2].lower_bound);
  char *t = capture_print(&r, atoll_report_print_table);
  assert_non_null(strstr(t, "FAIL  clients.cam.latency_us.mean <= 3000  value 7857.14 us"));
  assert_non_null(strstr(t, "(a lower bound: unfinished requests counted at their wait so far)\n"));
  free(t);
  t = capture_json(&r, false);
  assert_non_null(strstr(t, "\"expr\": \"clients.cam.latency_us.mean <= 3000\""));
  assert_non_null(strstr(t, "\"lower_bound\": true"));
  free(t);
  atoll_report_free(&r);
}

static void bounds_over_no_samples(void **state) {
  (void)state;
  fixture_init();
  fx.res.n_preemptions = 0;
  clear_requests(2);
  add_req(2, 200000, -1); /* bg: a request, never completed */
  add_expect("preemptions.latency_us.max <= 5", "preemptions.latency_us.max", ATOLL_CMP_LE, 5);
  add_expect("clients.bg.latency_us.max <= 1", "clients.bg.latency_us.max", ATOLL_CMP_LE, 1);
  add_expect("preemptions.breakdown_us.cu_kill <= 1", "preemptions.breakdown_us.cu_kill", ATOLL_CMP_LE, 1);
  atoll_report r;
  compute(&r);
  /* Vacuously true: there was no preemption to measure. */
  assert_true(r.verdicts[0].holds);
  assert_true(isnan(r.verdicts[0].value));
  assert_false(r.verdicts[0].has_request);
  /* bg had a request and completed none: a latency bound must not pass. */
  assert_false(r.verdicts[1].holds);
  assert_true(isnan(r.verdicts[1].value));
  assert_true(r.verdicts[2].holds);
  double v = 0;
  assert_int_equal(atoll_report_field(&r, "clients.bg.latency_us.mean", &v), ATOLL_OK);
  assert_true(isnan(v));
  assert_int_equal(r.clients[2].latency_us.max_client, -1);
  atoll_report_free(&r);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

/* Batches: a request of a batch of b is 1/b of a model run, so the mean is requests over runs;
 * with several GPUs each has its busy fraction (GPU 0's is the gpu object's) and its clients'
 * memory (weights plus activations times the largest batch). */
static void batches_and_gpus(void **state) {
  (void)state;
  fixture_init();
  clear_requests(2);
  for (int i = 0; i < 6; i++) {
    add_req(2, 200000 + i, 1000);
    fx.req[2][i].batch = i < 4 ? 4 : 2; /* one run of 4, one of 2 */
  }
  static atoll_scenario_model models[2];
  models[0] = fx.sc.models[0], models[1] = fx.sc.models[1];
  models[1].model.footprint_known = true;
  models[1].model.weights_mb = 100, models[1].model.activations_mb_per_batch = 10;
  fx.sc.models = models;
  fx.sc.gpu_count = 2;
  fx.clients[2].gpu = 1, fx.clients[2].batch_max = 4;
  static int64_t busy[2] = {27 * MS * 60, 45 * MS * 60};
  fx.res.n_gpus = 2, fx.res.gpu_cu_busy_ns = busy;
  atoll_report r;
  compute(&r);
  assert_near(r.clients[2].batch_mean, 3);
  assert_int_equal(r.clients[2].batch_max, 4);
  assert_near(r.clients[0].batch_mean, 1);
  double v = 0;
  assert_int_equal(atoll_report_field(&r, "clients.bg.batch.mean", &v), ATOLL_OK);
  assert_near(v, 3);
  assert_int_equal(r.n_gpus, 2);
  assert_near(r.gpu_busy_frac[0], 0.03);
  assert_near(r.gpu_busy_frac[1], 0.05);
  assert_near(r.gpu_memory_mb[0], 0);
  assert_near(r.gpu_memory_mb[1], 140);
  char *json = capture_json(&r, false);
  assert_int_equal(json_count_at(json, "gpus"), 2);
  assert_near(json_num(json, "gpus.1.memory_mb_used"), 140);
  assert_near(json_num(json, "clients.2.batch.mean"), 3);
  free(json);
  atoll_report_free(&r);
}

static void json_has_the_documented_shape(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.max < 6000", "rt.latency_us.max", ATOLL_CMP_LT, 6000);
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, true);
  if (!json_valid(json))
    fail_msg("invalid JSON:\n%s", json);
  static const char *const top[] = {"atoll_report", "mode", "scenario", "policy", "gpu_name", "duration_ms", "seed",
                                    "standalone_us", "clients", "rt", "total_norm_throughput", "preemptions",
                                    "gpu", "gpus", "expect", "run"};
  assert_int_equal(json_count_at(json, ""), sizeof top / sizeof top[0]);
  for (long i = 0; i < (long)(sizeof top / sizeof top[0]); i++) {
    char key[64];
    assert_true(json_key_at(json, "", i, key, sizeof key));
    assert_string_equal(key, top[i]);
  }
  static const char *const client_keys[] = {"name",           "model",          "class",      "requests",
                                            "completed",      "dropped",        "shed",       "failed",
                                            "deadline_misses", "throughput_rps", "norm_throughput", "goodput_rps",
                                            "gue",            "batch",          "qos_violations", "violation_ratio", "latency_us",
                                            "norm_latency"};
  for (long i = 0; i < (long)(sizeof client_keys / sizeof client_keys[0]); i++) {
    char key[64];
    assert_true(json_key_at(json, "clients.1", i, key, sizeof key));
    assert_string_equal(key, client_keys[i]);
  }
  char s[64];
  assert_true(json_string_at(json, "mode", s, sizeof s));
  assert_string_equal(s, "sim");
  assert_true(json_string_at(json, "policy", s, sizeof s));
  assert_string_equal(s, "reef");
  assert_true(json_string_at(json, "gpu_name", s, sizeof s));
  assert_string_equal(s, "mi50");
  assert_true(json_string_at(json, "clients.2.class", s, sizeof s));
  assert_string_equal(s, "be");
  assert_true(json_string_at(json, "clients.1.model", s, sizeof s));
  assert_string_equal(s, "net");
  assert_near(json_num(json, "atoll_report"), 1);
  assert_near(json_num(json, "duration_ms"), 1000);
  assert_near(json_num(json, "seed"), 7);
  assert_near(json_num(json, "standalone_us.net"), 2000);
  assert_near(json_num(json, "standalone_us.big"), 4000);
  assert_int_equal(json_count_at(json, "clients"), 3);
  assert_near(json_num(json, "clients.0.requests"), 5);
  assert_near(json_num(json, "clients.0.deadline_misses"), 2);
  assert_near(json_num(json, "clients.2.dropped"), 3);
  assert_near(json_num(json, "clients.0.latency_us.max"), 4000);
  assert_near(json_num(json, "clients.0.norm_latency.p95"), 2);
  assert_near(json_num(json, "rt.latency_us.p50"), 4000);
  assert_near(json_num(json, "rt.norm_latency.mean"), 1.9);
  assert_near(json_num(json, "preemptions.count"), 3);
  assert_near(json_num(json, "preemptions.latency_us.p99"), 30);
  assert_null(json_at(json, "preemptions.latency_us.p95"));
  assert_near(json_num(json, "preemptions.breakdown_us.cu_kill"), 8);
  assert_near(json_num(json, "preemptions.restored_kernels"), 3);
  assert_near(json_num(json, "gpu.cu_busy_frac_rt"), 0.2);
  /* One GPU: gpus[0] is the gpu object's GPU; batch figures of requests that ran alone. */
  assert_int_equal(json_count_at(json, "gpus"), 1);
  assert_near(json_num(json, "gpus.0.cu_busy_frac"), json_num(json, "gpu.cu_busy_frac"));
  assert_near(json_num(json, "gpus.0.memory_mb_used"), 0);
  assert_near(json_num(json, "clients.0.batch.mean"), 1);
  assert_near(json_num(json, "clients.0.batch.max"), 1);
  assert_int_equal(json_count_at(json, "expect"), 1);
  assert_true(json_string_at(json, "expect.0.expr", s, sizeof s));
  assert_string_equal(s, "rt.latency_us.max < 6000");
  assert_near(json_num(json, "expect.0.value"), 6000);
  assert_near(json_num(json, "expect.0.margin"), 0);
  assert_cmp(strncmp(json_at(json, "expect.0.holds"), "false", 5), ==, 0);
  assert_near(json_num(json, "run.events"), 12345);
  assert_near(json_num(json, "run.wall_s"), 0.5);
  assert_near(json_num(json, "run.speed_x"), 2);
  free(json);
  atoll_report_free(&r);
}

/* Padding figures: the overhead of each RT kernel that ran padded (launch time less its time
 * alone), as statistics in us and percent and as percentiles every 5%; the JSON object appears only
 * when some RT kernel ran padded. */
static void padding_overhead_statistics_and_json(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, false);
  assert_null(json_at(json, "padding"));
  assert_near(json_num(json, "gpu.cu_busy_frac_be_padded"), 0.1);
  free(json);
  atoll_report_free(&r);
  /* Overheads 0, 1, ..., 19 us on kernels of 100 us alone (launches of 100 ... 119 us). */
  static atoll_pad_sample samples[20];
  for (int i = 0; i < 20; i++)
    samples[i] = (atoll_pad_sample){.launch_ns = (100 + (19 - i)) * 1000, .alone_ns = 100 * 1000};
  fx.res.pad_samples = samples;
  fx.res.n_pad_samples = 20;
  fx.res.rt_kernels = 50;
  compute(&r);
  assert_int_equal(r.rt_kernels, 50);
  assert_int_equal(r.rt_kernels_padded, 20);
  assert_near(r.rt_overhead_us.mean, 9.5);
  assert_near(r.rt_overhead_us.p50, 9);   /* the 10th of 20 */
  assert_near(r.rt_overhead_us.p95, 18);  /* the 19th */
  assert_near(r.rt_overhead_us.max, 19);
  assert_near(r.rt_overhead_pct.p50, 9);  /* 9 us of 100 us */
  assert_near(r.rt_overhead_cdf_us[0], 0);
  assert_near(r.rt_overhead_cdf_us[1], 0);  /* 5%: the 1st */
  assert_near(r.rt_overhead_cdf_us[10], 9);
  assert_near(r.rt_overhead_cdf_us[20], 19);
  json = capture_json(&r, false);
  if (!json_valid(json))
    fail_msg("invalid JSON:\n%s", json);
  char key[64];
  assert_true(json_key_at(json, "", 14, key, sizeof key)); /* after "gpu" and "gpus", before "expect" */
  assert_string_equal(key, "padding");
  assert_near(json_num(json, "padding.rt_kernels"), 50);
  assert_near(json_num(json, "padding.rt_kernels_padded"), 20);
  assert_near(json_num(json, "padding.rt_overhead_us.p99"), 19);
  assert_near(json_num(json, "padding.rt_overhead_pct.mean"), 9.5);
  assert_int_equal(json_count_at(json, "padding.rt_overhead_cdf_us"), 21);
  assert_near(json_num(json, "padding.rt_overhead_cdf_us.10"), 9);
  free(json);
  atoll_report_free(&r);
}

static void json_numbers_round_trip(void **state) {
  (void)state;
  fixture_init();
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, false);
  /* Exactly equal, not just near: the writer must print enough digits. */
  assert_cmp(json_num(json, "clients.0.throughput_rps"), ==, r.clients[0].throughput_rps);
  assert_cmp(json_num(json, "clients.0.latency_us.mean"), ==, r.clients[0].latency_us.mean);
  assert_cmp(json_num(json, "total_norm_throughput"), ==, r.total_norm_throughput);
  assert_cmp(json_num(json, "clients.0.norm_throughput"), ==, r.clients[0].norm_throughput);
  free(json);
  atoll_report_free(&r);
}

static void json_is_byte_identical_and_run_can_be_omitted(void **state) {
  (void)state;
  fixture_init();
  atoll_report r1, r2;
  compute(&r1);
  compute(&r2);
  char *a = capture_json(&r1, false), *b = capture_json(&r2, false), *c = capture_json(&r1, true);
  assert_string_equal(a, b);
  assert_true(json_valid(a));
  assert_null(json_at(a, "run"));
  assert_null(strstr(a, "\"run\""));
  assert_non_null(json_at(c, "run"));
  free(a);
  free(b);
  free(c);
  atoll_report_free(&r1);
  atoll_report_free(&r2);
}

static void json_null_for_empty_statistics(void **state) {
  (void)state;
  fixture_init();
  clear_requests(2);
  fx.res.n_preemptions = 0;
  fx.res.wall_s = 0;
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, true);
  if (!json_valid(json))
    fail_msg("invalid JSON:\n%s", json);
  assert_null(strstr(json, "nan"));
  assert_null(strstr(json, "inf"));
  static const char *const nulls[] = {
      "clients.2.latency_us.mean", "clients.2.latency_us.p50", "clients.2.latency_us.p95",
      "clients.2.latency_us.p99", "clients.2.latency_us.max", "clients.2.norm_latency.max",
      "preemptions.latency_us.mean", "preemptions.latency_us.max", "preemptions.breakdown_us.hq_reset",
      "run.speed_x"};
  for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
    if (!json_null_at(json, nulls[i]))
      fail_msg("%s is not null", nulls[i]);
  assert_near(json_num(json, "clients.2.requests"), 0);
  assert_near(json_num(json, "preemptions.count"), 0);
  assert_near(json_num(json, "preemptions.wasted_gpu_us"), 0);
  free(json);
  atoll_report_free(&r);
}

static void json_escapes_strings(void **state) {
  (void)state;
  fixture_init();
  fx.sc.path = "dir \"quoted\"\\back\tslash\n.yaml";
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, false);
  if (!json_valid(json))
    fail_msg("invalid JSON:\n%s", json);
  char s[128];
  assert_true(json_string_at(json, "scenario", s, sizeof s));
  assert_string_equal(s, fx.sc.path);
  free(json);
  atoll_report_free(&r);
}

/* ---- CSV, table, violations ----------------------------------------------------------------- */

static void csv_header_and_one_row_per_client(void **state) {
  (void)state;
  fixture_init();
  clear_requests(2);
  atoll_report r;
  compute(&r);
  char *csv = capture_csv(&r);
  const char *header = "client,model,class,requests,completed,dropped,deadline_misses,throughput_rps,"
                       "norm_throughput,lat_mean_us,lat_p50_us,lat_p95_us,lat_p99_us,lat_max_us,"
                       "norm_mean,norm_p50,norm_p95,norm_p99,norm_max\n";
  assert_cmp(strncmp(csv, header, strlen(header)), ==, 0);
  int lines = 0;
  for (const char *p = csv; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, 4);
  const char *row = strstr(csv, "\ncam,net,rt,5,3,0,2,");
  assert_non_null(row);
  assert_non_null(strstr(csv, "\nbg,big,be,0,0,3,0,0,0,,,,,,,,,,\n"));
  /* Every row has as many cells as the header. */
  for (const char *line = csv; *line; line = strchr(line, '\n') + 1) {
    int commas = 0;
    for (const char *p = line; *p != '\n'; p++)
      commas += *p == ',';
    assert_int_equal(commas, 18);
  }
  free(csv);
  atoll_report_free(&r);
}

static void table_shows_clients_preemptions_and_verdicts(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.p50 <= 4500", "rt.latency_us.p50", ATOLL_CMP_LE, 4500);
  add_expect("rt.latency_us.max < 6000", "rt.latency_us.max", ATOLL_CMP_LT, 6000);
  atoll_report r;
  compute(&r);
  char *t = capture_print(&r, atoll_report_print_table);
  static const char *const wanted[] = {"scenarios/test.yaml", "reef", "mi50", "cam", "lidar", "bg",
                                       "rt (pooled)", "total normalized throughput  0.016",
                                       "preemptions                  3",
                                       "CU busy                      50.0 % (rt 20.0 %, be 30.0 %)",
                                       "bounds: FAILED, 1 of 2 hold",
                                       "PASS  rt.latency_us.p50 <= 4500  value 4000 us  margin +500 us",
                                       "FAIL  rt.latency_us.max < 6000   value 6000 us  margin +0 us"};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
    if (!strstr(t, wanted[i]))
      fail_msg("table lacks '%s':\n%s", wanted[i], t);
  /* The verdict comes before the client table. */
  assert_true(strstr(t, "bounds: ") < strstr(t, "\ncam "));
  int lines = 0;
  for (const char *p = t; *p; p++)
    lines += *p == '\n';
  assert_cmp(lines, <=, 24); /* one screen */
  free(t);
  atoll_report_free(&r);
}

static void violations_name_value_bound_and_request(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.p50 <= 4500", "rt.latency_us.p50", ATOLL_CMP_LE, 4500);
  add_expect("rt.latency_us.max < 6000", "rt.latency_us.max", ATOLL_CMP_LT, 6000);
  add_expect("clients.cam.latency_us.p50 >= 2500", "clients.cam.latency_us.p50", ATOLL_CMP_GE, 2500);
  atoll_report r;
  compute(&r);
  char *t = capture_print(&r, atoll_report_print_violations);
  assert_string_equal(t, "expect FAILED: rt.latency_us.max < 6000: value 6000, bound 6000, margin 0 (set by "
                         "request 1 of client lidar, arrived at 160.000 ms)\n"
                         "expect FAILED: clients.cam.latency_us.p50 >= 2500: value 2000, bound 2500, margin -500\n");
  free(t);
  atoll_report_free(&r);
}

/* A margin is value - bound: printed with the decimals its operands have, not the binary noise of
 * the subtraction (4000 - 3999.7 is 0.3000000000001819 in doubles). */
static void violation_margins_without_float_noise(void **state) {
  (void)state;
  fixture_init();
  add_expect("rt.latency_us.p50 <= 3999.7", "rt.latency_us.p50", ATOLL_CMP_LE, 3999.7);
  add_expect("total_norm_throughput >= 0.1", "total_norm_throughput", ATOLL_CMP_GE, 0.1);
  atoll_report r;
  compute(&r);
  char *t = capture_print(&r, atoll_report_print_violations);
  /* total_norm_throughput = 0.014 / 0.9 has 18 decimals: the margin keeps 15 significant digits */
  assert_string_equal(t, "expect FAILED: rt.latency_us.p50 <= 3999.7: value 4000, bound 3999.7, margin -0.3\n"
                         "expect FAILED: total_norm_throughput >= 0.1: value 0.015555555555555557, bound 0.1, "
                         "margin -0.0844444444444444\n");
  free(t);
  atoll_report_free(&r);
}

/* gslice's shares series and re-provisioning steps go to the JSON's top level, in time order. */
static void shares_series_in_the_json(void **state) {
  (void)state;
  fixture_init();
  atoll_share_record sh[2] = {{.t_ns = 0, .client = 0, .pct = 30, .batch = 1},
                              {.t_ns = 2500000, .client = 1, .pct = 45, .batch = 4}};
  atoll_partition_record pr[1] = {{.start_ns = 1000000, .end_ns = 1060000, .client = 1, .step = 1, .pct = 45}};
  fx.res.shares = sh, fx.res.n_shares = 2;
  fx.res.partitions = pr, fx.res.n_partitions = 1;
  atoll_report r;
  compute(&r);
  char *json = capture_json(&r, false);
  fx.res.shares = NULL, fx.res.n_shares = 0, fx.res.partitions = NULL, fx.res.n_partitions = 0;
  assert_near(json_num(json, "shares.1.t_ms"), 2.5);
  assert_near(json_num(json, "shares.1.pct"), 45);
  assert_near(json_num(json, "shares.1.batch"), 4);
  char s[64];
  assert_true(json_string_at(json, "shares.0.client", s, sizeof s));
  assert_string_equal(s, fx.sc.clients[0].name);
  assert_true(json_string_at(json, "partition_steps.0.step", s, sizeof s));
  assert_string_equal(s, "switch");
  assert_near(json_num(json, "partition_steps.0.end_ms"), 1.06);
  free(json);
  atoll_report_free(&r);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(shares_series_in_the_json),
    cmocka_unit_test(percentiles_of_one_to_four),
    cmocka_unit_test(p99_of_a_hundred_values_is_the_99th),
    cmocka_unit_test(stats_of_one_and_two_samples),
    cmocka_unit_test(ties_keep_the_first_request_as_max),
    cmocka_unit_test(warmup_excludes_early_requests),
    cmocka_unit_test(throughput_and_normalized_throughput),
    cmocka_unit_test(outcomes_shed_failed_and_goodput),
    cmocka_unit_test(overload_warns_open_clients_served_less),
    cmocka_unit_test(deadline_misses_with_explicit_deadline),
    cmocka_unit_test(deadline_misses_default_to_uniform_period),
    cmocka_unit_test(deadline_of_load_based_uniform_client),
    cmocka_unit_test(rt_pools_every_rt_client),
    cmocka_unit_test(max_names_the_request_that_set_it),
    cmocka_unit_test(preemption_statistics),
    cmocka_unit_test(cu_busy_fractions),
    cmocka_unit_test(every_grammar_field_resolves),
    cmocka_unit_test(fields_resolve_to_their_values),
    cmocka_unit_test(unknown_fields_return_enoent),
    cmocka_unit_test(verdicts_and_margins_for_each_comparison),
    cmocka_unit_test(max_verdict_carries_the_request),
    cmocka_unit_test(unfinished_wait_bounds_the_max),
    cmocka_unit_test(unfinished_waits_bound_the_mean),
    cmocka_unit_test(bounds_over_no_samples),
    cmocka_unit_test(json_has_the_documented_shape),
    cmocka_unit_test(batches_and_gpus),
    cmocka_unit_test(padding_overhead_statistics_and_json),
    cmocka_unit_test(json_numbers_round_trip),
    cmocka_unit_test(json_is_byte_identical_and_run_can_be_omitted),
    cmocka_unit_test(json_null_for_empty_statistics),
    cmocka_unit_test(json_escapes_strings),
    cmocka_unit_test(csv_header_and_one_row_per_client),
    cmocka_unit_test(table_shows_clients_preemptions_and_verdicts),
    cmocka_unit_test(violations_name_value_bound_and_request),
    cmocka_unit_test(violation_margins_without_float_noise),
};
ATOLL_TEST_MAIN(tests)
