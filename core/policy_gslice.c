/* gslice: GSLICE (SoCC '20) on the shared core; docs/gslice.md. Every client is an inference
 * function (IF) with a stream of its own (an MPS client) bound to a spatial share of the GPU, its
 * GPU%. The share starts at the client's `share:` (or `cus:`), else at option initial_pct
 * (GSLICE's 30 % for an unprofiled model; `atoll model knee` gives a model's knee to write as
 * share:).
 *
 * Self-tuning: every tune_ms the manager updates, per IF, EWMAs of its latency (the oldest request
 * of each batch, arrival to completion), its throughput and its arrival rate, and runs Algorithm 1
 * (atoll_gslice_tune) on each IF outside its hold-down; when the IFs ask for more than 100 % the
 * GPU is shared by weighted max-min fairness (atoll_gslice_maxmin). A changed share is not applied
 * at once: a shadow instance loads the model on the new share in the background (the model's
 * load time, atoll_gslice_load_ns) while the old share serves; once loaded, the switch waits for the IF's
 * running batch, then idles the IF for partition_switch_us and moves its stream to the new CUs. A
 * shadow the GPU's memory cannot hold beside every instance (and the other shadows loading) is
 * refused. An IF's share never drops below its SLO floor (the share one run needs to leave the SLO
 * room for a wait of one run, from the knee sweep). Batching: SLAB (the batch whose run fits
 * slab_target_pct of the SLO, from the last batch's run time, and one more after a full batch
 * that met the SLO), Clipper's AIMD, or none; notify_after successive under- or over-provisioned
 * batches make the manager re-tune at once. */
#include "atoll/error.h"
#include "atoll/memory.h"
#include "core/gslice.h"
#include "core/policy.h"

enum { MAX_IFS = ATOLL_GSLICE_MAX_IFS };
enum { PH_SERVE = 0, PH_LOADING = 1, PH_PENDING = 2, PH_SWITCHING = 3 };
enum { TM_TICK = 1, TM_LOADED = 2, TM_SWITCHED = 3, TM_START = 4 };
enum { BATCH_OFF = 0, BATCH_SLAB = 1, BATCH_AIMD = 2 };
enum { WEIGHT_DEMAND = 0, WEIGHT_EQUAL = 1 };

/* One IF (indexed by its queue, which is its client's). Fields ordered so that the struct has no
 * padding: the state is hashed byte for byte. */
typedef struct gs_if {
  int64_t last_change_ns; /* the last change started (hold-down from here) */
  int64_t step_end_ns;    /* the end of the shadow's load or the switch's idle */
  int64_t launch_ns;      /* the running batch was launched */
  int64_t oldest_ns;      /* the running batch's oldest arrival */
  double lat_sum_ns;      /* this window's batch latencies */
  double ewma_lat_ns, ewma_tput, ewma_rate;
  uint32_t pct;           /* the share in effect */
  uint32_t target_pct;    /* the share being loaded or switched to */
  uint32_t batch;         /* the batch size in use */
  uint32_t phase;
  uint32_t active_batch;  /* requests of the running batch (0: none runs) */
  uint32_t arrivals, completions, n_lat; /* this window's */
  int32_t streak;         /* > 0: successive over-provisioned batches; < 0: under-provisioned */
  uint32_t measured;      /* a window has been folded into the EWMAs */
} gs_if;

typedef struct gslice_state {
  uint32_t n;
  uint32_t tick_armed;
  gs_if f[MAX_IFS];
} gslice_state;

enum {
  OPT_TUNE_MS, OPT_HOLD_MS, OPT_BAND, OPT_STEP, OPT_EWMA, OPT_BATCHING, OPT_MAX_BATCH, OPT_INITIAL,
  OPT_NOTIFY, OPT_WEIGHTS, OPT_SLAB_TARGET, OPT_FLOOR_RUN, OPT_N
};
static const char *const batching_names[] = {"off", "slab", "aimd"};
static const char *const weight_names[] = {"demand", "equal"};
#define U32_OPT(k, slot, d, lo, hi) \
  {.key = k, .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64, .offset = ATOLL_OPTION_AT(param[slot]), .def = d, .min = lo, .max = hi}
