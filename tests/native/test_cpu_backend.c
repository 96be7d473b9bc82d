/* The CPU back-end alone (native/backend.h contract), with the kernel library's spin kernel:
 * launches run and record the execution index; a flag set before a launch evicts it whole, one set
 * after it started does not cut it short; a CU reset kills running blocks long before they would
 * end and the CUs serve the next launch; queue order; padded launches report their parts first;
 * copies, and copies evicted by the flag; CU busy time; a queue bound to CUs runs only there;
 * class workers: an RT block runs while a BE block of the same CU is still running, the RT worker
 * at SCHED_FIFO or the BE worker at a higher nice. */
#define _GNU_SOURCE /* syscall */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "tests/native/thread_policy.h"
#include "native/cpu/cpu_backend.h"
#include "tests/native/nlaunch_build.h"

enum { MAX_LOG = 256, START = 0xff };

typedef struct log_t {
  pthread_mutex_t mu;
  uint64_t tag[MAX_LOG];
  uint8_t what[MAX_LOG]; /* atoll_ndone_status, or START */
  uint32_t n;
} log_t;

static log_t L;

static void on_complete(void *ctx, uint64_t tag, atoll_ndone_status st) {
  (void)ctx;
  pthread_mutex_lock(&L.mu);
  if (L.n < MAX_LOG)
    L.tag[L.n] = tag, L.what[L.n++] = (uint8_t)st;
  pthread_mutex_unlock(&L.mu);
}

static void on_start(void *ctx, uint64_t tag) { on_complete(ctx, tag, (atoll_ndone_status)START); }

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The index of the log entry for (tag, what), or -1. */
static int find(uint64_t tag, uint8_t what) {
  pthread_mutex_lock(&L.mu);
  int at = -1;
  for (uint32_t i = 0; i < L.n && at < 0; i++)
    if (L.tag[i] == tag && L.what[i] == what)
      at = (int)i;
  pthread_mutex_unlock(&L.mu);
  return at;
}

/* Waits up to 20 s for a completion of tag; returns its status. */
static int wait_done(uint64_t tag) {
  for (int i = 0; i < 20000; i++) {
    pthread_mutex_lock(&L.mu);
    for (uint32_t k = 0; k < L.n; k++)
      if (L.tag[k] == tag && L.what[k] != START) {
        int st = L.what[k];
        pthread_mutex_unlock(&L.mu);
        return st;
      }
    pthread_mutex_unlock(&L.mu);
    pause_ms(1);
  }
  fail_msg("launch %llu never completed", (unsigned long long)tag);
  return -1;
}

static void wait_start(uint64_t tag) {
  for (int i = 0; i < 20000 && find(tag, START) < 0; i++)
    pause_ms(1);
  assert_cmp(find(tag, START), >=, 0);
}

static const atoll_nbackend_ops *B;

static void *open_cpu(uint32_t cus) {
  memset(&L, 0, sizeof L);
  pthread_mutex_init(&L.mu, NULL);
  B = atoll_ncpu_backend();
  atoll_nbackend_cfg cfg = {.cus = cus, .slots_per_cu = 1, .on_complete = on_complete, .on_start = on_start};
  void *be = NULL;
  char err[128];
  assert_int_equal(B->open(&cfg, &be, err, sizeof err), 0);
  return be;
}

static void close_cpu(void *be) {
  B->close(be);
  pthread_mutex_destroy(&L.mu);
}

/* A spin launch of 4-thread blocks (nlaunch_build.h). */
static atoll_nlaunch spin(uint64_t tag, float *out, uint32_t grid, uint32_t iters, uint32_t per_point) {
  return atoll_test_spin(tag, out, grid, 4, iters, per_point);
}

