/* Whole native runs on the CPU back-end with --verify: every completed request's output equals the
 * uninterrupted reference bit for bit, under every policy that preempts, in every phase a
 * preemption can catch a task (commands still in the HQ, waiting in the DQ, running on the CUs),
 * 10,000 times over; an in-place model restores from its idempotent group entry, and with a
 * profile that hides the group (the in-place add marked idempotent) the same runs go wrong. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "native/models/nmodel_profile.h"
#include "tests/native/native_fixture.h"
#include "native/runtime/nrun.h"

static int recalibrate; /* set when a run saw too few preemptions: the RT rate may be off */

typedef struct outcome {
  uint32_t requests[8], completed[8];
  uint32_t preemptions, verified, mismatches;
  atoll_native_info info;
} outcome;

static void run_once(fx_scenario *f, uint32_t cus, outcome *o);

/* A run; a run with very few preemptions asks for the RT rate to be measured again (a burst of
 * load on the machine can have skewed the measurement it came from). */
static void run(fx_scenario *f, uint32_t cus, outcome *o) {
  run_once(f, cus, o);
  if (o->preemptions < 5)
    recalibrate = 1;
}

static void run_once(fx_scenario *f, uint32_t cus, outcome *o) {
  atoll_native_opts opts = fx_opts(f, cus);
  atoll_run_results res;
  char err[256];
  memset(o, 0, sizeof *o);
  int rc = atoll_native_run(&f->s, &opts, &res, &o->info, err, sizeof err);
  if (rc)
    fail_msg("native run: %s (%s)", atoll_strerror(rc), err);
  for (uint32_t c = 0; c < f->s.n_clients; c++) {
    o->requests[c] = res.clients[c].n;
    for (uint32_t i = 0; i < res.clients[c].n; i++)
      o->completed[c] += res.clients[c].req[i].done_ns >= 0;
  }
  o->preemptions = res.n_preemptions;
  assert_true(res.verified);
  o->verified = res.verify_requests;
  o->mismatches = res.verify_mismatches;
  atoll_run_results_free(&res);
}

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The BE chain: under a sanitizer, whose slowdown makes every kernel long, the small one. A BE
 * kernel longer than the time between RT arrivals never completes under reset-based preemption
 * (it is killed and restarts each time), and the task would never reach its in-place kernels. */
static const atoll_nmodel *be_chain(void) {
#if defined(ATOLL_TEST_UNDER_TSAN) || defined(ATOLL_TEST_UNDER_ASAN)
  return fx_chain_be_small();
#else
  return fx_chain_be();
#endif
}

/* Time budgets per test: ThreadSanitizer runs everything about ten times slower. */
#ifdef ATOLL_TEST_UNDER_TSAN
static const int64_t BUDGET_MS = 400000;
#else
static const int64_t BUDGET_MS = 300000;
#endif

/* RT and BE clients with the RT rate set so that RT work takes about `share` of the device: a
 * preemption needs BE work on the device, and how fast the models run depends on the build
 * (sanitizers slow them ten times) and on the machine, so the rate follows a measurement, taken
 * once per RT model and CU count. */
static void rt_be_clients(const fx_scenario *f, uint32_t cus, double share, fx_client *c) {
  static const atoll_nmodel *known_model;
  static uint32_t known_cus;
  static int64_t alone;
  if (known_model != f->nmodels[0] || known_cus != cus || recalibrate) {
    recalibrate = 0;
    atoll_native_opts o = fx_opts(f, cus);
    char err[256];
    int rc = atoll_native_standalone_ns(&f->s, &o, 0, 5, &alone, err, sizeof err);
    if (rc)
      fail_msg("standalone: %s (%s)", atoll_strerror(rc), err);
    known_model = f->nmodels[0];
    known_cus = cus;
  }
  c[0] = (fx_client){"rt", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_POISSON, share * 1e9 / (double)alone};
  c[1] = (fx_client){"be", 1, ATOLL_CLASS_BE, ATOLL_ARRIVAL_CLOSED, 0};
}

