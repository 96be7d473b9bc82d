#include "sim/run.h"
#include "sim/dart_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "run/driver.h"
#include "sim/evq.h"
#include "sim/knee.h"
#include "core/sched.h"
#include "sim/simdev.h"
#include "sim/snapbuf.h"
#include "sim/state_hash.h"
#include "sim/trace_hooks.h"
#include "core/workload.h"

typedef struct atoll_sim_state runner;
struct atoll_sim_state {
  const atoll_scenario *s;
  atoll_evq evq;
  atoll_simdev *dev;
  atoll_core core;
  void *core_mem;
  atoll_run_arrivals arr;
  atoll_run_results *res;
  atoll_trace *trace;
  atoll_run_recorder rec;   /* records requests and preemptions, draws the timeline (driver.h) */
  atoll_trace_hooks hooks;  /* the device's hooks, drawn on rec.tl */
  size_t core_size;
  int oom;
  const atoll_chooser *chooser; /* NULL: the nominal option everywhere */
};

static void schedule_arrival(runner *r, uint32_t client, int64_t at) {
  if (at < 0 || at >= r->s->duration_ns)
    return;
  /* Choice point (choice.h): an RT request may arrive late by one of the scenario's offsets. A
   * late request never comes before the present (a jitter longer than the period). */
  if (r->s->n_jitter > 1 && r->s->clients[client].cls == ATOLL_CLASS_RT) {
    at += r->s->jitter_ns[atoll_choose(r->chooser, ATOLL_CHOICE_JITTER, r->s->n_jitter)];
    if (at < r->evq.now)
      at = r->evq.now;
    if (at >= r->s->duration_ns)
      return;
  }
  if (atoll_evq_push(&r->evq, at, ATOLL_EV_ARRIVAL, atoll_simev(ATOLL_SIMEV_ARRIVAL, 0, client)))
    r->oom = 1;
}

/* --- what only the simulated device knows (driver.h's device hooks) --- */

static void take_marks(void *ctx, atoll_run_marks *out) {
  runner *r = ctx;
  atoll_simdev_marks m;
  atoll_simdev_take_marks(r->dev, &m);
  uint32_t n_killed;
  *out = (atoll_run_marks){.hq_done_ns = m.hq_done_ns, .evict_done_ns = m.evict_done_ns,
                           .kill_done_ns = m.kill_done_ns, .evicted = m.evicted};
  atoll_simdev_killed(r->dev, &out->killed_gpu_ns, &n_killed);
}

/* The batch request req of client leads (1: none; its riders' tasks say 1). */
static uint32_t batch_of(const runner *r, uint32_t client, uint64_t req) {
  for (uint32_t i = 0; r->s->clients[client].batch_max > 1 && i < r->core.n_tasks; i++) {
    const atoll_task *t = &r->core.tasks[i];
    if (t->in_use && t->client == client && t->req == req)
      return t->batch;
  }
  return 1;
}

/* A completed op run again costs its time alone on the simulated GPU, at the size of the batch
 * that runs it again (the device runs the relaunched op at that size too). */
static int64_t redo_ns(void *ctx, uint32_t client, uint64_t req, uint32_t op) {
  runner *r = ctx;
  uint32_t model = r->s->clients[client].model;
  uint32_t b = batch_of(r, client, req);
  if (b <= 1)
    return atoll_kernel_alone_ns(&r->s->gpu, atoll_simdev_timing(r->dev, model, op));
  atoll_kernel_timing t = *atoll_simdev_timing(r->dev, model, op);
  atoll_kernel_timing_batch(&r->s->gpu, &r->s->models[model].model.ops[op], b, &t);
  return atoll_kernel_alone_ns(&r->s->gpu, &t);
}

/* A request of client left (done, shed or failed): a closed-loop client sends its next one now; a
 * blocking one sends the one it held, at its time on the schedule or now if that has passed. */
