/* Whole simulation runs of the shipped scenarios (sim/run.c, sim/simdev.c with the core): a run is
 * a pure function of (scenario, seed); rt-only serves a lightly atoll_test_scenario RT client alone (normalized
 * latency exactly 1); requests are conserved and ordered; the acceptance shapes of the baseline
 * policies on disb-osdi/A hold; CU busy fractions are consistent; the trace is valid JSON; and the
 * shipped MI50 preset reproduces REEF's measured model latencies within docs/calibration.md's 5%. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "sim/calibrate.h"
#include "tests/report/json_check.h"
#include "sim/kernel_timing.h"
#include "io/load.h"
#include "tests/test_scenario.h"
#include "run/report.h"
#include "sim/run.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path
#define TINY SRC("scenarios/examples/tiny.yaml")
#define DISB_A SRC("scenarios/disb-osdi/A.yaml")

static const char *const policies[] = {"rt-only", "seq", "streams", "orion"};
enum { N_POLICIES = 4 };

/* Loads path with up to 3 --set overrides (NULL entries are skipped); fails the test on error. */
static atoll_test_scenario *load(const char *path, const char *set0, const char *set1, const char *set2) {
  const char *sets[3];
  uint32_t n = 0;
  if (set0)
    sets[n++] = set0;
  if (set1)
    sets[n++] = set1;
  if (set2)
    sets[n++] = set2;
  return atoll_test_load(path, sets, n);
}

static char policy_set[64];
static const char *policy_is(const char *name) {
  snprintf(policy_set, sizeof policy_set, "policy=%s", name);
  return policy_set;
}

static void run_ok(const atoll_scenario *s, atoll_trace *trace, atoll_run_results *res) {
  atoll_sim_opts o = {.trace = trace};
  int rc = atoll_sim_run(s, &o, res);
  if (rc)
    fail_msg("atoll_sim_run (%s): %s", atoll_policy_name(s->policy.kind), atoll_strerror(rc));
}

/* The run's JSON report without the "run" object (timings), as a malloc'd string. */
static char *json_of(const atoll_run_results *res) {
  atoll_report rep;
  assert_int_equal(atoll_report_compute(res, &rep), 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  assert_int_equal(atoll_report_write_json(&rep, f, false), 0);
  assert_int_equal(fclose(f), 0);
  atoll_report_free(&rep);
  if (!json_valid(buf))
    fail_msg("invalid report JSON:\n%s", buf);
  return buf;
}

static char *run_json(const atoll_scenario *s) {
  atoll_run_results res;
  run_ok(s, NULL, &res);
  char *j = json_of(&res);
  atoll_run_results_free(&res);
  return j;
}

static double field(const atoll_report *rep, const char *name) {
  double v;
  if (atoll_report_field(rep, name, &v) != 0)
    fail_msg("no report field %s", name);
  return v;
}

/* Where two texts first differ, for failure messages. */
static size_t first_difference(const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i])
    i++;
  return i;
}

static atoll_gpu load_mi50(atoll_arena *a) {
  atoll_gpu g;
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_gpu_load_file(a, SRC("scenarios/gpus/mi50.yaml"), &g, &d) != 0)
    fail_msg("%s:%u: %s", d.file, d.line, d.msg);
  return g;
}

static atoll_model load_model(atoll_arena *a, const atoll_gpu *g, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/models/%s.yaml", ATOLL_SOURCE_DIR, name);
  atoll_model m;
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_model_load_file(a, path, g, &m, &d) != 0)
    fail_msg("%s:%u: %s", d.file, d.line, d.msg);
  return m;
}

/* --- determinism --- */

/* Same scenario and seed: byte-identical reports, for every implemented policy, on the example
 * (uniform, Poisson, trace and closed-loop clients) and on disb-osdi/A. */
static void same_seed_gives_identical_reports(void **state) {
  (void)state;
  static const char *const files[] = {TINY, DISB_A};
  for (int f = 0; f < 2; f++) {
    for (int p = 0; p < N_POLICIES; p++) {
      atoll_test_scenario *l = load(files[f], policy_is(policies[p]), "duration_ms=200", NULL);
      char *a = run_json(&l->s), *b = run_json(&l->s);
      if (strcmp(a, b) != 0) {
        size_t i = first_difference(a, b);
        fail_msg("%s under %s: reports differ at byte %zu:\n%.80s\n%.80s", files[f], policies[p], i, a + i, b + i);
      }
      assert_cmp(strlen(a), >, 200);
      free(a), free(b);
      atoll_test_unload(l);
    }
  }
}

static const atoll_request_record *records_of(const atoll_run_results *res, const char *client, uint32_t *n) {
  for (uint32_t c = 0; c < res->scenario->n_clients; c++)
    if (strcmp(res->scenario->clients[c].name, client) == 0) {
      *n = res->clients[c].n;
      return res->clients[c].req;
    }
  fail_msg("no client %s", client);
  return NULL;
}

/* Another seed changes a Poisson client's arrivals (and so the report) but no uniform client's. */
static void other_seed_changes_poisson_output(void **state) {
  (void)state;
  atoll_test_scenario *l7 = load(TINY, "policy=streams", "seed=7", NULL);
  atoll_test_scenario *l8 = load(TINY, "policy=streams", "seed=8", NULL);
  atoll_run_results r7, r8;
  run_ok(&l7->s, NULL, &r7);
  run_ok(&l8->s, NULL, &r8);
  char *j7 = json_of(&r7), *j8 = json_of(&r8);
  assert_cmp(strcmp(j7, j8), !=, 0);
  uint32_t n7 = 0, n8 = 0;
  const atoll_request_record *e7 = records_of(&r7, "events", &n7), *e8 = records_of(&r8, "events", &n8);
  assert_cmp(n7, >, 5);
  assert_cmp(n8, >, 5);
  uint32_t same = 0;
  for (uint32_t i = 0; i < n7 && i < n8; i++)
    same += e7[i].arrival_ns == e8[i].arrival_ns;
  assert_int_equal(same, 0);
  const atoll_request_record *c7 = records_of(&r7, "cam", &n7), *c8 = records_of(&r8, "cam", &n8);
  assert_int_equal(n7, n8);
  for (uint32_t i = 0; i < n7; i++)
    assert_int_equal(c7[i].arrival_ns, c8[i].arrival_ns);
  free(j7), free(j8);
  atoll_run_results_free(&r7);
  atoll_run_results_free(&r8);
  atoll_test_unload(l7), atoll_test_unload(l8);
}

