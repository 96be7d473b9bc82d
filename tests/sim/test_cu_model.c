/* The CU model's two engines (sim/cu_model.h) on hand-computable cases, and against each other.
 *
 * The small GPU below has 4 CUs of 1024 register units and 8 block slots each. Kernels are given
 * by hand (blocks, occupancy, demand u, bt1), so every expected time follows from the rules in
 * docs/simulator.md: a block's duration is bt1 x max(1, D), D being the demand on its CU when it
 * starts, its own blocks included; the blocks engine deals a kernel's blocks out at most
 * ceil(remaining / CUs) per CU first. Both engines must agree on all of these; the fluid engine
 * pools CUs, so the cases are ones where pooling loses nothing (kernels spread evenly, one at a
 * time or fully overlapping). The last tests run every kernel of every shipped MI50 model alone
 * through both engines and compare with kernel_timing's emulation (the calibration's basis). */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "sim/cu_model.h"
#include "io/load.h"
#include "sim/simdev.h"

enum { MAX_JOBS = 8 };

typedef struct harness {
  atoll_evq q;
  atoll_cu_model *m;
  atoll_gpu g;
  int64_t started[MAX_JOBS], done[MAX_JOBS];
} harness;

static void on_started(void *ctx, uint32_t job, int64_t now) {
  harness *h = ctx;
  assert_int_equal(h->started[job], -1); /* once per job */
  h->started[job] = now;
}

static void on_done(void *ctx, uint32_t job, int64_t now) {
  harness *h = ctx;
  assert_int_equal(h->done[job], -1);
  h->done[job] = now;
}

static const char *job_name(void *ctx, uint32_t job) {
  (void)ctx, (void)job;
  return "job";
}

static atoll_gpu small_gpu(void) {
  return (atoll_gpu){.name = "small", .vendor = "amd", .cus = 4, .max_blocks_per_cu = 8, .max_threads_per_cu = 2048,
                     .registers_per_cu = 1024, .shared_bytes_per_cu = 65536, .dq_capacity = 4, .copy_engines = 1};
}

static void start(harness *h, atoll_sim_engine e, const atoll_gpu *g) {
  memset(h, 0, sizeof *h);
  h->g = *g;
  for (int i = 0; i < MAX_JOBS; i++)
    h->started[i] = h->done[i] = -1;
  assert_int_equal(atoll_evq_init(&h->q, 64), 0);
  atoll_cu_model_cfg cfg = {.engine = e, .gpu = &h->g, .max_jobs = MAX_JOBS, .evq = &h->q,
                            .sink = {.ctx = h, .started = on_started, .done = on_done, .name = job_name},
                            .window_start_ns = 0, .window_end_ns = INT64_MAX / 2};
  assert_int_equal(atoll_cu_model_create(&h->m, &cfg), 0);
}

static void stop(harness *h) {
  atoll_cu_model_destroy(h->m);
  atoll_evq_free(&h->q);
}

/* A kernel of `blocks` blocks at `occupancy` per CU (block_units = registers / occupancy) whose
 * blocks each need `u` of a CU (ATOLL_DEMAND_ONE units) and run bt1 ns alone. */
static atoll_cu_job job(const harness *h, uint32_t blocks, uint32_t occupancy, uint32_t u, int64_t bt1) {
  atoll_cu_job j = {.cu_lo = 0, .cu_hi = (uint16_t)h->g.cus};
  j.kt = (atoll_kernel_timing){.blocks = blocks, .block_units = h->g.registers_per_cu / occupancy, .demand = u,
                               .bt1_ns = bt1};
  return j;
}

static void submit(harness *h, uint32_t id, atoll_cu_job j) {
  atoll_cu_add(h->m, id, &j);
  atoll_cu_place(h->m);
}

/* Runs the model's events up to and including time `until`. */
static void run_until(harness *h, int64_t until) {
  int64_t t;
  uint64_t p;
  while (atoll_evq_peek_time(&h->q, &t) && t <= until) {
    atoll_evq_pop(&h->q, &t, &p);
    atoll_cu_handle(h->m, p, t);
  }
}

