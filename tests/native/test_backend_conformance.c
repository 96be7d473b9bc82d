/* Conformance of the back-ends to native/backend.h, the same cases against every back-end this
 * machine has: `cpu` and its GPU-like mode `cpu-gpu` always, `cuda` and `hip` when their module
 * loads and a device opens (else they are left out, said on stderr).
 *
 * Layer 1, the back-end ops: launches, order, the flag, the execution index, reset_cus by launch
 * state (docs/native-gpu.md, "What a kill means"), copies (D2H data in place when the completion
 * arrives; an evicted copy leaves its destination alone), padded launches, queues bound to CUs.
 * Layer 2, the core's device ops (include/atoll/device.h) as the native runtime implements them
 * over each back-end: launch order, the execution index, the preempt flag with reset_hq and
 * reset_cus, the stream serving again afterwards, and a stream bound to CUs.
 *
 * No case waits on on_start, which backend.h makes optional: every wait is for a completion or the
 * execution index, bounded (20 s) so that a wait that can never end fails its case. `cpu-gpu` never
 * calls on_start, so a case that waited for it would fail there (the profile's time_kills did, on
 * CUDA). The harness only checks that a start, where a back-end reports one, comes once and before
 * the launch's completion. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "native/backend.h"
#include "tests/native/nlaunch_build.h"
#include "native/runtime/nrt.h"

enum { MAX_LOG = 512, START = 0xff, WAIT_MS = 20000 };

/* ---- harness --------------------------------------------------------------------------------- */

typedef struct rig {
  const char *name;
  const atoll_nbackend_ops *ops;
  void *be;
  atoll_nbackend_info info;
  pthread_mutex_t mu;
  uint64_t tag[MAX_LOG];
  uint8_t what[MAX_LOG];
  uint32_t n;
  uint32_t start_violations; /* a start after its completion, or twice */
  /* A D2H copy to watch: whether its destination held `want` when its completion came. */
  uint64_t watch_tag;
  const void *watch_dst, *watch_want;
  size_t watch_bytes;
  int watch_ok;
} rig;

static int find_locked(const rig *r, uint64_t tag, int start) {
  for (uint32_t i = 0; i < r->n; i++)
    if (r->tag[i] == tag && ((r->what[i] == START) == (start != 0)))
      return (int)i;
  return -1;
}

static void on_complete(void *ctx, uint64_t tag, atoll_ndone_status st) {
  rig *r = ctx;
  pthread_mutex_lock(&r->mu);
  if (r->watch_tag == tag)
    r->watch_ok = memcmp(r->watch_dst, r->watch_want, r->watch_bytes) == 0;
  if (r->n < MAX_LOG)
    r->tag[r->n] = tag, r->what[r->n++] = (uint8_t)st;
  pthread_mutex_unlock(&r->mu);
}

static void on_start(void *ctx, uint64_t tag) {
  rig *r = ctx;
  pthread_mutex_lock(&r->mu);
  if (find_locked(r, tag, 1) >= 0 || find_locked(r, tag, 0) >= 0)
    r->start_violations++;
  if (r->n < MAX_LOG)
    r->tag[r->n] = tag, r->what[r->n++] = START;
  pthread_mutex_unlock(&r->mu);
}

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Opens back-end `name`; returns 0, or 1 when it is not present here. */
static int rig_open(rig *r, const char *name) {
  memset(r, 0, sizeof *r);
  r->name = name;
  char err[512] = "";
  if (atoll_nbackend_lookup(name, &r->ops, err, sizeof err) != 0)
    return 1;
  pthread_mutex_init(&r->mu, NULL);
  atoll_nbackend_cfg cfg = {.cus = 0, .slots_per_cu = 1, .on_complete = on_complete, .on_start = on_start, .ctx = r};
  if (strncmp(name, "cpu", 3) == 0)
    cfg.cus = 2;
  if (r->ops->open(&cfg, &r->be, err, sizeof err) != 0) {
    fprintf(stderr, "conformance: back-end %s not present here: %s\n", name, err);
    pthread_mutex_destroy(&r->mu);
    return 1;
  }
  assert_int_equal(r->ops->info(r->be, &r->info), 0);
  return 0;
}

static void rig_close(rig *r) {
  r->ops->close(r->be);
  assert_int_equal(r->start_violations, 0);
  pthread_mutex_destroy(&r->mu);
}

