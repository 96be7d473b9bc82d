/* dart's stage pipeline on a device of queues (core/dart_pipe.h, docs/dart.md "Native").
 *
 * Every node has two workers, each a stream bound to the node's CUs: the RT worker (priority 1)
 * takes one RT stage at a time, deadline-monotonic, never preempted by another RT stage; the BE
 * worker takes one BE stage at a time, earliest deadline first. The device serves the RT stream's
 * blocks before the BE stream's on the node's CUs (the CPU back-end's class workers: an RT thread
 * that the OS lets preempt the BE thread's running block), so an RT stage preempts a running BE
 * stage. A request's stages go from node to node: the next one is handed over when the
 * last op of the one before completes. A client may have several requests in the pipeline, one per
 * stage (at most ATOLL_DART_PIPE_DEPTH): its next request enters when none of its requests waits
 * for or runs its first stage, so stage i of request k+1 runs beside stage i+1 of request k. The
 * policy takes such requests from the client's queue (the queue's `active` stays -1) and keeps
 * their tasks here; BE requests enter as batches of the client's BE batch (atoll_dart_be_batch). */
#include "core/dart_pipe.h"

#include "atoll/error.h"

enum { BE = 0, RT = 1 };

static const char *const stream_names[ATOLL_DART_MAX_NODES][2] = {
    {"node0-be", "node0-rt"},   {"node1-be", "node1-rt"},   {"node2-be", "node2-rt"},   {"node3-be", "node3-rt"},
    {"node4-be", "node4-rt"},   {"node5-be", "node5-rt"},   {"node6-be", "node6-rt"},   {"node7-be", "node7-rt"},
    {"node8-be", "node8-rt"},   {"node9-be", "node9-rt"},   {"node10-be", "node10-rt"}, {"node11-be", "node11-rt"},
    {"node12-be", "node12-rt"}, {"node13-be", "node13-rt"}, {"node14-be", "node14-rt"}, {"node15-be", "node15-rt"}};

static atoll_dart_state *state(atoll_core *c) { return atoll__policy_state(c); }

static const atoll_dart_stage *stage_of(const atoll_core *c, uint32_t client, uint32_t stage) {
  return &c->dart->clients[client].stages[stage];
}

void atoll__dart_pipe_init(atoll_core *c) {
  atoll_dart_state *st = state(c);
  for (uint32_t k = 0; k < ATOLL_DART_MAX_NODES; k++)
    st->busy[k][BE] = st->busy[k][RT] = -1;
  for (uint32_t i = 0; i < ATOLL_DART_PIPE_CLIENTS; i++)
    for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++)
      st->cl[i].req[e].task = -1;
  for (uint32_t i = 0; i < c->n_clients && i < ATOLL_DART_PIPE_CLIENTS; i++)
    for (uint32_t sg = 0; sg < ATOLL_DART_MAX_NODES; sg++)
      st->cl[i].wcet_ns[sg] = c->dart->wcet_ns[(size_t)i * ATOLL_DART_MAX_NODES + sg];
}

uint32_t atoll_core_task_set(const atoll_core *c, uint32_t task) {
  if (!c->dart || c->policy != ATOLL_POLICY_DART || task >= c->n_tasks)
    return 0;
  const atoll_dart_state *st = atoll__policy_state_c(c);
  uint32_t i = c->tasks[task].client;
  for (uint32_t e = 0; i < ATOLL_DART_PIPE_CLIENTS && e < ATOLL_DART_PIPE_DEPTH; e++)
    if (st->cl[i].req[e].task == (int32_t)task)
      return e;
  return 0;
}

int atoll__dart_pipe_streams(atoll_core *c) {
  const atoll_dart_pipeline *p = c->dart;
  if (p->n_nodes == 0 || p->n_nodes > ATOLL_DART_MAX_NODES || c->n_clients > ATOLL_DART_PIPE_CLIENTS ||
      c->n_queues != c->n_clients)
    return ATOLL_ENOTSUP;
  for (uint32_t i = 0; i < c->n_clients; i++)
    for (uint32_t sg = 0; sg < p->clients[i].n_stages; sg++)
      if (p->clients[i].stages[sg].node >= p->n_nodes)
        return ATOLL_EINVAL;
  atoll_dart_state *st = state(c);
  for (uint32_t k = 0; k < p->n_nodes; k++)
    for (uint32_t cls = BE; cls <= RT; cls++) {
      atoll_stream_cfg cfg = {.priority = cls, .dq_capacity = c->s->policy.dq_capacity, .cus = p->node_cus[k],
                              .name = stream_names[k][cls]};
      int rc = c->dev.ops->create_stream(c->dev.ctx, &cfg, &st->stream[k][cls]);
      if (rc)
        return rc;
    }
  return 0;
}

