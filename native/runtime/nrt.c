/* The native runtime's device: streams with host queues and transmit threads, the preempt flag,
 * the execution index, and the atoll_device_ops table the core calls (nrt.h has the model).
 *
 * Locks: each stream has one mutex over its HQ, in-flight records and flag state. The transmit
 * thread holds it while it binds and submits a command, so an HQ reset or a flag set sees every
 * command either still in the HQ or already in flight, never between. Lock order is stream, then
 * the back-end's own locks; back-ends call the completion callbacks with none of their locks
 * held, and the callbacks take only the stream's mutex and the inbox's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/runtime/nrt_internal.h"

int64_t atoll_nrt_now(const atoll_nrt *r) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)(ts.tv_sec - r->t0.tv_sec) * 1000000000 + (ts.tv_nsec - r->t0.tv_nsec);
}

void atoll_nrt_epoch(const atoll_nrt *r, struct timespec *out) { *out = r->t0; }

void *atoll_nrt_backend(const atoll_nrt *r) { return r->be; }

const char *atoll_nrt_stream_error(const atoll_nrt *r) { return r->stream_err; }

void atoll__nrt_set_failure(atoll_nrt *r, int rc) {
  int expected = 0;
  atomic_compare_exchange_strong(&r->failure, &expected, rc);
}

int atoll_nrt_failure(const atoll_nrt *r) { return atomic_load(&((atoll_nrt *)r)->failure); }

static nrt_stream *stream_of(atoll_nrt *r, uint32_t sid) { return sid < r->n_streams ? r->streams[sid] : NULL; }

static inflight *rec_of(nrt_stream *s, uint64_t seq) { return &s->rec[seq & (s->rec_cap - 1)]; }

static uint32_t pow2_above(uint32_t n) {
  uint32_t p = 1024; /* also the history the execution index can name (dev_exec_index) */
  while (p <= n)
    p *= 2;
  return p;
}

/* --- transmit --- */

static void post_done(atoll_nrt *r, nrt_stream *s, const inflight *f, atoll_ndone_status status, int64_t now) {
  atoll_nrt_event ev = {.kind = ATOLL_NRT_EV_DONE, .status = (uint8_t)status, .rt = f->rt, .stream = s->index,
                        .a = f->model, .b = f->op, .tag = f->core_tag, .at_ns = now, .start_ns = f->start_ns,
                        .seq = f->seq};
  atoll_nrt_post(r, &ev);
}

/* Whether the HQ head may go to the back-end now: room in the DQ, no flag, no move waiting. */
static int may_transmit(const nrt_stream *s) {
  return s->hq_head && s->in_flight < s->dq_cap && !s->flag_on && !s->move_pending;
}

/* The switch of a re-provisioned share: the queue, drained, goes to its new CUs. A back-end that
 * refuses leaves it where it was: the run goes on, on the old share, with a warning (the policy's
 * books then name a share the queue does not have; the outputs are unaffected). Called with s->mu
 * held and nothing in flight. */
static void move_now(atoll_nrt *r, nrt_stream *s) {
  char err[256] = "";
  int rc = r->cfg.be_ops->rebind_queue(r->be, s->q, &s->move_to, err, sizeof err);
  s->move_pending = 0;
  if (rc == 0) {
    s->cus = s->move_to;
    s->moves++;
  } else {
    fprintf(stderr, "atoll native: warning: stream '%s' keeps its CUs: %s\n", s->name,
            err[0] ? err : atoll_strerror(rc));
  }
}