static void request_left(runner *r, uint32_t client, int64_t now) {
  atoll_client_gen *g = &r->arr.gens[client];
  if (r->s->clients[client].arrival.kind == ATOLL_ARRIVAL_CLOSED)
    schedule_arrival(r, client, now);
  else if (r->s->clients[client].arrival.blocking && g->in_flight) {
    g->in_flight = false;
    if (g->held_ns >= 0)
      schedule_arrival(r, client, g->held_ns > now ? g->held_ns : now);
  }
}

static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)req;
  request_left(ctx, client, now);
}

/* Shed or failed (run/driver.c). */
static void on_ended(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)req;
  request_left(ctx, client, now);
}

static const atoll_run_device_hooks device_hooks = {
    .take_marks = take_marks, .redo_ns = redo_ns, .done = on_done, .ended = on_ended};

static void on_arrival(runner *r, uint32_t client, int64_t now) {
  uint64_t id;
  if (atoll_run_record_arrival(&r->rec, client, now, &id)) {
    r->oom = 1;
    return;
  }
  atoll_client_gen *g = &r->arr.gens[client];
  if (r->s->clients[client].arrival.blocking) {
    /* Held until this request leaves (request_left); set before the core sees it, which may end it. */
    g->held_ns = atoll_run_next_arrival(&r->arr, client);
    g->in_flight = true;
  }
  atoll_core_on_arrival(&r->core, client, id, now);
  if (r->s->clients[client].arrival.kind != ATOLL_ARRIVAL_CLOSED && !r->s->clients[client].arrival.blocking)
    schedule_arrival(r, client, atoll_run_next_arrival(&r->arr, client));
}

static void runner_free(runner *r) {
  atoll_simdev_destroy(r->dev);
  atoll_evq_free(&r->evq);
  free(r->core_mem);
  atoll_run_arrivals_free(&r->arr);
}

/* Whether an event would do anything when handled (cancelled waves do nothing); its hash in *h
 * unless h is NULL. */
static bool event_live(const runner *r, uint64_t p, uint64_t *h) {
  if (atoll_simev_type(p) == ATOLL_SIMEV_ARRIVAL) {
    if (h)
      *h = atoll__hmix(*h, p);
    return true;
  }
  return atoll_simdev_event_hash(r->dev, p, h);
}

enum { MAX_TIES = 64 };

/* Takes the next event when a chooser decides (choice.h): events due at the same instant in the
 * same class (the event queue's own order between them is only the order they were scheduled in)
 * are a choice; the others go back with their order words, so the next step chooses among them
 * again. Returns false for a cancelled event, which is dropped. */
static bool next_chosen(runner *r, int64_t *t, uint64_t *p) {
  struct atoll_heap_item first, ties[MAX_TIES];
  atoll_evq_pop_item(&r->evq, &first);
  if (!event_live(r, first.value, NULL))
    return false;
  uint32_t n = 0;
  ties[n++] = first;
  struct atoll_heap_item next;
  while (n < MAX_TIES && atoll_evq_peek_item(&r->evq, &next) && next.time == first.time &&
         atoll_evq_class(next.order) == atoll_evq_class(first.order)) {
    atoll_evq_pop_item(&r->evq, &next);
    if (event_live(r, next.value, NULL))
      ties[n++] = next;
  }
  uint32_t k = atoll_choose(r->chooser, ATOLL_CHOICE_TIE, n);
  for (uint32_t i = 0; i < n; i++)
    if (i != k && atoll_evq_unpop(&r->evq, &ties[i]))
      r->oom = 1;
  *t = ties[k].time;
  *p = ties[k].value;
  return true;
}

/* --- the explorer's view (run.h) --- */

typedef struct ev_key {
  int64_t time;
  uint64_t cls, h;
} ev_key;

static int ev_key_cmp(const void *a, const void *b) {
  const ev_key *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  if (x->cls != y->cls)
    return x->cls < y->cls ? -1 : 1;
  return x->h < y->h ? -1 : x->h > y->h;
}

static uint64_t record_hash(uint64_t h, const atoll_request_record *q) {
  h = atoll__hmix(h, (uint64_t)q->arrival_ns);
  h = atoll__hmix(h, (uint64_t)q->start_ns);
  return atoll__hmix(h, (uint64_t)q->done_ns);
}