static void spin_launch_completes_and_matches_direct_run(void **state) {
  (void)state;
  void *be = open_cpu(2);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[16] = {0}, ref[16] = {0};
  atoll_nlaunch l = spin(1, out, 16, 1000, 100);
  uint64_t idx;
  assert_int_equal(B->exec_index(be, q, &idx), ATOLL_ENOENT);
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(1), ATOLL_ND_OK);
  assert_cmp(find(1, START), >=, 0);
  assert_cmp(find(1, START), <, find(1, ATOLL_ND_OK));
  assert_int_equal(B->exec_index(be, q, &idx), 0);
  assert_int_equal(idx, 1);
  ak_args a = l.k.args;
  a.p[0] = ref;
  for (uint32_t b = 0; b < 16; b++) {
    ak_ctx c = {.block = b, .grid = 16, .threads = 4};
    assert_int_equal(ak_run_block(AK_K_SPIN, &a, &c), AK_DONE);
  }
  assert_memory_equal(out, ref, sizeof out);
  close_cpu(be);
}

static void flag_before_launch_evicts_it_whole(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[8] = {0}, zero[8] = {0};
  assert_int_equal(B->set_flag(be, q, true), 0);
  atoll_nlaunch l = spin(5, out, 8, 1000, 100);
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(5), ATOLL_ND_EVICTED);
  assert_cmp(find(5, START), <, 0);
  assert_memory_equal(out, zero, sizeof out); /* no block ran its body */
  uint64_t idx;
  assert_int_equal(B->exec_index(be, q, &idx), ATOLL_ENOENT);
  /* Cleared, the queue runs again. */
  assert_int_equal(B->set_flag(be, q, false), 0);
  l.tag = l.k.tag = 6;
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(6), ATOLL_ND_OK);
  close_cpu(be);
}

static void flag_after_start_does_not_cut_a_launch_short(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[8] = {0};
  /* Eight blocks one after another on one CU, a few ms each. */
  atoll_nlaunch l = spin(9, out, 8, 2000000, 1000);
  assert_int_equal(B->submit(be, q, &l), 0);
  wait_start(9);
  assert_int_equal(B->set_flag(be, q, true), 0);
  assert_int_equal(wait_done(9), ATOLL_ND_OK);
  for (int b = 0; b < 8; b++)
    assert_cmp(out[b], !=, 0.0f); /* every block ran */
  close_cpu(be);
}

static void reset_kills_running_blocks_for_real(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[4] = {0};
  /* Each block would spin for seconds; a preemption point every 10000 iterations. */
  atoll_nlaunch l = spin(11, out, 4, 2000000000, 10000);
  assert_int_equal(B->submit(be, q, &l), 0);
  wait_start(11);
  pause_ms(5);
  int64_t t0 = now_ns();
  assert_int_equal(B->reset_cus(be), 0);
  int64_t took = now_ns() - t0;
  assert_int_equal(wait_done(11), ATOLL_ND_KILLED);
  if (took > 100000000)
    fail_msg("the kill took %lld us (a block runs for seconds; a preemption point comes every ~10 us)",
             (long long)(took / 1000));
  assert_int_equal(out[0], 0.0f); /* the killed block never reached its store */
  /* The CU serves the next launch. */
  float out2[2] = {0};
  atoll_nlaunch l2 = spin(12, out2, 2, 100, 10);
  assert_int_equal(B->submit(be, q, &l2), 0);
  assert_int_equal(wait_done(12), ATOLL_ND_OK);
  assert_cmp(out2[0], !=, 0.0f);
  close_cpu(be);
}

static void reset_with_nothing_running_is_harmless(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  assert_int_equal(B->reset_cus(be), 0);
  float out[2] = {0};
  atoll_nlaunch l = spin(3, out, 2, 100, 10);
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(3), ATOLL_ND_OK);
  close_cpu(be);
}

