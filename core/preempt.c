/* The preemption mechanism of the wait, reset and reef policies (policy_wait.c, policy_reset.c,
 * policy_reef.c): REEF's reset-based preemption (§4) and the wait-based baseline it is measured
 * against (§6.4). Each policy passes its style (preempt.h); nothing here asks which policy runs.
 *
 * Both keep REEF's queue layout (one RT queue, one BE queue per BE client, a stream each) and two
 * modes. In normal mode every BE queue runs its tasks one after another on its stream. An RT
 * arrival in normal mode switches to real-time mode and preempts every BE stream with work on the
 * GPU; RT tasks then run one after another; when the RT queue is empty, normal mode resumes and
 * the preempted BE tasks are relaunched from their restart points.
 *
 *  reset  ① reset the BE streams' host queues (asynchronous reclamation unless async_reclaim is
 *         off), ② set their preempt flags (commands already in the DQ are lazily evicted), ③ reset
 *         the CUs, killing the running BE blocks (unless reset_cu is off, a running kernel is not
 *         restorable, or the device has no CU reset: then the preemption waits for running blocks).
 *         Right after, each preempted stream's execution index gives the interrupted op, and the
 *         task restarts at that op if it is idempotent, else at the entry of its idempotent group.
 *  reef   reset plus dynamic kernel padding (§5): in real-time mode the RT task's kernels are
 *         launched a few at a time (up to the RT DQ's depth), each padded at launch with BE blocks
 *         that core/dkp.c selects from the BE tasks waiting at their restart points (and new BE
 *         tasks, which start this way). An op padding has partly run continues with its remaining
 *         blocks when normal mode resumes.
 *  wait   block-level wait-based preemption with lazy eviction: the stock DQ depth, no HQ reset,
 *         every launched BE kernel evicted through the CP, running blocks waited for, and RT work
 *         launched once the device is synchronized (its streams drained). On a device that cannot
 *         report the drain the HQs are reset instead, with synchronous reclamation. */
#include "core/preempt.h"

#include "core/dkp.h"
#include "core/restart.h"

static atoll_preempt_state *state(atoll_core *c) { return atoll__policy_state(c); }

static const atoll_model *model_of(const atoll_core *c, const atoll_task *t) {
  return &c->s->models[c->s->clients[t->client].model].model;
}

/* A BE queue whose active task has commands on the device that have not completed. */
static bool has_work_on_device(const atoll_core *c, uint32_t q) {
  const atoll_queue *qu = &c->queues[q];
  if (qu->rt || qu->active < 0)
    return false;
  const atoll_task *t = &c->tasks[qu->active];
  return !t->paused && t->next_launch > t->n_done;
}

static bool padding_on(const atoll_core *c, const atoll_preempt_style *st) {
  return st->padding && c->s->policy.dkp && c->dev.ops->launch_padded;
}

static bool guard_option(const atoll_core *c) { return c->s->policy.param[ATOLL_PREEMPT_PAD_GUARD_PARAM] != 0; }

/* What padding one launch of kernel op costs the RT queue (pad_guard.h): the proxy's share of the
 * kernel's run time (its profiled time less the isolation overhead, as the device runs it) and the
 * host's selection. */
static int64_t pad_cost(const atoll_core *c, const atoll_op *op) {
  const atoll_gpu_costs *g = &c->s->gpu.costs;
  int64_t run = op->shape.time_ns - g->launch_sync_ns;
  return atoll_pad_guard_cost(run > 0 ? run : 0, g->dkp_overhead_ppm, g->kernel_select_ns);
}

/* The guard's cap (the padding overhead of one request of the costliest RT model), and whether it
 * applies at all: a closed-loop RT client sends its next request only once the last one is done,
 * so padding costs each of its requests the proxy overhead but can never build a queue; only
 * open-loop RT clients (uniform, Poisson, trace) can. */