/* Dropping the clients after "events" leaves its Poisson arrivals as they were: each client has its
 * own random stream. */
static void client_arrivals_do_not_depend_on_other_clients(void **state) {
  (void)state;
  atoll_test_scenario *l = load(TINY, "policy=rt-only", NULL, NULL);
  atoll_run_results all, two;
  run_ok(&l->s, NULL, &all);
  atoll_scenario fewer = l->s;
  fewer.n_clients = 2; /* cam, events */
  fewer.n_expects = 0;
  run_ok(&fewer, NULL, &two);
  uint32_t na = 0, nt = 0;
  const atoll_request_record *a = records_of(&all, "events", &na), *t = records_of(&two, "events", &nt);
  assert_cmp(na, >, 5);
  assert_int_equal(na, nt);
  for (uint32_t i = 0; i < na; i++)
    assert_int_equal(a[i].arrival_ns, t[i].arrival_ns);
  atoll_run_results_free(&all);
  atoll_run_results_free(&two);
  atoll_test_unload(l);
}

/* --- rt-only: the reference latency --- */

/* disb-osdi/A's RT client (vgg at 100 Hz, ~4.6 ms each) alone under rt-only: every request is
 * served on an idle GPU, so each takes exactly the standalone latency. Likewise tiny's camera
 * client alone. */
static void rt_only_low_load_is_exactly_standalone(void **state) {
  (void)state;
  struct {
    const char *path;
    uint32_t n_clients;
  } cases[] = {{DISB_A, 2}, {TINY, 1}};
  for (int k = 0; k < 2; k++) {
    atoll_test_scenario *l = load(cases[k].path, "policy=rt-only", "duration_ms=300", NULL);
    atoll_scenario s = l->s;
    s.n_clients = cases[k].n_clients;
    s.n_expects = 0;
    atoll_run_results res;
    run_ok(&s, NULL, &res);
    uint32_t model = s.clients[0].model;
    int64_t alone;
    assert_int_equal(atoll_sim_standalone_ns(&s, model, &alone), 0);
    assert_cmp(alone, >, 0);
    assert_int_equal(res.standalone_ns[model], alone);
    const atoll_client_records *cr = &res.clients[0];
    assert_cmp(cr->n, >=, 20);
    uint32_t completed = 0;
    for (uint32_t i = 0; i < cr->n; i++) {
      const atoll_request_record *q = &cr->req[i];
      if (q->done_ns < 0)
        continue;
      completed++;
      if (q->done_ns - q->arrival_ns != alone)
        fail_msg("%s request %u: latency %lld ns, standalone %lld ns", cases[k].path, i,
                 (long long)(q->done_ns - q->arrival_ns), (long long)alone);
    }
    assert_cmp(completed + 1, >=, cr->n);
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    static const char *const stats[] = {"rt.norm_latency.mean", "rt.norm_latency.p50", "rt.norm_latency.p99",
                                        "rt.norm_latency.max"};
    for (int i = 0; i < 4; i++) {
      double v = field(&rep, stats[i]);
      if (fabs(v - 1.0) > 1e-9)
        fail_msg("%s: %s = %.17g, expected 1", cases[k].path, stats[i], v);
    }
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
    atoll_test_unload(l);
  }
}

/* The standalone latency is the model's own: vgg's standalone under disb-osdi/A equals its
 * calibration-path standalone (atoll_calib_standalone on the same GPU). */
static void standalone_matches_calibration_path(void **state) {
  (void)state;
  atoll_test_scenario *l = load(DISB_A, NULL, NULL, NULL);
  for (uint32_t m = 0; m < l->s.n_models; m++) {
    int64_t a, b;
    assert_int_equal(atoll_sim_standalone_ns(&l->s, m, &a), 0);
    assert_int_equal(atoll_calib_standalone(&l->s.gpu, &l->s.models[m].model, &b), 0);
    assert_int_equal(a, b);
    /* vgg and resnet152 take milliseconds, not a degenerate zero. */
    assert_cmp(a, >, 1000000);
  }
  atoll_test_unload(l);
}

/* The simulated device runs a kernel alone exactly as atoll_kernel_alone_ns says (the timing
 * emulates the device's block placement): a model's standalone latency is the first command's HQ
 * transmit, then per op the CP dispatch and the op's time alone, when every op is long enough to
 * hide the next command's transmit. Kernels with one wave, a partial tail wave, many waves at an
 * occupancy that does not divide 1024, a per-occupancy list with real slowdown, and copies. */
