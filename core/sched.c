/* The scheduler core: task bookkeeping, queues and the event entry points. Policies (policy_*.c,
 * listed in include/atoll/policies.h) decide; this file keeps the books and talks to the device,
 * and names no policy: what differs between them comes through their ops (policy.h). */
#include "core/sched.h"

#include <string.h>

#include "atoll/error.h"
#include "core/dart.h"
#include "core/policy.h"

enum { ALIGN = 16 };

static size_t align_up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

static uint32_t max_ops(const atoll_scenario *s) {
  uint32_t m = 1;
  for (uint32_t i = 0; i < s->n_models; i++)
    if (s->models[i].model.n_ops > m)
      m = s->models[i].model.n_ops;
  return m;
}

static uint32_t count_queues(const atoll_scenario *s, bool per_client) {
  if (per_client)
    return s->n_clients;
  uint32_t n = 0;
  bool any_rt = false;
  for (uint32_t i = 0; i < s->n_clients; i++) {
    if (s->clients[i].cls == ATOLL_CLASS_RT)
      any_rt = true;
    else
      n++;
  }
  return n + (any_rt ? 1 : 0);
}

/* Storage layout, shared by size and init so they cannot disagree. */
typedef struct layout {
  size_t queues, queue_slots, client_queue, deadlines, waiting, tasks, free_slots, scratch, pstate, forming, total;
  uint32_t n_queues, per_queue, n_tasks, per_client;
} layout;

static layout plan(const atoll_scenario *s, const atoll_core_limits *lim, const atoll_policy_ops *p) {
  uint32_t n_queues = count_queues(s, p->queue_per_client);
  layout l = {.n_queues = n_queues};
  uint32_t per_client = lim && lim->pending_per_client ? lim->pending_per_client : 1024;
  /* A queue may hold every waiting request of every client mapped to it; each client also has one
   * active task beyond its waiting ones. */
  l.per_client = per_client;
  l.per_queue = per_client * s->n_clients;
  l.n_tasks = per_client * s->n_clients;
  /* Beyond its waiting requests a client has one active task, or one active batch. */
  for (uint32_t i = 0; i < s->n_clients; i++)
    l.n_tasks += s->clients[i].batch_max > 1 ? s->clients[i].batch_max : 1;
  /* dart's pipeline holds up to ATOLL_DART_PIPE_DEPTH requests of a client (core/dart_pipe.h),
   * each a batch of up to its BE batch. */
  if (lim && lim->dart)
    for (uint32_t i = 0; i < s->n_clients; i++)
      l.n_tasks += ATOLL_DART_PIPE_DEPTH * (s->clients[i].batch_max > 1 ? s->clients[i].batch_max
                                                                         : atoll_dart_be_batch(s, i));
  size_t at = 0;
  l.queues = at, at += align_up(n_queues * sizeof(atoll_queue));
  l.queue_slots = at, at += align_up((size_t)n_queues * l.per_queue * sizeof(uint64_t));
  l.client_queue = at, at += align_up(s->n_clients * sizeof(uint32_t));
  l.deadlines = at, at += align_up(s->n_clients * sizeof(int64_t));
  l.waiting = at, at += align_up(s->n_clients * sizeof(uint32_t));
  l.tasks = at, at += align_up(l.n_tasks * sizeof(atoll_task));
  l.free_slots = at, at += align_up(l.n_tasks * sizeof(uint64_t));
  l.scratch = at, at += align_up(max_ops(s) * sizeof(atoll_cmd));
  l.pstate = at, at += align_up(p->state_size);
  l.forming = at, at += align_up(2 * (size_t)s->n_clients * sizeof(int32_t));
  l.total = at;
  return l;
}

size_t atoll_core_size(const atoll_scenario *s, const atoll_core_limits *lim) {
  const atoll_policy_ops *p = atoll__policy_ops(s->policy.kind);
  return p ? plan(s, lim, p).total : 0;
}

