/* Exhaustive exploration (sim/explore.h) and its choice points (sim/choice.h): the nominal schedule
 * is the ordinary simulation; pruning at seen states changes no worst value; the explored worst
 * never exceeds the analytic bound (sim/bound.h) and is never below what sampled schedules reach;
 * seq and streams violate the RT bound reef proves; a witness replays to the same value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "sim/bound.h"
#include "sim/explore.h"
#include "sim/replay.h"
#include "run/report.h"
#include "sim/run.h"
#include "tests/test_scenario.h"
#include "core/workload.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path

static const char *const verify[] = {SRC("scenarios/verify/tiny.yaml"), SRC("scenarios/verify/rt-vs-be.yaml"),
                                     SRC("scenarios/verify/jitter.yaml"), SRC("scenarios/verify/same-instant.yaml")};
enum { N_VERIFY = sizeof verify / sizeof verify[0] };

static atoll_test_scenario *load_with_policy(const char *path, const char *policy) {
  char set[64];
  snprintf(set, sizeof set, "policy=%s", policy);
  const char *sets[] = {set};
  return atoll_test_load(path, sets, policy ? 1 : 0);
}

static void explore_ok(const atoll_scenario *s, const atoll_explore_opts *o, atoll_explore_result *r) {
  int rc = atoll_explore_run(s, o, r);
  if (rc)
    fail_msg("%s: explore failed: %s", s->path, atoll_strerror(rc));
}

/* The RT latency maximum (us) of one run. */
static double rt_max_us(const atoll_run_results *res) {
  atoll_report rep;
  assert_int_equal(atoll_report_compute(res, &rep), 0);
  double v = rep.rt_latency_us.n ? rep.rt_latency_us.max : NAN;
  atoll_report_free(&rep);
  return v;
}

static void assert_same_records(const atoll_scenario *s, const atoll_run_results *a, const atoll_run_results *b) {
  for (uint32_t c = 0; c < s->n_clients; c++) {
    assert_int_equal(a->clients[c].n, b->clients[c].n);
    for (uint32_t i = 0; i < a->clients[c].n; i++) {
      const atoll_request_record *x = &a->clients[c].req[i], *y = &b->clients[c].req[i];
      if (x->arrival_ns != y->arrival_ns || x->start_ns != y->start_ns || x->done_ns != y->done_ns)
        fail_msg("client %u request %u: arrival/start/done %lld/%lld/%lld vs %lld/%lld/%lld", c, i,
                 (long long)x->arrival_ns, (long long)x->start_ns, (long long)x->done_ns, (long long)y->arrival_ns,
                 (long long)y->start_ns, (long long)y->done_ns);
    }
  }
  assert_int_equal(a->n_preemptions, b->n_preemptions);
  assert_int_equal(a->cu_busy_ns, b->cu_busy_ns);
}

static uint32_t always_zero(void *ctx, atoll_choice_kind kind, uint32_t n) {
  (void)kind, (void)n;
  (*(uint32_t *)ctx)++;
  return 0;
}

/* A chooser answering 0 everywhere (the explorer's first schedule) gives exactly the ordinary run,
 * though with a chooser the runner also handles simultaneous events one choice at a time. */
static void nominal_schedule_is_the_ordinary_run(void **state) {
  (void)state;
  const char *policies[] = {"reef", "seq", "streams"};
  for (uint32_t f = 0; f < N_VERIFY; f++)
    for (uint32_t p = 0; p < 3; p++) {
      atoll_test_scenario *t = load_with_policy(verify[f], policies[p]);
      t->s.engine = ATOLL_ENGINE_BLOCKS;
      atoll_run_results plain, chosen;
      uint32_t asked = 0;
      atoll_chooser zero = {.choose = always_zero, .ctx = &asked};
      atoll_sim_opts so = {.chooser = &zero};
      assert_int_equal(atoll_sim_run(&t->s, NULL, &plain), 0);
      assert_int_equal(atoll_sim_run(&t->s, &so, &chosen), 0);
      assert_cmp(asked, >, 0); /* the scenarios do declare choices */
      assert_same_records(&t->s, &plain, &chosen);
      atoll_run_results_free(&plain);
      atoll_run_results_free(&chosen);
      atoll_test_unload(t);
    }
}

/* Visited-state pruning is an optimisation: on a scenario small enough to run every schedule to
 * its end, it changes no worst value, in fold mode (latency maxima) and in exact mode (a mean).
 * To keep the enumeration small enough for a sanitizer build, the reef run ends at 0.45 ms (the RT
 * request is done, the BE tail would only multiply schedules: 354,294 with it) and seq runs
 * without arrival jitter (118,098 schedules with it); streams has 1.2 million schedules there. */