/* Moves the HQ head into the back-end's queue. Called with s->mu held. */
static void transmit_one(atoll_nrt *r, nrt_stream *s) {
  hq_node *n = s->hq_head;
  s->hq_head = n->next;
  if (!s->hq_head)
    s->hq_tail = NULL;
  s->hq_count--;
  uint64_t seq = ++s->next_seq;
  inflight *f = rec_of(s, seq);
  *f = (inflight){.seq = seq, .core_tag = n->cmd.tag, .model = n->cmd.model, .op = n->cmd.op, .rt = n->cmd.rt,
                  .start_ns = -1};
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  atoll_nrt_bind_req req = {.cmd = &n->cmd, .payload = n->payload};
  if (n->pad) {
    req.rt_cus = n->pad->rt_cus;
    req.parts = n->pad->parts;
    req.part_payloads = n->pad->payloads;
    req.n_parts = n->pad->n_parts;
  }
  int rc = r->cfg.bind(r->cfg.bind_ctx, &req, &l);
  l.tag = nrt_tag(s->index, seq);
  l.k.tag = l.tag;
  l.rt = n->cmd.rt;
  if (rc == 0 && l.kind == ATOLL_NL_PADDED) {
    f->n_parts = l.n_parts;
    for (uint32_t i = 0; i < l.n_parts; i++) {
      l.parts[i].tag = nrt_part_tag(s->index, seq, i);
      f->part_tag[i] = n->pad->parts[i].cmd.tag;
      f->part_blocks[i] = l.parts[i].block_n;
    }
  }
  s->in_flight++;
  if (rc == 0)
    rc = r->cfg.be_ops->submit(r->be, s->q, &l);
  atomic_fetch_add_explicit(&r->st_launches, 1, memory_order_relaxed);
  n->next = NULL;
  atoll__nrt_free_nodes(r, n, NULL);
  if (rc != 0) {
    /* Nothing will complete it: retire it here so the stream does not stall behind it. */
    atomic_fetch_add_explicit(&r->st_faults, 1, memory_order_relaxed);
    atoll__nrt_set_failure(r, rc);
    s->in_flight--;
    s->done_seq = seq;
    post_done(r, s, f, ATOLL_ND_FAULT, atoll_nrt_now(r));
  }
}

static void *transmit_main(void *arg) {
  nrt_stream *s = arg;
  atoll_nrt *r = s->r;
  if (r->cfg.rt_threads && s->priority > 0) /* an RT stream's launches (nrt.h) */
    (void)atoll__nrt_take_rt_class();
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->stop && !may_transmit(s)) {
      s->tx_parks++; /* for atoll_nrt_tx_probe (nrt_observe.c) */
      pthread_cond_wait(&s->cv, &s->mu);
      atomic_fetch_add_explicit(&r->st_tx_wakeups, 1, memory_order_relaxed);
    }
    if (s->stop)
      break;
    transmit_one(r, s);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

/* --- back-end callbacks (any back-end thread, no back-end lock held) --- */

void atoll__nrt_on_start(void *ctx, uint64_t tag) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, nrt_tag_stream(tag));
  if (!s || nrt_tag_is_part(tag))
    return;
  int64_t now = atoll_nrt_now(r);
  uint64_t seq = nrt_tag_seq(tag);
  pthread_mutex_lock(&s->mu);
  int live = seq > s->done_seq && seq <= s->next_seq;
  inflight *f = rec_of(s, seq);
  uint64_t core_tag = f->core_tag;
  if (live)
    f->start_ns = now;
  pthread_mutex_unlock(&s->mu);
  if (!live)
    return;
  atoll_nrt_event ev = {.kind = ATOLL_NRT_EV_START, .stream = s->index, .tag = core_tag, .at_ns = now, .seq = seq};
  atoll_nrt_post(r, &ev);
}

