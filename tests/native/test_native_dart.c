/* dart's stage pipeline on the native CPU device (docs/dart.md, "Native"): scenarios/native/dart.yaml
 * (pilotnet RT, lenet BE, two one-core CPU nodes) run for real with --verify. Every block the
 * back-end runs is recorded with its stream (the top 16 bits of the back-end tag) and its worker's
 * CU, so the test sees that each node's streams ran only on that node's CU, that every stage's
 * node ran blocks (stages were handed from node to node), and that outputs equal the uninterrupted
 * reference. An injected overrun (a budget cut
 * to a thousandth) demotes the RT client on wall clock, and the response-time test brings it back. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/load.h"
#include "native/cpu/cpu_backend.h"
#include "native/runtime/ndart.h"
#include "native/runtime/nrun.h"
#include "tests/atoll_test.h"

enum { MAX_STREAMS = 64, MAX_CUS = 8 };

/* A sanitizer makes pilotnet ten times longer (289 ms alone under ASan; under TSan on a loaded
 * machine one stage took 1.6-1.9 s): the run is longer there, so that the RT client still
 * completes several requests, and its deadline too, so that the response-time test can pass after
 * an overrun raised a WCET to what a stage took there. The RT rate too: its RT worker runs
 * SCHED_FIFO where permitted (docs/dart.md), so an RT client that keeps one CPU busy (2 Hz of
 * 1.6-1.9 s stages) starves everything else there. Under ASan 5 s at 1 Hz is enough: each case
 * passed three runs, and in the injected overrun's the RT client completed its 5 requests with 3-4
 * demotions and as many recoveries each time (10 s took about 19 s a case, most of the rest
 * verifying the BE client's 400-600 outputs; 5 s takes about 10 s). */
#if defined(ATOLL_TEST_UNDER_TSAN)
#define RUN_MS "10000"
#define DEADLINE_MS "60000"
#define RATE_HZ "1"
#elif defined(ATOLL_TEST_UNDER_ASAN)
#define RUN_MS "5000"
#define DEADLINE_MS "60000"
#define RATE_HZ "1"
#else
#define RUN_MS "2500"
#define DEADLINE_MS "5000"
#define RATE_HZ "2"
#endif

static atomic_uint blocks_on[MAX_STREAMS][MAX_CUS];
static atomic_uint blocks_elsewhere; /* a stream or CU past the table */
/* GPU-like device: per stream, the lowest and highest vendor stream priority its blocks ran at. */
static atomic_int prio_lo[MAX_STREAMS], prio_hi[MAX_STREAMS];

static int recording_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  uint64_t stream = atoll_ncpu_worker_tag() >> 48;
  uint32_t cu = atoll_ncpu_worker_cu();
  if (stream < MAX_STREAMS && cu < MAX_CUS) {
    atomic_fetch_add(&blocks_on[stream][cu], 1);
    const int p = atoll_ncpu_worker_vendor_priority();
    for (int lo = atomic_load(&prio_lo[stream]); p < lo && !atomic_compare_exchange_weak(&prio_lo[stream], &lo, p);)
      ;
    for (int hi = atomic_load(&prio_hi[stream]); p > hi && !atomic_compare_exchange_weak(&prio_hi[stream], &hi, p);)
      ;
  } else {
    atomic_fetch_add(&blocks_elsewhere, 1);
  }
  return ak_run_block(kernel, a, c);
}

typedef struct dart_run {
  atoll_arena a;
  atoll_scenario s;
  const atoll_nmodel *nm[4];
  atoll_run_results res;
} dart_run;

/* Loads the scenario with the RT client slowed to a rate and deadline any build (a sanitizer makes
 * pilotnet ten times longer) keeps up with, plus `extra` overrides, and runs it with --verify. */
static void run_dart_on(dart_run *d, const char *extra, const char *device) {
  atoll_arena_init(&d->a);
  atoll_diag diag;
  atoll_diag_clear(&diag);
  atoll_set_override sets[] = {{.text = "clients.steer.arrival={kind: uniform, rate_hz: " RATE_HZ "}"},
                               {.text = "clients.steer.deadline_ms=" DEADLINE_MS},
                               {.text = "duration_ms=" RUN_MS},
                               {.text = "warmup_ms=0"},
                               {.text = "expect=[]"},
                               {.text = extra}};
  uint32_t n_sets = extra ? 6 : 5;
  if (atoll_scenario_load_file(&d->a, ATOLL_SOURCE_DIR "/scenarios/native/dart.yaml", sets, n_sets, &d->s, &diag)) {
    atoll_diag_print(&diag, stderr);
    fail_msg("scenarios/native/dart.yaml does not load");
  }
  assert_true(d->s.n_models <= 4);
  for (uint32_t m = 0; m < d->s.n_models; m++)
    assert_non_null(d->nm[m] = atoll_nmodel_find(d->s.models[m].model.native));
  static const int64_t standalone[4] = {50000000, 50000000, 50000000, 50000000};
  atoll_native_opts o = {.device = device, .cus = 2, .sched_cpu = -1, .verify = true, .nmodels = d->nm,
                         .standalone_ns = standalone};
  char err[256] = "";
  memset(blocks_on, 0, sizeof blocks_on);
  atomic_store(&blocks_elsewhere, 0);
  for (uint32_t st = 0; st < MAX_STREAMS; st++)
    atomic_store(&prio_lo[st], 1000), atomic_store(&prio_hi[st], -1000);
  atoll_ncpu_set_block_fn(recording_block);
  int rc = atoll_native_run(&d->s, &o, &d->res, NULL, err, sizeof err);
  atoll_ncpu_set_block_fn(NULL);
  if (rc)
    fail_msg("native run: %s (%s)", atoll_strerror(rc), err);
  assert_true(d->res.verified);
  assert_cmp(d->res.verify_requests, >, 0);
  assert_int_equal(d->res.verify_mismatches, 0);
}

