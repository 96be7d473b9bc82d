/* Measuring a native device and its models (nprofile.h).
 *
 * Every figure is a median of isolated measurements, taken through the path a native run takes:
 *   launch_sync_ns     submit of an empty kernel (one block, no work) to its completion callback,
 *                      as seen by a busy-polling waiter (the runtime's scheduler thread polls)
 *   cp_dispatch_ns     per kernel, when empty kernels run back to back on one queue
 *   hq_transmit_ns     through the runtime: launch of an empty kernel to its completion, less
 *                      launch_sync_ns (what the HQ, the DQ bound and transmission add)
 *   hq_reset_per_cmd   a synchronous HQ reset of 10,000 queued commands, per command
 *   hq_reset_async     the same reset handing them to the GC thread
 *   evicted_kernel_ns  per launch, when flagged launches are retired back to back
 *   cu_reset_ns        reset_cus with a kernel of the given models running: the wait for each
 *                      running block's next preemption point (median over their kernels)
 *   copy costs         a 64-byte copy (latency) and a 4 MiB one (bandwidth)
 *   kernel_select_ns   one padding selection (core/dkp.c): an RT kernel on half the CUs, two BE
 *                      candidates
 * Costs the CPU back-end does not have are zero and the preset says why. */
#define _GNU_SOURCE
#include "native/runtime/nprofile.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "core/dkp.h"
#include "native/models/nmodel_profile.h"

enum { SAMPLES = 200, WARMUP = 20, BURST = 200, RESET_CMDS = 10000 };

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

static int64_t median(int64_t *v, uint32_t n) {
  if (n == 0)
    return 0;
  qsort(v, n, sizeof *v, cmp_i64);
  return v[(n - 1) / 2];
}

/* --- the back-end, driven directly --- */

typedef struct probe {
  const atoll_nbackend_ops *ops;
  void *be;
  atoll_nbackend_info info;
  atoll_nqueue *q;
  atomic_ullong done, killed;
  atomic_int last_status;
  uint64_t tag;
  float *out; /* the empty kernel's output */
} probe;

static void p_done(void *ctx, uint64_t tag, atoll_ndone_status st) {
  (void)tag;
  probe *p = ctx;
  atomic_store(&p->last_status, (int)st);
  if (st == ATOLL_ND_KILLED)
    atomic_fetch_add(&p->killed, 1);
  atomic_fetch_add(&p->done, 1);
}


/* What the last wait_count that timed out waited for (for the error message). */
static _Thread_local const char *stuck;

/* Busy-polls until the queue's execution index names `tag` or a later launch (tags grow): a launch
 * has passed its prologue. The index is a required back-end op; on_start is optional (backend.h)
 * and the GPU back-ends never call it, so waiting on it would hang there. */
static int wait_index(probe *p, uint64_t tag, const char *what) {
  int64_t until = now_ns() + (int64_t)60 * 1000000000;
  uint64_t idx = 0;
  while (!(p->ops->exec_index(p->be, p->q, &idx) == 0 && idx >= tag)) {
    if (now_ns() > until) {
      stuck = what;
      return ATOLL_EIO;
    }
    sched_yield();
  }
  return 0;
}

/* Busy-polls until *c reaches target (as the runtime's scheduler thread polls its inbox). */
static int wait_count(atomic_ullong *c, uint64_t target, const char *what) {
  int64_t until = now_ns() + (int64_t)60 * 1000000000;
  while (atomic_load(c) < target) {
    if (now_ns() > until) {
      stuck = what;
      return ATOLL_EIO;
    }
    sched_yield();
  }
  return 0;
}

static int probe_open(probe *p, const atoll_native_opts *o, char *err, size_t err_len) {
  memset(p, 0, sizeof *p);
  int rc = atoll_nbackend_lookup(o->device ? o->device : "cpu", &p->ops, err, err_len);
  atoll_nbackend_cfg cfg = {.cus = o->cus, .slots_per_cu = o->slots_per_cu, .pin_threads = o->pin_threads,
                            .on_complete = p_done, .ctx = p};
  if (rc == 0)
    rc = p->ops->open(&cfg, &p->be, err, err_len);
  if (rc == 0)
    rc = p->ops->info(p->be, &p->info);
  if (rc == 0)
    rc = p->ops->create_queue(p->be, 0, &p->q);
  if (rc == 0)
    rc = p->ops->alloc(p->be, 64 * sizeof(float), (void **)&p->out);
  return rc;
}

