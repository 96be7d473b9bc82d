/* bench_native_preempt: preemption latency on the native CPU device (REEF Fig. 20), reset-based
 * against wait-based, as the number of best-effort kernels queued behind the running one grows.
 *
 * One CU (--cus 1 by default), its worker pinned to the last CPU. A closed-loop BE client runs a model of N spin kernels (each about --kernel-us long, a
 * preemption point every ~1 us of work); an RT client sends a one-kernel request at Poisson times.
 * Every RT arrival that finds BE work on the device is a preemption; its latency runs from the
 * arrival to the RT request's first kernel passing its prologue (the report's definition). With N
 * kernels per task and restarts at the interrupted kernel, the queue at a preemption is N less the
 * task's progress: the bench prints the mean queued (launched, not completed) BE commands it saw.
 *
 *   bench_native_preempt [--device NAME] [--cus N] [--kernel-us US] [--rate HZ] [--ms DURATION] [--no-pin]
 *                        [--pin-host] [--spin-us US] [--phases] [--rounds R] [--rt-priority]
 *
 * --device picks the back-end (default cpu; cpu-gpu, cuda, hip): on a GPU the CU count is the
 * device's own (--cus is ignored), and the spin kernels' length is calibrated on the host CPU (one
 * GPU thread spins at a comparable rate; the bench prints the BE model's measured time alone).
 *
 * The CU workers are pinned (to the last CPU for --cus 1); --pin-host also pins the scheduler thread
 * to the first CPU. --spin-us sets the scheduler's busy-poll window (nrun.h; -1: never park; default: the
 * runtime's 200 us, and never park with --pin-host). --phases
 * prints where each reset point's latency goes (arrival to HQ reset, to the kill's end, to the RT
 * kernel's start). BENCH_ONLY=N,policy runs one point; BENCH_TRACE=FILE writes its timeline.
 *
 * --rt-priority sets reset's option priority (docs/scenarios.md; wait has none): the RT queue is a
 * high-priority stream (on a GPU, the vendor's highest stream priority).
 *
 * --rounds R (default 3) runs every point R times, in rounds whose order alternates (10 .. 10000,
 * then 10000 .. 10): on a shared 2-core machine a point's p50 moves by 2x between runs of the same
 * code as the other threads land on one CPU or the other, and one point per N would make the ratio
 * between two such draws.
 *
 * The preemption-latency options (docs/native-gpu.md, "Preemption latency options"), each off by
 * default, so that one build measures every one of them:
 *   --dq N            the DQ capacity of every stream (the policy's dq_capacity; reset's default 4)
 *   --dense-points    extra preemption points inside a tile (ak.h AK_DENSE_POINT)
 *   --kill-poll S     loops poll the kill word 2^S times as often (the spin kernel's points)
 *   --rt-sm-reserve N the RT stream on the first N CUs, BE on the rest (atoll's option; implies
 *                     --rt-priority; CUDA rounds N up, docs/partitions.md)
 *   --rt-top-priority the RT queue on the device's highest stream priority (implies --rt-priority)
 *   --persistent-be   BE kernels as persistent blocks yielding at tile boundaries (GPUs)
 *   --reset-only      skip the wait policy's points (half the time; its figures and ratios print -)
 *
 * Prints one row per (round, N, policy): preemptions, mean queued, p50 and p99 latency in us, and
 * BE kernels run to the end per second (the options' cost in throughput); where the back-end
 * timestamps the steps (backend.h preempt_times: cpu, cpu-gpu, cuda, hip), the p50 of each step of
 * the critical path (run/preempt_path.h: flag write, DQ drain, kill, RT dispatch) and how many
 * preemptions had one. Then each point's median over the rounds and the ratios the acceptance
 * names, from those medians and within each round: reset p50 at N=10000 over N=10, and reset p99
 * over wait p99. A point that did not run (--reset-only, BENCH_ONLY) or saw no preemption has no
 * latency: it prints -, stays out of the medians, and a ratio needing it prints -. A median of an
 * even count of rounds is the mean of the middle two.
 *
 * Numbers are checked (bad input exits 2 with the usage): --cus and --rt-sm-reserve 1..256,
 * --kernel-us and --rate above 0 (up to 10^6), --ms 1..86400000, --spin-us -1..10^6, --dq 1..65536. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/cuset.h"
#include "atoll/error.h"
#include "bench/bench_util.h"
#include "native/models/nm_build.h"
#include "native/models/nmodel.h"
#include "native/runtime/nrun.h"

/* --- the models: a BE chain of N spin kernels, a one-kernel RT model --- */