static void run_dart(dart_run *d, const char *extra) { run_dart_on(d, extra, "cpu"); }

static void free_run(dart_run *d) {
  atoll_run_results_free(&d->res);
  atoll_arena_free(&d->a);
}

static uint32_t completed(const dart_run *d, uint32_t c) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->res.clients[c].n; i++)
    n += d->res.clients[c].req[i].done_ns >= 0;
  return n;
}

static void stages_run_on_their_nodes_workers(void **state) {
  (void)state;
  dart_run d;
  run_dart(&d, NULL);
  assert_cmp(completed(&d, 0), >, 0);
  assert_cmp(completed(&d, 1), >, 0);
  /* The plan the runner built (the same function, the same scenario and CU count). */
  atoll_ndart nd;
  char err[160];
  assert_int_equal(atoll_ndart_build(&d.s, 2, &nd, err, sizeof err), 0);
  uint32_t nc = d.s.n_clients;
  assert_int_equal(atomic_load(&blocks_elsewhere), 0);
  /* The client queues' streams are created first, one per client (their tags' stream bits are
   * also those of the verification's own queue, whose tags are small sequence numbers, so they are
   * not checked); node k's BE and RT streams come next (nc + 2k, nc + 2k + 1): their blocks ran on
   * its CUs only. */
  uint32_t per_node[ATOLL_DART_MAX_NODES] = {0};
  for (uint32_t k = 0; k < nd.pipe.n_nodes; k++)
    for (uint32_t cls = 0; cls < 2; cls++)
      for (uint32_t cu = 0; cu < MAX_CUS; cu++) {
        uint32_t n = atomic_load(&blocks_on[nc + 2 * k + cls][cu]);
        if (n && !atoll_cuset_has(&nd.pipe.node_cus[k], cu))
          fail_msg("node %u's %s stream ran %u blocks on CU %u, outside its CUs", k, cls ? "RT" : "BE", n, cu);
        per_node[k] += n;
      }
  /* Every node a stage was placed on ran blocks: requests went from node to node. */
  uint32_t multi = 0;
  for (uint32_t c = 0; c < nc; c++) {
    multi += nd.plan.clients[c].n_stages > 1;
    for (uint32_t st = 0; st < nd.plan.clients[c].n_stages; st++)
      assert_cmp(per_node[nd.plan.clients[c].stages[st].node], >, 0);
  }
  assert_cmp(multi, >, 0); /* the plan does split a model, or this test shows no hand-over */
  atoll_ndart_free(&nd);
  free_run(&d);
}

static void injected_overrun_demotes_and_recovers(void **state) {
  (void)state;
  dart_run d;
  /* Request 1 of the first client (steer): its first stage's budget is cut to 1/1000. */
  run_dart(&d, "policy={name: dart, inject_client: 1, inject_request: 1, inject_pct: 100000}");
  assert_cmp(completed(&d, 0), >, 1);
  assert_cmp(d.res.clients[0].demotions, >=, 1);
  assert_cmp(d.res.clients[0].recoveries, >=, 1);
  assert_int_equal(d.res.clients[1].demotions, 0);
  free_run(&d);
}

/* One GPU node, on the CPU back-end's GPU-like device: the runner asks the back-end for the
 * greatest stream priority for the RT streams (atoll_npreempt_tuning.top_priority), and the blocks
 * of the node's RT stream ran at the greatest priority a GPU back-end would give them (CUDA's -5 on
 * an H100: without the runner's request, -1, one level above the default), those of its BE stream
 * at the default; both classes completed requests, 0 mismatches. */
static void gpu_node_rt_stream_takes_the_greatest_priority(void **state) {
  (void)state;
  dart_run d;
  run_dart_on(&d, "nodes=[{kind: gpu}]", "cpu-gpu");
  assert_cmp(completed(&d, 0), >, 0);
  assert_cmp(completed(&d, 1), >, 0);
  const uint32_t nc = d.s.n_clients, be = nc, rt = nc + 1; /* node 0's BE and RT streams */
  uint32_t n_be = 0, n_rt = 0;
  for (uint32_t cu = 0; cu < MAX_CUS; cu++)
    n_be += atomic_load(&blocks_on[be][cu]), n_rt += atomic_load(&blocks_on[rt][cu]);
  assert_cmp(n_be, >, 0);
  assert_cmp(n_rt, >, 0);
  print_message("GPU node: RT stream at %d..%d, BE stream at %d..%d\n", atomic_load(&prio_lo[rt]),
                atomic_load(&prio_hi[rt]), atomic_load(&prio_lo[be]), atomic_load(&prio_hi[be]));
  assert_int_equal(atomic_load(&prio_lo[rt]), ATOLL_NCPU_GPU_LIKE_PRIO_GREATEST);
  assert_int_equal(atomic_load(&prio_hi[rt]), ATOLL_NCPU_GPU_LIKE_PRIO_GREATEST);
  assert_int_equal(atomic_load(&prio_lo[be]), ATOLL_NCPU_GPU_LIKE_PRIO_LEAST);
  assert_int_equal(atomic_load(&prio_hi[be]), ATOLL_NCPU_GPU_LIKE_PRIO_LEAST);
  free_run(&d);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stages_run_on_their_nodes_workers),
      cmocka_unit_test(injected_overrun_demotes_and_recovers),
      cmocka_unit_test(gpu_node_rt_stream_takes_the_greatest_priority),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