/* cus: the CUs of the queue's one client (NULL for a shared queue: no binding). */
static int make_queue(atoll_core *c, uint32_t q, bool rt, const char *name, uint64_t *slots, uint32_t per_queue,
                      const atoll_cuset *cus) {
  atoll_queue *qu = &c->queues[q];
  qu->rt = rt;
  qu->active = -1;
  int rc = atoll_ring_init(&qu->pending, slots, per_queue);
  if (rc)
    return rc;
  /* The stock runtime's DQ depth unless the scenario sets one; the policy may change either. */
  atoll_stream_cfg cfg = {.dq_capacity = c->s->policy.dq_capacity, .name = name};
  if (cus)
    cfg.cus = *cus;
  const atoll_policy_ops *p = atoll__policy_ops(c->policy);
  if (p->setup_queue)
    p->setup_queue(c, q, &cfg);
  return c->dev.ops->create_stream(c->dev.ctx, &cfg, &qu->stream);
}

static int setup_queues(atoll_core *c, const layout *l, unsigned char *base) {
  const atoll_scenario *s = c->s;
  bool per_client = atoll__policy_ops(c->policy)->queue_per_client;
  uint64_t *slots = (uint64_t *)(base + l->queue_slots);
  uint32_t q = 0;
  int rc = 0;
  if (per_client) {
    for (uint32_t i = 0; i < s->n_clients && rc == 0; i++, q++) {
      c->client_queue[i] = q;
      rc = make_queue(c, q, s->clients[i].cls == ATOLL_CLASS_RT, s->clients[i].name, slots + (size_t)q * l->per_queue,
                      l->per_queue, &s->clients[i].cus);
    }
    return rc;
  }
  int32_t rtq = -1;
  for (uint32_t i = 0; i < s->n_clients && rc == 0; i++) {
    /* A shared queue's stream cannot follow one client's CUs (loaders refuse this first). */
    if (!atoll_cuset_is_empty(&s->clients[i].cus))
      return ATOLL_ENOTSUP;
    if (s->clients[i].cls == ATOLL_CLASS_RT) {
      if (rtq < 0) {
        rtq = (int32_t)q++;
        rc = make_queue(c, (uint32_t)rtq, true, "rt", slots + (size_t)rtq * l->per_queue, l->per_queue, NULL);
      }
      c->client_queue[i] = (uint32_t)rtq;
    } else {
      c->client_queue[i] = q;
      rc = make_queue(c, q, false, s->clients[i].name, slots + (size_t)q * l->per_queue, l->per_queue, NULL);
      q++;
    }
  }
  return rc;
}

int atoll_core_init(atoll_core *c, void *storage, size_t size, const atoll_scenario *s, atoll_device dev,
                    const atoll_core_observer *obs, void *obs_ctx, const atoll_core_limits *lim,
                    const int64_t *deadlines_ns) {
  static const atoll_core_observer no_observer = {0};
  if (!c || !storage || !s || !dev.ops || !dev.ops->create_stream || !dev.ops->launch || !dev.ops->now)
    return ATOLL_EINVAL;
  const atoll_policy_ops *p = atoll__policy_ops(s->policy.kind);
  if (!p)
    return ATOLL_ENOTSUP;
  layout l = plan(s, lim, p);
  if (size < l.total || l.n_tasks >= (1u << 24)) /* tags carry 24 bits of task index */
    return ATOLL_EINVAL;
  unsigned char *base = storage;
  memset(base, 0, l.total);
  *c = (atoll_core){.s = s, .dev = dev, .obs = obs ? obs : &no_observer, .obs_ctx = obs_ctx,
                    .policy = s->policy.kind, .mode = ATOLL_MODE_NORMAL, .n_queues = l.n_queues,
                    .n_tasks = l.n_tasks, .n_clients = s->n_clients, .dart = lim ? lim->dart : NULL};
  c->queues = (atoll_queue *)(base + l.queues);
  c->client_queue = (uint32_t *)(base + l.client_queue);
  c->client_deadline_ns = (int64_t *)(base + l.deadlines);
  c->client_waiting = (uint32_t *)(base + l.waiting);
  c->pending_per_client = l.per_client;
  c->tasks = (atoll_task *)(base + l.tasks);
  c->scratch = (atoll_cmd *)(base + l.scratch);
  c->scratch_cap = max_ops(s);
  c->pstate = base + l.pstate;
  c->client_forming = (int32_t *)(base + l.forming);
  c->client_forming_tail = c->client_forming + s->n_clients;
  for (uint32_t i = 0; i < s->n_clients; i++) {
    c->client_deadline_ns[i] = deadlines_ns ? deadlines_ns[i] : 0;
    c->client_forming[i] = c->client_forming_tail[i] = -1;
  }
  int rc = atoll_ring_init(&c->free_tasks, (uint64_t *)(base + l.free_slots), l.n_tasks);
  for (uint32_t t = 0; t < l.n_tasks && rc == 0; t++)
    rc = atoll_ring_push(&c->free_tasks, t);
  if (rc == 0)
    rc = setup_queues(c, &l, base);
  if (rc == 0 && p->init)
    p->init(c);
  if (rc == 0 && p->create_streams)
    rc = p->create_streams(c);
  return rc;
}

