/* Reset-based and wait-based preemption in the simulator (REEF §4): restart points, phases, waiting
 * for a non-restorable kernel, RT never beside BE, the Fig. 20(b) breakdown, requests conserved. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "io/load.h"
#include "tests/test_scenario.h"
#include "run/report.h"
#include "sim/kernel_timing.h"
#include "sim/run.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path
#define DEMO SRC("scenarios/examples/preempt.yaml")
#define DISB_A SRC("scenarios/disb-osdi/A.yaml")

/* What the tap saw. */
typedef struct seen {
  const atoll_scenario *s;
  uint32_t preemptions, interrupted_running, interrupted_idle, from_group, waited, violations;
  char why[256];
} seen;

static void on_task_preempted(void *ctx, uint32_t client, uint64_t req, int32_t interrupted, uint32_t restart,
                              uint32_t done_before, uint32_t launched_before, int64_t now) {
  seen *v = ctx;
  (void)req, (void)now;
  const atoll_model *m = &v->s->models[v->s->clients[client].model].model;
  v->preemptions++;
  uint32_t want;
  if (interrupted < 0) {
    v->interrupted_idle++;
    want = done_before; /* nothing ran: restart at the first op not completed */
  } else {
    const atoll_op *op = &m->ops[interrupted];
    v->interrupted_running++;
    /* A stream runs its commands in order: the running op is the first one not completed. (A
     * stale execution index from the task before on the stream once broke this.) */
    if ((uint32_t)interrupted != done_before && !v->violations++)
      snprintf(v->why, sizeof v->why, "interrupted op %d but %u ops done", interrupted, done_before);
    if (op->idem == ATOLL_IDEM_NONE) {
      v->waited++;
      want = (uint32_t)interrupted; /* not killed: it completes, the restart follows it */
    } else if (op->idem == ATOLL_IDEM_GROUP) {
      v->from_group++;
      want = op->group_entry;
    } else {
      want = (uint32_t)interrupted;
    }
    if (restart > (uint32_t)interrupted && !v->violations++)
      snprintf(v->why, sizeof v->why, "restart %u after the interrupted op %d", restart, interrupted);
  }
  if (restart != want && !v->violations++)
    snprintf(v->why, sizeof v->why, "restart %u, expected %u (interrupted %d, done %u, launched %u)", restart, want,
             interrupted, done_before, launched_before);
}

static const atoll_core_observer tap = {.task_preempted = on_task_preempted};

static void run_tapped(const atoll_scenario *s, seen *v, atoll_run_results *res) {
  memset(v, 0, sizeof *v);
  v->s = s;
  atoll_sim_opts opts = {.tap = &tap, .tap_ctx = v};
  assert_int_equal(atoll_sim_run(s, &opts, res), 0);
}

/* Every restart point is the interrupted op when it is idempotent (or unchecked), the entry of its
 * idempotent group otherwise, and the op itself when it cannot be killed; all three cases and both
 * phases (a kernel running, or only queued commands) occur in the demo. */