static void queue_order_is_kept(void **state) {
  (void)state;
  void *be = open_cpu(2);
  atoll_nqueue *q[2];
  assert_int_equal(B->create_queue(be, 0, &q[0]), 0);
  assert_int_equal(B->create_queue(be, 0, &q[1]), 0);
  static float out[2][6][4];
  for (uint32_t i = 0; i < 6; i++)
    for (uint32_t k = 0; k < 2; k++) {
      atoll_nlaunch l = spin(100 * (k + 1) + i, out[k][i], 4, 20000 * (6 - i), 1000);
      assert_int_equal(B->submit(be, q[k], &l), 0);
    }
  for (uint32_t k = 0; k < 2; k++) {
    int prev = -1;
    for (uint32_t i = 0; i < 6; i++) {
      assert_int_equal(wait_done(100 * (k + 1) + i), ATOLL_ND_OK);
      int at = find(100 * (k + 1) + i, ATOLL_ND_OK);
      assert_cmp(at, >, prev); /* later launches are shorter, yet complete after earlier ones */
      prev = at;
    }
  }
  close_cpu(be);
}

static void padded_launch_reports_parts_first(void **state) {
  (void)state;
  void *be = open_cpu(2);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 1, &q), 0);
  float rt_out[2] = {0}, be_out[8] = {0};
  atoll_nlaunch l = spin(20, rt_out, 2, 100000, 1000);
  l.kind = ATOLL_NL_PADDED;
  l.k.cus = 1;
  l.n_parts = 1;
  l.parts[0] = (atoll_nkernel_range){.kernel = AK_K_SPIN, .grid = 8, .threads = 4, .block_lo = 3, .block_n = 5,
                                     .occupancy = 1, .cus = 1, .tag = 21};
  l.parts[0].args.p[0] = be_out;
  l.parts[0].args.i[0] = 1000;
  l.parts[0].args.i[1] = 100;
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(20), ATOLL_ND_OK);
  int part = find(21, ATOLL_ND_OK), whole = find(20, ATOLL_ND_OK);
  assert_cmp(part, >=, 0);
  assert_cmp(part, <, whole);
  for (int b = 0; b < 8; b++)
    assert_cmp((be_out[b] != 0.0f), ==, (b >= 3)); /* exactly its block range ran */
  assert_cmp(rt_out[0], !=, 0.0f);
  assert_cmp(rt_out[1], !=, 0.0f);
  close_cpu(be);
}

static void copies_and_memset_run_in_order(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  char *dev;
  assert_int_equal(B->alloc(be, 64, (void **)&dev), 0);
  char host[64], back[64];
  memset(host, 7, sizeof host);
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_H2D, .tag = 30, .dst = dev, .src = host, .bytes = 64};
  assert_int_equal(B->submit(be, q, &l), 0);
  l = (atoll_nlaunch){.kind = ATOLL_NL_MEMSET, .tag = 31, .dst = dev + 32, .value = 9, .bytes = 32};
  assert_int_equal(B->submit(be, q, &l), 0);
  l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_D2H, .tag = 32, .dst = back, .src = dev, .bytes = 64};
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(32), ATOLL_ND_OK);
  for (int i = 0; i < 64; i++)
    assert_int_equal(back[i], i < 32 ? 7 : 9);
  B->free(be, dev);
  close_cpu(be);
}

/* Copies queued behind a launch with the flag set are evicted with the kernels behind them, in
 * queue order and without copying (the thread that completes a launch evicts the copies after it,
 * the CP thread copies only what runs). */