void atoll__nrt_on_complete(void *ctx, uint64_t tag, atoll_ndone_status status) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, nrt_tag_stream(tag));
  if (!s)
    return;
  int64_t now = atoll_nrt_now(r);
  uint64_t seq = nrt_tag_seq(tag);
  pthread_mutex_lock(&s->mu);
  if (seq <= s->done_seq || seq > s->next_seq) {
    pthread_mutex_unlock(&s->mu); /* not in flight: a back-end bug; ignore rather than corrupt */
    atoll__nrt_set_failure(r, ATOLL_EINVAL);
    return;
  }
  inflight f = *rec_of(s, seq);
  if (nrt_tag_is_part(tag)) {
    pthread_mutex_unlock(&s->mu);
    uint32_t p = nrt_tag_part(tag);
    if (p < f.n_parts) {
      atoll_nrt_event ev = {.kind = ATOLL_NRT_EV_PART_DONE, .status = (uint8_t)status, .stream = s->index,
                            .a = f.part_blocks[p], .tag = f.part_tag[p], .at_ns = now};
      atoll_nrt_post(r, &ev);
    }
    return;
  }
  /* Launches of a queue complete in order; one that skipped ahead is a back-end bug, but the
   * books stay right if everything before it is taken as gone with it. */
  if (seq != s->done_seq + 1)
    atoll__nrt_set_failure(r, ATOLL_EINVAL);
  s->in_flight -= (uint32_t)(seq - s->done_seq);
  s->done_seq = seq;
  int drained = 0;
  if (s->flag_on && seq >= s->flag_seq) {
    /* The last launch that was in flight when the flag was set has left: nothing made after the
     * preemption can be caught by the flag once it is clear, so the HQ may transmit again. */
    s->flag_on = 0;
    r->cfg.be_ops->set_flag(r->be, s->q, false);
    drained = 1;
  }
  if (s->move_pending && s->in_flight == 0)
    move_now(r, s);
  /* Only when the transmit thread can now go on: woken for nothing at every completion, it took a
   * CPU from the scheduler or a CU worker at each preemption's kill, when every microsecond counts. */
  if (may_transmit(s))
    pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  if (status == ATOLL_ND_EVICTED)
    atomic_fetch_add_explicit(&r->st_evicted, 1, memory_order_relaxed);
  else if (status == ATOLL_ND_KILLED)
    atomic_fetch_add_explicit(&r->st_killed, 1, memory_order_relaxed);
  else if (status == ATOLL_ND_FAULT)
    atomic_fetch_add_explicit(&r->st_faults, 1, memory_order_relaxed);
  post_done(r, s, &f, status, now);
  if (drained) {
    atoll_nrt_event ev = {.kind = ATOLL_NRT_EV_DRAINED, .stream = s->index, .at_ns = now};
    atoll_nrt_post(r, &ev);
  }
}

/* --- device interface (scheduler thread) --- */

static int64_t dev_now(void *ctx) { return atoll_nrt_now(ctx); }

static void stream_free(nrt_stream *s) {
  atoll__nrt_free_nodes(s->r, s->hq_head, NULL);
  free(s->rec);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
}

bool atoll_nrt_reserve_set(uint32_t reserve, uint32_t cus, uint32_t priority, atoll_cuset *out) {
  memset(out, 0, sizeof *out);
  if (reserve == 0 || reserve >= cus)
    return false;
  return atoll_cuset_add_range(out, priority > 0 ? 0 : reserve, priority > 0 ? reserve - 1 : cus - 1) == 0;
}

static int dev_create_stream(void *ctx, const atoll_stream_cfg *given, uint32_t *id) {
  atoll_nrt *r = ctx;
  if (r->n_streams == NRT_MAX_STREAMS)
    return ATOLL_EFULL;
  atoll_stream_cfg reserved = *given;
  const atoll_stream_cfg *cfg = given;
  atoll_nbackend_info bi;
  if (r->cfg.rt_reserve_cus && atoll_cuset_is_empty(&given->cus) && r->cfg.be_ops->info(r->be, &bi) == 0 &&
      atoll_nrt_reserve_set(r->cfg.rt_reserve_cus, bi.cus, given->priority, &reserved.cus))
    cfg = &reserved;
  bool bound = !atoll_cuset_is_empty(&cfg->cus);
  if (bound && !r->cfg.be_ops->create_bound_queue) {
    snprintf(r->stream_err, sizeof r->stream_err, "the %s back-end cannot bind a queue to CUs",
             r->cfg.be_ops->name);
    return ATOLL_ENOTSUP;
  }
  nrt_stream *s = calloc(1, sizeof *s);
  if (!s)
    return ATOLL_ENOMEM;
  s->r = r;
  s->index = r->n_streams;
  s->priority = cfg->priority;
  snprintf(s->name, sizeof s->name, "%s", cfg->name ? cfg->name : "stream");
  s->dq_cap = cfg->dq_capacity ? cfg->dq_capacity : r->cfg.stock_dq_capacity;
  s->rec_cap = pow2_above(s->dq_cap);
  s->rec = calloc(s->rec_cap, sizeof *s->rec);
  if (!s->rec || pthread_mutex_init(&s->mu, NULL) != 0 || pthread_cond_init(&s->cv, NULL) != 0) {
    free(s->rec);
    free(s);
    return ATOLL_ENOMEM;
  }
  int rc = bound ? r->cfg.be_ops->create_bound_queue(r->be, cfg->priority, &cfg->cus, &s->q, r->stream_err,
                                                      sizeof r->stream_err)
                 : r->cfg.be_ops->create_queue(r->be, cfg->priority, &s->q);
  if (rc == 0 && pthread_create(&s->tx, NULL, transmit_main, s) != 0)
    rc = ATOLL_ENOMEM;
  else if (rc == 0) {
    atoll_nrt_name_thread(s->tx, "tx", (int)s->index);
    atoll_nrt_keep_off_sched_cpu(r, s->tx);
  }
  if (rc) {
    stream_free(s);
    return rc;
  }
  s->tx_running = 1;
  s->cus = cfg->cus;
  r->streams[r->n_streams] = s;
  *id = r->n_streams++;
  return 0;
}