static void standalone_is_transmit_plus_dispatch_plus_alone_times(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  static const int64_t list[10] = {215100, 115100, 95100, 90100, 85100, 80100, 80100, 90100, 100100, 110100};
  atoll_op ops[7];
  static const struct {
    uint32_t blocks, occupancy;
    int64_t time_ns;
    int list;
  } k[] = {{240, 4, 100000, 0}, {250, 4, 100000, 0}, {1000, 3, 777777, 0}, {121, 1, 55555, 0}, {1200, 10, 400000, 1}};
  for (int i = 0; i < 5; i++) {
    ops[i] = (atoll_op){.kind = ATOLL_OP_KERNEL, .name = "k"};
    ops[i].shape = (atoll_kernel_shape){.grid = {k[i].blocks, 1, 1}, .block = {64, 1, 1},
                                        .occupancy = k[i].occupancy, .time_ns = k[i].time_ns,
                                        .time_per_occupancy_ns = k[i].list ? list : NULL,
                                        .n_time_per_occupancy = k[i].list ? 10 : 0};
  }
  ops[5] = (atoll_op){.kind = ATOLL_OP_MEMCPY_D2H, .bytes = 600000};
  ops[6] = (atoll_op){.kind = ATOLL_OP_MEMSET, .bytes = 64, .copy_time_ns = 20000};
  for (uint32_t n = 1; n <= 7; n++) {
    atoll_model m = {.name = "hand", .gpu = "mi50", .ops = ops, .n_ops = n};
    int64_t want = g.costs.hq_transmit_ns;
    for (uint32_t i = 0; i < n; i++) {
      atoll_kernel_timing kt;
      atoll_kernel_timing_prepare(&g, &m, i, &kt);
      int64_t alone = atoll_kernel_alone_ns(&g, &kt);
      assert_cmp(alone, >, g.costs.hq_transmit_ns); /* each op hides the next one's transmit */
      want += g.costs.cp_dispatch_ns + alone;
    }
    int64_t got;
    assert_int_equal(atoll_calib_standalone(&g, &m, &got), 0);
    if (got != want)
      fail_msg("first %u ops: standalone %lld ns, expected transmit + sum(dispatch + alone) = %lld ns", n,
               (long long)got, (long long)want);
  }
  atoll_arena_free(&a);
}

/* --- conservation --- */

static void check_conservation(const atoll_run_results *res, const char *what) {
  const atoll_scenario *s = res->scenario;
  atoll_report rep;
  assert_int_equal(atoll_report_compute(res, &rep), 0);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client_records *cr = &res->clients[c];
    const atoll_client *cl = &s->clients[c];
    if (rep.clients[c].completed > rep.clients[c].requests)
      fail_msg("%s %s: %u completed of %u requests", what, cl->name, rep.clients[c].completed,
               rep.clients[c].requests);
    uint32_t unfinished = 0;
    for (uint32_t i = 0; i < cr->n; i++) {
      const atoll_request_record *q = &cr->req[i];
      assert_int_equal(q->id, i);
      assert_cmp(q->arrival_ns, >=, 0);
      assert_cmp(q->arrival_ns, <, s->duration_ns);
      if (i > 0 && q->arrival_ns < cr->req[i - 1].arrival_ns)
        fail_msg("%s %s: request %u arrives before request %u", what, cl->name, i, i - 1);
      if (q->done_ns >= 0) {
        if (!(q->start_ns >= q->arrival_ns && q->done_ns >= q->start_ns))
          fail_msg("%s %s request %u: arrival %lld, start %lld, done %lld", what, cl->name, i,
                   (long long)q->arrival_ns, (long long)q->start_ns, (long long)q->done_ns);
        assert_cmp(q->done_ns, <=, s->duration_ns);
      } else {
        unfinished++;
        assert_true(q->start_ns == -1 || q->start_ns >= q->arrival_ns);
      }
      /* A closed-loop client sends its next request when the previous one completes: never two
       * in flight. */
      if (cl->arrival.kind == ATOLL_ARRIVAL_CLOSED) {
        int64_t want = i == 0 ? 0 : cr->req[i - 1].done_ns;
        if (q->arrival_ns != want)
          fail_msg("%s %s request %u: arrival %lld, previous done %lld", what, cl->name, i,
                   (long long)q->arrival_ns, (long long)want);
      }
    }
    if (cl->arrival.kind == ATOLL_ARRIVAL_CLOSED)
      assert_cmp(unfinished, <=, 1);
    /* A uniform client's request k is due at k / rate. A blocking one sends it then, or when its
     * previous request completes if that is later: never two in flight. */
    if (cl->arrival.kind == ATOLL_ARRIVAL_UNIFORM && cl->arrival.rate_hz > 0)
      for (uint32_t i = 0; i < cr->n; i++) {
        int64_t due = llround(i * 1e9 / cl->arrival.rate_hz);
        if (cl->arrival.blocking && i > 0) {
          int64_t prev_done = cr->req[i - 1].done_ns;
          if (prev_done < 0)
            fail_msg("%s %s request %u sent while request %u is in flight", what, cl->name, i, i - 1);
          due = prev_done > due ? prev_done : due;
        }
        assert_int_equal(cr->req[i].arrival_ns, due);
      }
    assert_int_equal(cr->dropped, 0);
  }
  atoll_report_free(&rep);
}

static void requests_are_conserved_and_ordered(void **state) {
  (void)state;
  static const char *const files[] = {TINY, DISB_A};
  for (int f = 0; f < 2; f++) {
    for (int p = 0; p < N_POLICIES; p++) {
      atoll_test_scenario *l = load(files[f], policy_is(policies[p]), "duration_ms=300", NULL);
      atoll_run_results res;
      run_ok(&l->s, NULL, &res);
      char what[128];
      snprintf(what, sizeof what, "%s/%s", f == 0 ? "tiny" : "A", policies[p]);
      check_conservation(&res, what);
      /* Every client the policy serves got work done; rt-only serves no BE client. */
      for (uint32_t c = 0; c < l->s.n_clients; c++) {
        bool be = l->s.clients[c].cls == ATOLL_CLASS_BE;
        if (p == 0 && be)
          assert_int_equal(res.clients[c].n, 0);
        else if (res.clients[c].n == 0 || res.clients[c].req[0].done_ns < 0)
          fail_msg("%s: client %s completed nothing", what, l->s.clients[c].name);
      }
      atoll_run_results_free(&res);
      atoll_test_unload(l);
    }
  }
}

/* --- the acceptance shapes on disb-osdi/A --- */

typedef struct shape {
  double rt_norm_mean, total_norm_thr, busy, busy_rt, busy_be;
} shape;