static void flagged_copies_behind_a_launch_are_evicted_in_order(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  char *dev;
  assert_int_equal(B->alloc(be, 64, (void **)&dev), 0);
  memset(dev, 1, 64);
  char host[64], back[64];
  memset(host, 7, sizeof host);
  memset(back, 0, sizeof back);
  float out[4] = {0}, out2[4] = {0}, zero[4] = {0};
  atoll_nlaunch l = spin(50, out, 4, 20000000, 1000); /* ~30 ms per block: still running when flagged */
  assert_int_equal(B->submit(be, q, &l), 0);
  l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_H2D, .tag = 51, .dst = dev, .src = host, .bytes = 64};
  assert_int_equal(B->submit(be, q, &l), 0);
  l = (atoll_nlaunch){.kind = ATOLL_NL_MEMSET, .tag = 52, .dst = dev, .value = 9, .bytes = 32};
  assert_int_equal(B->submit(be, q, &l), 0);
  l = spin(53, out2, 4, 1000, 100);
  assert_int_equal(B->submit(be, q, &l), 0);
  l = (atoll_nlaunch){.kind = ATOLL_NL_COPY_D2H, .tag = 54, .dst = back, .src = dev, .bytes = 64};
  assert_int_equal(B->submit(be, q, &l), 0);
  wait_start(50);
  assert_int_equal(B->set_flag(be, q, true), 0);
  assert_int_equal(wait_done(50), ATOLL_ND_OK); /* started before the flag: runs whole */
  for (uint64_t t = 51; t <= 54; t++) {
    assert_int_equal(wait_done(t), ATOLL_ND_EVICTED);
    assert_cmp(find(t, START), <, 0);
    assert_cmp(find(t - 1, t == 51 ? ATOLL_ND_OK : ATOLL_ND_EVICTED), <, find(t, ATOLL_ND_EVICTED));
  }
  for (int i = 0; i < 64; i++)
    assert_int_equal(dev[i], 1); /* neither the copy in nor the memset ran */
  for (int i = 0; i < 64; i++)
    assert_int_equal(back[i], 0); /* nor the copy out */
  assert_memory_equal(out2, zero, sizeof out2);
  B->free(be, dev);
  close_cpu(be);
}

static void cu_busy_counts_resident_time(void **state) {
  (void)state;
  void *be = open_cpu(1);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[4] = {0};
  int64_t b0, r0, e0, b1, r1, e1;
  assert_int_equal(B->cu_busy(be, &b0, &r0, &e0), 0);
  atoll_nlaunch l = spin(40, out, 4, 5000000, 1000);
  int64_t t0 = now_ns();
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(40), ATOLL_ND_OK);
  int64_t wall = now_ns() - t0;
  assert_int_equal(B->cu_busy(be, &b1, &r1, &e1), 0);
  assert_cmp(b1 - b0, >, 0);
  assert_cmp(b1 - b0, <=, wall);
  assert_int_equal(r1 - r0, 0); /* BE work only */
  assert_int_equal(e1 - e0, b1 - b0);
  close_cpu(be);
}

/* Where each block ran: the worker's CU, by the launch's output buffer (its identity). */
enum { MAX_BLOCK_LOG = 4096 };
/* A batched launch (backend.h) runs the kernel once per instance, each on its own tensors (pointer
 * slots advanced by their stride) and the shared ones (stride 0): bias_relu on three inputs, one
 * bias, three outputs, its grid of 2 blocks run 3 times. */
static void batched_launch_runs_every_instance_on_its_tensors(void **state) {
  (void)state;
  void *be = open_cpu(2);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  enum { N = 8, STRIDE = 16, INST = 3 }; /* floats per instance; floats between instances */
  float x[INST * STRIDE], out[INST * STRIDE], bias[2] = {100.0f, 200.0f};
  for (uint32_t i = 0; i < INST * STRIDE; i++)
    x[i] = (float)i, out[i] = -1.0f;
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = ATOLL_NL_KERNEL;
  l.tag = 7;
  l.k = (atoll_nkernel_range){.kernel = AK_K_BIAS_RELU, .grid = 2, .threads = 4, .occupancy = 1, .batch = INST,
                              .ptr_stride = {STRIDE * sizeof(float), 0, STRIDE * sizeof(float)}};
  l.k.args.p[0] = x, l.k.args.p[1] = bias, l.k.args.p[2] = out;
  l.k.args.i[0] = N, l.k.args.i[1] = 2, l.k.args.i[2] = 4, l.k.args.i[4] = 4;
  assert_int_equal(B->submit(be, q, &l), 0);
  assert_int_equal(wait_done(7), ATOLL_ND_OK);
  for (uint32_t k = 0; k < INST; k++)
    for (uint32_t i = 0; i < STRIDE; i++) {
      const float want = i < N ? x[k * STRIDE + i] + bias[i / 4] : -1.0f; /* past n: untouched */
      assert_float_equal(out[k * STRIDE + i], want, 0.0f);
    }
  close_cpu(be);
}

