/* The device-neutral driver of a run (driver.h). */
#include "run/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/policy.h"
#include "run/preempt_path.h"

/* --- the rules --- */

double atoll_run_rate_hz(const atoll_client *c, int64_t standalone_ns) {
  const atoll_arrival *a = &c->arrival;
  if (a->kind != ATOLL_ARRIVAL_UNIFORM && a->kind != ATOLL_ARRIVAL_POISSON)
    return 0;
  return a->rate_hz > 0 ? a->rate_hz : a->load * 1e9 / (double)standalone_ns;
}

double atoll_run_offered_rate_hz(const atoll_client *c, int64_t standalone_ns) {
  const atoll_arrival *a = &c->arrival;
  switch (a->kind) {
  case ATOLL_ARRIVAL_UNIFORM:
  case ATOLL_ARRIVAL_POISSON:
    return standalone_ns > 0 || a->rate_hz > 0 ? atoll_run_rate_hz(c, standalone_ns) : 0;
  case ATOLL_ARRIVAL_TRACE: {
    if (a->n_times == 0)
      return 0;
    int64_t span = a->repeat_ns > 0 ? a->repeat_ns : a->times_ns[a->n_times - 1];
    return span > 0 ? (double)a->n_times * 1e9 / (double)span : 0;
  }
  case ATOLL_ARRIVAL_STEP: {
    /* Its highest step: what an overload warning must weigh. */
    double peak = 0;
    for (uint32_t i = 0; i < a->n_steps; i++)
      peak = a->step_rate_hz[i] > peak ? a->step_rate_hz[i] : peak;
    return peak;
  }
  case ATOLL_ARRIVAL_CLOSED:
    break;
  }
  return 0;
}

double atoll_run_load_of_rate(double rate_hz, int64_t standalone_ns) {
  return rate_hz > 0 && standalone_ns > 0 ? rate_hz * (double)standalone_ns / 1e9 : 0;
}

double atoll_run_offered_load(const atoll_client *c, int64_t standalone_ns) {
  return atoll_run_load_of_rate(atoll_run_offered_rate_hz(c, standalone_ns), standalone_ns);
}

double atoll_run_deadline_ns(const atoll_client *c, int64_t standalone_ns) {
  if (c->deadline_ns > 0)
    return (double)c->deadline_ns;
  if (c->arrival.kind != ATOLL_ARRIVAL_UNIFORM)
    return 0;
  double period = 1e9 / atoll_run_rate_hz(c, standalone_ns);
  /* Not positive: no rate (no standalone latency to turn a load into one); past 4.6e18 ns: a
   * period longer than any run, which would not fit the core's int64 nanoseconds either. */
  return period > 0 && period < 4.6e18 ? period : 0;
}

/* --- arrivals --- */

int atoll_run_arrivals_init(atoll_run_arrivals *a, const atoll_scenario *s, const int64_t *standalone_ns) {
  memset(a, 0, sizeof *a);
  a->gens = calloc(s->n_clients ? s->n_clients : 1, sizeof *a->gens);
  a->deadline_ns = calloc(s->n_clients ? s->n_clients : 1, sizeof *a->deadline_ns);
  if (!a->gens || !a->deadline_ns) {
    atoll_run_arrivals_free(a);
    return ATOLL_ENOMEM;
  }
  a->n = s->n_clients;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    int64_t alone = standalone_ns[cl->model];
    a->deadline_ns[c] = (int64_t)atoll_run_deadline_ns(cl, alone);
    atoll_client_gen_init(&a->gens[c], &cl->arrival, atoll_run_rate_hz(cl, alone), s->seed, c);
  }
  return 0;
}

void atoll_run_arrivals_free(atoll_run_arrivals *a) {
  free(a->gens);
  free(a->deadline_ns);
  a->gens = NULL;
  a->deadline_ns = NULL;
  a->n = 0;
}

int64_t atoll_run_first_arrival(atoll_run_arrivals *a, const atoll_scenario *s, uint32_t c) {
  return s->clients[c].arrival.kind == ATOLL_ARRIVAL_CLOSED ? 0 : atoll_client_gen_next(&a->gens[c]);
}