static const atoll_policy_option options[] = {
    [OPT_TUNE_MS] = U32_OPT("tune_ms", 0, 1000, 10, 600000),
    [OPT_HOLD_MS] = U32_OPT("hold_ms", 1, 10000, 0, 3600000),
    [OPT_BAND] = U32_OPT("band_pct", 2, 5, 1, 100),
    [OPT_STEP] = U32_OPT("step_pct", 3, 5, 1, 50),
    [OPT_EWMA] = U32_OPT("ewma_pct", 4, 50, 1, 100),
    [OPT_BATCHING] = {.key = "batching", .type = ATOLL_OPT_ENUM, .store = ATOLL_STORE_I64,
                      .offset = ATOLL_OPTION_AT(param[5]), .def = BATCH_SLAB, .max = 2, .names = batching_names,
                      .what = "batching"},
    [OPT_MAX_BATCH] = U32_OPT("max_batch", 6, 16, 1, ATOLL_MAX_BATCH),
    [OPT_INITIAL] = U32_OPT("initial_pct", 7, 30, 1, 100),
    [OPT_NOTIFY] = U32_OPT("notify_after", 8, 5, 1, 1000),
    [OPT_WEIGHTS] = {.key = "weights", .type = ATOLL_OPT_ENUM, .store = ATOLL_STORE_I64,
                     .offset = ATOLL_OPTION_AT(param[9]), .def = WEIGHT_DEMAND, .max = 1, .names = weight_names,
                     .what = "max-min weights"},
    [OPT_SLAB_TARGET] = U32_OPT("slab_target_pct", 10, 50, 1, 100),
    /* Slot 11: sim/knee.c reads it to sweep the SLO floors (atoll_sim_gslice_start). */
    [OPT_FLOOR_RUN] = U32_OPT("floor_run_pct", 11, 50, 0, 100),
};
_Static_assert(sizeof options / sizeof options[0] == OPT_N, "one entry per option");

static int64_t opt(const atoll_core *c, int i) { return c->s->policy.param[i]; }

static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  (void)given;
  if (s->n_clients > MAX_IFS) {
    *bad = UINT32_MAX;
    return "gslice serves at most 16 clients (IFs)";
  }
  return NULL;
}

/* Its own batches: up to max_batch requests, one with batching off. */
static uint32_t batch_limit(const atoll_scenario *s, uint32_t client) {
  (void)client;
  return s->policy.param[OPT_BATCHING] == BATCH_OFF ? 1 : (uint32_t)s->policy.param[OPT_MAX_BATCH];
}

static gs_if *ifs(atoll_core *c) { return ((gslice_state *)atoll__policy_state(c))->f; }

/* The client a queue serves (one client per queue). */
static uint32_t client_of(const atoll_core *c, uint32_t q) {
  for (uint32_t i = 0; i < c->n_clients; i++)
    if (c->client_queue[i] == q)
      return i;
  return 0;
}

/* The share a client starts with: its share:/cus: as a GPU%, else initial_pct. */
static uint32_t initial_pct(const atoll_scenario *s, uint32_t client) {
  uint32_t n = atoll_cuset_count(&s->clients[client].cus);
  if (n == 0)
    return (uint32_t)s->policy.param[OPT_INITIAL];
  /* The smallest GPU% that maps onto n CUs (atoll_cuset_from_share floors), so that a share: P
   * comes back as P. */
  uint32_t p = (n * 100u + s->gpu.cus - 1) / s->gpu.cus;
  return p < 1 ? 1 : p > 100 ? 100 : p;
}