static struct {
  pthread_mutex_t mu;
  const void *out[MAX_BLOCK_LOG];
  uint32_t cu[MAX_BLOCK_LOG];
  uint32_t n;
} where;

static int logging_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  pthread_mutex_lock(&where.mu);
  if (where.n < MAX_BLOCK_LOG)
    where.out[where.n] = a->p[0], where.cu[where.n++] = atoll_ncpu_worker_cu();
  pthread_mutex_unlock(&where.mu);
  return ak_run_block(kernel, a, c);
}

/* A queue bound to CUs {1, 3} of 4 runs every block of its launches on a worker of CU 1 or 3,
 * while an unbound queue's launch beside it may use all four; the bound launch's result is the
 * direct run's. A set past the device's CUs is refused, and so is padding on a bound queue. The
 * timing is not asserted: the machine may have 2 cores for the 4 CUs (docs/partitions.md). */
static void bound_queue_runs_blocks_only_on_its_cus(void **state) {
  (void)state;
  memset(&where, 0, sizeof where);
  pthread_mutex_init(&where.mu, NULL);
  atoll_ncpu_set_block_fn(logging_block);
  void *be = open_cpu(4);
  atoll_cuset odd = {{0}}, past = {{0}};
  atoll_cuset_add_range(&odd, 1, 1), atoll_cuset_add_range(&odd, 3, 3);
  atoll_cuset_add_range(&past, 2, 4);
  atoll_nqueue *qb, *qu, *qx;
  char err[160] = "";
  assert_int_equal(B->create_bound_queue(be, 0, &odd, &qb, err, sizeof err), 0);
  assert_int_equal(B->create_queue(be, 0, &qu), 0);
  assert_int_equal(B->create_bound_queue(be, 0, &past, &qx, err, sizeof err), ATOLL_EINVAL);
  assert_non_null(strstr(err, "4 (0-3)"));
  static float bound_out[64 * 4], free_out[64 * 4], ref[64 * 4];
  atoll_nlaunch lb = spin(1, bound_out, 64, 2000, 100), lu = spin(2, free_out, 64, 2000, 100);
  assert_int_equal(B->submit(be, qb, &lb), 0);
  assert_int_equal(B->submit(be, qu, &lu), 0);
  assert_int_equal(wait_done(1), ATOLL_ND_OK);
  assert_int_equal(wait_done(2), ATOLL_ND_OK);
  atoll_nlaunch padded = lb;
  padded.kind = ATOLL_NL_PADDED, padded.tag = 3;
  assert_int_equal(B->submit(be, qb, &padded), ATOLL_ENOTSUP);
  close_cpu(be);
  atoll_ncpu_set_block_fn(NULL);
  uint32_t bound_blocks = 0, free_blocks = 0;
  for (uint32_t i = 0; i < where.n; i++) {
    if (where.out[i] == bound_out) {
      bound_blocks++;
      if (where.cu[i] != 1 && where.cu[i] != 3)
        fail_msg("block %u of the bound launch ran on CU %u, outside {1, 3}", i, where.cu[i]);
    } else if (where.out[i] == free_out) {
      free_blocks++;
      assert_true(where.cu[i] < 4);
    }
  }
  assert_int_equal(bound_blocks, 64);
  assert_int_equal(free_blocks, 64);
  ak_args a = lb.k.args;
  a.p[0] = ref;
  for (uint32_t b = 0; b < 64; b++) {
    ak_ctx c = {.block = b, .grid = 64, .threads = 4};
    assert_int_equal(ak_run_block(AK_K_SPIN, &a, &c), AK_DONE);
  }
  assert_memory_equal(bound_out, ref, sizeof ref);
  pthread_mutex_destroy(&where.mu);
}

/* Class workers: what each class's block saw. The BE block runs until the RT block has run (or
 * `be_wait_ms` passed), so it tells whether the RT block got the CU while it was still running. */
