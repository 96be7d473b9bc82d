/* Preemption points: with the kill word set every kernel abandons its block with AK_KILLED before
 * writing anything; with it clear the result is the same as without a kill word; and a block that
 * is already running stops when another thread sets the word (what the CPU back-end's CU reset
 * does). */
#include <pthread.h>
#include <time.h>

#include "tests/native_kernels/nk_test.h"

/* One valid launch of every kernel, over small buffers. */
typedef struct launch {
  uint32_t kernel, grid, threads;
  ak_args a;
  float *out;
  size_t out_n;
} launch;

enum { BUF = 4096 };

static float *in0, *in1, *in2, *out;

static void setup_buffers(void) {
  in0 = nk_alloc(BUF, 1);
  in1 = nk_alloc(BUF, 2);
  in2 = nk_alloc(BUF, 3);
  out = nk_alloc(BUF, 4);
}

static void free_buffers(void) { free(in0), free(in1), free(in2), free(out); }

static launch make_launch(uint32_t k) {
  launch l = {.kernel = k, .grid = 1, .threads = 64, .out = out, .out_n = BUF};
  ak_args *a = &l.a;
  memset(a, 0, sizeof *a);
  switch (k) {
  case AK_K_GEMM: { /* 32x32x32 */
    static const int32_t v[15] = {32, 32, 32, 32, 1, 32, 1, 32, 1, 0, 0, 0, 0, 16, 16};
    memcpy(a->i, v, sizeof v);
    a->i[12] = ak_bits(1.0f);
    a->p[0] = in0, a->p[1] = in1, a->p[2] = out, a->p[3] = in2;
    l.grid = 4;
    break;
  }
  case AK_K_CONV2D: { /* 4 -> 8 channels, 16x16, 3x3, pad 1 */
    static const int32_t v[12] = {4, 16, 16, 8, 3, 3, 1, 1, 16, 16, 4, 4};
    memcpy(a->i, v, sizeof v);
    a->p[0] = in0, a->p[1] = in1, a->p[2] = in2, a->p[3] = out;
    l.grid = 8;
    break;
  }
  case AK_K_BIAS_RELU: {
    static const int32_t v[5] = {BUF, 4, BUF / 4, 1, 1024};
    memcpy(a->i, v, sizeof v);
    a->p[0] = in0, a->p[1] = in1, a->p[2] = out;
    l.grid = 4;
    break;
  }
  case AK_K_MAXPOOL:
  case AK_K_AVGPOOL: {
    static const int32_t v[8] = {4, 32, 32, 2, 2, 16, 16, 256};
    memcpy(a->i, v, sizeof v);
    a->p[0] = in0, a->p[1] = out;
    l.grid = 4;
    break;
  }
  case AK_K_SOFTMAX: {
    static const int32_t v[3] = {64, 64, 16};
    memcpy(a->i, v, sizeof v);
    a->p[0] = in0, a->p[1] = out;
    l.grid = 4;
    break;
  }
  case AK_K_LAYERNORM: {
    static const int32_t v[4] = {64, 64, 0, 16};
    memcpy(a->i, v, sizeof v);
    a->i[2] = ak_bits(1e-5f);
    a->p[0] = in0, a->p[1] = in1, a->p[2] = in2, a->p[3] = out;
    l.grid = 4;
    break;
  }
  case AK_K_GELU:
    a->i[0] = BUF, a->i[1] = 1024;
    a->p[0] = in0, a->p[1] = out;
    l.grid = 4;
    break;
  case AK_K_ADD:
    a->i[0] = BUF, a->i[1] = 1024;
    a->p[0] = in0, a->p[1] = in1, a->p[2] = out;
    l.grid = 4;
    break;
  case AK_K_ADD_INPLACE:
    a->i[0] = BUF, a->i[1] = 1024;
    a->p[0] = out, a->p[1] = in0;
    l.grid = 4;
    break;
  case AK_K_SPIN:
    a->i[0] = 100, a->i[1] = 10;
    a->p[0] = out;
    l.grid = 4;
    break;
  default:
    fail_msg("no launch for kernel %u", k);
  }
  return l;
}

static void every_kernel_stops_before_writing_when_killed(void **state) {
  (void)state;
  setup_buffers();
  float *before = malloc(BUF * sizeof *before);
  assert_non_null(before);
  const volatile uint32_t kill = 1;
  for (uint32_t k = 1; k < AK_K_COUNT; k++) {
    launch l = make_launch(k);
    memcpy(before, out, BUF * sizeof *out);
    for (uint32_t b = 0; b < l.grid; b++) {
      ak_ctx c = {.block = b, .grid = l.grid, .threads = l.threads, .kill = &kill};
      int rc = ak_run_block(k, &l.a, &c);
      if (rc != AK_KILLED)
        fail_msg("kernel %u block %u returned %d with the kill word set, want AK_KILLED", k, b, rc);
    }
    nk_assert_same(out, before, BUF, "output of a block killed at its first point");
  }
  free(before);
  free_buffers();
}