enum { HALF = ATOLL_DEMAND_ONE / 2, THREE_QUARTERS = 3 * ATOLL_DEMAND_ONE / 4 };

/* The first two run every case; the rate engine (the third) runs those whose result it shares with
 * them (a kernel alone, waiting for room, priority, a kill) and has cases of its own below. */
static const atoll_sim_engine engines[] = {ATOLL_ENGINE_BLOCKS, ATOLL_ENGINE_FLUID, ATOLL_ENGINE_RATE};
enum { ALL_ENGINES = 3 };

/* One kernel alone, one block per CU at most: every block ends after bt1 (demand below 1). */
static void test_one_kernel_alone(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 4, 2, HALF, 1000));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.started[0], 0);
    assert_int_equal(h.done[0], 1000);
    stop(&h);
  }
}

/* Three waves alone: 20 blocks at 2 per CU on 4 CUs are waves of 8, 8 and 4 blocks. A full wave
 * has 2 blocks per CU (D = 2 x 0.75 = 1.5: 1500 ns); the last has 1 per CU (D = 0.75: 1000 ns). */
static void test_waves_alone(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 20, 2, THREE_QUARTERS, 1000));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1500 + 1500 + 1000);
    stop(&h);
  }
}

/* Fewer blocks than slots: 3 blocks of a 4-per-CU kernel on 4 CUs take one CU each (the first
 * pass gives each CU at most ceil(3 / 4) = 1), so D = u = 0.75 and the kernel ends after bt1. */
static void test_fewer_blocks_than_slots(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 3, 4, THREE_QUARTERS, 800));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 800);
    stop(&h);
  }
}

/* Busy CUs follow the dealing out: 6 blocks at 2 per CU on 4 CUs go 2, 2, 2 (at most ceil(6 / 4)
 * per CU), so three CUs are busy for the kernel's 1000 ns (D = 2 x 0.5 = 1). */
static void test_busy_follows_spread(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 6, 2, HALF, 1000));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1000);
    int64_t busy, rt_busy, be_busy;
    atoll_cu_busy(h.m, 5000, &busy, &rt_busy, &be_busy);
    assert_int_equal(busy, 3 * 1000);
    assert_int_equal(be_busy, 3 * 1000);
    assert_int_equal(rt_busy, 0);
    stop(&h);
  }
}

/* The two-kernel cases below: A (4 blocks, u = 0.75, 1000 ns) starts at 0, and B (`b_blocks` of
 * the same shape) is submitted when the clock reaches 200; the run then goes on to the end. */
static void a_then_b_at_200(harness *h, int e, const atoll_gpu *g, uint32_t b_blocks) {
  start(h, engines[e], g);
  submit(h, 0, job(h, 4, 2, THREE_QUARTERS, 1000));
  run_until(h, 200);
  atoll_evq_push(&h->q, 200, ATOLL_EV_DISPATCH, 0); /* move the clock to 200 */
  int64_t t;
  uint64_t p;
  atoll_evq_pop(&h->q, &t, &p);
  submit(h, 1, job(h, b_blocks, 2, THREE_QUARTERS, 1000));
  run_until(h, INT64_MAX);
}

/* Two kernels sharing CUs: A (4 blocks, one per CU, u = 0.75) starts at 0; B (the same shape)
 * arrives at 200 and finds 0.75 on every CU, so its blocks start at D = 1.5 and take 1.5 x bt1.
 * A's blocks keep the duration they started with. */
static void test_two_kernels_share(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < 2; e++) {
    harness h;
    a_then_b_at_200(&h, e, &g, 4);
    assert_int_equal(h.done[0], 1000);
    assert_int_equal(h.started[1], 200);
    assert_int_equal(h.done[1], 200 + 1500);
    stop(&h);
  }
}

/* The co-running overlap (atoll__corun_demand): with corun_overlap_ppm = 500000, B of
 * test_two_kernels_share meets half of A's 0.75, so D = 0.375 + 0.75 = 1.125 and B takes 1125 ns. */