typedef struct spin_model {
  atoll_nmodel nm;
  atoll_tensor tensors[2];
  atoll_nop *ops;
  atoll_op *pops;
  atoll_scenario_model sm;
} spin_model;

static void no_weights(void *const *h) { (void)h; }
static void one_input(uint64_t r, void *buf) { *(float *)buf = (float)(r % 7); }

static atoll_nop copy_op(atoll_op_kind k, uint32_t t) {
  atoll_nop o;
  memset(&o, 0, sizeof o);
  o.kind = k;
  for (int i = 0; i < AK_MAX_PTRS; i++)
    o.ptr[i] = ATOLL_NARG_NONE;
  o.ptr[0] = t;
  return o;
}

/* [h2d in,] n spin kernels of `iters` iterations (one block, one thread)[, d2h out]. The RT model
 * has no copies, so its first command is its kernel: the latency ends when that kernel starts. */
static void build(spin_model *m, const char *name, uint32_t n, uint32_t iters, int copies) {
  memset(m, 0, sizeof *m);
  m->tensors[0] = (atoll_tensor){.name = "in", .bytes = 4, .kind = ATOLL_TENSOR_INPUT, .dtype = "float32"};
  m->tensors[1] = (atoll_tensor){.name = "out", .bytes = 4, .kind = ATOLL_TENSOR_OUTPUT, .dtype = "float32"};
  uint32_t first = copies ? 1 : 0, n_ops = n + 2 * first;
  m->ops = calloc(n_ops, sizeof *m->ops);
  m->pops = calloc(n_ops, sizeof *m->pops);
  if (copies) {
    m->ops[0] = copy_op(ATOLL_OP_MEMCPY_H2D, 0);
    m->ops[n_ops - 1] = copy_op(ATOLL_OP_MEMCPY_D2H, 1);
  }
  for (uint32_t i = first; i < first + n; i++)
    atoll__nm_spin_op(&m->ops[i], 1, (int32_t)iters);
  m->nm = (atoll_nmodel){.name = name, .tensors = m->tensors, .n_tensors = 2, .ops = m->ops, .n_ops = n_ops,
                         .input = 0, .output = 1, .init_weights = no_weights, .make_input = one_input};
  /* Its profile: every op idempotent (a spin rewrites its output), times nominal: the native run
   * does not use them, and no padding is involved. */
  for (uint32_t i = 0; i < n_ops; i++) {
    atoll_op *p = &m->pops[i];
    p->kind = m->ops[i].kind;
    if (p->kind != ATOLL_OP_KERNEL) {
      p->tensor = m->ops[i].ptr[0];
      p->bytes = 4;
      continue;
    }
    p->name = "spin";
    p->shape = (atoll_kernel_shape){.grid = {1, 1, 1}, .block = {1, 1, 1}, .occupancy = 1, .time_ns = 100000,
                                    .block_time_ns = 100000};
    p->idem = ATOLL_IDEM_YES;
  }
  m->sm = (atoll_scenario_model){.name = name, .path = "(bench)",
                                 .model = {.name = name, .gpu = "cpu-bench", .native = name, .tensors = m->tensors,
                                           .n_tensors = 2, .ops = m->pops, .n_ops = n_ops}};
}

