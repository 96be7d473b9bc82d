/* gpulet: the gpulet baseline of InSS's evaluation (docs/inss.md). Each GPU is cut into at most
 * two partitions (gpu-lets). With one client on a GPU it has the whole GPU; with two, each gets a
 * partition sized in proportion to the share it needs alone (the smallest share on the 5 % grid
 * at which its SLO/2 batch serves its declared rate, from InSS's latency model without
 * interference: gpulet's own profile), the rest of the GPU split in the same proportion; with
 * more, the GPU is halved and the clients take the halves in turn (temporal sharing inside one).
 * Batch: the largest (<= max_batch) whose predicted latency alone on its partition is under
 * SLO/2; a batch launches when it is full or its oldest request has waited SLO/2. Placement: the
 * scenario's (gpu:, else the fewest clients so far: atoll_scenario_place_clients). Without a model
 * the partitions are equal and the batch is 1. */
#include "atoll/error.h"
#include "core/ds/ring.h"
#include "core/inss.h"
#include "core/inss_scenario.h"
#include "core/policy.h"

enum { MAX_Q = ATOLL_INSS_MAX_MODELS, STEP = 5 };
enum { TM_START = 1, TM_WAIT = 2 };

typedef struct gl_q {
  int64_t pct, batch, timeout_ns;
} gl_q;

typedef struct gpulet_state {
  int64_t n;
  gl_q q[MAX_Q];
} gpulet_state;

enum { OPT_MODEL, OPT_MAX_BATCH, OPT_N };
static const atoll_policy_option options[OPT_N] = {
    [OPT_MODEL] = {.key = "model", .type = ATOLL_OPT_INSS_MODEL, .store = ATOLL_STORE_I64,
                   .offset = ATOLL_OPTION_AT(param[OPT_MODEL]), .def = 0, .min = 0, .max = 1},
    [OPT_MAX_BATCH] = {.key = "max_batch", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_I64,
                       .offset = ATOLL_OPTION_AT(param[OPT_MAX_BATCH]), .def = 32, .min = 1, .max = ATOLL_INSS_MAX_BATCH},
};

static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  (void)given;
  if (s->n_clients > MAX_Q) {
    *bad = OPT_MODEL;
    return "gpulet serves at most 16 clients";
  }
  return NULL;
}

/* Predicted latency of client c alone at batch b on pct %: the model without interference. */
static double solo_ns(const atoll_scenario *s, uint32_t c, uint32_t b, uint32_t pct) {
  uint32_t p = atoll__inss_profile_of(s, c);
  if (p == UINT32_MAX)
    return 0;
  atoll_inss_slot one = {.prof = p, .pct = pct, .batch = b};
  return atoll_inss_inf_ns(s->inss, &one, 1, 0);
}

/* The largest batch whose latency alone on pct % is under SLO/2 (1 when none is). */
static uint32_t half_slo_batch(const atoll_scenario *s, uint32_t c, uint32_t pct, uint32_t max) {
  double half = atoll__inss_slo_ns(s, c) / 2;
  uint32_t best = 1;
  for (uint32_t b = 1; b <= max; b++)
    if (solo_ns(s, c, b, pct) <= half)
      best = b;
  return best;
}

/* The smallest share whose SLO/2 batch serves the client's declared rate (100 when none does). */
static uint32_t need_pct(const atoll_scenario *s, uint32_t c, uint32_t max) {
  double rate = atoll__inss_declared_rate(s, c);
  for (uint32_t pct = STEP; pct < 100; pct += STEP) {
    uint32_t b = half_slo_batch(s, c, pct, max);
    double t = solo_ns(s, c, b, pct);
    if (t > 0 && t <= atoll__inss_slo_ns(s, c) / 2 && (double)b * 1e9 / t >= rate)
      return pct;
  }
  return 100;
}