static shape run_shape(const char *policy) {
  atoll_test_scenario *l = load(DISB_A, policy_is(policy), NULL, NULL);
  atoll_run_results res;
  run_ok(&l->s, NULL, &res);
  atoll_report rep;
  assert_int_equal(atoll_report_compute(&res, &rep), 0);
  shape sh = {field(&rep, "rt.norm_latency.mean"), field(&rep, "total_norm_throughput"),
              field(&rep, "gpu.cu_busy_frac"), field(&rep, "gpu.cu_busy_frac_rt"), field(&rep, "gpu.cu_busy_frac_be")};
  atoll_report_free(&rep);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
  return sh;
}

/* seq makes RT wait behind whole BE tasks (mean normalized RT latency > 1.5); streams interferes
 * less but still more than rt-only; concurrency (streams) beats one task at a time (seq) on
 * throughput. */
static void disb_a_acceptance_shapes(void **state) {
  (void)state;
  shape rt_only = run_shape("rt-only"), seq = run_shape("seq"), streams = run_shape("streams");
  if (!(seq.rt_norm_mean > 1.5))
    fail_msg("seq: RT mean normalized latency %.4f, expected > 1.5", seq.rt_norm_mean);
  if (!(streams.rt_norm_mean > rt_only.rt_norm_mean))
    fail_msg("streams: RT mean normalized latency %.6f, expected > rt-only's %.6f", streams.rt_norm_mean,
             rt_only.rt_norm_mean);
  if (!(streams.total_norm_thr > seq.total_norm_thr))
    fail_msg("total normalized throughput: streams %.4f, expected > seq's %.4f", streams.total_norm_thr,
             seq.total_norm_thr);
  /* rt-only leaves BE out entirely. */
  assert_cmp(rt_only.busy_be, ==, 0);
  assert_cmp(rt_only.busy_rt, >, 0);
}

/* streams with priority: true: when a BE kernel fills every CU, the RT stream's blocks take freed
 * CUs first, so RT latency drops sharply; BE throughput barely moves. (Hand-built: a BE kernel of 8
 * full waves at occupancy 4 running closed loop, an RT model of three 2-wave kernels at 200 Hz.) */
static void stream_priority_favours_rt_when_cus_are_full(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_op be_op = {.kind = ATOLL_OP_KERNEL, .name = "big"};
  be_op.shape = (atoll_kernel_shape){.grid = {60 * 4 * 8, 1, 1}, .block = {256, 1, 1}, .occupancy = 4,
                                     .time_ns = 8000000};
  atoll_op rt_ops[3];
  for (int i = 0; i < 3; i++) {
    rt_ops[i] = (atoll_op){.kind = ATOLL_OP_KERNEL, .name = "small"};
    rt_ops[i].shape = (atoll_kernel_shape){.grid = {120, 1, 1}, .block = {256, 1, 1}, .occupancy = 2,
                                           .time_ns = 100000};
  }
  atoll_scenario_model ms[2] = {{"rt", "rt.yaml", {.name = "rt", .gpu = "mi50", .ops = rt_ops, .n_ops = 3}},
                                {"be", "be.yaml", {.name = "be", .gpu = "mi50", .ops = &be_op, .n_ops = 1}}};
  atoll_client cl[2] = {{"cam", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 200}, 0},
                        {"bg", 1, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0}};
  double rt_mean[2], be_thr[2];
  for (int prio = 0; prio < 2; prio++) {
    atoll_scenario s = {.path = "hand.yaml", .gpu = g, .models = ms, .n_models = 2, .clients = cl, .n_clients = 2,
                        .policy = {.kind = ATOLL_POLICY_STREAMS, .priority = prio}, .duration_ns = 200000000,
                        .seed = 1};
    atoll_run_results res;
    run_ok(&s, NULL, &res);
    check_conservation(&res, prio ? "priority" : "no priority");
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    rt_mean[prio] = field(&rep, "rt.norm_latency.mean");
    be_thr[prio] = field(&rep, "clients.bg.norm_throughput");
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
  }
  if (!(rt_mean[1] < 0.5 * rt_mean[0]))
    fail_msg("RT mean normalized latency: %.3f with priority, %.3f without (expected < half)", rt_mean[1],
             rt_mean[0]);
  assert_cmp(rt_mean[1], >, 1); /* still sharing the GPU */
  assert_cmp(fabs(be_thr[1] - be_thr[0]), <, 0.1 * be_thr[0]);
  atoll_arena_free(&a);
}

/* hw_queues (docs/simulator.md, "Hardware queues"): with a pool of 2 rings, the first stream keeps
 * ring 0 and the second and third share ring 1, so their kernels run one at a time: each of them gets
 * about half its throughput, while the first keeps its own. A pool as large as the streams changes
 * nothing. (Hand-built: three closed-loop clients of a one-block 1 ms kernel, so that CU sharing
 * plays no part.) */
static void shared_hw_queue_serializes_its_streams(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  g.corun_overlap_ppm = 0;
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "one"};
  op.shape = (atoll_kernel_shape){.grid = {1, 1, 1}, .block = {256, 1, 1}, .occupancy = 1, .time_ns = 1000000};
  atoll_scenario_model ms[1] = {{"m", "m.yaml", {.name = "m", .gpu = "mi50", .ops = &op, .n_ops = 1}}};
  atoll_client cl[3] = {{"c0", 0, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0},
                        {"c1", 0, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0},
                        {"c2", 0, ATOLL_CLASS_BE, {.kind = ATOLL_ARRIVAL_CLOSED}, 0}};
  const uint32_t pools[3] = {0, 2, 3};
  double thr[3][3];
  char *json[3];
  for (int p = 0; p < 3; p++) {
    g.hw_queues = pools[p];
    atoll_scenario s = {.path = "hand.yaml", .gpu = g, .models = ms, .n_models = 1, .clients = cl, .n_clients = 3,
                        .policy = {.kind = ATOLL_POLICY_STREAMS}, .duration_ns = 200000000, .seed = 1};
    atoll_run_results res;
    run_ok(&s, NULL, &res);
    check_conservation(&res, "hw_queues");
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    thr[p][0] = field(&rep, "clients.c0.norm_throughput");
    thr[p][1] = field(&rep, "clients.c1.norm_throughput");
    thr[p][2] = field(&rep, "clients.c2.norm_throughput");
    atoll_report_free(&rep);
    json[p] = json_of(&res);
    atoll_run_results_free(&res);
  }
  for (int c = 0; c < 3; c++)
    assert_cmp(thr[0][c], >, 0.8); /* apart, each runs near its standalone rate */
  /* A pool of 2: c2 joins the least used ring, the first among equals (ring 0, c0's); c1 keeps ring 1. */
  assert_cmp(fabs(thr[1][1] - thr[0][1]), <, 0.05 * thr[0][1]);
  for (int c = 0; c < 3; c += 2) {
    if (!(thr[1][c] > 0.4 * thr[0][c] && thr[1][c] < 0.6 * thr[0][c]))
      fail_msg("client c%d on a shared ring: throughput %.3f against %.3f on its own", c, thr[1][c], thr[0][c]);
  }
  assert_string_equal(json[2], json[0]);
  for (int p = 0; p < 3; p++)
    free(json[p]);
  atoll_arena_free(&a);
}