static void test_corun_overlap(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  g.corun_overlap_ppm = 500000;
  for (int e = 0; e < 2; e++) {
    harness h;
    a_then_b_at_200(&h, e, &g, 4);
    assert_int_equal(h.done[0], 1000);
    assert_int_equal(h.done[1], 200 + 1125);
    stop(&h);
  }
}

/* The overlap spares only other kernels' demand: B (8 blocks at 2 per CU) arrives at 200 beside A
 * (one block per CU) and finds room for one block per CU, meeting half of A's 0.75 (D = 1.125, ends
 * at 1325). Its other 4 blocks start at 1000, when A's end, beside B's own first blocks, whose 0.75
 * they meet in full: D = 1.5, ending at 2500 (2125 if the overlap spared B's own demand). */
static void test_corun_overlap_spares_only_others(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  g.corun_overlap_ppm = 500000;
  for (int e = 0; e < 2; e++) {
    harness h;
    a_then_b_at_200(&h, e, &g, 8);
    assert_int_equal(h.done[0], 1000);
    assert_int_equal(h.started[1], 200);
    assert_int_equal(h.done[1], 1000 + 1500);
    stop(&h);
  }
}

/* A kernel that waits for room: A fills every slot (8 blocks at 2 per CU, u = 0.5: D = 1, 1000
 * ns); B, submitted at once, starts only when A's blocks end, then runs alone (D = 0.5). */
static void test_waits_for_room(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 8, 2, HALF, 1000));
    submit(&h, 1, job(&h, 4, 2, HALF, 600));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1000);
    assert_int_equal(h.started[1], 1000);
    assert_int_equal(h.done[1], 1600);
    stop(&h);
  }
}

/* A high-priority kernel is offered freed room first: A fills the GPU, then B (normal) and C (high
 * priority, the same need) wait; when A ends C takes the room and B waits for C. */
static void test_priority_first(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 8, 2, HALF, 1000));
    submit(&h, 1, job(&h, 8, 2, HALF, 500));
    atoll_cu_job c = job(&h, 8, 2, HALF, 300);
    c.high = 1;
    submit(&h, 2, c);
    run_until(&h, INT64_MAX);
    assert_int_equal(h.started[2], 1000);
    assert_int_equal(h.done[2], 1300);
    assert_int_equal(h.started[1], 1300);
    assert_int_equal(h.done[1], 1800);
    stop(&h);
  }
}

/* Starts an RT kernel (job 0) on CUs [0, split) beside a padded BE part (job 1) on [split, CUs). */
static void rt_beside_padding(harness *h, atoll_cu_job rt, atoll_cu_job part, uint16_t split) {
  rt.cu_hi = split, rt.rt = 1;
  part.cu_lo = split, part.padding = 1;
  atoll_cu_add(h->m, 0, &rt);
  atoll_cu_add(h->m, 1, &part);
  atoll_cu_place(h->m);
}

/* Padded-launch layout: a job kept to CUs [0, 1) and one kept to [1, 4) run side by side, each
 * spread over its own CUs only: 2 blocks on one CU (D = 2 x 0.75) and 3 blocks on three CUs. */
static void test_cu_ranges(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < 2; e++) {
    harness h;
    start(&h, engines[e], &g);
    rt_beside_padding(&h, job(&h, 2, 2, THREE_QUARTERS, 1000), job(&h, 3, 2, THREE_QUARTERS, 400), 1);
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1500);
    assert_int_equal(h.done[1], 400);
    int64_t busy, rt_busy, be_busy;
    atoll_cu_busy(h.m, 2000, &busy, &rt_busy, &be_busy);
    assert_int_equal(rt_busy, 1500);         /* one CU for 1500 ns */
    assert_int_equal(be_busy, 3 * 400);      /* three CUs for 400 ns */
    assert_int_equal(atoll_cu_busy_padded(h.m), 3 * 400);
    assert_int_equal(busy, 1500 + 3 * 400);
    stop(&h);
  }
}

/* Ranges on a GPU larger than a CU set can name (400 CUs, as a preset may have): the fluid engine
 * cuts its zones at CU 330 and joins them again when the ranged kernels end, and an unranged
 * kernel then has the whole GPU (two blocks a CU at 0.75 each: 1500 ns). The boundary marks are
 * per CU edge of this GPU; a fixed CU-set-sized array overflowed here (ASan). */