/* The storage block starts at the queues array (the first part of the layout). */
static unsigned char *storage_of(const atoll_core *c) { return (unsigned char *)c->queues; }

/* Moves a pointer into src's block to the same offset in dst's block. */
static void *rebase(const void *p, const unsigned char *from, unsigned char *to) {
  return to + ((const unsigned char *)p - from);
}

int atoll_core_copy(atoll_core *dst, void *dst_storage, size_t size, const atoll_core *src) {
  const atoll_policy_ops *p = atoll__policy_ops(src->policy);
  if (!p || !dst_storage)
    return ATOLL_EINVAL;
  size_t need = atoll_core_size(src->s, &(atoll_core_limits){.pending_per_client = src->pending_per_client});
  if (size < need)
    return ATOLL_EINVAL;
  const unsigned char *from = storage_of(src);
  unsigned char *to = dst_storage;
  memcpy(to, from, need);
  *dst = *src;
  dst->queues = rebase(src->queues, from, to);
  dst->client_queue = rebase(src->client_queue, from, to);
  dst->client_deadline_ns = rebase(src->client_deadline_ns, from, to);
  dst->client_waiting = rebase(src->client_waiting, from, to);
  dst->tasks = rebase(src->tasks, from, to);
  dst->scratch = rebase(src->scratch, from, to);
  dst->pstate = rebase(src->pstate, from, to);
  dst->client_forming = rebase(src->client_forming, from, to);
  dst->client_forming_tail = rebase(src->client_forming_tail, from, to);
  dst->free_tasks.slots = rebase(src->free_tasks.slots, from, to);
  for (uint32_t q = 0; q < dst->n_queues; q++)
    dst->queues[q].pending.slots = rebase(src->queues[q].pending.slots, from, to);
  return 0;
}

/* Over the logical state: values in order, never addresses. Eight bytes at a time (the explorer
 * hashes the core at every new state, and a byte at a time made it a fifth of the search's work):
 * FNV's multiply on each word, with the high half folded down so that every bit reaches the low
 * ones; the last n % 8 bytes one at a time. */
static uint64_t mix(uint64_t h, const void *data, size_t n) {
  const unsigned char *b = data;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, sizeof w);
    h = (h ^ w) * 0x100000001B3ull;
    h ^= h >> 32;
  }
  for (; i < n; i++)
    h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

static uint64_t mix_ring(uint64_t h, const struct atoll_ring *r) {
  uint32_t n = atoll_ring_count(r);
  h = mix(h, &n, sizeof n);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = 0;
    atoll_ring_peek(r, i, &v);
    h = mix(h, &v, sizeof v);
  }
  return h;
}

uint64_t atoll_core_hash(const atoll_core *c) {
  uint64_t h = 0xCBF29CE484222325ull;
  uint32_t head[3] = {c->policy, c->mode, c->rr_next};
  h = mix(h, head, sizeof head);
  h = mix(h, c->pstate, atoll__policy_ops(c->policy)->state_size);
  h = mix(h, c->client_waiting, c->n_clients * sizeof *c->client_waiting);
  for (uint32_t q = 0; q < c->n_queues; q++) {
    const atoll_queue *qu = &c->queues[q];
    int32_t fields[3] = {qu->rt, (int32_t)qu->stream, qu->active};
    h = mix(h, fields, sizeof fields);
    h = mix_ring(h, &qu->pending);
  }
  /* Tasks by index (indices are state: tags and queues name them); free ones contribute only
   * their being free, so stale contents of freed slots do not matter. */
  for (uint32_t t = 0; t < c->n_tasks; t++) {
    const atoll_task *k = &c->tasks[t];
    if (!k->in_use) {
      h = mix(h, "", 1);
      continue;
    }
    int64_t f[8] = {(int64_t)k->req, k->arrival_ns, k->deadline_ns, k->client, k->queue, k->next_launch,
                    k->n_done, k->started};
    h = mix(h, f, sizeof f);
    uint32_t pad[7] = {k->paused, k->epoch, k->restored, k->pad_op, k->pad_next, k->pad_reserved, k->pad_done};
    h = mix(h, pad, sizeof pad);
    h = mix(h, k->pad_ver, sizeof k->pad_ver);
    if (k->batch > 1 || k->batch_next >= 0) { /* only then: runs without batches keep their hashes */
      int32_t b[2] = {(int32_t)k->batch, k->batch_next};
      h = mix(h, b, sizeof b);
    }
  }
  for (uint32_t i = 0; i < c->n_clients; i++)
    if (c->client_forming[i] >= 0) {
      int32_t f[3] = {(int32_t)i, c->client_forming[i], c->client_forming_tail[i]};
      h = mix(h, f, sizeof f);
    }
  return mix_ring(h, &c->free_tasks);
}