static void setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  uint32_t pcts[MAX_IFS] = {0};
  for (uint32_t i = 0; i < c->s->n_clients && i < MAX_IFS; i++)
    pcts[i] = initial_pct(c->s, i);
  cfg->cus = atoll_gslice_layout(c->s, pcts, q);
  cfg->own_channel = true;
  cfg->priority = 0;
}

static void arm_tick(atoll_core *c, int64_t now) {
  atoll__timer_set(c, now + opt(c, OPT_TUNE_MS) * 1000000, (uint64_t)TM_TICK << 32);
}

static void init(atoll_core *c) {
  gslice_state *st = atoll__policy_state(c);
  st->n = c->n_queues < MAX_IFS ? c->n_queues : MAX_IFS;
  int64_t now = c->dev.ops->now(c->dev.ctx);
  for (uint32_t q = 0; q < st->n; q++) {
    gs_if *f = &st->f[q];
    uint32_t cl = client_of(c, q);
    f->pct = f->target_pct = initial_pct(c->s, cl);
    f->batch = 1;
    f->last_change_ns = INT64_MIN / 2;
  }
  /* The starting shares are told from a timer due now: a runner may set up its recorder only once
   * the core exists. */
  atoll__timer_set(c, now, (uint64_t)TM_START << 32);
  st->tick_armed = atoll__timer_set(c, now + opt(c, OPT_TUNE_MS) * 1000000, (uint64_t)TM_TICK << 32) == 0;
}

/* Launches q's next batch when its IF is not switching and nothing runs. */
static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  gs_if *f = &ifs(c)[q];
  if (q >= MAX_IFS || f->phase == PH_SWITCHING || c->queues[q].active >= 0)
    return;
  uint32_t max = opt(c, OPT_BATCHING) == BATCH_OFF ? 1 : f->batch;
  if (!atoll__queue_activate_batch(c, q, max))
    return;
  const atoll_task *t = &c->tasks[c->queues[q].active];
  f->launch_ns = now;
  f->oldest_ns = t->arrival_ns;
  f->active_batch = t->batch ? t->batch : 1;
  atoll__launch_rest(c, q);
}

/* The device memory one instance of client cl's model takes at its largest batch (MB). */
static double instance_mb(const atoll_core *c, uint32_t cl) {
  return atoll_client_instance_mb(c->s, cl, (uint32_t)opt(c, OPT_MAX_BATCH));
}

/* Every client of this GPU on the shares in effect gets its CUs (the others' sets may move: a
 * share is a cap under MPS, not given CUs). */
static void apply_layout(atoll_core *c) {
  gslice_state *st = atoll__policy_state(c);
  uint32_t pcts[MAX_IFS] = {0};
  for (uint32_t q = 0; q < st->n; q++)
    pcts[client_of(c, q)] = st->f[q].pct;
  for (uint32_t q = 0; q < st->n; q++) {
    uint32_t cl = client_of(c, q);
    if (!atoll_core_client_active(c, cl))
      continue;
    atoll_cuset set = atoll_gslice_layout(c->s, pcts, cl);
    atoll__queue_set_cus(c, q, &set);
  }
}

static void begin_switch(atoll_core *c, uint32_t q, int64_t now) {
  gs_if *f = &ifs(c)[q];
  uint32_t cl = client_of(c, q);
  f->phase = PH_SWITCHING;
  f->pct = f->target_pct;
  apply_layout(c);
  int64_t idle = c->s->gpu.partition_switch_ns;
  f->step_end_ns = now + idle;
  atoll__partition_step(c, cl, ATOLL_PARTITION_SWITCH, f->pct, now, f->step_end_ns);
  atoll__share_changed(c, cl, f->pct, f->batch, now);
  if (idle <= 0 || atoll__timer_set(c, f->step_end_ns, ((uint64_t)TM_SWITCHED << 32) | q) != 0) {
    f->phase = PH_SERVE;
    run_queue(c, q, now);
  }
}