static bool serves_rt(const atoll_core *c, const atoll_dart_state *st, uint32_t i) {
  return c->queues[c->client_queue[i]].rt && !st->cl[i].demoted;
}

/* Whether request (a, ea)'s waiting stage goes before request (b, eb)'s on a worker of class cls. */
static bool before(const atoll_core *c, uint32_t cls, uint32_t a, uint32_t ea, uint32_t b, uint32_t eb) {
  const atoll_dart_state *st = atoll__policy_state_c(c);
  const atoll_task *x = &c->tasks[st->cl[a].req[ea].task], *y = &c->tasks[st->cl[b].req[eb].task];
  if (cls == RT && a != b) { /* deadline-monotonic, then the lower client index */
    int64_t da = c->client_deadline_ns[a], db = c->client_deadline_ns[b];
    if (da != db)
      return da != 0 && (db == 0 || da < db);
    return a < b;
  }
  if (cls == BE && x->deadline_ns != y->deadline_ns)
    return x->deadline_ns < y->deadline_ns;
  return x->arrival_ns < y->arrival_ns;
}

/* Hands request (i, e)'s waiting stage to node k's worker of class cls. Returns the launch's code:
 * a launch the device refuses fails the request, and the core's release of its task has already
 * freed its entry and the worker (atoll__dart_pipe_task_done) when this returns. */
static int hand_over(atoll_core *c, uint32_t i, uint32_t e, uint32_t k, uint32_t cls, int64_t now) {
  atoll_dart_state *st = state(c);
  atoll_dart_pipe_client *cl = &st->cl[i];
  atoll_dart_pipe_req *rq = &cl->req[e];
  const atoll_dart_stage *sg = stage_of(c, i, rq->stage);
  const uint32_t task = (uint32_t)rq->task;
  rq->running = 1;
  rq->in_rt = (uint8_t)cls;
  rq->overran = 0;
  rq->stage_start_ns = now;
  rq->seq = ++cl->seq;
  st->busy[k][cls] = (int32_t)(i * ATOLL_DART_PIPE_DEPTH + e);
  const int64_t budget_ns = cl->wcet_ns[rq->stage];
  const bool first_stage = rq->stage == 0;
  const uint32_t seq = rq->seq;
  int rc = atoll__launch_task_on(c, task, sg->op_hi - sg->op_lo, st->stream[k][cls], cls == RT);
  if (rc)
    return rc; /* rq names no request any more */
  /* The budget: a timer at the WCET (a device without timers enforces nothing), for a stage the
   * device took. The injected overrun (policy options inject_*) cuts the first stage's budget of one
   * request to 100 / inject_pct of it: the stage then really runs inject_pct % of its budget. */
  if (cls == RT) {
    int64_t budget = budget_ns;
    const int64_t *opt = c->s->policy.param;
    if (first_stage && opt[1] == (int64_t)i + 1 && (uint64_t)opt[2] == c->tasks[task].req && opt[3] > 100)
      budget = budget * 100 / opt[3];
    atoll__timer_set(c, now + budget, ATOLL_DART_COOKIE(i, seq));
  }
  return 0;
}

/* Whether client i may take its next request into the pipeline: an entry is free and none of its
 * requests waits for or runs its first stage (one request per stage). */
static int32_t entry_for_next(const atoll_core *c, uint32_t i) {
  const atoll_dart_pipe_client *cl = &((const atoll_dart_state *)atoll__policy_state_c(c))->cl[i];
  int32_t free_entry = -1;
  const uint32_t depth = atoll_dart_pipe_depth(c->dart, i);
  for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++) {
    if (cl->req[e].task < 0) {
      if (free_entry < 0 && e < depth)
        free_entry = (int32_t)e;
    } else if (cl->req[e].stage == 0) {
      return -1;
    }
  }
  return free_entry;
}