static void pruning_keeps_every_worst_value(void **state) {
  (void)state;
  const char *policies[] = {"reef", "seq"};
  for (uint32_t p = 0; p < 2; p++)
    for (int exact = 0; exact < 2; exact++) {
      atoll_test_scenario *t = load_with_policy(SRC("scenarios/verify/tiny.yaml"), policies[p]);
      if (p == 0)
        t->s.duration_ns = 450000;
      else
        t->s.n_jitter = 1;
      atoll_expect e[2] = {t->s.expects[0],
                           {.text = "rt.latency_us.mean <= 250", .field = "rt.latency_us.mean", .cmp = ATOLL_CMP_LE,
                            .value = 250}};
      if (exact) {
        t->s.expects = e;
        t->s.n_expects = 2;
      }
      atoll_explore_result pruned, all;
      atoll_explore_opts everything = {.no_pruning = true};
      explore_ok(&t->s, NULL, &pruned);
      explore_ok(&t->s, &everything, &all);
      assert_true(pruned.complete && all.complete);
      assert_int_equal(pruned.mode, exact ? ATOLL_EXPLORE_EXACT : ATOLL_EXPLORE_FOLD);
      assert_cmp(pruned.schedules + pruned.pruned, <, all.schedules);
      print_message("tiny %s (%s mode): %llu runs without pruning, %llu with; worst RT %.3f us\n", policies[p],
                    atoll_explore_mode_name(pruned.mode), (unsigned long long)all.schedules,
                    (unsigned long long)(pruned.schedules + pruned.pruned), all.worst_rt_latency_us);
      if (pruned.worst_rt_latency_us != all.worst_rt_latency_us)
        fail_msg("%s: worst RT latency %.3f pruned, %.3f without pruning", policies[p], pruned.worst_rt_latency_us,
                 all.worst_rt_latency_us);
      for (uint32_t i = 0; i < t->s.n_expects; i++) {
        if (pruned.bounds[i].worst != all.bounds[i].worst || pruned.bounds[i].holds != all.bounds[i].holds)
          fail_msg("%s: %s: worst %.6f (holds %d) pruned, %.6f (holds %d) without", policies[p],
                   t->s.expects[i].text, pruned.bounds[i].worst, pruned.bounds[i].holds, all.bounds[i].worst,
                   all.bounds[i].holds);
      }
      atoll_explore_free(&pruned);
      atoll_explore_free(&all);
      atoll_test_unload(t);
    }
}

/* Checkpoints (run.h) change the work, not the search: resumed from saved states, the runs give
 * exactly what replaying every run from the start gives (schedules, cuts, states, worst values,
 * witness) in every mode (fold; exact with a mean; no pruning), with fewer events simulated. */
static void checkpoints_change_nothing_but_the_work(void **state) {
  (void)state;
  struct {
    const char *file, *policy;
    int mode; /* 0 fold, 1 exact, 2 no pruning */
  } cases[] = {{SRC("scenarios/verify/tiny.yaml"), "reef", 0},
               {SRC("scenarios/verify/tiny.yaml"), "seq", 1},
               {SRC("scenarios/verify/tiny.yaml"), "reef", 2},
               {SRC("scenarios/verify/same-instant.yaml"), "seq", 0},
               {SRC("scenarios/verify/same-instant.yaml"), "reef", 0},
               {SRC("scenarios/verify/jitter.yaml"), "streams", 0}};
  for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    atoll_test_scenario *t = load_with_policy(cases[k].file, cases[k].policy);
    atoll_expect e[2] = {t->s.expects[0],
                         {.text = "rt.latency_us.mean <= 250", .field = "rt.latency_us.mean", .cmp = ATOLL_CMP_LE,
                          .value = 250}};
    if (cases[k].mode == 1) {
      t->s.expects = e;
      t->s.n_expects = 2;
      t->s.n_jitter = 1;
    }
    atoll_explore_result cp, fs;
    atoll_explore_opts with = {.no_pruning = cases[k].mode == 2, .max_states = 20000};
    atoll_explore_opts without = with;
    without.replay_from_start = true;
    explore_ok(&t->s, &with, &cp);
    explore_ok(&t->s, &without, &fs);
    print_message("%s %s (%s): %llu states, %llu events with checkpoints, %llu replaying from the start\n",
                  cases[k].file, cases[k].policy, atoll_explore_mode_name(cp.mode), (unsigned long long)cp.states,
                  (unsigned long long)cp.events, (unsigned long long)fs.events);
    assert_int_equal(cp.complete, fs.complete);
    assert_int_equal(cp.violated, fs.violated);
    assert_int_equal(cp.states, fs.states);
    assert_int_equal(cp.schedules, fs.schedules);
    assert_int_equal(cp.pruned, fs.pruned);
    assert_int_equal(cp.max_depth, fs.max_depth);
    assert_int_equal(cp.unfinished, fs.unfinished);
    assert_memory_equal(cp.choice_points, fs.choice_points, sizeof cp.choice_points);
    assert_true(cp.worst_rt_latency_us == fs.worst_rt_latency_us);
    assert_true(cp.nominal_rt_latency_us == fs.nominal_rt_latency_us);
    for (uint32_t i = 0; i < t->s.n_expects; i++) {
      assert_true(cp.bounds[i].worst == fs.bounds[i].worst || (isnan(cp.bounds[i].worst) && isnan(fs.bounds[i].worst)));
      assert_int_equal(cp.bounds[i].holds, fs.bounds[i].holds);
    }
    assert_int_equal(cp.witness_expect, fs.witness_expect);
    assert_int_equal(cp.n_witness, fs.n_witness);
    for (uint32_t i = 0; i < cp.n_witness; i++) {
      assert_int_equal(cp.witness[i].kind, fs.witness[i].kind);
      assert_int_equal(cp.witness[i].option, fs.witness[i].option);
      assert_int_equal(cp.witness[i].n, fs.witness[i].n);
    }
    assert_cmp(cp.events, <, fs.events);
    atoll_explore_free(&cp);
    atoll_explore_free(&fs);
    atoll_test_unload(t);
  }
}