/* The scenario of the models m (RT first, BE second) under policy, with clients as above. The
 * rate is measured on the RT model alone, so the first build leaves the BE model out: building a
 * model traces it for its idempotence, and the large BE chain's trace took about 2 s in the debug
 * build (perf: most of inplace_needs_its_group_entry's time). */
static void build_rt_be(fx_scenario *f, const atoll_nmodel *const *m, atoll_policy_kind policy, int64_t ms,
                        uint64_t seed, uint32_t cus, double share) {
  fx_client c[2] = {{"rt", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_POISSON, 100}, {"be", 1, ATOLL_CLASS_BE, ATOLL_ARRIVAL_CLOSED, 0}};
  fx_build(f, m, 1, c, 1, policy, ms, seed);
  rt_be_clients(f, cus, share, c);
  fx_free(f);
  fx_build(f, m, 2, c, 2, policy, ms, seed);
}

static void catalogue_models_match_reference_alone(void **state) {
  (void)state;
  const atoll_nmodel *m[2] = {atoll_nmodel_find("cnn"), atoll_nmodel_find("inplace")};
  assert_non_null(m[0]);
  assert_non_null(m[1]);
  fx_client c[2] = {{"a", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_CLOSED, 0}, {"b", 1, ATOLL_CLASS_RT, ATOLL_ARRIVAL_CLOSED, 0}};
  fx_scenario f;
  fx_build(&f, m, 2, c, 2, ATOLL_POLICY_RT_ONLY, 3000, 1);
  outcome o;
  run(&f, 2, &o);
  assert_cmp(o.completed[0], >, 0);
  assert_cmp(o.completed[1], >, 0);
  assert_int_equal(o.verified, o.completed[0] + o.completed[1]);
  assert_int_equal(o.mismatches, 0);
  fx_free(&f);
}

/* Runs reset-based preemption until each phase has been seen: commands dropped from the HQ,
 * launches evicted from the DQ by the flag, running kernels killed; a group restore too. */
static void reset_restores_from_every_phase(void **state) {
  (void)state;
  const atoll_nmodel *m[2] = {fx_tiny_rt(), be_chain()};
  uint64_t hq = 0, dq = 0, killed = 0, groups = 0, preemptions = 0, verified = 0;
  int64_t until = wall_ms() + BUDGET_MS;
  for (uint64_t seed = 1; wall_ms() < until && !(hq && dq && killed && groups); seed++) {
    fx_scenario f;
    build_rt_be(&f, m, ATOLL_POLICY_RESET, 600, seed, 1, 0.3);
    outcome o;
    run(&f, 1, &o);
    if (o.mismatches)
      fail_msg("seed %llu: %u of %u outputs differ from the reference", (unsigned long long)seed, o.mismatches,
               o.verified);
    if (getenv("NATIVE_TEST_DEBUG"))
      fprintf(stderr, "seed %llu: rate %.0f Hz, %u preemptions, %llu killed, %u group restores, BE %u done\n",
              (unsigned long long)seed, f.clients[0].arrival.rate_hz, o.preemptions,
              (unsigned long long)o.info.stats.killed, o.info.group_restores, o.completed[1]);
    hq += o.info.stats.hq_reset_cmds;
    dq += o.info.stats.evicted;
    killed += o.info.stats.killed;
    groups += o.info.group_restores;
    preemptions += o.preemptions;
    verified += o.verified;
    fx_free(&f);
  }
  print_message("preemptions %llu, HQ commands dropped %llu, DQ launches evicted %llu, kernels killed %llu, "
                "group restores %llu, outputs verified %llu\n",
                (unsigned long long)preemptions, (unsigned long long)hq, (unsigned long long)dq,
                (unsigned long long)killed, (unsigned long long)groups, (unsigned long long)verified);
  assert_cmp(hq, >, 0);
  assert_cmp(dq, >, 0);
  assert_cmp(killed, >, 0);
  assert_cmp(groups, >, 0);
  assert_cmp(verified, >, 0);
}