/* One round of the pipeline: clients take their next requests, free workers their next stages. */
static void dispatch_round(atoll_core *c, int64_t now) {
  atoll_dart_state *st = state(c);
  /* A client with room takes its next request (RT queues: earliest deadline); a BE client's next
   * requests ride with it as one batch of its BE batch size. */
  for (uint32_t i = 0; i < c->n_clients; i++) {
    uint32_t q = c->client_queue[i];
    int32_t e = entry_for_next(c, i);
    const uint32_t batch = c->s->clients[i].batch_max > 1 ? 1 : atoll_dart_be_batch(c->s, i);
    /* A closed client keeps its batches out (the runner): its batch enters full, as the node
     * model's job of `batch` requests does. */
    if (e < 0 || (batch > 1 && c->s->clients[i].arrival.kind == ATOLL_ARRIVAL_CLOSED &&
                  c->client_waiting[i] < batch))
      continue;
    if (!atoll__queue_activate_batch(c, q, batch))
      continue;
    atoll_dart_pipe_req *rq = &st->cl[i].req[e];
    rq->task = c->queues[q].active;
    c->queues[q].active = -1; /* the pipeline holds it: the queue may give the client another */
    rq->stage = 0;
    rq->running = 0;
    if (st->cl[i].recover)
      st->cl[i].recover = 0, st->cl[i].demoted = 0;
  }
  for (uint32_t k = 0; k < c->dart->n_nodes; k++)
    for (uint32_t cls = BE; cls <= RT; cls++) {
      if (st->busy[k][cls] >= 0)
        continue;
      int32_t bi = -1, be = -1;
      for (uint32_t i = 0; i < c->n_clients; i++) {
        if (serves_rt(c, st, i) != (cls == RT))
          continue;
        for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++) {
          const atoll_dart_pipe_req *rq = &st->cl[i].req[e];
          if (rq->task < 0 || rq->running || stage_of(c, i, rq->stage)->node != k)
            continue;
          if (bi < 0 || before(c, cls, i, e, (uint32_t)bi, (uint32_t)be))
            bi = (int32_t)i, be = (int32_t)e;
        }
      }
      /* Refused: the request failed and the worker is free again; the next round gives it work. */
      if (bi >= 0 && hand_over(c, (uint32_t)bi, (uint32_t)be, k, cls, now) != 0)
        st->again = 1;
    }
}

/* A refused launch releases its request, and the release asks the pipeline to dispatch (its task
 * left) from inside the round that launched it. That call only asks for another round: nested, a
 * device refusing every launch would take one level of the stack per waiting request, and the
 * failures would be told last one first. */
void atoll__dart_pipe_dispatch(atoll_core *c, int64_t now) {
  atoll_dart_state *st = state(c);
  if (st->dispatching) {
    st->again = 1;
    return;
  }
  st->dispatching = 1;
  do {
    st->again = 0;
    dispatch_round(c, now);
  } while (st->again);
  st->dispatching = 0;
}

/* Enforcement (§V-3) after a stage that overran its WCET: the WCET becomes what it took, the
 * response-time test (Eq. 5-6) runs again over every RT client, and the client returns to RT from
 * its next request if all pass; otherwise it stays BE and the alert is told. */
static void reassess(atoll_core *c, uint32_t i, int64_t now) {
  atoll_dart_state *st = state(c);
  const atoll_dart_pipeline *p = c->dart;
  atoll_dart_rt_task t[ATOLL_DART_PIPE_CLIENTS] = {{0}};
  int64_t rows[ATOLL_DART_PIPE_CLIENTS][ATOLL_DART_MAX_NODES] = {{0}}, r[ATOLL_DART_PIPE_CLIENTS];
  uint32_t n = 0;
  for (uint32_t j = 0; j < c->n_clients; j++) {
    if (!c->queues[c->client_queue[j]].rt)
      continue;
    for (uint32_t sg = 0; sg < p->clients[j].n_stages; sg++)
      rows[n][p->clients[j].stages[sg].node] += st->cl[j].wcet_ns[sg];
    int64_t dl = c->client_deadline_ns[j];
    uint32_t prio = 0; /* deadline-monotonic rank */
    for (uint32_t o = 0; o < c->n_clients; o++) {
      if (o == j || !c->queues[c->client_queue[o]].rt)
        continue;
      int64_t d_o = c->client_deadline_ns[o];
      prio += d_o != dl ? (d_o != 0 && (dl == 0 || d_o < dl)) : o < j;
    }
    t[n] = (atoll_dart_rt_task){.period_ns = p->period_ns[j] > 0 ? p->period_ns[j] : dl,
                                .deadline_ns = dl > 0 ? dl : INT64_MAX / 4, .prio = prio, .stage_ns = rows[n]};
    n++;
  }
  bool ok = atoll_dart_rt_test(t, n, p->n_nodes, r);
  if (ok)
    st->cl[i].recover = 1;
  if (c->obs->enforcement)
    c->obs->enforcement(c->obs_ctx, i, ok ? ATOLL_ENFORCE_RECOVERY : ATOLL_ENFORCE_ALERT, now);
}