bool atoll_core_client_active(const atoll_core *c, uint32_t client) {
  const atoll_policy_ops *p = atoll__policy_ops(c->policy);
  /* A run of one GPU serves that GPU's clients only (atoll_scenario.run_gpu). */
  return client < c->n_clients && c->s->clients[client].gpu == c->s->run_gpu &&
         (!p->client_active || p->client_active(c, client));
}

bool atoll_core_is_valid(const atoll_core *c) {
  if (!c || !c->s || c->n_queues == 0 || c->mode > ATOLL_MODE_REALTIME)
    return false;
  if (!atoll_ring_is_valid(&c->free_tasks))
    return false;
  uint32_t busy = 0;
  for (uint32_t t = 0; t < c->n_tasks; t++) {
    const atoll_task *k = &c->tasks[t];
    if (!k->in_use)
      continue;
    busy++;
    if (k->client >= c->n_clients || k->queue >= c->n_queues || k->n_done > k->next_launch ||
        k->next_launch > c->s->models[c->s->clients[k->client].model].model.n_ops)
      return false;
    /* Blocks in padded launches belong to ops from n_done on, at most ATOLL_PAD_SPAN of them. */
    if (k->pad_reserved > 0 && (k->pad_op < k->n_done || k->pad_op - k->n_done > ATOLL_PAD_SPAN))
      return false;
    if (k->batch == 0 || k->batch > ATOLL_MAX_BATCH || k->batch_next >= (int32_t)c->n_tasks)
      return false;
  }
  if (busy + atoll_ring_count(&c->free_tasks) != c->n_tasks)
    return false;
  for (uint32_t q = 0; q < c->n_queues; q++) {
    const atoll_queue *qu = &c->queues[q];
    if (!atoll_ring_is_valid(&qu->pending))
      return false;
    if (qu->active >= 0 && ((uint32_t)qu->active >= c->n_tasks || !c->tasks[qu->active].in_use))
      return false;
  }
  const atoll_policy_ops *p = atoll__policy_ops(c->policy);
  return p && (!p->state_valid || p->state_valid(c));
}

/* --- shared mechanisms --- */

const atoll_model *atoll__task_model(const atoll_core *c, const atoll_task *t) {
  return &c->s->models[c->s->clients[t->client].model].model;
}

static const atoll_model *task_model(const atoll_core *c, const atoll_task *t) { return atoll__task_model(c, t); }

/* Removes pending entry `pick` of q keeping the others in order (a rotation through the ring;
 * queues are short when the choice matters, so O(n) is fine) and returns its task. */
static uint32_t queue_take(atoll_queue *qu, uint32_t pick) {
  uint32_t n = atoll_ring_count(&qu->pending);
  uint64_t chosen = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t id;
    atoll_ring_pop(&qu->pending, &id);
    if (i == pick)
      chosen = id;
    else
      atoll_ring_push(&qu->pending, id);
  }
  return (uint32_t)chosen;
}

bool atoll__queue_activate_at(atoll_core *c, uint32_t q, uint32_t pick) {
  atoll_queue *qu = &c->queues[q];
  if (qu->active >= 0 || pick >= atoll_ring_count(&qu->pending))
    return false;
  uint32_t chosen = queue_take(qu, pick);
  qu->active = (int32_t)chosen;
  c->client_waiting[c->tasks[chosen].client] -= c->tasks[chosen].batch;
  return true;
}

