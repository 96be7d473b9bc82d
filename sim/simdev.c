/* The simulated GPU (see simdev.h for the model). */
#include "simdev.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

enum { MAX_CUS = 256, CU_GROUP_TRACKS = 15 };

typedef struct entry {
  atoll_cmd cmd;
  int64_t ready_ns; /* when it reached the DQ (valid for the first dq_count entries) */
} entry;

typedef struct stream {
  uint32_t priority, dq_cap;
  entry *q; /* HQ and DQ as one deque: the first dq_count entries are in the DQ */
  uint32_t head, count, cap, dq_count;
  int64_t transmit_free_ns;
  uint8_t busy;          /* its head is being dispatched or executing */
  /* The executing kernel (the head), when busy and dispatched. */
  const atoll_kernel_timing *kt;
  uint32_t placed, done;
  uint32_t serial;       /* increments per kernel: waves name their kernel by it */
  uint8_t started, rt;
  int64_t start_ns, dispatch_ns;
  int32_t exec_index;
  char name[48];
} stream;

typedef struct wave {
  uint32_t stream, serial, n, gen;
  uint16_t cu_lo, cu_hi; /* CUs touched: [lo, hi] */
  int64_t start_ns;
  uint16_t count[MAX_CUS];
  int32_t next_free;
} wave;

struct atoll_simdev {
  const atoll_scenario *s;
  const atoll_gpu *g;
  atoll_evq *evq;
  atoll_trace *trace;
  atoll_core *core;
  atoll_kernel_timing **timing; /* per model, per op */

  stream *streams;
  uint32_t n_streams, cap_streams;

  /* CP */
  uint8_t cp_busy;
  int32_t cp_last;      /* stream served last, -1 none */
  uint32_t cp_stream;   /* stream being dispatched */
  int64_t cp_wake_ns;   /* a scheduled CP wake-up, INT64_MAX none */

  /* Block dispatcher: streams with unplaced blocks, in dispatch order. */
  uint32_t *pending;
  uint32_t n_pending;
  uint32_t cu_cursor;

  /* CUs */
  uint32_t free_units[MAX_CUS], demand[MAX_CUS], nblocks[MAX_CUS];
  uint32_t res_rt[MAX_CUS], res_be[MAX_CUS];
  int64_t since_any[MAX_CUS], since_rt[MAX_CUS], since_be[MAX_CUS];
  int64_t win0, win1, busy, busy_rt, busy_be;

  /* Copy engines */
  int64_t *engine_free_ns;

  wave *waves;
  uint32_t n_waves, cap_waves;
  int32_t free_wave;

  uint64_t *timers;
  uint32_t n_timers, cap_timers;
};

/* --- helpers --- */

static int64_t now_of(const atoll_simdev *d) { return d->evq->now; }

static void schedule(atoll_simdev *d, int64_t at, atoll_ev_class cls, uint64_t payload) {
  int rc = atoll_evq_push(d->evq, at, cls, payload);
  assert(rc == 0 && "event queue allocation failed");
  (void)rc;
}

static int64_t clip_len(const atoll_simdev *d, int64_t a, int64_t b) {
  if (a < d->win0)
    a = d->win0;
  if (b > d->win1)
    b = d->win1;
  return b > a ? b - a : 0;
}

/* Residency bookkeeping for the CU busy integrals: a CU is busy while any block is resident,
 * RT-busy while an RT block is, BE-busy while a BE block is. */
static void residency(atoll_simdev *d, uint32_t cu, bool rt, int32_t delta, int64_t now) {
  uint32_t before_any = d->res_rt[cu] + d->res_be[cu];
  uint32_t *cls = rt ? &d->res_rt[cu] : &d->res_be[cu];
  int64_t *since = rt ? &d->since_rt[cu] : &d->since_be[cu];
  int64_t *acc = rt ? &d->busy_rt : &d->busy_be;
  uint32_t before = *cls;
  *cls = (uint32_t)((int32_t)*cls + delta);
  if (before == 0 && *cls > 0)
    *since = now;
  else if (before > 0 && *cls == 0)
    *acc += clip_len(d, *since, now);
  uint32_t after_any = d->res_rt[cu] + d->res_be[cu];
  if (before_any == 0 && after_any > 0)
    d->since_any[cu] = now;
  else if (before_any > 0 && after_any == 0)
    d->busy += clip_len(d, d->since_any[cu], now);
}

