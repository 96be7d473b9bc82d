/* inss: InSS (docs/inss.md) on the shared core. Every client is an MPS client with a stream of its
 * own bound to a spatial share of its GPU, and batches of its own size.
 *
 * Placement: before a run of several GPUs the driver asks the policy where each client goes
 * (atoll_policy_place: InSS's placement-and-share search over every GPU at the declared rates).
 * Each GPU's run then provisions its own clients: shares and batches from the same search on that
 * GPU alone (atoll__inss_gpu_plan), so every GPU's run reaches the same decision without talking to
 * the others.
 *
 * Serving: a queue launches a batch of its batch size once that many requests wait, or when its
 * oldest request has waited SLO - 2 t_inf (the latency model's bound leaves it no longer); a
 * request that could not finish in its SLO even if it ran now alone on its share is shed (counted
 * as `shed`).
 *
 * Decisions at run time: every tune_ms each client's arrival rate is measured (a rise taken at
 * once, a fall smoothed by an EWMA of weight 1/2), and BDA
 * re-decides its batch at its share (InSS runs BDA on every rate change). Only when BDA fails for
 * a client of the GPU, and no change is in flight or held down (hold_ms), are the GPU's shares
 * searched again at the measured rates; a changed share is applied through a shadow instance with
 * GSLICE's cost model (the preset's partition_load_ms to load, then partition_switch_us idle once
 * the running batch ends; refused when the GPU's memory cannot hold the shadow). A client stays
 * on its GPU for the run: the GPUs are run apart (run/driver.c), so a move between them would be a
 * new run. */
#include <math.h>

#include "atoll/error.h"
#include "atoll/memory.h"
#include "core/ds/ring.h"
#include "core/gslice.h"
#include "core/inss.h"
#include "core/inss_scenario.h"
#include "core/policy.h"

enum { MAX_Q = ATOLL_INSS_MAX_MODELS };
enum { PH_SERVE = 0, PH_LOADING = 1, PH_PENDING = 2, PH_SWITCHING = 3 };
enum { TM_TICK = 1, TM_LOADED = 2, TM_SWITCHED = 3, TM_START = 4, TM_WAIT = 5 };

/* One client's queue. Every field 8 bytes: no padding in the hashed state. */
typedef struct inss_q {
  int64_t pct, target_pct, batch, phase, arrivals, measured, active;
  int64_t last_change_ns, inf1_ns, infb_ns, timeout_ns;
  double ewma_rate;
} inss_q;

typedef struct inss_state {
  int64_t n;
  inss_q q[MAX_Q];
} inss_state;

enum { OPT_MODEL, OPT_TUNE_MS, OPT_HOLD_MS, OPT_STEP, OPT_MAX_BATCH, OPT_SHED, OPT_MISS, OPT_N };
#define U32_OPT(k, slot, d, lo, hi) \
  {.key = k, .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[slot]), .def = d, .min = lo, .max = hi}
static const atoll_policy_option options[OPT_N] = {
    [OPT_MODEL] = {.key = "model", .type = ATOLL_OPT_INSS_MODEL, .store = ATOLL_STORE_I64,
                   .offset = ATOLL_OPTION_AT(param[OPT_MODEL]), .def = 0, .min = 0, .max = 1},
    [OPT_TUNE_MS] = U32_OPT("tune_ms", OPT_TUNE_MS, 1000, 1, 3600000),
    [OPT_HOLD_MS] = U32_OPT("hold_ms", OPT_HOLD_MS, 5000, 0, 3600000),
    [OPT_STEP] = U32_OPT("step_pct", OPT_STEP, 5, 1, 50),
    [OPT_MAX_BATCH] = U32_OPT("max_batch", OPT_MAX_BATCH, 32, 1, ATOLL_INSS_MAX_BATCH),
    [OPT_SHED] = {.key = "shed", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_I64,
                  .offset = ATOLL_OPTION_AT(param[OPT_SHED]), .def = 1, .min = 0, .max = 1},
    /* BDA's bound on the queueing tail, in tenths of a percent (10: 1 %; 0: InSS's constraints only). */
    [OPT_MISS] = U32_OPT("miss_permille", OPT_MISS, 10, 0, 500),
};

static int64_t opt(const atoll_core *c, int k) { return c->s->policy.param[k]; }
static double miss(const atoll_core *c) { return (double)opt(c, OPT_MISS) / 1000.0; }

static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  (void)given;
  if (s->n_clients > MAX_Q) {
    *bad = OPT_MODEL;
    return "inss serves at most 16 clients";
  }
  return NULL;
}

static bool place(const atoll_scenario *s, atoll_client *clients) {
  return atoll__inss_place(s, clients, (uint32_t)s->policy.param[OPT_STEP], (uint32_t)s->policy.param[OPT_MAX_BATCH],
                           (double)s->policy.param[OPT_MISS] / 1000.0);
}