/* Every client of this GPU's partition: its share and where its partition starts (CUs). */
static void partitions(const atoll_scenario *s, uint32_t max, uint32_t pct[MAX_Q], uint32_t first_cu[MAX_Q]) {
  uint32_t on[MAX_Q], k = 0;
  for (uint32_t c = 0; c < s->n_clients && c < MAX_Q; c++) {
    pct[c] = 0, first_cu[c] = 0;
    if (s->clients[c].gpu == s->run_gpu)
      on[k++] = c;
  }
  uint32_t part[2] = {100, 0};
  if (k == 2) {
    uint32_t need[2] = {s->inss ? need_pct(s, on[0], max) : 50, s->inss ? need_pct(s, on[1], max) : 50};
    uint32_t a = (uint32_t)((100.0 * need[0] / (need[0] + need[1])) / STEP + 0.5) * STEP;
    a = a < STEP ? STEP : a > 100 - STEP ? 100 - STEP : a;
    part[0] = a, part[1] = 100 - a;
  } else if (k > 2) {
    part[0] = part[1] = 50;
  }
  uint32_t first1 = part[0] * s->gpu.cus / 100;
  for (uint32_t j = 0; j < k; j++) {
    uint32_t p = k <= 2 ? j : j % 2;
    pct[on[j]] = part[p];
    first_cu[on[j]] = p == 0 ? 0 : first1;
  }
}

static void setup_queue(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  uint32_t pct[MAX_Q], first[MAX_Q], next;
  cfg->own_channel = true;
  cfg->priority = 0;
  if (q >= MAX_Q || q >= c->s->n_clients)
    return;
  partitions(c->s, (uint32_t)c->s->policy.param[OPT_MAX_BATCH], pct, first);
  if (pct[q] > 0 && pct[q] < 100)
    atoll_cuset_from_share(c->s->gpu.cus, first[q], pct[q], &cfg->cus, &next);
}

static void init(atoll_core *c) {
  gpulet_state *st = atoll__policy_state(c);
  uint32_t pct[MAX_Q], first[MAX_Q], max = (uint32_t)c->s->policy.param[OPT_MAX_BATCH];
  st->n = c->n_queues < MAX_Q ? c->n_queues : MAX_Q;
  partitions(c->s, max, pct, first);
  for (uint32_t q = 0; q < st->n; q++) {
    gl_q *f = &st->q[q];
    f->pct = pct[q] ? pct[q] : 100;
    f->batch = c->s->inss ? half_slo_batch(c->s, q, (uint32_t)f->pct, max) : 1;
    f->timeout_ns = c->client_deadline_ns[q] / 2;
  }
  atoll__timer_set(c, c->dev.ops->now(c->dev.ctx), (uint64_t)TM_START << 32);
}

static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  gpulet_state *st = atoll__policy_state(c);
  if (q >= st->n || c->queues[q].active >= 0)
    return;
  gl_q *f = &st->q[q];
  uint64_t head;
  if (atoll_ring_peek(&c->queues[q].pending, 0, &head) != 0)
    return;
  int64_t due = c->tasks[head].arrival_ns + f->timeout_ns;
  if (atoll_ring_count(&c->queues[q].pending) < (uint32_t)f->batch && now < due) {
    atoll__timer_set(c, due, ((uint64_t)TM_WAIT << 32) | q);
    return;
  }
  if (atoll__queue_activate_batch(c, q, (uint32_t)f->batch))
    atoll__launch_rest(c, q);
}

static void on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  gpulet_state *st = atoll__policy_state(c);
  uint32_t kind = (uint32_t)(cookie >> 32);
  if (kind == TM_START) {
    for (uint32_t i = 0; i < st->n; i++)
      if (atoll_core_client_active(c, i))
        atoll__share_changed(c, i, (uint32_t)st->q[i].pct, (uint32_t)st->q[i].batch, now);
    return;
  }
  run_queue(c, (uint32_t)cookie, now);
}

/* Its own batches: up to max_batch requests (the device holds room for them, as for gslice's). */
static uint32_t batch_limit(const atoll_scenario *s, uint32_t client) {
  (void)client;
  return (uint32_t)s->policy.param[OPT_MAX_BATCH];
}

static bool state_valid(const atoll_core *c) {
  const gpulet_state *st = atoll__policy_state_c(c);
  if (st->n < 0 || st->n > MAX_Q)
    return false;
  for (int64_t q = 0; q < st->n; q++)
    if (st->q[q].pct <= 0 || st->q[q].pct > 100 || st->q[q].batch <= 0)
      return false;
  return true;
}

const atoll_policy_ops atoll__policy_gpulet = {
    .queue_per_client = true,
    .state_size = sizeof(gpulet_state),
    .options = options,
    .n_options = OPT_N,
    .finish_options = finish_options,
    .own_batches = "gpulet decides its batches itself (option max_batch)",
    .batch_limit = batch_limit,
    .setup_queue = setup_queue,
    .init = init,
    .on_queued = run_queue,
    .on_task_done = run_queue,
    .on_timer = on_timer,
    .state_valid = state_valid,
};