static void test_ranges_on_a_large_gpu(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  g.cus = 400;
  harness h;
  start(&h, ATOLL_ENGINE_FLUID, &g);
  rt_beside_padding(&h, job(&h, 330, 1, THREE_QUARTERS, 1000), job(&h, 70, 1, THREE_QUARTERS, 1000), 330);
  run_until(&h, 1000);
  assert_int_equal(h.done[0], 1000);
  assert_int_equal(h.done[1], 1000);
  submit(&h, 2, job(&h, 800, 2, THREE_QUARTERS, 1000));
  run_until(&h, INT64_MAX);
  assert_int_equal(h.done[2], 2500);
  int64_t busy, rt_busy, be_busy;
  atoll_cu_busy(h.m, 2500, &busy, &rt_busy, &be_busy);
  assert_int_equal(busy, 400 * 1000 + 400 * 1500);
  stop(&h);
}

/* A CU set with a gap (a stream bound to "0,3" beside one bound to "1-2"): each kernel keeps to its
 * two CUs, so 4 blocks of each stack 2 per CU (D = 2 x 0.75: 1500 ns) and neither meets the other's
 * demand. Kept only to its range [0, 4), the first would spread one block per CU (1000 ns) and the
 * second would start beside it. Afterwards an unbound kernel has the whole GPU again. */
static void test_cu_sets_with_gaps(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  atoll_cuset ends = {{0}};
  atoll_cuset_add_range(&ends, 0, 0), atoll_cuset_add_range(&ends, 3, 3);
  for (int e = 0; e < 2; e++) {
    harness h;
    start(&h, engines[e], &g);
    atoll_cu_job a = job(&h, 4, 2, THREE_QUARTERS, 1000), b = a;
    a.cu_lo = 0, a.cu_hi = 4, a.only = &ends;
    b.cu_lo = 1, b.cu_hi = 3;
    atoll_cu_add(h.m, 0, &a);
    atoll_cu_add(h.m, 1, &b);
    atoll_cu_place(h.m);
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1500);
    assert_int_equal(h.done[1], 1500);
    int64_t busy, rt_busy, be_busy;
    atoll_cu_busy(h.m, 1500, &busy, &rt_busy, &be_busy);
    assert_int_equal(busy, 4 * 1500); /* each kernel's two CUs, no more */
    submit(&h, 2, job(&h, 4, 2, THREE_QUARTERS, 1000));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[2], 1500 + 1000); /* one block per CU of all four */
    stop(&h);
  }
}

static bool kill_all(void *ctx, uint32_t job) {
  (void)ctx;
  return job == 0;
}

/* A killed kernel frees its room at once, never reports done, and its pending completion is
 * ignored; a kernel waiting behind it starts at the kill. */
static void test_kill(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  for (int e = 0; e < ALL_ENGINES; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 8, 2, HALF, 1000));
    submit(&h, 1, job(&h, 4, 2, HALF, 600));
    atoll_evq_push(&h.q, 300, ATOLL_EV_DISPATCH, 0);
    int64_t t;
    uint64_t p;
    atoll_evq_pop(&h.q, &t, &p);
    atoll_cu_kill(h.m, kill_all, NULL);
    atoll_cu_place(h.m);
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], -1);
    assert_int_equal(h.started[1], 300);
    assert_int_equal(h.done[1], 900);
    stop(&h);
  }
}

/* Every kernel of every shipped MI50 model alone, through every engine, ends when kernel_timing's
 * emulation (what calibration solves against) says it does. */
/* Memory interference (docs/simulator.md, "Memory interference"): A on CUs 0-1 and B on CUs 2-3
 * share no CU, 4 blocks each at one per CU (u = 1), bt1 = 1000, each block drawing 0.4 of the
 * bandwidth. Alone each keeps 2 blocks resident (0.8, within the bandwidth): 2 waves, 2000 ns.
 * Together: A's first wave meets 0.8 (1000 ns); B's meets 1.6 (1600); A's second, at 1000, meets
 * B's 0.8 and its own (1600: done at 2600); B's second, at 1600, the same (done at 3200). */