static void probe_close(probe *p) {
  if (!p->be)
    return;
  if (p->out)
    p->ops->free(p->be, p->out);
  p->ops->close(p->be);
  p->be = NULL;
}

static atoll_nlaunch empty_kernel(probe *p) {
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = ATOLL_NL_KERNEL;
  l.k = (atoll_nkernel_range){.kernel = AK_K_SPIN, .grid = 1, .threads = 1, .block_n = 1, .occupancy = 1};
  l.k.args.p[0] = p->out;
  l.k.args.i[0] = 0;
  l.k.args.i[1] = 1;
  return l;
}

/* Submits l alone and waits for its completion; returns the time, or -1. */
static int64_t isolated(probe *p, atoll_nlaunch *l) {
  l->tag = l->k.tag = ++p->tag;
  uint64_t target = atomic_load(&p->done) + 1 + l->n_parts;
  int64_t t0 = now_ns();
  if (p->ops->submit(p->be, p->q, l) != 0 || wait_count(&p->done, target, "an isolated launch") != 0)
    return -1;
  return now_ns() - t0;
}

static int64_t isolated_median(probe *p, atoll_nlaunch *l, uint32_t n) {
  int64_t s[SAMPLES];
  if (n > SAMPLES)
    n = SAMPLES;
  for (uint32_t i = 0; i < WARMUP; i++)
    isolated(p, l);
  for (uint32_t i = 0; i < n; i++)
    if ((s[i] = isolated(p, l)) < 0)
      return -1;
  return median(s, n);
}

/* Submits n copies of l back to back; returns the time per launch. */
static int64_t burst(probe *p, atoll_nlaunch *l, uint32_t n) {
  uint64_t target = atomic_load(&p->done) + n;
  int64_t t0 = now_ns();
  for (uint32_t i = 0; i < n; i++) {
    l->tag = l->k.tag = ++p->tag;
    if (p->ops->submit(p->be, p->q, l) != 0)
      return -1;
  }
  if (wait_count(&p->done, target, "a burst of launches") != 0)
    return -1;
  return (now_ns() - t0) / n;
}

/* A native model's tensors on the device, filled as after one reference run (realistic values). */
static void **model_tensors(probe *p, const atoll_nmodel *nm) {
  void **host = atoll_nmodel_alloc_host(nm);
  void **dev = calloc(nm->n_tensors, sizeof *dev);
  int rc = host && dev ? 0 : ATOLL_ENOMEM;
  if (rc == 0) {
    nm->make_input(0, host[nm->input]);
    rc = atoll_nmodel_run_reference(nm, host);
  }
  for (uint32_t t = 0; rc == 0 && t < nm->n_tensors; t++) {
    rc = p->ops->alloc(p->be, nm->tensors[t].bytes, &dev[t]);
    if (rc == 0)
      rc = p->ops->copy_to_device(p->be, dev[t], host[t], nm->tensors[t].bytes);
  }
  if (host)
    atoll_nmodel_free_host(nm, host);
  if (rc && dev) {
    for (uint32_t t = 0; t < nm->n_tensors; t++)
      if (dev[t])
        p->ops->free(p->be, dev[t]);
    free(dev);
    dev = NULL;
  }
  return dev;
}

static void free_tensors(probe *p, const atoll_nmodel *nm, void **dev) {
  if (!dev)
    return;
  for (uint32_t t = 0; t < nm->n_tensors; t++)
    if (dev[t])
      p->ops->free(p->be, dev[t]);
  free(dev);
}

