/* bench_kernels: the kernel library's single-thread speed on this CPU, and what its preemption
 * points cost. Not a test: it prints figures (docs/native-kernels.md quotes them).
 *
 * Each case runs one launch (all blocks on this thread) in three builds of the same source:
 *   points   the library as shipped, with a kill word (clear) that every point loads;
 *   null     the same build with no kill word (ctx->kill == NULL: the point tests a pointer);
 *   none     ak_dispatch.c compiled into this binary with AK_NO_PREEMPT_POINTS (the points vanish).
 * Runs are interleaved (points, null, none, points, ...) so that machine noise hits all three
 * alike; the figures are medians over the rounds, the overhead is the median of the per-round
 * ratios points/none, and min_ratio compares the fastest run of each build (GFLOP/s too comes from
 * the fastest run).
 *
 * Kill latency: a thread runs the case's launch over and over; after a random 0.2-2 ms the main
 * thread sets the kill word, and the figure is the time from that store to the block's return with
 * AK_KILLED (the wait for the next preemption point, plus the cache-line transfer). Then each
 * native model's reference run is timed.
 *
 *   bench_kernels [ROUNDS]        (default 31, at most 1000)
 *   bench_kernels --one CASE points|null|none
 *       runs one launch of case CASE (0-based, in the printed order) in one build: for instruction
 *       counts under callgrind (bench/kernel_instructions.sh), which the machine's load does not
 *       disturb; a CASE past the last exits 2, which ends kernel_instructions.sh's loop. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "native/kernels/ak.h"
#include "native/models/nmodel.h"

int ak_run_block_nopp(uint32_t kernel, const ak_args *a, const ak_ctx *c);

typedef int (*dispatch_fn)(uint32_t, const ak_args *, const ak_ctx *);

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double median(double *v, int n) { return bench_median(v, (size_t)n); }

static float *buffer(size_t n) {
  float *p = malloc(n * sizeof *p);
  if (!p)
    exit(1);
  for (size_t i = 0; i < n; i++)
    p[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
  return p;
}

typedef struct bench_case {
  const char *name;
  uint32_t kernel, grid, threads;
  ak_args a;
  double flop; /* 0 when not meaningful */
} bench_case;

static int64_t time_launch(dispatch_fn run, const bench_case *b, const volatile uint32_t *kill) {
  int64_t t0 = now_ns();
  for (uint32_t blk = 0; blk < b->grid; blk++) {
    ak_ctx c = {.block = blk, .grid = b->grid, .threads = b->threads, .kill = kill};
    if (run(b->kernel, &b->a, &c) != AK_DONE) {
      fprintf(stderr, "bench_kernels: %s failed\n", b->name);
      exit(1);
    }
  }
  return now_ns() - t0;
}

#define CEIL(a, b) (((a) + (b)-1) / (b))

static bench_case gemm_case(const char *name, uint32_t M, uint32_t N, uint32_t K, uint32_t tm, uint32_t tn) {
  bench_case b = {.name = name, .kernel = AK_K_GEMM, .threads = 256, .flop = 2.0 * M * N * K};
  b.a.p[0] = buffer((size_t)M * K), b.a.p[1] = buffer((size_t)K * N), b.a.p[2] = buffer((size_t)M * N);
  b.a.p[3] = buffer(N);
  int32_t v[15] = {(int32_t)M, (int32_t)N, (int32_t)K, (int32_t)K, 1, (int32_t)N, 1, (int32_t)N, 1, 0, 0, 0,
                   ak_bits(1.0f), (int32_t)tm, (int32_t)tn};
  memcpy(b.a.i, v, sizeof v);
  b.grid = CEIL(M, tm) * CEIL(N, tn);
  return b;
}