int64_t atoll_run_next_arrival(atoll_run_arrivals *a, uint32_t c) { return atoll_client_gen_next(&a->gens[c]); }

/* --- results --- */

int atoll_run_results_init(atoll_run_results *res, const atoll_scenario *s, const char *mode) {
  memset(res, 0, sizeof *res);
  res->scenario = s;
  res->mode = mode;
  res->cus = s->gpu.cus;
  res->window_ns = s->duration_ns - s->warmup_ns;
  res->standalone_ns = calloc(s->n_models ? s->n_models : 1, sizeof *res->standalone_ns);
  res->clients = calloc(s->n_clients ? s->n_clients : 1, sizeof *res->clients);
  return res->standalone_ns && res->clients ? 0 : ATOLL_ENOMEM;
}

void atoll_run_results_free(atoll_run_results *res) {
  if (res->clients && res->scenario)
    for (uint32_t c = 0; c < res->scenario->n_clients; c++)
      free(res->clients[c].req);
  free(res->clients);
  free(res->standalone_ns);
  free(res->preemptions);
  free(res->pad_samples);
  free(res->gpu_cu_busy_ns);
  res->gpu_cu_busy_ns = NULL;
  free(res->groups);
  res->groups = NULL;
  res->n_groups = res->cap_groups = 0;
  free(res->shares);
  res->shares = NULL;
  res->n_shares = res->cap_shares = 0;
  free(res->partitions);
  res->partitions = NULL;
  free(res->client_gpu);
  res->client_gpu = NULL;
  res->n_partitions = res->cap_partitions = 0;
  res->clients = NULL;
  res->standalone_ns = NULL;
  res->preemptions = NULL;
  res->pad_samples = NULL;
  res->n_preemptions = res->cap_preemptions = res->n_pad_samples = 0;
}

/* --- the observer that records --- */

void atoll_run_recorder_init(atoll_run_recorder *r, const atoll_scenario *s, atoll_run_results *res,
                             atoll_trace *trace, const atoll_run_device_hooks *dev, void *dev_ctx,
                             const atoll_core_observer *tap, void *tap_ctx) {
  memset(r, 0, sizeof *r);
  r->s = s;
  r->res = res;
  r->dev = dev;
  r->dev_ctx = dev_ctx;
  r->tap = tap;
  r->tap_ctx = tap_ctx;
  r->open_pre = r->last_pre = -1;
  atoll_timeline_init(&r->tl, trace);
}

int atoll_run_record_arrival(atoll_run_recorder *r, uint32_t c, int64_t now, uint64_t *id) {
  atoll_client_records *cr = &r->res->clients[c];
  if (cr->n == cr->cap) {
    uint32_t cap = cr->cap ? cr->cap * 2 : 256;
    atoll_request_record *nr = realloc(cr->req, cap * sizeof *nr);
    if (!nr)
      return ATOLL_ENOMEM;
    cr->req = nr, cr->cap = cap;
  }
  *id = cr->n;
  cr->req[cr->n++] = (atoll_request_record){.id = *id, .arrival_ns = now, .start_ns = -1, .done_ns = -1};
  return 0;
}

/* Forwards an event to the caller's tap, if it wants this one. */
#define TAP(r, fn, ...)                        \
  do {                                         \
    if ((r)->tap && (r)->tap->fn)              \
      (r)->tap->fn((r)->tap_ctx, __VA_ARGS__); \
  } while (0)

static atoll_preemption_record *last_record(atoll_run_recorder *r) {
  return r->last_pre >= 0 ? &r->res->preemptions[r->last_pre] : NULL;
}