/* A blocking client (REEF's DISB harness) has one request in flight: one that finds the one before
 * still running is sent when that completes, so its latency stays one service time however far it
 * falls behind, where the same schedule without blocking queues without bound. On time, blocking
 * changes nothing. */
static void blocking_client_has_one_request_in_flight(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "one"};
  op.shape = (atoll_kernel_shape){.grid = {60, 1, 1}, .block = {256, 1, 1}, .occupancy = 1, .time_ns = 1000000};
  atoll_scenario_model ms[1] = {{"m", "m.yaml", {.name = "m", .gpu = "mi50", .ops = &op, .n_ops = 1}}};
  const double rates[2] = {2000, 500}; /* a request every 0.5 ms (late from the second) and every 2 ms */
  double mean[2][2], max[2][2], done[2][2];
  char *json[2][2];
  for (int r = 0; r < 2; r++)
    for (int b = 0; b < 2; b++) {
      atoll_client cl[1] = {{"c0", 0, ATOLL_CLASS_RT, {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = rates[r], .blocking = b}, 0}};
      atoll_scenario s = {.path = "hand.yaml", .gpu = g, .models = ms, .n_models = 1, .clients = cl, .n_clients = 1,
                          .policy = {.kind = ATOLL_POLICY_STREAMS}, .duration_ns = 200000000, .seed = 1};
      atoll_run_results res;
      run_ok(&s, NULL, &res);
      check_conservation(&res, "blocking");
      atoll_report rep;
      assert_int_equal(atoll_report_compute(&res, &rep), 0);
      mean[r][b] = field(&rep, "rt.norm_latency.mean");
      max[r][b] = field(&rep, "rt.norm_latency.max");
      done[r][b] = field(&rep, "clients.c0.completed");
      atoll_report_free(&rep);
      json[r][b] = json_of(&res);
      atoll_run_results_free(&res);
    }
  /* Late: blocking keeps every latency near one service time and serves back to back (about 200 in
   * 200 ms); without it the queue grows through the run. */
  if (!(max[0][1] < 1.1 && done[0][1] > 180 && done[0][1] < 201))
    fail_msg("blocking, late: max %.3f, %.0f completed", max[0][1], done[0][1]);
  if (!(mean[0][0] > 20 * mean[0][1]))
    fail_msg("not blocking, late: mean %.3f against blocking %.3f", mean[0][0], mean[0][1]);
  /* On time: identical runs. */
  assert_string_equal(json[1][1], json[1][0]);
  for (int r = 0; r < 2; r++)
    for (int b = 0; b < 2; b++)
      free(json[r][b]);
  atoll_arena_free(&a);
}

/* CU busy fractions: in [0, 1]; total busy at least each class's and at most their sum. */
static void cu_busy_fractions_are_consistent(void **state) {
  (void)state;
  static const char *const files[] = {TINY, DISB_A};
  for (int f = 0; f < 2; f++) {
    for (int p = 0; p < N_POLICIES; p++) {
      atoll_test_scenario *l = load(files[f], policy_is(policies[p]), "duration_ms=300", NULL);
      atoll_run_results res;
      run_ok(&l->s, NULL, &res);
      atoll_report rep;
      assert_int_equal(atoll_report_compute(&res, &rep), 0);
      double all = field(&rep, "gpu.cu_busy_frac"), rt = field(&rep, "gpu.cu_busy_frac_rt"),
             be = field(&rep, "gpu.cu_busy_frac_be");
      const double eps = 1e-12;
      if (!(all >= 0 && all <= 1 && rt >= 0 && rt <= 1 && be >= 0 && be <= 1 && rt + be >= all - eps &&
            all >= fmax(rt, be) - eps && all > 0))
        fail_msg("%s/%s: busy %.6f, rt %.6f, be %.6f", files[f], policies[p], all, rt, be);
      /* The same on the raw integrals, exactly. */
      int64_t cap = (int64_t)res.cus * res.window_ns;
      assert_cmp(res.cu_busy_ns, <=, cap);
      assert_cmp(res.cu_busy_rt_ns + res.cu_busy_be_ns, >=, res.cu_busy_ns);
      assert_cmp(res.cu_busy_ns, >=, res.cu_busy_rt_ns);
      assert_cmp(res.cu_busy_ns, >=, res.cu_busy_be_ns);
      atoll_report_free(&rep);
      atoll_run_results_free(&res);
      atoll_test_unload(l);
    }
  }
}

/* --- the trace --- */

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

/* A traced run writes valid Chrome trace JSON with kernel spans on stream tracks and request slices
 * in the clients group, and tracing does not change the run. */