int atoll_sim_state_hash(const atoll_sim_state *r, atoll_sim_hash_past past, uint64_t *out) {
  int64_t now = r->evq.now;
  uint64_t h = atoll__hmix(0, (uint64_t)now);
  h = atoll__hmix(h, atoll_core_hash(&r->core));
  int rc = atoll_simdev_hash(r->dev, past == ATOLL_HASH_WITH_RECORDS, &h);
  if (rc)
    return rc;
  /* Pending events as a multiset: cancelled ones are left out, slot numbers replaced by what the
   * event is. */
  uint32_t n = atoll_evq_count(&r->evq), m = 0;
  ev_key local[64];
  ev_key *keys = n <= 64 ? local : malloc(n * sizeof *keys);
  if (!keys)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    const struct atoll_heap_item *it = atoll_evq_at(&r->evq, i);
    uint64_t eh = 0;
    if (event_live(r, it->value, &eh))
      keys[m++] = (ev_key){it->time, atoll_evq_class(it->order), eh};
  }
  qsort(keys, m, sizeof *keys, ev_key_cmp);
  h = atoll__hmix(h, m);
  for (uint32_t i = 0; i < m; i++)
    h = atoll__hmix(atoll__hmix(atoll__hmix(h, (uint64_t)keys[i].time), keys[i].cls), keys[i].h);
  if (keys != local)
    free(keys);
  const atoll_scenario *s = r->s;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client_gen *g = &r->arr.gens[c];
    for (int i = 0; i < 4; i++)
      h = atoll__hmix(h, g->rng.s[i]);
    h = atoll__hmix(atoll__hmix(h, g->emitted), (uint64_t)g->last_ns);
    if (s->clients[c].arrival.blocking)
      h = atoll__hmix(atoll__hmix(h, (uint64_t)g->held_ns), g->in_flight);
    const atoll_client_records *cr = &r->res->clients[c];
    h = atoll__hmix(atoll__hmix(h, cr->n), cr->dropped);
    if (cr->shed || cr->failed) /* only when some were: states without them keep their hashes */
      h = atoll__hmix(h, ((uint64_t)cr->shed << 32) | cr->failed);
    for (uint32_t i = 0; i < cr->n; i++)
      if (past == ATOLL_HASH_WITH_RECORDS || cr->req[i].done_ns < 0)
        h = record_hash(atoll__hmix(h, i), &cr->req[i]);
  }
  /* The preemption being measured, and with the past its records and the time charged to them. */
  h = atoll__hmix(h, r->rec.open_pre >= 0 ? (uint64_t)r->res->preemptions[r->rec.open_pre].at_ns : UINT64_MAX);
  if (past == ATOLL_HASH_WITH_RECORDS) {
    h = atoll__hmix(h, (uint64_t)r->rec.resumed_ns);
    const atoll_run_results *res = r->res;
    h = atoll__hmix(h, res->n_preemptions);
    h = atoll__hmix(h, (uint64_t)r->rec.killed_charged_ns);
    int64_t killed;
    uint32_t n_killed;
    atoll_simdev_killed(r->dev, &killed, &n_killed);
    h = atoll__hmix(h, (uint64_t)killed);
    for (uint32_t i = 0; i < res->n_preemptions; i++) {
      const atoll_preemption_record *q = &res->preemptions[i];
      h = atoll__hmix(h, (uint64_t)q->at_ns);
      h = atoll__hmix(h, (uint64_t)q->latency_ns);
      h = atoll__hmix(h, (uint64_t)q->hq_reset_ns ^ ((uint64_t)q->dq_evict_ns << 1) ^ ((uint64_t)q->cu_kill_ns << 2));
      h = atoll__hmix(h, ((uint64_t)q->restored_kernels << 32) | q->evicted_kernels);
      h = atoll__hmix(h, (uint64_t)q->wasted_gpu_ns);
      h = atoll__hmix(h, (uint64_t)q->restore_ns);
    }
  }
  *out = h;
  return 0;
}