/* The status of tag's completion, waiting WAIT_MS at most; its log position in *at. */
static int wait_done(rig *r, uint64_t tag, int *at) {
  for (int i = 0; i < WAIT_MS; i++) {
    pthread_mutex_lock(&r->mu);
    int k = find_locked(r, tag, 0);
    int st = k >= 0 ? r->what[k] : -1;
    pthread_mutex_unlock(&r->mu);
    if (k >= 0) {
      if (at)
        *at = k;
      return st;
    }
    pause_ms(1);
  }
  fail_msg("[%s] launch %llu did not complete within %d ms", r->name, (unsigned long long)tag, WAIT_MS);
  return -1;
}

static void wait_index(rig *r, atoll_nqueue *q, uint64_t tag) {
  uint64_t idx = 0;
  for (int i = 0; i < WAIT_MS && !(r->ops->exec_index(r->be, q, &idx) == 0 && idx == tag); i++)
    pause_ms(1);
  if (idx != tag)
    fail_msg("[%s] the execution index never named launch %llu", r->name, (unsigned long long)tag);
}

/* Waits until the execution index names launch `tag` or a later one of the same queue (tags
 * rise in submission order): a short launch may end between two polls, so its exact tag can
 * be missed. */
static uint64_t wait_index_at_least(rig *r, atoll_nqueue *q, uint64_t tag) {
  uint64_t idx = 0;
  for (int i = 0; i < WAIT_MS && !(r->ops->exec_index(r->be, q, &idx) == 0 && idx >= tag); i++)
    pause_ms(1);
  if (idx < tag)
    fail_msg("[%s] the execution index never reached launch %llu", r->name, (unsigned long long)tag);
  return idx;
}

/* A spin launch of 32-thread blocks with a preemption point every 1,000 iterations. */
static atoll_nlaunch spin(uint64_t tag, float *out, uint32_t grid, uint32_t iters) {
  return atoll_test_spin(tag, out, grid, 32, iters, 1000);
}


typedef void (*case_fn)(rig *r);

static const char *const backends[] = {"cpu", "cpu-gpu", "cuda", "hip"};

/* Runs one case against every back-end present; the cpu ones always are. */
static void each_backend(case_fn fn) {
  uint32_t ran = 0;
  for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
    rig r;
    if (rig_open(&r, backends[i]) != 0)
      continue;
    fprintf(stderr, "conformance: %s\n", backends[i]);
    fn(&r);
    rig_close(&r);
    ran++;
  }
  assert_true(ran >= 2);
}

/* A long spin launch: a grid the size of the device, running for seconds unless killed. */
static atoll_nlaunch long_spin(rig *r, uint64_t tag, float *out) {
  return spin(tag, out, r->info.cus, 2000000000u);
}

/* ---- layer 1 --------------------------------------------------------------------------------- */

/* Partitions (docs/partitions.md): a queue bound to the device's last CU runs launches beside an
 * unbound queue's, records its execution index, is evicted by its flag and killed by reset_cus like
 * any queue; padding on it is refused, and so are an empty set and one past the device's CUs. A
 * back-end that cannot bind says why (ATOLL_ENOTSUP and a message: CUDA without green contexts). */