static void trace_is_valid_with_stream_and_client_spans(void **state) {
  (void)state;
  atoll_test_scenario *l = load(TINY, "policy=streams", "duration_ms=6", "warmup_ms=0");
  char path[64];
  snprintf(path, sizeof path, "/tmp/atoll_sim_trace_XXXXXX");
  int fd = mkstemp(path);
  assert_cmp(fd, >=, 0);
  close(fd);
  atoll_trace tr;
  assert_int_equal(atoll_trace_open(&tr, path), ATOLL_OK);
  atoll_run_results res;
  run_ok(&l->s, &tr, &res);
  assert_int_equal(atoll_trace_close(&tr), ATOLL_OK);
  char *text = slurp(path);
  unlink(path);
  if (!json_valid(text))
    fail_msg("invalid trace JSON (%zu bytes)", strlen(text));
  long n = json_count_at(text, "traceEvents");
  assert_cmp(n, >, 10);
  /* One pass over the events (json_check's look-ups by path start from the top each time). */
  long spans[5] = {0}, seen = 0;
  const char *p = json_at(text, "traceEvents");
  assert_true(p);
  assert_cmp(*p, ==, '[');
  for (p = json_ws(p + 1); *p != ']'; seen++) {
    char ph[8];
    const char *v = json_member(p, "ph", 2);
    assert_true(v && json_decode_string(v, ph, sizeof ph));
    if (strcmp(ph, "X") == 0) {
      const char *pid = json_member(p, "pid", 3), *dur = json_member(p, "dur", 3);
      assert_true(pid && json_skip_number(pid) && dur && json_skip_number(dur));
      double pv = strtod(pid, NULL), dv = strtod(dur, NULL);
      assert_cmp(dv, >=, 0);
      if (pv >= 0 && pv < 5)
        spans[(int)pv]++;
    } else if (strcmp(ph, "b") == 0) {
      /* Requests are async slices (they may overlap); the outer one of each carries its number. */
      const char *pid = json_member(p, "pid", 3), *args = json_member(p, "args", 4);
      assert_true(pid && json_skip_number(pid));
      if (strtod(pid, NULL) == ATOLL_TRACK_CLIENT && args && json_member(args, "request", 7))
        spans[ATOLL_TRACK_CLIENT]++;
    }
    p = json_ws(json_skip_value(p, 0));
    if (*p == ',')
      p = json_ws(p + 1);
  }
  assert_int_equal(seen, n);
  if (spans[ATOLL_TRACK_STREAM] < 1 || spans[ATOLL_TRACK_CLIENT] < 1 || spans[ATOLL_TRACK_CU] < 1)
    fail_msg("spans: CU %ld, stream %ld, client %ld", spans[ATOLL_TRACK_CU], spans[ATOLL_TRACK_STREAM],
             spans[ATOLL_TRACK_CLIENT]);
  /* One client span per completed request. */
  long completed = 0;
  for (uint32_t c = 0; c < l->s.n_clients; c++)
    for (uint32_t i = 0; i < res.clients[c].n; i++)
      completed += res.clients[c].req[i].done_ns >= 0;
  assert_int_equal(spans[ATOLL_TRACK_CLIENT], completed);
  /* Tracing observes; it does not change the run. */
  char *traced = json_of(&res), *plain = run_json(&l->s);
  assert_string_equal(traced, plain);
  free(traced), free(plain), free(text);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* --- calibration --- */

/* docs/calibration.md's acceptance figure: with the shipped preset, each reconcilable model's
 * simulated standalone latency plus the isolation overhead (launch_sync - hq_transmit) is within 5%
 * of its measured latency. */
static void shipped_preset_matches_measured_latencies(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  static const char *const names[] = {"vgg", "resnet152", "resnet18", "bert", "alexnet", "mocked_kernel"};
  for (int i = 0; i < 6; i++) {
    atoll_model m = load_model(&a, &g, names[i]);
    assert_cmp(m.measured_latency_ns, >, 0);
    int64_t t;
    assert_int_equal(atoll_calib_standalone(&g, &m, &t), 0);
    double as_measured = (double)(t + g.costs.launch_sync_ns - g.costs.hq_transmit_ns);
    double err = (as_measured - (double)m.measured_latency_ns) / (double)m.measured_latency_ns;
    if (fabs(err) > 0.05)
      fail_msg("%s: simulated %.0f us as measured, measured %.0f us: error %+.2f%% (> 5%%)", names[i],
               as_measured / 1e3, m.measured_latency_ns / 1e3, err * 100);
  }
  atoll_arena_free(&a);
}

/* atoll_calibrate reports resnet as irreconcilable (docs/calibration.md's arithmetic), fits the
 * reconcilable model, and leaves resnet out of the leave-one-out. */
static void calibrate_reports_resnet_irreconcilable(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_model mocked = load_model(&a, &g, "mocked_kernel"), resnet = load_model(&a, &g, "resnet");
  atoll_calib_model ms[2] = {{.model = &mocked}, {.model = &resnet}};
  atoll_calib out;
  assert_int_equal(atoll_calibrate(&g, ms, 2, 30000, &out), 0);
  assert_false(ms[0].irreconcilable);
  assert_true(ms[1].irreconcilable);
  if (!strstr(ms[1].why, "24 launches of fused_nn_conv2d_add_nn_relu_8_kernel0") || !strstr(ms[1].why, "11280 us"))
    fail_msg("why: %s", ms[1].why);
  assert_true(isnan(ms[1].loo_error));
  /* mocked is the only reconcilable model: held out, it leaves nothing to refit on, so it has no
   * leave-one-out error either (it had one from a fit to no data until that was found). */
  assert_true(isnan(ms[0].loo_error));
  assert_cmp(out.launch_sync_ns, >=, 0);
  assert_cmp(out.launch_sync_ns, <=, 30000);
  assert_cmp(out.cp_dispatch_ns, >=, 0);
  assert_cmp(out.cp_dispatch_ns, <=, 30000);
  assert_int_equal(out.max_ns, 30000);
  /* The worst error is the only reconcilable model's own, and the fit makes it small. */
  assert_cmp(fabs(fabs(ms[0].error) - out.max_abs_error), <, 1e-9);
  assert_cmp(out.max_abs_error, <, 0.05);
  /* resnet is still predicted at the fitted point: far too slow, as the table says. */
  assert_cmp(ms[1].error, >, 0.5);
  atoll_arena_free(&a);
}

/* k-fold cross-validation deals the reconcilable models in turn into folds and skips the
 * irreconcilable one; with as many folds as models each fold holds one model out, so every k-fold
 * prediction is exactly the leave-one-out one. */
static void kfold_deals_models_and_matches_loo_with_singleton_folds(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_model mocked = load_model(&a, &g, "mocked_kernel"), resnet = load_model(&a, &g, "resnet"),
              alexnet = load_model(&a, &g, "alexnet"), resnet18 = load_model(&a, &g, "resnet18");
  atoll_calib_model ms[4] = {{.model = &mocked}, {.model = &resnet}, {.model = &alexnet}, {.model = &resnet18}};
  atoll_calib out;
  assert_int_equal(atoll_calibrate(&g, ms, 4, 30000, &out), 0);
  uint32_t folds = 0;
  assert_int_equal(atoll_calib_kfold(&g, ms, 4, 30000, ATOLL_CALIB_ISOLATED, 3, NULL, &folds), 0);
  assert_int_equal(folds, 3);
  assert_int_equal(ms[0].fold, 0);
  assert_int_equal(ms[1].fold, UINT32_MAX);
  assert_int_equal(ms[2].fold, 1);
  assert_int_equal(ms[3].fold, 2);
  assert_true(isnan(ms[1].kfold_error));
  for (int i = 0; i < 4; i += 1 + (i == 0))
    assert_cmp(fabs(ms[i].kfold_error - ms[i].loo_error), <, 1e-12);
  /* Two folds: mocked_kernel and resnet18 share one, so they are predicted by the same refit. */
  assert_int_equal(atoll_calib_kfold(&g, ms, 4, 30000, ATOLL_CALIB_ISOLATED, 2, NULL, &folds), 0);
  assert_int_equal(folds, 2);
  assert_int_equal(ms[3].fold, 0);
  assert_false(isnan(ms[3].kfold_error));
  assert_int_equal(atoll_calib_kfold(&g, ms, 4, 30000, ATOLL_CALIB_ISOLATED, 1, NULL, &folds), ATOLL_EINVAL);
  atoll_arena_free(&a);
}

/* A memo shared by the fit, its folds and the grid's points changes no figure: every result equals
 * the one each call computes with a memo of its own, also when the memo is used twice; a memo made
 * for another mode, count of models or scan is refused. */
static void calib_memo_changes_no_figure(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_model mocked = load_model(&a, &g, "mocked_kernel"), alexnet = load_model(&a, &g, "alexnet");
  atoll_calib_model own[2] = {{.model = &mocked}, {.model = &alexnet}}, kept[2];
  memcpy(kept, own, sizeof own);
  atoll_calib out_own, out_kept;
  uint32_t folds_own, folds_kept;
  assert_int_equal(atoll_calibrate_mode(&g, own, 2, 15000, ATOLL_CALIB_ISOLATED, NULL, &out_own), 0);
  assert_int_equal(atoll_calib_kfold(&g, own, 2, 15000, ATOLL_CALIB_ISOLATED, 2, NULL, &folds_own), 0);
  atoll_calib_memo *memo = atoll_calib_memo_create(ATOLL_CALIB_ISOLATED, 2, 15000);
  assert_non_null(memo);
  for (int pass = 0; pass < 2; pass++) {
    assert_int_equal(atoll_calibrate_mode(&g, kept, 2, 15000, ATOLL_CALIB_ISOLATED, memo, &out_kept), 0);
    assert_int_equal(atoll_calib_kfold(&g, kept, 2, 15000, ATOLL_CALIB_ISOLATED, 2, memo, &folds_kept), 0);
    assert_int_equal(out_kept.launch_sync_ns, out_own.launch_sync_ns);
    assert_int_equal(out_kept.cp_dispatch_ns, out_own.cp_dispatch_ns);
    assert_true(out_kept.max_abs_error == out_own.max_abs_error);
    assert_int_equal(folds_kept, folds_own);
    for (int i = 0; i < 2; i++) {
      assert_true(kept[i].error == own[i].error && kept[i].loo_error == own[i].loo_error);
      assert_true(kept[i].kfold_error == own[i].kfold_error);
      assert_int_equal(kept[i].simulated_ns, own[i].simulated_ns);
    }
  }
  /* The grid's points, inside the scan (kept) and beyond it (simulated anew), as without a memo. */
  int64_t points[][2] = {{out_own.launch_sync_ns, out_own.cp_dispatch_ns}, {12300, 4100}, {25000, 100}};
  for (int i = 0; i < 2; i++)
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
      int64_t fresh, from_memo;
      assert_int_equal(atoll_calib_as_measured(&g, kept[i].model, points[p][0], points[p][1], &fresh), 0);
      assert_int_equal(atoll_calib_as_measured_kept(&g, memo, (uint32_t)i, kept[i].model, points[p][0],
                                                    points[p][1], &from_memo), 0);
      assert_int_equal(from_memo, fresh);
    }
  int64_t t;
  assert_int_equal(atoll_calib_as_measured_kept(&g, memo, 2, &mocked, 12000, 3400, &t), ATOLL_EINVAL);
  assert_int_equal(atoll_calibrate_mode(&g, kept, 1, 15000, ATOLL_CALIB_ISOLATED, memo, &out_kept), ATOLL_EINVAL);
  assert_int_equal(atoll_calibrate_mode(&g, kept, 2, 10000, ATOLL_CALIB_ISOLATED, memo, &out_kept), ATOLL_EINVAL);
  assert_int_equal(atoll_calib_kfold(&g, kept, 2, 15000, ATOLL_CALIB_DEVICE, 2, memo, &folds_kept), ATOLL_EINVAL);
  atoll_calib_memo_destroy(memo);
  atoll_calib_memo *device = atoll_calib_memo_create(ATOLL_CALIB_DEVICE, 2, 15000);
  assert_non_null(device);
  assert_int_equal(atoll_calib_as_measured_kept(&g, device, 0, &mocked, 12000, 3400, &t), ATOLL_EINVAL);
  atoll_calib_memo_destroy(device);
  assert_null(atoll_calib_memo_create(ATOLL_CALIB_ISOLATED, 0, 15000));
  assert_null(atoll_calib_memo_create(ATOLL_CALIB_ISOLATED, 2, 0));
  atoll_arena_free(&a);
}