const atoll_run_results *atoll_sim_state_results(const atoll_sim_state *st) { return st->res; }

int64_t atoll_sim_state_now(const atoll_sim_state *st) { return st->evq.now; }

uint64_t atoll_sim_state_events(const atoll_sim_state *st) { return st->evq.processed; }

bool atoll_sim_state_client_idle(const atoll_sim_state *st, uint32_t c) {
  const atoll_client_records *cr = &st->res->clients[c];
  for (uint32_t i = 0; i < cr->n; i++)
    if (cr->req[i].done_ns < 0)
      return false;
  /* The next arrival of a client is always in the queue once it is known (closed-loop clients
   * schedule theirs when a request completes). */
  uint64_t arrival = atoll_simev(ATOLL_SIMEV_ARRIVAL, 0, c);
  for (uint32_t i = 0; i < atoll_evq_count(&st->evq); i++)
    if (atoll_evq_at(&st->evq, i)->value == arrival)
      return false;
  return true;
}

/* Sets r up for a run of s into res (standalone latencies already known, res->standalone_ns): the
 * queue, the device, the core. Frees what it made on failure. */
static int runner_setup(runner *r, const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res) {
  atoll_trace *trace = opts ? opts->trace : NULL;
  *r = (runner){.s = s, .res = res, .trace = trace, .chooser = opts ? opts->chooser : NULL};
  int rc = atoll_run_arrivals_init(&r->arr, s, res->standalone_ns);
  if (rc == 0)
    rc = atoll_evq_init(&r->evq, 4096);
  atoll_run_recorder_init(&r->rec, s, res, trace, &device_hooks, r, opts ? opts->tap : NULL,
                          opts ? opts->tap_ctx : NULL);
  atoll_trace_hooks_init(&r->hooks, &r->rec.tl, s);
  atoll_simdev_cfg dcfg = {.scenario = s, .timing_gpu = opts ? opts->timing_gpu : NULL, .evq = &r->evq, .trace = trace, .hooks = trace ? &r->hooks.hooks : NULL,
                           .window_start_ns = s->warmup_ns, .window_end_ns = s->duration_ns,
                           .chooser = r->chooser, .shape_memo = opts ? opts->shape_memo : NULL};
  if (rc == 0)
    rc = atoll_simdev_create(&r->dev, &dcfg);
  size_t size = rc == 0 ? atoll_core_size(s, opts ? opts->core_limits : NULL) : 0;
  if (rc == 0 && size == 0)
    rc = ATOLL_ENOTSUP;
  if (rc == 0 && !(r->core_mem = malloc(size)))
    rc = ATOLL_ENOMEM;
  r->core_size = size;
  if (rc == 0)
    rc = atoll_core_init(&r->core, r->core_mem, size, s, atoll_simdev_device(r->dev), &atoll_run_observer, &r->rec,
                         opts ? opts->core_limits : NULL, r->arr.deadline_ns);
  if (rc) {
    runner_free(r);
    return rc;
  }
  atoll_simdev_attach(r->dev, &r->core);
  if (trace)
    atoll_trace_name_track(trace, ATOLL_TRACK_SCHED, 0, atoll_policy_name(s->policy.kind));
  return 0;
}

/* Schedules the clients' first arrivals: the run's first choices (an RT arrival's jitter). */
static void runner_begin(runner *r) {
  for (uint32_t c = 0; c < r->s->n_clients; c++)
    if (atoll_core_client_active(&r->core, c))
      schedule_arrival(r, c, atoll_run_first_arrival(&r->arr, r->s, c));
}

