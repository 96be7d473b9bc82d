/* abacus: deterministic operator overlap with a headroom-based controller (Abacus §6,
 * docs/abacus.md). Every client has its own queue and stream. The GPU runs one operator group at
 * a time: a slice of up to four queries' operators (of different models), launched together on
 * their streams; the group ends when its last kernel ends, and only then does the next one start,
 * so which operators overlap is decided here and not by arrival times.
 *
 * Choosing a group (plan): each client offers one query, its active query's operators not yet
 * launched or else its oldest queued query. Its headroom is its deadline minus the time the group
 * will start. A query predicted to miss even if it ran alone from then on is shed (counted as
 * `shed`), unless some of its operators are on the GPU. The query with the least headroom leads:
 * all its remaining operators join the group, so it completes this round. Then the other queries,
 * least headroom first, each add a prefix of their remaining operators (Abacus's multi-way search:
 * eighths of what remains, predicted together). A prefix qualifies when the group's predicted
 * latency stays within the leader's headroom and the added query can still make its own deadline
 * (this group, then the rest of it alone); of those, the one that gives the group the largest
 * throughput (standalone work per unit of predicted latency) is taken, the longer on a tie, and
 * none when every one lowers it. The last two rules are this implementation's reading of Abacus's
 * "largest throughput without incurring QoS violation" (docs/abacus.md).
 *
 * Pipelined search (option pipelined, default true): the next group is searched for while the
 * current one runs, when it is issued and again at each arrival, with every headroom reduced by
 * the running group's predicted latency (Eq. 3); at the group's end it is issued as planned. With
 * pipelined false the search runs when the group ends, with the headroom of that instant (Eq. 2).
 *
 * The prediction comes from the scenario's predictor (policy.predictor, an MLP trained by
 * `atoll train-predictor`); without one, a group is predicted to take the sum of its operators'
 * standalone times (no overlap at all), which the controller tests use as a known quantity. */
#include "core/policy.h"

enum { MAX_QUEUES = 16, WAYS = ATOLL_GROUP_MAX, TRIES = 8 };

/* One planned entry: a query (task) and how many of its operators go into the group. */
typedef struct entry {
  int32_t queue;
  int32_t task;
  uint32_t ops;
  uint32_t from_pending; /* the query is the queue's oldest pending one, to be activated */
} entry;

typedef struct plan {
  uint32_t n; /* entries; 0: none; entry 0 leads */
  int32_t pad;
  int64_t predicted_ns;
  entry e[WAYS];
} plan;

typedef struct abacus_state {
  uint32_t running;          /* a group is on the GPU */
  uint32_t planned;          /* `next` holds a pipelined plan */
  uint32_t issuing;          /* inside issue(): a refused launch must not start the next group */
  uint32_t pad;
  int64_t start_ns;          /* when the running group was issued */
  plan run, next;
  uint32_t left[MAX_QUEUES]; /* per queue: the running group's operators not yet completed */
} abacus_state;

enum { OPT_PIPELINED, OPT_PREDICTOR };
static const atoll_policy_option options[] = {
    [OPT_PIPELINED] = {.key = "pipelined", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_I64,
                       .offset = ATOLL_OPTION_AT(param[0]), .def = 1, .max = 1},
    /* The predictor's file, read by io/ into the scenario (atoll_scenario.predictor); the slot
     * records whether one was given. */
    [OPT_PREDICTOR] = {.key = "predictor", .type = ATOLL_OPT_PREDICTOR, .store = ATOLL_STORE_I64,
                       .offset = ATOLL_OPTION_AT(param[1]), .def = 0, .max = 1},
};

static bool pipelined(const atoll_core *c) { return c->s->policy.param[0] != 0; }

static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  (void)given;
  if (s->n_clients > MAX_QUEUES) {
    *bad = UINT32_MAX;
    return "abacus serves at most 16 clients";
  }
  return NULL;
}

/* --- prediction --- */

