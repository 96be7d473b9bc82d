/* bench_mem_interference: memory-bandwidth interference on the native CPU device, the measurement
 * behind the simulator's memory term (docs/simulator.md, "Memory interference").
 *
 * Two CUs (CPU workers, pinned), two queues bound to one CU each, so the two streams share no
 * worker. Each stream launches R copies of one memory-streaming kernel of the library, one block
 * over a buffer far larger than the caches: `add` (out = a + b: 12 bytes per element) or
 * `bias_relu` without bias (out = relu(x): 8 bytes per element). A point is one kernel alone on its
 * queue, or two at once; a stream's time is the CPU time its worker thread spent over the R
 * launches (the thread's CPU clock: time it waited for memory counts, time other processes of a
 * shared machine held its CPU does not), and each point's figure is its minimum over the rounds.
 * The worker of each queue is found from the first points: the thread whose CPU clock moved most.
 *
 *   bench_mem_interference [--mb MB] [--launches R] [--rounds N]
 *     (defaults 128, 2 and 5; MB from 1 to 4096, R and N from 1 to 1000)
 *
 * Prints, per kernel, its time per launch alone and bytes per launch; then per pair the slowdown of
 * each kernel (time together / time alone) and the machine's aggregate bandwidth in the pair. The
 * last lines, `alone KERNEL US BYTES` and `pair K1 K2 S1 S2`, are what tools/mem-interference.sh
 * reads. */
#define _GNU_SOURCE /* syscall */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atoll/cuset.h"
#include "bench/bench_util.h"
#include "native/cpu/cpu_backend.h"

enum { KADD = 0, KRELU = 1, NK = 2 };
static const char *const names[NK] = {"add", "bias_relu"};
static const uint32_t bytes_per_elem[NK] = {12, 8};

typedef struct bench {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t done[2];
  int64_t end_ns[2];
} bench;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The CPU clocks of this process's threads: their ids and CPU ns (Linux's per-thread clock ids). */
enum { MAX_THREADS = 64 };
typedef struct cpu_snap {
  uint32_t n;
  long tid[MAX_THREADS];
  int64_t ns[MAX_THREADS];
} cpu_snap;

static void snap_threads(cpu_snap *s) {
  s->n = 0;
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  while (d && (e = readdir(d)) && s->n < MAX_THREADS) {
    long tid = atol(e->d_name);
    if (tid <= 0)
      continue;
    clockid_t c = (clockid_t)((~(unsigned long)tid) << 3) | 6; /* CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED */
    struct timespec t;
    if (clock_gettime(c, &t) == 0) {
      s->tid[s->n] = tid;
      s->ns[s->n++] = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
    }
  }
  if (d)
    closedir(d);
}

/* CPU ns thread tid spent between two snapshots (0 when it is not in both). */
static int64_t cpu_of(const cpu_snap *a, const cpu_snap *b, long tid) {
  for (uint32_t i = 0; i < a->n; i++)
    for (uint32_t j = 0; j < b->n; j++)
      if (a->tid[i] == tid && b->tid[j] == tid)
        return b->ns[j] - a->ns[i];
  return 0;
}

/* The thread whose CPU clock moved most between two snapshots. */
static long busiest(const cpu_snap *a, const cpu_snap *b) {
  long best = 0;
  int64_t most = -1;
  for (uint32_t j = 0; j < b->n; j++) {
    int64_t d = cpu_of(a, b, b->tid[j]);
    if (d > most)
      most = d, best = b->tid[j];
  }
  return best;
}

static void on_complete(void *ctx, uint64_t tag, atoll_ndone_status st) {
  bench *b = ctx;
  (void)st;
  pthread_mutex_lock(&b->mu);
  b->done[tag & 1]++;
  b->end_ns[tag & 1] = now_ns();
  pthread_cond_broadcast(&b->cv);
  pthread_mutex_unlock(&b->mu);
}

typedef struct stream {
  atoll_nqueue *q;
  float *x, *y, *out;
} stream;