bool atoll__queue_activate_batch(atoll_core *c, uint32_t q, uint32_t max) {
  if (!atoll__queue_activate(c, q))
    return false;
  atoll_queue *qu = &c->queues[q];
  uint32_t lead = (uint32_t)qu->active;
  atoll_task *t = &c->tasks[lead];
  if (t->batch > 1)
    return true;
  if (max > ATOLL_MAX_BATCH)
    max = ATOLL_MAX_BATCH;
  uint32_t tail = lead;
  for (uint32_t i = 0; i < atoll_ring_count(&qu->pending) && t->batch < max;) {
    uint64_t id;
    atoll_ring_peek(&qu->pending, i, &id);
    const atoll_task *k = &c->tasks[id];
    if (k->client != t->client || k->batch > 1) {
      i++;
      continue;
    }
    queue_take(qu, i);
    c->client_waiting[t->client]--;
    c->tasks[tail].batch_next = (int32_t)id;
    tail = (uint32_t)id;
    t->batch++;
  }
  return true;
}

bool atoll__queue_activate(atoll_core *c, uint32_t q) {
  atoll_queue *qu = &c->queues[q];
  uint32_t n = atoll_ring_count(&qu->pending);
  if (qu->active >= 0 || n == 0)
    return false;
  uint32_t pick = 0;
  if (qu->rt && c->s->policy.rt_queue != ATOLL_RT_QUEUE_FIFO) {
    /* Earliest deadline; ties keep arrival order because only a strictly earlier one wins. */
    uint64_t best_id;
    atoll_ring_peek(&qu->pending, 0, &best_id);
    for (uint32_t i = 1; i < n; i++) {
      uint64_t id;
      atoll_ring_peek(&qu->pending, i, &id);
      if (c->tasks[id].deadline_ns < c->tasks[best_id].deadline_ns)
        best_id = id, pick = i;
    }
  }
  return atoll__queue_activate_at(c, q, pick);
}

/* The task leaves the core (completed, failed or shed): its slot is freed, the policy reacts, then
 * the runner hears of it through `tell`, so a closed-loop client's next request (sent by the
 * runner) finds the GPU already handed to whatever was waiting. `taken`: the policy had taken it
 * from the queue's pending ones -- as the queue's active task, or held apart from it (dart's
 * pipeline holds several of a client's tasks while the slot stays free or names another). */
typedef void (*outcome_fn)(void *ctx, uint32_t client, uint64_t req, int64_t now);

static void release_task(atoll_core *c, uint32_t id, bool taken, outcome_fn tell, int64_t now) {
  atoll_task *t = &c->tasks[id];
  uint32_t q = t->queue, client = t->client;
  /* The task and the requests riding with it (a batch) end together. */
  uint64_t req[ATOLL_MAX_BATCH];
  uint32_t n = 0;
  for (int32_t k = (int32_t)id; k >= 0 && n < ATOLL_MAX_BATCH;) {
    atoll_task *m = &c->tasks[k];
    int32_t next = m->batch_next;
    req[n++] = m->req;
    m->in_use = 0;
    m->epoch++; /* commands of it still on the device complete stale */
    m->batch = 1;
    m->batch_next = -1;
    atoll_ring_push(&c->free_tasks, (uint32_t)k);
    k = next;
  }
  if (taken) {
    if (c->queues[q].active == (int32_t)id) /* the slot is this task's to free, no other's */
      c->queues[q].active = -1;
    atoll__policy_ops(c->policy)->on_task_done(c, q, now);
  }
  for (uint32_t i = 0; i < n && tell; i++) {
    if (n > 1 && tell == c->obs->request_done && c->obs->request_batch)
      c->obs->request_batch(c->obs_ctx, client, req[i], n, now);
    tell(c->obs_ctx, client, req[i], now);
  }
}

void atoll__queue_fail(atoll_core *c, uint32_t q) {
  if (c->queues[q].active >= 0)
    release_task(c, (uint32_t)c->queues[q].active, true, c->obs->request_failed, c->dev.ops->now(c->dev.ctx));
}

void atoll__queue_shed_at(atoll_core *c, uint32_t q, uint32_t pick, int64_t now) {
  atoll_queue *qu = &c->queues[q];
  if (pick >= atoll_ring_count(&qu->pending))
    return;
  uint32_t id = queue_take(qu, pick);
  c->client_waiting[c->tasks[id].client] -= c->tasks[id].batch;
  release_task(c, id, false, c->obs->request_shed, now);
}