/* The share each client of this GPU starts with (indexed by client; others 0). */
static void start_pcts(const atoll_core *c, uint32_t pcts[MAX_Q], uint32_t batch[MAX_Q]) {
  uint32_t idx[MAX_Q], n = 0;
  atoll_inss_plan plan;
  for (uint32_t i = 0; i < MAX_Q; i++)
    pcts[i] = 0, batch[i] = 1;
  if (atoll__inss_gpu_plan(c->s, c->s->run_gpu, NULL, (uint32_t)opt(c, OPT_STEP), (uint32_t)opt(c, OPT_MAX_BATCH),
                           miss(c), idx, &n, &plan))
    for (uint32_t k = 0; k < n; k++)
      pcts[idx[k]] = plan.pct[k], batch[idx[k]] = plan.batch[k];
  /* No model: equal shares, batch 1 (the policy then only sheds and serves). */
  uint32_t on = 0;
  for (uint32_t i = 0; i < c->s->n_clients && i < MAX_Q; i++)
    on += c->s->clients[i].gpu == c->s->run_gpu;
  for (uint32_t i = 0; i < c->s->n_clients && i < MAX_Q; i++)
    if (c->s->clients[i].gpu == c->s->run_gpu && pcts[i] == 0)
      pcts[i] = on ? 100 / on : 100;
}

static void setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  uint32_t pcts[MAX_Q], batch[MAX_Q];
  cfg->own_channel = true;
  cfg->priority = 0;
  if (q >= MAX_Q)
    return;
  start_pcts(c, pcts, batch);
  cfg->cus = atoll_gslice_layout(c->s, pcts, q);
}

/* The GPU's active clients the model profiles, as the model's slots at their shares and batches
 * (who[k]: slot k's queue); the count. Both the predictions and BDA read the GPU this way. */
static uint32_t slots(const atoll_core *c, atoll_inss_slot slot[MAX_Q], uint32_t who[MAX_Q]) {
  const inss_state *st = atoll__policy_state_c(c);
  uint32_t n = 0;
  for (uint32_t q = 0; q < st->n; q++)
    if (atoll_core_client_active(c, q) && atoll__inss_profile_of(c->s, q) != UINT32_MAX) {
      slot[n] = (atoll_inss_slot){.prof = atoll__inss_profile_of(c->s, q), .pct = (uint32_t)st->q[q].pct,
                                  .batch = (uint32_t)st->q[q].batch};
      who[n++] = q;
    }
  return n;
}

/* The model's predictions for q at its share among the GPU's clients: t_inf at batch 1 and at its
 * batch, and the batching timeout. */
static void predict(atoll_core *c) {
  inss_state *st = atoll__policy_state(c);
  if (!c->s->inss)
    return;
  atoll_inss_slot slot[MAX_Q];
  uint32_t who[MAX_Q], n = slots(c, slot, who);
  for (uint32_t k = 0; k < n; k++) {
    inss_q *f = &st->q[who[k]];
    f->infb_ns = (int64_t)atoll_inss_inf_ns(c->s->inss, slot, n, k);
    slot[k].batch = 1;
    f->inf1_ns = (int64_t)atoll_inss_inf_ns(c->s->inss, slot, n, k);
    slot[k].batch = (uint32_t)f->batch;
    int64_t slo = c->client_deadline_ns[who[k]];
    f->timeout_ns = slo > 2 * f->infb_ns ? slo - 2 * f->infb_ns : 0;
  }
}

static void init(atoll_core *c) {
  inss_state *st = atoll__policy_state(c);
  uint32_t pcts[MAX_Q], batch[MAX_Q];
  st->n = c->n_queues < MAX_Q ? c->n_queues : MAX_Q;
  start_pcts(c, pcts, batch);
  int64_t now = c->dev.ops->now(c->dev.ctx);
  for (uint32_t q = 0; q < st->n; q++) {
    inss_q *f = &st->q[q];
    f->pct = f->target_pct = pcts[q] ? pcts[q] : 100;
    f->batch = batch[q];
    f->active = 0;
    f->last_change_ns = INT64_MIN / 2;
  }
  predict(c);
  atoll__timer_set(c, now, (uint64_t)TM_START << 32);
  atoll__timer_set(c, now + opt(c, OPT_TUNE_MS) * 1000000, (uint64_t)TM_TICK << 32);
}

/* Sheds q's waiting requests that would miss their SLO even running now alone on q's share. */
static void shed_hopeless(atoll_core *c, uint32_t q, int64_t now) {
  inss_q *f = &((inss_state *)atoll__policy_state(c))->q[q];
  int64_t slo = c->client_deadline_ns[q];
  uint64_t head;
  while (opt(c, OPT_SHED) && slo > 0 && f->inf1_ns > 0 && atoll_ring_peek(&c->queues[q].pending, 0, &head) == 0 &&
         now - c->tasks[head].arrival_ns + f->inf1_ns > slo)
    atoll__queue_shed_at(c, q, 0, now);
}

