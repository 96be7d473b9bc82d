/* The CPU back-end's GPU-like mode ("cpu-gpu", cpu_backend.h), each behaviour it takes from the GPU
 * back-ends: no start callback; reports that lag the device, so finished launches stay in flight
 * and a reset makes them KILLED; a reset that reaches a launch dispatched before any block ran;
 * copies through a staging ring (the source reusable once submit returns, D2H data in place when
 * the completion arrives); and expf/tanhf that round differently from libm. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "native/backend.h"
#include "native/cpu/cpu_backend.h"
#include "tests/native/nlaunch_build.h"

enum { MAX_LOG = 256, START = 0xff };

typedef struct log_t {
  pthread_mutex_t mu;
  uint64_t tag[MAX_LOG];
  uint8_t what[MAX_LOG];
  uint32_t n;
} log_t;

static log_t L;
static const atoll_nbackend_ops *B;

static void on_complete(void *ctx, uint64_t tag, atoll_ndone_status st) {
  (void)ctx;
  pthread_mutex_lock(&L.mu);
  if (L.n < MAX_LOG)
    L.tag[L.n] = tag, L.what[L.n++] = (uint8_t)st;
  pthread_mutex_unlock(&L.mu);
}

static void on_start(void *ctx, uint64_t tag) { on_complete(ctx, tag, (atoll_ndone_status)START); }

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* The status of tag's completion, waiting up to 20 s; the log position in *at. */
static int wait_done(uint64_t tag, int *at) {
  for (int i = 0; i < 20000; i++) {
    pthread_mutex_lock(&L.mu);
    for (uint32_t k = 0; k < L.n; k++)
      if (L.tag[k] == tag && L.what[k] != START) {
        int st = L.what[k];
        if (at)
          *at = (int)k;
        pthread_mutex_unlock(&L.mu);
        return st;
      }
    pthread_mutex_unlock(&L.mu);
    pause_ms(1);
  }
  fail_msg("launch %llu never completed", (unsigned long long)tag);
  return -1;
}

static uint32_t count(uint8_t what) {
  pthread_mutex_lock(&L.mu);
  uint32_t n = 0;
  for (uint32_t k = 0; k < L.n; k++)
    n += L.what[k] == what;
  pthread_mutex_unlock(&L.mu);
  return n;
}

static void *open_like(uint32_t cus, int64_t lag_ns) {
  memset(&L, 0, sizeof L);
  pthread_mutex_init(&L.mu, NULL);
  const atoll_nbackend_ops *named = NULL;
  char err[128];
  assert_int_equal(atoll_nbackend_lookup("cpu-gpu", &named, err, sizeof err), 0);
  B = atoll_ncpu_gpu_like_backend();
  assert_ptr_equal(named, B);
  atoll_ncpu_set_report_lag_ns(lag_ns);
  atoll_nbackend_cfg cfg = {.cus = cus, .slots_per_cu = 1, .on_complete = on_complete, .on_start = on_start};
  void *be = NULL;
  assert_int_equal(B->open(&cfg, &be, err, sizeof err), 0);
  return be;
}

static void close_like(void *be) {
  B->close(be);
  atoll_ncpu_set_report_lag_ns(0);
  pthread_mutex_destroy(&L.mu);
}

static atoll_nlaunch spin(uint64_t tag, float *out, uint32_t grid, uint32_t iters, uint32_t per_point) {
  return atoll_test_spin(tag, out, grid, 4, iters, per_point);
}


static void wait_index(void *be, atoll_nqueue *q, uint64_t tag) {
  uint64_t idx = 0;
  for (int i = 0; i < 20000 && !(B->exec_index(be, q, &idx) == 0 && idx == tag); i++)
    pause_ms(1);
  assert_int_equal(idx, tag);
}

static void no_start_callback_but_every_completion(void **state) {
  (void)state;
  void *be = open_like(2, 0);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[8] = {0};
  for (uint64_t t = 1; t <= 4; t++) {
    atoll_nlaunch l = spin(t, out, 8, 100, 10);
    assert_int_equal(B->submit(be, q, &l), 0);
  }
  for (uint64_t t = 1; t <= 4; t++)
    assert_int_equal(wait_done(t, NULL), ATOLL_ND_OK);
  assert_int_equal(count(START), 0);
  close_like(be);
}

/* With a long report lag, launches the device has finished are still in flight: a reset makes every
 * kernel that ran KILLED, finished or not (a GPU back-end cannot tell), in submission order. */
static void reset_reaches_finished_unreported_launches(void **state) {
  (void)state;
  void *be = open_like(2, 300000000);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  float out[8] = {0};
  atoll_nlaunch a = spin(1, out, 2, 10, 10), b = spin(2, out, 2, 10, 10);
  assert_int_equal(B->submit(be, q, &a), 0);
  assert_int_equal(B->submit(be, q, &b), 0);
  wait_index(be, q, 2); /* launch 1 finished on the device; both are unreported for 300 ms */
  assert_int_equal(count(ATOLL_ND_OK) + count(ATOLL_ND_KILLED), 0);
  assert_int_equal(B->reset_cus(be), 0);
  int at1 = -1, at2 = -1;
  assert_int_equal(wait_done(1, &at1), ATOLL_ND_KILLED);
  assert_int_equal(wait_done(2, &at2), ATOLL_ND_KILLED);
  assert_true(at1 < at2);
  close_like(be);
}