/* Soundness of the analytic bound against the explorer: on every verify scenario, under the
 * policies the bound covers, no explored schedule has an RT request slower than the bound computed
 * with the scenario's timing spread. */
static void explored_worst_within_analytic_bound(void **state) {
  (void)state;
  const char *policies[] = {"reef", "reset", "rt-only"};
  for (uint32_t f = 0; f < N_VERIFY; f++)
    for (uint32_t p = 0; p < 3; p++) {
      atoll_test_scenario *t = load_with_policy(verify[f], policies[p]);
      atoll_explore_result r;
      explore_ok(&t->s, NULL, &r);
      assert_true(r.complete);
      atoll_bound_result b;
      char why[256];
      atoll_bound_opts bo = {.spread = t->s.timing_spread};
      assert_int_equal(atoll_bound_compute(&t->s, &bo, &b, why, sizeof why), 0);
      double bound_us = (double)b.clients[0].wcrt_ns / 1e3;
      print_message("%s %s: explored worst %.1f us, analytic bound %.1f us, gap %.1f us (%.0f%%)\n", verify[f],
                    policies[p], r.worst_rt_latency_us, bound_us, bound_us - r.worst_rt_latency_us,
                    100.0 * (bound_us - r.worst_rt_latency_us) / bound_us);
      if (!(r.worst_rt_latency_us <= bound_us))
        fail_msg("%s %s: explored worst %.3f us exceeds the analytic bound %.3f us", verify[f], policies[p],
                 r.worst_rt_latency_us, bound_us);
      atoll_bound_free(&b);
      atoll_explore_free(&r);
      atoll_test_unload(t);
    }
}

typedef struct random_chooser {
  atoll_rng rng;
} random_chooser;

static uint32_t choose_randomly(void *ctx, atoll_choice_kind kind, uint32_t n) {
  (void)kind;
  return (uint32_t)(atoll_rng_next(&((random_chooser *)ctx)->rng) % n);
}

/* The explorer's worst is a maximum over the blocks engine's schedules: the ordinary simulation on
 * that engine (the nominal schedule) and schedules drawn at random never exceed it. (The fluid
 * engine approximates sharing, so its runs are printed, not compared.) */