enum { RT_TAG = 11, BE_TAG = 12 };
static atomic_int rt_ran, be_saw_rt, rt_policy, rt_nice, be_policy, be_nice, be_wait_ms;
static int cp_policy, cp_prio; /* the command processor's, read while the back-end is open */

static int class_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  (void)kernel, (void)a, (void)c;
  const int policy = sched_getscheduler(0);
  const int nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
  if (atoll_ncpu_worker_tag() == RT_TAG) {
    atomic_store(&rt_policy, policy), atomic_store(&rt_nice, nice);
    atomic_store(&rt_ran, 1);
    return AK_DONE;
  }
  atomic_store(&be_policy, policy), atomic_store(&be_nice, nice);
  const int64_t until = now_ns() + (int64_t)atomic_load(&be_wait_ms) * 1000000;
  while (!atomic_load(&rt_ran) && now_ns() < until)
    ; /* busy, as a kernel is: only preemption by the OS lets the RT worker in on this CPU */
  atomic_store(&be_saw_rt, atomic_load(&rt_ran));
  return AK_DONE;
}

/* One CU, its workers pinned to one CPU: a BE block starts and keeps the CPU busy, then an RT
 * launch arrives. Returns whether the RT block ran while the BE block was still running. */
static int rt_runs_beside_a_running_be_block(bool class_workers, int wait_ms) {
  memset(&L, 0, sizeof L);
  pthread_mutex_init(&L.mu, NULL);
  atomic_store(&rt_ran, 0), atomic_store(&be_saw_rt, 0), atomic_store(&be_wait_ms, wait_ms);
  atoll_ncpu_set_block_fn(class_block);
  B = atoll_ncpu_backend();
  atoll_nbackend_cfg cfg = {.cus = 1, .slots_per_cu = 1, .pin_threads = true, .on_complete = on_complete,
                            .on_start = on_start, .class_workers = class_workers};
  void *be = NULL;
  char err[128];
  assert_int_equal(B->open(&cfg, &be, err, sizeof err), 0);
  cp_policy = thread_policy("atoll-cp", &cp_prio);
  atoll_nqueue *qbe, *qrt;
  assert_int_equal(B->create_queue(be, 0, &qbe), 0);
  assert_int_equal(B->create_queue(be, 1, &qrt), 0);
  float out[8];
  atoll_nlaunch lbe = spin(BE_TAG, out, 1, 1, 1), lrt = spin(RT_TAG, out, 1, 1, 1);
  assert_int_equal(B->submit(be, qbe, &lbe), 0);
  wait_start(BE_TAG);
  assert_int_equal(B->submit(be, qrt, &lrt), 0);
  assert_int_equal(wait_done(RT_TAG), ATOLL_ND_OK);
  assert_int_equal(wait_done(BE_TAG), ATOLL_ND_OK);
  close_cpu(be);
  atoll_ncpu_set_block_fn(NULL);
  return atomic_load(&be_saw_rt);
}

/* The classes' OS priorities: the paper's, SCHED_FIFO for RT with BE at the normal priority, where
 * the process may; else the fallback, RT at SCHED_OTHER and BE at a higher nice. */
static void check_class_priorities(void) {
  print_message("class workers: RT worker %s (nice %d), BE worker nice %d\n",
                atomic_load(&rt_policy) == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", atomic_load(&rt_nice),
                atomic_load(&be_nice));
  if (atomic_load(&rt_policy) == SCHED_FIFO) {
    assert_int_equal(atomic_load(&be_policy), SCHED_OTHER);
    /* The command processor, on every RT launch's path, above the RT workers (cpu_backend.h). */
    assert_int_equal(cp_policy, SCHED_FIFO);
    assert_int_equal(cp_prio, ATOLL_NCPU_HOST_FIFO_PRIO);
  } else {
    assert_int_equal(cp_policy, SCHED_OTHER);
    assert_int_equal(atomic_load(&rt_policy), SCHED_OTHER);
    assert_int_equal(atomic_load(&be_nice), ATOLL_NCPU_BE_NICE);
    assert_cmp(atomic_load(&rt_nice), <, atomic_load(&be_nice));
  }
}