static void guard_setup(atoll_core *c) {
  atoll_preempt_state *ps = state(c);
  int64_t cap = 0;
  for (uint32_t i = 0; i < c->s->n_clients; i++) {
    if (c->s->clients[i].cls != ATOLL_CLASS_RT)
      continue;
    if (c->s->clients[i].arrival.kind != ATOLL_ARRIVAL_CLOSED)
      ps->guard_open = 1;
    const atoll_model *m = &c->s->models[c->s->clients[i].model].model;
    int64_t sum = 0;
    for (uint32_t k = 0; k < m->n_ops; k++)
      if (m->ops[k].kind == ATOLL_OP_KERNEL && sum < INT64_MAX / 2)
        sum += pad_cost(c, &m->ops[k]);
    cap = sum > cap ? sum : cap;
  }
  ps->guard_cap = cap;
  atoll_pad_guard_add(&ps->guard, cap, cap); /* no backlog yet: the credit starts full */
  ps->guard_known = 1;
}

/* Whether the guard limits padding in this run (option pad_guard, and an open-loop RT client). */
static bool guard_on(atoll_core *c) {
  if (!guard_option(c))
    return false;
  if (!state(c)->guard_known)
    guard_setup(c);
  return state(c)->guard_open;
}

/* Whether the padding of RT kernel op fits the slack the RT client has shown (pad_guard.h). Without
 * the guard (pad_guard: false) every launch may pad, as in REEF. */
static bool guard_allows(atoll_core *c, const atoll_op *op) {
  return !guard_on(c) || state(c)->guard.credit_ns >= pad_cost(c, op);
}

/* A launch that does pad spends its overhead (a launch the selection left unpadded costs nothing). */
static void guard_spend(atoll_core *c, const atoll_op *op) {
  if (guard_on(c))
    (void)atoll_pad_guard_take(&state(c)->guard, pad_cost(c, op));
}

/* RT kernels in flight at once under padding: the RT DQ's depth, so the DQ stays full. */
static uint32_t rt_window(const atoll_core *c) {
  return c->s->policy.dq_capacity ? c->s->policy.dq_capacity : ATOLL_REEF_DQ_DEPTH;
}

enum { MAX_PAD_CANDIDATES = 64 };

/* The BE tasks padding may draw from: each BE queue's paused task, or a pending one made active
 * (and paused) so its first op can run padded. A task offers the op its padded blocks have reached:
 * padded launches run in order on the RT stream, so an op's blocks may be handed out as soon as
 * every block of the op before it has been (REEF's scheduler advances a BE task's kernel and
 * block offsets at launch the same way), not only once they have run. */
static uint32_t gather_candidates(atoll_core *c, atoll_dkp_candidate *cand, uint32_t *task_of) {
  bool any_version = c->s->policy.multi_version;
  uint32_t n = 0;
  for (uint32_t q = 0; q < c->n_queues && n < MAX_PAD_CANDIDATES; q++) {
    atoll_queue *qu = &c->queues[q];
    if (qu->rt)
      continue;
    if (qu->active < 0) {
      if (!atoll__queue_activate(c, q))
        continue;
      c->tasks[qu->active].paused = 1;
    }
    atoll_task *t = &c->tasks[qu->active];
    const atoll_model *m = model_of(c, t);
    /* A batch runs as whole launches only: its padded blocks would be those of one request. */
    if (!t->paused || t->next_launch != t->n_done || t->batch > 1)
      continue;
    if (t->pad_reserved == 0) { /* nothing in flight: padding resumes where the task stands */
      t->pad_op = t->n_done;
      t->pad_next = t->pad_done;
    }
    /* The version ring covers ATOLL_PAD_SPAN ops: a task that far ahead waits for completions. */
    if (t->pad_op >= m->n_ops || t->pad_op - t->n_done >= ATOLL_PAD_SPAN)
      continue;
    const atoll_op *op = &m->ops[t->pad_op];
    if (op->kind != ATOLL_OP_KERNEL)
      continue;
    int32_t v = atoll_task_pad_version(t, t->pad_op);
    bool started = t->pad_next > 0 && v >= 0;
    uint32_t total = (uint32_t)atoll_dim3_count(atoll_dkp_shape(op, started ? (uint32_t)v : 0)->grid);
    cand[n] = (atoll_dkp_candidate){.op = op,
                                    .blocks_left = started ? total - t->pad_next : ATOLL_DKP_ALL,
                                    .version = started ? v : (any_version ? -1 : 0)};
    task_of[n++] = (uint32_t)qu->active;
  }
  return n;
}