static void test_memory_interference(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  const uint64_t mem = ATOLL_MEM_ONE * 2 / 5;
  for (int e = 0; e < 2; e++) {
    for (int pair = 0; pair < 2; pair++) {
      harness h;
      start(&h, engines[e], &g);
      atoll_cu_job a = job(&h, 4, 1, ATOLL_DEMAND_ONE, 1000), b = a;
      a.cu_hi = 2, b.cu_lo = 2;
      a.kt.mem = b.kt.mem = mem;
      submit(&h, 0, a);
      if (pair)
        submit(&h, 1, b);
      run_until(&h, INT64_MAX);
      assert_int_equal(h.done[0], pair ? 2600 : 2000);
      if (pair)
        assert_int_equal(h.done[1], 3200);
      stop(&h);
    }
    /* A kernel alone whose own traffic exceeds the bandwidth (4 CUs x 0.4 = 1.6) is not slowed by
     * it: its measured time already includes it. */
    harness h;
    start(&h, engines[e], &g);
    atoll_cu_job a = job(&h, 4, 1, ATOLL_DEMAND_ONE, 1000);
    a.kt.mem = mem;
    submit(&h, 0, a);
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0], 1000);
    stop(&h);
  }
}

static void test_shipped_kernels_alone(void **state) {
  (void)state;
  static const char *const models[] = {"vgg", "resnet152", "yolov3", "bert", "gpt2", "resnet", "alexnet", "resnet18"};
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_gpu g;
  assert_int_equal(atoll_gpu_load_file(&a, ATOLL_SOURCE_DIR "/scenarios/gpus/mi50.yaml", &g, &d), 0);
  uint32_t checked = 0;
  for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
    char path[512];
    snprintf(path, sizeof path, ATOLL_SOURCE_DIR "/scenarios/models/%s.yaml", models[i]);
    atoll_model md;
    if (atoll_model_load_file(&a, path, &g, &md, &d) != 0)
      fail_msg("%s: %s", path, d.msg);
    for (uint32_t op = 0; op < md.n_ops; op++) {
      atoll_kernel_timing kt;
      atoll_kernel_timing_prepare(&g, &md, op, &kt);
      if (kt.is_copy)
        continue;
      int64_t want = atoll_kernel_alone_ns(&g, &kt);
      for (int e = 0; e < ALL_ENGINES; e++) {
        harness h;
        start(&h, engines[e], &g);
        atoll_cu_job j = {.kt = kt, .cu_lo = 0, .cu_hi = (uint16_t)g.cus};
        submit(&h, 0, j);
        run_until(&h, INT64_MAX);
        if (h.done[0] != want)
          fail_msg("%s op %u (%u blocks): %s engine %lld ns alone, emulation %lld ns", models[i], op, kt.blocks,
                   atoll_sim_engine_name(engines[e]), (long long)h.done[0], (long long)want);
        stop(&h);
      }
      checked++;
    }
  }
  assert_cmp(checked, >, 1000);
  atoll_arena_free(&a);
}

/* The rate engine's rate change (cu_rate.c): B (A's shape) arrives at 200 beside A, as in
 * test_two_kernels_share, and both run at D = 1.5 from then on. A has 800 of its 1000 ns left, which
 * become 1200: A ends at 1400 (fluid and blocks: 1000, its blocks keep their duration). B has then
 * run 1200 of 1500 ns; its last 300 become 200 alone (D = 1): B ends at 1600 (fluid: 1700). */
static void test_rate_two_kernels_share(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  harness h;
  a_then_b_at_200(&h, 2, &g, 4);
  assert_int_equal(h.done[0], 1400);
  assert_int_equal(h.started[1], 200);
  assert_int_equal(h.done[1], 1600);
  stop(&h);
}

/* The rate engine with the co-running overlap (500000 ppm): B meets half of A's 0.75 and A half of
 * B's, D = 1.125 for both. A's 800 ns left become 900: done at 1100; B has run 900 of 1125, its last
 * 225 become 200 alone: done at 1300. */