static int64_t predict(const atoll_core *c, const atoll_group *g) {
  const atoll_scenario *s = c->s;
  if (s->predictor && s->n_models <= ATOLL_PRED_MAX_MODELS) {
    const atoll_model *models[ATOLL_PRED_MAX_MODELS];
    for (uint32_t m = 0; m < s->n_models; m++)
      models[m] = &s->models[m].model;
    return atoll_predictor_predict_ns(s->predictor, models, g);
  }
  int64_t sum = 0;
  for (uint32_t i = 0; i < g->n; i++)
    sum += atoll_model_slice_ns(&s->models[g->model[i]].model, g->op_start[i], g->op_end[i]);
  return sum;
}

/* --- candidates --- */

typedef struct cand {
  uint32_t queue, task, model, start, n_ops;
  bool from_pending;
  bool in_flight; /* some of its operators are on the device (it is in the running group) */
  int64_t headroom;
} cand;

static uint32_t task_model_index(const atoll_core *c, uint32_t task) {
  return c->s->clients[c->tasks[task].client].model;
}

/* What each queue offers; returns how many. */
static uint32_t candidates(const atoll_core *c, int64_t base, cand *out) {
  uint32_t n = 0;
  for (uint32_t q = 0; q < c->n_queues && q < MAX_QUEUES; q++) {
    const atoll_queue *qu = &c->queues[q];
    cand k = {.queue = q};
    if (qu->active >= 0) {
      const atoll_task *t = &c->tasks[qu->active];
      uint32_t n_ops = atoll__task_model(c, t)->n_ops;
      if (t->next_launch >= n_ops)
        continue; /* fully launched: nothing to offer until it completes */
      k.task = (uint32_t)qu->active, k.start = t->next_launch, k.n_ops = n_ops;
      k.in_flight = t->n_done < t->next_launch;
    } else {
      uint64_t id;
      if (atoll_ring_peek(&qu->pending, 0, &id) != 0)
        continue;
      k.task = (uint32_t)id, k.start = 0, k.n_ops = atoll__task_model(c, &c->tasks[id])->n_ops;
      k.from_pending = true;
    }
    k.model = task_model_index(c, k.task);
    int64_t dl = c->tasks[k.task].deadline_ns;
    k.headroom = dl == INT64_MAX ? INT64_MAX : dl - base;
    out[n++] = k;
  }
  return n;
}

/* Least headroom first; ties: earlier arrival, then lower queue. */
static bool before(const atoll_core *c, const cand *a, const cand *b) {
  if (a->headroom != b->headroom)
    return a->headroom < b->headroom;
  int64_t ta = c->tasks[a->task].arrival_ns, tb = c->tasks[b->task].arrival_ns;
  if (ta != tb)
    return ta < tb;
  return a->queue < b->queue;
}

static void sort(const atoll_core *c, cand *k, uint32_t n) {
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && before(c, &k[j], &k[j - 1]); j--) {
      cand t = k[j];
      k[j] = k[j - 1];
      k[j - 1] = t;
    }
}

static void shed(atoll_core *c, const cand *k, int64_t now) {
  if (k->from_pending)
    atoll__queue_shed_at(c, k->queue, 0, now);
  else
    atoll__queue_shed_active(c, k->queue, now);
}

/* The standalone time of ops [start, start + ops) of k's model: the work they stand for. */
static int64_t slice_ns(const atoll_core *c, const cand *k, uint32_t ops) {
  return atoll_model_slice_ns(&c->s->models[k->model].model, k->start, k->start + ops);
}

static void group_add(atoll_group *g, const cand *k, uint32_t ops) {
  g->model[g->n] = k->model, g->op_start[g->n] = k->start, g->op_end[g->n] = k->start + ops;
  g->n++;
}