/* Appends to the HQ. What the DQ has room for is transmitted at once by the caller: the transmit
 * thread is for the commands that must wait for room (or for a flag to clear), and handing it work
 * the DQ can take now would only add a thread wake-up to every launch. */
static void append(nrt_stream *s, hq_node *head, hq_node *tail, uint32_t n) {
  pthread_mutex_lock(&s->mu);
  if (s->hq_tail)
    s->hq_tail->next = head;
  else
    s->hq_head = head;
  s->hq_tail = tail;
  s->hq_count += n;
  while (may_transmit(s))
    transmit_one(s->r, s);
  /* No wake-up: what is left waits for room or for the flag to clear, exactly what the transmit
   * thread would wait for; the completion or the flag's clearing that brings it wakes that thread. */
  pthread_mutex_unlock(&s->mu);
}

static int dev_launch(void *ctx, uint32_t sid, const atoll_cmd *cmds, uint32_t n) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s)
    return ATOLL_EINVAL;
  if (n == 0)
    return 0;
  hq_node *tail = NULL, *head = atoll__nrt_take_nodes(r, n, &tail);
  if (!head) {
    atoll__nrt_set_failure(r, ATOLL_ENOMEM);
    return ATOLL_ENOMEM;
  }
  uint32_t i = 0;
  for (hq_node *node = head; node; node = node->next, i++) {
    node->cmd = cmds[i];
    node->payload = r->cfg.payload ? r->cfg.payload(r->cfg.bind_ctx, &cmds[i]) : NULL;
  }
  append(s, head, tail, n);
  return 0;
}

static int dev_launch_padded(void *ctx, uint32_t sid, const atoll_cmd *rt, uint32_t rt_cus, const atoll_pad_part *parts,
                             uint32_t n_parts) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s || n_parts > ATOLL_NPAD_MAX) {
    atoll__nrt_set_failure(r, ATOLL_EINVAL);
    return ATOLL_EINVAL;
  }
  if (n_parts == 0)
    return dev_launch(ctx, sid, rt, 1);
  hq_node *tail = NULL, *node = atoll__nrt_take_nodes(r, 1, &tail);
  hq_pad *pad = malloc(sizeof *pad);
  if (!node || !pad) {
    atoll__nrt_free_nodes(r, node, NULL);
    free(pad);
    atoll__nrt_set_failure(r, ATOLL_ENOMEM);
    return ATOLL_ENOMEM;
  }
  pad->rt_cus = rt_cus;
  pad->n_parts = n_parts;
  for (uint32_t i = 0; i < n_parts; i++) {
    pad->parts[i] = parts[i];
    pad->payloads[i] = r->cfg.payload ? r->cfg.payload(r->cfg.bind_ctx, &parts[i].cmd) : NULL;
  }
  node->cmd = *rt;
  node->payload = r->cfg.payload ? r->cfg.payload(r->cfg.bind_ctx, rt) : NULL;
  node->pad = pad;
  append(s, node, node, 1);
  return 0;
}

static int dev_set_timer(void *ctx, int64_t at, uint64_t cookie) { return atoll__nrt_set_timer(ctx, at, cookie); }

static int dev_reset_hq(void *ctx, uint32_t sid, bool async_reclaim, uint32_t *dropped) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s)
    return ATOLL_EINVAL;
  pthread_mutex_lock(&s->mu);
  hq_node *head = s->hq_head, *tail = s->hq_tail;
  uint32_t n = s->hq_count;
  s->hq_head = s->hq_tail = NULL;
  s->hq_count = 0;
  pthread_mutex_unlock(&s->mu);
  /* Reclaiming is the part whose cost grows with the queue: done here it delays the preemption,
   * handed to the GC thread it does not. */
  if (async_reclaim)
    atoll__nrt_gc_give(r, head, tail);
  else
    atoll__nrt_free_nodes(r, head, NULL);
  atomic_fetch_add_explicit(&r->st_hq_reset, n, memory_order_relaxed);
  int64_t now = atoll_nrt_now(r);
  if (n > 0 && now > r->marks.hq_done_ns)
    r->marks.hq_done_ns = now;
  if (dropped)
    *dropped = n;
  return 0;
}