/* atoll_calib_as_measured, which `atoll calibrate --grid` tabulates, is what the fit compares with
 * the measurement: at the fitted point it gives each model's simulated latency and error, it is the
 * standalone latency plus launch_sync - hq_transmit, and a larger dispatch gap makes it longer. */
static void calib_as_measured_is_what_the_fit_compares(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_model mocked = load_model(&a, &g, "mocked_kernel"), resnet18 = load_model(&a, &g, "resnet18");
  atoll_calib_model ms[2] = {{.model = &mocked}, {.model = &resnet18}};
  atoll_calib out;
  assert_int_equal(atoll_calibrate(&g, ms, 2, 30000, &out), 0);
  for (int i = 0; i < 2; i++) {
    int64_t t;
    assert_int_equal(atoll_calib_as_measured(&g, ms[i].model, out.launch_sync_ns, out.cp_dispatch_ns, &t), 0);
    assert_cmp(llabs(t - ms[i].simulated_ns), <=, 1);
    double measured = (double)ms[i].model->measured_latency_ns;
    assert_cmp(fabs(((double)t - measured) / measured - ms[i].error), <, 1e-12);
  }
  atoll_gpu h = g;
  h.costs.launch_sync_ns = 12000;
  h.costs.cp_dispatch_ns = 3400;
  int64_t standalone, as_measured, longer;
  assert_int_equal(atoll_calib_standalone(&h, &resnet18, &standalone), 0);
  assert_int_equal(atoll_calib_as_measured(&g, &resnet18, 12000, 3400, &as_measured), 0);
  assert_int_equal(as_measured, standalone + 12000 - g.costs.hq_transmit_ns);
  assert_int_equal(atoll_calib_as_measured(&g, &resnet18, 12000, 3500, &longer), 0);
  assert_cmp(longer, >, as_measured);
  assert_int_equal(atoll_calib_as_measured(&g, &resnet18, -1, 3400, &longer), ATOLL_EINVAL);
  assert_int_equal(atoll_calib_as_measured(&g, &resnet18, 12000, -1, &longer), ATOLL_EINVAL);
  atoll_arena_free(&a);
}

