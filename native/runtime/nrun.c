/* The native runner (nrun.h): clients on threads, the core on the runtime's scheduler thread,
 * real kernels on a back-end, the driver's results and report (run/driver.h, run/report.h). */
#include "native/runtime/nrun.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "atoll/policy.h"
#include "run/driver.h"
#include "native/runtime/ndart.h"
#include "native/runtime/nverify.h"
#include "core/sched.h"
#include "core/workload.h"

typedef struct nbatch nbatch;

/* One request: its client, the sequence number its input is made from, and its host buffers. */
typedef struct nreq {
  uint32_t client;
  uint64_t seq;
  void *input;  /* the client's data for the H2D copy; freed once the request is done */
  void *output; /* the D2H copy's target; kept for --verify */
  uint8_t done;
  uint8_t failed;    /* a fault.h kind: the request fails when it ends (or at once, for ALLOC) */
  uint32_t fault_op; /* KERNEL: the op that faulted */
  nbatch *batch;      /* the batch it ran in (more than one request), once its first op launched */
  uint32_t batch_pos; /* its instance in the batch */
  uint32_t set;       /* the set of device activations it runs on (client_sets), once it launched */
  uint8_t set_known;  /* set was taken from the core (scheduler thread only) */
} nreq;

/* A batch of requests run as one model run (docs/native.md, "Batching"): their inputs side by side
 * for the one H2D copy, their outputs for the one D2H copy, each at its tensor's instance stride
 * (tensor_stride). Built on the scheduler thread when the batch's first op launches, read by the
 * transmit threads' bindings, freed when its last request ends. */
struct nbatch {
  uint32_t n;    /* requests, in the core's batch order (leader first) */
  uint32_t left; /* requests that have not ended yet */
  nreq *member[ATOLL_MAX_BATCH];
  void *in, *out;
};

typedef struct runner runner;

typedef struct client_th {
  runner *r;
  uint32_t index;
  pthread_t th;
  uint8_t running;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t tokens; /* closed loop: completions (or drops) not yet answered with a new request */
  uint64_t seq;
} client_th;

struct runner {
  atoll_scenario s; /* the caller's, with the GPU's CU count and slots set to the device's */
  const atoll_native_opts *o;
  const atoll_nbackend_ops *ops;
  atoll_nrt *rt;
  void *be;
  atoll_nbackend_info binfo;
  atoll_core core;
  void *core_mem;
  atoll_run_results *res;
  atoll_native_info *info;
  nreq ***reqs; /* per client, parallel to its records */
  uint32_t *reqs_cap;
  void ***dev;  /* per client, per set (client_sets) and tensor of its model: device memory */
  client_th *cl;
  atomic_int stop_clients;
  int64_t base; /* runtime time of the run's time 0 */
  atoll_run_arrivals arr; /* each client thread advances its own generator */
  atoll_run_recorder rec; /* records requests and preemptions, draws the timeline (driver.h) */
  int failed;
  /* Stop early once client 0 completed this many requests (standalone measurement); 0: never. */
  uint32_t stop_after;
  uint64_t expect_done, n_done; /* end_when_done: the trace's arrivals, the completions so far */
  pthread_mutex_t fin_mu;
  pthread_cond_t fin_cv;
  int finished;
  atoll_ndart dart; /* dart's stage pipeline, when the scenario has nodes */
};

static const atoll_nmodel *nmodel_of(const runner *r, uint32_t client) {
  return r->o->nmodels[r->s.clients[client].model];
}

static int64_t rel(const runner *r, int64_t runtime_ns) { return runtime_ns - r->base; }

/* A batching client's device tensors hold one instance per request of its largest batch (its
 * batch:, or the policy's own batches: atoll_policy_batch_limit), side by side at this stride
 * (256-byte aligned, as GPU allocations are); weights one instance, shared (stride 0). Clients that
 * do not batch have one instance of each: memory as before batching. */
static uint64_t tensor_stride(const atoll_nmodel *nm, uint32_t t) {
  return nm->tensors[t].kind == ATOLL_TENSOR_WEIGHT ? 0 : (nm->tensors[t].bytes + 255) / 256 * 256;
}

/* Requests one launch may hold: dart's pipeline batches BE requests itself (atoll_dart_be_batch);
 * otherwise the client's batch: or the batches the policy forms itself (gslice's SLAB). */
static uint32_t client_instances(const runner *r, uint32_t client) {
  if (r->dart.pipe.clients)
    return atoll_dart_be_batch(&r->s, client);
  return atoll_policy_batch_limit(&r->s, client);
}

/* Sets of activations a client has: one, or under dart's pipeline one per request it may have in
 * the pipeline at once (atoll_dart_pipe_depth: stage i of one request beside stage i+1 of the one
 * before must not share tensors). Weights are one instance, shared by the sets. */
static uint32_t client_sets(const runner *r, uint32_t client) {
  return r->dart.pipe.clients ? atoll_dart_pipe_depth(&r->dart.pipe, client) : 1;
}

/* The device tensors request q runs on. */
static void *const *dev_of(const runner *r, const nreq *q) {
  return r->dev[q->client] + (size_t)q->set * nmodel_of(r, q->client)->n_tensors;
}

/* Bytes of n instances of tensor t. */
static uint64_t instances_bytes(const atoll_nmodel *nm, uint32_t t, uint32_t n) {
  return (uint64_t)(n ? n - 1 : 0) * tensor_stride(nm, t) + nm->tensors[t].bytes;
}

/* --- requests and records (scheduler thread) --- */

/* Request q leaves its batch (it ended, or the run is torn down); the last one frees it. */
static void batch_leave(nreq *q) {
  nbatch *b = q->batch;
  q->batch = NULL;
  if (b && --b->left == 0) {
    free(b->in);
    free(b->out);
    free(b);
  }
}

static void free_req(nreq *q) {
  if (!q)
    return;
  batch_leave(q);
  free(q->input);
  free(q->output);
  free(q);
}

/* Records an arrival with its request (the driver keeps the record, the runner its buffers in a
 * list parallel to the records). */
static int record_arrival(runner *r, uint32_t client, int64_t at, nreq *q, uint64_t *id) {
  uint32_t n = r->res->clients[client].n;
  if (n == r->reqs_cap[client]) {
    uint32_t cap = n ? n * 2 : 256;
    nreq **nq = realloc(r->reqs[client], cap * sizeof *nq);
    if (!nq)
      return ATOLL_ENOMEM;
    r->reqs[client] = nq, r->reqs_cap[client] = cap;
  }
  int rc = atoll_run_record_arrival(&r->rec, client, at, id);
  if (rc == 0)
    r->reqs[client][*id] = q;
  return rc;
}

static void finish(runner *r) {
  pthread_mutex_lock(&r->fin_mu);
  r->finished = 1;
  pthread_cond_broadcast(&r->fin_cv);
  pthread_mutex_unlock(&r->fin_mu);
}