static void class_workers_let_rt_preempt_a_running_be_block(void **state) {
  (void)state;
  /* One worker per CU (no classes): the RT block waits for the BE block's end. */
  assert_false(rt_runs_beside_a_running_be_block(false, 200));
  assert_int_equal(cp_policy, SCHED_OTHER);
  /* Class workers: the RT block runs while the BE block spins (it would spin 10 s otherwise). */
  assert_true(rt_runs_beside_a_running_be_block(true, 10000));
  check_class_priorities();
  /* The fallback, forced (where SCHED_FIFO is refused it is what ran above). */
  atoll_ncpu_set_rt_fifo(false);
  const int saw = rt_runs_beside_a_running_be_block(true, 10000);
  atoll_ncpu_set_rt_fifo(true);
  assert_true(saw);
  assert_int_not_equal(atomic_load(&rt_policy), SCHED_FIFO);
  check_class_priorities();
}

/* Report turns (flush): completions are reported in the order the device decided them, so a
 * worker whose report comes after another's waits for that one's callbacks to return. Here the BE
 * worker's completion callback submits an RT launch and then takes 20 ms; the RT worker, pinned to
 * the same CPU at SCHED_FIFO, runs the RT block meanwhile and waits for its turn. Waiting by
 * yielding, it held the CPU (a SCHED_FIFO thread's yield never lets a normal one run) and the BE
 * worker could not return until the kernel's RT throttling let it in (up to 950 ms of each
 * second); waiting asleep, the RT completion is reported right after the BE callback. */
static void *turn_be;
static atoll_nqueue *turn_qrt;
static atoll_nlaunch turn_lrt;
static atomic_int turn_submitted;
static int64_t turn_submit_ns, turn_rt_done_ns;

static void turn_on_complete(void *ctx, uint64_t tag, atoll_ndone_status st) {
  if (tag == BE_TAG && !atomic_exchange(&turn_submitted, 1)) {
    turn_submit_ns = now_ns();
    assert_int_equal(B->submit(turn_be, turn_qrt, &turn_lrt), 0);
    pause_ms(20);
  }
  if (tag == RT_TAG)
    turn_rt_done_ns = now_ns();
  on_complete(ctx, tag, st);
}

static void report_turn_is_awaited_asleep(void **state) {
  (void)state;
  memset(&L, 0, sizeof L);
  pthread_mutex_init(&L.mu, NULL);
  atomic_store(&turn_submitted, 0);
  turn_rt_done_ns = 0;
  B = atoll_ncpu_backend();
  atoll_nbackend_cfg cfg = {.cus = 1, .slots_per_cu = 1, .pin_threads = true, .on_complete = turn_on_complete,
                            .class_workers = true};
  char err[128];
  assert_int_equal(B->open(&cfg, &turn_be, err, sizeof err), 0);
  int prio = 0;
  const bool fifo = thread_policy("atoll-cu0.rt0", &prio) == SCHED_FIFO;
  atoll_nqueue *qbe;
  assert_int_equal(B->create_queue(turn_be, 0, &qbe), 0);
  assert_int_equal(B->create_queue(turn_be, 1, &turn_qrt), 0);
  float out[8];
  atoll_nlaunch lbe = spin(BE_TAG, out, 1, 1, 1);
  turn_lrt = spin(RT_TAG, out, 1, 1, 1);
  assert_int_equal(B->submit(turn_be, qbe, &lbe), 0);
  assert_int_equal(wait_done(RT_TAG), ATOLL_ND_OK);
  const int64_t ms = (turn_rt_done_ns - turn_submit_ns) / 1000000;
  close_cpu(turn_be);
  print_message("RT worker %s: RT completion reported %lld ms after its submit\n",
                fifo ? "SCHED_FIFO" : "SCHED_OTHER (SCHED_FIFO refused: no yield starves here)", (long long)ms);
  assert_cmp(ms, >=, 20); /* it waited for the BE callback's turn */
  assert_cmp(ms, <, 300);
}