static void test_rate_corun_overlap(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  g.corun_overlap_ppm = 500000;
  harness h;
  a_then_b_at_200(&h, 2, &g, 4);
  assert_int_equal(h.done[0], 1100);
  assert_int_equal(h.done[1], 1300);
  stop(&h);
}

/* Moves the harness's clock to t (an event of another kind, popped). */
static void clock_to(harness *h, int64_t t) {
  atoll_evq_push(&h->q, t, ATOLL_EV_DISPATCH, 0);
  int64_t at;
  uint64_t p;
  atoll_evq_pop(&h->q, &at, &p);
}

/* A third kernel changes the others' rates, and each completion speeds up the rest: A, B and C
 * (4 blocks each, one per CU, u = 0.75, bt1 = 1000, 4 per CU fit) arrive at 0, 200 and 600.
 *  0-200: A alone, D = 1 (1000 ns a wave): 200 done, 800 left.
 *  200-600: A and B at D = 1.5 (1500): A's 800 -> 1200, 400 run: A 800 left, B 1100 left.
 *  at 600 C arrives: all at D = 2.25 (2250): A 800 -> 1200, B 1100 -> 1650, C 2250. A ends at 1800.
 *  1800: B 450 and C 1050 left at 2250 -> 300 and 700 at 1500. B ends at 2100.
 *  2100: C 400 left at 1500 -> 267 (rounded) at 1000 alone. C ends at 2367. */
static void test_rate_third_kernel(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  harness h;
  start(&h, ATOLL_ENGINE_RATE, &g);
  submit(&h, 0, job(&h, 4, 4, THREE_QUARTERS, 1000));
  run_until(&h, 200);
  clock_to(&h, 200);
  submit(&h, 1, job(&h, 4, 4, THREE_QUARTERS, 1000));
  run_until(&h, 600);
  clock_to(&h, 600);
  submit(&h, 2, job(&h, 4, 4, THREE_QUARTERS, 1000));
  run_until(&h, INT64_MAX);
  assert_int_equal(h.started[2], 600);
  assert_int_equal(h.done[0], 1800);
  assert_int_equal(h.done[1], 2100);
  assert_int_equal(h.done[2], 2367);
  stop(&h);
}

/* A kernel's waves are implied: 20 blocks at 2 per CU alone (test_waves_alone) are 8, 8 and 4
 * blocks, yet the rate engine takes two events (the last, smaller wave's placement and the end)
 * where fluid takes one per wave; the result is the same. */
static void test_rate_waves_implied(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  uint32_t events[2];
  for (int e = 1; e < 3; e++) {
    harness h;
    start(&h, engines[e], &g);
    submit(&h, 0, job(&h, 20, 2, THREE_QUARTERS, 1000));
    uint32_t n = 0;
    int64_t t;
    uint64_t p;
    while (atoll_evq_pop(&h.q, &t, &p)) {
      atoll_cu_handle(h.m, p, t);
      n++;
    }
    assert_int_equal(h.done[0], 1500 + 1500 + 1000);
    events[e - 1] = n;
    stop(&h);
  }
  assert_int_equal(events[0], 3); /* fluid: one per wave */
  assert_int_equal(events[1], 2); /* rate: the last wave's placement, the end */
}

/* A high-priority kernel waiting for room takes the room of a normal kernel's wave as it ends (a
 * yield), while that kernel has more waves to run: A (16 blocks at 2 per CU, u = 0.5: waves of 8
 * blocks, D = 1, 1000 ns) fills the GPU; C (high, 8 blocks, 300 ns) comes at once and takes A's
 * room at 1000, when A's first wave ends; A's second wave then starts at 1300. */
static void test_rate_priority_at_wave_end(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  harness h;
  start(&h, ATOLL_ENGINE_RATE, &g);
  submit(&h, 0, job(&h, 16, 2, HALF, 1000));
  atoll_cu_job c = job(&h, 8, 2, HALF, 300);
  c.high = 1;
  submit(&h, 2, c);
  run_until(&h, INT64_MAX);
  assert_int_equal(h.started[2], 1000);
  assert_int_equal(h.done[2], 1300);
  assert_int_equal(h.done[0], 2300);
  stop(&h);
}