/* Launches q's next RT op, padded with the BE blocks the selection allows. */
static void launch_rt_padded(atoll_core *c, uint32_t q) {
  atoll_queue *qu = &c->queues[q];
  atoll_task *t = &c->tasks[qu->active];
  const atoll_model *m = model_of(c, t);
  uint32_t i = t->next_launch;
  const atoll_op *op = &m->ops[i];
  atoll_dkp_candidate cand[MAX_PAD_CANDIDATES];
  uint32_t task_of[MAX_PAD_CANDIDATES];
  atoll_dkp_choice pick[MAX_PAD_CANDIDATES];
  /* A batch's kernels run unpadded: the selection knows kernels at batch 1 only. */
  uint32_t n_cand =
      op->kind == ATOLL_OP_KERNEL && t->batch <= 1 && guard_allows(c, op) ? gather_candidates(c, cand, task_of) : 0,
           rt_cus = 0;
  uint32_t n = n_cand ? atoll_dkp_select(&c->s->gpu, &op->shape, cand, n_cand, c->rr_next++, pick,
                                         MAX_PAD_CANDIDATES, &rt_cus)
                      : 0;
  if (n == 0) {
    atoll__launch_next(c, q);
    return;
  }
  guard_spend(c, op);
  atoll_pad_part parts[MAX_PAD_CANDIDATES];
  atoll_task saved[MAX_PAD_CANDIDATES]; /* the BE tasks as they were, should the launch fail */
  for (uint32_t k = 0; k < n; k++) {
    atoll_task *b = &c->tasks[task_of[pick[k].candidate]];
    saved[k] = *b;
    uint32_t bop = b->pad_op;
    parts[k] = (atoll_pad_part){
        .cmd = {.model = c->s->clients[b->client].model, .op = bop,
                .tag = atoll_tag_make(task_of[pick[k].candidate], bop, b->epoch),
                .block_lo = b->pad_next, .block_n = pick[k].blocks, .version = pick[k].version},
        .occupancy = pick[k].occupancy,
        .cus = pick[k].cus};
    b->pad_ver[bop % ATOLL_PAD_SPAN] = (int16_t)pick[k].version;
    b->pad_reserved += pick[k].blocks;
    b->pad_next += pick[k].blocks;
    /* Every block handed out: the next launch may take the next op's. */
    if (b->pad_next >= atoll_dim3_count(atoll_dkp_shape(cand[pick[k].candidate].op, pick[k].version)->grid)) {
      b->pad_op++;
      b->pad_next = 0;
    }
  }
  atoll_cmd rt = {.model = c->s->clients[t->client].model, .op = i, .tag = atoll_tag_make((uint32_t)qu->active, i, t->epoch),
                  .rt = 1};
  t->next_launch++;
  if (c->dev.ops->launch_padded(c->dev.ctx, qu->stream, &rt, rt_cus, parts, n) == 0)
    return;
  /* The device refused it: the BE tasks keep the blocks they offered, the RT request fails. */
  for (uint32_t k = 0; k < n; k++)
    c->tasks[task_of[pick[k].candidate]] = saved[k];
  atoll__queue_fail(c, q);
}

/* Keeps up to rt_window RT kernels of q's active task launched. */
static void fill_rt_window(atoll_core *c, uint32_t q) {
  atoll_queue *qu = &c->queues[q];
  while (qu->active >= 0) {
    atoll_task *t = &c->tasks[qu->active];
    if (t->next_launch >= model_of(c, t)->n_ops || t->next_launch - t->n_done >= rt_window(c))
      return;
    launch_rt_padded(c, q);
  }
}

static void run_queue_plain(atoll_core *c, uint32_t q) {
  atoll_queue *qu = &c->queues[q];
  if (qu->active >= 0) {
    atoll_task *t = &c->tasks[qu->active];
    if (t->paused) {
      t->paused = 0;
      atoll__launch_rest(c, q);
    }
    return;
  }
  if (atoll__queue_activate(c, q))
    atoll__launch_rest(c, q);
}

static void run_queue(atoll_core *c, uint32_t q, const atoll_preempt_style *st) {
  if (c->queues[q].rt && padding_on(c, st)) {
    if (c->queues[q].active >= 0 || atoll__queue_activate(c, q))
      fill_rt_window(c, q);
    return;
  }
  run_queue_plain(c, q);
}