/* The irreconcilable rule at its boundary, on a hand-built model: a kernel launched n times at
 * time t is irreconcilable exactly when n (t - max overhead) > measured latency. */
static void irreconcilable_rule_boundary(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = load_mi50(&a);
  atoll_op ops[3];
  for (int i = 0; i < 3; i++) {
    ops[i] = (atoll_op){.kind = ATOLL_OP_KERNEL, .name = i == 1 ? "other" : "big"};
    ops[i].shape = (atoll_kernel_shape){.grid = {60, 1, 1}, .block = {64, 1, 1}, .occupancy = 1,
                                        .time_ns = i == 1 ? 20000 : 100000};
  }
  atoll_model m = {.name = "hand", .gpu = "mi50", .ops = ops, .n_ops = 3};
  const int64_t max_ns = 2000; /* floor: 2 launches x (100 us - 2 us) = 196 us */
  m.measured_latency_ns = 196000;
  atoll_calib_model cm = {.model = &m};
  atoll_calib out;
  assert_int_equal(atoll_calibrate(&g, &cm, 1, max_ns, &out), 0);
  assert_false(cm.irreconcilable);
  m.measured_latency_ns = 195999;
  cm = (atoll_calib_model){.model = &m};
  assert_int_equal(atoll_calibrate(&g, &cm, 1, max_ns, &out), 0);
  assert_true(cm.irreconcilable);
  if (!strstr(cm.why, "2 launches of big"))
    fail_msg("why: %s", cm.why);
  /* Bad input. */
  assert_int_equal(atoll_calibrate(&g, &cm, 0, max_ns, &out), ATOLL_EINVAL);
  assert_int_equal(atoll_calibrate(&g, &cm, 1, 0, &out), ATOLL_EINVAL);
  m.measured_latency_ns = 0;
  assert_int_equal(atoll_calibrate(&g, &cm, 1, max_ns, &out), ATOLL_EINVAL);
  atoll_arena_free(&a);
}

/* An unimplemented policy is refused before anything runs. */
static const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_seed_gives_identical_reports),
    cmocka_unit_test(other_seed_changes_poisson_output),
    cmocka_unit_test(client_arrivals_do_not_depend_on_other_clients),
    cmocka_unit_test(rt_only_low_load_is_exactly_standalone),
    cmocka_unit_test(standalone_matches_calibration_path),
    cmocka_unit_test(standalone_is_transmit_plus_dispatch_plus_alone_times),
    cmocka_unit_test(requests_are_conserved_and_ordered),
    cmocka_unit_test(disb_a_acceptance_shapes),
    cmocka_unit_test(stream_priority_favours_rt_when_cus_are_full),
    cmocka_unit_test(shared_hw_queue_serializes_its_streams),
    cmocka_unit_test(blocking_client_has_one_request_in_flight),
    cmocka_unit_test(cu_busy_fractions_are_consistent),
    cmocka_unit_test(trace_is_valid_with_stream_and_client_spans),
    cmocka_unit_test(shipped_preset_matches_measured_latencies),
    cmocka_unit_test(calibrate_reports_resnet_irreconcilable),
    cmocka_unit_test(kfold_deals_models_and_matches_loo_with_singleton_folds),
    cmocka_unit_test(calib_memo_changes_no_figure),
    cmocka_unit_test(calib_as_measured_is_what_the_fit_compares),
    cmocka_unit_test(irreconcilable_rule_boundary),
};
ATOLL_TEST_MAIN(tests)