static atoll_nlaunch kernel_launch(const atoll_nmodel *nm, uint32_t op, uint32_t v, void *const *dev,
                                   uint32_t occupancy) {
  const atoll_nversion *ver = &nm->ops[op].v[v];
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  l.kind = ATOLL_NL_KERNEL;
  atoll_nmodel_bind_args(nm, op, v, dev, &l.k.args);
  l.k.kernel = ver->kernel;
  l.k.grid = ver->grid;
  l.k.threads = ver->threads;
  l.k.block_n = ver->grid;
  l.k.occupancy = occupancy;
  return l;
}

/* Each kernel op's time on one core of the CPU device (a back-end instance with one CU), median of
 * `repeats` isolated launches at occupancy 1, into cpu_ns[op] (0 for copies): what a DART CPU node
 * of c cores divides by its speedup (docs/dart.md). Only the CPU back-ends have cores to measure. */
static int measure_one_core(const atoll_native_opts *o, const atoll_nmodel *nm, uint32_t repeats, int64_t *cpu_ns,
                            char *err, size_t err_len) {
  atoll_native_opts one = *o;
  one.cus = 1;
  probe p;
  int rc = probe_open(&p, &one, err, err_len);
  void **dev = rc == 0 ? model_tensors(&p, nm) : NULL;
  if (rc == 0 && !dev)
    rc = ATOLL_ENOMEM;
  for (uint32_t i = 0; rc == 0 && i < nm->n_ops; i++) {
    if (nm->ops[i].kind != ATOLL_OP_KERNEL)
      continue;
    atoll_nlaunch l = kernel_launch(nm, i, 0, dev, 1);
    int64_t t = isolated_median(&p, &l, repeats);
    if (t < 0)
      rc = ATOLL_EIO;
    cpu_ns[i] = t > 0 ? t : 1;
  }
  free_tensors(&p, nm, dev);
  probe_close(&p);
  return rc;
}

/* reset_cus with each kernel op of nm running: eight launches of the op back to back, and the
 * reset once the second has started, so that one is surely running when the reset comes (a lone
 * short kernel could end first). The reset waits for its running blocks' next preemption point. */
static int time_kills(probe *p, const atoll_nmodel *nm, int64_t *s, uint32_t *n, uint32_t cap, int64_t *worst) {
  void **dev = model_tensors(p, nm);
  if (!dev)
    return ATOLL_ENOMEM;
  int rc = 0;
  for (uint32_t op = 0; rc == 0 && op < nm->n_ops && *n < cap; op++) {
    if (nm->ops[op].kind != ATOLL_OP_KERNEL)
      continue;
    for (uint32_t rep = 0; rc == 0 && rep < 3 && *n < cap; rep++) {
      uint64_t second = p->tag + 2, done = atomic_load(&p->done) + 8;
      uint64_t killed_before = atomic_load(&p->killed);
      for (int k = 0; rc == 0 && k < 8; k++) {
        atoll_nlaunch l = kernel_launch(nm, op, 0, dev, nm->ops[op].v[0].occupancy);
        l.tag = l.k.tag = ++p->tag;
        rc = p->ops->submit(p->be, p->q, &l);
      }
      if (rc == 0)
        rc = wait_index(p, second, "a kernel to start");
      int64_t t0 = now_ns();
      if (rc == 0)
        rc = p->ops->reset_cus(p->be);
      int64_t t = now_ns() - t0;
      if (rc == 0)
        rc = wait_count(&p->done, done, "killed kernels to complete");
      /* Only a reset that found a kernel running times a kill. */
      if (rc == 0 && atomic_load(&p->killed) > killed_before) {
        s[(*n)++] = t;
        if (t > *worst)
          *worst = t;
      }
    }
  }
  free_tensors(p, nm, dev);
  return rc;
}

/* --- the runtime, driven from this thread (no core attached) --- */

typedef struct rprobe {
  atomic_ullong done;
  float *out;
} rprobe;

static void r_handler(void *ctx, const atoll_nrt_event *ev) {
  if (ev->kind == ATOLL_NRT_EV_DONE)
    atomic_fetch_add(&((rprobe *)ctx)->done, 1);
}

