/* The device-neutral driver (run/driver.h): the rate and deadline rules, arrivals, results, the
 * recording observer with a fake device, and the order of a run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "run/driver.h"

#define MS 1000000LL

static atoll_client client(atoll_arrival_kind kind, double rate_hz, double load, int64_t deadline_ns) {
  return (atoll_client){.name = "c", .model = 0, .cls = ATOLL_CLASS_RT, .deadline_ns = deadline_ns,
                        .arrival = {.kind = kind, .rate_hz = rate_hz, .load = load}};
}

static void rate_is_rate_hz_or_load_over_standalone(void **state) {
  (void)state;
  atoll_client c = client(ATOLL_ARRIVAL_UNIFORM, 100, 0, 0);
  assert_true(atoll_run_rate_hz(&c, 2 * MS) == 100);
  c = client(ATOLL_ARRIVAL_POISSON, 0, 0.5, 0);
  assert_true(atoll_run_rate_hz(&c, 2 * MS) == 250); /* half of 500 requests/s alone */
  c = client(ATOLL_ARRIVAL_CLOSED, 100, 0, 0);
  assert_true(atoll_run_rate_hz(&c, 2 * MS) == 0);
  c = client(ATOLL_ARRIVAL_TRACE, 100, 0, 0);
  assert_true(atoll_run_rate_hz(&c, 2 * MS) == 0);
}

/* Load = offered requests per second x the standalone latency, for every open kind. */
static void offered_load_is_rate_times_standalone(void **state) {
  (void)state;
  atoll_client c = client(ATOLL_ARRIVAL_UNIFORM, 100, 0, 0);
  assert_true(fabs(atoll_run_offered_load(&c, 2 * MS) - 0.2) < 1e-12);
  c = client(ATOLL_ARRIVAL_POISSON, 0, 0.5, 0);
  assert_true(fabs(atoll_run_offered_load(&c, 2 * MS) - 0.5) < 1e-12); /* a load reads back as itself */
  assert_true(atoll_run_offered_load(&c, 0) == 0);                     /* no latency: no rate, no load */
  static const int64_t times[4] = {0, 10 * MS, 20 * MS, 40 * MS};
  c = client(ATOLL_ARRIVAL_TRACE, 0, 0, 0);
  c.arrival.times_ns = times, c.arrival.n_times = 4;
  assert_true(atoll_run_offered_rate_hz(&c, 2 * MS) == 100); /* 4 arrivals over 40 ms */
  c.arrival.repeat_ns = 80 * MS;
  assert_true(atoll_run_offered_rate_hz(&c, 2 * MS) == 50);
  assert_true(fabs(atoll_run_offered_load(&c, 2 * MS) - 0.1) < 1e-12);
  c = client(ATOLL_ARRIVAL_CLOSED, 0, 0, 0);
  assert_true(atoll_run_offered_load(&c, 2 * MS) == 0);
}

static void deadline_is_explicit_or_a_uniform_period(void **state) {
  (void)state;
  atoll_client c = client(ATOLL_ARRIVAL_UNIFORM, 100, 0, 3 * MS);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 3 * MS);
  c = client(ATOLL_ARRIVAL_UNIFORM, 100, 0, 0);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 10 * MS);
  c = client(ATOLL_ARRIVAL_UNIFORM, 0, 0.5, 0); /* 250 Hz from the load */
  assert_true(fabs(atoll_run_deadline_ns(&c, 2 * MS) - 4 * MS) < 1e-6);
  /* The period is not truncated: the report compares latencies with it as is. */
  c = client(ATOLL_ARRIVAL_UNIFORM, 3, 0, 0);
  assert_true(atoll_run_deadline_ns(&c, 0) == 1e9 / 3);
  /* None: poisson and closed clients, a load without a standalone latency, a period longer than
   * any run. An explicit deadline holds for any arrival kind. */
  c = client(ATOLL_ARRIVAL_POISSON, 100, 0, 0);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 0);
  c = client(ATOLL_ARRIVAL_CLOSED, 0, 0, 0);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 0);
  c = client(ATOLL_ARRIVAL_UNIFORM, 0, 0.5, 0);
  assert_true(atoll_run_deadline_ns(&c, 0) == 0);
  c = client(ATOLL_ARRIVAL_UNIFORM, 1e-10, 0, 0);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 0);
  c = client(ATOLL_ARRIVAL_CLOSED, 0, 0, 7 * MS);
  assert_true(atoll_run_deadline_ns(&c, 2 * MS) == 7 * MS);
}

/* A scenario of two clients on one model: a uniform 100 Hz RT client and a closed BE client. */
typedef struct two {
  atoll_scenario_model model;
  atoll_client clients[2];
  atoll_scenario s;
} two;