/* Takes events until the run's end, the boundary callback's stop, or a failure. */
static void runner_loop(runner *r, const atoll_sim_opts *opts) {
  const atoll_scenario *s = r->s;
  int64_t t;
  uint64_t p;
  void (*progress)(void *, int64_t, int64_t) = opts ? opts->progress : NULL;
  uint32_t since_progress = 0;
  bool (*boundary)(void *, atoll_sim_state *) = opts ? opts->boundary : NULL;
  bool changed = true; /* whether the state changed since the boundary last saw it */
  if (!boundary && !r->chooser) {
    /* A plain run, no explorer: one look at the queue per event. */
    while (!r->oom && !r->rec.failed && atoll_evq_pop_before(&r->evq, s->duration_ns, &t, &p)) {
      if (progress && ++since_progress == 4096) {
        since_progress = 0;
        progress(opts->progress_ctx, t, s->duration_ns);
      }
      if (atoll_simev_type(p) == ATOLL_SIMEV_ARRIVAL)
        on_arrival(r, atoll_simev_id(p), t);
      else
        atoll_simdev_handle(r->dev, p, t);
    }
    return;
  }
  while (!r->oom && !r->rec.failed && atoll_evq_peek_time(&r->evq, &t) && t < s->duration_ns) {
    if (progress && ++since_progress == 4096) {
      since_progress = 0;
      progress(opts->progress_ctx, t, s->duration_ns);
    }
    if (boundary && changed && !boundary(opts->boundary_ctx, r))
      break;
    changed = true;
    if (r->chooser) {
      /* A cancelled event is dropped, and the state is the one the boundary just saw, whose hash
       * leaves such events out: seeing it again only with a later clock would make a state of its
       * own of it, one that a state of equal hash without the cancelled event never has, so the
       * states counted would depend on which of the two the search reached first. */
      if (!next_chosen(r, &t, &p)) {
        changed = false;
        continue;
      }
    } else {
      atoll_evq_pop(&r->evq, &t, &p);
    }
    if (atoll_simev_type(p) == ATOLL_SIMEV_ARRIVAL)
      on_arrival(r, atoll_simev_id(p), t);
    else
      atoll_simdev_handle(r->dev, p, t);
  }
}

/* Closes the run's books into its results. */
static int runner_finish(runner *r) {
  const atoll_scenario *s = r->s;
  atoll_run_results *res = r->res;
  atoll_simdev_finish(r->dev, s->duration_ns, &res->cu_busy_ns, &res->cu_busy_rt_ns, &res->cu_busy_be_ns);
  atoll_timeline_finish(&r->rec.tl, s->duration_ns);
  res->rt_beside_be = atoll_simdev_rt_beside_be(r->dev);
  atoll_simdev_padding_stats pad;
  atoll_simdev_padding(r->dev, &pad);
  res->cu_busy_be_padded_ns = pad.busy_padded_ns;
  res->rt_kernels = pad.rt_kernels;
  if (pad.n_samples && (res->pad_samples = malloc(pad.n_samples * sizeof *pad.samples)) != NULL) {
    memcpy(res->pad_samples, pad.samples, pad.n_samples * sizeof *pad.samples);
    res->n_pad_samples = pad.n_samples;
  } else if (pad.n_samples) {
    r->oom = 1;
  }
  res->events = r->evq.processed;
  return r->oom || r->rec.failed ? ATOLL_ENOMEM : 0;
}

/* Runs s with standalone latencies already known (res->standalone_ns). */
static int run_with(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res) {
  runner r;
  int rc = runner_setup(&r, s, opts, res);
  if (rc)
    return rc;
  runner_begin(&r);
  runner_loop(&r, opts);
  rc = runner_finish(&r);
  runner_free(&r);
  return rc;
}

/* --- the explorer's runner and checkpoints (run.h) --- */

struct atoll_sim_snapshot {
  atoll_snapbuf buf;  /* the queue, the device, the recorder, the arrivals, the results */
  atoll_core core;    /* the core, copied whole into storage of its own */
  void *core_mem;
  size_t core_size;
  uint64_t events;    /* events taken before the save */
};

atoll_sim_snapshot *atoll_sim_snapshot_new(void) { return calloc(1, sizeof(atoll_sim_snapshot)); }

void atoll_sim_snapshot_free(atoll_sim_snapshot *sn) {
  if (!sn)
    return;
  atoll_snapbuf_free(&sn->buf);
  free(sn->core_mem);
  free(sn);
}

uint64_t atoll_sim_snapshot_events(const atoll_sim_snapshot *sn) { return sn->events; }