void atoll__queue_shed_active(atoll_core *c, uint32_t q, int64_t now) {
  if (c->queues[q].active >= 0)
    release_task(c, (uint32_t)c->queues[q].active, true, c->obs->request_shed, now);
}

int atoll__queue_set_cus(atoll_core *c, uint32_t q, const atoll_cuset *cus) {
  if (!c->dev.ops->set_stream_cus)
    return ATOLL_ENOTSUP;
  return c->dev.ops->set_stream_cus(c->dev.ctx, c->queues[q].stream, cus);
}

void atoll__share_changed(atoll_core *c, uint32_t client, uint32_t pct, uint32_t batch, int64_t now) {
  if (c->obs->share_changed)
    c->obs->share_changed(c->obs_ctx, client, pct, batch, now);
}

void atoll__partition_step(atoll_core *c, uint32_t client, atoll_partition_step step, uint32_t pct, int64_t start_ns,
                           int64_t end_ns) {
  if (c->obs->partition_step)
    c->obs->partition_step(c->obs_ctx, client, (uint32_t)step, pct, start_ns, end_ns);
}

void atoll__group_done(atoll_core *c, uint32_t n_models, int64_t predicted_ns, int64_t start_ns, int64_t now) {
  if (c->obs->group_done)
    c->obs->group_done(c->obs_ctx, n_models, predicted_ns, start_ns, now);
}

int atoll__timer_set(atoll_core *c, int64_t at, uint64_t cookie) {
  return c->dev.ops->set_timer ? c->dev.ops->set_timer(c->dev.ctx, at, cookie) : ATOLL_ENOTSUP;
}

bool atoll__queue_has_unlaunched(const atoll_core *c, uint32_t q) {
  const atoll_queue *qu = &c->queues[q];
  if (qu->active < 0)
    return false;
  const atoll_task *t = &c->tasks[qu->active];
  return t->next_launch < task_model(c, t)->n_ops;
}

int atoll__launch_range_on(atoll_core *c, uint32_t q, uint32_t count, uint32_t stream, bool rt) {
  const int32_t id = c->queues[q].active;
  return id < 0 ? 0 : atoll__launch_task_on(c, (uint32_t)id, count, stream, rt);
}

int atoll__launch_task_on(atoll_core *c, uint32_t id, uint32_t count, uint32_t stream, bool rt) {
  atoll_task *t = &c->tasks[id];
  const atoll_model *m = task_model(c, t);
  uint32_t model = c->s->clients[t->client].model;
  uint32_t n = m->n_ops - t->next_launch;
  if (count < n)
    n = count;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t op = t->next_launch + i;
    c->scratch[i] = (atoll_cmd){.model = model, .op = op, .tag = atoll_tag_make(id, op, t->epoch),
                                .rt = rt, .batch = t->batch};
  }
  /* An op partly run inside padded launches continues with the rest of its blocks. */
  if (n > 0 && t->pad_done > 0 && t->next_launch == t->n_done) {
    int32_t v = atoll_task_pad_version(t, t->n_done);
    const atoll_kernel_shape *sh = v > 0 ? &m->ops[t->n_done].versions[v - 1] : &m->ops[t->n_done].shape;
    c->scratch[0].version = v > 0 ? (uint32_t)v : 0;
    c->scratch[0].block_lo = t->pad_done;
    c->scratch[0].block_n = (uint32_t)atoll_dim3_count(sh->grid) - t->pad_done;
  }
  t->next_launch += n;
  int rc = n ? c->dev.ops->launch(c->dev.ctx, stream, c->scratch, n) : 0;
  if (rc) /* the device failed the launch: the request fails, and is counted as failed */
    release_task(c, id, true, c->obs->request_failed, c->dev.ops->now(c->dev.ctx));
  return rc;
}

int atoll__launch_range(atoll_core *c, uint32_t q, uint32_t count) {
  return atoll__launch_range_on(c, q, count, c->queues[q].stream, c->queues[q].rt);
}
int atoll__launch_rest(atoll_core *c, uint32_t q) { return atoll__launch_range(c, q, UINT32_MAX); }
int atoll__launch_next(atoll_core *c, uint32_t q) { return atoll__launch_range(c, q, 1); }

int32_t atoll__rt_queue(const atoll_core *c) {
  for (uint32_t q = 0; q < c->n_queues; q++)
    if (c->queues[q].rt)
      return (int32_t)q;
  return -1;
}