static void two_init(two *t) {
  memset(t, 0, sizeof *t);
  t->model.name = "net";
  t->clients[0] = client(ATOLL_ARRIVAL_UNIFORM, 100, 0, 0);
  t->clients[0].name = "rt";
  t->clients[1] = client(ATOLL_ARRIVAL_CLOSED, 0, 0, 0);
  t->clients[1].name = "be";
  t->clients[1].cls = ATOLL_CLASS_BE;
  t->s.models = &t->model;
  t->s.n_models = 1;
  t->s.clients = t->clients;
  t->s.n_clients = 2;
  t->s.duration_ns = 1000 * MS;
  t->s.warmup_ns = 100 * MS;
  t->s.seed = 7;
  t->s.gpu.cus = 60;
}

static void arrivals_give_deadlines_and_first_arrivals(void **state) {
  (void)state;
  two t;
  two_init(&t);
  int64_t standalone[1] = {2 * MS};
  atoll_run_arrivals a;
  assert_int_equal(atoll_run_arrivals_init(&a, &t.s, standalone), 0);
  assert_true(a.deadline_ns[0] == 10 * MS);
  assert_true(a.deadline_ns[1] == 0);
  /* The same generator the core's workload gives for the resolved rate. */
  atoll_client_gen g;
  atoll_client_gen_init(&g, &t.clients[0].arrival, 100, t.s.seed, 0);
  int64_t first = atoll_client_gen_next(&g);
  assert_true(atoll_run_first_arrival(&a, &t.s, 0) == first);
  assert_true(atoll_run_next_arrival(&a, 0) == atoll_client_gen_next(&g));
  assert_true(atoll_run_first_arrival(&a, &t.s, 1) == 0); /* closed loop: at once */
  atoll_run_arrivals_free(&a);
  assert_null(a.gens);
}

static void results_free_frees_what_any_device_filled(void **state) {
  (void)state;
  two t;
  two_init(&t);
  atoll_run_results res;
  assert_int_equal(atoll_run_results_init(&res, &t.s, "native"), 0);
  assert_string_equal(res.mode, "native");
  assert_true(res.window_ns == 900 * MS);
  assert_int_equal(res.cus, 60);
  /* Padding samples too (the address sanitizer reports a leak if they are not freed). */
  res.pad_samples = calloc(4, sizeof *res.pad_samples);
  res.n_pad_samples = 4;
  res.preemptions = calloc(2, sizeof *res.preemptions);
  res.n_preemptions = res.cap_preemptions = 2;
  uint64_t id;
  atoll_run_recorder r;
  atoll_run_recorder_init(&r, &t.s, &res, NULL, NULL, NULL, NULL, NULL);
  assert_int_equal(atoll_run_record_arrival(&r, 1, 5, &id), 0);
  atoll_run_results_free(&res);
  assert_null(res.pad_samples);
  assert_null(res.clients);
  assert_int_equal(res.n_pad_samples, 0);
  atoll_run_results_free(&res); /* twice is harmless */
}

/* --- the recording observer, with a fake device whose clock is 1000 ns ahead of the run's --- */

typedef struct fake {
  uint32_t done_calls, dropped_calls, dropped_slot;
  int64_t done_at;
  atoll_run_marks marks;
  uint32_t tap_done;
  int64_t tap_done_at;
} fake;

static void fake_marks(void *ctx, atoll_run_marks *m) { *m = ((fake *)ctx)->marks; }
static int64_t fake_redo(void *ctx, uint32_t client, uint64_t req, uint32_t op) {
  (void)ctx, (void)client, (void)req;
  return 100 * (op + 1);
}
static void fake_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  fake *f = ctx;
  (void)client, (void)req;
  f->done_calls++;
  f->done_at = now;
}
static void fake_dropped(void *ctx, uint32_t client, uint32_t slot) {
  fake *f = ctx;
  (void)client;
  f->dropped_calls++;
  f->dropped_slot = slot;
}
static void tap_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  fake *f = ctx;
  (void)client, (void)req;
  f->tap_done++;
  f->tap_done_at = now;
}

static const atoll_run_device_hooks fake_hooks = {
    .take_marks = fake_marks, .redo_ns = fake_redo, .done = fake_done, .dropped = fake_dropped};
static const atoll_core_observer tap = {.request_done = tap_done};