static int dev_set_preempt_flag(void *ctx, uint32_t sid, bool on) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s)
    return ATOLL_EINVAL;
  int rc = 0;
  if (on)
    s->resets_at_flag = r->resets;
  pthread_mutex_lock(&s->mu);
  if (on) {
    /* Only what is in flight now is evicted; with nothing in flight the flag has nothing to do.
     * A flag already set extends to the launches transmitted since (none: the HQ is held). */
    if (s->in_flight > 0) {
      s->flag_seq = s->next_seq;
      if (!s->flag_on)
        rc = r->cfg.be_ops->set_flag(r->be, s->q, true);
      s->flag_on = 1;
    }
  } else if (s->flag_on) {
    s->flag_on = 0;
    rc = r->cfg.be_ops->set_flag(r->be, s->q, false);
    pthread_cond_broadcast(&s->cv);
  }
  pthread_mutex_unlock(&s->mu);
  return rc;
}

static int dev_reset_cus(void *ctx) {
  atoll_nrt *r = ctx;
  int64_t t0 = atoll_nrt_now(r);
  r->resets++;
  int rc = r->cfg.be_ops->reset_cus(r->be);
  int64_t t1 = atoll_nrt_now(r);
  atomic_fetch_add_explicit(&r->st_cu_resets, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&r->st_reset_ns, t1 - t0, memory_order_relaxed);
  if (t1 > r->marks.kill_done_ns)
    r->marks.kill_done_ns = t1;
  return rc;
}

/* A re-provisioned share (gslice, docs/gslice.md "Native"): the stream's queue moves to the CUs of
 * `cus` through the back-end's rebind_queue, at once when nothing of the stream is in flight, else
 * when its last launch in flight completes (the HQ holds what comes meanwhile). The policy switches
 * an IF only between its batches, so its own move is immediate; an IF whose CUs shift because a
 * neighbour's share changed finishes its running commands where they are. An equal set is no move. */
static int dev_set_stream_cus(void *ctx, uint32_t sid, const atoll_cuset *cus) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s || !cus || atoll_cuset_is_empty(cus) || atoll_cuset_end(cus) > r->info.cus)
    return ATOLL_EINVAL;
  pthread_mutex_lock(&s->mu);
  const atoll_cuset *now_on = s->move_pending ? &s->move_to : &s->cus;
  if (memcmp(now_on, cus, sizeof *cus) != 0) {
    s->move_to = *cus;
    s->move_pending = 1;
    if (s->in_flight == 0) {
      move_now(r, s);
      if (may_transmit(s))
        pthread_cond_broadcast(&s->cv);
    }
  }
  pthread_mutex_unlock(&s->mu);
  return 0;
}

uint32_t atoll_nrt_stream_moves(atoll_nrt *r, uint32_t sid) {
  nrt_stream *s = stream_of(r, sid);
  if (!s)
    return 0;
  pthread_mutex_lock(&s->mu);
  uint32_t n = s->moves;
  pthread_mutex_unlock(&s->mu);
  return n;
}

static int dev_set_dq_capacity(void *ctx, uint32_t sid, uint32_t capacity) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s || capacity == 0)
    return ATOLL_EINVAL;
  int rc = 0;
  pthread_mutex_lock(&s->mu);
  /* The records are found by sequence number modulo their count, which must exceed every launch
   * in flight: grow them before a larger capacity lets more in. A smaller capacity applies as
   * launches leave (nothing in flight is pushed back). */
  uint32_t need = pow2_above(capacity > s->in_flight ? capacity : s->in_flight);
  if (need > s->rec_cap) {
    inflight *nr = calloc(need, sizeof *nr);
    if (!nr) {
      rc = ATOLL_ENOMEM;
    } else {
      uint64_t from = s->next_seq >= s->rec_cap ? s->next_seq - s->rec_cap + 1 : 1;
      for (uint64_t q = from; q <= s->next_seq; q++)
        nr[q & (need - 1)] = *rec_of(s, q);
      free(s->rec);
      s->rec = nr;
      s->rec_cap = need;
    }
  }
  if (rc == 0)
    s->dq_cap = capacity;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return rc;
}

