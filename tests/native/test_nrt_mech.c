/* The native runtime's mechanisms against a scripted back-end: the test submits through the device
 * interface (as the core would) and completes launches by hand, so each mechanism is checked
 * exactly, whatever the timing: the DQ bound and its run-time capacity, the HQ reset (synchronous
 * and through the GC thread), the preempt flag holding later launches until the evicted ones have
 * left, the execution index mapped back to the core's tag, completions and starts reaching the
 * scheduler thread in order, padded launches' parts, the threads' names. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "tests/native/thread_policy.h"
#include "native/runtime/nrt.h"

/* --- the scripted back-end --- */

enum { MAX_SUB = 512 };

typedef struct fake {
  atoll_nbackend_cfg cfg;
  pthread_mutex_t mu;
  atoll_nlaunch sub[MAX_SUB];
  uint32_t sub_queue[MAX_SUB];
  uint32_t n_sub, n_queues;
  uint32_t flag[8], flag_writes;
  uint64_t exec;
  int has_exec;
  uint32_t resets;
} fake;

static fake *F;
static bool fake_hw_reset = true; /* what f_info reports as can_reset_cus */

static int f_open(const atoll_nbackend_cfg *cfg, void **be, char *err, size_t len) {
  (void)err, (void)len;
  F = calloc(1, sizeof *F);
  F->cfg = *cfg;
  pthread_mutex_init(&F->mu, NULL);
  *be = F;
  return 0;
}
static void f_close(void *be) {
  (void)be;
  pthread_mutex_destroy(&F->mu);
  free(F);
  F = NULL;
}
static int f_info(void *be, atoll_nbackend_info *o) {
  (void)be;
  memset(o, 0, sizeof *o);
  o->cus = 2;
  o->max_occupancy = 1;
  o->can_reset_cus = fake_hw_reset;
  o->can_pad = true;
  return 0;
}
static int f_alloc(void *be, size_t n, void **p) {
  (void)be;
  *p = calloc(1, n);
  return 0;
}
static void f_free(void *be, void *p) {
  (void)be;
  free(p);
}
static int f_copy(void *be, void *d, const void *s, size_t n) {
  (void)be;
  memcpy(d, s, n);
  return 0;
}
static int f_create_queue(void *be, uint32_t prio, atoll_nqueue **q) {
  (void)be, (void)prio;
  *q = (atoll_nqueue *)(uintptr_t)(++F->n_queues); /* 1-based, never NULL */
  return 0;
}
static int f_submit(void *be, atoll_nqueue *q, const atoll_nlaunch *l) {
  (void)be;
  pthread_mutex_lock(&F->mu);
  F->sub_queue[F->n_sub] = (uint32_t)(uintptr_t)q - 1;
  F->sub[F->n_sub++] = *l;
  pthread_mutex_unlock(&F->mu);
  return 0;
}
static int f_set_flag(void *be, atoll_nqueue *q, bool on) {
  (void)be;
  pthread_mutex_lock(&F->mu);
  F->flag[(uintptr_t)q - 1] = on;
  F->flag_writes++;
  pthread_mutex_unlock(&F->mu);
  return 0;
}
static int f_exec_index(void *be, atoll_nqueue *q, uint64_t *tag) {
  (void)be, (void)q;
  pthread_mutex_lock(&F->mu);
  int rc = F->has_exec ? 0 : ATOLL_ENOENT;
  *tag = F->exec;
  pthread_mutex_unlock(&F->mu);
  return rc;
}
static int f_reset(void *be) {
  (void)be;
  F->resets++;
  return 0;
}

static const atoll_nbackend_ops fake_ops = {.name = "fake", .open = f_open, .close = f_close, .info = f_info,
                                            .alloc = f_alloc, .free = f_free, .copy_to_device = f_copy,
                                            .copy_from_device = f_copy, .create_queue = f_create_queue,
                                            .submit = f_submit, .set_flag = f_set_flag, .exec_index = f_exec_index,
                                            .reset_cus = f_reset};

static uint32_t submitted(void) {
  pthread_mutex_lock(&F->mu);
  uint32_t n = F->n_sub;
  pthread_mutex_unlock(&F->mu);
  return n;
}