/* op 0: an empty kernel; op 1: one that runs for about `op1_iters` iterations. */
static int r_bind(void *ctx, const atoll_nrt_bind_req *b, atoll_nlaunch *out) {
  rprobe *p = ctx;
  out->kind = ATOLL_NL_KERNEL;
  out->k = (atoll_nkernel_range){.kernel = AK_K_SPIN, .grid = 1, .threads = 1, .block_n = 1, .occupancy = 1};
  out->k.args.p[0] = p->out;
  out->k.args.i[0] = b->cmd->op == 1 ? 400000000 : 0;
  out->k.args.i[1] = 1000;
  return 0;
}

typedef struct runtime_costs {
  int64_t via_runtime, reset_per_cmd, reset_async;
} runtime_costs;

static int measure_runtime(const atoll_native_opts *o, runtime_costs *rc_out, char *err, size_t err_len) {
  rprobe rp;
  atomic_init(&rp.done, 0);
  const atoll_nbackend_ops *ops;
  int rc = atoll_nbackend_lookup(o->device ? o->device : "cpu", &ops, err, err_len);
  if (rc)
    return rc;
  atoll_nrt_cfg cfg = {.be_ops = ops,
                       .be_cfg = {.cus = o->cus, .slots_per_cu = o->slots_per_cu, .pin_threads = o->pin_threads},
                       .bind = r_bind,
                       .bind_ctx = &rp,
                       .handler = r_handler,
                       .handler_ctx = &rp,
                       .spin_ns = 200000, /* as atoll native runs it */
                       .sched_cpu = o->sched_cpu};
  atoll_nrt *r;
  if ((rc = atoll_nrt_create(&r, &cfg, err, err_len)))
    return rc;
  void *be = atoll_nrt_backend(r);
  rc = ops->alloc(be, 64 * sizeof(float), (void **)&rp.out);
  atoll_device d = atoll_nrt_device(r);
  uint32_t s1 = 0, s2 = 0;
  atoll_stream_cfg one = {.dq_capacity = 4, .name = "probe"}, narrow = {.dq_capacity = 1, .name = "probe-hq"};
  if (rc == 0)
    rc = d.ops->create_stream(d.ctx, &one, &s1);
  if (rc == 0)
    rc = d.ops->create_stream(d.ctx, &narrow, &s2);
  if (rc == 0)
    rc = atoll_nrt_start(r, NULL, NULL);
  /* Launch to completion through the HQ and the transmit thread. */
  int64_t s[SAMPLES];
  uint64_t tag = 0;
  for (uint32_t i = 0; rc == 0 && i < SAMPLES + WARMUP; i++) {
    atoll_cmd c = {.op = 0, .tag = ++tag};
    uint64_t target = atomic_load(&rp.done) + 1;
    int64_t t0 = now_ns();
    rc = d.ops->launch(d.ctx, s1, &c, 1);
    if (rc == 0)
      rc = wait_count(&rp.done, target, "a launch through the runtime");
    if (i >= WARMUP)
      s[i - WARMUP] = now_ns() - t0;
  }
  if (rc == 0)
    rc_out->via_runtime = median(s, SAMPLES);
  /* HQ resets: a long kernel holds the one-deep DQ, so the commands behind it stay in the HQ. */
  atoll_cmd *cmds = rc == 0 ? malloc(RESET_CMDS * sizeof *cmds) : NULL;
  if (rc == 0 && !cmds)
    rc = ATOLL_ENOMEM;
  for (int async = 0; rc == 0 && async < 2; async++) {
    uint64_t target = atomic_load(&rp.done) + 1;
    atoll_cmd longk = {.op = 1, .tag = ++tag};
    rc = d.ops->launch(d.ctx, s2, &longk, 1);
    for (uint32_t i = 0; i < RESET_CMDS; i++)
      cmds[i] = (atoll_cmd){.op = 0, .tag = ++tag};
    if (rc == 0)
      rc = d.ops->launch(d.ctx, s2, cmds, RESET_CMDS);
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
    uint32_t dropped = 0;
    int64_t t0 = now_ns();
    if (rc == 0)
      rc = d.ops->reset_hq(d.ctx, s2, async, &dropped);
    int64_t t = now_ns() - t0;
    if (rc == 0 && dropped == 0)
      rc = ATOLL_EIO;
    if (rc == 0 && async)
      rc_out->reset_async = t;
    else if (rc == 0)
      rc_out->reset_per_cmd = t / dropped;
    /* The long kernel goes: killed where the device can, else it runs out. */
    if (rc == 0 && d.ops->reset_cus)
      d.ops->reset_cus(d.ctx);
    if (rc == 0)
      rc = wait_count(&rp.done, target, "the kernel holding the HQ");
  }
  free(cmds);
  atoll_nrt_quiesce(r);
  if (rp.out)
    ops->free(be, rp.out);
  atoll_nrt_destroy(r);
  return rc;
}