/* A change of q's share to pct: a shadow instance loads, if the GPU's memory holds it. */
static void start_change(atoll_core *c, uint32_t q, uint32_t pct, int64_t now) {
  gslice_state *st = atoll__policy_state(c);
  gs_if *f = &st->f[q];
  uint32_t cl = client_of(c, q);
  if (!c->dev.ops->set_stream_cus)
    return; /* the device cannot re-partition: the shares stay as they started */
  f->last_change_ns = now;
  if (c->s->gpu.memory_mb > 0) {
    double used = instance_mb(c, cl); /* the shadow */
    for (uint32_t i = 0; i < st->n; i++) {
      uint32_t ci = client_of(c, i);
      if (!atoll_core_client_active(c, ci))
        continue;
      used += instance_mb(c, ci);
      if (st->f[i].phase == PH_LOADING || st->f[i].phase == PH_PENDING)
        used += instance_mb(c, ci);
    }
    if (used > c->s->gpu.memory_mb) {
      atoll__partition_step(c, cl, ATOLL_PARTITION_REFUSED, pct, now, now);
      return;
    }
  }
  f->target_pct = pct;
  f->phase = PH_LOADING;
  f->step_end_ns = now + atoll_gslice_load_ns(&c->s->models[c->s->clients[cl].model].model, &c->s->gpu);
  atoll__partition_step(c, cl, ATOLL_PARTITION_SHADOW_LOAD, pct, now, f->step_end_ns);
  if (atoll__timer_set(c, f->step_end_ns, ((uint64_t)TM_LOADED << 32) | q) != 0) {
    f->phase = PH_PENDING;
    if (c->queues[q].active < 0)
      begin_switch(c, q, now);
  }
}

/* Client cl's SLO floor (docs/gslice.md, "SLO floors"; set where the knee sweep ran), 0 with the
 * option floor_run_pct 0. */
static uint32_t floor_of(const atoll_core *c, uint32_t cl) {
  return opt(c, OPT_FLOOR_RUN) > 0 ? c->s->clients[cl].share_floor_pct : 0;
}

/* The manager's round: Algorithm 1 on every IF free to change, max-min fairness when they ask
 * for more than the GPU, then the changes. */