static bench_case conv_case(const char *name, uint32_t Cin, uint32_t H, uint32_t Cout, uint32_t tc, uint32_t tr) {
  bench_case b = {.name = name, .kernel = AK_K_CONV2D, .threads = 256, .flop = 2.0 * Cout * H * H * Cin * 9};
  b.a.p[0] = buffer((size_t)Cin * H * H), b.a.p[1] = buffer((size_t)Cout * Cin * 9), b.a.p[2] = buffer(Cout);
  b.a.p[3] = buffer((size_t)Cout * H * H);
  int32_t v[12] = {(int32_t)Cin, (int32_t)H, (int32_t)H, (int32_t)Cout, 3, 3, 1, 1, (int32_t)H, (int32_t)H,
                   (int32_t)tc, (int32_t)tr};
  memcpy(b.a.i, v, sizeof v);
  b.grid = CEIL(Cout, tc) * CEIL(H, tr);
  return b;
}

static bench_case elt_case(const char *name, uint32_t kernel, uint32_t n) {
  bench_case b = {.name = name, .kernel = kernel, .threads = 256};
  b.a.p[0] = buffer(n), b.a.p[1] = buffer(n), b.a.p[2] = buffer(n);
  if (kernel == AK_K_BIAS_RELU) {
    int32_t v[5] = {(int32_t)n, 64, (int32_t)(n / 64), 1, 4096};
    memcpy(b.a.i, v, sizeof v);
    b.grid = CEIL(n, 4096);
  } else {
    b.a.i[0] = (int32_t)n, b.a.i[1] = 4096;
    b.grid = CEIL(n, 4096);
  }
  return b;
}

static bench_case rows_case(const char *name, uint32_t kernel, uint32_t rows, uint32_t cols) {
  bench_case b = {.name = name, .kernel = kernel, .threads = 64};
  size_t n = (size_t)rows * cols;
  if (kernel == AK_K_SOFTMAX) {
    b.a.p[0] = buffer(n), b.a.p[1] = buffer(n);
    b.a.i[0] = (int32_t)rows, b.a.i[1] = (int32_t)cols, b.a.i[2] = 16;
  } else {
    b.a.p[0] = buffer(n), b.a.p[1] = buffer(cols), b.a.p[2] = buffer(cols), b.a.p[3] = buffer(n);
    b.a.i[0] = (int32_t)rows, b.a.i[1] = (int32_t)cols, b.a.i[2] = ak_bits(1e-5f), b.a.i[3] = 16;
  }
  b.grid = CEIL(rows, 16);
  return b;
}

static bench_case pool_case(const char *name, uint32_t kernel, uint32_t C, uint32_t H) {
  bench_case b = {.name = name, .kernel = kernel, .threads = 256};
  b.a.p[0] = buffer((size_t)C * H * H), b.a.p[1] = buffer((size_t)C * H * H / 4);
  uint32_t O = H / 2, n = C * O * O;
  int32_t v[8] = {(int32_t)C, (int32_t)H, (int32_t)H, 2, 2, (int32_t)O, (int32_t)O, 256};
  memcpy(b.a.i, v, sizeof v);
  b.grid = CEIL(n, 256);
  return b;
}

typedef struct killed_run {
  const bench_case *b;
  uint32_t kill;
  int64_t returned_ns;
} killed_run;

static void *run_until_killed(void *p) {
  killed_run *k = p;
  for (;;) {
    for (uint32_t blk = 0; blk < k->b->grid; blk++) {
      ak_ctx c = {.block = blk, .grid = k->b->grid, .threads = k->b->threads, .kill = &k->kill};
      if (ak_run_block(k->b->kernel, &k->b->a, &c) == AK_KILLED) {
        k->returned_ns = now_ns();
        return NULL;
      }
    }
  }
}

/* p50, p99 and max kill latency in microseconds over `samples` kills. */
static void kill_latency(const bench_case *b, int samples, double out[3]) {
  double *lat = malloc((size_t)samples * sizeof *lat);
  if (!lat)
    exit(1);
  unsigned seed = 12345;
  for (int s = 0; s < samples; s++) {
    killed_run k = {.b = b, .kill = 0};
    pthread_t th;
    if (pthread_create(&th, NULL, run_until_killed, &k) != 0)
      exit(1);
    seed = seed * 1103515245u + 12345u;
    struct timespec d = {0, 200000 + (long)(seed >> 8) % 1800000};
    nanosleep(&d, NULL);
    int64_t t0 = now_ns();
    __atomic_store_n(&k.kill, 1u, __ATOMIC_RELAXED);
    pthread_join(th, NULL);
    lat[s] = (double)(k.returned_ns - t0) / 1e3;
  }
  qsort(lat, (size_t)samples, sizeof *lat, bench_cmp_double);
  out[0] = lat[samples / 2];
  out[1] = lat[(samples * 99) / 100 < samples ? (samples * 99) / 100 : samples - 1];
  out[2] = lat[samples - 1];
  free(lat);
}