static entry *head_of(stream *st) { return &st->q[st->head % st->cap]; }

/* Moves commands from the HQ into the DQ while it has room, one transmit step each. */
static void transmit(atoll_simdev *d, stream *st) {
  int64_t now = now_of(d);
  while (st->dq_count < st->dq_cap && st->dq_count < st->count) {
    entry *e = &st->q[(st->head + st->dq_count) % st->cap];
    int64_t from = st->transmit_free_ns > now ? st->transmit_free_ns : now;
    e->ready_ns = from + d->g->costs.hq_transmit_ns;
    st->transmit_free_ns = e->ready_ns;
    st->dq_count++;
  }
}

/* --- command processor --- */

static void cp_kick(atoll_simdev *d);

static bool candidate(const stream *st) { return !st->busy && st->dq_count > 0; }

static void cp_kick(atoll_simdev *d) {
  if (d->cp_busy)
    return;
  int64_t now = now_of(d), next_ready = INT64_MAX;
  int32_t best = -1;
  uint32_t n = d->n_streams;
  /* Highest priority first; among equals, round robin from the stream after the last served. */
  for (uint32_t i = 0; i < n; i++) {
    uint32_t sidx = (uint32_t)((d->cp_last + 1 + (int64_t)i) % n);
    stream *st = &d->streams[sidx];
    if (!candidate(st))
      continue;
    int64_t ready = head_of(st)->ready_ns;
    if (ready > now) {
      if (ready < next_ready)
        next_ready = ready;
      continue;
    }
    if (best < 0 || st->priority > d->streams[best].priority)
      best = (int32_t)sidx;
  }
  if (best < 0) {
    if (next_ready != INT64_MAX && next_ready < d->cp_wake_ns) {
      d->cp_wake_ns = next_ready;
      schedule(d, next_ready, ATOLL_EV_DISPATCH, atoll_simev(ATOLL_SIMEV_CP_WAKE, 0, 0));
    }
    return;
  }
  stream *st = &d->streams[best];
  int64_t cost = d->g->costs.cp_dispatch_ns;
  if (d->cp_last >= 0 && d->cp_last != best)
    cost += d->g->costs.stream_switch_ns;
  st->busy = 1;
  d->cp_busy = 1;
  d->cp_stream = (uint32_t)best;
  st->dispatch_ns = now;
  schedule(d, now + cost, ATOLL_EV_DISPATCH, atoll_simev(ATOLL_SIMEV_CP_DONE, 0, (uint32_t)best));
}

/* --- block placement --- */

static int32_t wave_alloc(atoll_simdev *d) {
  if (d->free_wave >= 0) {
    int32_t w = d->free_wave;
    d->free_wave = d->waves[w].next_free;
    return w;
  }
  if (d->n_waves == d->cap_waves) {
    uint32_t cap = d->cap_waves ? d->cap_waves * 2 : 64;
    wave *nw = realloc(d->waves, cap * sizeof *nw);
    assert(nw && "wave pool allocation failed");
    d->waves = nw;
    d->cap_waves = cap;
  }
  d->waves[d->n_waves].gen = 0;
  return (int32_t)d->n_waves++;
}

static void pending_remove(atoll_simdev *d, uint32_t i) {
  memmove(&d->pending[i], &d->pending[i + 1], (d->n_pending - i - 1) * sizeof *d->pending);
  d->n_pending--;
}

typedef struct open_wave {
  int64_t end;
  int32_t w;
} open_wave;

/* Puts `fit` blocks of stream sidx's kernel on CU cu, grouping blocks that end together into
 * one wave per placement pass. */