/* The results' records, without what only the end of a run fills (pad_samples). */
static void results_save(const atoll_run_results *res, uint32_t n_clients, atoll_snapbuf *b) {
  atoll_snapbuf_put(b, res, sizeof *res);
  atoll_snapbuf_put(b, res->clients, n_clients * sizeof *res->clients);
  for (uint32_t c = 0; c < n_clients; c++)
    atoll_snapbuf_put(b, res->clients[c].req, res->clients[c].n * sizeof *res->clients[c].req);
  atoll_snapbuf_put(b, res->preemptions, res->n_preemptions * sizeof *res->preemptions);
  atoll_snapbuf_put(b, res->groups, res->n_groups * sizeof *res->groups);
  atoll_snapbuf_put(b, res->shares, res->n_shares * sizeof *res->shares);
  atoll_snapbuf_put(b, res->partitions, res->n_partitions * sizeof *res->partitions);
}

/* Refills one record array the run grows (driver.c's room_for_one) from the snapshot: the live
 * array is kept, grown if the snapshot holds more, since the snapshot's pointer may have been
 * freed by a realloc since the save. */
static int records_restore(atoll_snapbuf *b, void **arr, uint32_t *cap, uint32_t n, size_t size) {
  int rc = atoll_snapbuf_room_for(arr, cap, n, size);
  if (rc == 0)
    atoll_snapbuf_get(b, *arr, n * size);
  return rc;
}

static int results_restore(atoll_run_results *res, uint32_t n_clients, atoll_snapbuf *b) {
  atoll_run_results keep = *res;
  free(keep.pad_samples); /* the last run's, filled at its end */
  atoll_snapbuf_get(b, res, sizeof *res);
  res->scenario = keep.scenario, res->mode = keep.mode, res->standalone_ns = keep.standalone_ns;
  res->clients = keep.clients, res->gpu_cu_busy_ns = keep.gpu_cu_busy_ns;
  res->preemptions = keep.preemptions, res->cap_preemptions = keep.cap_preemptions;
  res->groups = keep.groups, res->cap_groups = keep.cap_groups;
  res->shares = keep.shares, res->cap_shares = keep.cap_shares;
  res->partitions = keep.partitions, res->cap_partitions = keep.cap_partitions;
  res->client_gpu = keep.client_gpu; /* set before the run starts and unchanged by it */
  res->pad_samples = NULL, res->n_pad_samples = 0;
  int rc = 0;
  for (uint32_t c = 0; c < n_clients; c++) {
    atoll_client_records *cr = &res->clients[c];
    atoll_request_record *req = cr->req;
    uint32_t cap = cr->cap;
    atoll_snapbuf_get(b, cr, sizeof *cr);
    cr->req = req, cr->cap = cap;
  }
  for (uint32_t c = 0; c < n_clients && rc == 0; c++) {
    atoll_client_records *cr = &res->clients[c];
    rc = records_restore(b, (void **)&cr->req, &cr->cap, cr->n, sizeof *cr->req);
  }
  if (rc == 0)
    rc = records_restore(b, (void **)&res->preemptions, &res->cap_preemptions, res->n_preemptions,
                         sizeof *res->preemptions);
  if (rc == 0)
    rc = records_restore(b, (void **)&res->groups, &res->cap_groups, res->n_groups, sizeof *res->groups);
  if (rc == 0)
    rc = records_restore(b, (void **)&res->shares, &res->cap_shares, res->n_shares, sizeof *res->shares);
  if (rc == 0)
    rc = records_restore(b, (void **)&res->partitions, &res->cap_partitions, res->n_partitions,
                         sizeof *res->partitions);
  return rc;
}