static atoll_nlaunch launch_of(uint32_t kernel, const stream *s, size_t n, uint32_t q) {
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = ATOLL_NL_KERNEL;
  l.tag = q;
  l.k.grid = 1, l.k.threads = 64, l.k.block_lo = 0, l.k.block_n = 1, l.k.occupancy = 1, l.k.tag = q;
  if (kernel == KADD) {
    l.k.kernel = AK_K_ADD;
    l.k.args.p[0] = s->x, l.k.args.p[1] = s->y, l.k.args.p[2] = s->out;
    l.k.args.i[0] = (int32_t)n, l.k.args.i[1] = (int32_t)n;
  } else {
    l.k.kernel = AK_K_BIAS_RELU;
    l.k.args.p[0] = s->x, l.k.args.p[1] = NULL, l.k.args.p[2] = s->out;
    l.k.args.i[0] = (int32_t)n, l.k.args.i[1] = 1, l.k.args.i[2] = (int32_t)n, l.k.args.i[3] = 1,
    l.k.args.i[4] = (int32_t)n;
  }
  return l;
}

static long worker_tid[2];

/* Runs kernel k[q] R times on each queue q with k[q] >= 0, at once; returns each stream's CPU ns
 * (its worker's; the wall time until the worker is known). */
static void run_point(const atoll_nbackend_ops *ops, void *be, bench *b, stream *st, const int k[2], size_t n,
                      uint32_t R, int64_t t[2]) {
  cpu_snap s0, s1;
  snap_threads(&s0);
  pthread_mutex_lock(&b->mu);
  b->done[0] = b->done[1] = 0;
  pthread_mutex_unlock(&b->mu);
  int64_t t0 = now_ns();
  for (uint32_t q = 0; q < 2; q++) {
    if (k[q] < 0)
      continue;
    atoll_nlaunch l = launch_of((uint32_t)k[q], &st[q], n, q);
    for (uint32_t r = 0; r < R; r++)
      if (ops->submit(be, st[q].q, &l)) {
        fprintf(stderr, "submit failed\n");
        exit(1);
      }
  }
  pthread_mutex_lock(&b->mu);
  while ((k[0] >= 0 && b->done[0] < R) || (k[1] >= 0 && b->done[1] < R))
    pthread_cond_wait(&b->cv, &b->mu);
  for (uint32_t q = 0; q < 2; q++)
    t[q] = k[q] >= 0 ? b->end_ns[q] - t0 : 0;
  pthread_mutex_unlock(&b->mu);
  snap_threads(&s1);
  for (uint32_t q = 0; q < 2; q++) {
    if (k[q] < 0)
      continue;
    if (!worker_tid[q] && k[1 - q] < 0)
      worker_tid[q] = busiest(&s0, &s1);
    if (worker_tid[q])
      t[q] = cpu_of(&s0, &s1, worker_tid[q]);
  }
}

/* MAX_MB: six buffers of this size (24 GB at 4096) is already more memory than the machines this
 * runs on spare, and keeps the element count within the kernels' int32 arguments. */
enum { MAX_MB = 4096, MAX_COUNT = 1000 };
static const char usage[] = "bench_mem_interference [--mb 1..4096] [--launches 1..1000] [--rounds 1..1000]";

/* The three buffers of each stream, from the back-end (NULL where not allocated). */
static void free_buffers(const atoll_nbackend_ops *ops, void *be, stream st[2]) {
  for (uint32_t q = 0; q < 2; q++) {
    float *p[3] = {st[q].x, st[q].y, st[q].out};
    for (int i = 0; i < 3; i++)
      if (p[i])
        ops->free(be, p[i]);
  }
}