static atoll_nlaunch sub_at(uint32_t i) {
  pthread_mutex_lock(&F->mu);
  atoll_nlaunch l = F->sub[i];
  pthread_mutex_unlock(&F->mu);
  return l;
}

static uint32_t flag_of(uint32_t q) {
  pthread_mutex_lock(&F->mu);
  uint32_t v = F->flag[q];
  pthread_mutex_unlock(&F->mu);
  return v;
}

static void pause_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

/* Asks stream s's transmit thread to evaluate its rule again (atoll_nrt_tx_probe) and checks that
 * it holds the HQ back for the reason `why`, with hq waiting and dq in flight: "nothing is
 * transmitted" is then what the thread decided, not what a pause happened not to show. */
static void assert_tx_holds(atoll_nrt *r, uint32_t s, atoll_nrt_tx_why why, uint32_t hq, uint32_t dq) {
  atoll_nrt_tx_park p;
  assert_int_equal(atoll_nrt_tx_probe(r, s, 2000000000, &p), 0);
  assert_int_equal(p.why, why);
  assert_int_equal(p.hq, hq);
  assert_int_equal(p.dq, dq);
}

/* Waits (up to 2 s) until `n` launches have been submitted; the transmit threads are asynchronous. */
static void wait_submitted(uint32_t n) {
  for (int i = 0; i < 2000 && submitted() < n; i++)
    pause_ms(1);
  assert_int_equal(submitted(), n);
}

/* --- events seen by the scheduler thread --- */

typedef struct seen {
  pthread_mutex_t mu;
  atoll_nrt_event ev[MAX_SUB * 2];
  uint32_t n;
} seen;

static seen S;

static void handler(void *ctx, const atoll_nrt_event *ev) {
  (void)ctx;
  pthread_mutex_lock(&S.mu);
  if (S.n < MAX_SUB * 2)
    S.ev[S.n++] = *ev;
  pthread_mutex_unlock(&S.mu);
}

static uint32_t count_kind(uint8_t kind, uint8_t status) {
  pthread_mutex_lock(&S.mu);
  uint32_t n = 0;
  for (uint32_t i = 0; i < S.n; i++)
    n += S.ev[i].kind == kind && (kind != ATOLL_NRT_EV_DONE || S.ev[i].status == status);
  pthread_mutex_unlock(&S.mu);
  return n;
}

static void wait_events(uint8_t kind, uint8_t status, uint32_t n) {
  for (int i = 0; i < 2000 && count_kind(kind, status) < n; i++)
    pause_ms(1);
  assert_int_equal(count_kind(kind, status), n);
}

static int bind(void *ctx, const atoll_nrt_bind_req *b, atoll_nlaunch *out) {
  (void)ctx;
  out->kind = b->n_parts ? ATOLL_NL_PADDED : ATOLL_NL_KERNEL;
  out->k.kernel = b->cmd->op; /* the test reads the op back from the launch */
  out->k.grid = 4;
  out->n_parts = b->n_parts;
  for (uint32_t i = 0; i < b->n_parts; i++) {
    out->parts[i].kernel = b->parts[i].cmd.op;
    out->parts[i].block_n = b->parts[i].cmd.block_n;
  }
  return 0;
}

static atoll_nrt *make_with(int sched_cpu, int64_t spin_ns, bool rt_threads) {
  memset(&S, 0, sizeof S);
  pthread_mutex_init(&S.mu, NULL);
  atoll_nrt_cfg cfg = {.be_ops = &fake_ops, .bind = bind, .handler = handler, .stock_dq_capacity = 1024,
                       .spin_ns = spin_ns, .sched_cpu = sched_cpu, .rt_threads = rt_threads};
  atoll_nrt *r = NULL;
  char err[128];
  assert_int_equal(atoll_nrt_create(&r, &cfg, err, sizeof err), 0);
  assert_int_equal(atoll_nrt_start(r, NULL, NULL), 0);
  return r;
}

static atoll_nrt *make_pinned(int sched_cpu) { return make_with(sched_cpu, 100000, false); }