static bool has_work(const atoll_core *c, uint32_t q) {
  const atoll_queue *qu = &c->queues[q];
  if (qu->active >= 0) {
    const atoll_task *t = &c->tasks[qu->active];
    return t->next_launch < task_model(c, t)->n_ops;
  }
  return !atoll_ring_is_empty(&qu->pending);
}

int32_t atoll__next_be_queue(atoll_core *c) {
  for (uint32_t i = 0; i < c->n_queues; i++) {
    uint32_t q = (c->rr_next + i) % c->n_queues;
    if (!c->queues[q].rt && has_work(c, q)) {
      c->rr_next = (q + 1) % c->n_queues;
      return (int32_t)q;
    }
  }
  return -1;
}

/* --- the batcher (atoll_client.batch_max) --- */

/* The batch being formed for client goes to its queue, as one task, for the policy to run. */
static void batch_release(atoll_core *c, uint32_t client, int64_t now) {
  int32_t lead = c->client_forming[client];
  c->client_forming[client] = c->client_forming_tail[client] = -1;
  uint32_t q = c->client_queue[client];
  atoll_ring_push(&c->queues[q].pending, (uint64_t)lead);
  atoll__policy_ops(c->policy)->on_queued(c, q, now);
}

/* Task id of client arrived: it starts a batch, whose timeout is set, or joins the one being
 * formed, which goes once full. A device without timers gets no timeout: each batch goes at once. */
static void batch_join(atoll_core *c, uint32_t client, uint32_t id, int64_t now) {
  const atoll_client *cl = &c->s->clients[client];
  int32_t lead = c->client_forming[client];
  if (lead < 0) {
    c->client_forming[client] = c->client_forming_tail[client] = (int32_t)id;
    uint64_t cookie = ATOLL_CORE_COOKIE | ((uint64_t)c->tasks[id].epoch << 32) | id;
    if (atoll__timer_set(c, now + cl->batch_timeout_ns, cookie) != 0)
      batch_release(c, client, now);
    return;
  }
  c->tasks[c->client_forming_tail[client]].batch_next = (int32_t)id;
  c->client_forming_tail[client] = (int32_t)id;
  if (++c->tasks[lead].batch >= cl->batch_max)
    batch_release(c, client, now);
}

/* A batch's timeout: it goes as it is, unless it already went (full) or the slot was reused. */
static void batch_timeout(atoll_core *c, uint64_t cookie, int64_t now) {
  uint32_t id = (uint32_t)(cookie & 0xFFFFFF);
  if (id >= c->n_tasks)
    return;
  const atoll_task *t = &c->tasks[id];
  if (t->in_use && t->epoch == (uint8_t)(cookie >> 32) && c->client_forming[t->client] == (int32_t)id)
    batch_release(c, t->client, now);
}

/* --- events --- */

void atoll_core_on_arrival(atoll_core *c, uint32_t client, uint64_t req, int64_t now) {
  uint32_t q = c->client_queue[client];
  uint64_t id;
  if (c->client_waiting[client] >= c->pending_per_client || atoll_ring_is_full(&c->queues[q].pending) ||
      atoll_ring_is_empty(&c->free_tasks)) {
    if (c->obs->request_dropped)
      c->obs->request_dropped(c->obs_ctx, client, req, now);
    return;
  }
  const atoll_policy_ops *p = atoll__policy_ops(c->policy);
  if (p->admit && !p->admit(c, client, now)) {
    if (c->obs->request_shed)
      c->obs->request_shed(c->obs_ctx, client, req, now);
    return;
  }
  atoll_ring_pop(&c->free_tasks, &id);
  int64_t rel = c->client_deadline_ns[client];
  c->tasks[id] = (atoll_task){.req = req, .arrival_ns = now, .deadline_ns = rel ? now + rel : INT64_MAX,
                              .client = client, .queue = q, .in_use = 1, .batch = 1, .batch_next = -1};
  atoll__task_pad_clear(&c->tasks[id]);
  c->client_waiting[client]++;
  if (c->s->clients[client].batch_max > 1) {
    batch_join(c, client, (uint32_t)id, now);
    return;
  }
  atoll_ring_push(&c->queues[q].pending, id);
  p->on_queued(c, q, now);
}