static void sampled_schedules_within_explored_worst(void **state) {
  (void)state;
  const char *policies[] = {"reef", "seq"};
  for (uint32_t f = 0; f < N_VERIFY; f++)
    for (uint32_t p = 0; p < 2; p++) {
      atoll_test_scenario *t = load_with_policy(verify[f], policies[p]);
      atoll_explore_result r;
      explore_ok(&t->s, NULL, &r);
      assert_true(r.complete);
      atoll_run_results res;
      t->s.engine = ATOLL_ENGINE_FLUID;
      assert_int_equal(atoll_sim_run(&t->s, NULL, &res), 0);
      double fluid = rt_max_us(&res);
      atoll_run_results_free(&res);
      t->s.engine = ATOLL_ENGINE_BLOCKS;
      double sampled = 0;
      random_chooser rc;
      atoll_rng_seed(&rc.rng, 42, f * 3 + p);
      atoll_chooser ch = {.choose = choose_randomly, .ctx = &rc};
      atoll_sim_opts so = {.chooser = &ch};
      for (int i = 0; i < 200; i++) {
        assert_int_equal(atoll_sim_run(&t->s, &so, &res), 0);
        double v = rt_max_us(&res);
        atoll_run_results_free(&res);
        if (!(v <= r.worst_rt_latency_us))
          fail_msg("%s %s: random schedule %d reaches %.3f us, above the explored worst %.3f us", verify[f],
                   policies[p], i, v, r.worst_rt_latency_us);
        if (v > sampled)
          sampled = v;
      }
      print_message("%s %s: nominal %.1f us, 200 random schedules up to %.1f us, explored worst %.1f us "
                    "(fluid engine: %.1f us)\n",
                    verify[f], policies[p], r.nominal_rt_latency_us, sampled, r.worst_rt_latency_us, fluid);
      /* The ordinary run on the blocks engine is the nominal schedule. */
      atoll_test_scenario *b = load_with_policy(verify[f], policies[p]);
      b->s.engine = ATOLL_ENGINE_BLOCKS;
      assert_int_equal(atoll_sim_run(&b->s, NULL, &res), 0);
      double blocks = rt_max_us(&res);
      atoll_run_results_free(&res);
      assert_cmp(blocks, ==, r.nominal_rt_latency_us);
      assert_cmp(blocks, <=, r.worst_rt_latency_us);
      atoll_test_unload(b);
      atoll_explore_free(&r);
      atoll_test_unload(t);
    }
}

/* The acceptance case: the RT bound of scenarios/verify holds on every schedule under reef, and
 * seq (the RT request waits for the BE task) and streams (RT kernels share the CUs) violate it. */
static void seq_and_streams_violate_what_reef_proves(void **state) {
  (void)state;
  const char *files[] = {SRC("scenarios/verify/rt-vs-be.yaml"), SRC("scenarios/verify/jitter.yaml"),
                         SRC("scenarios/verify/same-instant.yaml")};
  for (uint32_t f = 0; f < 3; f++) {
    const char *policies[] = {"reef", "seq", "streams"};
    for (uint32_t p = 0; p < 3; p++) {
      atoll_test_scenario *t = load_with_policy(files[f], policies[p]);
      atoll_explore_result r;
      /* A violation found before the state limit is a real schedule: streams, whose state space is
       * the largest, need not be explored to the end to show one. */
      atoll_explore_opts o = {.max_states = p == 2 ? 50000 : 0};
      explore_ok(&t->s, &o, &r);
      assert_true(r.complete || p == 2);
      if (p == 0) {
        if (r.violated)
          fail_msg("%s reef: a bound is violated (worst %.3f)", files[f], r.bounds[0].worst);
        assert_int_equal(r.witness_expect, -1);
      } else {
        if (!r.violated)
          fail_msg("%s %s: no violation (worst %.3f)", files[f], policies[p], r.bounds[0].worst);
        assert_cmp(r.witness_expect, >=, 0);
        assert_cmp(r.n_witness, >, 0);
      }
      atoll_explore_free(&r);
      atoll_test_unload(t);
    }
  }
}

/* The witness is a schedule: replayed through atoll_sim_run it sets the violated bound's worst value. */
static void replay_reproduces_the_witness(void **state) {
  (void)state;
  const char *cases[][2] = {{SRC("scenarios/verify/rt-vs-be.yaml"), "seq"},
                            {SRC("scenarios/verify/same-instant.yaml"), "seq"},
                            {SRC("scenarios/verify/tiny.yaml"), "streams"}};
  for (uint32_t c = 0; c < 3; c++) {
    atoll_test_scenario *t = load_with_policy(cases[c][0], cases[c][1]);
    atoll_explore_result r;
    explore_ok(&t->s, NULL, &r);
    assert_true(r.violated);
    assert_cmp(r.witness_expect, >=, 0);
    /* Through the file format, as atoll sim --replay reads it. */
    char path[] = "/tmp/atoll-witness-XXXXXX";
    int fd = mkstemp(path);
    assert_cmp(fd, >=, 0);
    FILE *f = fdopen(fd, "w");
    assert_int_equal(atoll_replay_write(f, "witness\nof a test", r.witness, r.n_witness), 0);
    fclose(f);
    atoll_choice_rec *recs;
    uint32_t n;
    char err[128];
    assert_int_equal(atoll_replay_read(path, &recs, &n, err, sizeof err), 0);
    remove(path);
    assert_int_equal(n, r.n_witness);
    atoll_replay rp;
    atoll_replay_init(&rp, recs, n);
    atoll_chooser ch = atoll_replay_chooser(&rp);
    atoll_sim_opts so = {.chooser = &ch};
    t->s.engine = ATOLL_ENGINE_BLOCKS;
    atoll_run_results res;
    assert_int_equal(atoll_sim_run(&t->s, &so, &res), 0);
    assert_false(rp.diverged);
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    const atoll_expect_verdict *v = &rep.verdicts[r.witness_expect];
    if (v->holds || v->value != r.bounds[r.witness_expect].worst)
      fail_msg("%s %s: replay gives %.3f (holds %d), explorer's worst %.3f", cases[c][0], cases[c][1], v->value,
               v->holds, r.bounds[r.witness_expect].worst);
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
    free(recs);
    atoll_explore_free(&r);
    atoll_test_unload(t);
  }
}