static void destroy(spin_model *m) {
  free(m->ops);
  free(m->pops);
}

/* --- what the core says about each preempted task --- */

typedef struct tap_state {
  uint64_t queued_sum, tasks;
} tap_state;

static void on_preempted(void *ctx, uint32_t client, uint64_t req, int32_t interrupted, uint32_t restart,
                         uint32_t done_before, uint32_t launched_before, int64_t now) {
  (void)client, (void)req, (void)interrupted, (void)restart, (void)now;
  tap_state *t = ctx;
  t->queued_sum += launched_before - done_before;
  t->tasks++;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

enum { MAX_ROUNDS = 9 };

/* A figure in us as "%*.1f", or "-" at that width when there is none. */
static const char *us_field(char buf[32], int width, bool have, double ns) {
  if (have)
    snprintf(buf, 32, "%*.1f", width, ns / 1e3);
  else
    snprintf(buf, 32, "%*s", width, "-");
  return buf;
}

/* a / b as "%.*f", or "-" when either is missing (or b is 0). */
static const char *ratio_field(char buf[32], int digits, bool have_a, double a, bool have_b, double b) {
  if (have_a && have_b && b != 0)
    snprintf(buf, 32, "%.*f", digits, a / b);
  else
    snprintf(buf, 32, "-");
  return buf;
}

static int64_t pct(const int64_t *v, uint32_t n, double p);

/* Sorts v[0..n) and stores its p50, p90 and p99 in out (nothing when v is NULL or empty). */
static void percentiles(int64_t *v, uint32_t n, int64_t out[3]) {
  if (!v || n == 0)
    return;
  qsort(v, n, sizeof *v, cmp_i64);
  out[0] = pct(v, n, 50), out[1] = pct(v, n, 90), out[2] = pct(v, n, 99);
}

static int64_t pct(const int64_t *v, uint32_t n, double p) {
  if (n == 0)
    return 0;
  uint32_t k = (uint32_t)ceil(p / 100.0 * n);
  return v[k ? k - 1 : 0];
}

typedef struct point {
  bool ran;                /* run_point filled it (--reset-only and BENCH_ONLY skip points) */
  uint32_t preemptions;
  double queued;
  int64_t p50, p99;
  uint32_t n_phased;       /* reset points with --phases: preemptions with all three marks */
  int64_t phase[3][3];     /* [phase][p50, p90, p99] */
  uint32_t n_unkilled;     /* reset points with --phases: preemptions without an HQ reset or a kill */
  int64_t unkilled[3];     /* their latency: p50, p90, p99 */
  double be_per_s;         /* BE kernels that ran to the end per second of the run (see run_point) */
  uint32_t n_path;         /* preemptions with a device-side critical path */
  int64_t path_p50[4];     /* its steps' p50 */
} point;

/* The scheduler's busy-poll window (nrun.h spin_ns): 0 the runtime's default, < 0 never park.
 * With --pin-host the scheduler owns the first CPU and never parks, as REEF's busy-polling
 * scheduler: parked, each RT arrival in a quiet stretch would wait for its wake-up. */
static int64_t spin_ns = 0;
static int spin_given = 0;
static int phases = 0;
static const char *device = "cpu";
static int rt_priority = 0;
static uint32_t dq_capacity = 0; /* 0: the policy's */
static uint32_t rt_reserve = 0;
static int reset_only = 0;
static atoll_npreempt_tuning tuning;

static int is_cpu_device(void) { return strncmp(device, "cpu", 3) == 0; }

static int run_point(uint32_t n, atoll_policy_kind policy, uint32_t cus, uint32_t iters, double rate, int64_t ms,
                     int pin, int pin_host, point *out) {
  spin_model be, rt;
  build(&be, "be_chain", n, iters, 1);
  build(&rt, "rt_one", 1, 1000, 0);
  atoll_scenario_model models[2] = {rt.sm, be.sm};
  atoll_client clients[2] = {
      {.name = "rt", .model = 0, .cls = ATOLL_CLASS_RT, .arrival = {.kind = ATOLL_ARRIVAL_POISSON, .rate_hz = rate}},
      {.name = "be", .model = 1, .cls = ATOLL_CLASS_BE, .arrival = {.kind = ATOLL_ARRIVAL_CLOSED}}};
  atoll_gpu g = {.name = "cpu-bench", .vendor = "cpu", .cus = cus, .max_blocks_per_cu = 1, .max_threads_per_cu = 1024,
                 .registers_per_cu = 65536, .shared_bytes_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 1,
                 .costs = {.copy_bytes_per_us = 1000}};
  atoll_scenario s = {.path = "(bench)", .gpu = g, .models = models, .n_models = 2, .clients = clients,
                      .n_clients = 2,
                      .policy = {.kind = policy, .async_reclaim = true, .reset_cu = true, .priority = rt_priority != 0,
                                 .dq_capacity = dq_capacity},
                      .duration_ns = ms * 1000000, .warmup_ns = ms * 100000, .seed = 42};
  const atoll_nmodel *nm[2] = {&rt.nm, &be.nm};
  int64_t alone[2] = {100000, 100000};
  tap_state ts = {0};
  atoll_core_observer tap = {.task_preempted = on_preempted};
  atoll_native_opts o = {.device = device, .cus = is_cpu_device() ? cus : 0, .pin_threads = pin != 0, .sched_cpu = pin_host ? 0 : -1, .spin_ns = spin_ns,
                         .nmodels = nm, .standalone_ns = alone, .tap = &tap, .tap_ctx = &ts, .tuning = tuning,
                         .rt_reserve_cus = rt_reserve};
  atoll_trace trace;
  const char *trace_path = getenv("BENCH_TRACE"); /* a timeline of the run (with BENCH_ONLY) */
  if (trace_path && atoll_trace_open(&trace, trace_path) == 0)
    o.trace = &trace;
  atoll_run_results res;
  char err[256];
  atoll_native_info info;
  int rc = atoll_native_run(&s, &o, &res, &info, err, sizeof err);
  if (o.trace)
    atoll_trace_close(o.trace);
  if (rc) {
    fprintf(stderr, "bench_native_preempt: %s (%s)\n", atoll_strerror(rc), err);
    destroy(&be);
    destroy(&rt);
    return rc;
  }
  if (getenv("BENCH_DEBUG")) {
    uint32_t done[2] = {0, 0};
    for (int c = 0; c < 2; c++)
      for (uint32_t i = 0; i < res.clients[c].n; i++)
        done[c] += res.clients[c].req[i].done_ns >= 0;
    fprintf(stderr, "debug: rt %u/%u done, be %u/%u done, %u preemption records\n", done[0], res.clients[0].n, done[1],
            res.clients[1].n, res.n_preemptions);
  }
  int64_t *lat = malloc((res.n_preemptions + 1) * sizeof *lat);
  uint32_t k = 0;
  for (uint32_t i = 0; i < res.n_preemptions; i++)
    if (res.preemptions[i].at_ns >= s.warmup_ns && res.preemptions[i].latency_ns > 0)
      lat[k++] = res.preemptions[i].latency_ns;
  qsort(lat, k, sizeof *lat, cmp_i64);
  point pt = {.ran = true};
  if (phases && policy == ATOLL_POLICY_RESET) {
    /* Where a reset preemption's time goes: arrival -> HQ reset done (the scheduler picking the
     * arrival up), -> CU kill done, -> the RT kernel's prologue. */
    uint32_t cap = res.n_preemptions + 1, j = 0, u = 0;
    int64_t *ph[4] = {malloc(cap * sizeof(int64_t)), malloc(cap * sizeof(int64_t)), malloc(cap * sizeof(int64_t)),
                      malloc(cap * sizeof(int64_t))};
    for (uint32_t i = 0; ph[0] && ph[1] && ph[2] && ph[3] && i < res.n_preemptions; i++) {
      const atoll_preemption_record *p = &res.preemptions[i];
      if (p->at_ns < s.warmup_ns || p->latency_ns <= 0)
        continue;
      if (p->cu_kill_ns > 0 && p->hq_reset_ns > 0) {
        ph[0][j] = p->hq_reset_ns;
        ph[1][j] = p->cu_kill_ns - p->hq_reset_ns;
        ph[2][j++] = p->latency_ns - p->cu_kill_ns;
      } else {
        ph[3][u++] = p->latency_ns; /* nothing dropped from the HQ (all in the DQ), or nothing killed */
      }
    }
    pt.n_phased = j;
    pt.n_unkilled = u;
    for (int q = 0; q < 3; q++)
      percentiles(ph[q], j, pt.phase[q]);
    percentiles(ph[3], u, pt.unkilled);
    for (int q = 0; q < 4; q++)
      free(ph[q]);
  }
  /* The device-side critical path's steps, over the preemptions that have one. */
  int64_t *steps[4];
  for (int q = 0; q < 4; q++)
    steps[q] = malloc((res.n_preemptions + 1) * sizeof(int64_t));
  for (uint32_t i = 0; steps[0] && steps[1] && steps[2] && steps[3] && i < res.n_preemptions; i++) {
    const atoll_preemption_record *p = &res.preemptions[i];
    if (p->at_ns < s.warmup_ns || p->latency_ns <= 0 || p->path_ns[0] + p->path_ns[1] + p->path_ns[2] + p->path_ns[3] == 0)
      continue;
    for (int q = 0; q < 4; q++)
      steps[q][pt.n_path] = p->path_ns[q];
    pt.n_path++;
  }
  for (int q = 0; q < 4; q++) {
    int64_t tmp[3] = {0, 0, 0};
    percentiles(steps[q], pt.n_path, tmp);
    pt.path_p50[q] = tmp[0];
    free(steps[q]);
  }
  /* The BE work the device did: launches that ran to the end, less the RT kernels (one per RT
   * request that started) and the BE requests' two copies (their input's, when the request started,
   * and their output's, when it completed). A BE request takes N kernels, so its count alone says
   * nothing at 10,000 kernels in a short point; killed kernels (redone later) are not counted. */
  uint64_t rt_started = 0, be_started = 0, be_done = 0;
  for (uint32_t i = 0; i < res.clients[0].n; i++)
    rt_started += res.clients[0].req[i].start_ns >= 0;
  for (uint32_t i = 0; i < res.clients[1].n; i++)
    be_started += res.clients[1].req[i].start_ns >= 0, be_done += res.clients[1].req[i].done_ns >= 0;
  const uint64_t ran = info.stats.launches - info.stats.evicted - info.stats.killed - info.stats.faults;
  const uint64_t other = rt_started + be_started + be_done;
  pt.be_per_s = (double)(ran > other ? ran - other : 0) / ((double)s.duration_ns / 1e9);
  pt.preemptions = k;
  pt.queued = ts.tasks ? (double)ts.queued_sum / (double)ts.tasks : 0;
  pt.p50 = pct(lat, k, 50);
  pt.p99 = pct(lat, k, 99);
  *out = pt;
  free(lat);
  atoll_run_results_free(&res);
  destroy(&be);
  destroy(&rt);
  return 0;
}

/* Iterations of the spin kernel (one thread) that take about `us` here: the fastest of 20 runs,
 * which a busy machine slows least. */
static uint32_t calibrate(double us) {
  float out = 0;
  ak_args a = {.p = {&out}, .i = {200000, 1000}};
  ak_ctx c = {.block = 0, .grid = 1, .threads = 1};
  double best = INFINITY;
  for (int i = 0; i < 20; i++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ak_run_block(AK_K_SPIN, &a, &c);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    if (ns < best)
      best = ns;
  }
  double per_iter = best / 200000.0;
  double iters = us * 1000.0 / (per_iter > 0 ? per_iter : 1);
  /* The spin kernel takes its count as an int32: a long kernel on a fast CPU stops at its limit. */
  return iters < 1 ? 1 : iters > INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)iters;
}