static void bench_models(int rounds) {
  printf("\nnative models, reference run on this thread (median of %d):\n", rounds);
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++) {
    const atoll_nmodel *m = atoll_nmodel_at(i);
    void **t = atoll_nmodel_alloc_host(m);
    double *ms = malloc((size_t)rounds * sizeof *ms);
    if (!t || !ms)
      exit(1);
    m->make_input(0, t[m->input]);
    uint32_t kernels = 0;
    for (uint32_t o = 0; o < m->n_ops; o++)
      kernels += m->ops[o].kind == ATOLL_OP_KERNEL;
    for (int r = 0; r < rounds; r++) {
      int64_t t0 = now_ns();
      if (atoll_nmodel_run_reference(m, t) != 0)
        exit(1);
      ms[r] = (double)(now_ns() - t0) / 1e6;
    }
    double med = median(ms, rounds); /* sorts ms */
    printf("  %-12s %2u kernels  median %8.3f ms  fastest %8.3f ms\n", m->name, kernels, med, ms[0]);
    free(ms);
    atoll_nmodel_free_host(m, t);
  }
}

/* The cases' buffers (a case's unused pointers are NULL). */
static void free_cases(bench_case *cases, int n) {
  for (int c = 0; c < n; c++)
    for (int p = 0; p < AK_MAX_PTRS; p++)
      free(cases[c].a.p[p]);
}

static const char usage[] = "bench_kernels [ROUNDS 1..1000] | bench_kernels --one CASE points|null|none";