static int dev_exec_index(void *ctx, uint32_t sid, uint64_t *tag) {
  atoll_nrt *r = ctx;
  nrt_stream *s = stream_of(r, sid);
  if (!s)
    return ATOLL_EINVAL;
  uint64_t btag;
  int rc = r->cfg.be_ops->exec_index(r->be, s->q, &btag);
  if (rc)
    return rc;
  uint64_t seq = nrt_tag_seq(btag);
  pthread_mutex_lock(&s->mu);
  /* Records outlive their launches until rec_cap later launches reuse them: the core reads the
   * index twice in one preemption, and the named launch may have been killed in between. */
  const inflight *f = seq >= 1 && seq <= s->next_seq && s->next_seq - seq < s->rec_cap ? rec_of(s, seq) : NULL;
  if (f && f->seq == seq)
    *tag = f->core_tag;
  else
    rc = ATOLL_ENOENT; /* a launch so old that it names nothing running */
  pthread_mutex_unlock(&s->mu);
  /* The core reads the index during a preemption and restarts at or before the launch it names.
   * Launches before that one may have completed without the core having heard yet (their
   * completions wait in the inbox); counted late, they would move the restart point past an
   * idempotent group's entry while the interrupted in-place kernel has already changed its data.
   * The restart point accounts for them, so their completions are withheld (docs/native.md). So is
   * the named launch's own when the preemption reset the CUs: the core took it as killed and runs it
   * again, even if it happened to end just before the reset; without a reset the core waits for it
   * and must hear of it. */
  uint64_t below = r->resets > s->resets_at_flag ? seq + 1 : seq;
  if (rc == 0 && below > s->withhold_below)
    s->withhold_below = below;
  return rc;
}

/* --- life cycle --- */

int atoll_nrt_create(atoll_nrt **out, const atoll_nrt_cfg *cfg, char *err, size_t err_len) {
  if (!cfg->be_ops || !cfg->bind)
    return ATOLL_EINVAL;
  atoll_nrt *r = calloc(1, sizeof *r);
  if (!r)
    return ATOLL_ENOMEM;
  r->cfg = *cfg;
  if (!r->cfg.stock_dq_capacity)
    r->cfg.stock_dq_capacity = 1024;
  clock_gettime(CLOCK_MONOTONIC, &r->t0);
  int rc = atoll__nrt_pool_init(r);
  if (rc) {
    free(r);
    return rc;
  }
  rc = atoll__nrt_inbox_init(r);
  atoll_nbackend_cfg bc = cfg->be_cfg;
  bc.on_complete = atoll__nrt_on_complete;
  bc.on_start = atoll__nrt_on_start;
  bc.ctx = r;
  if (rc == 0)
    rc = cfg->be_ops->open(&bc, &r->be, err, err_len);
  if (rc == 0)
    rc = cfg->be_ops->info(r->be, &r->info);
  if (rc == 0)
    rc = atoll__nrt_gc_start(r);
  if (rc) {
    atoll_nrt_destroy(r);
    return rc;
  }
  r->ops = (atoll_device_ops){
      .now = dev_now,
      .create_stream = dev_create_stream,
      .launch = dev_launch,
      .set_timer = dev_set_timer,
      .reset_hq = dev_reset_hq,
      .set_preempt_flag = dev_set_preempt_flag,
      /* A back-end without a hardware CU reset (stock GPU drivers: can_reset_cus false) still
       * kills, through the kill words at its in-kernel preemption points; the core uses whatever
       * reset_cus the back-end has, so that fallback is what a stock-driver run preempts with. */
      .reset_cus = cfg->be_ops->reset_cus ? dev_reset_cus : NULL,
      .set_dq_capacity = dev_set_dq_capacity,
      .launch_padded = r->info.can_pad ? dev_launch_padded : NULL,
      .set_stream_cus = cfg->be_ops->rebind_queue ? dev_set_stream_cus : NULL,
      .exec_index = dev_exec_index,
  };
  *out = r;
  return 0;
}

atoll_device atoll_nrt_device(atoll_nrt *r) { return (atoll_device){.ops = &r->ops, .ctx = r}; }