/* Launches q's next batch: its batch size waiting, or the oldest at its timeout. */
static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  inss_state *st = atoll__policy_state(c);
  if (q >= st->n || st->q[q].phase == PH_SWITCHING || c->queues[q].active >= 0)
    return;
  inss_q *f = &st->q[q];
  shed_hopeless(c, q, now);
  uint64_t head;
  if (atoll_ring_peek(&c->queues[q].pending, 0, &head) != 0)
    return;
  uint32_t waiting = atoll_ring_count(&c->queues[q].pending);
  int64_t due = c->tasks[head].arrival_ns + f->timeout_ns;
  if (waiting < (uint32_t)f->batch && now < due) {
    atoll__timer_set(c, due, ((uint64_t)TM_WAIT << 32) | q);
    return;
  }
  if (!atoll__queue_activate_batch(c, q, (uint32_t)f->batch))
    return;
  f->active = 1;
  atoll__launch_rest(c, q);
}

static void apply_layout(atoll_core *c) {
  inss_state *st = atoll__policy_state(c);
  uint32_t pcts[MAX_Q] = {0};
  for (uint32_t q = 0; q < st->n; q++)
    pcts[q] = (uint32_t)st->q[q].pct;
  for (uint32_t q = 0; q < st->n; q++) {
    if (!atoll_core_client_active(c, q))
      continue;
    atoll_cuset set = atoll_gslice_layout(c->s, pcts, q);
    atoll__queue_set_cus(c, q, &set);
  }
}

static void begin_switch(atoll_core *c, uint32_t q, int64_t now) {
  inss_q *f = &((inss_state *)atoll__policy_state(c))->q[q];
  f->phase = PH_SWITCHING;
  f->pct = f->target_pct;
  apply_layout(c);
  predict(c);
  int64_t end = now + c->s->gpu.partition_switch_ns;
  atoll__partition_step(c, q, ATOLL_PARTITION_SWITCH, (uint32_t)f->pct, now, end);
  atoll__share_changed(c, q, (uint32_t)f->pct, (uint32_t)f->batch, now);
  if (end <= now || atoll__timer_set(c, end, ((uint64_t)TM_SWITCHED << 32) | q) != 0) {
    f->phase = PH_SERVE;
    run_queue(c, q, now);
  }
}

/* The device memory one instance of client cl's model takes at its largest batch (MB). */
static double instance_mb(const atoll_core *c, uint32_t cl) {
  return atoll_client_instance_mb(c->s, cl, (uint32_t)opt(c, OPT_MAX_BATCH));
}

/* A shadow instance of q on pct loads, if the GPU's memory holds it beside every instance. */
static void start_change(atoll_core *c, uint32_t q, uint32_t pct, int64_t now) {
  inss_state *st = atoll__policy_state(c);
  inss_q *f = &st->q[q];
  if (!c->dev.ops->set_stream_cus)
    return;
  f->last_change_ns = now;
  if (c->s->gpu.memory_mb > 0) {
    double used = instance_mb(c, q);
    for (uint32_t i = 0; i < st->n; i++)
      if (atoll_core_client_active(c, i))
        used += instance_mb(c, i) * (st->q[i].phase == PH_LOADING || st->q[i].phase == PH_PENDING ? 2 : 1);
    if (used > c->s->gpu.memory_mb) {
      atoll__partition_step(c, q, ATOLL_PARTITION_REFUSED, pct, now, now);
      return;
    }
  }
  f->target_pct = pct;
  f->phase = PH_LOADING;
  int64_t end = now + c->s->gpu.partition_load_ns;
  atoll__partition_step(c, q, ATOLL_PARTITION_SHADOW_LOAD, pct, now, end);
  if (atoll__timer_set(c, end, ((uint64_t)TM_LOADED << 32) | q) != 0) {
    f->phase = PH_PENDING;
    if (c->queues[q].active < 0)
      begin_switch(c, q, now);
  }
}