static void c_bound_queue_runs_and_preempts(rig *r) {
  if (!r->ops->create_bound_queue) {
    fprintf(stderr, "conformance: %s has no create_bound_queue\n", r->name);
    return;
  }
  atoll_cuset last = {{0}}, past = {{0}}, empty = {{0}};
  atoll_cuset_add_range(&last, r->info.cus - 1, r->info.cus - 1);
  atoll_cuset_add_range(&past, r->info.cus - 1, r->info.cus);
  atoll_nqueue *qb, *qu, *qx;
  char err[256] = "";
  int rc = r->ops->create_bound_queue(r->be, 0, &last, &qb, err, sizeof err);
  if (rc == ATOLL_ENOTSUP) {
    assert_true(err[0] != 0);
    fprintf(stderr, "conformance: %s cannot bind a queue: %s\n", r->name, err);
    return;
  }
  assert_int_equal(rc, 0);
  assert_int_equal(r->ops->create_bound_queue(r->be, 0, &past, &qx, err, sizeof err), ATOLL_EINVAL);
  assert_int_equal(r->ops->create_bound_queue(r->be, 0, &empty, &qx, err, sizeof err), ATOLL_EINVAL);
  assert_int_equal(r->ops->create_queue(r->be, 0, &qu), 0);
  float *out; /* the bound launch's 8 blocks of 32 threads, then the unbound one's 2 */
  assert_int_equal(r->ops->alloc(r->be, (8 + 2) * 32 * sizeof(float), (void **)&out), 0);
  atoll_nlaunch b = spin(1, out, 8, 1000), u = spin(2, out + 8 * 32, 2, 1000);
  assert_int_equal(r->ops->submit(r->be, qb, &b), 0);
  assert_int_equal(r->ops->submit(r->be, qu, &u), 0);
  assert_int_equal(wait_done(r, 1, NULL), ATOLL_ND_OK);
  assert_int_equal(wait_done(r, 2, NULL), ATOLL_ND_OK);
  uint64_t idx;
  assert_int_equal(r->ops->exec_index(r->be, qb, &idx), 0);
  assert_int_equal(idx, 1);
  atoll_nlaunch padded = b;
  padded.kind = ATOLL_NL_PADDED, padded.tag = 3;
  assert_int_equal(r->ops->submit(r->be, qb, &padded), ATOLL_ENOTSUP);
  if (r->ops->reset_cus) {
    atoll_nlaunch a = spin(4, out, 1, 2000000000u), c = spin(5, out, 2, 10);
    assert_int_equal(r->ops->submit(r->be, qb, &a), 0);
    assert_int_equal(r->ops->submit(r->be, qb, &c), 0);
    wait_index(r, qb, 4);
    assert_int_equal(r->ops->set_flag(r->be, qb, true), 0);
    assert_int_equal(r->ops->reset_cus(r->be), 0);
    assert_int_equal(wait_done(r, 4, NULL), ATOLL_ND_KILLED);
    assert_int_equal(wait_done(r, 5, NULL), ATOLL_ND_EVICTED);
    assert_int_equal(r->ops->set_flag(r->be, qb, false), 0);
  }
  r->ops->free(r->be, out);
}

static void c_kernel_runs_and_records_index(rig *r) {
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, 64 * sizeof(float), (void **)&out), 0);
  uint64_t idx;
  assert_int_equal(r->ops->exec_index(r->be, q, &idx), ATOLL_ENOENT);
  atoll_nlaunch l = spin(1, out, 4, 100);
  assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  assert_int_equal(wait_done(r, 1, NULL), ATOLL_ND_OK);
  assert_int_equal(r->ops->exec_index(r->be, q, &idx), 0);
  assert_int_equal(idx, 1);
  r->ops->free(r->be, out);
}

static void c_completions_in_submission_order(rig *r) {
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, 64 * sizeof(float), (void **)&out), 0);
  for (uint64_t t = 1; t <= 16; t++) {
    atoll_nlaunch l = spin(t, out, 2, (uint32_t)(t % 3) * 2000);
    assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  }
  int prev = -1;
  for (uint64_t t = 1; t <= 16; t++) {
    int at;
    assert_int_equal(wait_done(r, t, &at), ATOLL_ND_OK);
    assert_true(at > prev);
    prev = at;
  }
  r->ops->free(r->be, out);
}

static void c_flag_before_launch_evicts_whole(rig *r) {
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, 64 * sizeof(float), (void **)&out), 0);
  assert_int_equal(r->ops->set_flag(r->be, q, true), 0);
  for (uint64_t t = 1; t <= 3; t++) {
    atoll_nlaunch l = spin(t, out, 8, 100000);
    assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  }
  for (uint64_t t = 1; t <= 3; t++)
    assert_int_equal(wait_done(r, t, NULL), ATOLL_ND_EVICTED);
  uint64_t idx;
  assert_int_equal(r->ops->exec_index(r->be, q, &idx), ATOLL_ENOENT);
  assert_int_equal(r->ops->set_flag(r->be, q, false), 0);
  atoll_nlaunch l = spin(4, out, 2, 10);
  assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  assert_int_equal(wait_done(r, 4, NULL), ATOLL_ND_OK);
  r->ops->free(r->be, out);
}