static void clear_kill_word_changes_nothing(void **state) {
  (void)state;
  setup_buffers();
  float *with_null = malloc(BUF * sizeof *with_null);
  assert_non_null(with_null);
  const volatile uint32_t kill = 0;
  for (uint32_t k = 1; k < AK_K_COUNT; k++) {
    launch l = make_launch(k);
    float *saved = nk_alloc(BUF, 4);
    memcpy(saved, out, BUF * sizeof *out); /* add_inplace reads out: start both runs alike */
    assert_int_equal(nk_run(k, &l.a, l.grid, l.threads, NULL), AK_DONE);
    memcpy(with_null, out, BUF * sizeof *out);
    memcpy(out, saved, BUF * sizeof *out);
    assert_int_equal(nk_run(k, &l.a, l.grid, l.threads, &kill), AK_DONE);
    nk_assert_same(out, with_null, BUF, "result with a clear kill word");
    free(saved);
  }
  free(with_null);
  free_buffers();
}

typedef struct runner {
  uint32_t kernel;
  const ak_args *a;
  const volatile uint32_t *kill;
  uint32_t entered, done; /* set (atomically) before the block runs, and once it returned */
  int rc;
} runner;

static void *run_one_block(void *p) {
  runner *r = p;
  ak_ctx c = {.block = 0, .grid = 1, .threads = 32, .kill = r->kill};
  __atomic_store_n(&r->entered, 1u, __ATOMIC_RELEASE);
  r->rc = ak_run_block(r->kernel, r->a, &c);
  __atomic_store_n(&r->done, 1u, __ATOMIC_RELEASE);
  return NULL;
}

static int64_t thread_cpu_ns(pthread_t th) {
  clockid_t id;
  struct timespec ts;
  if (pthread_getcpuclockid(th, &id) != 0 || clock_gettime(id, &ts) != 0)
    return -1;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pause_us(long us) {
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

/* Starts kernel's block 0 on another thread and sets the kill word only once that thread has spent
 * 5 ms of CPU time inside the block (its own CPU clock, so a loaded machine that starts it late
 * changes nothing): a block that returns AK_KILLED then was killed while running, at a preemption
 * point inside its work, not at its entry. The launches below would run for minutes unkilled; a
 * block not killed within 10 s fails. */
static void expect_killed_while_running(uint32_t kernel, const ak_args *a) {
  uint32_t kill = 0;
  runner r = {.kernel = kernel, .a = a, .kill = &kill, .rc = -1};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, run_one_block, &r), 0);
  while (!__atomic_load_n(&r.entered, __ATOMIC_ACQUIRE))
    pause_us(100);
  int64_t cpu = 0;
  for (int i = 0; i < 100000 && (cpu = thread_cpu_ns(th)) >= 0 && cpu < 5000000; i++)
    pause_us(100);
  if (cpu < 5000000)
    fail_msg("kernel %u: no 5 ms of CPU time in the block (thread clock %lld ns)", kernel, (long long)cpu);
  assert_int_equal(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE), 0); /* still running when killed */
  __atomic_store_n(&kill, 1u, __ATOMIC_RELAXED);
  for (int i = 0; i < 100000 && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); i++)
    pause_us(100);
  if (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
    fail_msg("kernel %u still running 10 s after the kill word was set (after %lld us of its CPU time)", kernel,
             (long long)(cpu / 1000));
  assert_int_equal(pthread_join(th, NULL), 0);
  if (r.rc != AK_KILLED)
    fail_msg("kernel %u returned %d after the kill word was set, want AK_KILLED", kernel, r.rc);
}

static void running_spin_block_is_killed(void **state) {
  (void)state;
  float o[1];
  ak_args a = {.p = {o}, .i = {INT32_MAX, 4096}};
  expect_killed_while_running(AK_K_SPIN, &a);
}

static void running_gemm_block_is_killed(void **state) {
  (void)state;
  /* A 32x32 tile with K = 2^30: k strides of 0 keep the buffers tiny. */
  float A[32], B[32], C[32 * 32];
  for (int i = 0; i < 32; i++)
    A[i] = B[i] = 1.0f;
  ak_args a = {.p = {A, B, C, NULL},
               .i = {32, 32, 1 << 30, 1, 0, 0, 1, 32, 1, 0, 0, 0, ak_bits(1.0f), 32, 32}};
  expect_killed_while_running(AK_K_GEMM, &a);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_kernel_stops_before_writing_when_killed),
      cmocka_unit_test(clear_kill_word_changes_nothing),
      cmocka_unit_test(running_spin_block_is_killed),
      cmocka_unit_test(running_gemm_block_is_killed),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