/* A point has a latency figure when it ran and saw a preemption: 0.0 would claim one. */
static bool has_latency(const point *x) { return x->ran && x->preemptions > 0; }

_Static_assert(MAX_ROUNDS == 9, "the usage line says --rounds 1..9");
static const char usage[] =
    "bench_native_preempt [--device NAME] [--cus N] [--kernel-us US] [--rate HZ] [--ms DURATION] [--no-pin] "
    "[--pin-host] [--spin-us US] [--phases] [--rounds 1..9] [--rt-priority] [--dq N] [--dense-points] "
    "[--kill-poll 0..8] [--rt-sm-reserve N] [--rt-top-priority] [--persistent-be] [--reset-only]";

int main(int argc, char **argv) {
  uint32_t cus = 1;
  double kernel_us = 500, rate = 200;
  int64_t ms = 3000;
  int pin = 1, pin_host = 0, rounds = 3;
  static const char prog[] = "bench_native_preempt";
  /* Each option's value is read strictly and in its range before it is stored (bench_util.h). */
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    long long v;
    double d;
    if (strcmp(opt, "--cus") == 0) {
      if (!bench_opt_int(prog, argc, argv, &i, 1, ATOLL_CUSET_MAX, &v))
        return bench_usage(usage);
      cus = (uint32_t)v;
    } else if (strcmp(opt, "--device") == 0) {
      if (!(device = bench_opt_value(prog, argc, argv, &i)))
        return bench_usage(usage);
    } else if (strcmp(opt, "--kernel-us") == 0) {
      if (!bench_opt_double(prog, argc, argv, &i, 0, true, 1e6, &kernel_us))
        return bench_usage(usage);
    } else if (strcmp(opt, "--rate") == 0) {
      if (!bench_opt_double(prog, argc, argv, &i, 0, true, 1e6, &rate))
        return bench_usage(usage);
    } else if (strcmp(opt, "--ms") == 0) { /* a day at most: ms * 10^6 ns stays far inside int64 */
      if (!bench_opt_int(prog, argc, argv, &i, 1, 86400000, &v))
        return bench_usage(usage);
      ms = v;
    } else if (strcmp(opt, "--no-pin") == 0) {
      pin = 0;
    } else if (strcmp(opt, "--pin-host") == 0) {
      pin_host = 1;
    } else if (strcmp(opt, "--spin-us") == 0) { /* -1: never park */
      if (!bench_opt_double(prog, argc, argv, &i, -1, false, 1e6, &d))
        return bench_usage(usage);
      spin_ns = (int64_t)(d * 1000), spin_given = 1;
    } else if (strcmp(opt, "--phases") == 0) {
      phases = 1;
    } else if (strcmp(opt, "--rt-priority") == 0) {
      rt_priority = 1;
    } else if (strcmp(opt, "--dq") == 0) {
      if (!bench_opt_int(prog, argc, argv, &i, 1, 65536, &v))
        return bench_usage(usage);
      dq_capacity = (uint32_t)v;
    } else if (strcmp(opt, "--rt-top-priority") == 0) {
      tuning.top_priority = 1, rt_priority = 1;
    } else if (strcmp(opt, "--persistent-be") == 0) {
      tuning.persistent_be = 1;
    } else if (strcmp(opt, "--reset-only") == 0) {
      reset_only = 1;
    } else if (strcmp(opt, "--dense-points") == 0) {
      tuning.dense_points = 1;
    } else if (strcmp(opt, "--kill-poll") == 0) {
      if (!bench_opt_int(prog, argc, argv, &i, 0, 8, &v))
        return bench_usage(usage);
      tuning.kill_poll_shift = (uint8_t)v;
    } else if (strcmp(opt, "--rt-sm-reserve") == 0) {
      if (!bench_opt_int(prog, argc, argv, &i, 1, ATOLL_CUSET_MAX, &v))
        return bench_usage(usage);
      rt_reserve = (uint32_t)v, rt_priority = 1;
    } else if (strcmp(opt, "--rounds") == 0) {
      if (!bench_opt_int(prog, argc, argv, &i, 1, MAX_ROUNDS, &v))
        return bench_usage(usage);
      rounds = (int)v;
    } else {
      fprintf(stderr, "%s: unknown argument '%s'\n", prog, opt);
      return bench_usage(usage);
    }
  }
  if (pin_host && !spin_given)
    spin_ns = -1;
  uint32_t iters = calibrate(kernel_us);
  printf("native preemption latency on device %s: %u CU(s)%s%s, BE spin kernels of ~%g us (%u iterations), "
         "RT Poisson %g Hz, %lld ms per point (first 10%% warm-up), scheduler busy-polls %s, %d round(s)%s\n",
         device, cus, pin ? ", CU threads pinned" : "", pin_host ? ", scheduler pinned" : "", kernel_us, iters, rate,
         (long long)ms, spin_ns < 0 ? "always" : spin_ns == 0 ? "200 us after each event" : "after each event", rounds,
         rt_priority ? ", RT queue high-priority" : "");
  printf("options: dq %u%s, dense points %s, kill poll x%u, RT SM reserve %u, RT top priority %s, persistent BE %s\n",
         dq_capacity, dq_capacity ? "" : " (the policy's)", tuning.dense_points ? "on" : "off", 1u << tuning.kill_poll_shift,
         rt_reserve, tuning.top_priority ? "on" : "off", tuning.persistent_be ? "on" : "off");
  printf("%5s %8s %7s %12s %12s %10s %10s %10s\n", "round", "kernels", "policy", "preemptions", "mean_queued", "p50_us",
         "p99_us", "be_kern_s");
  static const uint32_t ns[4] = {10, 100, 1000, 10000};
  point pt[MAX_ROUNDS][4][2];
  memset(pt, 0, sizeof pt);
  const char *only = getenv("BENCH_ONLY"); /* "N,policy": one point, for investigation */
  for (int round = 0; round < rounds; round++)
    for (int step = 0; step < 4; step++) {
      /* Odd rounds run the points in reverse: a drift of the machine's state during the run then
       * weighs on the small and the large queues alike. */
      int k = round % 2 ? 3 - step : step;
      for (int p = 0; p < (reset_only ? 1 : 2); p++) {
        if (only) {
          char want[32];
          snprintf(want, sizeof want, "%u,%s", ns[k], p == 0 ? "reset" : "wait");
          if (strcmp(only, want) != 0)
            continue;
        }
        atoll_policy_kind pol = p == 0 ? ATOLL_POLICY_RESET : ATOLL_POLICY_WAIT;
        point *x = &pt[round][k][p];
        if (run_point(ns[k], pol, cus, iters, rate, ms, pin, pin_host, x) != 0)
          return 1;
        char f50[32], f99[32];
        printf("%5d %8u %7s %12u %12.1f %s %s %10.1f\n", round + 1, ns[k], atoll_policy_name(pol), x->preemptions,
               x->queued, us_field(f50, 10, has_latency(x), (double)x->p50),
               us_field(f99, 10, has_latency(x), (double)x->p99), x->be_per_s);
        if (x->n_path)
          printf("               path p50: flag write %7.1f  DQ drain %7.1f  kill %7.1f  RT dispatch %7.1f us (%u preemptions)\n",
                 x->path_p50[0] / 1e3, x->path_p50[1] / 1e3, x->path_p50[2] / 1e3, x->path_p50[3] / 1e3, x->n_path);
        static const char *phase_names[3] = {"arrival to HQ reset", "HQ reset to kill done", "kill done to RT start"};
        for (int q = 0; q < 3 && x->n_phased; q++)
          printf("               phase %-22s p50 %7.1f  p90 %7.1f  p99 %7.1f us (%u preemptions)\n", phase_names[q],
                 x->phase[q][0] / 1e3, x->phase[q][1] / 1e3, x->phase[q][2] / 1e3, x->n_phased);
        if (x->n_unkilled)
          printf("               empty HQ or no kill: latency p50 %7.1f  p90 %7.1f  p99 %7.1f us (%u preemptions)\n",
                 x->unkilled[0] / 1e3, x->unkilled[1] / 1e3, x->unkilled[2] / 1e3, x->n_unkilled);
        fflush(stdout);
      }
    }
  /* Each point's figures are the medians over the rounds that have them; the ratios are taken from
   * those medians and, to show their spread, within each round. */
  double med[4][2][2]; /* [N][policy][p50, p99] */
  bool have[4][2];     /* [N][policy]: some round has the point's latency */
  for (int k = 0; k < 4; k++)
    for (int p = 0; p < 2; p++) {
      double v50[MAX_ROUNDS], v99[MAX_ROUNDS];
      size_t m = 0;
      for (int round = 0; round < rounds; round++)
        if (has_latency(&pt[round][k][p]))
          v50[m] = (double)pt[round][k][p].p50, v99[m++] = (double)pt[round][k][p].p99;
      have[k][p] = m > 0;
      med[k][p][0] = m ? bench_median(v50, m) : 0;
      med[k][p][1] = m ? bench_median(v99, m) : 0;
    }
  printf("median of %d round(s):\n", rounds);
  for (int k = 0; k < 4; k++) {
    double thr[MAX_ROUNDS];
    size_t m = 0;
    for (int round = 0; round < rounds; round++)
      if (pt[round][k][0].ran)
        thr[m++] = pt[round][k][0].be_per_s;
    char r50[32], r99[32], w50[32], w99[32], be[32];
    if (m)
      snprintf(be, sizeof be, "%.1f", bench_median(thr, m));
    else
      snprintf(be, sizeof be, "-");
    printf("  %5u kernels: reset p50 %s p99 %s us, wait p50 %s p99 %s us, reset BE %s kernels/s\n", ns[k],
           us_field(r50, 7, have[k][0], med[k][0][0]), us_field(r99, 7, have[k][0], med[k][0][1]),
           us_field(w50, 7, have[k][1], med[k][1][0]), us_field(w99, 7, have[k][1], med[k][1][1]), be);
  }
  char r[32];
  printf("reset p50 at 10000 kernels / at 10: %s x",
         ratio_field(r, 2, have[3][0], med[3][0][0], have[0][0], med[0][0][0]));
  for (int round = 0; round < rounds && rounds > 1; round++) {
    const point *hi = &pt[round][3][0], *lo = &pt[round][0][0];
    printf("%s%s", round ? ", " : " (rounds: ",
           ratio_field(r, 2, has_latency(hi), (double)hi->p50, has_latency(lo), (double)lo->p50));
  }
  printf("%s\n", rounds > 1 ? ")" : "");
  for (int k = 0; k < 4; k++) {
    printf("reset p99 / wait p99 at %u kernels: %s", ns[k],
           ratio_field(r, 3, have[k][0], med[k][0][1], have[k][1], med[k][1][1]));
    for (int round = 0; round < rounds && rounds > 1; round++) {
      const point *rs = &pt[round][k][0], *wt = &pt[round][k][1];
      printf("%s%s", round ? ", " : " (rounds: ",
             ratio_field(r, 3, has_latency(rs), (double)rs->p99, has_latency(wt), (double)wt->p99));
    }
    printf("%s\n", rounds > 1 ? ")" : "");
  }
  return 0;
}