/* The headroom search (file comment). base: when the group will start. */
static void search(atoll_core *c, int64_t base, int64_t now, plan *out) {
  cand k[MAX_QUEUES];
  *out = (plan){0};
  for (;;) {
    uint32_t n = candidates(c, base, k);
    if (n == 0)
      return;
    /* A query predicted to miss even alone is shed, unless some of its operators are still
     * running (it is in the group on the GPU): then it goes ahead and the report counts it late.
     * Shedding every such query, not only a leader, keeps doomed queries from taking room in
     * groups. */
    bool shed_any = false;
    for (uint32_t i = 0; i < n; i++) {
      if (k[i].headroom == INT64_MAX || k[i].in_flight)
        continue;
      atoll_group alone = {0};
      group_add(&alone, &k[i], k[i].n_ops - k[i].start);
      if (predict(c, &alone) > k[i].headroom) {
        shed(c, &k[i], now);
        shed_any = true;
      }
    }
    if (shed_any)
      continue; /* the queues moved: offer again */
    sort(c, k, n);
    atoll_group g = {0};
    group_add(&g, &k[0], k[0].n_ops - k[0].start);
    int64_t lat = predict(c, &g);
    int64_t budget = k[0].headroom == INT64_MAX ? lat : k[0].headroom;
    int64_t work = slice_ns(c, &k[0], k[0].n_ops - k[0].start);
    out->e[0] = (entry){.queue = (int32_t)k[0].queue, .task = (int32_t)k[0].task, .ops = k[0].n_ops - k[0].start,
                        .from_pending = k[0].from_pending};
    out->n = 1;
    for (uint32_t i = 1; i < n && g.n < WAYS; i++) {
      bool dup = false;
      for (uint32_t j = 0; j < g.n; j++)
        dup |= g.model[j] == k[i].model;
      if (dup)
        continue;
      /* Multi-way: TRIES prefix lengths (eighths of what remains) predicted at once. Of those
       * that fit, the one that gives the group the largest throughput (standalone work done per
       * unit of predicted latency, Abacus §3) wins; none, if every one lowers it. */
      uint32_t rem = k[i].n_ops - k[i].start, best = 0;
      int64_t best_lat = lat;
      double best_rate = (double)work / (double)(lat > 0 ? lat : 1);
      for (uint32_t t = TRIES; t >= 1; t--) {
        uint32_t ops = (uint32_t)(((uint64_t)rem * t + TRIES - 1) / TRIES);
        if (ops == 0 || (t < TRIES && ops == (uint32_t)(((uint64_t)rem * (t + 1) + TRIES - 1) / TRIES)))
          continue;
        atoll_group h = g;
        group_add(&h, &k[i], ops);
        int64_t p = predict(c, &h);
        double rate = (double)(work + slice_ns(c, &k[i], ops)) / (double)(p > 0 ? p : 1);
        /* Tried longest first: a longer prefix wins ties (more progress at the same throughput). */
        if (p > budget || rate < best_rate || (rate == best_rate && ops < best))
          continue;
        /* The added query must still make its own deadline: this group, then the rest of it alone. */
        int64_t rest = 0;
        if (ops < rem && k[i].headroom != INT64_MAX) {
          atoll_group after = {0};
          cand later = k[i];
          later.start += ops;
          group_add(&after, &later, rem - ops);
          rest = predict(c, &after);
        }
        if (k[i].headroom == INT64_MAX || p + rest <= k[i].headroom)
          best = ops, best_lat = p, best_rate = rate;
      }
      if (best == 0)
        continue;
      group_add(&g, &k[i], best);
      lat = best_lat;
      work += slice_ns(c, &k[i], best);
      out->e[out->n++] = (entry){.queue = (int32_t)k[i].queue, .task = (int32_t)k[i].task, .ops = best,
                                 .from_pending = k[i].from_pending};
    }
    out->predicted_ns = lat;
    return;
  }
}

/* --- issuing --- */

/* Whether entry e still names what it named when planned. */
static bool entry_valid(const atoll_core *c, const entry *e) {
  const atoll_queue *qu = &c->queues[e->queue];
  if (e->from_pending) {
    uint64_t id;
    return qu->active < 0 && atoll_ring_peek(&qu->pending, 0, &id) == 0 && id == (uint64_t)e->task;
  }
  return qu->active == e->task && atoll__queue_has_unlaunched(c, (uint32_t)e->queue);
}