/* One padding selection, as the core makes it per padded launch: host work, timed on a device
 * with CUs to spare (an RT kernel on half of them, two BE candidates for the rest), since a
 * selection that finds no free CU returns before doing any. */
static int64_t time_selection(const atoll_gpu *dev) {
  atoll_gpu gg = *dev;
  if (gg.cus < 8)
    gg.cus = 8;
  const atoll_gpu *g = &gg;
  atoll_kernel_shape rt = {.grid = {g->cus / 2, 1, 1}, .block = {64, 1, 1}, .occupancy = 1, .time_ns = 200000,
                           .block_time_ns = 100000};
  atoll_kernel_shape be = {.grid = {4 * g->cus, 1, 1}, .block = {64, 1, 1}, .occupancy = 1, .time_ns = 100000,
                           .block_time_ns = 20000};
  atoll_op op = {.kind = ATOLL_OP_KERNEL, .name = "be", .shape = be};
  atoll_dkp_candidate cand[2] = {{.op = &op, .blocks_left = ATOLL_DKP_ALL, .version = -1},
                                 {.op = &op, .blocks_left = ATOLL_DKP_ALL, .version = -1}};
  atoll_dkp_choice out[2];
  int64_t s[SAMPLES];
  uint32_t rt_cus;
  for (uint32_t i = 0; i < SAMPLES; i++) {
    int64_t t0 = now_ns();
    for (int k = 0; k < 100; k++)
      atoll_dkp_select(g, &rt, cand, 2, (uint32_t)k, out, 2, &rt_cus);
    s[i] = (now_ns() - t0) / 100;
  }
  return median(s, SAMPLES);
}