static void set_mode(atoll_core *c, uint32_t mode, int64_t now) {
  atoll_preempt_state *ps = state(c);
  if (mode == ATOLL_MODE_NORMAL)
    ps->normal_since = now;
  else if (guard_on(c)) /* the RT queue stood empty since normal_since: slack it has shown */
    atoll_pad_guard_add(&ps->guard, now - ps->normal_since, ps->guard_cap);
  c->mode = mode;
  if (c->obs->mode_changed)
    c->obs->mode_changed(c->obs_ctx, mode, now);
}

/* Steps ① and ② on one stream. */
static void stop_stream(atoll_core *c, uint32_t q, bool reset_hq, bool async) {
  const atoll_device_ops *d = c->dev.ops;
  uint32_t stream = c->queues[q].stream;
  uint32_t dropped = 0;
  if (reset_hq && d->reset_hq)
    d->reset_hq(c->dev.ctx, stream, async, &dropped);
  if (d->set_preempt_flag)
    d->set_preempt_flag(c->dev.ctx, stream, true);
}

/* The op of q's active task running on its stream, or -1: the execution index names a command
 * of another task (the one before it on the stream), of an earlier epoch, or one that completed. */
static int32_t running_op(const atoll_core *c, uint32_t q) {
  uint64_t tag = 0;
  const atoll_device_ops *d = c->dev.ops;
  if (!d->exec_index || d->exec_index(c->dev.ctx, c->queues[q].stream, &tag) != 0)
    return -1;
  uint32_t id = (uint32_t)c->queues[q].active;
  const atoll_task *t = &c->tasks[id];
  uint32_t op = atoll_tag_op(tag);
  if (atoll_tag_task(tag) != id || atoll_tag_epoch(tag) != t->epoch)
    return -1;
  return op >= t->n_done && op < t->next_launch ? (int32_t)op : -1;
}

static void pause_task(atoll_core *c, uint32_t q, bool killed, int64_t now) {
  atoll_task *t = &c->tasks[c->queues[q].active];
  uint32_t done_before = t->n_done, launched_before = t->next_launch;
  int32_t running = running_op(c, q);
  uint32_t restart = t->n_done;
  if (running >= 0 && killed) /* the idempotent group entry (core/restart.h, proved) */
    restart = atoll_restart_point(model_of(c, t), (uint32_t)running);
  else if (running >= 0) {
    restart = (uint32_t)running; /* not killed: it runs to the end, and RT work waits for it */
    state(c)->awaited++;
  }
  /* Its group runs again from the start: padding's part of the entry op is redone too. That holds
   * also when the entry is the op the core last saw complete (restart == done_before) but a later
   * op of the group ran (running > restart): on a native device completions reach the core later
   * than they happen, and the interrupted in-place kernel may already have changed the entry's
   * output. (In the simulator completions are never late, so there running == done_before.) */
  if (restart != done_before || (running >= 0 && restart < (uint32_t)running))
    t->pad_done = 0;
  t->epoch++;
  t->paused = 1;
  t->restored = 1;
  t->next_launch = restart;
  t->n_done = restart;
  if (t->pad_done == 0)
    atoll__task_pad_clear(t);
  if (c->obs->task_preempted)
    c->obs->task_preempted(c->obs_ctx, t->client, t->req, running, restart, done_before, launched_before, now);
}

static void preempt(atoll_core *c, int64_t now, const atoll_preempt_style *st) {
  bool reset = st->reset_based;
  const atoll_policy_cfg *p = &c->s->policy;
  /* REEF's wait-based baseline has no HQ reset (that is REEF's own API): it sets the flag and
   * synchronizes the device, so every BE command launched so far, in the HQ or the DQ, reaches the
   * CP and is evicted there, and RT work is launched once the BE streams have drained. A device that
   * cannot report a drain has the HQs reset instead (synchronous reclamation), as before. */
  bool sync = !reset && c->dev.ops->notify_drained;
  uint32_t n = 0;
  for (uint32_t q = 0; q < c->n_queues; q++) {
    if (!has_work_on_device(c, q))
      continue;
    /* Wait-based preemption reclaims synchronously; reset-based hands off to the GC thread. */
    stop_stream(c, q, !sync, reset ? p->async_reclaim : false);
    n++;
  }
  if (sync && n > 0 && c->dev.ops->notify_drained(c->dev.ctx, ATOLL_PREEMPT_DRAINED_COOKIE) == 0)
    state(c)->draining = 1;
  /* ③ AMD's CU reset kills every running kernel, so it is skipped when any running kernel could
   * not be restored. */
  bool kill = reset && p->reset_cu && c->dev.ops->reset_cus && n > 0;
  for (uint32_t q = 0; kill && q < c->n_queues; q++) {
    if (!has_work_on_device(c, q))
      continue;
    int32_t running = running_op(c, q);
    const atoll_task *t = &c->tasks[c->queues[q].active];
    if (running >= 0 && model_of(c, t)->ops[running].idem == ATOLL_IDEM_NONE)
      kill = false;
  }
  if (kill)
    c->dev.ops->reset_cus(c->dev.ctx);
  /* The restart points are read right after the kill is issued (REEF Fig. 6). */
  for (uint32_t q = 0; q < c->n_queues; q++)
    if (has_work_on_device(c, q))
      pause_task(c, q, kill, now);
  if (c->obs->preemption)
    c->obs->preemption(c->obs_ctx, n, now);
}