int atoll_sim_state_save(const atoll_sim_state *r, atoll_sim_snapshot *sn) {
  if (sn->core_size < r->core_size) {
    void *m = realloc(sn->core_mem, r->core_size);
    if (!m)
      return ATOLL_ENOMEM;
    sn->core_mem = m, sn->core_size = r->core_size;
  }
  int rc = atoll_core_copy(&sn->core, sn->core_mem, sn->core_size, &r->core);
  if (rc)
    return rc;
  atoll_snapbuf *b = &sn->buf;
  atoll_snapbuf_clear(b);
  atoll_evq_save(&r->evq, b);
  if ((rc = atoll_simdev_save(r->dev, b)))
    return rc;
  atoll_snapbuf_put(b, &r->rec, sizeof r->rec);
  atoll_snapbuf_put(b, r->arr.gens, r->s->n_clients * sizeof *r->arr.gens);
  atoll_snapbuf_put(b, &r->oom, sizeof r->oom);
  results_save(r->res, r->s->n_clients, b);
  sn->events = r->evq.processed;
  return b->oom ? ATOLL_ENOMEM : 0;
}

static int state_restore(runner *r, atoll_sim_snapshot *sn) {
  int rc = atoll_core_copy(&r->core, r->core_mem, r->core_size, &sn->core);
  atoll_snapbuf *b = &sn->buf;
  b->at = 0;
  if (rc == 0)
    rc = atoll_evq_restore(&r->evq, b);
  if (rc == 0)
    rc = atoll_simdev_restore(r->dev, b);
  if (rc == 0) {
    atoll_snapbuf_get(b, &r->rec, sizeof r->rec);
    atoll_snapbuf_get(b, r->arr.gens, r->s->n_clients * sizeof *r->arr.gens);
    atoll_snapbuf_get(b, &r->oom, sizeof r->oom);
    rc = results_restore(r->res, r->s->n_clients, b);
  }
  return rc;
}

/* The runner: a run set up once, whose state is the start snapshot's or another's before each run. */
struct atoll_sim_runner {
  runner r;
  atoll_run_results res;
  const atoll_sim_opts *opts;
  atoll_sim_snapshot *start; /* the state before the first arrivals are scheduled */
};

void atoll_sim_runner_destroy(atoll_sim_runner *sr) {
  if (!sr)
    return;
  runner_free(&sr->r);
  atoll_run_results_free(&sr->res);
  atoll_sim_snapshot_free(sr->start);
  free(sr);
}

int atoll_sim_runner_create(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_sim_runner **out) {
  *out = NULL;
  /* One GPU's run on the blocks engine, whose state can be saved; no timeline (it is drawn as the
   * run goes and cannot be taken back). */
  if (!opts || !opts->standalone_ns || opts->trace || atoll_dart_policy(s->policy.kind) || atoll_scenario_gpus(s) > 1 ||
      s->engine != ATOLL_ENGINE_BLOCKS)
    return ATOLL_ENOTSUP;
  atoll_sim_runner *sr = calloc(1, sizeof *sr);
  if (!sr)
    return ATOLL_ENOMEM;
  sr->opts = opts;
  int rc = atoll_run_results_init(&sr->res, s, "sim");
  if (rc) {
    atoll_run_results_free(&sr->res);
    free(sr);
    return rc;
  }
  memcpy(sr->res.standalone_ns, opts->standalone_ns, s->n_models * sizeof *sr->res.standalone_ns);
  if ((rc = runner_setup(&sr->r, s, opts, &sr->res))) {
    atoll_run_results_free(&sr->res);
    free(sr);
    return rc;
  }
  sr->start = atoll_sim_snapshot_new();
  rc = sr->start ? atoll_sim_state_save(&sr->r, sr->start) : ATOLL_ENOMEM;
  if (rc) {
    atoll_sim_runner_destroy(sr);
    return rc;
  }
  *out = sr;
  return 0;
}

int atoll_sim_runner_run(atoll_sim_runner *sr, atoll_sim_snapshot *from, const atoll_run_results **res) {
  int rc = state_restore(&sr->r, from ? from : sr->start);
  if (rc)
    return rc;
  if (!from)
    runner_begin(&sr->r);
  runner_loop(&sr->r, sr->opts);
  rc = runner_finish(&sr->r);
  *res = &sr->res;
  return rc;
}

