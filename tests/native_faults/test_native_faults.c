/* Fault injection (native/fault.h, docs/native-faults.md): a kernel launch that faults on the
 * device and a request whose buffers cannot be allocated each fail that request alone. With
 * injection on, runs on the CPU back-end must return normally (no hang, no run-wide failure), count
 * every failed request with its reason, and complete and verify bit for bit every other request. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "native/fault.h"
#include "tests/native/native_fixture.h"
#include "native/runtime/nrun.h"

typedef struct tally {
  uint32_t issued, completed, failed, failed_records, unfinished;
  uint32_t verified, mismatches;
  double wall_s;
} tally;

/* A tiny RT model (Poisson) beside the small in-place BE chain (closed loop) under REEF, with
 * preemptions, 2 CUs, run with --verify and the given faults. */
static void run_with(const atoll_nfault_cfg *inject, uint32_t ms, const char *reason, tally *t) {
  fx_scenario f;
  const atoll_nmodel *m[2] = {fx_tiny_rt(), fx_chain_be_small()};
  fx_client c[2] = {{"rt", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_POISSON, 200},
                    {"be", 1, ATOLL_CLASS_BE, ATOLL_ARRIVAL_CLOSED, 0}};
  fx_build(&f, m, 2, c, 2, ATOLL_POLICY_REEF, ms, 5);
  atoll_native_opts o = fx_opts(&f, 2);
  o.inject = inject;
  atoll_run_results res;
  char err[256];
  int rc = atoll_native_run(&f.s, &o, &res, NULL, err, sizeof err);
  if (rc)
    fail_msg("native run with faults injected: %s (%s)", atoll_strerror(rc), err);
  memset(t, 0, sizeof *t);
  for (uint32_t k = 0; k < f.s.n_clients; k++) {
    const atoll_client_records *cr = &res.clients[k];
    t->issued += cr->n + cr->dropped;
    t->failed += cr->failed;
    for (uint32_t i = 0; i < cr->n; i++) {
      const atoll_request_record *q = &cr->req[i];
      if (q->failed) {
        t->failed_records++;
        assert_cmp(q->done_ns, <, 0); /* a failed request is never also completed */
      } else if (q->done_ns >= 0) {
        t->completed++;
      } else {
        t->unfinished++;
      }
    }
    if (cr->failed) {
      if (!strstr(cr->failure, reason))
        fail_msg("client %s: failure message '%s' does not say '%s'", f.s.clients[k].name, cr->failure, reason);
    } else {
      assert_int_equal(cr->failure[0], 0);
    }
  }
  assert_true(res.verified);
  t->verified = res.verify_requests;
  t->mismatches = res.verify_mismatches;
  t->wall_s = res.wall_s;
  atoll_run_results_free(&res);
  fx_free(&f);
}

static void check_served(const tally *t, uint32_t ms) {
  /* Every failed request is in the records, and the others completed and verified. */
  assert_int_equal(t->failed, t->failed_records);
  assert_cmp(t->failed, >, 0);
  assert_cmp(t->completed, >, 10);
  assert_int_equal(t->verified, t->completed);
  assert_int_equal(t->mismatches, 0);
  /* Closed-loop BE: at most one unfinished; RT: whatever arrived in the last moments. */
  assert_cmp(t->unfinished, <, t->issued / 4 + 2);
  assert_int_equal(t->issued, t->completed + t->failed + t->unfinished);
  /* No hang: the run stops on time (the clients stop at the duration; quiescing is quick). */
  assert_cmp(t->wall_s, <, ms / 1000.0 + 20);
}

static void kernel_faults_fail_only_their_requests(void **state) {
  (void)state;
  atoll_nfault_cfg fi = {.kernel_p = 0.05, .seed = 11};
  tally t;
  run_with(&fi, 1500, "faulted on the device", &t);
  check_served(&t, 1500);
}

static void alloc_failures_fail_only_their_requests(void **state) {
  (void)state;
  atoll_nfault_cfg fi = {.alloc_p = 0.2, .seed = 12};
  tally t;
  run_with(&fi, 1500, "could not be allocated", &t);
  check_served(&t, 1500);
}