static atoll_nrt *make(void) { return make_pinned(-1); }

/* Completes launches by hand from the test thread, as a back-end thread would. */
static void complete(uint32_t i, atoll_ndone_status st) {
  atoll_nlaunch l = sub_at(i);
  F->cfg.on_complete(F->cfg.ctx, l.tag, st);
}

static void launch_ops(atoll_nrt *r, uint32_t stream, uint32_t from, uint32_t n) {
  atoll_device d = atoll_nrt_device(r);
  atoll_cmd cmds[64];
  for (uint32_t i = 0; i < n; i++)
    cmds[i] = (atoll_cmd){.model = 0, .op = from + i, .tag = 1000 + from + i};
  assert_int_equal(d.ops->launch(d.ctx, stream, cmds, n), 0);
}

static uint32_t new_stream_prio(atoll_nrt *r, uint32_t dq, uint32_t priority) {
  atoll_device d = atoll_nrt_device(r);
  atoll_stream_cfg cfg = {.dq_capacity = dq, .name = "s", .priority = priority};
  uint32_t id;
  assert_int_equal(d.ops->create_stream(d.ctx, &cfg, &id), 0);
  return id;
}

static uint32_t new_stream(atoll_nrt *r, uint32_t dq) { return new_stream_prio(r, dq, 0); }

static void finish(atoll_nrt *r) {
  /* The back-end must be idle for destroy: complete whatever is still out. */
  atoll_nrt_stop(r);
  atoll_nrt_destroy(r);
  pthread_mutex_destroy(&S.mu);
}

/* --- cases --- */

/* Whether a thread of this process is named `name` (/proc/self/task/TID/comm); with `cpus`, also
 * the CPUs it may run on; with `state`, its state letter (/proc/self/task/TID/stat: 'S' sleeping). */
static int find_thread(const char *name, cpu_set_t *cpus, char *state) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int found = 0;
  while (d && !found && (e = readdir(d))) {
    char path[300], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f && fgets(comm, sizeof comm, f)) {
      comm[strcspn(comm, "\n")] = '\0';
      found = strcmp(comm, name) == 0 &&
              (!cpus || sched_getaffinity((pid_t)atoi(e->d_name), sizeof *cpus, cpus) == 0);
    }
    if (f)
      fclose(f);
    if (found && state) {
      char line[512] = "";
      snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
      f = fopen(path, "r");
      const char *close = f && fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
      *state = close && close[1] == ' ' ? close[2] : '?';
      if (f)
        fclose(f);
    }
  }
  if (d)
    closedir(d);
  return found;
}

static int thread_named(const char *name) { return find_thread(name, NULL, NULL); }

/* Waits (up to 2 s) until stream s's transmit thread sleeps: it was created by the stream and may
 * not have reached its first wait yet, and a wake-up it has no need of is what the test counts. */
static void wait_tx_sleeping(uint32_t s) {
  char name[16], st = '?';
  snprintf(name, sizeof name, "atoll-tx%u", s);
  for (int i = 0; i < 2000 && !(find_thread(name, NULL, &st) && st == 'S'); i++)
    pause_ms(1);
  assert_int_equal(st, 'S');
}

/* The wake-up rule (docs/native.md, "Threads"): a completion wakes the transmit thread only when
 * the HQ can move. Launches that fit the DQ are transmitted by the caller, so completing them wakes
 * nobody; a completion that makes room for a waiting launch wakes the thread, which transmits it. */
static void transmit_thread_is_woken_only_for_work(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 2);
  wait_tx_sleeping(s);
  launch_ops(r, s, 0, 2);
  assert_int_equal(submitted(), 2); /* transmitted at once, by the launching thread */
  complete(0, ATOLL_ND_OK);
  complete(1, ATOLL_ND_OK);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_OK, 2);
  atoll_nrt_stats st;
  atoll_nrt_stats_get(r, &st);
  assert_int_equal(st.tx_wakeups, 0);
  wait_tx_sleeping(s);
  launch_ops(r, s, 2, 3);
  assert_int_equal(submitted(), 4); /* two fit, the third waits for room */
  complete(2, ATOLL_ND_OK);
  wait_submitted(5);
  atoll_nrt_stats_get(r, &st);
  assert_cmp(st.tx_wakeups, >=, 1);
  complete(3, ATOLL_ND_OK);
  complete(4, ATOLL_ND_OK);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_OK, 5);
  finish(r);
}