static void put_blocks(atoll_simdev *d, uint32_t sidx, uint32_t cu, uint32_t fit, open_wave *open, uint32_t *n_open) {
  stream *st = &d->streams[sidx];
  const atoll_kernel_timing *kt = st->kt;
  int64_t now = now_of(d);
  uint32_t demand = d->demand[cu] + fit * kt->demand;
  int64_t dur = kt->bt1_ns * (demand > ATOLL_DEMAND_ONE ? demand : ATOLL_DEMAND_ONE) / ATOLL_DEMAND_ONE;
  int64_t end = now + dur;
  int32_t w = -1;
  for (uint32_t k = 0; k < *n_open && w < 0; k++)
    if (open[k].end == end)
      w = open[k].w;
  if (w < 0) {
    w = wave_alloc(d);
    wave *nw = &d->waves[w];
    nw->stream = sidx, nw->serial = st->serial, nw->n = 0, nw->start_ns = now;
    nw->cu_lo = (uint16_t)cu, nw->cu_hi = (uint16_t)cu;
    memset(nw->count, 0, sizeof nw->count);
    schedule(d, end, ATOLL_EV_COMPLETE, atoll_simev(ATOLL_SIMEV_WAVE_END, nw->gen, (uint32_t)w));
    if (*n_open < 8)
      open[(*n_open)++] = (open_wave){end, w};
  }
  wave *wv = &d->waves[w];
  wv->count[cu] = (uint16_t)(wv->count[cu] + fit);
  wv->n += fit;
  if (cu < wv->cu_lo)
    wv->cu_lo = (uint16_t)cu;
  if (cu > wv->cu_hi)
    wv->cu_hi = (uint16_t)cu;
  d->free_units[cu] -= fit * kt->block_units;
  d->nblocks[cu] += fit;
  d->demand[cu] = demand;
  residency(d, cu, st->rt, (int32_t)fit, now);
  st->placed += fit;
}

static uint32_t room_on(const atoll_simdev *d, uint32_t cu, const atoll_kernel_timing *kt) {
  uint32_t fit = d->free_units[cu] / kt->block_units;
  uint32_t room = d->g->max_blocks_per_cu - d->nblocks[cu];
  return fit < room ? fit : room;
}

/* Places as many of stream sidx's remaining blocks as fit; returns whether any were placed. The
 * hardware dispatcher deals workgroups out across CUs, so blocks are spread evenly: each CU first
 * gets at most its share, ceil(remaining / CUs), and a second pass fills what is left greedily. */
static bool place_kernel(atoll_simdev *d, uint32_t sidx) {
  stream *st = &d->streams[sidx];
  const atoll_kernel_timing *kt = st->kt;
  uint32_t ncu = d->g->cus, before = st->placed;
  uint32_t share = (kt->blocks - st->placed + ncu - 1) / ncu;
  open_wave open[8];
  uint32_t n_open = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < ncu && st->placed < kt->blocks; i++) {
      uint32_t cu = (d->cu_cursor + i) % ncu;
      uint32_t fit = room_on(d, cu, kt), remaining = kt->blocks - st->placed;
      if (pass == 0 && fit > share)
        fit = share;
      if (fit > remaining)
        fit = remaining;
      if (fit == 0)
        continue;
      put_blocks(d, sidx, cu, fit, open, &n_open);
    }
  }
  d->cu_cursor = (d->cu_cursor + (st->placed - before)) % ncu;
  bool any = st->placed > before;
  if (any && !st->started) {
    int64_t now = now_of(d);
    st->started = 1;
    st->start_ns = now;
    entry *e = head_of(st);
    st->exec_index = (int32_t)e->cmd.op;
    if (d->core)
      atoll_core_on_cmd_started(d->core, sidx, e->cmd.tag, now);
  }
  return any;
}

static void place_blocks(atoll_simdev *d) {
  /* High-priority kernels first, then dispatch order. */
  for (int pass = 1; pass >= 0; pass--) {
    for (uint32_t i = 0; i < d->n_pending;) {
      uint32_t sidx = d->pending[i];
      stream *st = &d->streams[sidx];
      if ((pass == 1) != (st->priority > 0)) {
        i++;
        continue;
      }
      place_kernel(d, sidx);
      if (st->placed == st->kt->blocks)
        pending_remove(d, i);
      else
        i++;
    }
  }
}

/* --- completion --- */