void atoll_core_on_cmd_started(atoll_core *c, uint32_t stream, uint64_t tag, int64_t now) {
  (void)stream;
  atoll_task *t = &c->tasks[atoll_tag_task(tag)];
  if (!t->in_use || atoll_tag_epoch(tag) != t->epoch)
    return;
  if (!t->started) {
    t->started = 1;
    /* Every request of a batch starts with its run. */
    for (int32_t k = (int32_t)atoll_tag_task(tag); k >= 0 && c->obs->request_started; k = c->tasks[k].batch_next)
      c->obs->request_started(c->obs_ctx, t->client, c->tasks[k].req, now);
  }
  if (t->restored) {
    t->restored = 0;
    if (c->obs->task_restored)
      c->obs->task_restored(c->obs_ctx, t->client, t->req, now);
  }
}

void atoll__task_pad_clear(atoll_task *t) {
  t->pad_op = t->n_done;
  t->pad_next = t->pad_done = t->pad_reserved = 0;
  for (uint32_t i = 0; i < ATOLL_PAD_SPAN; i++)
    t->pad_ver[i] = -1;
}

/* Op n_done completed (normally or through padding): its padding record goes with it. */
static void op_completed(atoll_task *t) {
  t->pad_ver[t->n_done % ATOLL_PAD_SPAN] = -1;
  t->pad_done = 0;
  t->n_done++;
}

/* The task's last op completed. */
static void finish_task(atoll_core *c, uint32_t id, int64_t now) { release_task(c, id, true, c->obs->request_done, now); }

void atoll_core_on_cmd_done(atoll_core *c, uint32_t stream, uint64_t tag, int64_t now) {
  (void)stream;
  uint32_t id = atoll_tag_task(tag), op = atoll_tag_op(tag);
  atoll_task *t = &c->tasks[id];
  if (!t->in_use)
    return;
  uint32_t n_ops = task_model(c, t)->n_ops;
  if (atoll_tag_epoch(tag) != t->epoch) {
    /* A command of before the task's last preemption. Killed and evicted ones never complete;
     * one that ran to the end (a preemption that waited for it) is the very op the paused task
     * needs next, and its work counts. Once the task was relaunched, its new copy of the op will
     * complete instead, so the old one is ignored. */
    if (!t->paused || op != t->n_done)
      return;
    op_completed(t);
    if (t->next_launch < t->n_done)
      t->next_launch = t->n_done;
    const atoll_policy_ops *p = atoll__policy_ops(c->policy);
    if (t->n_done == n_ops) {
      t->paused = 0;
      finish_task(c, id, now);
    }
    if (p->on_awaited_done)
      p->on_awaited_done(c, now);
    return;
  }
  op_completed(t);
  if (t->n_done < n_ops) {
    const atoll_policy_ops *p = atoll__policy_ops(c->policy);
    if (p->on_op_done)
      p->on_op_done(c, t->queue, now);
    return;
  }
  finish_task(c, id, now);
}

void atoll_core_on_blocks_done(atoll_core *c, uint32_t stream, uint64_t tag, uint32_t blocks, int64_t now) {
  (void)stream;
  uint32_t id = atoll_tag_task(tag);
  atoll_task *t = &c->tasks[id];
  if (!t->in_use || atoll_tag_epoch(tag) != t->epoch || atoll_tag_op(tag) != t->n_done)
    return;
  const atoll_model *m = task_model(c, t);
  const atoll_op *op = &m->ops[t->n_done];
  int32_t v = atoll_task_pad_version(t, t->n_done);
  const atoll_kernel_shape *sh = v > 0 ? &op->versions[v - 1] : &op->shape;
  t->pad_reserved -= blocks < t->pad_reserved ? blocks : t->pad_reserved;
  t->pad_done += blocks;
  if (t->pad_done < atoll_dim3_count(sh->grid))
    return;
  /* Padding ran the whole op (padded launches complete in order, so it is op n_done). */
  op_completed(t);
  if (t->next_launch < t->n_done)
    t->next_launch = t->n_done;
  if (t->n_done == m->n_ops) {
    t->paused = 0;
    finish_task(c, id, now);
  }
}

void atoll_core_on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  if (cookie & ATOLL_CORE_COOKIE) {
    batch_timeout(c, cookie, now);
    return;
  }
  const atoll_policy_ops *p = atoll__policy_ops(c->policy);
  if (p->on_timer)
    p->on_timer(c, cookie, now);
}