void atoll_nrt_attach(atoll_nrt *r, atoll_core *core, const atoll_core_observer *obs) {
  r->core = core;
  r->obs = obs;
}

void atoll_nrt_queue_depth(atoll_nrt *r, uint32_t sid, uint32_t *hq, uint32_t *dq) {
  nrt_stream *s = stream_of(r, sid);
  *hq = *dq = 0;
  if (!s)
    return;
  pthread_mutex_lock(&s->mu);
  *hq = s->hq_count;
  *dq = s->in_flight;
  pthread_mutex_unlock(&s->mu);
}

int atoll_nrt_wait_idle(atoll_nrt *r, int64_t timeout_ns) {
  int64_t until = atoll_nrt_now(r) + timeout_ns;
  for (;;) {
    uint32_t busy = 0;
    for (uint32_t i = 0; i < r->n_streams; i++) {
      uint32_t hq, dq;
      atoll_nrt_queue_depth(r, i, &hq, &dq);
      busy += hq + dq;
    }
    if (busy == 0)
      return 0;
    if (atoll_nrt_now(r) > until)
      return ATOLL_EIO;
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
}

void atoll_nrt_stats_get(const atoll_nrt *r, atoll_nrt_stats *out) {
  atoll_nrt *m = (atoll_nrt *)r;
  *out = (atoll_nrt_stats){
      .events = atomic_load(&m->st_events),
      .launches = atomic_load(&m->st_launches),
      .evicted = atomic_load(&m->st_evicted),
      .killed = atomic_load(&m->st_killed),
      .faults = atomic_load(&m->st_faults),
      .hq_reset_cmds = atomic_load(&m->st_hq_reset),
      .gc_freed = atomic_load(&m->st_gc_freed),
      .cu_resets = atomic_load(&m->st_cu_resets),
      .killed_gpu_ns = atomic_load(&m->st_killed_gpu_ns),
      .reset_cus_ns_total = atomic_load(&m->st_reset_ns),
      .withheld = m->withheld,
      .padded_parts = m->padded_parts,
      .tx_wakeups = atomic_load(&m->st_tx_wakeups),
  };
  for (uint32_t i = 0; i < m->n_streams; i++)
    out->queue_moves += atoll_nrt_stream_moves(m, i);
}

/* Leaves the back-end idle: drops every HQ, evicts what is in flight, kills what runs, and waits
 * for the last completion. Without a CU reset (stock GPU drivers) running kernels end by
 * themselves. */
void atoll_nrt_quiesce(atoll_nrt *r) {
  atoll_nrt_stop(r);
  if (!r->be)
    return;
  for (uint32_t i = 0; i < r->n_streams; i++) {
    nrt_stream *s = r->streams[i];
    pthread_mutex_lock(&s->mu);
    hq_node *head = s->hq_head;
    s->hq_head = s->hq_tail = NULL;
    s->hq_count = 0;
    if (s->in_flight > 0) {
      s->flag_seq = s->next_seq;
      if (!s->flag_on)
        r->cfg.be_ops->set_flag(r->be, s->q, true);
      s->flag_on = 1;
    }
    pthread_mutex_unlock(&s->mu);
    atoll__nrt_free_nodes(r, head, NULL);
  }
  if (r->cfg.be_ops->reset_cus)
    r->cfg.be_ops->reset_cus(r->be);
  atoll_nrt_wait_idle(r, (int64_t)30 * 1000000000);
}

void atoll_nrt_destroy(atoll_nrt *r) {
  if (!r)
    return;
  atoll_nrt_quiesce(r);
  for (uint32_t i = 0; i < r->n_streams; i++) {
    nrt_stream *s = r->streams[i];
    if (s->tx_running) {
      pthread_mutex_lock(&s->mu);
      s->stop = 1;
      pthread_cond_broadcast(&s->cv);
      pthread_mutex_unlock(&s->mu);
      pthread_join(s->tx, NULL);
    }
  }
  atoll__nrt_gc_stop(r);
  if (r->be)
    r->cfg.be_ops->close(r->be);
  for (uint32_t i = 0; i < r->n_streams; i++)
    stream_free(r->streams[i]);
  if (r->in_buf)
    atoll__nrt_inbox_free(r);
  atoll__nrt_pool_free(r);
  free(r);
}