/* Running: KILLED; queued behind it under the flag: EVICTED (the table's rows 1 and 3). */
static void c_reset_kills_running_flag_evicts_queued(rig *r) {
  if (!r->ops->reset_cus)
    return;
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, (size_t)r->info.cus * 32 * sizeof(float), (void **)&out), 0);
  atoll_nlaunch a = long_spin(r, 1, out), b = spin(2, out, 2, 10), c = spin(3, out, 2, 10);
  assert_int_equal(r->ops->submit(r->be, q, &a), 0);
  assert_int_equal(r->ops->submit(r->be, q, &b), 0);
  assert_int_equal(r->ops->submit(r->be, q, &c), 0);
  wait_index(r, q, 1);
  assert_int_equal(r->ops->set_flag(r->be, q, true), 0);
  assert_int_equal(r->ops->reset_cus(r->be), 0);
  assert_int_equal(wait_done(r, 1, NULL), ATOLL_ND_KILLED);
  assert_int_equal(wait_done(r, 2, NULL), ATOLL_ND_EVICTED);
  assert_int_equal(wait_done(r, 3, NULL), ATOLL_ND_EVICTED);
  uint64_t idx;
  assert_int_equal(r->ops->exec_index(r->be, q, &idx), 0);
  assert_int_equal(idx, 1);
  assert_int_equal(r->ops->set_flag(r->be, q, false), 0);
  r->ops->free(r->be, out);
}

/* The statuses a preemption gives a closed loop of short launches: OK*, KILLED*, EVICTED*, every
 * launch completing (whatever state each was in). */
static void c_preemption_statuses_follow_the_states(rig *r) {
  if (!r->ops->reset_cus)
    return;
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, 64 * sizeof(float), (void **)&out), 0);
  for (uint64_t t = 1; t <= 12; t++) {
    atoll_nlaunch l = spin(t, out, 2, 20000);
    assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  }
  const uint64_t running = wait_index_at_least(r, q, 3);
  assert_int_equal(r->ops->set_flag(r->be, q, true), 0);
  assert_int_equal(r->ops->reset_cus(r->be), 0);
  int phase = 0; /* 0 OK, 1 KILLED, 2 EVICTED */
  for (uint64_t t = 1; t <= 12; t++) {
    int st = wait_done(r, t, NULL);
    int p = st == ATOLL_ND_OK ? 0 : st == ATOLL_ND_KILLED ? 1 : st == ATOLL_ND_EVICTED ? 2 : 3;
    if (p < phase || p == 3)
      fail_msg("[%s] launch %llu completed %d after a later phase", r->name, (unsigned long long)t, st);
    phase = p;
  }
  /* Launches were still queued when the flag went up, so the preemption cut some of them. */
  if (running < 12 && phase == 0)
    fail_msg("[%s] the flag was raised at launch %llu of 12, and every launch completed OK", r->name,
             (unsigned long long)running);
  assert_int_equal(r->ops->set_flag(r->be, q, false), 0);
  r->ops->free(r->be, out);
}

static void c_copies_round_trip_data_in_place_at_completion(rig *r) {
  enum { N = 1 << 16 };
  atoll_nqueue *q;
  uint8_t *dev, *src = malloc(N), *dst = calloc(1, N);
  assert_non_null(src);
  assert_non_null(dst);
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, N, (void **)&dev), 0);
  for (int i = 0; i < N; i++)
    src[i] = (uint8_t)(i * 13 + 1);
  uint8_t *want = malloc(N);
  assert_non_null(want);
  memcpy(want, src, N);
  pthread_mutex_lock(&r->mu);
  r->watch_tag = 2, r->watch_dst = dst, r->watch_want = want, r->watch_bytes = N;
  pthread_mutex_unlock(&r->mu);
  atoll_nlaunch h = atoll_test_copy(ATOLL_NL_COPY_H2D, 1, dev, src, N), d = atoll_test_copy(ATOLL_NL_COPY_D2H, 2, dst, dev, N);
  assert_int_equal(r->ops->submit(r->be, q, &h), 0);
  assert_int_equal(r->ops->submit(r->be, q, &d), 0);
  assert_int_equal(wait_done(r, 1, NULL), ATOLL_ND_OK);
  assert_int_equal(wait_done(r, 2, NULL), ATOLL_ND_OK);
  pthread_mutex_lock(&r->mu);
  const int ok = r->watch_ok;
  r->watch_tag = 0;
  pthread_mutex_unlock(&r->mu);
  if (!ok)
    fail_msg("[%s] D2H data not in place when its completion came (%d)", r->name, memcmp(dst, want, N));
  r->ops->free(r->be, dev);
  free(src);
  free(dst);
  free(want);
}

/* A D2H copy queued behind a running kernel when the flag is set: EVICTED, and its destination
 * untouched (the CUDA back-end reported it OK and wrote stale staging there). */