static void reallocate(atoll_core *c, int64_t now) {
  gslice_state *st = atoll__policy_state(c);
  atoll_gslice_tune_cfg cfg = {.band_pct = (uint32_t)opt(c, OPT_BAND), .step_pct = (uint32_t)opt(c, OPT_STEP),
                               .min_pct = (uint32_t)opt(c, OPT_STEP)};
  uint32_t demand[MAX_IFS] = {0}, alloc[MAX_IFS] = {0}, idx[MAX_IFS], floors[MAX_IFS] = {0};
  bool keep[MAX_IFS];
  double weight[MAX_IFS];
  uint32_t n_free = 0, fixed = 0, asked = 0;
  for (uint32_t q = 0; q < st->n; q++) {
    gs_if *f = &st->f[q];
    uint32_t cl = client_of(c, q);
    if (!atoll_core_client_active(c, cl))
      continue;
    bool held = f->phase != PH_SERVE || now - f->last_change_ns < opt(c, OPT_HOLD_MS) * 1000000;
    if (held) {
      fixed += f->phase != PH_SERVE ? f->target_pct : f->pct;
      continue;
    }
    atoll_gslice_obs o = {.slo_ns = (double)c->client_deadline_ns[cl], .avg_latency_ns = f->ewma_lat_ns,
                          .avg_tput_rps = f->ewma_tput, .arrival_rps = f->ewma_rate, .pct = f->pct,
                          .floor_pct = floor_of(c, cl)};
    atoll_gslice_decision d = f->measured ? atoll_gslice_tune(&o, &cfg) : (atoll_gslice_decision){.pct = f->pct};
    if (d.pct < o.floor_pct) /* not measured yet, but under its floor */
      d = (atoll_gslice_decision){.action = ATOLL_GSLICE_GROW, .pct = o.floor_pct};
    floors[n_free] = o.floor_pct;
    idx[n_free] = q;
    keep[n_free] = d.action == ATOLL_GSLICE_KEEP;
    demand[n_free] = d.pct;
    weight[n_free] = opt(c, OPT_WEIGHTS) == WEIGHT_EQUAL ? 1.0 : (double)d.pct;
    asked += d.pct;
    n_free++;
  }
  if (n_free == 0)
    return;
  uint32_t room = fixed < 100 ? 100 - fixed : 0;
  if (asked > room) {
    atoll_gslice_maxmin(demand, weight, n_free, room, alloc);
  } else {
    for (uint32_t i = 0; i < n_free; i++)
      alloc[i] = demand[i];
  }
  /* Shares keep to the step grid, never below one step; the steps flooring frees go back to the
   * IFs fairness cut below their demand (as the start shares do), not left idle. */
  uint32_t grid[MAX_IFS];
  atoll_gslice_to_grid(alloc, demand, n_free, room, cfg.step_pct, grid);
  for (uint32_t i = 0; i < n_free; i++) {
    gs_if *f = &st->f[idx[i]];
    /* Fairness does not cut an IF below its SLO floor: where the floors add up past the GPU, the
     * shares overlap as MPS caps may (docs/gslice.md, "SLO floors"). */
    uint32_t p = grid[i] > floors[i] ? grid[i] : floors[i];
    /* An IF Algorithm 1 keeps changes only when fairness cuts it. */
    if (keep[i] && alloc[i] >= f->pct)
      continue;
    if (p != f->pct)
      start_change(c, idx[i], p, now);
  }
}

/* Folds this window into the EWMAs. */
static void measure(atoll_core *c, int64_t now) {
  gslice_state *st = atoll__policy_state(c);
  double window_s = (double)opt(c, OPT_TUNE_MS) / 1000.0, a = (double)opt(c, OPT_EWMA) / 100.0;
  for (uint32_t q = 0; q < st->n; q++) {
    gs_if *f = &st->f[q];
    double rate = f->arrivals / window_s, tput = f->completions / window_s, lat = -1;
    if (f->n_lat > 0) {
      lat = f->lat_sum_ns / f->n_lat;
    }
    /* A queue that completed nothing: its oldest waiting request's age says how late it runs. */
    uint64_t head;
    if (atoll_ring_peek(&c->queues[q].pending, 0, &head) == 0) {
      double age = (double)(now - c->tasks[head].arrival_ns);
      if (lat < age && f->n_lat == 0)
        lat = age;
    }
    if (!f->measured) {
      f->ewma_rate = rate, f->ewma_tput = tput;
      f->ewma_lat_ns = lat > 0 ? lat : 0;
    } else {
      f->ewma_rate = a * rate + (1 - a) * f->ewma_rate;
      f->ewma_tput = a * tput + (1 - a) * f->ewma_tput;
      if (lat > 0)
        f->ewma_lat_ns = f->ewma_lat_ns > 0 ? a * lat + (1 - a) * f->ewma_lat_ns : lat;
    }
    f->measured = 1;
    f->arrivals = f->completions = f->n_lat = 0;
    f->lat_sum_ns = 0;
  }
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  if (q < MAX_IFS)
    ifs(c)[q].arrivals++;
  run_queue(c, q, now);
}