int atoll_sim_standalone_ns(const atoll_scenario *s, uint32_t model, int64_t *out) {
  /* One RT request at time 0 on an otherwise idle GPU, through the rt-only policy. */
  static const int64_t at_zero[1] = {0};
  atoll_client one = {.name = "standalone", .model = model, .cls = ATOLL_CLASS_RT,
                      .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = at_zero, .n_times = 1}};
  atoll_scenario alone = *s;
  alone.clients = &one;
  alone.n_clients = 1;
  alone.policy = (atoll_policy_cfg){.kind = ATOLL_POLICY_RT_ONLY};
  alone.gpu_count = 1, alone.run_gpu = 0; /* one GPU, whichever the scenario has */
  alone.warmup_ns = 0;
  alone.duration_ns = INT64_MAX / 4;
  alone.n_expects = 0;
  atoll_run_results res;
  int rc = atoll_run_results_init(&res, &alone, "sim");
  if (rc == 0)
    rc = run_with(&alone, NULL, &res);
  if (rc == 0 && (res.clients[0].n != 1 || res.clients[0].req[0].done_ns < 0))
    rc = ATOLL_EINVAL;
  if (rc == 0)
    *out = res.clients[0].req[0].done_ns;
  atoll_run_results_free(&res);
  return rc;
}

/* The simulated device as the driver sees it (driver.h). */
static int device_standalone(void *ctx, const atoll_scenario *s, uint32_t m, int64_t *out) {
  (void)ctx;
  return atoll_sim_standalone_ns(s, m, out);
}

static int device_run(void *ctx, const atoll_scenario *s, atoll_run_results *res) {
  const atoll_sim_opts *const *opts = ctx;
  /* Several GPUs run one after another (run/driver.c), each drawn on the trace as processes of
   * its own. */
  atoll_trace *trace = *opts ? (*opts)->trace : NULL;
  if (trace && atoll_scenario_gpus(s) > 1) {
    atoll_trace_set_gpu(trace, s->run_gpu, 1);
    int rc = run_with(s, *opts, res);
    atoll_trace_set_gpu(trace, 0, 0);
    return rc;
  }
  return run_with(s, *opts, res);
}

static const atoll_run_device sim_device = {.mode = "sim", .standalone_ns = device_standalone, .run = device_run};

int atoll_sim_gslice_clients(const atoll_scenario *s, atoll_client **out) {
  *out = NULL;
  if (s->policy.kind != ATOLL_POLICY_GSLICE || atoll_dart_policy(s->policy.kind) ||
      (s->engine == ATOLL_ENGINE_RATE && atoll_sim_rate_lacks(s)))
    return 0;
  atoll_client *clients = malloc((s->n_clients ? s->n_clients : 1) * sizeof *clients);
  if (!clients)
    return ATOLL_ENOMEM;
  memcpy(clients, s->clients, s->n_clients * sizeof *clients);
  int rc = atoll_sim_gslice_start(s, clients);
  if (rc)
    free(clients);
  else
    *out = clients;
  return rc;
}

int atoll_sim_run(const atoll_scenario *s, const atoll_sim_opts *opts, atoll_run_results *res) {
  /* DART's policies run on nodes, in their own model. */
  if (atoll_dart_policy(s->policy.kind))
    return atoll_dart_sim_run(s, opts ? opts->trace : NULL, res);
  if (s->engine == ATOLL_ENGINE_RATE && atoll_sim_rate_lacks(s))
    return ATOLL_ENOTSUP;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* gslice starts every unbound client at its model's knee (sim/knee.h). */
  atoll_scenario started;
  const atoll_scenario *given = s;
  atoll_client *clients = NULL;
  int krc = opts && opts->gslice_started ? 0 : atoll_sim_gslice_clients(s, &clients);
  if (krc)
    return krc;
  if (clients) {
    started = *s;
    started.clients = clients;
    s = &started;
  }
  int rc = atoll_run_drive(s, opts ? opts->standalone_ns : NULL, &sim_device, &opts, res);
  /* The results name the caller's scenario: the copy lives only here, and differs in the CUs. */
  if (clients && rc == 0)
    res->scenario = given;
  free(clients);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  return rc;
}