/* The manager's round: measured rates, BDA on every client, and a new share search when BDA fails. */
static void tick(atoll_core *c, int64_t now) {
  inss_state *st = atoll__policy_state(c);
  const atoll_inss_model *m = c->s->inss;
  double window_s = (double)opt(c, OPT_TUNE_MS) / 1000.0, rates[MAX_Q] = {0};
  bool busy = false;
  for (uint32_t q = 0; q < st->n; q++) {
    inss_q *f = &st->q[q];
    double r = (double)f->arrivals / window_s, smooth = 0.5 * r + 0.5 * f->ewma_rate;
    /* A rise is taken at once (it is what BDA must keep up with), a fall smoothed. */
    f->ewma_rate = f->measured && smooth < r ? r : f->measured ? smooth : r;
    f->measured = 1;
    f->arrivals = 0;
    busy |= f->phase != PH_SERVE || now - f->last_change_ns < opt(c, OPT_HOLD_MS) * 1000000;
  }
  if (!m)
    return;
  atoll_inss_slot slot[MAX_Q];
  uint32_t who[MAX_Q], n = slots(c, slot, who);
  bool failed = false;
  for (uint32_t k = 0; k < n; k++) {
    inss_q *f = &st->q[who[k]];
    uint32_t b;
    atoll_inss_bda_status s = atoll_inss_bda(m, slot, n, k, f->ewma_rate, (double)c->client_deadline_ns[who[k]],
                                             0, (uint32_t)opt(c, OPT_MAX_BATCH), miss(c), &b);
    failed |= s != ATOLL_INSS_BDA_OK;
    if ((int64_t)b != f->batch) {
      f->batch = b;
      atoll__share_changed(c, who[k], (uint32_t)f->pct, b, now);
    }
  }
  predict(c);
  if (!failed || busy)
    return;
  /* BDA failed: search this GPU's shares again at the measured rates. */
  for (uint32_t q = 0; q < st->n && q < MAX_Q; q++)
    rates[q] = st->q[q].ewma_rate;
  uint32_t idx[MAX_Q], k = 0;
  atoll_inss_plan plan;
  if (!atoll__inss_gpu_plan(c->s, c->s->run_gpu, rates, (uint32_t)opt(c, OPT_STEP), (uint32_t)opt(c, OPT_MAX_BATCH),
                            miss(c), idx, &k, &plan))
    return;
  for (uint32_t j = 0; j < k; j++)
    if (idx[j] < st->n && (int64_t)plan.pct[j] != st->q[idx[j]].pct)
      start_change(c, idx[j], plan.pct[j], now);
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  inss_state *st = atoll__policy_state(c);
  if (q < st->n)
    st->q[q].arrivals++;
  run_queue(c, q, now);
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  inss_state *st = atoll__policy_state(c);
  if (q >= st->n)
    return;
  st->q[q].active = 0;
  if (st->q[q].phase == PH_PENDING) {
    begin_switch(c, q, now);
    return;
  }
  run_queue(c, q, now);
}

static void on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  uint32_t kind = (uint32_t)(cookie >> 32), q = (uint32_t)cookie;
  inss_state *st = atoll__policy_state(c);
  if (kind == TM_START) {
    for (uint32_t i = 0; i < st->n; i++)
      if (atoll_core_client_active(c, i))
        atoll__share_changed(c, i, (uint32_t)st->q[i].pct, (uint32_t)st->q[i].batch, now);
    return;
  }
  if (kind == TM_TICK) {
    tick(c, now);
    atoll__timer_set(c, now + opt(c, OPT_TUNE_MS) * 1000000, (uint64_t)TM_TICK << 32);
    return;
  }
  if (q >= st->n)
    return;
  inss_q *f = &st->q[q];
  if (kind == TM_WAIT) {
    run_queue(c, q, now);
  } else if (kind == TM_LOADED && f->phase == PH_LOADING) {
    f->phase = PH_PENDING;
    if (c->queues[q].active < 0)
      begin_switch(c, q, now);
  } else if (kind == TM_SWITCHED && f->phase == PH_SWITCHING) {
    f->phase = PH_SERVE;
    run_queue(c, q, now);
  }
}

/* Its own batches: up to max_batch requests (the device holds room for them, as for gslice's). */
static uint32_t batch_limit(const atoll_scenario *s, uint32_t client) {
  (void)client;
  return (uint32_t)s->policy.param[OPT_MAX_BATCH];
}

static bool state_valid(const atoll_core *c) {
  const inss_state *st = atoll__policy_state_c(c);
  if (st->n < 0 || st->n > MAX_Q)
    return false;
  for (int64_t q = 0; q < st->n; q++)
    if (st->q[q].phase < 0 || st->q[q].phase > PH_SWITCHING || st->q[q].pct <= 0 || st->q[q].pct > 100 ||
        st->q[q].batch <= 0 || st->q[q].batch > ATOLL_INSS_MAX_BATCH)
      return false;
  return true;
}

const atoll_policy_ops atoll__policy_inss = {
    .queue_per_client = true,
    .state_size = sizeof(inss_state),
    .options = options,
    .n_options = OPT_N,
    .finish_options = finish_options,
    .place = place,
    .own_batches = "inss decides its batches itself (BDA, option max_batch)",
    .batch_limit = batch_limit,
    .setup_queue = setup_queue,
    .init = init,
    .on_queued = on_queued,
    .on_task_done = on_task_done,
    .on_timer = on_timer,
    .state_valid = state_valid,
};