static void restart_points_follow_the_idempotence_metadata(void **state) {
  (void)state;
  atoll_test_scenario *l = atoll_test_load(DEMO, NULL, 0);
  seen v;
  atoll_run_results res;
  run_tapped(&l->s, &v, &res);
  if (v.violations)
    fail_msg("%u bad restart points; first: %s", v.violations, v.why);
  assert_cmp(v.preemptions, >, 100);
  assert_cmp(v.interrupted_running, >, 0);
  assert_cmp(v.interrupted_idle, >, 0);
  assert_cmp(v.from_group, >, 0);
  assert_cmp(v.waited, >, 0);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* A preemption that finds the non-restorable kernel running does not reset the CUs and waits for
 * it: those preemptions have no CU-kill time and last at least the rest of that kernel. */
static void non_restorable_kernel_makes_the_preemption_wait(void **state) {
  (void)state;
  atoll_test_scenario *l = atoll_test_load(DEMO, NULL, 0);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  uint32_t killed = 0, waited = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++) {
    if (res.preemptions[i].cu_kill_ns > 0)
      killed++;
    else if (res.preemptions[i].latency_ns > 100000)
      waited++;
  }
  assert_cmp(killed, >, 0);
  assert_cmp(waited, >, 0);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* With reset, RT blocks never start while BE blocks are resident; under GPU streams they do (the
 * check can fail). */
static void rt_never_runs_beside_be_under_reset(void **state) {
  (void)state;
  const char *reset[] = {"policy=reset"}, *streams[] = {"policy=streams"};
  atoll_test_scenario *l = atoll_test_load(DISB_A, reset, 1);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  assert_cmp(res.n_preemptions, >, 50);
  assert_int_equal(res.rt_beside_be, 0);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
  l = atoll_test_load(DISB_A, streams, 1);
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  assert_cmp(res.rt_beside_be, >, 0);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
  l = atoll_test_load(DEMO, NULL, 0); /* waiting for a non-restorable kernel must keep the property */
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  assert_int_equal(res.rt_beside_be, 0);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* One RNET client preempted by reset: REEF Fig. 20(b)'s breakdown (HQ 3 us with async
 * reclamation, DQ 31 us at capacity 4 after the CU kill, CU 3 us). The HQ and CU parts are preset
 * costs, so what is checked is what the simulation makes of them: the RT request's first kernel
 * starts no earlier than the HQ reset, the CU kill and the DQ eviction allow (each phase is paid
 * before it), the DQ part depends on how much was queued (it is not a constant), and the mean DQ
 * part and latency land near Fig. 20(b)'s 31 and 37 us. */
static void reset_breakdown_matches_fig20b(void **state) {
  (void)state;
  const char *reset[] = {"policy=reset"};
  atoll_test_scenario *l = atoll_test_load(DISB_A, reset, 1);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  assert_in_range(res.n_preemptions, 51, UINT32_MAX);
  const atoll_gpu_costs *k = &l->s.gpu.costs;
  int64_t dq_min = INT64_MAX, dq_max = 0, dq_sum = 0, lat_sum = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++) {
    const atoll_preemption_record *p = &res.preemptions[i];
    if (p->latency_ns == 0)
      continue; /* its RT request had not started when the run ended */
    /* The DQ is emptied after the CU kill; the first RT kernel starts after both. */
    if (p->latency_ns < p->dq_evict_ns || p->latency_ns < p->hq_reset_ns + p->cu_kill_ns || p->latency_ns > 45000)
      fail_msg("preemption %u at %lld ns: latency %lld ns, HQ %lld ns, DQ %lld ns, CU %lld ns", i,
               (long long)p->at_ns, (long long)p->latency_ns, (long long)p->hq_reset_ns,
               (long long)p->dq_evict_ns, (long long)p->cu_kill_ns);
    /* The queue is processed in order: the (at most 4) waiting commands are evicted once the head
     * leaves, at the CU kill or, for a head still being dispatched, at the end of its dispatch. */
    assert_in_range(p->dq_evict_ns, 0, p->cu_kill_ns + k->cp_dispatch_ns + k->dq_reset_ns + 4 * k->evicted_kernel_ns);
    dq_min = p->dq_evict_ns < dq_min ? p->dq_evict_ns : dq_min;
    dq_max = p->dq_evict_ns > dq_max ? p->dq_evict_ns : dq_max;
    dq_sum += p->dq_evict_ns;
    lat_sum += p->latency_ns;
    n++;
  }
  assert_in_range(n, 51, UINT32_MAX);
  printf("%u preemptions: DQ %lld-%lld us, mean %.1f us; latency mean %.1f us\n", n, (long long)dq_min / 1000,
         (long long)dq_max / 1000, dq_sum / 1e3 / n, lat_sum / 1e3 / n);
  assert_cmp(dq_max, >, dq_min); /* how much was queued shows */
  assert_in_range(dq_sum / n, 20000, 40000);   /* Fig. 20(b): 31 us */
  assert_in_range(lat_sum / n, 25000, 45000);  /* Fig. 20(b): about 37 us */
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* Synchronous reclamation costs per dropped command; asynchronous costs a constant. */
static void sync_reclamation_costs_per_command(void **state) {
  (void)state;
  const char *sync[] = {"policy={name: reset, async_reclaim: false}"};
  atoll_test_scenario *l = atoll_test_load(DISB_A, sync, 1);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  int64_t longest = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++)
    if (res.preemptions[i].hq_reset_ns > longest)
      longest = res.preemptions[i].hq_reset_ns;
  /* resnet152 has 207 kernels; a preemption early in a request drops most of them. */
  assert_cmp(longest, >, 100 * l->s.gpu.costs.hq_reset_per_cmd_ns);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* Every BE request that had time to finish did, and RT latency under reset stays within 1% of
 * standalone on DISB-OSDI A (REEF: 0.5%); wait-based preemption is slower to preempt. */
static void requests_complete_and_reset_beats_wait(void **state) {
  (void)state;
  const char *reset[] = {"policy=reset"}, *wait[] = {"policy=wait"};
  int64_t mean_latency[2];
  for (int k = 0; k < 2; k++) {
    atoll_test_scenario *l = atoll_test_load(DISB_A, k == 0 ? reset : wait, 1);
    atoll_run_results res;
    assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
    for (uint32_t c = 0; c < l->s.n_clients; c++) {
      const atoll_client_records *cr = &res.clients[c];
      uint32_t done = 0;
      for (uint32_t i = 0; i < cr->n; i++)
        done += cr->req[i].done_ns >= 0;
      assert_cmp(cr->n, >=, 1);
      assert_cmp(done + 1, >=, cr->n); /* at most the last request is cut by the end */
    }
    int64_t sum = 0;
    for (uint32_t i = 0; i < res.n_preemptions; i++)
      sum += res.preemptions[i].latency_ns;
    mean_latency[k] = res.n_preemptions ? sum / res.n_preemptions : 0;
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    if (k == 0)
      assert_cmp(rep.rt_norm_latency.mean, <=, 1.01);
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
    atoll_test_unload(l);
  }
  assert_cmp(mean_latency[1], >, 5 * mean_latency[0]);
}

/* Wait-based preemption as REEF's baseline does it: no HQ reset (that is REEF's own API), so every
 * BE command launched so far, still on the host or in the DQ, reaches the CP and is evicted there,
 * and the RT request is launched once the device is synchronized: its first kernel starts only
 * after the last eviction. A preemption early in a resnet152 request (207 kernels, the host's
 * transmits ~2 ms behind the launch) evicts most of the request; had the HQ been reset, those
 * commands would have been dropped on the host and the eviction count would stay small. */
static void wait_evicts_host_commands_and_drains_before_rt(void **state) {
  (void)state;
  const char *wait[] = {"policy=wait"};
  atoll_test_scenario *l = atoll_test_load(DISB_A, wait, 1);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  assert_in_range(res.n_preemptions, 51, UINT32_MAX);
  uint32_t most = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++) {
    const atoll_preemption_record *p = &res.preemptions[i];
    assert_int_equal(p->hq_reset_ns, 0);
    if (p->latency_ns > 0 && p->latency_ns < p->dq_evict_ns)
      fail_msg("preemption %u: RT kernel at %lld ns before the last eviction at %lld ns", i,
               (long long)p->latency_ns, (long long)p->dq_evict_ns);
    most = p->evicted_kernels > most ? p->evicted_kernels : most;
  }
  assert_cmp(most, >, 150);
  /* The device synchronize is reported every time: every RT request that had time to run did. */
  const atoll_client_records *rt = &res.clients[0];
  uint32_t done = 0;
  for (uint32_t i = 0; i < rt->n; i++)
    done += rt->req[i].done_ns >= 0;
  assert_cmp(rt->n, >, 50);
  assert_cmp(done + 1, >=, rt->n);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* Wait-based preemption on DISB C (five BE streams) keeps serving RT requests: the RT queue once
 * waited forever for a "running" kernel that belonged to the previous task on a stream. */
static void wait_never_starves_rt_on_disb_c(void **state) {
  (void)state;
  const char *sets[] = {"policy=wait", "duration_ms=1500", "warmup_ms=0"};
  atoll_test_scenario *l = atoll_test_load(SRC("scenarios/disb/C.yaml"), sets, 3);
  seen v;
  atoll_run_results res;
  run_tapped(&l->s, &v, &res);
  if (v.violations)
    fail_msg("%u bad preemptions; first: %s", v.violations, v.why);
  const atoll_client_records *rt = &res.clients[0];
  uint32_t done = 0;
  for (uint32_t i = 0; i < rt->n; i++)
    done += rt->req[i].done_ns >= 0;
  assert_cmp(rt->n, >, 100);
  assert_cmp(done + 1, >=, rt->n);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
}

/* Padding (reef) on DISB A and C: RT within 5% of rt-only, more throughput than reset (on A at least
 * 1.05: the acceptance bound), every BE request that had time completes (padding may run
 * and split its ops), and no BE block outside a padded launch runs beside an RT kernel. */
static void reef_pads_without_hurting_rt(void **state) {
  (void)state;
  const char *disb[] = {SRC("scenarios/disb/A.yaml"), SRC("scenarios/disb/C.yaml")};
  for (int w = 0; w < 2; w++) {
    double mean[3], thr[3];
    const char *policy[3] = {"policy=rt-only", "policy=reset", "policy=reef"};
    for (int p = 0; p < 3; p++) {
      const char *sets[] = {policy[p], "duration_ms=3000"};
      atoll_test_scenario *l = atoll_test_load(disb[w], sets, 2);
      atoll_run_results res;
      assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
      atoll_report rep;
      assert_int_equal(atoll_report_compute(&res, &rep), 0);
      mean[p] = rep.rt_norm_latency.mean;
      thr[p] = rep.total_norm_throughput;
      if (p == 2) {
        assert_int_equal(res.rt_beside_be, 0);
        for (uint32_t c = 0; c < l->s.n_clients; c++) {
          const atoll_client_records *cr = &res.clients[c];
          uint32_t done = 0;
          for (uint32_t i = 0; i < cr->n; i++)
            done += cr->req[i].done_ns >= 0;
          if (done + 1 < cr->n)
            fail_msg("%s: client %s completed %u of %u", disb[w], l->s.clients[c].name, done, cr->n);
        }
      }
      atoll_report_free(&rep);
      atoll_run_results_free(&res);
      atoll_test_unload(l);
    }
    if (mean[2] > 1.05 * mean[0])
      fail_msg("%s: reef RT mean %.4f vs rt-only %.4f", disb[w], mean[2], mean[0]);
    if (thr[2] <= thr[1])
      fail_msg("%s: reef throughput %.4f not above reset's %.4f", disb[w], thr[2], thr[1]);
    if (w == 0 && thr[2] < 1.05)
      fail_msg("%s: reef throughput %.4f below 1.05", disb[w], thr[2]);
  }
}

/* The padding guard (core/pad_guard.h) on DISB B, whose RT client arrives exactly as fast as the GPU
 * serves it: with the guard reef's RT mean stays within REEF's promise (5% of rt-only) over the run
 * and over its last 10%; without it (pad_guard: false, REEF's padding as published) every padded
 * kernel's proxy overhead stays in the queue and the RT mean grows far past it. B's RT client is
 * blocking (REEF's harness), which never lets a queue form; the guard is for open arrivals, so the
 * client here sends on its schedule whatever is in flight. */
static double b_rt_mean(const char *guard, const char *warmup) {
  const char *sets[] = {"policy=reef", guard, "duration_ms=6000", warmup, "clients.rt_vgg.arrival.blocking=false"};
  atoll_test_scenario *l = atoll_test_load(SRC("scenarios/disb/B.yaml"), sets, 5);
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
  atoll_report rep;
  assert_int_equal(atoll_report_compute(&res, &rep), 0);
  double mean = rep.rt_norm_latency.mean;
  atoll_report_free(&rep);
  atoll_run_results_free(&res);
  atoll_test_unload(l);
  return mean;
}

static void pad_guard_keeps_rt_promise_on_critical_load(void **state) {
  (void)state;
  double whole = b_rt_mean("policy.pad_guard=true", "warmup_ms=500");
  double last = b_rt_mean("policy.pad_guard=true", "warmup_ms=5400");
  double unguarded = b_rt_mean("policy.pad_guard=false", "warmup_ms=5400");
  if (whole > 1.05 || last > 1.05)
    fail_msg("guarded reef on DISB B: RT mean %.4f (whole run), %.4f (last 10%%)", whole, last);
  if (unguarded < 2)
    fail_msg("unguarded reef on DISB B: RT mean %.4f, expected the queue to grow", unguarded);
}

/* A closed-loop RT client (REEF's Fig. 23 pair) sends its next request only once the last is done,
 * so its queue cannot grow and the guard leaves padding alone: the same BE throughput and RT
 * latency with the guard as without, and padding does run (BE throughput well above 0). */
static void pad_guard_leaves_closed_loop_rt_padded(void **state) {
  (void)state;
  double be[2], rt[2];
  const char *guard[2] = {"policy.pad_guard=true", "policy.pad_guard=false"};
  for (int g = 0; g < 2; g++) {
    const char *sets[] = {"policy=reef", guard[g], "duration_ms=2000"};
    atoll_test_scenario *l = atoll_test_load(SRC("scenarios/experiments/fig23-pair.yaml"), sets, 3);
    atoll_run_results res;
    assert_int_equal(atoll_sim_run(&l->s, NULL, &res), 0);
    atoll_report rep;
    assert_int_equal(atoll_report_compute(&res, &rep), 0);
    rt[g] = rep.rt_norm_latency.mean;
    be[g] = rep.total_norm_throughput;
    atoll_report_free(&rep);
    atoll_run_results_free(&res);
    atoll_test_unload(l);
  }
  if (be[0] != be[1] || rt[0] != rt[1])
    fail_msg("closed-loop RT: guard throughput %.4f RT %.4f, unguarded %.4f %.4f", be[0], rt[0], be[1], rt[1]);
  assert_cmp(be[0], >, 1.1);
}

/* Batches under reset: what the tap saw of the BE client's requests. */
typedef struct batch_seen {
  struct {
    uint64_t req;
    uint32_t restart, done;
  } redo[8192];
  uint32_t n_redo;
  uint32_t batch[1 << 16]; /* per BE request: the batch it completed in (0: not told, one alone) */
  uint32_t be;
} batch_seen;

static void batch_preempted(void *ctx, uint32_t client, uint64_t req, int32_t interrupted, uint32_t restart,
                            uint32_t done_before, uint32_t launched_before, int64_t now) {
  batch_seen *v = ctx;
  (void)interrupted, (void)launched_before, (void)now;
  if (client == v->be && restart < done_before && v->n_redo < 8192)
    v->redo[v->n_redo].req = req, v->redo[v->n_redo].restart = restart, v->redo[v->n_redo++].done = done_before;
}

static void batch_told(void *ctx, uint32_t client, uint64_t req, uint32_t batch, int64_t now) {
  batch_seen *v = ctx;
  (void)now;
  if (client == v->be && req < (1 << 16))
    v->batch[req] = batch;
}

/* The ops of the client's model from restart to done, run again at batch b, alone on the GPU. */
static int64_t redo_at(const atoll_scenario *s, uint32_t client, uint32_t restart, uint32_t done, uint32_t b) {
  const atoll_model *m = &s->models[s->clients[client].model].model;
  int64_t sum = 0;
  for (uint32_t op = restart; op < done; op++) {
    atoll_kernel_timing t;
    atoll_kernel_timing_prepare(&s->gpu, m, op, &t);
    atoll_kernel_timing_batch(&s->gpu, &m->ops[op], b, &t);
    sum += atoll_kernel_alone_ns(&s->gpu, &t);
  }
  return sum;
}

/* A batch restored from a group entry runs the entry's completed ops again at the batch's size, and
 * the wasted GPU time charges them at that size (it charged batch 1 before). */
static void batch_restore_is_charged_at_its_batch_size(void **state) {
  (void)state;
  const char *sets[] = {"clients.be.arrival={kind: poisson, rate_hz: 2000}", "clients.be.batch={max: 4, timeout_ms: 1}"};
  atoll_test_scenario *l = atoll_test_load(DEMO, sets, 2);
  batch_seen *v = calloc(1, sizeof *v);
  assert_non_null(v);
  v->be = 1;
  const atoll_core_observer batch_tap = {.task_preempted = batch_preempted, .request_batch = batch_told};
  atoll_sim_opts opts = {.tap = &batch_tap, .tap_ctx = v};
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(&l->s, &opts, &res), 0);
  int64_t want = 0, at_one = 0, charged = 0;
  uint32_t batched = 0;
  for (uint32_t i = 0; i < v->n_redo; i++) {
    uint32_t b = v->redo[i].req < (1 << 16) && v->batch[v->redo[i].req] ? v->batch[v->redo[i].req] : 1;
    batched += b > 1;
    want += redo_at(&l->s, v->be, v->redo[i].restart, v->redo[i].done, b);
    at_one += redo_at(&l->s, v->be, v->redo[i].restart, v->redo[i].done, 1);
  }
  for (uint32_t i = 0; i < res.n_preemptions; i++)
    charged += res.preemptions[i].redo_gpu_ns;
  print_message("group restores %u (%u of batches), redo charged %lld ns, at batch 1 %lld ns\n", v->n_redo, batched,
                (long long)charged, (long long)at_one);
  assert_cmp(batched, >, 10);
  assert_int_equal(charged, want);
  assert_cmp(charged, >, at_one);
  atoll_run_results_free(&res);
  free(v);
  atoll_test_unload(l);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(reef_pads_without_hurting_rt),
    cmocka_unit_test(pad_guard_leaves_closed_loop_rt_padded),
    cmocka_unit_test(pad_guard_keeps_rt_promise_on_critical_load),
    cmocka_unit_test(wait_never_starves_rt_on_disb_c),
    cmocka_unit_test(wait_evicts_host_commands_and_drains_before_rt),
    cmocka_unit_test(restart_points_follow_the_idempotence_metadata),
    cmocka_unit_test(non_restorable_kernel_makes_the_preemption_wait),
    cmocka_unit_test(rt_never_runs_beside_be_under_reset),
    cmocka_unit_test(reset_breakdown_matches_fig20b),
    cmocka_unit_test(sync_reclamation_costs_per_command),
    cmocka_unit_test(requests_complete_and_reset_beats_wait),
    cmocka_unit_test(batch_restore_is_charged_at_its_batch_size),
};
ATOLL_TEST_MAIN(tests)