static void dq_capacity_bounds_in_flight(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  launch_ops(r, s, 0, 10);
  wait_submitted(4);
  assert_tx_holds(r, s, ATOLL_NRT_TX_DQ_FULL, 6, 4);
  assert_int_equal(submitted(), 4); /* the DQ is full: the rest waits in the HQ */
  uint32_t hq, dq;
  atoll_nrt_queue_depth(r, s, &hq, &dq);
  assert_int_equal(hq, 6);
  assert_int_equal(dq, 4);
  complete(0, ATOLL_ND_OK);
  wait_submitted(5);
  /* A larger capacity set at run time lets more in at once; launches keep their order. */
  atoll_device d = atoll_nrt_device(r);
  assert_int_equal(d.ops->set_dq_capacity(d.ctx, s, 8), 0);
  wait_submitted(9);
  for (uint32_t i = 0; i < 9; i++)
    assert_int_equal(sub_at(i).k.kernel, i);
  for (uint32_t i = 1; i < 9; i++)
    complete(i, ATOLL_ND_OK);
  wait_submitted(10);
  complete(9, ATOLL_ND_OK);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_OK, 10);
  /* Completions reach the scheduler thread in order, with the core's tags. */
  pthread_mutex_lock(&S.mu);
  for (uint32_t i = 0, k = 0; i < S.n; i++)
    if (S.ev[i].kind == ATOLL_NRT_EV_DONE)
      assert_int_equal(S.ev[i].tag, 1000 + k++);
  pthread_mutex_unlock(&S.mu);
  finish(r);
}

static void flag_holds_later_launches_until_evicted_left(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  atoll_device d = atoll_nrt_device(r);
  launch_ops(r, s, 0, 6);
  wait_submitted(4);
  /* The core's preemption: reset the HQ, set the flag. */
  uint32_t dropped = 0;
  assert_int_equal(d.ops->reset_hq(d.ctx, s, false, &dropped), 0);
  assert_int_equal(dropped, 2);
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, true), 0);
  assert_int_equal(flag_of(0), 1);
  /* Restored work launched now must not be caught by the flag: it waits in the HQ. */
  launch_ops(r, s, 10, 3);
  assert_tx_holds(r, s, ATOLL_NRT_TX_FLAG, 3, 4);
  assert_int_equal(submitted(), 4);
  complete(0, ATOLL_ND_OK); /* it had started before the flag: it ran to the end */
  complete(1, ATOLL_ND_EVICTED);
  complete(2, ATOLL_ND_EVICTED);
  /* Room in the DQ now, but the flag holds the HQ until launch 3 has left. */
  assert_tx_holds(r, s, ATOLL_NRT_TX_FLAG, 3, 1);
  assert_int_equal(submitted(), 4);
  assert_int_equal(flag_of(0), 1);
  complete(3, ATOLL_ND_EVICTED); /* the last launch in flight at the flag has left */
  wait_submitted(7);
  assert_int_equal(flag_of(0), 0);
  assert_int_equal(sub_at(4).k.kernel, 10);
  wait_events(ATOLL_NRT_EV_DRAINED, 0, 1);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_EVICTED, 3);
  for (uint32_t i = 4; i < 7; i++)
    complete(i, ATOLL_ND_OK);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_OK, 4);
  finish(r);
}

static void flag_with_nothing_in_flight_is_not_set(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  atoll_device d = atoll_nrt_device(r);
  uint32_t writes = F->flag_writes;
  assert_int_equal(d.ops->set_preempt_flag(d.ctx, s, true), 0);
  assert_int_equal(F->flag_writes, writes);
  launch_ops(r, s, 0, 1);
  wait_submitted(1); /* nothing holds the HQ */
  complete(0, ATOLL_ND_OK);
  finish(r);
}