/* The RT request of an open preemption started its first kernel: the preemption is over. */
static void close_preemption(atoll_run_recorder *r, int64_t now) {
  atoll_preemption_record *p = &r->res->preemptions[r->open_pre];
  atoll_run_marks m = {0};
  r->dev->take_marks(r->dev_ctx, &m);
  p->latency_ns = now - p->at_ns;
  /* With the device's timestamps, the latency ends at the RT prologue the device recorded (the
   * definition; `now` is when the host learnt of it) and splits into its critical path. */
  if (atoll_preempt_path(p->at_ns, m.dev_flag_ns, m.dev_drain_ns, m.dev_kill_ns, m.dev_rt_start_ns, p->path_ns)) {
    p->latency_ns = m.dev_rt_start_ns - p->at_ns;
    const int64_t *mark[4] = {&m.dev_flag_ns, &m.dev_drain_ns, &m.dev_kill_ns, &m.dev_rt_start_ns};
    int64_t *dst[4] = {&p->dev_flag_ns, &p->dev_drain_ns, &p->dev_kill_ns, &p->dev_rt_start_ns};
    for (int i = 0; i < 4; i++)
      *dst[i] = *mark[i] > 0 ? *mark[i] - p->at_ns : 0;
  }
  p->hq_reset_ns = m.hq_done_ns > p->at_ns ? m.hq_done_ns - p->at_ns : 0;
  p->dq_evict_ns = m.evict_done_ns > p->at_ns ? m.evict_done_ns - p->at_ns : 0;
  p->cu_kill_ns = m.kill_done_ns > p->at_ns ? m.kill_done_ns - p->at_ns : 0;
  p->evicted_kernels = m.evicted;
  p->wasted_gpu_ns += m.killed_gpu_ns - r->killed_charged_ns;
  r->killed_charged_ns = m.killed_gpu_ns;
  atoll_timeline_preemption(&r->tl, p->at_ns, p->latency_ns, p->hq_reset_ns, p->dq_evict_ns, p->cu_kill_ns,
                            p->evicted_kernels);
  r->open_pre = -1;
}

static void on_started(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_started, client, req, now);
  now -= r->base;
  r->res->clients[client].req[req].start_ns = now;
  if (r->open_pre >= 0 && r->s->clients[client].cls == ATOLL_CLASS_RT)
    close_preemption(r, now);
}

/* Makes room for one more record in an array the recorder grows by doubling (first `first`); on
 * failure the run is marked out of memory and false returned. */
static bool room_for_one(atoll_run_recorder *r, void **arr, uint32_t n, uint32_t *cap, uint32_t first, size_t size) {
  if (n < *cap)
    return true;
  uint32_t grown = *cap ? *cap * 2 : first;
  void *p = realloc(*arr, (size_t)grown * size);
  if (!p) {
    r->failed = ATOLL_ENOMEM;
    return false;
  }
  *arr = p, *cap = grown;
  return true;
}

static void on_preemption(void *ctx, uint32_t n_preempted, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, preemption, n_preempted, now);
  if (n_preempted == 0)
    return; /* the GPU had no BE work: nothing was preempted */
  atoll_run_results *res = r->res;
  if (!room_for_one(r, (void **)&res->preemptions, res->n_preemptions, &res->cap_preemptions, 64,
                    sizeof *res->preemptions))
    return;
  /* Timed from the RT request's arrival (this call's time). The call comes after the core issued
   * the preemption's steps, so the device's marks already belong to it; the previous preemption
   * took its own when its RT request started. */
  res->preemptions[res->n_preemptions] = (atoll_preemption_record){.at_ns = now - r->base};
  r->open_pre = r->last_pre = (int32_t)res->n_preemptions++;
}

static void on_task_preempted(void *ctx, uint32_t client, uint64_t req, int32_t interrupted, uint32_t restart,
                              uint32_t done_before, uint32_t launched_before, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, task_preempted, client, req, interrupted, restart, done_before, launched_before, now);
  now -= r->base;
  atoll_timeline_preempt_step(&r->tl, ATOLL_STEP_RESTORE, r->s->clients[client].name, restart, now, now);
  r->preempted_tasks++;
  if (interrupted >= 0 && restart < (uint32_t)interrupted)
    r->group_restores++;
  atoll_preemption_record *p = last_record(r);
  if (!p)
    return;
  p->restored_kernels += launched_before - restart;
  /* Completed ops the restore runs again (a group entry before the interrupted op). */
  for (uint32_t op = restart; op < done_before; op++) {
    int64_t redo = r->dev->redo_ns(r->dev_ctx, client, req, op);
    p->wasted_gpu_ns += redo;
    p->redo_gpu_ns += redo;
  }
}