static void give_token(runner *r, uint32_t client) {
  client_th *c = &r->cl[client];
  pthread_mutex_lock(&c->mu);
  c->tokens++;
  pthread_cond_signal(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* --- failed requests (scheduler thread; fault.h) --- */

/* Request `req` of client `client` ended failed: its record says so and carries no completion,
 * its output is not compared, and the client's records keep the count and the first message. */
static void request_failed(runner *r, uint32_t client, uint64_t req) {
  atoll_client_records *cr = &r->res->clients[client];
  nreq *q = r->reqs[client][req];
  cr->req[req].done_ns = -1;
  cr->req[req].failed = q->failed;
  q->done = 0;
  free(q->output);
  q->output = NULL;
  if (cr->failed++ > 0)
    return;
  const atoll_nfault_cfg *fi = r->o->inject;
  const atoll_nmodel *nm = nmodel_of(r, client);
  if (q->failed == ATOLL_NFAULT_ALLOC) {
    snprintf(cr->failure, sizeof cr->failure,
             "request %llu: its host buffers (input %zu bytes, output %zu bytes) could not be allocated%s",
             (unsigned long long)req, nm->tensors[nm->input].bytes, nm->tensors[nm->output].bytes,
             fi && fi->alloc_p > 0 ? " (fault injection on)" : "");
  } else {
    const char *name = q->fault_op < nm->n_ops && nm->ops[q->fault_op].name ? nm->ops[q->fault_op].name : "?";
    snprintf(cr->failure, sizeof cr->failure, "request %llu: kernel '%s' (op %u of model '%s') faulted on the device%s",
             (unsigned long long)req, name, q->fault_op, nm->name,
             fi && fi->kernel_p > 0 ? " (fault injection on)" : "");
  }
}

/* A launch faulted: its request fails when it ends. The core has already taken the command as
 * done (nrt_sched.c); if that ended the request, it is turned from completed into failed here. */
static void mark_fault(runner *r, const atoll_nrt_event *ev) {
  uint32_t task = atoll_tag_task(ev->tag);
  if (task >= r->core.n_tasks)
    return;
  const atoll_task *t = &r->core.tasks[task];
  if (t->client >= r->s.n_clients || t->req >= r->res->clients[t->client].n)
    return;
  /* A batch's launch computes every request of it: they all fail. */
  for (int32_t k = (int32_t)task; k >= 0; k = r->core.tasks[k].batch_next) {
    const atoll_task *m = &r->core.tasks[k];
    if (m->req >= r->res->clients[m->client].n)
      break;
    nreq *q = r->reqs[m->client][m->req];
    if (!q || q->failed)
      continue;
    q->failed = ATOLL_NFAULT_KERNEL;
    q->fault_op = atoll_tag_op(ev->tag);
    if (q->done)
      request_failed(r, m->client, m->req);
  }
}

/* --- what only the native device knows (driver.h's device hooks; scheduler thread) --- */

static void take_marks(void *ctx, atoll_run_marks *out) {
  runner *r = ctx;
  atoll_nrt_marks m;
  atoll_nrt_take_marks(r->rt, &m);
  atoll_nrt_stats st;
  atoll_nrt_stats_get(r->rt, &st);
  /* The runtime's marks are 0 when the step was not done; a time at or before the preemption
   * reads as not done. */
  *out = (atoll_run_marks){.hq_done_ns = m.hq_done_ns ? rel(r, m.hq_done_ns) : 0,
                           .evict_done_ns = m.evict_done_ns ? rel(r, m.evict_done_ns) : 0,
                           .kill_done_ns = m.kill_done_ns ? rel(r, m.kill_done_ns) : 0,
                           .evicted = m.evicted,
                           .killed_gpu_ns = st.killed_gpu_ns,
                           .dev_flag_ns = m.dev_flag_ns ? rel(r, m.dev_flag_ns) : 0,
                           .dev_drain_ns = m.dev_drain_ns ? rel(r, m.dev_drain_ns) : 0,
                           .dev_kill_ns = m.dev_kill_ns ? rel(r, m.dev_kill_ns) : 0,
                           .dev_rt_start_ns = m.dev_rt_start_ns ? rel(r, m.dev_rt_start_ns) : 0};
}

/* A completed op run again costs its profiled time (the native device does not time ops one by
 * one), times the batch's size: a batched launch runs its grid once per request (docs/native.md,
 * "Batching"). */
static int64_t redo_ns(void *ctx, uint32_t client, uint64_t req, uint32_t op) {
  const runner *r = ctx;
  const atoll_model *m = &r->s.models[r->s.clients[client].model].model;
  if (op >= m->n_ops)
    return 0;
  const nreq *q = req < r->res->clients[client].n ? r->reqs[client][req] : NULL;
  const int64_t b = q && q->batch ? q->batch->n : 1;
  return b * (m->ops[op].kind == ATOLL_OP_KERNEL ? m->ops[op].shape.time_ns : m->ops[op].copy_time_ns);
}

static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  runner *r = ctx;
  (void)now;
  nreq *q = r->reqs[client][req];
  if (q->batch && q->output && !q->failed) { /* its output, from the batch's */
    const atoll_nmodel *nm = nmodel_of(r, client);
    memcpy(q->output, (const uint8_t *)q->batch->out + q->batch_pos * tensor_stride(nm, nm->output),
           nm->tensors[nm->output].bytes);
  }
  batch_leave(q);
  if (q->failed)
    request_failed(r, client, req); /* it ran to its end, but a kernel of it faulted */
  else
    q->done = 1;
  free(q->input);
  q->input = NULL;
  if (!r->o->verify || q->failed) {
    free(q->output);
    q->output = NULL;
  }
  if (r->s.clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
    give_token(r, client);
  if (r->expect_done && ++r->n_done == r->expect_done)
    finish(r);
  if (r->stop_after && client == 0 && r->res->clients[0].n >= r->stop_after) {
    uint32_t done = 0;
    for (uint32_t i = 0; i < r->res->clients[0].n; i++)
      done += r->res->clients[0].req[i].done_ns >= 0;
    if (done >= r->stop_after)
      finish(r);
  }
}

static void on_dropped(void *ctx, uint32_t client, uint32_t slot) {
  runner *r = ctx;
  free_req(r->reqs[client][slot]);
  r->reqs[client][slot] = NULL;
  if (r->s.clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
    give_token(r, client);
  if (r->expect_done && ++r->n_done == r->expect_done)
    finish(r);
}

/* Shed or failed (run/driver.c, which counts it): the request stays a request, never completed,
 * its output not compared; a closed-loop client sends its next one. */
static void on_ended(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  runner *r = ctx;
  (void)now;
  nreq *q = r->reqs[client][req];
  q->done = 0;
  batch_leave(q);
  free(q->input);
  q->input = NULL;
  free(q->output);
  q->output = NULL;
  if (r->s.clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
    give_token(r, client);
  if (r->expect_done && ++r->n_done == r->expect_done)
    finish(r);
}

static const atoll_run_device_hooks device_hooks = {
    .take_marks = take_marks, .redo_ns = redo_ns, .done = on_done, .dropped = on_dropped, .ended = on_ended};

/* --- the scheduler thread's handler: arrivals, and what the timeline draws --- */

static void handle(void *ctx, const atoll_nrt_event *ev) {
  runner *r = ctx;
  switch (ev->kind) {
  case ATOLL_NRT_EV_ARRIVAL: {
    nreq *q = ev->ptr;
    uint64_t id;
    if (record_arrival(r, q->client, rel(r, ev->at_ns), q, &id) != 0) {
      uint32_t client = q->client;
      r->failed = ATOLL_ENOMEM;
      free_req(q);
      if (r->s.clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
        give_token(r, client);
      return;
    }
    if (q->failed) { /* its buffers could not be allocated: it fails at once, the core never sees it */
      request_failed(r, q->client, id);
      if (r->s.clients[q->client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
        give_token(r, q->client);
      break;
    }
    atoll_core_on_arrival(&r->core, q->client, id, ev->at_ns);
    break;
  }
  case ATOLL_NRT_EV_DONE:
    if (ev->status == ATOLL_ND_FAULT)
      mark_fault(r, ev);
    if (r->rec.tl.trace && ev->start_ns >= 0 && (ev->status == ATOLL_ND_OK || ev->status == ATOLL_ND_KILLED)) {
      const atoll_model *m = &r->s.models[ev->a].model;
      const atoll_op *op = ev->b < m->n_ops ? &m->ops[ev->b] : NULL;
      const char *name = op && op->kind == ATOLL_OP_KERNEL && op->name ? op->name
                         : op                                    ? atoll_op_kind_name(op->kind)
                                                                 : "?";
      char args[96];
      snprintf(args, sizeof args, "\"model\":\"%s\",\"op\":%u%s", r->s.models[ev->a].name, ev->b,
               ev->status == ATOLL_ND_KILLED ? ",\"killed\":true" : "");
      atoll_timeline_kernel(&r->rec.tl, ev->stream, name, ev->rt, rel(r, ev->start_ns), rel(r, ev->at_ns), args);
    }
    break;
  default:
    break;
  }
  if (r->rec.tl.trace && (ev->kind == ATOLL_NRT_EV_DONE || ev->kind == ATOLL_NRT_EV_START) &&
      ev->stream < ATOLL_TIMELINE_MAX_STREAMS) {
    uint32_t hq, dq;
    atoll_nrt_queue_depth(r->rt, ev->stream, &hq, &dq);
    atoll_timeline_queue_depth(&r->rec.tl, ev->stream, NULL, hq, dq, rel(r, ev->at_ns));
  }
}

/* --- binding commands to launches (transmit threads; reads only what the run does not change) --- */

/* The batch led by task `lead` (whose request is q): its requests, their inputs side by side. NULL
 * when its memory cannot be allocated (the launch is then refused and the batch fails). */
static nbatch *make_batch(runner *r, uint32_t lead, nreq *q) {
  const atoll_nmodel *nm = nmodel_of(r, q->client);
  nbatch *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  for (int32_t k = (int32_t)lead; k >= 0 && b->n < ATOLL_MAX_BATCH; k = r->core.tasks[k].batch_next)
    b->member[b->n++] = r->reqs[q->client][r->core.tasks[k].req];
  b->in = calloc(1, instances_bytes(nm, nm->input, b->n));
  b->out = calloc(1, instances_bytes(nm, nm->output, b->n));
  if (!b->in || !b->out) {
    free(b->in);
    free(b->out);
    free(b);
    return NULL;
  }
  for (uint32_t i = 0; i < b->n; i++) {
    nreq *m = b->member[i];
    if (m && m->input)
      memcpy((uint8_t *)b->in + i * tensor_stride(nm, nm->input), m->input, nm->tensors[nm->input].bytes);
    if (m)
      m->batch = b, m->batch_pos = i, b->left++;
  }
  return b;
}

static void *payload(void *ctx, const atoll_cmd *cmd) {
  runner *r = ctx;
  const uint32_t task = atoll_tag_task(cmd->tag);
  const atoll_task *t = &r->core.tasks[task];
  nreq *q = r->reqs[t->client][t->req];
  if (q && !q->set_known) { /* at its first launch: the set is the pipeline's for the whole request */
    q->set = atoll_core_task_set(&r->core, task);
    q->set_known = 1;
  }
  /* A batch larger than the room the client's device tensors were given (a policy that forms its
   * own batches without saying how large, atoll_policy_batch_limit) is refused, and its requests
   * fail, rather than copied past the end of the tensors. */
  if (q && cmd->batch > client_instances(r, q->client))
    return NULL;
  if (q && cmd->batch > 1 && !q->batch && !make_batch(r, task, q))
    return NULL;
  return q;
}

static int kernel_range(const runner *r, const atoll_cmd *cmd, const nreq *q, atoll_nkernel_range *k) {
  const atoll_nmodel *nm = nmodel_of(r, q->client);
  if (cmd->op >= nm->n_ops)
    return ATOLL_EINVAL;
  const atoll_nop *op = &nm->ops[cmd->op];
  uint32_t v = cmd->version < op->n_versions ? cmd->version : 0;
  const atoll_nversion *ver = &op->v[v];
  memset(k, 0, sizeof *k);
  atoll_nmodel_bind_args(nm, cmd->op, v, (void **)dev_of(r, q), &k->args);
  k->kernel = ver->kernel;
  k->grid = ver->grid;
  k->threads = ver->threads;
  k->occupancy = ver->occupancy;
  /* A batch runs the kernel once for each of its requests, in one launch (backend.h). */
  const uint32_t n = q->batch ? q->batch->n : 1;
  if (n != (cmd->batch > 1 ? cmd->batch : 1))
    return ATOLL_EINVAL;
  const uint64_t blocks = (uint64_t)n * ver->grid;
  if (blocks > UINT32_MAX / 2)
    return ATOLL_EINVAL;
  if (n > 1) {
    k->batch = n;
    for (uint32_t s = 0; s < AK_MAX_PTRS; s++)
      k->ptr_stride[s] = op->ptr[s] == ATOLL_NARG_NONE ? 0 : tensor_stride(nm, op->ptr[s]);
  }
  k->block_lo = cmd->block_lo < blocks ? cmd->block_lo : 0;
  k->block_n = cmd->block_n ? cmd->block_n : (uint32_t)blocks - k->block_lo;
  if ((uint64_t)k->block_lo + k->block_n > blocks)
    return ATOLL_EINVAL;
  return 0;
}

static int bind(void *ctx, const atoll_nrt_bind_req *b, atoll_nlaunch *out) {
  runner *r = ctx;
  const nreq *q = b->payload;
  if (!q)
    return ATOLL_EINVAL;
  const atoll_nmodel *nm = nmodel_of(r, q->client);
  const atoll_cmd *cmd = b->cmd;
  if (cmd->op >= nm->n_ops)
    return ATOLL_EINVAL;
  const atoll_nop *op = &nm->ops[cmd->op];
  void *const *dev = dev_of(r, q);
  uint32_t t = op->ptr[0];
  const nbatch *batch = q->batch;
  const uint32_t n = batch ? batch->n : 1;
  switch (op->kind) {
  case ATOLL_OP_KERNEL: {
    int rc = kernel_range(r, cmd, q, &out->k);
    out->kind = ATOLL_NL_KERNEL;
    if (rc || b->n_parts == 0)
      return rc;
    out->kind = ATOLL_NL_PADDED;
    out->k.cus = b->rt_cus;
    out->n_parts = b->n_parts;
    for (uint32_t i = 0; i < b->n_parts && rc == 0; i++) {
      const nreq *pq = b->part_payloads[i];
      rc = pq ? kernel_range(r, &b->parts[i].cmd, pq, &out->parts[i]) : ATOLL_EINVAL;
      out->parts[i].occupancy = b->parts[i].occupancy ? b->parts[i].occupancy : out->parts[i].occupancy;
      out->parts[i].cus = b->parts[i].cus;
    }
    return rc;
  }
  case ATOLL_OP_MEMCPY_H2D:
    if (t >= nm->n_tensors || !q->input)
      return ATOLL_EINVAL;
    *out = (atoll_nlaunch){.kind = ATOLL_NL_COPY_H2D, .dst = dev[t], .src = batch ? batch->in : q->input,
                           .bytes = instances_bytes(nm, t, n)};
    return 0;
  case ATOLL_OP_MEMCPY_D2H:
    if (t >= nm->n_tensors || !q->output)
      return ATOLL_EINVAL;
    *out = (atoll_nlaunch){.kind = ATOLL_NL_COPY_D2H, .dst = batch ? batch->out : q->output, .src = dev[t],
                           .bytes = instances_bytes(nm, t, n)};
    return 0;
  case ATOLL_OP_MEMSET:
    if (t >= nm->n_tensors)
      return ATOLL_EINVAL;
    *out = (atoll_nlaunch){.kind = ATOLL_NL_MEMSET, .dst = dev[t], .value = op->value, .bytes = instances_bytes(nm, t, n)};
    return 0;
  }
  return ATOLL_EINVAL;
}

/* --- clients --- */

/* The CLOCK_MONOTONIC time of the runtime's clock reading runtime_ns. */
static struct timespec monotonic_at(const runner *r, int64_t runtime_ns) {
  struct timespec ts;
  atoll_nrt_epoch(r->rt, &ts);
  ts.tv_sec += runtime_ns / 1000000000;
  ts.tv_nsec += runtime_ns % 1000000000;
  if (ts.tv_nsec >= 1000000000)
    ts.tv_sec++, ts.tv_nsec -= 1000000000;
  return ts;
}

static void sleep_until(const runner *r, int64_t runtime_ns) {
  struct timespec ts = monotonic_at(r, runtime_ns);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

static int send_request(runner *r, client_th *c) {
  const atoll_nmodel *nm = nmodel_of(r, c->index);
  nreq *q = calloc(1, sizeof *q);
  size_t in = nm->tensors[nm->input].bytes, outb = nm->tensors[nm->output].bytes;
  if (!q)
    return ATOLL_ENOMEM;
  q->client = c->index;
  q->seq = c->seq++;
  /* A request whose buffers cannot be allocated (really, or by fault injection) fails alone. */
  const atoll_nfault_cfg *fi = r->o->inject;
  if (!fi || !atoll_nfault_hit(fi->alloc_p, fi->seed, ATOLL_NFAULT_ALLOC, ((uint64_t)c->index << 40) ^ q->seq)) {
    q->input = malloc(in ? in : 1);
    q->output = calloc(1, outb ? outb : 1);
  }
  if (!q->input || !q->output) {
    free(q->input);
    free(q->output);
    q->input = q->output = NULL;
    q->failed = ATOLL_NFAULT_ALLOC;
  } else {
    nm->make_input(q->seq, q->input);
  }
  atoll_nrt_event ev = {.kind = ATOLL_NRT_EV_ARRIVAL, .a = c->index, .ptr = q, .at_ns = atoll_nrt_now(r->rt)};
  return atoll_nrt_post(r->rt, &ev);
}

static void *client_main(void *arg) {
  client_th *c = arg;
  runner *r = c->r;
  const atoll_client *cl = &r->s.clients[c->index];
  int closed = cl->arrival.kind == ATOLL_ARRIVAL_CLOSED;
  int64_t t = atoll_run_first_arrival(&r->arr, &r->s, c->index);
  if (closed)
    sleep_until(r, r->base);
  for (;;) {
    if (atomic_load(&r->stop_clients))
      break;
    if (closed) {
      if (atoll_nrt_now(r->rt) - r->base >= r->s.duration_ns)
        break;
    } else {
      if (t < 0 || t >= r->s.duration_ns)
        break;
      sleep_until(r, r->base + t);
      if (atomic_load(&r->stop_clients))
        break;
    }
    if (send_request(r, c) != 0) {
      r->failed = ATOLL_ENOMEM;
      break;
    }
    if (closed) {
      pthread_mutex_lock(&c->mu);
      while (c->tokens == 0 && !atomic_load(&r->stop_clients)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5000000;
        if (ts.tv_nsec >= 1000000000)
          ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
      }
      if (c->tokens)
        c->tokens--;
      pthread_mutex_unlock(&c->mu);
    } else {
      t = atoll_run_next_arrival(&r->arr, c->index);
    }
  }
  return NULL;
}

/* --- set-up and tear-down --- */

static int alloc_client_memory(runner *r, uint32_t client) {
  const atoll_nmodel *nm = nmodel_of(r, client);
  void **host = atoll_nmodel_alloc_host(nm);
  const uint32_t sets = client_sets(r, client), nt = nm->n_tensors;
  r->dev[client] = calloc((size_t)sets * nt, sizeof *r->dev[client]);
  int rc = host && r->dev[client] ? 0 : ATOLL_ENOMEM;
  const uint32_t n = client_instances(r, client);
  for (uint32_t set = 0; rc == 0 && set < sets; set++)
    for (uint32_t t = 0; rc == 0 && t < nt; t++) {
      void **slot = &r->dev[client][(size_t)set * nt + t];
      if (set > 0 && !tensor_stride(nm, t)) { /* a weight: set 0's */
        *slot = r->dev[client][t];
        continue;
      }
      rc = r->ops->alloc(r->be, instances_bytes(nm, t, n), slot);
      for (uint32_t i = 0; rc == 0 && i < (tensor_stride(nm, t) ? n : 1); i++)
        rc = r->ops->copy_to_device(r->be, (uint8_t *)*slot + i * tensor_stride(nm, t), host[t], nm->tensors[t].bytes);
    }
  if (host)
    atoll_nmodel_free_host(nm, host);
  return rc;
}

static void runner_free(runner *r) {
  const atoll_scenario *s = &r->s;
  /* The device goes idle first: after this no thread reads a request or device memory. */
  if (r->rt)
    atoll_nrt_quiesce(r->rt);
  if (r->dev) {
    for (uint32_t c = 0; c < s->n_clients; c++) {
      if (!r->dev[c])
        continue;
      const atoll_nmodel *nm = r->o->nmodels[s->clients[c].model];
      for (uint32_t set = 0; set < client_sets(r, c); set++)
        for (uint32_t t = 0; t < nm->n_tensors; t++) {
          void *p = r->dev[c][(size_t)set * nm->n_tensors + t];
          if (p && (set == 0 || tensor_stride(nm, t))) /* weights are set 0's */
            r->ops->free(r->be, p);
        }
      free(r->dev[c]);
    }
  }
  atoll_nrt_destroy(r->rt);
  atoll_ndart_free(&r->dart); /* the core's pipeline: nothing calls the core any more */
  if (r->cl) {
    for (uint32_t c = 0; c < s->n_clients; c++) {
      pthread_mutex_destroy(&r->cl[c].mu);
      pthread_cond_destroy(&r->cl[c].cv);
    }
  }
  if (r->reqs) {
    for (uint32_t c = 0; c < s->n_clients; c++) {
      uint32_t n = r->res->clients[c].n;
      for (uint32_t i = 0; i < n && r->reqs[c]; i++)
        free_req(r->reqs[c][i]);
      free(r->reqs[c]);
    }
  }
  free(r->reqs);
  free(r->reqs_cap);
  free(r->dev);
  free(r->cl);
  free(r->core_mem);
  atoll_run_arrivals_free(&r->arr);
  pthread_mutex_destroy(&r->fin_mu);
  pthread_cond_destroy(&r->fin_cv);
}

/* Compares every completed request's output with references (nverify.h): the same device's
 * uninterrupted run bit for bit (the verify count), and a sample against the CPU build within the
 * libm tolerance (info). */
static int verify(runner *r, char *err, size_t err_len) {
  const atoll_scenario *s = &r->s;
  atoll_run_results *res = r->res;
  res->verified = true;
  atoll_nverify_counts counts;
  memset(&counts, 0, sizeof counts);
  /* On the device that ran them (a GPU's rounding is its own; several devices: gpu_count). */
  const atoll_nbackend_cfg cfg = {.cus = r->o->cus, .slots_per_cu = r->o->slots_per_cu, .device = s->run_gpu,
                                  .n_devices = atoll_scenario_gpus(s) > 1 ? atoll_scenario_gpus(s) : 0};
  int rc = 0;
  for (uint32_t c = 0; c < s->n_clients && rc == 0; c++) {
    const uint32_t n = res->clients[c].n;
    uint64_t *seqs = malloc((n ? n : 1) * sizeof *seqs);
    const void **outs = malloc((n ? n : 1) * sizeof *outs);
    uint32_t k = 0;
    for (uint32_t i = 0; seqs && outs && i < n; i++) {
      const nreq *q = r->reqs[c][i];
      if (q && q->done && q->output)
        seqs[k] = q->seq, outs[k++] = q->output;
    }
    rc = seqs && outs ? atoll_nverify_client(r->ops, &cfg, nmodel_of(r, c), seqs, outs, k, ATOLL_NVERIFY_CPU_SAMPLE,
                                             &counts, err, err_len)
                      : ATOLL_ENOMEM;
    free(seqs);
    free(outs);
  }
  res->verify_requests = counts.compared;
  res->verify_mismatches = counts.mismatches;
  if (r->info) {
    r->info->verify_cpu_requests = counts.cpu_requests;
    r->info->verify_cpu_launches = counts.cpu_launches;
    r->info->verify_cpu_bit_exact = counts.cpu_bit_exact;
    r->info->verify_cpu_out_of_tolerance = counts.cpu_out_of_tolerance;
    r->info->verify_cpu_max_abs_diff = counts.cpu_max_abs_diff;
  }
  return rc;
}

/* Checks a model's native implementation against its profile: same ops, same kinds, versions. */
static int check_model(const atoll_scenario_model *sm, const atoll_nmodel *nm, char *err, size_t err_len) {
  const atoll_model *m = &sm->model;
  if (!nm) {
    snprintf(err, err_len, "model '%s' has no native implementation (its profile has no 'native:' key)", sm->name);
    return ATOLL_EINVAL;
  }
  if (nm->n_ops != m->n_ops) {
    snprintf(err, err_len, "model '%s': the profile has %u ops, native model '%s' has %u", sm->name, m->n_ops,
             nm->name, nm->n_ops);
    return ATOLL_EINVAL;
  }
  for (uint32_t i = 0; i < m->n_ops; i++) {
    if (nm->ops[i].kind != m->ops[i].kind) {
      snprintf(err, err_len, "model '%s': op %u is a %s in the profile but a %s in native model '%s'", sm->name, i,
               atoll_op_kind_name(m->ops[i].kind), atoll_op_kind_name(nm->ops[i].kind), nm->name);
      return ATOLL_EINVAL;
    }
    if (m->ops[i].kind == ATOLL_OP_KERNEL && m->ops[i].n_versions + 1 > nm->ops[i].n_versions) {
      snprintf(err, err_len, "model '%s': op %u has %u versions in the profile, native model '%s' has %u", sm->name, i,
               m->ops[i].n_versions + 1, nm->name, nm->ops[i].n_versions);
      return ATOLL_EINVAL;
    }
  }
  return 0;
}

int atoll_native_check(const atoll_scenario *s, const atoll_nmodel *const *nmodels, char *err, size_t err_len) {
  /* be_batch (dart, base-gpu) is the node model's batch of a back-to-back BE client (docs/dart.md):
   * it sends that many requests at once. dart's native pipeline batches them itself (and keeps a
   * closed client's batches out at once); elsewhere requests are batched by the core's batcher,
   * which reads a client's own `batch:` only, and a closed client has one request out at a time,
   * so the option would be dropped without a word. */
  for (uint32_t c = 0; c < s->n_clients && !atoll_ndart_wanted(s); c++) {
    uint32_t b = atoll_dart_be_batch(s, c);
    if (s->clients[c].batch_max <= 1 && b > 1) {
      snprintf(err, err_len,
               "client '%s': policy option be_batch %u is not applied natively (BE batching under %s is "
               "simulated only, docs/dart.md)",
               s->clients[c].name, b, atoll_policy_name(s->policy.kind));
      return ATOLL_ENOTSUP;
    }
  }
  /* A blocking client (REEF's DISB harness, docs/scenarios.md) is simulated only: the native runner
   * sends a uniform client's requests on its schedule. */
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (s->clients[c].arrival.blocking) {
      snprintf(err, err_len, "client '%s': blocking arrivals are simulated only (docs/scenarios.md)",
               s->clients[c].name);
      return ATOLL_ENOTSUP;
    }
  /* admit_from: admission of tasks arriving at run time is the node model's (sim/dart_run.c); the
   * native pipeline would run every late task unasked. */
  if (s->policy.kind == ATOLL_POLICY_DART && s->policy.param[4] > 0) {
    snprintf(err, err_len, "policy option admit_from %lld is not applied natively (run-time admission is "
             "simulated only, docs/dart.md)", (long long)s->policy.param[4]);
    return ATOLL_ENOTSUP;
  }
  for (uint32_t m = 0; m < s->n_models; m++) {
    int rc = check_model(&s->models[m], nmodels ? nmodels[m] : NULL, err, err_len);
    if (rc)
      return rc;
  }
  uint32_t be = 0;
  for (uint32_t c = 0; c < s->n_clients; c++)
    be += s->clients[c].cls == ATOLL_CLASS_BE;
  if (s->policy.kind == ATOLL_POLICY_REEF && s->policy.dkp && be > ATOLL_NPAD_MAX) {
    snprintf(err, err_len, "reef with padding pads at most %d BE clients into one launch; the scenario has %u",
             ATOLL_NPAD_MAX, be);
    return ATOLL_EINVAL;
  }
  return 0;
}

static int64_t cu_busy_now(const runner *r, int64_t *rt, int64_t *be) {
  int64_t all = 0;
  *rt = *be = 0;
  if (r->ops->cu_busy)
    r->ops->cu_busy(r->be, &all, rt, be);
  return all;
}

/* One run of s (whose standalone latencies are in res->standalone_ns). */
static int run_once(const atoll_scenario *s, const atoll_native_opts *o, uint32_t stop_after, atoll_run_results *res,
                    atoll_native_info *info, char *err, size_t err_len) {
  runner r;
  memset(&r, 0, sizeof r);
  r.s = *s;
  r.o = o;
  r.res = res;
  r.info = info;
  r.stop_after = stop_after;
  for (uint32_t c = 0; o->end_when_done && c < s->n_clients; c++) {
    const atoll_arrival *a = &s->clients[c].arrival;
    if (a->kind != ATOLL_ARRIVAL_TRACE || a->repeat_ns > 0) {
      r.expect_done = 0;
      break;
    }
    for (uint32_t k = 0; k < a->n_times; k++)
      r.expect_done += a->times_ns[k] < s->duration_ns;
  }
  atomic_init(&r.stop_clients, 0);
  pthread_mutex_init(&r.fin_mu, NULL);
  pthread_condattr_t fin_attr; /* timed waits on the runtime's clock */
  pthread_condattr_init(&fin_attr);
  pthread_condattr_setclock(&fin_attr, CLOCK_MONOTONIC);
  pthread_cond_init(&r.fin_cv, &fin_attr);
  pthread_condattr_destroy(&fin_attr);
  int rc = atoll_nbackend_lookup(o->device ? o->device : "cpu", &r.ops, err, err_len);
  /* dart's RT workers on a GPU node: the RT streams at the device's greatest stream priority, as
   * DART's RT stream (docs/dart.md, "GPU node"); the BE streams keep the default. */
  atoll_npreempt_tuning tuning = o->tuning;
  if (atoll_ndart_wanted(s))
    tuning.top_priority = 1;
  atoll_nrt_cfg cfg = {.be_ops = r.ops,
                       .be_cfg = {.cus = o->cus, .slots_per_cu = o->slots_per_cu, .pin_threads = o->pin_threads,
                                  .fault_kernel_p = o->inject ? o->inject->kernel_p : 0,
                                  .fault_seed = o->inject ? o->inject->seed : 0,
                                  .device = s->run_gpu,
                                  .n_devices = atoll_scenario_gpus(s) > 1 ? atoll_scenario_gpus(s) : 0,
                                  /* dart's node workers: RT and BE threads per CU (docs/dart.md) */
                                  .class_workers = atoll_ndart_wanted(s),
                                  .tuning = tuning},
                       .bind = bind,
                       .payload = payload,
                       .bind_ctx = &r,
                       .handler = handle,
                       .handler_ctx = &r,
                       .stock_dq_capacity = s->gpu.dq_capacity,
                       .spin_ns = o->spin_ns ? o->spin_ns : 200000,
                       .sched_cpu = o->sched_cpu,
                       .rt_reserve_cus = o->rt_reserve_cus,
                       /* with them, the runtime's own threads on an RT stage's path (nrt.h) */
                       .rt_threads = atoll_ndart_wanted(s)};
  if (rc == 0)
    rc = atoll_nrt_create(&r.rt, &cfg, err, err_len);
  if (rc == 0) {
    r.be = atoll_nrt_backend(r.rt);
    rc = r.ops->info(r.be, &r.binfo);
  }
  /* A binding names CUs of the scenario's GPU; the device opened may have fewer (docs/partitions.md). */
  for (uint32_t c = 0; rc == 0 && c < s->n_clients; c++)
    if (atoll_cuset_end(&s->clients[c].cus) > r.binfo.cus) {
      snprintf(err, err_len, "client '%s' is bound to CUs up to %u, but the device '%s' has %u CUs (0-%u)",
               s->clients[c].name, atoll_cuset_end(&s->clients[c].cus) - 1, r.binfo.name, r.binfo.cus,
               r.binfo.cus - 1);
      rc = ATOLL_EINVAL;
    }
  /* The reserve takes CUs 0..N-1 for RT and leaves the rest to BE: none left, and nrt.c reserves
   * nothing (the option was a silent no-op). */
  if (rc == 0 && o->rt_reserve_cus >= r.binfo.cus && o->rt_reserve_cus) {
    snprintf(err, err_len, "rt-sm-reserve=%u leaves no CU to the other streams: the device '%s' has %u CUs",
             o->rt_reserve_cus, r.binfo.name, r.binfo.cus);
    rc = ATOLL_EINVAL;
  }
  if (rc == 0) {
    /* The core decides with the device's real CU count (padding's CU split, for one). */
    r.s.gpu.cus = r.binfo.cus;
    res->cus = r.binfo.cus;
    if (info) {
      snprintf(info->device, sizeof info->device, "%s", r.binfo.name);
      info->cus = r.binfo.cus;
      info->slots = r.binfo.max_occupancy;
    }
  }
  uint32_t nc = s->n_clients;
  if (rc == 0) {
    r.reqs = calloc(nc, sizeof *r.reqs);
    r.reqs_cap = calloc(nc, sizeof *r.reqs_cap);
    r.dev = calloc(nc, sizeof *r.dev);
    r.cl = calloc(nc, sizeof *r.cl);
    if (!r.reqs || !r.reqs_cap || !r.dev || !r.cl)
      rc = ATOLL_ENOMEM;
  }
  for (uint32_t c = 0; rc == 0 && c < nc; c++) {
    r.cl[c] = (client_th){.r = &r, .index = c};
    pthread_mutex_init(&r.cl[c].mu, NULL);
    pthread_cond_init(&r.cl[c].cv, NULL);
  }
  /* dart over nodes: its stages run on the nodes' workers, CPU nodes on CUs of their own. */
  atoll_core_limits lim = {0};
  if (rc == 0 && atoll_ndart_wanted(&r.s)) {
    rc = atoll_ndart_build(&r.s, r.binfo.cus, &r.dart, err, err_len);
    lim.dart = &r.dart.pipe;
  }
  for (uint32_t c = 0; rc == 0 && c < nc; c++)
    rc = alloc_client_memory(&r, c);
  if (rc == 0)
    rc = atoll_run_arrivals_init(&r.arr, s, res->standalone_ns);
  size_t size = rc == 0 ? atoll_core_size(&r.s, &lim) : 0;
  if (rc == 0 && (size == 0 || !(r.core_mem = malloc(size))))
    rc = size == 0 ? ATOLL_ENOTSUP : ATOLL_ENOMEM;
  if (rc == 0)
    rc = atoll_core_init(&r.core, r.core_mem, size, &r.s, atoll_nrt_device(r.rt), &atoll_run_observer, &r.rec, &lim,
                         r.arr.deadline_ns);
  if (rc && r.rt && *atoll_nrt_stream_error(r.rt) && err_len && !err[0])
    snprintf(err, err_len, "%s", atoll_nrt_stream_error(r.rt));
  if (rc) {
    runner_free(&r);
    return rc;
  }
  atoll_nrt_attach(r.rt, &r.core, &atoll_run_observer);
  /* The recorder's times are the run's: it takes the base off the runtime's. */
  atoll_run_recorder_init(&r.rec, &r.s, res, o->trace, &device_hooks, &r, o->tap, o->tap_ctx);
  if (o->trace) {
    for (uint32_t c = 0; c < nc; c++)
      atoll_trace_name_track(o->trace, ATOLL_TRACK_CLIENT, c, s->clients[c].name);
    atoll_trace_name_track(o->trace, ATOLL_TRACK_SCHED, 0, atoll_policy_name(s->policy.kind));
    for (uint32_t q = 0; q < r.core.n_queues; q++) {
      const char *name = "rt";
      for (uint32_t c = 0; c < nc && !r.core.queues[q].rt; c++)
        if (r.core.client_queue[c] == q)
          name = s->clients[c].name;
      atoll_timeline_stream(&r.rec.tl, r.core.queues[q].stream, name);
    }
  }
  struct timespec w0, w1;
  clock_gettime(CLOCK_MONOTONIC, &w0);
  /* Time 0 a little ahead, so that every client thread exists before the first arrival. */
  r.base = atoll_nrt_now(r.rt) + 2000000;
  r.rec.base = r.base;
  rc = atoll_nrt_start(r.rt, NULL, NULL);
  for (uint32_t c = 0; rc == 0 && c < nc; c++) {
    if (!atoll_core_client_active(&r.core, c))
      continue;
    /* Under dart's pipeline a closed client is the paper's back-to-back task, which always has jobs
     * waiting (the node model's assumption, docs/dart.md): it keeps a batch per request the
     * pipeline may hold, and one more waiting for the first stage, out at once. */
    if (r.dart.pipe.clients && s->clients[c].arrival.kind == ATOLL_ARRIVAL_CLOSED)
      r.cl[c].tokens = (client_sets(&r, c) + 1) * client_instances(&r, c) - 1;
    if (pthread_create(&r.cl[c].th, NULL, client_main, &r.cl[c]) != 0) {
      rc = ATOLL_ENOMEM;
    } else {
      r.cl[c].running = 1;
      atoll_nrt_name_thread(r.cl[c].th, "client", (int)c);
      atoll_nrt_keep_off_sched_cpu(r.rt, r.cl[c].th);
    }
  }
  int64_t busy0 = 0, rt0 = 0, be0 = 0, busy1 = 0, rt1 = 0, be1 = 0;
  int warm_sampled = 0;
  while (rc == 0) {
    int64_t t = atoll_nrt_now(r.rt) - r.base;
    if (!warm_sampled && t >= s->warmup_ns) {
      busy0 = cu_busy_now(&r, &rt0, &be0);
      warm_sampled = 1;
    }
    if (t >= s->duration_ns)
      break;
    /* Asleep until the warm-up's end, the run's end or the last request's completion: a thread
     * that woke to look every millisecond took a CPU from the scheduler or a CU worker a thousand
     * times a second, preemptions' critical moments included. */
    int64_t next = warm_sampled ? s->duration_ns : s->warmup_ns;
    struct timespec until = monotonic_at(&r, r.base + next);
    pthread_mutex_lock(&r.fin_mu);
    while (!r.finished && pthread_cond_timedwait(&r.fin_cv, &r.fin_mu, &until) == 0)
      ;
    int fin = r.finished;
    pthread_mutex_unlock(&r.fin_mu);
    if (fin)
      break;
  }
  busy1 = cu_busy_now(&r, &rt1, &be1);
  atomic_store(&r.stop_clients, 1);
  for (uint32_t c = 0; c < nc; c++) {
    pthread_mutex_lock(&r.cl[c].mu);
    pthread_cond_broadcast(&r.cl[c].cv);
    pthread_mutex_unlock(&r.cl[c].mu);
  }
  for (uint32_t c = 0; c < nc; c++)
    if (r.cl[c].running)
      pthread_join(r.cl[c].th, NULL);
  /* The run's statistics are taken when the scheduler stops: the tear-down's own evictions and
   * kills (quiesce) are not the run's. */
  atoll_nrt_stop(r.rt);
  atoll_nrt_stats st;
  atoll_nrt_stats_get(r.rt, &st);
  atoll_nrt_quiesce(r.rt);
  clock_gettime(CLOCK_MONOTONIC, &w1);
  atoll_timeline_finish(&r.rec.tl, s->duration_ns);
  res->wall_s = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
  res->cu_busy_ns = busy1 - busy0;
  res->cu_busy_rt_ns = rt1 - rt0;
  res->cu_busy_be_ns = be1 - be0;
  res->events = st.events;
  if (info) {
    info->stats = st;
    info->preempted_tasks = r.rec.preempted_tasks;
    info->group_restores = r.rec.group_restores;
  }
  if (rc == 0 && r.failed)
    rc = r.failed;
  if (rc == 0 && r.rec.failed)
    rc = r.rec.failed;
  if (rc == 0 && atoll_nrt_failure(r.rt)) {
    rc = ATOLL_EIO;
    snprintf(err, err_len, "a launch failed on the device (%s)", atoll_strerror(atoll_nrt_failure(r.rt)));
  }
  if (rc == 0 && o->verify)
    rc = verify(&r, err, err_len);
  runner_free(&r);
  return rc;
}

int atoll_native_standalone_ns(const atoll_scenario *s, const atoll_native_opts *o, uint32_t model, uint32_t runs,
                               int64_t *out, char *err, size_t err_len) {
  atoll_client one = {.name = "standalone", .model = model, .cls = ATOLL_CLASS_RT,
                      .arrival = {.kind = ATOLL_ARRIVAL_CLOSED}};
  atoll_scenario alone = *s;
  alone.clients = &one;
  alone.n_clients = 1;
  alone.run_gpu = 0; /* on GPU 0, with the CUs one device of the run has (the cpu back-end splits them) */
  alone.policy = (atoll_policy_cfg){.kind = ATOLL_POLICY_RT_ONLY};
  alone.warmup_ns = 0;
  alone.duration_ns = (int64_t)60 * 1000000000;
  alone.n_expects = 0;
  atoll_native_opts o2 = *o;
  o2.verify = false;
  o2.trace = NULL;
  o2.tap = NULL;
  o2.inject = NULL;
  atoll_run_results res;
  int rc = atoll_run_results_init(&res, &alone, "native");
  if (runs == 0)
    runs = 5;
  if (rc == 0)
    rc = run_once(&alone, &o2, runs + 1, &res, NULL, err, err_len);
  /* The median of the requests after the first (which pays for cold caches). */
  int64_t lat[256];
  uint32_t n = 0;
  for (uint32_t i = 1; rc == 0 && i < res.clients[0].n && n < 256; i++) {
    const atoll_request_record *q = &res.clients[0].req[i];
    if (q->done_ns >= 0)
      lat[n++] = q->done_ns - q->arrival_ns;
  }
  if (rc == 0 && n == 0) {
    snprintf(err, err_len, "model '%s' completed no request alone", s->models[model].name);
    rc = ATOLL_EIO;
  }
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && lat[j - 1] > lat[j]; j--) {
      int64_t t = lat[j];
      lat[j] = lat[j - 1];
      lat[j - 1] = t;
    }
  if (rc == 0)
    *out = lat[(n - 1) / 2];
  atoll_run_results_free(&res);
  return rc;
}

/* The native device as the driver sees it (run/driver.h). */
typedef struct native_call {
  const atoll_native_opts *o;
  atoll_native_info *info;
  char *err;
  size_t err_len;
} native_call;

static int device_standalone(void *ctx, const atoll_scenario *s, uint32_t m, int64_t *out) {
  native_call *nc = ctx;
  return atoll_native_standalone_ns(s, nc->o, m, 11, out, nc->err, nc->err_len);
}

static int device_run(void *ctx, const atoll_scenario *s, atoll_run_results *res) {
  native_call *nc = ctx;
  return run_once(s, nc->o, 0, res, nc->info, nc->err, nc->err_len);
}

/* Several GPUs at once: one runner, runtime and back-end instance per device, each in a thread of
 * its own, with its own error text and device information (GPU 0's is the run's). A trace has one
 * writer per thread: each GPU draws on a part of its own (a temporary file), and the parts join
 * the trace in GPU order once every run is over. A tap is one caller's callback, not made for
 * several threads at once, so several devices run without it. */
typedef struct gpu_run {
  pthread_t th;
  const atoll_scenario *s;
  atoll_native_opts o;
  atoll_run_results *res;
  atoll_native_info info;
  char err[256];
  int rc;
  atoll_trace part; /* this GPU's part of the trace; not open without a trace */
} gpu_run;

static void *gpu_main(void *arg) {
  gpu_run *g = arg;
  g->rc = run_once(g->s, &g->o, 0, g->res, &g->info, g->err, sizeof g->err);
  return NULL;
}

/* Device i's counts added to the run's: every count sums over the devices, the largest difference
 * --verify saw is the largest of any (device 0's alone were kept but for two counts, so a
 * mismatch on device 1 or later never reached --verify's verdict). The device's name and size stay
 * device 0's. */
static void info_add(atoll_native_info *to, const atoll_native_info *from) {
  atoll_nrt_stats *t = &to->stats;
  const atoll_nrt_stats *f = &from->stats;
  t->events += f->events, t->launches += f->launches, t->evicted += f->evicted, t->killed += f->killed;
  t->faults += f->faults, t->hq_reset_cmds += f->hq_reset_cmds, t->gc_freed += f->gc_freed;
  t->cu_resets += f->cu_resets, t->killed_gpu_ns += f->killed_gpu_ns, t->reset_cus_ns_total += f->reset_cus_ns_total;
  t->withheld += f->withheld, t->padded_parts += f->padded_parts, t->tx_wakeups += f->tx_wakeups;
  t->queue_moves += f->queue_moves;
  to->preempted_tasks += from->preempted_tasks;
  to->group_restores += from->group_restores;
  to->killed_restores += from->killed_restores;
  to->verify_cpu_requests += from->verify_cpu_requests;
  to->verify_cpu_launches += from->verify_cpu_launches;
  to->verify_cpu_bit_exact += from->verify_cpu_bit_exact;
  to->verify_cpu_out_of_tolerance += from->verify_cpu_out_of_tolerance;
  if (from->verify_cpu_max_abs_diff > to->verify_cpu_max_abs_diff)
    to->verify_cpu_max_abs_diff = from->verify_cpu_max_abs_diff;
}

static int device_run_gpus(void *ctx, const atoll_scenario *gpus, atoll_run_results *res, uint32_t n) {
  native_call *nc = ctx;
  gpu_run *g = calloc(n, sizeof *g);
  if (!g)
    return ATOLL_ENOMEM;
  uint32_t started = 0;
  int rc = 0;
  for (uint32_t i = 0; i < n; i++) {
    g[i] = (gpu_run){.s = &gpus[i], .o = *nc->o, .res = &res[i]};
    g[i].o.tap = NULL;
    g[i].o.trace = NULL;
    if (nc->o->trace) {
      if (atoll_trace_open_part(&g[i].part, nc->o->trace) != 0) {
        rc = ATOLL_EIO;
        snprintf(nc->err, nc->err_len, "gpu %u: cannot open a temporary file for its part of the trace", i);
        break;
      }
      atoll_trace_set_gpu(&g[i].part, i, 1);
      g[i].o.trace = &g[i].part;
    }
    if (pthread_create(&g[i].th, NULL, gpu_main, &g[i]) != 0) {
      rc = ATOLL_ENOMEM;
      break;
    }
    started++;
  }
  for (uint32_t i = 0; i < started; i++) {
    pthread_join(g[i].th, NULL);
    if (rc == 0 && g[i].rc) {
      rc = g[i].rc;
      snprintf(nc->err, nc->err_len, "gpu %u: %s", i, g[i].err);
    }
  }
  /* Every part is closed, joined to the trace when every run succeeded. */
  for (uint32_t i = 0; i < n; i++) {
    if (rc == 0) {
      rc = atoll_trace_append_part(nc->o->trace, &g[i].part);
      if (rc)
        snprintf(nc->err, nc->err_len, "gpu %u: its part of the trace could not be written", i);
    } else {
      atoll_trace_append_part(NULL, &g[i].part);
    }
  }
  if (rc == 0 && nc->info) {
    *nc->info = g[0].info;
    for (uint32_t i = 1; i < n; i++)
      info_add(nc->info, &g[i].info);
    if (n > 1) { /* the counts are every device's: the name says so, cut to keep the count whole */
      char more[24];
      size_t len = (size_t)snprintf(more, sizeof more, " and %u more", n - 1);
      size_t at = strlen(nc->info->device);
      if (at + len >= sizeof nc->info->device)
        at = sizeof nc->info->device - len - 1;
      memcpy(nc->info->device + at, more, len + 1);
    }
  }
  free(g);
  return rc;
}

static const atoll_run_device native_device = {.mode = "native", .standalone_ns = device_standalone,
                                               .run = device_run, .run_gpus = device_run_gpus};

int atoll_native_run(const atoll_scenario *s, const atoll_native_opts *o, atoll_run_results *res,
                     atoll_native_info *info, char *err, size_t err_len) {
  if (err_len)
    err[0] = 0;
  int rc = atoll_native_check(s, o->nmodels, err, err_len);
  if (rc)
    return rc;
  if (info)
    memset(info, 0, sizeof *info);
  native_call nc = {.o = o, .info = info, .err = err, .err_len = err_len};
  rc = atoll_run_drive(s, o->standalone_ns, &native_device, &nc, res);
  return rc;
}
