/* atoll's SM reserve for RT (nrt.h rt_reserve_cus; docs/native-gpu.md, "Preemption latency
 * options"): the sets each stream gets, and a native run on the CPU back-end where the RT queue's
 * blocks ran only on the reserved CU and the BE queue's only on the others. */
#include <pthread.h>
#include <string.h>

#include "native/cpu/cpu_backend.h"
#include "tests/atoll_test.h"
#include "tests/native/native_fixture.h"

static void reserve_splits_the_cus(void **state) {
  (void)state;
  atoll_cuset s;
  assert_true(atoll_nrt_reserve_set(2, 8, 1, &s)); /* high priority: CUs 0-1 */
  assert_int_equal(atoll_cuset_count(&s), 2);
  assert_true(atoll_cuset_has(&s, 0) && atoll_cuset_has(&s, 1));
  assert_true(atoll_nrt_reserve_set(2, 8, 0, &s)); /* the others: 2-7 */
  assert_int_equal(atoll_cuset_count(&s), 6);
  assert_false(atoll_cuset_has(&s, 1));
  assert_true(atoll_cuset_has(&s, 7));
  assert_false(atoll_nrt_reserve_set(0, 8, 1, &s)); /* off */
  assert_false(atoll_nrt_reserve_set(8, 8, 1, &s)); /* nothing left for BE */
  assert_true(atoll_cuset_is_empty(&s));
}

/* Which CUs each stream's blocks ran on (the stream index is the tag's top 16 bits). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t cus_of[8];

static int logging_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  const uint32_t stream = (uint32_t)(atoll_ncpu_worker_tag() >> 48), cu = atoll_ncpu_worker_cu();
  pthread_mutex_lock(&mu);
  if (stream < 8 && cu < 32)
    cus_of[stream] |= 1u << cu;
  pthread_mutex_unlock(&mu);
  return ak_run_block(kernel, a, c);
}

static void rt_blocks_on_the_reserve_be_blocks_elsewhere(void **state) {
  (void)state;
  static fx_spin_model rt, be;
  fx_spin_build(&rt, "rt_one", 1, 2000);
  fx_spin_build(&be, "be_chain", 8, 20000);
  const atoll_nmodel *models[2] = {&rt.nm, &be.nm};
  fx_client clients[2] = {{"rt", 0, ATOLL_CLASS_RT, ATOLL_ARRIVAL_POISSON, 50},
                          {"be", 1, ATOLL_CLASS_BE, ATOLL_ARRIVAL_CLOSED, 0}};
  fx_scenario f;
  fx_build(&f, models, 2, clients, 2, ATOLL_POLICY_RESET, 1000, 3);
  f.s.policy.priority = true; /* the RT queue is the high-priority stream */
  atoll_native_opts o = fx_opts(&f, 2);
  o.verify = false;
  o.rt_reserve_cus = 1;
  memset(cus_of, 0, sizeof cus_of);
  atoll_ncpu_set_block_fn(logging_block);
  atoll_run_results res;
  char err[256] = "";
  int rc = atoll_native_run(&f.s, &o, &res, NULL, err, sizeof err);
  atoll_ncpu_set_block_fn(NULL);
  if (rc)
    fail_msg("%s (%s)", atoll_strerror(rc), err);
  /* Two streams (RT first: the RT client comes first), each on its own side of the split; both
   * ran blocks (a second of a closed-loop BE client and 50 RT requests a second, on a machine
   * however loaded). */
  print_message("CUs per stream: %#x %#x\n", cus_of[0], cus_of[1]);
  assert_int_equal(cus_of[0], 1u << 0);
  assert_int_equal(cus_of[1], 1u << 1);
  atoll_run_results_free(&res);
  fx_free(&f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(reserve_splits_the_cus),
    cmocka_unit_test(rt_blocks_on_the_reserve_be_blocks_elsewhere),
};
ATOLL_TEST_MAIN(tests)