int main(int argc, char **argv) {
  uint32_t mb = 128, R = 2, rounds = 5;
  for (int i = 1; i < argc; i++) {
    long long v, max = MAX_COUNT;
    uint32_t *dst = NULL;
    if (!strcmp(argv[i], "--mb"))
      dst = &mb, max = MAX_MB;
    else if (!strcmp(argv[i], "--launches"))
      dst = &R;
    else if (!strcmp(argv[i], "--rounds"))
      dst = &rounds;
    if (!dst) { /* a lone trailing argument too: none is dropped unread */
      fprintf(stderr, "bench_mem_interference: unknown argument '%s'\n", argv[i]);
      return bench_usage(usage);
    }
    if (!bench_opt_int("bench_mem_interference", argc, argv, &i, 1, max, &v))
      return bench_usage(usage);
    *dst = (uint32_t)v;
  }
  size_t n = (size_t)mb * (1u << 20) / 4; /* floats per buffer */
  bench b = {.done = {0, 0}};
  pthread_mutex_init(&b.mu, NULL);
  pthread_cond_init(&b.cv, NULL);
  const atoll_nbackend_ops *ops = atoll_ncpu_backend();
  atoll_nbackend_cfg cfg = {.cus = 2, .pin_threads = true, .on_complete = on_complete, .ctx = &b};
  void *be = NULL;
  char err[256] = "";
  if (ops->open(&cfg, &be, err, sizeof err)) {
    fprintf(stderr, "cpu back-end: %s\n", err);
    return 1;
  }
  stream st[2];
  memset(st, 0, sizeof st);
  int rc = 1; /* until the figures are printed */
  for (uint32_t q = 0; q < 2; q++) {
    atoll_cuset cus;
    memset(&cus, 0, sizeof cus);
    atoll_cuset_add_range(&cus, q, q); /* both ends included */
    if (ops->create_bound_queue(be, 0, &cus, &st[q].q, err, sizeof err)) {
      fprintf(stderr, "bound queue: %s\n", err);
      goto out;
    }
    void *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
      if (ops->alloc(be, n * 4, &p[i])) {
        fprintf(stderr, "bench_mem_interference: cannot allocate 3 buffers of %u MB\n", mb);
        st[q].x = p[0], st[q].y = p[1], st[q].out = p[2];
        goto out;
      }
    st[q].x = p[0], st[q].y = p[1], st[q].out = p[2];
    for (size_t e = 0; e < n; e++)
      st[q].x[e] = (float)(e % 7), st[q].y[e] = 1.0f, st[q].out[e] = 0.0f;
  }
  /* Points: each kernel alone (on queue 0 and on queue 1), and the three pairs. */
  /* Find each queue's worker thread (a point alone on it), then measure. */
  for (uint32_t q = 0; q < 2; q++) {
    int ks[2] = {q == 0 ? KADD : -1, q == 1 ? KADD : -1};
    int64_t t[2];
    run_point(ops, be, &b, st, ks, n, 1, t);
  }
  if (!worker_tid[0] || worker_tid[0] == worker_tid[1]) {
    fprintf(stderr, "could not tell the two workers' threads apart\n");
    goto out;
  }
  int64_t alone[NK] = {INT64_MAX, INT64_MAX}, pair[NK][NK][2];
  for (int a = 0; a < NK; a++)
    for (int c = 0; c < NK; c++)
      pair[a][c][0] = pair[a][c][1] = INT64_MAX;
  for (uint32_t r = 0; r < rounds; r++) {
    for (int kk = 0; kk < NK; kk++) {
      int k = (r & 1) ? NK - 1 - kk : kk;
      for (uint32_t q = 0; q < 2; q++) {
        int ks[2] = {q == 0 ? k : -1, q == 1 ? k : -1};
        int64_t t[2];
        run_point(ops, be, &b, st, ks, n, R, t);
        if (t[q] < alone[k])
          alone[k] = t[q];
      }
    }
    for (int a = 0; a < NK; a++)
      for (int c = a; c < NK; c++) {
        int ks[2] = {a, c};
        int64_t t[2];
        run_point(ops, be, &b, st, ks, n, R, t);
        for (int q = 0; q < 2; q++)
          if (t[q] < pair[a][c][q])
            pair[a][c][q] = t[q];
      }
  }
  printf("# %u MB per buffer, %u launches per stream, worker CPU time, minimum of %u rounds\n", mb, R, rounds);
  for (int k = 0; k < NK; k++) {
    double us = (double)alone[k] / R / 1e3, bytes = (double)n * bytes_per_elem[k];
    printf("# %-9s alone: %.1f us per launch, %.0f bytes, %.2f GB/s\n", names[k], us, bytes, bytes / us / 1e3);
  }
  for (int a = 0; a < NK; a++)
    for (int c = a; c < NK; c++) {
      double s1 = (double)pair[a][c][0] / alone[a], s2 = (double)pair[a][c][1] / alone[c];
      double gbs = ((double)n * bytes_per_elem[a] * R / pair[a][c][0] + (double)n * bytes_per_elem[c] * R / pair[a][c][1]);
      printf("# %s | %s: slowdown %.3f | %.3f, together %.2f GB/s\n", names[a], names[c], s1, s2, gbs);
    }
  for (int k = 0; k < NK; k++)
    printf("alone %s %.3f %llu\n", names[k], (double)alone[k] / R / 1e3,
           (unsigned long long)n * bytes_per_elem[k]);
  for (int a = 0; a < NK; a++)
    for (int c = a; c < NK; c++)
      printf("pair %s %s %.4f %.4f\n", names[a], names[c], (double)pair[a][c][0] / alone[a],
             (double)pair[a][c][1] / alone[c]);
  rc = 0;
out:
  free_buffers(ops, be, st);
  ops->close(be);
  return rc;
}