static void state_limit_leaves_it_incomplete(void **state) {
  (void)state;
  atoll_test_scenario *t = load_with_policy(SRC("scenarios/verify/rt-vs-be.yaml"), "reef");
  atoll_explore_opts o = {.max_states = 500};
  atoll_explore_result r;
  explore_ok(&t->s, &o, &r);
  assert_false(r.complete);
  assert_non_null(r.why);
  assert_int_equal(r.states, 500);
  atoll_explore_free(&r);
  atoll_test_unload(t);
}

/* The verify scenarios reach every kind of choice point (counted in the nominal schedule). */
static void every_kind_of_choice_is_met(void **state) {
  (void)state;
  uint32_t seen[ATOLL_CHOICE_KINDS] = {0};
  const char *cases[][2] = {{SRC("scenarios/verify/tiny.yaml"), "reef"},
                            {SRC("scenarios/verify/same-instant.yaml"), "streams"}};
  for (uint32_t c = 0; c < 2; c++) {
    atoll_test_scenario *t = load_with_policy(cases[c][0], cases[c][1]);
    atoll_explore_opts o = {.max_states = 100};
    atoll_explore_result r;
    explore_ok(&t->s, &o, &r);
    for (int k = 0; k < ATOLL_CHOICE_KINDS; k++)
      seen[k] += r.choice_points[k];
    atoll_explore_free(&r);
    atoll_test_unload(t);
  }
  for (int k = 0; k < ATOLL_CHOICE_KINDS; k++)
    if (seen[k] == 0)
      fail_msg("no %s choice point in the verify scenarios", atoll_choice_kind_name((atoll_choice_kind)k));
}

static void replay_file_errors_are_located(void **state) {
  (void)state;
  const char *bad[][2] = {{"duration 0/3\nwait 1/2\n", "2:1: expected a choice kind"},
                          {"# c\ntie 2/2\n", "2:5: expected OPTION/COUNT"},
                          {"serve 0/1\n", "1:7: expected OPTION/COUNT"},
                          {"jitter 1/3 x\n", "1:8: expected OPTION/COUNT"}};
  for (uint32_t i = 0; i < 4; i++) {
    char path[] = "/tmp/atoll-replay-XXXXXX";
    int fd = mkstemp(path);
    assert_cmp(fd, >=, 0);
    FILE *f = fdopen(fd, "w");
    fputs(bad[i][0], f);
    fclose(f);
    atoll_choice_rec *recs;
    uint32_t n;
    char err[128];
    assert_int_equal(atoll_replay_read(path, &recs, &n, err, sizeof err), ATOLL_EPARSE);
    remove(path);
    if (strncmp(err, bad[i][1], strlen(bad[i][1])) != 0)
      fail_msg("case %u: error '%s', expected '%s...'", i, err, bad[i][1]);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(nominal_schedule_is_the_ordinary_run),
    cmocka_unit_test(pruning_keeps_every_worst_value),
    cmocka_unit_test(checkpoints_change_nothing_but_the_work),
    cmocka_unit_test(explored_worst_within_analytic_bound),
    cmocka_unit_test(sampled_schedules_within_explored_worst),
    cmocka_unit_test(seq_and_streams_violate_what_reef_proves),
    cmocka_unit_test(replay_reproduces_the_witness),
    cmocka_unit_test(state_limit_leaves_it_incomplete),
    cmocka_unit_test(every_kind_of_choice_is_met),
    cmocka_unit_test(replay_file_errors_are_located),
};

ATOLL_TEST_MAIN(tests)