static void wait_policy_outputs_match(void **state) {
  (void)state;
  const atoll_nmodel *m[2] = {fx_tiny_rt(), be_chain()};
  uint32_t preemptions = 0, be_done = 0;
  int64_t until = wall_ms() + BUDGET_MS;
  for (uint64_t seed = 7; wall_ms() < until && !(preemptions && be_done); seed++) {
    fx_scenario f;
    build_rt_be(&f, m, ATOLL_POLICY_WAIT, 600, seed, 1, 0.3);
    outcome o;
    run(&f, 1, &o);
    assert_int_equal(o.info.stats.killed, 0); /* waiting never kills */
    assert_int_equal(o.mismatches, 0);
    preemptions += o.preemptions;
    be_done += o.completed[1];
    fx_free(&f);
  }
  assert_cmp(preemptions, >, 0);
  assert_cmp(be_done, >, 0);
}

static void reef_with_padding_outputs_match(void **state) {
  (void)state;
  const atoll_nmodel *m[2] = {fx_tiny_rt(), be_chain()};
  /* The tiny RT kernel has four blocks, so it keeps four CUs: with eight, the other four take BE
   * blocks padded into its launch. */
  uint64_t preemptions = 0, parts = 0, verified = 0;
  int64_t until = wall_ms() + BUDGET_MS;
  for (uint64_t seed = 11; wall_ms() < until && !(preemptions && parts); seed++) {
    fx_scenario f;
    build_rt_be(&f, m, ATOLL_POLICY_REEF, 600, seed, 8, 0.3);
    outcome o;
    run(&f, 8, &o);
    assert_int_equal(o.mismatches, 0);
    preemptions += o.preemptions;
    parts += o.info.stats.padded_parts;
    verified += o.verified;
    fx_free(&f);
  }
  print_message("reef on 8 CUs: %llu preemptions, %llu padded parts, %llu outputs verified\n",
                (unsigned long long)preemptions, (unsigned long long)parts, (unsigned long long)verified);
  assert_cmp(preemptions, >, 0);
  assert_cmp(parts, >, 0);
}

/* 10,000 preemptions, every output checked: runs of two seconds (reset on one CU, reef on two)
 * until the count is reached, within a time budget that the ASan build also meets. ThreadSanitizer
 * slows the models too much for it (the other cases run the same code under it): skipped there. */
static void ten_thousand_preemptions_without_a_mismatch(void **state) {
  (void)state;
#ifdef ATOLL_TEST_UNDER_TSAN
  ATOLL_SKIP("10,000 preemptions take too long under ThreadSanitizer (the other cases run this code under it)");
#endif
  const atoll_nmodel *m[2] = {fx_tiny_rt(), fx_chain_be_small()};
  fx_client c[2] = {{"rt", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_POISSON, 2000},
                    {"be", 1, ATOLL_CLASS_BE, ATOLL_ARRIVAL_CLOSED, 0}};
  uint64_t preemptions = 0, verified = 0, killed = 0;
  int64_t until = wall_ms() + 480000;
  for (uint64_t seed = 1; preemptions < 10000 && wall_ms() < until; seed++) {
    fx_scenario f;
    fx_build(&f, m, 2, c, 2, seed % 2 ? ATOLL_POLICY_RESET : ATOLL_POLICY_REEF, 2000, seed);
    outcome o;
    run(&f, 1 + seed % 2, &o);
    if (o.mismatches)
      fail_msg("after %llu preemptions, seed %llu: %u of %u outputs differ", (unsigned long long)preemptions,
               (unsigned long long)seed, o.mismatches, o.verified);
    preemptions += o.preemptions;
    verified += o.verified;
    killed += o.info.stats.killed;
    fx_free(&f);
  }
  print_message("%llu preemptions (%llu kernels killed), %llu outputs verified, 0 mismatches\n",
                (unsigned long long)preemptions, (unsigned long long)killed, (unsigned long long)verified);
  assert_cmp(preemptions, >=, 10000);
}

/* The in-place adds restart from their group entry. With a profile that calls them idempotent the
 * core restarts a killed add at itself, the add runs twice over the elements it had done, and
 * --verify catches it. */