/* One CU held by a long launch of queue 1; a launch of queue 2 is dispatched but none of its blocks
 * can start. The reset reaches it: KILLED without the flag (the plain CPU mode would run it). */
static void reset_reaches_dispatched_launch_before_its_blocks(void **state) {
  (void)state;
  void *be = open_like(1, 0);
  atoll_nqueue *q1, *q2;
  assert_int_equal(B->create_queue(be, 0, &q1), 0);
  assert_int_equal(B->create_queue(be, 0, &q2), 0);
  float out[8] = {0}, out2[8] = {0};
  atoll_nlaunch a = spin(1, out, 1, 400000000, 1000), b = spin(2, out2, 1, 10, 10);
  assert_int_equal(B->submit(be, q1, &a), 0);
  wait_index(be, q1, 1);
  assert_int_equal(B->submit(be, q2, &b), 0);
  uint64_t idx;
  assert_int_equal(B->exec_index(be, q2, &idx), ATOLL_ENOENT);
  assert_int_equal(B->reset_cus(be), 0);
  assert_int_equal(wait_done(1, NULL), ATOLL_ND_KILLED);
  assert_int_equal(wait_done(2, NULL), ATOLL_ND_KILLED);
  assert_int_equal(B->exec_index(be, q2, &idx), ATOLL_ENOENT); /* no block of it ran */
  close_like(be);
}

/* H2D: the source may be overwritten once submit returns. D2H: the data is in place when its
 * completion is reported, not before the device ran the copy. */
static void copies_go_through_staging(void **state) {
  (void)state;
  void *be = open_like(1, 0);
  atoll_nqueue *q;
  assert_int_equal(B->create_queue(be, 0, &q), 0);
  enum { N = 4096 };
  uint8_t *dev = NULL, *src = malloc(N), *back = calloc(1, N), *want = malloc(N);
  assert_non_null(src);
  assert_non_null(back);
  assert_non_null(want);
  assert_int_equal(B->alloc(be, N, (void **)&dev), 0);
  for (int i = 0; i < N; i++)
    src[i] = want[i] = (uint8_t)(i * 7 + 3);
  atoll_nlaunch h2d = atoll_test_copy(ATOLL_NL_COPY_H2D, 1, dev, src, N), d2h = atoll_test_copy(ATOLL_NL_COPY_D2H, 2, back, dev, N);
  assert_int_equal(B->submit(be, q, &h2d), 0);
  memset(src, 0xee, N); /* the staging ring holds the data already */
  assert_int_equal(B->submit(be, q, &d2h), 0);
  assert_int_equal(wait_done(1, NULL), ATOLL_ND_OK);
  assert_int_equal(wait_done(2, NULL), ATOLL_ND_OK);
  assert_memory_equal(back, want, N);
  /* 3 MB copies, 18 MB in all: more than the 8 MB ring, so submit waits for room and never fails. */
  const size_t big = (size_t)3 << 20;
  uint8_t *bdev = NULL, *bsrc = calloc(1, big);
  assert_non_null(bsrc);
  assert_int_equal(B->alloc(be, big, (void **)&bdev), 0);
  for (uint64_t t = 3; t < 3 + 6; t++) {
    atoll_nlaunch c = atoll_test_copy(ATOLL_NL_COPY_H2D, t, bdev, bsrc, big);
    assert_int_equal(B->submit(be, q, &c), 0);
  }
  for (uint64_t t = 3; t < 3 + 6; t++)
    assert_int_equal(wait_done(t, NULL), ATOLL_ND_OK);
  B->free(be, bdev);
  free(bsrc);
  B->free(be, dev);
  free(src);
  free(back);
  free(want);
  close_like(be);
}

/* ak_alt_expf / ak_alt_tanhf: within the self-test's libm tolerance of libm, but not bit-identical
 * to it everywhere (the point of the mode). */
static void alt_math_rounds_differently_within_tolerance(void **state) {
  (void)state;
  uint32_t differ = 0;
  double worst = 0;
  for (int i = -20000; i <= 20000; i++) {
    const float x = (float)i / 1000.0f;
    const float e = expf(x), ea = ak_alt_expf(x), t = tanhf(x), ta = ak_alt_tanhf(x);
    differ += (e != ea) + (t != ta);
    const double de = fabs((double)e - ea) / fabs((double)e), dt = fabs((double)t - ta);
    worst = de > worst ? de : worst;
    assert_true(de <= 1e-6);
    assert_true(dt <= 1e-6 + 1e-5 * fabs((double)t));
  }
  assert_true(differ > 100);
  (void)worst;
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_start_callback_but_every_completion),
      cmocka_unit_test(reset_reaches_finished_unreported_launches),
      cmocka_unit_test(reset_reaches_dispatched_launch_before_its_blocks),
      cmocka_unit_test(copies_go_through_staging),
      cmocka_unit_test(alt_math_rounds_differently_within_tolerance),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