static void on_task_restored(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, task_restored, client, req, now);
  now -= r->base;
  atoll_timeline_preempt_step(&r->tl, ATOLL_STEP_RESTORE, r->s->clients[client].name, 0,
                              r->resumed_ns < now ? r->resumed_ns : now, now);
  atoll_preemption_record *p = last_record(r);
  if (p && now >= r->resumed_ns)
    p->restore_ns += now - r->resumed_ns;
}

static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_done, client, req, now);
  now -= r->base;
  atoll_request_record *rec = &r->res->clients[client].req[req];
  rec->done_ns = now;
  const atoll_client *cl = &r->s->clients[client];
  atoll_timeline_request(&r->tl, client, cl->name, r->s->models[cl->model].name, cl->cls == ATOLL_CLASS_RT, req,
                         rec->arrival_ns, rec->start_ns, now);
  if (r->dev->done)
    r->dev->done(r->dev_ctx, client, req, now);
}

static void on_dropped(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_dropped, client, req, now);
  atoll_client_records *cr = &r->res->clients[client];
  cr->dropped++;
  /* A dropped request is not a request: its record slot is reused by the next arrival. */
  cr->n--;
  if (r->dev->dropped)
    r->dev->dropped(r->dev_ctx, client, cr->n);
}

/* Shed (the policy gave up on the request) or failed (the device refused one of its launches): it
 * stays a request, never completed, counted here once for every device (docs/report.md,
 * "Outcomes"); the device frees what it holds for it. */
static void on_shed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_shed, client, req, now);
  r->res->clients[client].shed++;
  r->res->clients[client].req[req].shed = 1;
  if (r->dev->ended)
    r->dev->ended(r->dev_ctx, client, req, now - r->base);
}

static void on_failed(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_failed, client, req, now);
  atoll_client_records *cr = &r->res->clients[client];
  cr->req[req].done_ns = -1;
  cr->req[req].failed = ATOLL_RUN_FAILED_LAUNCH;
  if (cr->failed++ == 0)
    snprintf(cr->failure, sizeof cr->failure, "request %llu: the device refused a launch", (unsigned long long)req);
  if (r->dev->ended)
    r->dev->ended(r->dev_ctx, client, req, now - r->base);
}

/* The request ran in a batch of `batch` (told only for batches of more than one). */
static void on_batch(void *ctx, uint32_t client, uint64_t req, uint32_t batch, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, request_batch, client, req, batch, now);
  r->res->clients[client].req[req].batch = batch;
}

/* An operator group ended: kept when it ended inside the window. */
static void on_group_done(void *ctx, uint32_t n_models, int64_t predicted_ns, int64_t start_ns, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, group_done, n_models, predicted_ns, start_ns, now);
  now -= r->base;
  start_ns -= r->base;
  atoll_run_results *res = r->res;
  if (now < r->s->warmup_ns || now > r->s->duration_ns)
    return;
  if (!room_for_one(r, (void **)&res->groups, res->n_groups, &res->cap_groups, 1024, sizeof *res->groups))
    return;
  res->groups[res->n_groups++] =
      (atoll_group_record){.n_models = n_models, .start_ns = start_ns, .end_ns = now, .predicted_ns = predicted_ns};
}

/* A share or batch changed: one point of the shares series, and the timeline's counters. */
static void on_share(void *ctx, uint32_t client, uint32_t pct, uint32_t batch, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, share_changed, client, pct, batch, now);
  now -= r->base;
  now = now < 0 ? 0 : now; /* told before a native run's time origin: its start */
  atoll_run_results *res = r->res;
  if (!room_for_one(r, (void **)&res->shares, res->n_shares, &res->cap_shares, 64, sizeof *res->shares))
    return;
  res->shares[res->n_shares++] = (atoll_share_record){.t_ns = now, .client = client, .pct = pct, .batch = batch};
  atoll_timeline_share(&r->tl, r->s->clients[client].name, pct, batch, now);
}

/* A shadow load, a switch or a refused change of a client's share. */
static void on_partition(void *ctx, uint32_t client, uint32_t step, uint32_t pct, int64_t start_ns, int64_t end_ns) {
  atoll_run_recorder *r = ctx;
  TAP(r, partition_step, client, step, pct, start_ns, end_ns);
  start_ns -= r->base, end_ns -= r->base;
  atoll_run_results *res = r->res;
  if (!room_for_one(r, (void **)&res->partitions, res->n_partitions, &res->cap_partitions, 16,
                    sizeof *res->partitions))
    return;
  res->partitions[res->n_partitions++] =
      (atoll_partition_record){.start_ns = start_ns, .end_ns = end_ns, .client = client, .step = step, .pct = pct};
  atoll_timeline_partition(&r->tl, step, r->s->clients[client].name, pct, start_ns, end_ns);
}