/* A back-end without a hardware CU reset (a stock GPU driver) still kills through its kill words:
 * the core must get reset_cus, or a stock-driver run would never stop a running BE kernel. */
static void reset_cus_reaches_the_core_without_a_hardware_reset(void **state) {
  (void)state;
  fake_hw_reset = false;
  atoll_nrt *r = make();
  fake_hw_reset = true;
  atoll_device d = atoll_nrt_device(r);
  assert_non_null(d.ops->reset_cus);
  uint32_t before = F->resets;
  assert_int_equal(d.ops->reset_cus(d.ctx), 0);
  assert_int_equal(F->resets, before + 1);
  finish(r);
}

static void async_reset_hands_commands_to_gc(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 1);
  atoll_device d = atoll_nrt_device(r);
  launch_ops(r, s, 0, 50);
  wait_submitted(1);
  uint32_t dropped = 0;
  assert_int_equal(d.ops->reset_hq(d.ctx, s, true, &dropped), 0);
  assert_int_equal(dropped, 49);
  atoll_nrt_stats st;
  for (int i = 0; i < 2000; i++) {
    atoll_nrt_stats_get(r, &st);
    if (st.gc_freed == 49)
      break;
    pause_ms(1);
  }
  assert_int_equal(st.gc_freed, 49);
  assert_int_equal(st.hq_reset_cmds, 49);
  complete(0, ATOLL_ND_OK);
  finish(r);
}

static void exec_index_maps_to_core_tag(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  atoll_device d = atoll_nrt_device(r);
  uint64_t tag = 0;
  assert_int_equal(d.ops->exec_index(d.ctx, s, &tag), ATOLL_ENOENT);
  launch_ops(r, s, 0, 3);
  wait_submitted(3);
  pthread_mutex_lock(&F->mu);
  F->exec = F->sub[1].tag; /* the prologue of the second launch recorded its tag */
  F->has_exec = 1;
  pthread_mutex_unlock(&F->mu);
  assert_int_equal(d.ops->exec_index(d.ctx, s, &tag), 0);
  assert_int_equal(tag, 1001);
  complete(0, ATOLL_ND_OK);
  complete(1, ATOLL_ND_OK);
  assert_int_equal(d.ops->exec_index(d.ctx, s, &tag), 0); /* the last completed is still named */
  assert_int_equal(tag, 1001);
  complete(2, ATOLL_ND_OK);
  /* Still named after later launches completed: a preemption reads the index twice, and the
   * launch it names may be killed (completed) in between. */
  assert_int_equal(d.ops->exec_index(d.ctx, s, &tag), 0);
  assert_int_equal(tag, 1001);
  finish(r);
}

static void starts_and_parts_reach_the_scheduler(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  atoll_device d = atoll_nrt_device(r);
  atoll_cmd rt = {.op = 7, .tag = 77, .rt = 1};
  atoll_pad_part parts[2] = {{.cmd = {.op = 3, .tag = 33, .block_lo = 2, .block_n = 5}, .cus = 1},
                             {.cmd = {.op = 4, .tag = 44, .block_n = 6}, .cus = 1}};
  assert_int_equal(d.ops->launch_padded(d.ctx, s, &rt, 1, parts, 2), 0);
  wait_submitted(1);
  atoll_nlaunch l = sub_at(0);
  assert_int_equal(l.kind, ATOLL_NL_PADDED);
  assert_int_equal(l.n_parts, 2);
  assert_int_not_equal(l.parts[0].tag, l.parts[1].tag);
  assert_int_not_equal(l.parts[0].tag, l.tag);
  F->cfg.on_start(F->cfg.ctx, l.tag);
  F->cfg.on_complete(F->cfg.ctx, l.parts[1].tag, ATOLL_ND_OK);
  F->cfg.on_complete(F->cfg.ctx, l.parts[0].tag, ATOLL_ND_OK);
  F->cfg.on_complete(F->cfg.ctx, l.tag, ATOLL_ND_OK);
  wait_events(ATOLL_NRT_EV_DONE, ATOLL_ND_OK, 1);
  pthread_mutex_lock(&S.mu);
  assert_int_equal(S.n, 4);
  assert_int_equal(S.ev[0].kind, ATOLL_NRT_EV_START);
  assert_int_equal(S.ev[0].tag, 77);
  assert_int_equal(S.ev[1].kind, ATOLL_NRT_EV_PART_DONE);
  assert_int_equal(S.ev[1].tag, 44);
  assert_int_equal(S.ev[1].a, 6);
  assert_int_equal(S.ev[2].tag, 33);
  assert_int_equal(S.ev[2].a, 5);
  assert_int_equal(S.ev[3].kind, ATOLL_NRT_EV_DONE);
  assert_int_equal(S.ev[3].tag, 77);
  assert_cmp(S.ev[3].start_ns, >=, 0);
  assert_cmp(S.ev[3].start_ns, <=, S.ev[3].at_ns);
  pthread_mutex_unlock(&S.mu);
  finish(r);
}