/* Request (i, e)'s running stage completed (or the request left the core): its worker is free. */
static void stage_end(atoll_core *c, uint32_t i, uint32_t e, int64_t now) {
  atoll_dart_state *st = state(c);
  atoll_dart_pipe_client *cl = &st->cl[i];
  atoll_dart_pipe_req *rq = &cl->req[e];
  if (!rq->running)
    return;
  rq->running = 0;
  st->busy[stage_of(c, i, rq->stage)->node][rq->in_rt] = -1;
  if (rq->overran) {
    int64_t took = now - rq->stage_start_ns;
    if (took > cl->wcet_ns[rq->stage])
      cl->wcet_ns[rq->stage] = took;
    rq->overran = 0;
    reassess(c, i, now);
  }
}

/* Walks client q's requests in the pipeline: each whose running stage is over ends it, then moves
 * on to its next stage (its ops all completed) or leaves the pipeline (task_left: its task left the
 * core); then the workers take what waits. The two events share the walk so that a stage ends the
 * same way whichever ended it. */
static void end_stages(atoll_core *c, uint32_t q, bool task_left, int64_t now) {
  atoll_dart_state *st = state(c);
  for (uint32_t i = 0; i < c->n_clients; i++) {
    if (c->client_queue[i] != q)
      continue;
    for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++) {
      atoll_dart_pipe_req *rq = &st->cl[i].req[e];
      if (rq->task < 0)
        continue;
      bool over = task_left ? !c->tasks[rq->task].in_use
                            : rq->running && c->tasks[rq->task].n_done >= stage_of(c, i, rq->stage)->op_hi;
      if (!over)
        continue;
      stage_end(c, i, e, now);
      if (task_left) {
        rq->task = -1;
        rq->stage = 0;
      } else {
        rq->stage++;
      }
    }
  }
  atoll__dart_pipe_dispatch(c, now);
}

/* An op of client q's requests completed: every one of its requests whose running stage has all
 * its ops done moves on to its next stage. */
void atoll__dart_pipe_op_done(atoll_core *c, uint32_t q, int64_t now) { end_stages(c, q, false, now); }

/* A task of client q's left the core (completed, failed or shed): its entry, freed by the core a
 * moment ago, is let go. */
void atoll__dart_pipe_task_done(atoll_core *c, uint32_t q, int64_t now) { end_stages(c, q, true, now); }

/* An RT stage's budget ran out: if it is still running, its client is demoted to BE. The stage's
 * ops are already on the RT worker's stream and finish there; its following stages, and its
 * requests until a recovery, go to BE workers. */
void atoll__dart_pipe_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  uint32_t i = (uint32_t)(cookie >> 32);
  if (i >= c->n_clients || i >= ATOLL_DART_PIPE_CLIENTS)
    return;
  atoll_dart_pipe_client *cl = &state(c)->cl[i];
  for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++) {
    atoll_dart_pipe_req *rq = &cl->req[e];
    if (rq->task < 0 || !rq->running || !rq->in_rt || rq->overran || rq->seq != (uint32_t)cookie)
      continue;
    rq->overran = 1;
    cl->demoted = 1;
    cl->recover = 0;
    if (c->obs->enforcement)
      c->obs->enforcement(c->obs_ctx, i, ATOLL_ENFORCE_DEMOTION, now);
  }
}

bool atoll__dart_pipe_valid(const atoll_core *c) {
  const atoll_dart_state *st = atoll__policy_state_c(c);
  for (uint32_t k = 0; k < ATOLL_DART_MAX_NODES; k++)
    for (uint32_t cls = BE; cls <= RT; cls++) {
      int32_t b = st->busy[k][cls];
      if (b < -1 || b >= (int32_t)(c->n_clients * ATOLL_DART_PIPE_DEPTH))
        return false;
      if (b >= 0 && !st->cl[b / ATOLL_DART_PIPE_DEPTH].req[b % ATOLL_DART_PIPE_DEPTH].running)
        return false;
    }
  for (uint32_t i = 0; i < c->n_clients && i < ATOLL_DART_PIPE_CLIENTS; i++)
    for (uint32_t e = 0; e < ATOLL_DART_PIPE_DEPTH; e++) {
      int32_t t = st->cl[i].req[e].task;
      if (t >= (int32_t)c->n_tasks || (t >= 0 && (!c->tasks[t].in_use || c->tasks[t].client != i)))
        return false;
    }
  return true;
}