static void observer_records_in_run_time_and_calls_the_device(void **state) {
  (void)state;
  two t;
  two_init(&t);
  atoll_run_results res;
  assert_int_equal(atoll_run_results_init(&res, &t.s, "native"), 0);
  fake f = {.marks = {.hq_done_ns = 2100, .evict_done_ns = 1500, .kill_done_ns = 0, .evicted = 3,
                      .killed_gpu_ns = 700}};
  atoll_run_recorder r;
  atoll_run_recorder_init(&r, &t.s, &res, NULL, &fake_hooks, &f, &tap, &f);
  r.base = 1000;
  const atoll_core_observer *o = &atoll_run_observer;
  uint64_t be, rt;
  assert_int_equal(atoll_run_record_arrival(&r, 1, 0, &be), 0);
  o->request_started(&r, 1, be, 1000 + 10);
  /* An RT arrival at run time 1500 preempts the BE request, which restarts at op 1 after
   * completing ops 1..2 (run again: 200 + 300 ns) and launching 4. */
  assert_int_equal(atoll_run_record_arrival(&r, 0, 1500, &rt), 0);
  o->preemption(&r, 1, 1000 + 1500);
  o->task_preempted(&r, 1, be, 2, 1, 3, 4, 1000 + 1500);
  o->request_started(&r, 0, rt, 1000 + 2500);
  assert_int_equal(res.n_preemptions, 1);
  const atoll_preemption_record *p = &res.preemptions[0];
  assert_true(p->at_ns == 1500 && p->latency_ns == 1000);
  assert_true(p->hq_reset_ns == 600 && p->dq_evict_ns == 0 && p->cu_kill_ns == 0); /* not after the arrival: 0 */
  assert_int_equal(p->evicted_kernels, 3);
  assert_int_equal(p->restored_kernels, 3);
  assert_true(p->wasted_gpu_ns == 200 + 300 + 700);
  assert_int_equal(r.open_pre, -1);
  assert_int_equal(r.preempted_tasks, 1);
  assert_int_equal(r.group_restores, 1);
  o->request_done(&r, 0, rt, 1000 + 4000);
  assert_true(res.clients[0].req[rt].start_ns == 2500 && res.clients[0].req[rt].done_ns == 4000);
  assert_int_equal(f.done_calls, 1);
  assert_true(f.done_at == 4000);
  assert_int_equal(f.tap_done, 1);
  assert_true(f.tap_done_at == 5000); /* the tap sees the device's own time */
  /* A refused arrival is not a request: its slot is given back, and the device told which. */
  uint64_t refused;
  assert_int_equal(atoll_run_record_arrival(&r, 0, 6000, &refused), 0);
  o->request_dropped(&r, 0, refused, 1000 + 6000);
  assert_int_equal(res.clients[0].n, 1);
  assert_int_equal(res.clients[0].dropped, 1);
  assert_int_equal(f.dropped_calls, 1);
  assert_int_equal(f.dropped_slot, 1);
  assert_int_equal(r.failed, 0);
  atoll_run_results_free(&res);
}

/* --- the order of a run --- */

typedef struct device_calls {
  uint32_t standalone, runs;
  int run_rc;
  int64_t seen_standalone;
} device_calls;

static int dev_standalone(void *ctx, const atoll_scenario *s, uint32_t m, int64_t *out) {
  device_calls *d = ctx;
  (void)s;
  d->standalone++;
  *out = 1000 + m;
  return 0;
}

static int dev_run(void *ctx, const atoll_scenario *s, atoll_run_results *res) {
  device_calls *d = ctx;
  (void)s;
  d->runs++;
  d->seen_standalone = res->standalone_ns[0];
  res->pad_samples = malloc(sizeof *res->pad_samples); /* freed by the driver on error */
  return d->run_rc;
}

static const atoll_run_device dev = {.mode = "test", .standalone_ns = dev_standalone, .run = dev_run};

static void drive_measures_standalone_unless_given_then_runs(void **state) {
  (void)state;
  two t;
  two_init(&t);
  atoll_run_results res;
  device_calls d = {0};
  assert_int_equal(atoll_run_drive(&t.s, NULL, &dev, &d, &res), 0);
  assert_int_equal(d.standalone, 1);
  assert_int_equal(d.runs, 1);
  assert_true(d.seen_standalone == 1000);
  assert_string_equal(res.mode, "test");
  atoll_run_results_free(&res);

  const int64_t given[1] = {42};
  d = (device_calls){0};
  assert_int_equal(atoll_run_drive(&t.s, given, &dev, &d, &res), 0);
  assert_int_equal(d.standalone, 0);
  assert_true(d.seen_standalone == 42);
  atoll_run_results_free(&res);

  d = (device_calls){.run_rc = ATOLL_EIO};
  assert_int_equal(atoll_run_drive(&t.s, given, &dev, &d, &res), ATOLL_EIO);
  assert_null(res.clients);
  assert_null(res.pad_samples);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(rate_is_rate_hz_or_load_over_standalone),
    cmocka_unit_test(offered_load_is_rate_times_standalone),
    cmocka_unit_test(deadline_is_explicit_or_a_uniform_period),
    cmocka_unit_test(arrivals_give_deadlines_and_first_arrivals),
    cmocka_unit_test(results_free_frees_what_any_device_filled),
    cmocka_unit_test(observer_records_in_run_time_and_calls_the_device),
    cmocka_unit_test(drive_measures_standalone_unless_given_then_runs),
};
ATOLL_TEST_MAIN(tests)