static void trace_kernel(atoll_simdev *d, uint32_t sidx, stream *st, const entry *e, int64_t now) {
  if (!d->trace)
    return;
  const atoll_op *op = &d->s->models[e->cmd.model].model.ops[e->cmd.op];
  char args[160];
  snprintf(args, sizeof args, "\"model\":\"%s\",\"op\":%u,\"blocks\":%u,\"wait_us\":%.3f",
           d->s->models[e->cmd.model].name, e->cmd.op, st->kt ? st->kt->blocks : 0,
           (double)(st->start_ns - st->dispatch_ns) / 1e3);
  const char *name = op->kind == ATOLL_OP_KERNEL ? op->name : atoll_op_kind_name(op->kind);
  atoll_trace_span(d->trace, ATOLL_TRACK_STREAM, sidx, name, e->cmd.rt ? "rt" : "be", st->start_ns,
                   now - st->start_ns, args);
}

static void command_done(atoll_simdev *d, uint32_t sidx, int64_t now) {
  stream *st = &d->streams[sidx];
  entry e = *head_of(st);
  trace_kernel(d, sidx, st, &e, now);
  st->busy = 0;
  st->kt = NULL;
  st->head++;
  st->count--;
  st->dq_count--;
  transmit(d, st);
  if (d->core)
    atoll_core_on_cmd_done(d->core, sidx, e.cmd.tag, now);
  cp_kick(d);
}

static void on_wave_end(atoll_simdev *d, uint32_t w, uint32_t gen, int64_t now) {
  wave *wv = &d->waves[w];
  if (wv->gen != gen)
    return; /* cancelled */
  stream *st = &d->streams[wv->stream];
  const atoll_kernel_timing *kt = st->kt;
  for (uint32_t cu = wv->cu_lo; cu <= wv->cu_hi; cu++) {
    uint32_t c = wv->count[cu];
    if (!c)
      continue;
    d->free_units[cu] += c * kt->block_units;
    d->nblocks[cu] -= c;
    d->demand[cu] -= c * kt->demand;
    residency(d, cu, st->rt, -(int32_t)c, now);
  }
  if (d->trace) {
    char args[64];
    snprintf(args, sizeof args, "\"blocks\":%u,\"stream\":%u", wv->n, wv->stream);
    uint32_t per = (d->g->cus + CU_GROUP_TRACKS - 1) / CU_GROUP_TRACKS;
    for (uint32_t grp = wv->cu_lo / per; grp <= wv->cu_hi / per; grp++)
      atoll_trace_span(d->trace, ATOLL_TRACK_CU, grp, d->streams[wv->stream].name, st->rt ? "rt" : "be",
                       wv->start_ns, now - wv->start_ns, args);
  }
  st->done += wv->n;
  wv->gen = (wv->gen + 1) & 0xFFFFFF;
  wv->next_free = d->free_wave;
  d->free_wave = (int32_t)w;
  if (st->done == kt->blocks)
    command_done(d, wv->stream, now);
  place_blocks(d);
}

static void on_cp_done(atoll_simdev *d, uint32_t sidx, int64_t now) {
  d->cp_busy = 0;
  d->cp_last = (int32_t)sidx;
  stream *st = &d->streams[sidx];
  entry *e = head_of(st);
  const atoll_kernel_timing *kt = d->timing[e->cmd.model] + e->cmd.op;
  st->kt = kt;
  st->placed = st->done = 0;
  st->started = 0;
  st->rt = e->cmd.rt;
  st->serial++;
  if (kt->is_copy) {
    /* The earliest-free copy engine takes it. */
    uint32_t best = 0;
    for (uint32_t i = 1; i < d->g->copy_engines; i++)
      if (d->engine_free_ns[i] < d->engine_free_ns[best])
        best = i;
    int64_t start = d->engine_free_ns[best] > now ? d->engine_free_ns[best] : now;
    d->engine_free_ns[best] = start + kt->copy_ns;
    st->start_ns = start;
    st->started = 1;
    if (d->core)
      atoll_core_on_cmd_started(d->core, sidx, e->cmd.tag, start);
    schedule(d, start + kt->copy_ns, ATOLL_EV_COMPLETE, atoll_simev(ATOLL_SIMEV_COPY_DONE, 0, sidx));
  } else {
    d->pending[d->n_pending++] = sidx;
    place_blocks(d);
  }
  cp_kick(d);
}