int atoll_native_measure_device(const atoll_native_opts *o, const char *name, const atoll_nmodel *const *kill_models,
                                uint32_t n_kill, atoll_arena *a, atoll_gpu *g, atoll_native_costs_note *note,
                                char *err, size_t err_len) {
  if (err_len)
    err[0] = 0;
  stuck = NULL;
  probe p;
  int rc = probe_open(&p, o, err, err_len);
  memset(g, 0, sizeof *g);
  memset(note, 0, sizeof *note);
  note->samples = SAMPLES;
  if (rc == 0) {
    g->name = atoll_arena_strdup(a, name);
    g->vendor = "cpu";
    g->cus = p.info.cus;
    g->max_blocks_per_cu = p.info.max_occupancy;
    /* The CPU has no register file or shared memory to divide: one block's worth per slot. */
    g->max_threads_per_cu = 1024 * p.info.max_occupancy;
    g->registers_per_cu = 65536;
    g->shared_bytes_per_cu = 65536;
    g->dq_capacity = 1024; /* the runtime's stock depth */
    g->copy_engines = 1;   /* the CP thread copies, one copy at a time */
    atoll_nlaunch e = empty_kernel(&p);
    g->costs.launch_sync_ns = isolated_median(&p, &e, SAMPLES);
    g->costs.cp_dispatch_ns = burst(&p, &e, BURST);
    if (g->costs.launch_sync_ns < 0 || g->costs.cp_dispatch_ns < 0)
      rc = ATOLL_EIO;
  }
  if (rc == 0) {
    atoll_nlaunch e = empty_kernel(&p);
    p.ops->set_flag(p.be, p.q, true);
    g->costs.evicted_kernel_ns = burst(&p, &e, BURST);
    p.ops->set_flag(p.be, p.q, false);
    if (g->costs.evicted_kernel_ns < 0)
      rc = ATOLL_EIO;
  }
  /* Copies: a small one is all latency; a large one is mostly bandwidth. */
  void *dev = NULL, *host = NULL;
  /* 4 MiB: within the GPU back-ends' default 8 MiB staging ring (a 16 MiB copy failed there with
   * ATOLL_ERANGE, and the preset got a bandwidth of 1 byte/us). */
  size_t big = (size_t)4 << 20;
  if (rc == 0 && ((rc = p.ops->alloc(p.be, big, &dev)) == 0) && !(host = calloc(1, big)))
    rc = ATOLL_ENOMEM;
  if (rc == 0) {
    atoll_nlaunch c = {.kind = ATOLL_NL_COPY_H2D, .dst = dev, .src = host, .bytes = 64};
    int64_t small = isolated_median(&p, &c, SAMPLES);
    c.bytes = big;
    int64_t large = isolated_median(&p, &c, 20);
    if (small < 0 || large < 0)
      rc = ATOLL_EIO; /* a copy failed: no made-up cost */
    g->costs.copy_latency_ns = small;
    g->costs.copy_bytes_per_us = large > small ? (uint64_t)((double)big * 1000.0 / (double)(large - small)) : 1;
  }
  if (dev)
    p.ops->free(p.be, dev);
  free(host);
  /* The CU reset: kill each kernel of the given models while it runs. */
  int64_t kills[512];
  uint32_t nk = 0;
  for (uint32_t m = 0; rc == 0 && m < n_kill; m++)
    if (p.ops->reset_cus)
      rc = time_kills(&p, kill_models[m], kills, &nk, 512, &note->kill_max_ns);
  note->kill_kernels = nk;
  g->costs.cu_reset_ns = median(kills, nk);
  probe_close(&p);
  runtime_costs rcst = {0};
  if (rc == 0)
    rc = measure_runtime(o, &rcst, err, err_len);
  if (rc == 0) {
    g->costs.hq_transmit_ns = rcst.via_runtime > g->costs.launch_sync_ns ? rcst.via_runtime - g->costs.launch_sync_ns
                                                                         : 0;
    g->costs.hq_reset_per_cmd_ns = rcst.reset_per_cmd;
    g->costs.hq_reset_async_ns = rcst.reset_async;
    /* The CPU CP serves its queues independently, with nothing to switch; draining a flagged DQ
     * costs only its evictions; a padded launch is its ranges, with no proxy kernel. */
    g->costs.stream_switch_ns = 0;
    g->costs.dq_reset_ns = 0;
    g->costs.dkp_overhead_ppm = 0;
    g->costs.kernel_select_ns = time_selection(g);
  }
  if (rc == ATOLL_EIO && stuck && err_len && !err[0])
    snprintf(err, err_len, "the device did not complete %s within 60 s", stuck);
  return rc;
}

/* --- models --- */