static void issue(atoll_core *c, const plan *p, int64_t now) {
  abacus_state *st = atoll__policy_state(c);
  st->run = *p;
  st->running = 1;
  st->start_ns = now;
  for (uint32_t i = 0; i < p->n; i++) {
    uint32_t q = (uint32_t)p->e[i].queue;
    if (p->e[i].from_pending)
      atoll__queue_activate_at(c, q, 0);
    st->left[q] = p->e[i].ops;
  }
  st->issuing = 1;
  for (uint32_t i = 0; i < p->n; i++) {
    uint32_t q = (uint32_t)p->e[i].queue;
    if (c->queues[q].active >= 0 && st->left[q] > 0)
      atoll__launch_range(c, q, p->e[i].ops); /* a refused launch fails the query: on_task_done */
  }
  st->issuing = 0;
}

static bool group_over(const abacus_state *st, uint32_t n_queues) {
  for (uint32_t q = 0; q < n_queues && q < MAX_QUEUES; q++)
    if (st->left[q])
      return false;
  return true;
}

/* Plans and issues groups while the GPU is free and there is work. */
static void next_group(atoll_core *c, int64_t now) {
  abacus_state *st = atoll__policy_state(c);
  while (!st->running) {
    plan p = {0};
    if (st->planned) {
      p = st->next;
      st->planned = 0;
      bool ok = p.n > 0;
      for (uint32_t i = 0; ok && i < p.n; i++)
        ok = entry_valid(c, &p.e[i]);
      if (!ok)
        p.n = 0;
    }
    if (p.n == 0)
      search(c, now, now, &p);
    if (p.n == 0)
      return;
    issue(c, &p, now);
    if (st->running && group_over(st, c->n_queues)) /* every launch was refused */
      st->running = 0;
  }
  if (pipelined(c)) {
    search(c, st->start_ns + st->run.predicted_ns > now ? st->start_ns + st->run.predicted_ns : now, now, &st->next);
    st->planned = 1;
  }
}

/* One of the running group's operators on q completed (or q's query left the core). */
static void op_finished(atoll_core *c, uint32_t q, bool task_left, int64_t now) {
  abacus_state *st = atoll__policy_state(c);
  if (q >= MAX_QUEUES || !st->running || st->left[q] == 0)
    return;
  st->left[q] = task_left ? 0 : st->left[q] - 1;
  if (st->issuing || !group_over(st, c->n_queues))
    return; /* while issuing, next_group sees a group whose every launch was refused */
  st->running = 0;
  atoll__group_done(c, st->run.n, st->run.predicted_ns, st->start_ns, now);
  next_group(c, now);
}

static void init(atoll_core *c) { (void)c; }

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  (void)q;
  abacus_state *st = atoll__policy_state(c);
  if (!st->running) {
    next_group(c, now);
  } else if (pipelined(c)) {
    /* The search runs again with the new query among the candidates (still Eq. 3). */
    search(c, st->start_ns + st->run.predicted_ns > now ? st->start_ns + st->run.predicted_ns : now, now, &st->next);
    st->planned = 1;
  }
}

static void on_op_done(atoll_core *c, uint32_t q, int64_t now) { op_finished(c, q, false, now); }

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  abacus_state *st = atoll__policy_state(c);
  if (q < MAX_QUEUES && st->running && st->left[q] > 0) {
    op_finished(c, q, true, now);
    return;
  }
  /* A query shed by the search leaves no group: a planned entry naming it fails validation. */
}

static bool state_valid(const atoll_core *c) {
  const abacus_state *st = atoll__policy_state_c(c);
  if (st->run.n > WAYS || st->next.n > WAYS || st->running > 1 || st->planned > 1 || st->issuing || st->pad)
    return false;
  for (uint32_t q = c->n_queues; q < MAX_QUEUES; q++)
    if (st->left[q])
      return false;
  return st->running || group_over(st, c->n_queues);
}

const atoll_policy_ops atoll__policy_abacus = {
    .queue_per_client = true,
    .state_size = sizeof(abacus_state),
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .finish_options = finish_options,
    /* Its groups overlap operators of queries of different models, one query each, and never ask
     * the scenario's batcher: a client's batch: would be ignored (the report showed batches of 1). */
    .own_batches = "abacus runs each query alone (it groups operators of different models, not requests)",
    .init = init,
    .on_queued = on_queued,
    .on_op_done = on_op_done,
    .on_task_done = on_task_done,
    .state_valid = state_valid,
};