void atoll_simdev_handle(atoll_simdev *d, uint64_t p, int64_t now) {
  switch (atoll_simev_type(p)) {
  case ATOLL_SIMEV_WAVE_END:
    on_wave_end(d, atoll_simev_id(p), atoll_simev_gen(p), now);
    break;
  case ATOLL_SIMEV_CP_DONE:
    on_cp_done(d, atoll_simev_id(p), now);
    break;
  case ATOLL_SIMEV_CP_WAKE:
    if (d->cp_wake_ns == now)
      d->cp_wake_ns = INT64_MAX;
    cp_kick(d);
    break;
  case ATOLL_SIMEV_COPY_DONE:
    command_done(d, atoll_simev_id(p), now);
    break;
  case ATOLL_SIMEV_TIMER:
    if (d->core)
      atoll_core_on_timer(d->core, d->timers[atoll_simev_id(p)], now);
    break;
  default:
    assert(0 && "unknown device event");
  }
}

/* --- device interface --- */

static int64_t dev_now(void *ctx) { return now_of(ctx); }

static int dev_create_stream(void *ctx, const atoll_stream_cfg *cfg, uint32_t *id) {
  atoll_simdev *d = ctx;
  if (d->n_streams == d->cap_streams) {
    uint32_t cap = d->cap_streams ? d->cap_streams * 2 : 8;
    stream *ns = realloc(d->streams, cap * sizeof *ns);
    uint32_t *np = realloc(d->pending, cap * sizeof *np);
    if (!ns || !np) {
      if (ns)
        d->streams = ns;
      if (np)
        d->pending = np;
      return ATOLL_ENOMEM;
    }
    d->streams = ns, d->pending = np, d->cap_streams = cap;
  }
  stream *st = &d->streams[d->n_streams];
  memset(st, 0, sizeof *st);
  st->priority = cfg->priority;
  st->dq_cap = cfg->dq_capacity ? cfg->dq_capacity : d->g->dq_capacity;
  st->exec_index = -1;
  snprintf(st->name, sizeof st->name, "%s", cfg->name ? cfg->name : "stream");
  *id = d->n_streams++;
  if (d->trace)
    atoll_trace_name_track(d->trace, ATOLL_TRACK_STREAM, *id, st->name);
  return 0;
}

static int dev_launch(void *ctx, uint32_t sid, const atoll_cmd *cmds, uint32_t n) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  stream *st = &d->streams[sid];
  if (st->count + n > st->cap) {
    uint32_t cap = st->cap ? st->cap : 64;
    while (cap < st->count + n)
      cap *= 2;
    entry *nq = malloc(cap * sizeof *nq);
    if (!nq)
      return ATOLL_ENOMEM;
    for (uint32_t i = 0; i < st->count; i++)
      nq[i] = st->q[(st->head + i) % st->cap];
    free(st->q);
    st->q = nq, st->cap = cap, st->head = 0;
  }
  for (uint32_t i = 0; i < n; i++)
    st->q[(st->head + st->count + i) % st->cap] = (entry){.cmd = cmds[i]};
  st->count += n;
  transmit(d, st);
  cp_kick(d);
  return 0;
}

static int dev_set_timer(void *ctx, int64_t at, uint64_t cookie) {
  atoll_simdev *d = ctx;
  if (d->n_timers == d->cap_timers) {
    uint32_t cap = d->cap_timers ? d->cap_timers * 2 : 16;
    uint64_t *nt = realloc(d->timers, cap * sizeof *nt);
    if (!nt)
      return ATOLL_ENOMEM;
    d->timers = nt, d->cap_timers = cap;
  }
  d->timers[d->n_timers] = cookie;
  schedule(d, at < now_of(d) ? now_of(d) : at, ATOLL_EV_TIMER, atoll_simev(ATOLL_SIMEV_TIMER, 0, d->n_timers++));
  return 0;
}

static int dev_exec_index(void *ctx, uint32_t sid, int32_t *index) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  *index = d->streams[sid].exec_index;
  return 0;
}