int main(int argc, char **argv) {
  int one = argc > 1 && strcmp(argv[1], "--one") == 0;
  int rounds = 31;
  if (one && argc != 4) {
    fprintf(stderr, "bench_kernels: --one takes a CASE and a build (points, null or none)\n");
    return bench_usage(usage);
  }
  if (!one && argc > 2) {
    fprintf(stderr, "bench_kernels: unexpected argument '%s'\n", argv[2]);
    return bench_usage(usage);
  }
  if (!one && argc == 2) {
    long long v;
    if (!bench_parse_int(argv[1], 1, 1000, &v)) {
      fprintf(stderr, "bench_kernels: ROUNDS '%s': expected an integer from 1 to 1000\n", argv[1]);
      return bench_usage(usage);
    }
    rounds = (int)v;
  }
  int variant = 0; /* --one: 0 points, 1 null, 2 none */
  if (one) {
    static const char *const variants[3] = {"points", "null", "none"};
    while (variant < 3 && strcmp(argv[3], variants[variant]) != 0)
      variant++;
    if (variant == 3) {
      fprintf(stderr, "bench_kernels: --one build '%s': expected points, null or none\n", argv[3]);
      return bench_usage(usage);
    }
  }
  bench_case cases[] = {
      gemm_case("gemm 256^3 tile 32x32", 256, 256, 256, 32, 32),
      gemm_case("gemm 256^3 tile 16x16", 256, 256, 256, 16, 16),
      gemm_case("gemm 256^3 tile 64x16", 256, 256, 256, 64, 16),
      conv_case("conv 32->32 16x16 3x3 (8ch x 4rows)", 32, 16, 32, 8, 4),
      conv_case("conv 32->32 16x16 3x3 (1ch x 8rows)", 32, 16, 32, 1, 8),
      conv_case("conv 3->16 32x32 3x3 (8ch x 4rows)", 3, 32, 16, 8, 4),
      elt_case("bias_relu 1M", AK_K_BIAS_RELU, 1 << 20),
      elt_case("gelu 1M", AK_K_GELU, 1 << 20),
      elt_case("add 1M", AK_K_ADD, 1 << 20),
      elt_case("add_inplace 1M", AK_K_ADD_INPLACE, 1 << 20),
      pool_case("maxpool 2x2 64x64x64", AK_K_MAXPOOL, 64, 64),
      pool_case("avgpool 2x2 64x64x64", AK_K_AVGPOOL, 64, 64),
      rows_case("softmax 4096x64", AK_K_SOFTMAX, 4096, 64),
      rows_case("layernorm 4096x128", AK_K_LAYERNORM, 4096, 128),
  };
  const int n = (int)(sizeof cases / sizeof cases[0]);
  const volatile uint32_t kill = 0;
  if (one) {
    long long c;
    if (!bench_parse_int(argv[2], 0, n - 1, &c)) {
      fprintf(stderr, "bench_kernels: --one CASE '%s': expected a case from 0 to %d\n", argv[2], n - 1);
      free_cases(cases, n);
      return bench_usage(usage);
    }
    if (variant == 0)
      time_launch(ak_run_block, &cases[c], &kill);
    else
      time_launch(variant == 1 ? ak_run_block : ak_run_block_nopp, &cases[c], NULL);
    printf("%s\n", cases[c].name);
    free_cases(cases, n);
    return 0;
  }
  double *tp = malloc((size_t)rounds * sizeof *tp), *tn = malloc((size_t)rounds * sizeof *tn);
  double *tz = malloc((size_t)rounds * sizeof *tz), *ratio = malloc((size_t)rounds * sizeof *ratio);
  double *ratio_null = malloc((size_t)rounds * sizeof *ratio_null);
  if (!tp || !tn || !tz || !ratio || !ratio_null)
    return 1;
  printf("kernel library, one thread, median of %d interleaved rounds\n", rounds);
  printf("%-38s %10s %10s %10s %9s %9s %9s %8s\n", "case", "points_us", "null_us", "none_us", "pts/none", "null/none",
         "min_ratio", "GFLOP/s");
  for (int c = 0; c < n; c++) {
    const bench_case *b = &cases[c];
    time_launch(ak_run_block, b, &kill); /* warm caches */
    for (int r = 0; r < rounds; r++) {
      tp[r] = (double)time_launch(ak_run_block, b, &kill) / 1e3;
      tz[r] = (double)time_launch(ak_run_block, b, NULL) / 1e3;
      tn[r] = (double)time_launch(ak_run_block_nopp, b, NULL) / 1e3;
      ratio[r] = tp[r] / tn[r];
      ratio_null[r] = tz[r] / tn[r];
    }
    double mp = median(tp, rounds), mz = median(tz, rounds), mn = median(tn, rounds); /* sorts */
    double rr = median(ratio, rounds), rz = median(ratio_null, rounds);
    /* The fastest runs of each build: what a quiet machine would show. */
    double rmin = tp[0] / tn[0];
    if (b->flop > 0)
      printf("%-38s %10.1f %10.1f %10.1f %9.3f %9.3f %9.3f %8.2f\n", b->name, mp, mz, mn, rr, rz, rmin,
             b->flop / (tp[0] * 1e3));
    else
      printf("%-38s %10.1f %10.1f %10.1f %9.3f %9.3f %9.3f %8s\n", b->name, mp, mz, mn, rr, rz, rmin, "-");
  }
  printf("\nkill latency: from setting the kill word to the block's AK_KILLED return (%d kills)\n", 101);
  printf("%-38s %10s %10s %10s\n", "case", "p50_us", "p99_us", "max_us");
  for (int c = 0; c < n; c++) {
    double l[3];
    kill_latency(&cases[c], 101, l);
    printf("%-38s %10.1f %10.1f %10.1f\n", cases[c].name, l[0], l[1], l[2]);
  }
  bench_models(rounds);
  free(tp), free(tn), free(tz), free(ratio), free(ratio_null);
  free_cases(cases, n);
  return 0;
}