/* The batch size after a batch of q ended, and whether it asks the manager to re-tune. */
static bool adapt_batch(atoll_core *c, uint32_t q, int64_t now) {
  gs_if *f = &ifs(c)[q];
  uint32_t cl = client_of(c, q);
  int64_t slo = c->client_deadline_ns[cl], run = now - f->launch_ns, lat = now - f->oldest_ns;
  bool within = slo <= 0 || lat <= slo;
  uint32_t max = (uint32_t)opt(c, OPT_MAX_BATCH), b = f->batch;
  if (opt(c, OPT_BATCHING) == BATCH_SLAB && slo > 0) {
    b = atoll_gslice_slab(f->batch, f->active_batch, run, slo * opt(c, OPT_SLAB_TARGET) / 100, lat, slo, max);
  } else if (opt(c, OPT_BATCHING) == BATCH_AIMD) {
    if (!within || f->active_batch == f->batch)
      b = atoll_gslice_aimd(f->batch, within, max);
  }
  if (b != f->batch) {
    f->batch = b;
    atoll__share_changed(c, cl, f->pct, f->batch, now);
  }
  /* SLAB's notifications: missing the SLO at batch 1 is under-provisioned, keeping it over. */
  bool under = !within && f->active_batch <= 1;
  if (under)
    f->streak = f->streak < 0 ? f->streak - 1 : -1;
  else if (within)
    f->streak = f->streak > 0 ? f->streak + 1 : 1;
  int32_t n = (int32_t)opt(c, OPT_NOTIFY);
  if (f->streak <= -n || f->streak >= n) {
    f->streak = 0;
    return under;
  }
  return false;
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  if (q >= MAX_IFS)
    return;
  gs_if *f = &ifs(c)[q];
  bool notify = false;
  if (f->active_batch > 0) {
    f->completions += f->active_batch;
    f->lat_sum_ns += (double)(now - f->oldest_ns);
    f->n_lat++;
    notify = adapt_batch(c, q, now);
    f->active_batch = 0;
  }
  if (f->phase == PH_PENDING) {
    begin_switch(c, q, now);
    return;
  }
  run_queue(c, q, now);
  /* Under-provisioned for notify_after batches in a row: the manager re-tunes now rather than at
   * its next round (over-provisioned IFs wait for the round: shrinking is never urgent). */
  if (notify && f->measured)
    reallocate(c, now);
}

static void on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  uint32_t kind = (uint32_t)(cookie >> 32), q = (uint32_t)cookie;
  gslice_state *st = atoll__policy_state(c);
  if (kind == TM_START) {
    for (uint32_t i = 0; i < st->n; i++) {
      uint32_t cl = client_of(c, i);
      if (atoll_core_client_active(c, cl))
        atoll__share_changed(c, cl, st->f[i].pct, st->f[i].batch, now);
    }
    return;
  }
  if (kind == TM_TICK) {
    measure(c, now);
    reallocate(c, now);
    arm_tick(c, now);
    return;
  }
  if (q >= st->n)
    return;
  gs_if *f = &st->f[q];
  if (kind == TM_LOADED && f->phase == PH_LOADING) {
    f->phase = PH_PENDING;
    if (c->queues[q].active < 0)
      begin_switch(c, q, now);
  } else if (kind == TM_SWITCHED && f->phase == PH_SWITCHING) {
    f->phase = PH_SERVE;
    run_queue(c, q, now);
  }
}

static bool state_valid(const atoll_core *c) {
  const gslice_state *st = atoll__policy_state_c(c);
  if (st->n > MAX_IFS)
    return false;
  for (uint32_t q = 0; q < st->n; q++)
    if (st->f[q].phase > PH_SWITCHING || st->f[q].pct == 0 || st->f[q].pct > 100 || st->f[q].batch == 0)
      return false;
  return true;
}

const atoll_policy_ops atoll__policy_gslice = {
    .queue_per_client = true,
    .state_size = sizeof(gslice_state),
    .options = options,
    .n_options = OPT_N,
    .finish_options = finish_options,
    .setup_queue = setup_queue,
    .init = init,
    .on_queued = on_queued,
    .on_task_done = on_task_done,
    .on_timer = on_timer,
    .state_valid = state_valid,
    .batch_limit = batch_limit,
    .own_batches = "gslice forms its batches itself (option batching)",
};