static const atoll_device_ops simdev_ops = {
    .now = dev_now,
    .create_stream = dev_create_stream,
    .launch = dev_launch,
    .set_timer = dev_set_timer,
    .exec_index = dev_exec_index,
};

atoll_device atoll_simdev_device(atoll_simdev *d) { return (atoll_device){.ops = &simdev_ops, .ctx = d}; }

void atoll_simdev_attach(atoll_simdev *d, atoll_core *core) { d->core = core; }

const atoll_kernel_timing *atoll_simdev_timing(const atoll_simdev *d, uint32_t model, uint32_t op) {
  return &d->timing[model][op];
}

int atoll_simdev_create(atoll_simdev **out, const atoll_simdev_cfg *cfg) {
  const atoll_scenario *s = cfg->scenario;
  if (s->gpu.cus > MAX_CUS)
    return ATOLL_ENOTSUP;
  atoll_simdev *d = calloc(1, sizeof *d);
  if (!d)
    return ATOLL_ENOMEM;
  d->s = s, d->g = &s->gpu, d->evq = cfg->evq, d->trace = cfg->trace;
  d->cp_last = -1, d->cp_wake_ns = INT64_MAX, d->free_wave = -1;
  d->win0 = cfg->window_start_ns, d->win1 = cfg->window_end_ns;
  d->engine_free_ns = calloc(s->gpu.copy_engines, sizeof *d->engine_free_ns);
  d->timing = calloc(s->n_models, sizeof *d->timing);
  if (!d->engine_free_ns || !d->timing) {
    atoll_simdev_destroy(d);
    return ATOLL_ENOMEM;
  }
  for (uint32_t m = 0; m < s->n_models; m++) {
    const atoll_model *md = &s->models[m].model;
    d->timing[m] = calloc(md->n_ops, sizeof **d->timing);
    if (!d->timing[m]) {
      atoll_simdev_destroy(d);
      return ATOLL_ENOMEM;
    }
    for (uint32_t i = 0; i < md->n_ops; i++)
      atoll_kernel_timing_prepare(&s->gpu, md, i, &d->timing[m][i]);
  }
  for (uint32_t cu = 0; cu < s->gpu.cus; cu++)
    d->free_units[cu] = s->gpu.registers_per_cu;
  if (d->trace) {
    uint32_t per = (s->gpu.cus + CU_GROUP_TRACKS - 1) / CU_GROUP_TRACKS;
    for (uint32_t grp = 0; grp * per < s->gpu.cus; grp++) {
      char name[32];
      uint32_t hi = (grp + 1) * per > s->gpu.cus ? s->gpu.cus : (grp + 1) * per;
      snprintf(name, sizeof name, "CU %u-%u", grp * per, hi - 1);
      atoll_trace_name_track(d->trace, ATOLL_TRACK_CU, grp, name);
    }
  }
  *out = d;
  return 0;
}

void atoll_simdev_finish(atoll_simdev *d, int64_t now, int64_t *busy, int64_t *busy_rt, int64_t *busy_be) {
  for (uint32_t cu = 0; cu < d->g->cus; cu++) {
    if (d->res_rt[cu])
      d->busy_rt += clip_len(d, d->since_rt[cu], now);
    if (d->res_be[cu])
      d->busy_be += clip_len(d, d->since_be[cu], now);
    if (d->res_rt[cu] + d->res_be[cu])
      d->busy += clip_len(d, d->since_any[cu], now);
    d->since_rt[cu] = d->since_be[cu] = d->since_any[cu] = now;
  }
  *busy = d->busy, *busy_rt = d->busy_rt, *busy_be = d->busy_be;
}

void atoll_simdev_destroy(atoll_simdev *d) {
  if (!d)
    return;
  for (uint32_t i = 0; i < d->n_streams; i++)
    free(d->streams[i].q);
  if (d->timing)
    for (uint32_t m = 0; m < d->s->n_models; m++)
      free(d->timing[m]);
  free(d->timing);
  free(d->streams);
  free(d->pending);
  free(d->engine_free_ns);
  free(d->waves);
  free(d->timers);
  free(d);
}