static void c_evicted_copy_leaves_destination(rig *r) {
  if (!r->ops->reset_cus)
    return;
  enum { N = 4096 };
  atoll_nqueue *q;
  float *out;
  uint8_t *dev, *dst = malloc(N), *want = malloc(N);
  assert_non_null(dst);
  assert_non_null(want);
  memset(dst, 0xab, N);
  memcpy(want, dst, N);
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, (size_t)r->info.cus * 32 * sizeof(float), (void **)&out), 0);
  assert_int_equal(r->ops->alloc(r->be, N, (void **)&dev), 0);
  atoll_nlaunch a = long_spin(r, 1, out), d = atoll_test_copy(ATOLL_NL_COPY_D2H, 2, dst, dev, N);
  assert_int_equal(r->ops->submit(r->be, q, &a), 0);
  assert_int_equal(r->ops->submit(r->be, q, &d), 0);
  wait_index(r, q, 1);
  assert_int_equal(r->ops->set_flag(r->be, q, true), 0);
  assert_int_equal(r->ops->reset_cus(r->be), 0);
  assert_int_equal(wait_done(r, 1, NULL), ATOLL_ND_KILLED);
  assert_int_equal(wait_done(r, 2, NULL), ATOLL_ND_EVICTED);
  assert_memory_equal(dst, want, N);
  assert_int_equal(r->ops->set_flag(r->be, q, false), 0);
  r->ops->free(r->be, dev);
  r->ops->free(r->be, out);
  free(dst);
  free(want);
}

static void c_padded_launch_reports_parts_first(rig *r) {
  if (!r->info.can_pad)
    return;
  atoll_nqueue *q;
  float *out;
  assert_int_equal(r->ops->create_queue(r->be, 0, &q), 0);
  assert_int_equal(r->ops->alloc(r->be, 256 * sizeof(float), (void **)&out), 0);
  atoll_nlaunch l = spin(10, out, 4, 100);
  l.kind = ATOLL_NL_PADDED;
  l.n_parts = 2;
  for (uint32_t i = 0; i < 2; i++) {
    l.parts[i] = l.k;
    l.parts[i].args.p[0] = out + 64 * (i + 1);
    l.parts[i].grid = 8;
    l.parts[i].block_lo = 4 * i;
    l.parts[i].block_n = 4;
    l.parts[i].tag = 11 + i;
  }
  assert_int_equal(r->ops->submit(r->be, q, &l), 0);
  int at10, at11, at12;
  assert_int_equal(wait_done(r, 10, &at10), ATOLL_ND_OK);
  assert_int_equal(wait_done(r, 11, &at11), ATOLL_ND_OK);
  assert_int_equal(wait_done(r, 12, &at12), ATOLL_ND_OK);
  assert_true(at11 < at10 && at12 < at10);
  r->ops->free(r->be, out);
}

/* ---- layer 2: the core's device ops through the native runtime ------------------------------ */

typedef struct l2 {
  rig *r;
  float *out;
  pthread_mutex_t mu;
  uint64_t tag[MAX_LOG];
  uint8_t status[MAX_LOG];
  uint32_t n;
} l2;

/* op 0: a short spin; op 1: one that runs for seconds unless killed. A padded launch pads op 0's
 * blocks with its parts, each a short spin of 4 blocks of an 8-block grid, writing one float a
 * block past the RT kernel's (x->out holds 32 floats per CU, and a device has at least 1 CU). */
static int l2_bind(void *ctx, const atoll_nrt_bind_req *b, atoll_nlaunch *out) {
  l2 *x = ctx;
  const uint32_t grid = b->cmd->op == 1 ? x->r->info.cus : 2;
  *out = spin(0, x->out, grid, b->cmd->op == 1 ? 2000000000u : 100);
  if (b->n_parts == 0)
    return 0;
  out->kind = ATOLL_NL_PADDED;
  out->k.cus = b->rt_cus;
  out->n_parts = b->n_parts;
  for (uint32_t i = 0; i < b->n_parts; i++) {
    out->parts[i] = spin(0, x->out + 8 * (i + 1), 8, 100).k; /* out[8 + block]: inside the 32 floats a CU */
    out->parts[i].block_lo = 4 * i;
    out->parts[i].block_n = 4;
    out->parts[i].cus = b->parts[i].cus;
  }
  return 0;
}

static void l2_handler(void *ctx, const atoll_nrt_event *ev) {
  l2 *x = ctx;
  if (ev->kind != ATOLL_NRT_EV_DONE && ev->kind != ATOLL_NRT_EV_PART_DONE)
    return;
  pthread_mutex_lock(&x->mu);
  if (x->n < MAX_LOG)
    x->tag[x->n] = ev->tag, x->status[x->n++] = ev->status;
  pthread_mutex_unlock(&x->mu);
}