/* Mode switches (normal / real-time) go to the scheduler track of the timeline. */
static void on_mode(void *ctx, uint32_t mode, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, mode_changed, mode, now);
  now -= r->base;
  if (mode == ATOLL_MODE_NORMAL)
    r->resumed_ns = now;
  atoll_timeline_mode(&r->tl, mode == ATOLL_MODE_REALTIME, now);
}

/* dart's overrun enforcement on a device of queues (the simulator's node model counts its own). */
static void on_enforcement(void *ctx, uint32_t client, uint32_t what, int64_t now) {
  atoll_run_recorder *r = ctx;
  TAP(r, enforcement, client, what, now);
  if (what == ATOLL_ENFORCE_DEMOTION)
    r->res->clients[client].demotions++;
  else if (what == ATOLL_ENFORCE_RECOVERY)
    r->res->clients[client].recoveries++;
  static const char *const names[] = {"demotion", "recovery", "alert: not schedulable"};
  if (r->tl.trace && what <= ATOLL_ENFORCE_ALERT)
    atoll_trace_instant(r->tl.trace, ATOLL_TRACK_CLIENT, client, names[what], "dart", now - r->base, NULL);
}

const atoll_core_observer atoll_run_observer = {.request_started = on_started,
                                                .request_done = on_done,
                                                .request_dropped = on_dropped,
                                                .request_shed = on_shed,
                                                .request_failed = on_failed,
                                                .mode_changed = on_mode,
                                                .preemption = on_preemption,
                                                .task_preempted = on_task_preempted,
                                                .task_restored = on_task_restored,
                                                .request_batch = on_batch,
                                                .group_done = on_group_done,
                                                .enforcement = on_enforcement,
                                                .share_changed = on_share,
                                                .partition_step = on_partition};

/* --- the order of a run --- */

/* Appends n records of src to *dst (cap *cap); 0 or ATOLL_ENOMEM. */
static int append(void **dst, uint32_t *n, uint32_t *cap, const void *src, uint32_t add, size_t size) {
  if (add == 0)
    return 0;
  if (*n + add > *cap) {
    void *p = realloc(*dst, (size_t)(*n + add) * size);
    if (!p)
      return ATOLL_ENOMEM;
    *dst = p, *cap = *n + add;
  }
  memcpy((char *)*dst + (size_t)*n * size, src, (size_t)add * size);
  *n += add;
  return 0;
}

/* GPU g's run (part) joins the whole run's results: its clients' records move over, its counts
 * add up, and GPU 0's CU integrals are the whole run's `gpu` figures. */
static int merge_gpu(const atoll_scenario *s, uint32_t g, atoll_run_results *part, atoll_run_results *res) {
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (s->clients[c].gpu != g)
      continue;
    atoll_client_records tmp = res->clients[c];
    res->clients[c] = part->clients[c];
    part->clients[c] = tmp;
  }
  res->gpu_cu_busy_ns[g] = part->cu_busy_ns;
  if (g == 0) {
    res->cu_busy_ns = part->cu_busy_ns, res->cu_busy_rt_ns = part->cu_busy_rt_ns, res->cu_busy_be_ns = part->cu_busy_be_ns;
    res->cu_busy_be_padded_ns = part->cu_busy_be_padded_ns;
  }
  res->events += part->events;
  res->rt_beside_be += part->rt_beside_be;
  res->rt_kernels += part->rt_kernels;
  if (part->verified) {
    res->verified = true;
    res->verify_requests += part->verify_requests;
    res->verify_mismatches += part->verify_mismatches;
  }
  uint32_t cap_pad = res->n_pad_samples;
  int rc0 = append((void **)&res->shares, &res->n_shares, &res->cap_shares, part->shares, part->n_shares,
                   sizeof *part->shares);
  if (rc0 == 0)
    rc0 = append((void **)&res->partitions, &res->n_partitions, &res->cap_partitions, part->partitions,
                 part->n_partitions, sizeof *part->partitions);
  if (rc0)
    return rc0;
  int rc = append((void **)&res->preemptions, &res->n_preemptions, &res->cap_preemptions, part->preemptions,
                  part->n_preemptions, sizeof *part->preemptions);
  if (rc == 0)
    rc = append((void **)&res->pad_samples, &res->n_pad_samples, &cap_pad, part->pad_samples, part->n_pad_samples,
                sizeof *part->pad_samples);
  return rc;
}