/* Both at once, and probability 1 for allocations: nothing is served, nothing hangs. */
static void every_allocation_failing_serves_nothing_and_returns(void **state) {
  (void)state;
  atoll_nfault_cfg fi = {.kernel_p = 0.1, .alloc_p = 1, .seed = 13};
  tally t;
  run_with(&fi, 500, "could not be allocated", &t);
  assert_cmp(t.failed, >, 0);
  assert_int_equal(t.completed, 0);
  assert_int_equal(t.verified, 0);
  assert_int_equal(t.issued, t.failed + t.unfinished);
}

static void no_injection_fails_nothing(void **state) {
  (void)state;
  atoll_nfault_cfg fi = {.seed = 14};
  tally t;
  run_with(&fi, 500, "-", &t);
  assert_int_equal(t.failed, 0);
  assert_cmp(t.completed, >, 0);
  assert_int_equal(t.mismatches, 0);
}

static void parse_accepts_and_refuses(void **state) {
  (void)state;
  atoll_nfault_cfg c = {.seed = 3};
  char err[160];
  assert_int_equal(atoll_nfault_parse("kernel:0.25,alloc:1", &c, err, sizeof err), 0);
  assert_cmp(c.kernel_p, ==, 0.25);
  assert_cmp(c.alloc_p, ==, 1);
  assert_cmp(c.seed, ==, 3);
  assert_int_equal(atoll_nfault_parse("alloc:0.5", &c, err, sizeof err), 0);
  assert_cmp(c.kernel_p, ==, 0);
  assert_cmp(c.alloc_p, ==, 0.5);
  static const char *const bad[] = {"", "kernel", "kernel:", "kernel:1.5", "kernel:-0.1", "alloc:x",
                                    "disk:0.1", "kernel:0.1;alloc:0.2", "kernel:0.1,"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    if (atoll_nfault_parse(bad[i], &c, err, sizeof err) != ATOLL_EINVAL)
      fail_msg("'%s' was accepted", bad[i]);
    assert_cmp(err[0], !=, 0);
  }
  /* The messages say what is wrong (they read "unknown fault 'kernel'; did you mean 'kernel'?" and
   * "unknown fault ''"). */
  assert_int_equal(atoll_nfault_parse("kernel", &c, err, sizeof err), ATOLL_EINVAL);
  assert_string_equal(err, "fault 'kernel' needs its probability: kernel:P, P from 0 to 1");
  assert_int_equal(atoll_nfault_parse(",kernel:0.1", &c, err, sizeof err), ATOLL_EINVAL);
  assert_string_equal(err, "a fault is missing before a ','");
}

/* The decision is a fixed function of (seed, kind, key) and hits about P of the keys. */
static void hit_rate_follows_probability(void **state) {
  (void)state;
  uint32_t hits = 0, n = 100000;
  for (uint64_t k = 0; k < n; k++)
    hits += (uint32_t)atoll_nfault_hit(0.1, 42, ATOLL_NFAULT_KERNEL, k);
  assert_cmp(hits, >, 9000);
  assert_cmp(hits, <, 11000);
  for (uint64_t k = 0; k < 1000; k++) {
    assert_int_equal(atoll_nfault_hit(0.1, 42, ATOLL_NFAULT_KERNEL, k), atoll_nfault_hit(0.1, 42, ATOLL_NFAULT_KERNEL, k));
    assert_false(atoll_nfault_hit(0, 42, ATOLL_NFAULT_ALLOC, k));
    assert_true(atoll_nfault_hit(1, 42, ATOLL_NFAULT_ALLOC, k));
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(parse_accepts_and_refuses),
    cmocka_unit_test(hit_rate_follows_probability),
    cmocka_unit_test(no_injection_fails_nothing),
    cmocka_unit_test(kernel_faults_fail_only_their_requests),
    cmocka_unit_test(alloc_failures_fail_only_their_requests),
    cmocka_unit_test(every_allocation_failing_serves_nothing_and_returns),
};

ATOLL_TEST_MAIN(tests)