void atoll__preempt_on_queued(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st) {
  if (c->queues[q].rt) {
    if (c->mode == ATOLL_MODE_NORMAL) {
      set_mode(c, ATOLL_MODE_REALTIME, now);
      preempt(c, now, st);
    }
    /* A preemption that could not kill waits for the BE kernels still running (and a wait-based
     * one for the BE streams to drain): RT kernels never run beside BE kernels (padding, when it
     * lands, is the one exception). */
    if (state(c)->awaited == 0 && !state(c)->draining)
      run_queue(c, q, st);
  } else if (c->mode == ATOLL_MODE_NORMAL) {
    run_queue(c, q, st);
  }
}

void atoll__preempt_on_op_done(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st) {
  (void)now;
  if (c->queues[q].rt && padding_on(c, st))
    fill_rt_window(c, q);
}

void atoll__preempt_on_awaited_done(atoll_core *c, int64_t now, const atoll_preempt_style *st) {
  (void)now;
  atoll_preempt_state *ps = state(c);
  if (ps->awaited > 0 && --ps->awaited == 0 && !ps->draining) {
    int32_t rtq = atoll__rt_queue(c);
    if (rtq >= 0)
      run_queue(c, (uint32_t)rtq, st);
  }
}

void atoll__preempt_on_timer(atoll_core *c, uint64_t cookie, int64_t now, const atoll_preempt_style *st) {
  (void)now;
  atoll_preempt_state *ps = state(c);
  if (cookie != ATOLL_PREEMPT_DRAINED_COOKIE || !ps->draining)
    return;
  /* The preempted streams drained (the device synchronize returned): RT work may start. */
  ps->draining = 0;
  int32_t rtq = atoll__rt_queue(c);
  if (ps->awaited == 0 && rtq >= 0)
    run_queue(c, (uint32_t)rtq, st);
}

void atoll__preempt_on_task_done(atoll_core *c, uint32_t q, int64_t now, const atoll_preempt_style *st) {
  if (c->mode == ATOLL_MODE_NORMAL) {
    run_queue(c, q, st);
    return;
  }
  if (!c->queues[q].rt)
    return; /* a BE task finished while RT work runs: its queue waits for normal mode */
  run_queue(c, q, st);
  if (c->queues[q].active >= 0)
    return;
  /* The RT queue is empty: resume the BE queues, restoring the preempted tasks first. */
  set_mode(c, ATOLL_MODE_NORMAL, now);
  for (uint32_t b = 0; b < c->n_queues; b++)
    if (!c->queues[b].rt)
      run_queue(c, b, st);
}

void atoll__preempt_setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg, const atoll_preempt_style *st) {
  /* REEF restricts the DQ to its depth (§4.2); the wait baseline keeps the stock runtime's. */
  if (st->reset_based && cfg->dq_capacity == 0)
    cfg->dq_capacity = ATOLL_REEF_DQ_DEPTH;
  /* Option priority (atoll's, not REEF's; off by default): the RT queue is a high-priority stream,
   * so when CUs free up the block dispatcher serves its kernels before BE's (the native GPU
   * back-ends map it onto the vendor's stream priorities). REEF itself relies on the reset and the
   * short DQ alone. */
  if (st->reset_based && c->s->policy.priority && c->queues[q].rt)
    cfg->priority = 1;
}