static void inplace_needs_its_group_entry(void **state) {
  (void)state;
  const atoll_nmodel *m[2] = {fx_tiny_rt(), be_chain()};
  uint32_t right = 0, wrong = 0, right_groups = 0;
  int64_t until = wall_ms() + BUDGET_MS;
  for (uint64_t seed = 1; wall_ms() < until && (wrong == 0 || right_groups == 0); seed++) {
    fx_scenario good, bad;
    build_rt_be(&good, m, ATOLL_POLICY_RESET, 500, seed, 1, 0.3);
    build_rt_be(&bad, m, ATOLL_POLICY_RESET, 500, seed, 1, 0.3);
    fx_break_idempotence(&bad, 1);
    outcome o;
    run(&good, 1, &o);
    right += o.mismatches;
    right_groups += o.info.group_restores;
#ifdef ATOLL_TEST_UNDER_TSAN
    wrong = 1; /* the broken profile's half is for the release and ASan builds: too slow here */
#else
    run(&bad, 1, &o);
    wrong += o.mismatches;
#endif
    fx_free(&good);
    fx_free(&bad);
  }
  print_message("with the group entry: %u mismatches over %u group restores; without: %u mismatches\n", right,
                right_groups, wrong);
  assert_int_equal(right, 0);
  assert_cmp(right_groups, >, 0);
  assert_cmp(wrong, >, 0);
}

/* The catalogue's in-place model, at the level of its ops: kill an in-place add half way, then
 * re-run from the add itself (wrong) or from its group entry (right). */
static void catalogue_inplace_model_group_entry(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("inplace");
  assert_non_null(m);
  atoll_idem idem[64];
  uint32_t entry[64];
  assert_cmp(m->n_ops, <=, 64);
  assert_int_equal(atoll__nmodel_idem(m, idem, entry), 0);
  uint32_t k = 0;
  while (k < m->n_ops && idem[k] != ATOLL_IDEM_GROUP)
    k++;
  assert_cmp(k, <, m->n_ops);
  assert_cmp(entry[k], <, k);
  void **ref = atoll_nmodel_alloc_host(m), **t = atoll_nmodel_alloc_host(m);
  m->make_input(3, ref[m->input]);
  assert_int_equal(atoll_nmodel_run_reference(m, ref), 0);
  for (int from_entry = 0; from_entry < 2; from_entry++) {
    m->make_input(3, t[m->input]);
    for (uint32_t i = 0; i < k; i++)
      if (m->ops[i].kind == ATOLL_OP_KERNEL)
        assert_int_equal(atoll_nmodel_run_blocks(m, i, 0, t, 0, m->ops[i].v[0].grid, NULL), AK_DONE);
    /* Half its blocks ran, then the CU was reset. */
    uint32_t grid = m->ops[k].v[0].grid;
    assert_int_equal(atoll_nmodel_run_blocks(m, k, 0, t, 0, grid / 2 > 0 ? grid / 2 : 1, NULL), AK_DONE);
    for (uint32_t i = from_entry ? entry[k] : k; i < m->n_ops; i++)
      if (m->ops[i].kind == ATOLL_OP_KERNEL)
        assert_int_equal(atoll_nmodel_run_blocks(m, i, 0, t, 0, m->ops[i].v[0].grid, NULL), AK_DONE);
    int same = memcmp(t[m->output], ref[m->output], m->tensors[m->output].bytes) == 0;
    if (from_entry)
      assert_true(same);
    else
      assert_false(same);
  }
  atoll_nmodel_free_host(m, ref);
  atoll_nmodel_free_host(m, t);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(catalogue_models_match_reference_alone),
      cmocka_unit_test(reset_restores_from_every_phase),
      cmocka_unit_test(wait_policy_outputs_match),
      cmocka_unit_test(reef_with_padding_outputs_match),
      cmocka_unit_test(ten_thousand_preemptions_without_a_mismatch),
      cmocka_unit_test(inplace_needs_its_group_entry),
      cmocka_unit_test(catalogue_inplace_model_group_entry),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