/* With the scheduler pinned (to the first CPU here), the GC thread shares its CPU and the transmit
 * threads keep off it (nrt.h, atoll_nrt_keep_off_sched_cpu): a host thread's wake-up on the
 * scheduler's CPU delays the next arrival's pickup, the GC on a CU's CPU delayed the RT kernel. */
static void pinned_scheduler_keeps_host_threads_off_its_cpu(void **state) {
  (void)state;
  cpu_set_t allowed, got;
  assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  if (CPU_COUNT(&allowed) < 2)
    ATOLL_SKIP("one CPU allowed: no other CPU to keep the host threads on");
  int first = 0;
  while (!CPU_ISSET(first, &allowed))
    first++;
  atoll_nrt *r = make_pinned(0);
  uint32_t s = new_stream(r, 4);
  /* The scheduler pins itself when it starts: give it a moment. */
  for (int i = 0; i < 1000 && !(find_thread("atoll-sched", &got, NULL) && CPU_COUNT(&got) == 1); i++)
    usleep(1000);
  assert_true(find_thread("atoll-sched", &got, NULL));
  assert_int_equal(CPU_COUNT(&got), 1);
  assert_true(CPU_ISSET(first, &got));
  assert_true(find_thread("atoll-gc", &got, NULL));
  assert_int_equal(CPU_COUNT(&got), 1);
  assert_true(CPU_ISSET(first, &got));
  char tx[16];
  snprintf(tx, sizeof tx, "atoll-tx%u", s);
  assert_true(find_thread(tx, &got, NULL));
  assert_false(CPU_ISSET(first, &got));
  assert_int_equal(CPU_COUNT(&got), CPU_COUNT(&allowed) - 1);
  finish(r);
  /* Not pinned: every thread may go anywhere. */
  r = make();
  s = new_stream(r, 4);
  snprintf(tx, sizeof tx, "atoll-tx%u", s);
  assert_true(find_thread(tx, &got, NULL));
  assert_int_equal(CPU_COUNT(&got), CPU_COUNT(&allowed));
  assert_true(find_thread("atoll-gc", &got, NULL));
  assert_int_equal(CPU_COUNT(&got), CPU_COUNT(&allowed));
  finish(r);
}

/* Waits (up to 2 s) for the thread named `name` to run under `policy` (threads take their class
 * when they start); returns the policy it has then. */
static int wait_policy(const char *name, int policy, int *prio) {
  int got = -1;
  for (int i = 0; i < 2000 && (got = thread_policy(name, prio)) != policy; i++)
    pause_ms(1);
  return got;
}

static void *try_fifo_main(void *arg) {
  struct sched_param sp = {.sched_priority = ATOLL_NRT_FIFO_PRIO};
  *(int *)arg = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
  return NULL;
}

/* Whether a thread of this process may run SCHED_FIFO at ATOLL_NRT_FIFO_PRIO. */
static bool fifo_permitted(void) {
  int ok = 0;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, try_fifo_main, &ok), 0);
  pthread_join(t, NULL);
  return ok;
}