static int l2_wait(l2 *x, uint64_t tag) {
  for (int i = 0; i < WAIT_MS; i++) {
    pthread_mutex_lock(&x->mu);
    for (uint32_t k = 0; k < x->n; k++)
      if (x->tag[k] == tag) {
        int st = x->status[k];
        pthread_mutex_unlock(&x->mu);
        return st;
      }
    pthread_mutex_unlock(&x->mu);
    pause_ms(1);
  }
  fail_msg("[%s] command %llu never completed through the runtime", x->r->name, (unsigned long long)tag);
  return -1;
}

static void l2_run(rig *r, void (*body)(l2 *x, atoll_device d, atoll_nrt *rt)) {
  /* The runtime opens its own instance of the back-end: close the rig's first. */
  const atoll_nbackend_ops *ops = r->ops;
  atoll_nbackend_info info = r->info;
  l2 x;
  memset(&x, 0, sizeof x);
  x.r = r;
  pthread_mutex_init(&x.mu, NULL);
  atoll_nrt_cfg cfg = {.be_ops = ops,
                       .be_cfg = {.cus = strncmp(r->name, "cpu", 3) == 0 ? 2 : 0, .slots_per_cu = 1},
                       .bind = l2_bind,
                       .bind_ctx = &x,
                       .handler = l2_handler,
                       .handler_ctx = &x,
                       .spin_ns = 200000,
                       .sched_cpu = -1};
  atoll_nrt *rt;
  char err[256];
  assert_int_equal(atoll_nrt_create(&rt, &cfg, err, sizeof err), 0);
  void *be = atoll_nrt_backend(rt);
  assert_int_equal(ops->alloc(be, (size_t)info.cus * 32 * sizeof(float), (void **)&x.out), 0);
  assert_int_equal(atoll_nrt_start(rt, NULL, NULL), 0);
  body(&x, atoll_nrt_device(rt), rt);
  atoll_nrt_quiesce(rt);
  ops->free(be, x.out);
  assert_int_equal(atoll_nrt_failure(rt), 0);
  atoll_nrt_destroy(rt);
  pthread_mutex_destroy(&x.mu);
}

static void l2_order_body(l2 *x, atoll_device d, atoll_nrt *rt) {
  (void)rt;
  uint32_t s;
  atoll_stream_cfg sc = {.dq_capacity = 4, .name = "conf"};
  assert_int_equal(d.ops->create_stream(d.ctx, &sc, &s), 0);
  atoll_cmd cmds[10];
  for (uint32_t i = 0; i < 10; i++)
    cmds[i] = (atoll_cmd){.op = 0, .tag = 100 + i};
  assert_int_equal(d.ops->launch(d.ctx, s, cmds, 10), 0);
  assert_int_equal(l2_wait(x, 109), ATOLL_ND_OK);
  pthread_mutex_lock(&x->mu);
  for (uint32_t i = 0; i < 10; i++) {
    assert_int_equal(x->tag[i], 100 + i);
    assert_int_equal(x->status[i], ATOLL_ND_OK);
  }
  pthread_mutex_unlock(&x->mu);
}

static void l2_preempt_body(l2 *x, atoll_device d, atoll_nrt *rt) {
  (void)rt;
  uint32_t s;
  atoll_stream_cfg sc = {.dq_capacity = 2, .name = "conf"};
  assert_int_equal(d.ops->create_stream(d.ctx, &sc, &s), 0);
  atoll_cmd longc = {.op = 1, .tag = 1};
  assert_int_equal(d.ops->launch(d.ctx, s, &longc, 1), 0);
  atoll_cmd rest[6];
  for (uint32_t i = 0; i < 6; i++)
    rest[i] = (atoll_cmd){.op = 0, .tag = 10 + i};
  assert_int_equal(d.ops->launch(d.ctx, s, rest, 6), 0);
  uint64_t idx = 0;
  for (int i = 0; i < WAIT_MS && !(d.ops->exec_index(d.ctx, s, &idx) == 0 && idx == 1); i++)
    pause_ms(1);
  assert_int_equal(idx, 1);
  uint32_t dropped = 0;
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, true), 0);
  assert_int_equal(d.ops->reset_hq(d.ctx, s, false, &dropped), 0);
  assert_true(dropped >= 1); /* the DQ holds 2: at least 5 of the 7 were still in the HQ */
  assert_int_equal(d.ops->reset_cus(d.ctx), 0);
  assert_int_equal(l2_wait(x, 1), ATOLL_ND_KILLED);
  /* The stream serves again: a new command completes OK. */
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, false), 0);
  atoll_cmd again = {.op = 0, .tag = 50};
  assert_int_equal(d.ops->launch(d.ctx, s, &again, 1), 0);
  assert_int_equal(l2_wait(x, 50), ATOLL_ND_OK);
}