/* Memory interference in the rate engine: A and B (4 blocks each, one per CU, u = 0.5, bt1 = 1000,
 * each block drawing 0.4 of the bandwidth; alone each keeps 4 blocks resident, 1.6, its own cap).
 * A alone: 1000 ns a wave. When B comes at 200 the GPU's traffic is 3.2, twice A's cap: both run at
 * bt1 x 3.2 / 1.6 = 2000 (their CU demand, 0.5 + 0.5, would give 1000): A's 800 ns left become
 * 1600, done at 1800; B has run 1600 of 2000, its last 400 become 200 alone: done at 2000. */
static void test_rate_memory_interference(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  harness h;
  atoll_cu_job a;
  start(&h, ATOLL_ENGINE_RATE, &g);
  a = job(&h, 4, 2, HALF, 1000);
  a.kt.mem = ATOLL_MEM_ONE * 2 / 5;
  submit(&h, 0, a);
  run_until(&h, 200);
  clock_to(&h, 200);
  submit(&h, 1, a);
  run_until(&h, INT64_MAX);
  assert_int_equal(h.done[0], 1800);
  assert_int_equal(h.done[1], 2000);
  stop(&h);
}

/* A kernel whose waves use up its blocks without an event (16 blocks at 2 per CU: two full waves)
 * leaves the waiting list when it completes, so the stream's next kernel, with the same id, is
 * listed once: many of them one after another each run their two waves, 2000 ns. */
static void test_rate_same_id_again(void **state) {
  (void)state;
  atoll_gpu g = small_gpu();
  harness h;
  start(&h, ATOLL_ENGINE_RATE, &g);
  for (int k = 0; k < 4 * MAX_JOBS; k++) {
    h.started[0] = h.done[0] = -1;
    int64_t t0 = h.q.now;
    submit(&h, 0, job(&h, 16, 2, HALF, 1000));
    run_until(&h, INT64_MAX);
    assert_int_equal(h.done[0] - t0, 2000);
  }
  stop(&h);
}

static void test_engine_names(void **state) {
  (void)state;
  atoll_sim_engine e;
  assert_int_equal(atoll_sim_engine_from_name("fluid", &e), 0);
  assert_int_equal(e, ATOLL_ENGINE_FLUID);
  assert_int_equal(atoll_sim_engine_from_name("blocks", &e), 0);
  assert_int_equal(e, ATOLL_ENGINE_BLOCKS);
  assert_int_equal(atoll_sim_engine_from_name("rate", &e), 0);
  assert_int_equal(e, ATOLL_ENGINE_RATE);
  assert_int_equal(atoll_sim_engine_from_name("waves", &e), ATOLL_ENOENT);
  assert_string_equal(atoll_sim_engine_name(ATOLL_ENGINE_FLUID), "fluid");
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_kernel_alone),     cmocka_unit_test(test_waves_alone),
      cmocka_unit_test(test_fewer_blocks_than_slots), cmocka_unit_test(test_busy_follows_spread),
      cmocka_unit_test(test_two_kernels_share),
      cmocka_unit_test(test_corun_overlap),        cmocka_unit_test(test_corun_overlap_spares_only_others),
      cmocka_unit_test(test_waits_for_room),       cmocka_unit_test(test_priority_first),
      cmocka_unit_test(test_cu_ranges),            cmocka_unit_test(test_ranges_on_a_large_gpu),
      cmocka_unit_test(test_cu_sets_with_gaps),
      cmocka_unit_test(test_kill),                 cmocka_unit_test(test_memory_interference),
      cmocka_unit_test(test_shipped_kernels_alone), cmocka_unit_test(test_rate_two_kernels_share),
      cmocka_unit_test(test_rate_corun_overlap),   cmocka_unit_test(test_rate_third_kernel),
      cmocka_unit_test(test_rate_waves_implied),   cmocka_unit_test(test_rate_priority_at_wave_end),
      cmocka_unit_test(test_rate_memory_interference), cmocka_unit_test(test_rate_same_id_again),
      cmocka_unit_test(test_engine_names),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