/* Blocks wait here until the test opens the gate, so a launch is surely still running. */
static atomic_int gate_open;

static int gated_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  while (!atomic_load(&gate_open))
    pause_ms(1);
  return logging_block(kernel, a, c);
}

/* A re-provisioned share (rebind_queue, docs/gslice.md "Native"): a queue bound to CU 0 is refused
 * a move while its launch runs, then moves once it has drained, and its next launch runs every
 * block on the new set {2, 3}, none on CU 0; the first launch ran wholly on CU 0. */
static void rebind_moves_a_drained_queue_to_its_new_cus(void **state) {
  (void)state;
  memset(&where, 0, sizeof where);
  pthread_mutex_init(&where.mu, NULL);
  atomic_store(&gate_open, 0);
  atoll_ncpu_set_block_fn(gated_block);
  void *be = open_cpu(4);
  atoll_cuset first = {{0}}, next = {{0}}, past = {{0}};
  atoll_cuset_add_range(&first, 0, 0);
  atoll_cuset_add_range(&next, 2, 3);
  atoll_cuset_add_range(&past, 3, 4);
  atoll_nqueue *q;
  char err[160] = "";
  assert_non_null(B->rebind_queue);
  assert_int_equal(B->create_bound_queue(be, 0, &first, &q, err, sizeof err), 0);
  static float before[16 * 4], after[16 * 4];
  atoll_nlaunch la = spin(1, before, 16, 200, 10), lb = spin(2, after, 16, 200, 10);
  assert_int_equal(B->submit(be, q, &la), 0);
  wait_start(1);
  assert_int_equal(B->rebind_queue(be, q, &next, err, sizeof err), ATOLL_EINVAL); /* it runs */
  atomic_store(&gate_open, 1);
  assert_int_equal(wait_done(1), ATOLL_ND_OK);
  assert_int_equal(B->rebind_queue(be, q, &past, err, sizeof err), ATOLL_EINVAL);
  assert_int_equal(B->rebind_queue(be, q, &next, err, sizeof err), 0);
  assert_int_equal(B->submit(be, q, &lb), 0);
  assert_int_equal(wait_done(2), ATOLL_ND_OK);
  close_cpu(be);
  atoll_ncpu_set_block_fn(NULL);
  uint32_t n_before = 0, n_after = 0;
  for (uint32_t i = 0; i < where.n; i++) {
    if (where.out[i] == before) {
      n_before++;
      if (where.cu[i] != 0)
        fail_msg("block %u of the launch before the move ran on CU %u, not 0", i, where.cu[i]);
    } else if (where.out[i] == after) {
      n_after++;
      if (where.cu[i] != 2 && where.cu[i] != 3)
        fail_msg("block %u of the launch after the move ran on CU %u, outside {2, 3}", i, where.cu[i]);
    }
  }
  assert_int_equal(n_before, 16);
  assert_int_equal(n_after, 16);
  pthread_mutex_destroy(&where.mu);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(spin_launch_completes_and_matches_direct_run),
      cmocka_unit_test(class_workers_let_rt_preempt_a_running_be_block),
      cmocka_unit_test(report_turn_is_awaited_asleep),
      cmocka_unit_test(flag_before_launch_evicts_it_whole),
      cmocka_unit_test(flag_after_start_does_not_cut_a_launch_short),
      cmocka_unit_test(reset_kills_running_blocks_for_real),
      cmocka_unit_test(reset_with_nothing_running_is_harmless),
      cmocka_unit_test(queue_order_is_kept),
      cmocka_unit_test(padded_launch_reports_parts_first),
      cmocka_unit_test(copies_and_memset_run_in_order),
      cmocka_unit_test(flagged_copies_behind_a_launch_are_evicted_in_order),
      cmocka_unit_test(cu_busy_counts_resident_time),
      cmocka_unit_test(bound_queue_runs_blocks_only_on_its_cus),
      cmocka_unit_test(rebind_moves_a_drained_queue_to_its_new_cus),
      cmocka_unit_test(batched_launch_runs_every_instance_on_its_tensors),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