/* set_dq_capacity: the transmit thread moves launches into the DQ until exactly the new capacity is
 * in flight, and holds the rest in the HQ (asked of the thread, not inferred from a pause). */
static void l2_dq_capacity_body(l2 *x, atoll_device d, atoll_nrt *rt) {
  uint32_t s;
  atoll_stream_cfg sc = {.dq_capacity = 2, .name = "conf"};
  assert_int_equal(d.ops->create_stream(d.ctx, &sc, &s), 0);
  assert_non_null(d.ops->set_dq_capacity);
  assert_int_equal(d.ops->set_dq_capacity(d.ctx, s, 5), 0);
  atoll_cmd cmds[8];
  cmds[0] = (atoll_cmd){.op = 1, .tag = 1};
  for (uint32_t i = 1; i < 8; i++)
    cmds[i] = (atoll_cmd){.op = 0, .tag = 10 + i};
  /* The long kernel first, alone, so the short ones cannot finish and leave the DQ. */
  assert_int_equal(d.ops->launch(d.ctx, s, cmds, 1), 0);
  uint64_t idx = 0;
  for (int i = 0; i < WAIT_MS && !(d.ops->exec_index(d.ctx, s, &idx) == 0 && idx == 1); i++)
    pause_ms(1);
  assert_int_equal(idx, 1);
  assert_int_equal(d.ops->launch(d.ctx, s, cmds + 1, 7), 0);
  atoll_nrt_tx_park park = {0};
  for (int i = 0; i < 100 && park.why != ATOLL_NRT_TX_DQ_FULL; i++)
    assert_int_equal(atoll_nrt_tx_probe(rt, s, 200000000, &park), 0);
  assert_int_equal(park.why, ATOLL_NRT_TX_DQ_FULL);
  assert_int_equal(park.dq, 5);
  assert_int_equal(park.hq, 3);
  uint32_t dropped = 0;
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, true), 0);
  assert_int_equal(d.ops->reset_hq(d.ctx, s, false, &dropped), 0);
  assert_int_equal(dropped, 3);
  assert_int_equal(d.ops->reset_cus(d.ctx), 0);
  assert_int_equal(l2_wait(x, 1), ATOLL_ND_KILLED);
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, false), 0);
}

/* launch_padded: each BE part completes (PART_DONE with the part's own tag) before the launch. */
static void l2_padded_body(l2 *x, atoll_device d, atoll_nrt *rt) {
  (void)rt;
  if (!d.ops->launch_padded)
    return; /* the back-end cannot pad (info.can_pad false): the core never asks it to */
  uint32_t s;
  atoll_stream_cfg sc = {.dq_capacity = 4, .name = "conf"};
  assert_int_equal(d.ops->create_stream(d.ctx, &sc, &s), 0);
  atoll_cmd rtc = {.op = 0, .tag = 70, .rt = 1};
  atoll_pad_part parts[2] = {{.cmd = {.op = 0, .tag = 71}, .occupancy = 1, .cus = 0},
                             {.cmd = {.op = 0, .tag = 72}, .occupancy = 1, .cus = 0}};
  assert_int_equal(d.ops->launch_padded(d.ctx, s, &rtc, 0, parts, 2), 0);
  assert_int_equal(l2_wait(x, 70), ATOLL_ND_OK);
  pthread_mutex_lock(&x->mu);
  int at70 = -1, at71 = -1, at72 = -1;
  for (uint32_t k = 0; k < x->n; k++) {
    if (x->tag[k] == 70)
      at70 = (int)k;
    if (x->tag[k] == 71)
      at71 = (int)k;
    if (x->tag[k] == 72)
      at72 = (int)k;
  }
  pthread_mutex_unlock(&x->mu);
  assert_in_range(at71, 0, at70 - 1);
  assert_in_range(at72, 0, at70 - 1);
  assert_int_equal(x->status[at71], ATOLL_ND_OK);
  assert_int_equal(x->status[at72], ATOLL_ND_OK);
}