/* cfg.rt_threads (nrt.h): the scheduler thread and an RT stream's transmit thread run SCHED_FIFO
 * at ATOLL_NRT_FIFO_PRIO, a BE stream's transmit thread and the GC stay where they were; the
 * scheduler, told never to park (spin_ns < 0), still sleeps when idle, since a busy-polling
 * SCHED_FIFO thread would hold its CPU. Without rt_threads, or with SCHED_FIFO refused (forced
 * here with atoll_nrt_set_rt_fifo), every thread keeps the normal priority. */
static void rt_threads_run_sched_fifo(void **state) {
  (void)state;
  int prio = -1;
  char tx_rt[16], tx_be[16];
  atoll_nrt *r = make_with(-1, 100000, false);
  uint32_t be = new_stream_prio(r, 4, 0), rt = new_stream_prio(r, 4, 1);
  snprintf(tx_rt, sizeof tx_rt, "atoll-tx%u", rt);
  snprintf(tx_be, sizeof tx_be, "atoll-tx%u", be);
  wait_tx_sleeping(rt);
  assert_int_equal(thread_policy("atoll-sched", &prio), SCHED_OTHER);
  assert_int_equal(thread_policy(tx_rt, &prio), SCHED_OTHER);
  finish(r);
  const bool fifo = fifo_permitted();
  print_message("SCHED_FIFO %s\n", fifo ? "permitted" : "refused: the fallback only");
  for (int forced_off = 0; forced_off < 2; forced_off++) {
    atoll_nrt_set_rt_fifo(!forced_off);
    const bool want = fifo && !forced_off;
    r = make_with(-1, -1, true);
    be = new_stream_prio(r, 4, 0), rt = new_stream_prio(r, 4, 1);
    snprintf(tx_rt, sizeof tx_rt, "atoll-tx%u", rt);
    snprintf(tx_be, sizeof tx_be, "atoll-tx%u", be);
    wait_tx_sleeping(rt);
    wait_tx_sleeping(be);
    const int policy = want ? SCHED_FIFO : SCHED_OTHER;
    assert_int_equal(wait_policy("atoll-sched", policy, &prio), policy);
    if (want)
      assert_int_equal(prio, ATOLL_NRT_FIFO_PRIO);
    assert_int_equal(wait_policy(tx_rt, policy, &prio), policy);
    if (want)
      assert_int_equal(prio, ATOLL_NRT_FIFO_PRIO);
    assert_int_equal(thread_policy(tx_be, &prio), SCHED_OTHER);
    assert_int_not_equal(thread_policy("atoll-gc", &prio), SCHED_FIFO);
    if (want) { /* idle at SCHED_FIFO: asleep, even with spin_ns < 0 */
      char st = '?';
      for (int i = 0; i < 2000 && !(find_thread("atoll-sched", NULL, &st) && st == 'S'); i++)
        pause_ms(1);
      assert_int_equal(st, 'S');
    }
    finish(r);
  }
  atoll_nrt_set_rt_fifo(true);
}

/* perf sched, ps and gdb tell the runtime's threads apart by these names (docs/native.md). */
static void runtime_threads_are_named(void **state) {
  (void)state;
  atoll_nrt *r = make();
  uint32_t s = new_stream(r, 4);
  assert_true(thread_named("atoll-sched"));
  assert_true(thread_named("atoll-gc"));
  char tx[16];
  snprintf(tx, sizeof tx, "atoll-tx%u", s);
  assert_true(thread_named(tx));
  assert_false(thread_named("atoll-nothing"));
  finish(r);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(runtime_threads_are_named),
      cmocka_unit_test(rt_threads_run_sched_fifo),
      cmocka_unit_test(pinned_scheduler_keeps_host_threads_off_its_cpu),
      cmocka_unit_test(dq_capacity_bounds_in_flight),
      cmocka_unit_test(transmit_thread_is_woken_only_for_work),
      cmocka_unit_test(flag_holds_later_launches_until_evicted_left),
      cmocka_unit_test(flag_with_nothing_in_flight_is_not_set),
      cmocka_unit_test(reset_cus_reaches_the_core_without_a_hardware_reset),
      cmocka_unit_test(async_reset_hands_commands_to_gc),
      cmocka_unit_test(exec_index_maps_to_core_tag),
      cmocka_unit_test(starts_and_parts_reach_the_scheduler),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