int atoll_native_measure_model(const atoll_native_opts *o, const atoll_nmodel *nm, const atoll_gpu *g, uint32_t repeats,
                               atoll_arena *a, atoll_model *out, char *err, size_t err_len) {
  if (repeats == 0)
    repeats = 9;
  if (repeats > SAMPLES)
    repeats = SAMPLES;
  if (err_len)
    err[0] = 0;
  stuck = NULL;
  probe p;
  int rc = probe_open(&p, o, err, err_len);
  void **dev = rc == 0 ? model_tensors(&p, nm) : NULL;
  if (rc == 0 && !dev)
    rc = ATOLL_ENOMEM;
  uint32_t slots = rc == 0 ? p.info.max_occupancy : 1;
  atoll_nmodel_vtime *vt = calloc((size_t)nm->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
  int64_t *copy_ns = calloc(nm->n_ops, sizeof *copy_ns);
  int64_t *occ = calloc((size_t)nm->n_ops * ATOLL_NMODEL_MAX_VERSIONS * (slots ? slots : 1), sizeof *occ);
  void *host = NULL;
  if (rc == 0 && (!vt || !copy_ns || !occ))
    rc = ATOLL_ENOMEM;
  size_t most = 0;
  for (uint32_t t = 0; t < nm->n_tensors; t++)
    most = nm->tensors[t].bytes > most ? nm->tensors[t].bytes : most;
  if (rc == 0 && !(host = calloc(1, most ? most : 1)))
    rc = ATOLL_ENOMEM;
  /* Every launch to measure, as (op, version, occupancy): measured in interleaved passes, one
   * sample of each per pass, so that each figure's samples spread over the whole measurement and a
   * burst of load on the machine touches every figure alike rather than a few of them whole. */
  typedef struct item {
    uint32_t op, v, k;
    atoll_nlaunch l;
    int64_t *samples;
  } item;
  uint32_t n_items = 0, cap_items = nm->n_ops * ATOLL_NMODEL_MAX_VERSIONS * (slots ? slots : 1);
  item *items = rc == 0 ? calloc(cap_items ? cap_items : 1, sizeof *items) : NULL;
  int64_t *samples = rc == 0 ? calloc((size_t)(cap_items ? cap_items : 1) * repeats, sizeof *samples) : NULL;
  if (rc == 0 && (!items || !samples))
    rc = ATOLL_ENOMEM;
  for (uint32_t i = 0; rc == 0 && i < nm->n_ops; i++) {
    const atoll_nop *op = &nm->ops[i];
    if (op->kind != ATOLL_OP_KERNEL) {
      uint32_t t = op->ptr[0];
      item *it = &items[n_items];
      *it = (item){.op = i, .samples = samples + (size_t)n_items * repeats};
      it->l = (atoll_nlaunch){.kind = op->kind == ATOLL_OP_MEMCPY_H2D   ? ATOLL_NL_COPY_H2D
                                      : op->kind == ATOLL_OP_MEMCPY_D2H ? ATOLL_NL_COPY_D2H
                                                                        : ATOLL_NL_MEMSET,
                              .dst = op->kind == ATOLL_OP_MEMCPY_D2H ? host : dev[t],
                              .src = op->kind == ATOLL_OP_MEMCPY_D2H ? dev[t] : host,
                              .bytes = nm->tensors[t].bytes,
                              .value = op->value};
      n_items++;
      continue;
    }
    for (uint32_t v = 0; v < op->n_versions; v++) {
      uint32_t max_occ = op->v[v].occupancy < slots ? op->v[v].occupancy : slots;
      for (uint32_t k = 1; k <= (max_occ ? max_occ : 1); k++) {
        item *it = &items[n_items];
        *it = (item){.op = i, .v = v, .k = k, .l = kernel_launch(nm, i, v, dev, k),
                     .samples = samples + (size_t)n_items * repeats};
        n_items++;
      }
    }
  }
  for (uint32_t w = 0; rc == 0 && w < 2; w++) /* warm-up passes */
    for (uint32_t j = 0; j < n_items; j++)
      isolated(&p, &items[j].l);
  for (uint32_t pass = 0; rc == 0 && pass < repeats; pass++)
    for (uint32_t j = 0; rc == 0 && j < n_items; j++)
      if ((items[j].samples[pass] = isolated(&p, &items[j].l)) < 0)
        rc = ATOLL_EIO;
  for (uint32_t j = 0; rc == 0 && j < n_items; j++) {
    const item *it = &items[j];
    int64_t t = median(it->samples, repeats);
    if (t <= 0)
      t = 1;
    if (nm->ops[it->op].kind != ATOLL_OP_KERNEL) {
      copy_ns[it->op] = t;
      continue;
    }
    occ[((size_t)it->op * ATOLL_NMODEL_MAX_VERSIONS + it->v) * slots + it->k - 1] = t;
  }
  for (uint32_t i = 0; rc == 0 && i < nm->n_ops; i++) {
    const atoll_nop *op = &nm->ops[i];
    for (uint32_t v = 0; op->kind == ATOLL_OP_KERNEL && v < op->n_versions; v++) {
      uint32_t max_occ = op->v[v].occupancy < slots ? op->v[v].occupancy : slots;
      if (max_occ == 0)
        max_occ = 1;
      atoll_nmodel_vtime *x = &vt[(size_t)i * ATOLL_NMODEL_MAX_VERSIONS + v];
      int64_t *per = &occ[((size_t)i * ATOLL_NMODEL_MAX_VERSIONS + v) * slots];
      /* The normal launch runs at the most blocks per CU the device gives the kernel. */
      x->time_ns = per[max_occ - 1];
      x->per_occupancy_ns = max_occ > 1 ? per : NULL;
      x->n_per_occupancy = max_occ > 1 ? max_occ : 0;
    }
  }
  free(items);
  free(samples);
  free(host);
  free_tensors(&p, nm, dev);
  probe_close(&p);
  atoll_nmodel_times times = {.gpu = g->name, .cus = g->cus, .source = NULL, .vt = vt, .copy_ns = copy_ns};
  char src[160];
  snprintf(src, sizeof src, "measured by atoll native --profile on %s (%u CUs x %u slots)", g->name, g->cus,
           g->max_blocks_per_cu);
  times.source = atoll_arena_strdup(a, src);
  atoll_model m;
  if (rc == 0)
    rc = atoll__nmodel_to_model(nm, &times, a, &m);
  /* The profile states the occupancy the device really gives each kernel (its slots), or the
   * simulator would count on more resident blocks per CU than run. */
  atoll_op *ops = rc == 0 ? atoll_arena_calloc(a, m.n_ops, sizeof *ops) : NULL;
  if (rc == 0 && !ops)
    rc = ATOLL_ENOMEM;
  for (uint32_t i = 0; rc == 0 && i < m.n_ops; i++) {
    ops[i] = m.ops[i];
    if (ops[i].kind != ATOLL_OP_KERNEL)
      continue;
    if (ops[i].shape.occupancy > slots)
      ops[i].shape.occupancy = slots;
    if (ops[i].n_versions) {
      atoll_kernel_shape *vs = atoll_arena_calloc(a, ops[i].n_versions, sizeof *vs);
      if (!vs) {
        rc = ATOLL_ENOMEM;
        break;
      }
      for (uint32_t v = 0; v < ops[i].n_versions; v++) {
        vs[v] = ops[i].versions[v];
        if (vs[v].occupancy > slots)
          vs[v].occupancy = slots;
      }
      ops[i].versions = vs;
    }
  }
  const char *dev_name = o->device ? o->device : "cpu";
  if (rc == 0 && (strcmp(dev_name, "cpu") == 0 || strcmp(dev_name, "cpu-gpu") == 0)) {
    int64_t *cpu_ns = atoll_arena_calloc(a, m.n_ops, sizeof *cpu_ns);
    rc = cpu_ns ? measure_one_core(o, nm, repeats, cpu_ns, err, err_len) : ATOLL_ENOMEM;
    m.op_cpu_ns = cpu_ns;
  }
  if (rc == 0) {
    m.ops = ops;
    /* The whole model alone, through the runtime: what `load` arrivals and normalisation use. */
    atoll_scenario_model sm = {.name = nm->name, .path = "(measured)", .model = m};
    atoll_client none = {.name = "x", .model = 0, .cls = ATOLL_CLASS_RT, .arrival = {.kind = ATOLL_ARRIVAL_CLOSED}};
    atoll_scenario s = {.path = "(profile)", .gpu = *g, .models = &sm, .n_models = 1, .clients = &none,
                        .n_clients = 1, .policy = {.kind = ATOLL_POLICY_RT_ONLY}, .duration_ns = 1000000000};
    atoll_native_opts o2 = *o;
    const atoll_nmodel *one[1] = {nm};
    o2.nmodels = one;
    o2.trace = NULL;
    o2.tap = NULL;
    o2.verify = false;
    rc = atoll_native_standalone_ns(&s, &o2, 0, 21, &m.measured_latency_ns, err, err_len);
  }
  if (rc == 0)
    *out = m;
  if (rc == ATOLL_EIO && stuck && err_len && !err[0])
    snprintf(err, err_len, "the device did not complete %s within 60 s", stuck);
  free(vt);
  free(copy_ns);
  free(occ);
  return rc;
}