/* A stream bound to CUs (docs/partitions.md) through the runtime: its commands complete in order,
 * and one bound past the device's CUs cannot be created. A back-end that cannot bind is refused by
 * the runtime (ATOLL_ENOTSUP), which is what the case then checks. */
static void l2_bound_stream_body(l2 *x, atoll_device d, atoll_nrt *rt) {
  uint32_t s;
  atoll_stream_cfg sc = {.dq_capacity = 4, .name = "conf"};
  atoll_cuset_add_range(&sc.cus, x->r->info.cus - 1, x->r->info.cus - 1);
  int rc = d.ops->create_stream(d.ctx, &sc, &s);
  if (rc == ATOLL_ENOTSUP) {
    assert_true(*atoll_nrt_stream_error(rt) != 0);
    fprintf(stderr, "conformance: %s binds no stream: %s\n", x->r->name, atoll_nrt_stream_error(rt));
    return;
  }
  assert_int_equal(rc, 0);
  atoll_cmd cmds[6];
  for (uint32_t i = 0; i < 6; i++)
    cmds[i] = (atoll_cmd){.op = 0, .tag = 200 + i};
  assert_int_equal(d.ops->launch(d.ctx, s, cmds, 6), 0);
  assert_int_equal(l2_wait(x, 205), ATOLL_ND_OK);
  pthread_mutex_lock(&x->mu);
  for (uint32_t i = 0; i < 6; i++)
    assert_int_equal(x->tag[i], 200 + i);
  pthread_mutex_unlock(&x->mu);
  atoll_stream_cfg past = {.dq_capacity = 4, .name = "past"};
  atoll_cuset_add_range(&past.cus, x->r->info.cus, x->r->info.cus);
  assert_int_not_equal(d.ops->create_stream(d.ctx, &past, &s), 0);
}

static void c_l2_launches_complete_in_order(rig *r) { l2_run(r, l2_order_body); }
static void c_l2_bound_stream_serves_in_order(rig *r) { l2_run(r, l2_bound_stream_body); }
static void c_l2_set_dq_capacity_bounds_in_flight(rig *r) { l2_run(r, l2_dq_capacity_body); }
static void c_l2_padded_launch_parts_before_it(rig *r) { l2_run(r, l2_padded_body); }
static void c_l2_flag_reset_hq_and_reset_cus(rig *r) { l2_run(r, l2_preempt_body); }

/* ---- cases ------------------------------------------------------------------------------------ */

#define CASE(fn)                                                                                        \
  static void fn(void **state) {                                                                        \
    (void)state;                                                                                        \
    each_backend(c_##fn);                                                                               \
  }
CASE(kernel_runs_and_records_index)
CASE(completions_in_submission_order)
CASE(flag_before_launch_evicts_whole)
CASE(reset_kills_running_flag_evicts_queued)
CASE(preemption_statuses_follow_the_states)
CASE(copies_round_trip_data_in_place_at_completion)
CASE(evicted_copy_leaves_destination)
CASE(padded_launch_reports_parts_first)
CASE(l2_launches_complete_in_order)
CASE(l2_flag_reset_hq_and_reset_cus)
CASE(l2_set_dq_capacity_bounds_in_flight)
CASE(l2_padded_launch_parts_before_it)
CASE(bound_queue_runs_and_preempts)
CASE(l2_bound_stream_serves_in_order)

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(kernel_runs_and_records_index),
    cmocka_unit_test(completions_in_submission_order),
    cmocka_unit_test(flag_before_launch_evicts_whole),
    cmocka_unit_test(reset_kills_running_flag_evicts_queued),
    cmocka_unit_test(preemption_statuses_follow_the_states),
    cmocka_unit_test(copies_round_trip_data_in_place_at_completion),
    cmocka_unit_test(evicted_copy_leaves_destination),
    cmocka_unit_test(padded_launch_reports_parts_first),
    cmocka_unit_test(l2_launches_complete_in_order),
    cmocka_unit_test(l2_flag_reset_hq_and_reset_cus),
    cmocka_unit_test(l2_set_dq_capacity_bounds_in_flight),
    cmocka_unit_test(l2_padded_launch_parts_before_it),
    cmocka_unit_test(bound_queue_runs_and_preempts),
    cmocka_unit_test(l2_bound_stream_serves_in_order),
};

ATOLL_TEST_MAIN(tests)