/* Several GPUs: the devices share nothing a client's request passes through, so each GPU is run
 * on its own with the scenario's every client, those of other GPUs inactive (run_gpu), and the
 * runs are merged. Client indices, hence arrival seeds, are those of the whole scenario. */
static int drive_gpus(const atoll_scenario *s, const atoll_run_device *d, void *ctx, atoll_run_results *res) {
  uint32_t n = atoll_scenario_gpus(s);
  res->n_gpus = n;
  res->gpu_cu_busy_ns = calloc(n, sizeof *res->gpu_cu_busy_ns);
  if (!res->gpu_cu_busy_ns)
    return ATOLL_ENOMEM;
  atoll_scenario *one = calloc(n, sizeof *one);
  atoll_run_results *part = calloc(n, sizeof *part);
  int rc = one && part ? 0 : ATOLL_ENOMEM;
  for (uint32_t g = 0; g < n && rc == 0; g++) {
    one[g] = *s;
    one[g].run_gpu = g;
    rc = atoll_run_results_init(&part[g], &one[g], d->mode);
    if (rc == 0)
      memcpy(part[g].standalone_ns, res->standalone_ns, s->n_models * sizeof *part[g].standalone_ns);
  }
  if (rc == 0 && d->run_gpus)
    rc = d->run_gpus(ctx, one, part, n);
  for (uint32_t g = 0; g < n && rc == 0 && !d->run_gpus; g++)
    rc = d->run(ctx, &one[g], &part[g]);
  for (uint32_t g = 0; g < n && rc == 0; g++)
    rc = merge_gpu(s, g, &part[g], res);
  for (uint32_t g = 0; part && g < n; g++) {
    part[g].scenario = s; /* its records are the scenario's clients' either way */
    atoll_run_results_free(&part[g]);
  }
  free(part);
  free(one);
  return rc;
}

int atoll_run_drive(const atoll_scenario *s, const int64_t *given_standalone_ns, const atoll_run_device *d,
                    void *ctx, atoll_run_results *res) {
  int rc = atoll_run_results_init(res, s, d->mode);
  for (uint32_t m = 0; rc == 0 && m < s->n_models; m++)
    if (given_standalone_ns)
      res->standalone_ns[m] = given_standalone_ns[m];
    else
      rc = d->standalone_ns(ctx, s, m, &res->standalone_ns[m]);
  /* The policy's own placement (inss): the run uses a copy of the scenario with its clients moved,
   * and the results keep the GPU each one ran on. */
  atoll_client *placed = NULL;
  atoll_scenario moved;
  const atoll_scenario *run_s = s;
  if (rc == 0 && atoll_scenario_gpus(s) > 1) {
    placed = malloc(s->n_clients * sizeof *placed);
    if (!placed)
      rc = ATOLL_ENOMEM;
    else
      memcpy(placed, s->clients, s->n_clients * sizeof *placed);
    if (placed && atoll_policy_place(s, placed)) {
      moved = *s;
      moved.clients = placed;
      run_s = &moved;
      res->client_gpu = malloc(s->n_clients * sizeof *res->client_gpu);
      if (!res->client_gpu)
        rc = ATOLL_ENOMEM;
      for (uint32_t c = 0; rc == 0 && c < s->n_clients; c++)
        res->client_gpu[c] = placed[c].gpu;
    }
  }
  if (rc == 0)
    rc = atoll_scenario_gpus(s) > 1 ? drive_gpus(run_s, d, ctx, res) : d->run(ctx, s, res);
  free(placed);
  if (rc)
    atoll_run_results_free(res);
  return rc;
}
