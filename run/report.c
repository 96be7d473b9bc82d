/* The run report: statistics over a run's raw results, the `expect:` verdicts, and the table,
 * JSON and CSV writers.
 *
 * Everything here is a pure function of the results, so two identical runs give byte-identical
 * JSON: values are accumulated in a fixed order (clients by index, requests in arrival order),
 * ties for a maximum go to the first request seen, and numbers are printed by one formatter that
 * neither depends on pointers nor prints "nan" or "inf". A statistic over no samples is NaN in
 * memory and null in JSON. */
#include "run/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "atoll/memory.h"
#include "run/driver.h"
#include "io/json_out.h"

/* ---- Statistics ---------------------------------------------------------------------------- */

/* The samples of one statistic while they are collected, and which sample is the maximum. */
typedef struct sample_set {
  double *v;
  uint32_t n;
  double sum;
  double max;
  int32_t max_client;
  uint64_t max_request;
  int64_t max_arrival_ns;
} sample_set;

static sample_set set_over(double *storage) { return (sample_set){.v = storage, .max_client = -1}; }

/* Strictly greater, so that among equal maxima the first request seen (lowest client index, then
 * earliest arrival) is the one reported. */
static void set_add(sample_set *s, double v, int32_t client, uint64_t request, int64_t arrival_ns) {
  if (s->n == 0 || v > s->max) {
    s->max = v;
    s->max_client = client;
    s->max_request = request;
    s->max_arrival_ns = arrival_ns;
  }
  s->v[s->n++] = v;
  s->sum += v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Nearest rank: the ceil(p/100 * n)-th smallest. Integer arithmetic, because 0.99 * 100 is not
 * exactly 99 in binary floating point and a rounding slip would move the rank by one. */
static double nearest_rank(const double *sorted, uint32_t n, uint32_t percent) {
  uint64_t rank = ((uint64_t)percent * n + 99) / 100;
  if (rank < 1)
    rank = 1;
  return sorted[rank - 1];
}

static void stats_empty(atoll_stats *out) {
  *out = (atoll_stats){.n = 0, .mean = NAN, .p50 = NAN, .p95 = NAN, .p99 = NAN, .max = NAN, .max_client = -1};
}

/* Sorts the samples in place and fills out. */
static void stats_finish(sample_set *s, atoll_stats *out) {
  if (s->n == 0) {
    stats_empty(out);
    return;
  }
  qsort(s->v, s->n, sizeof s->v[0], cmp_double);
  out->n = s->n;
  out->mean = s->sum / s->n;
  out->p50 = nearest_rank(s->v, s->n, 50);
  out->p95 = nearest_rank(s->v, s->n, 95);
  out->p99 = nearest_rank(s->v, s->n, 99);
  out->max = s->max;
  out->max_client = s->max_client;
  out->max_request = s->max_request;
  out->max_arrival_ns = s->max_arrival_ns;
}

/* ---- Per-client figures -------------------------------------------------------------------- */

static int64_t standalone_ns(const atoll_run_results *res, uint32_t model) {
  return res->standalone_ns ? res->standalone_ns[model] : 0;
}

/* The client's relative deadline in ns (driver.h's rule: explicit, or a uniform client's period).
 * False if none. */
static bool client_deadline(const atoll_run_results *res, uint32_t c, double *deadline_ns) {
  const atoll_client *cl = &res->scenario->clients[c];
  *deadline_ns = atoll_run_deadline_ns(cl, standalone_ns(res, cl->model));
  return *deadline_ns > 0;
}

/* Where one client's latency samples and unfinished waits go: its own and, for an RT client, the
 * pooled ones. The lower-bound sets (low_*) take both: completed latencies and unfinished waits,
 * so that their n less the completed sets' is the number unfinished. */
typedef struct client_sinks {
  sample_set *lat, *norm, *rt_lat, *rt_norm;
  sample_set *low_lat, *low_norm, *rt_low_lat, *rt_low_norm;
} client_sinks;

/* One latency (or wait) into a set and, for an RT client, its pooled set. */
static void add_pair(sample_set *own, sample_set *pooled, double v, uint32_t c, const atoll_request_record *q) {
  set_add(own, v, (int32_t)c, q->id, q->arrival_ns);
  if (pooled)
    set_add(pooled, v, (int32_t)c, q->id, q->arrival_ns);
}

static void add_completed(const atoll_run_results *res, uint32_t c, const atoll_request_record *q,
                          const client_sinks *k) {
  int64_t lat_ns = q->done_ns - q->arrival_ns;
  double lat_us = (double)lat_ns / 1000.0;
  add_pair(k->lat, k->rt_lat, lat_us, c, q);
  add_pair(k->low_lat, k->rt_low_lat, lat_us, c, q);
  int64_t alone = standalone_ns(res, res->scenario->clients[c].model);
  if (alone <= 0)
    return; /* no reference latency: normalized figures stay undefined */
  double norm = (double)lat_ns / (double)alone;
  add_pair(k->norm, k->rt_norm, norm, c, q);
  add_pair(k->low_norm, k->rt_low_norm, norm, c, q);
}

/* A request of the window still unfinished at the end: its wait so far, as add_completed's latency. */
static void add_unfinished(const atoll_run_results *res, uint32_t c, const atoll_request_record *q, int64_t end,
                           const client_sinks *k) {
  int64_t wait_ns = end > q->arrival_ns ? end - q->arrival_ns : 0;
  double wait_us = (double)wait_ns / 1000.0;
  add_pair(k->low_lat, k->rt_low_lat, wait_us, c, q);
  int64_t alone = standalone_ns(res, res->scenario->clients[c].model);
  if (alone <= 0)
    return;
  double norm = (double)wait_ns / (double)alone;
  add_pair(k->low_norm, k->rt_low_norm, norm, c, q);
}

/* Counts, deadline misses and latency samples of client c over its requests that arrived at or
 * after warmup. An uncompleted request misses once its deadline has passed by the end of the run. */
static void client_collect(const atoll_run_results *res, uint32_t c, const client_sinks *k,
                           atoll_client_report *cr) {
  const atoll_client_records *recs = &res->clients[c];
  int64_t warmup = res->scenario->warmup_ns, end = warmup + res->window_ns;
  double deadline = 0;
  bool has_deadline = client_deadline(res, c, &deadline);
  cr->dropped = recs->dropped;
  cr->shed = recs->shed;
  cr->failed = recs->failed;
  cr->demotions = recs->demotions;
  cr->recoveries = recs->recoveries;
  cr->failure = recs->failed ? recs->failure : NULL;
  cr->refusal = recs->refusal[0] ? recs->refusal : NULL;
  double runs = 0; /* each request of a batch of b is 1/b of a model run */
  for (uint32_t i = 0; i < recs->n; i++) {
    const atoll_request_record *q = &recs->req[i];
    if (q->arrival_ns < warmup)
      continue;
    cr->requests++;
    if (q->done_ns < 0 && (q->shed || q->failed))
      cr->lost++;
    if (q->done_ns >= 0) {
      uint32_t b = q->batch > 1 ? q->batch : 1;
      runs += 1.0 / b;
      cr->batch_max = b > cr->batch_max ? b : cr->batch_max;
      cr->completed++;
      add_completed(res, c, q, k);
      if (has_deadline && (double)(q->done_ns - q->arrival_ns) > deadline)
        cr->deadline_misses++;
      else
        cr->completed_in_deadline++;
    } else {
      bool missed = has_deadline && (double)(end - q->arrival_ns) >= deadline;
      cr->deadline_misses += missed;
      if (!q->shed && !q->failed) { /* still waiting: shed and failed ones are lost, above */
        cr->overdue += missed;
        add_unfinished(res, c, q, end, k);
      }
    }
  }
  cr->batch_mean = runs > 0 ? cr->completed / runs : NAN;
}

static void client_throughput(const atoll_run_results *res, uint32_t c, atoll_client_report *cr) {
  int64_t alone = standalone_ns(res, res->scenario->clients[c].model);
  cr->throughput_rps = res->window_ns > 0 ? cr->completed / ((double)res->window_ns / 1e9) : NAN;
  cr->norm_throughput = alone > 0 ? cr->throughput_rps * (double)alone / 1e9 : NAN;
  cr->goodput_rps = res->window_ns > 0 ? cr->completed_in_deadline / ((double)res->window_ns / 1e9) : NAN;
  /* A request still waiting past its deadline at the end counts as the late one it will be: left
   * out, a client whose queue grows without bound would look better the less it completes. */
  cr->qos_violations = (cr->completed - cr->completed_in_deadline) + cr->lost + cr->overdue + cr->dropped;
  uint32_t offered = cr->requests + cr->dropped;
  cr->violation_ratio = offered ? (double)cr->qos_violations / offered : NAN;
}

/* The groups' count, rate and the predictor's error on them. */
static int groups_compute(const atoll_run_results *res, atoll_report *r) {
  uint32_t n = res->n_groups;
  r->groups = n;
  /* No groups: no error to state (a bound on it holds, as over any statistic of nothing); it was
   * a 0 that a bound such as "predictor.mape >= 0.5" was judged on. */
  r->predictor_mape = r->predictor_p99_abs_err_us = NAN;
  if (n == 0)
    return ATOLL_OK;
  double *abs_us = malloc(n * sizeof *abs_us);
  if (!abs_us)
    return ATOLL_ENOMEM;
  double rel = 0;
  for (uint32_t i = 0; i < n; i++) {
    const atoll_group_record *g = &res->groups[i];
    double measured = (double)(g->end_ns - g->start_ns), err = fabs((double)g->predicted_ns - measured);
    rel += measured > 0 ? err / measured : 0;
    abs_us[i] = err / 1000.0;
  }
  qsort(abs_us, n, sizeof *abs_us, cmp_double);
  r->predictor_mape = rel / n;
  r->predictor_p99_abs_err_us = nearest_rank(abs_us, n, 99);
  r->groups_per_s = res->window_ns > 0 ? n / ((double)res->window_ns / 1e9) : NAN;
  free(abs_us);
  return ATOLL_OK;
}

/* ---- Preemptions and the GPU ----------------------------------------------------------------- */

/* The maximum preemption latency has no client: max_client stays -1, max_request is the index of
 * the preemption record and max_arrival_ns the RT arrival that caused it. Like requests, only
 * preemptions at or after the warm-up count, and only those that ended (their RT request started
 * before the run ended). */
static void preemptions_compute(const atoll_run_results *res, double *storage, atoll_report *r) {
  sample_set lat = set_over(storage);
  int64_t hq = 0, dq = 0, cu = 0, wasted = 0, restore = 0, path[4] = {0, 0, 0, 0};
  uint32_t n = 0, n_path = 0;
  r->restored_kernels = 0;
  for (uint32_t i = 0; i < res->n_preemptions; i++) {
    const atoll_preemption_record *p = &res->preemptions[i];
    if (p->at_ns < res->scenario->warmup_ns || p->latency_ns <= 0)
      continue;
    n++;
    set_add(&lat, (double)p->latency_ns / 1000.0, -1, i, p->at_ns);
    hq += p->hq_reset_ns;
    if (p->path_ns[0] + p->path_ns[1] + p->path_ns[2] + p->path_ns[3] > 0) {
      n_path++;
      for (int k = 0; k < 4; k++)
        path[k] += p->path_ns[k];
    }
    dq += p->dq_evict_ns;
    cu += p->cu_kill_ns;
    wasted += p->wasted_gpu_ns;
    restore += p->restore_ns;
    r->restored_kernels += p->restored_kernels;
  }
  stats_finish(&lat, &r->preemption_latency_us);
  r->preemption_count = n;
  r->breakdown_us[0] = n ? (double)hq / 1000.0 / n : NAN;
  r->breakdown_us[1] = n ? (double)dq / 1000.0 / n : NAN;
  r->breakdown_us[2] = n ? (double)cu / 1000.0 / n : NAN;
  r->path_count = n_path;
  for (int k = 0; k < 4; k++)
    r->path_us[k] = n_path ? (double)path[k] / 1000.0 / n_path : NAN;
  r->wasted_gpu_us = (double)wasted / 1000.0;
  r->restore_us = (double)restore / 1000.0;
}

/* Overhead of the RT kernels that ran padded: each padded launch's time less the RT kernel's time
 * alone, and a CDF as the percentiles every 5%. */
static int padding_compute(const atoll_run_results *res, atoll_report *r) {
  uint32_t n = res->n_pad_samples;
  r->rt_kernels = res->rt_kernels;
  r->rt_kernels_padded = n;
  double *buf = malloc((2 * (size_t)n + 1) * sizeof *buf);
  if (!buf)
    return ATOLL_ENOMEM;
  sample_set us = set_over(buf), pct = set_over(buf + n);
  for (uint32_t i = 0; i < n; i++) {
    const atoll_pad_sample *p = &res->pad_samples[i];
    double over = (double)(p->launch_ns - p->alone_ns);
    set_add(&us, over / 1000.0, -1, i, 0);
    set_add(&pct, p->alone_ns > 0 ? 100.0 * over / (double)p->alone_ns : NAN, -1, i, 0);
  }
  stats_finish(&us, &r->rt_overhead_us);
  stats_finish(&pct, &r->rt_overhead_pct);
  for (uint32_t i = 0; i <= 20; i++)
    r->rt_overhead_cdf_us[i] = n ? nearest_rank(us.v, n, 5 * i) : NAN;
  free(buf);
  return ATOLL_OK;
}

static double busy_frac(const atoll_run_results *res, int64_t busy_ns) {
  double cu_time = (double)res->cus * (double)res->window_ns;
  return cu_time > 0 ? (double)busy_ns / cu_time : NAN;
}

/* ---- Field lookup --------------------------------------------------------------------------- */

/* What a report field resolves to. empty: the value is undefined because there was nothing to
 * measure (no counted requests, no preemptions), as opposed to undefined although there was. */
typedef struct field_ref {
  double value;
  const atoll_stats *stats; /* for a statistic: the set it came from */
  bool empty;
  /* For a latency statistic: the statistics with the unfinished requests counted at their waits
   * (lower bounds on the statistics over every request), and the one looked up of them; else NULL
   * and NaN. */
  const atoll_stats *lower_stats;
  double lower;
} field_ref;

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Looks up one statistic of s; lower: s with the unfinished waits counted (verdict_compute), NULL
 * for statistics other than latencies. */
static int stat_ref(const atoll_stats *s, const char *stat, bool population_empty, const atoll_stats *lower,
                    field_ref *ref) {
  static const char *const names[] = {"mean", "p50", "p95", "p99", "max"};
  const atoll_stats *lo = lower;
  const double values[] = {s->mean, s->p50, s->p95, s->p99, s->max};
  const double lowers[] = {lo ? lo->mean : NAN, lo ? lo->p50 : NAN, lo ? lo->p95 : NAN, lo ? lo->p99 : NAN,
                           lo ? lo->max : NAN};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(stat, names[i]) == 0) {
      *ref = (field_ref){values[i], s, population_empty && s->n == 0, lower, lowers[i]};
      return ATOLL_OK;
    }
  }
  return ATOLL_ENOENT;
}

/* One named scalar of a lookup table. */
typedef struct named_value {
  const char *name;
  double value;
  bool empty;
} named_value;

static int scalar_ref(const named_value *table, size_t n, const char *name, field_ref *ref) {
  for (size_t i = 0; i < n; i++) {
    if (strcmp(name, table[i].name) == 0) {
      *ref = (field_ref){table[i].value, NULL, table[i].empty && isnan(table[i].value), NULL, NAN};
      return ATOLL_OK;
    }
  }
  return ATOLL_ENOENT;
}

static int client_ref(const atoll_client_report *cr, const char *rest, field_ref *ref) {
  if (starts_with(rest, "latency_us."))
    return stat_ref(&cr->latency_us, rest + strlen("latency_us."), cr->requests == 0,
                    &cr->latency_lower_us, ref);
  if (starts_with(rest, "norm_latency."))
    return stat_ref(&cr->norm_latency, rest + strlen("norm_latency."), cr->requests == 0,
                    &cr->norm_latency_lower, ref);
  const named_value table[] = {
      {"requests", cr->requests, false},          {"completed", cr->completed, false},
      {"dropped", cr->dropped, false},            {"deadline_misses", cr->deadline_misses, false},
      {"throughput_rps", cr->throughput_rps, false}, {"norm_throughput", cr->norm_throughput, false},
      {"shed", cr->shed, false},                  {"failed", cr->failed, false},
      {"demotions", cr->demotions, false},        {"recoveries", cr->recoveries, false},
      {"goodput_rps", cr->goodput_rps, false},
      /* Empty (a bound holds) only with nothing to measure: a client with requests and no model
       * run, or none offered, is not that (batch.mean held; violation_ratio failed as "n/a"). */
      {"batch.mean", cr->batch_mean, cr->requests == 0},
      {"batch.max", cr->batch_max, false},
      {"qos_violations", cr->qos_violations, false},
      {"violation_ratio", cr->violation_ratio, cr->requests + cr->dropped == 0},
  };
  return scalar_ref(table, sizeof table / sizeof table[0], rest, ref);
}

static uint32_t rt_requests(const atoll_report *r) {
  const atoll_scenario *s = r->res->scenario;
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (s->clients[c].cls == ATOLL_CLASS_RT)
      n += r->clients[c].requests;
  return n;
}

static int rt_ref(const atoll_report *r, const char *rest, field_ref *ref) {
  bool empty = rt_requests(r) == 0;
  if (starts_with(rest, "latency_us."))
    return stat_ref(&r->rt_latency_us, rest + strlen("latency_us."), empty,
                    &r->rt_latency_lower_us, ref);
  if (starts_with(rest, "norm_latency."))
    return stat_ref(&r->rt_norm_latency, rest + strlen("norm_latency."), empty,
                    &r->rt_norm_latency_lower, ref);
  return ATOLL_ENOENT;
}

static int preemption_ref(const atoll_report *r, const char *rest, field_ref *ref) {
  bool none = r->preemption_count == 0;
  if (starts_with(rest, "latency_us."))
    return stat_ref(&r->preemption_latency_us, rest + strlen("latency_us."), none, NULL, ref);
  const named_value table[] = {
      {"count", r->preemption_count, false},
      {"restored_kernels", (double)r->restored_kernels, false},
      {"wasted_gpu_us", r->wasted_gpu_us, false},
      {"restore_us", r->restore_us, false},
      {"breakdown_us.hq_reset", r->breakdown_us[0], none},
      {"breakdown_us.dq_evict", r->breakdown_us[1], none},
      {"breakdown_us.cu_kill", r->breakdown_us[2], none},
  };
  return scalar_ref(table, sizeof table / sizeof table[0], rest, ref);
}

static int gpu_ref(const atoll_report *r, const char *rest, field_ref *ref) {
  const named_value table[] = {
      {"cu_busy_frac", r->cu_busy_frac, false},
      {"cu_busy_frac_rt", r->cu_busy_frac_rt, false},
      {"cu_busy_frac_be", r->cu_busy_frac_be, false},
      {"cu_busy_frac_be_padded", r->cu_busy_frac_be_padded, false},
  };
  return scalar_ref(table, sizeof table / sizeof table[0], rest, ref);
}

/* The client named by the segment after "clients.", or -1. */
static int32_t field_client(const atoll_scenario *s, const char *field) {
  if (!starts_with(field, "clients."))
    return -1;
  const char *name = field + strlen("clients.");
  size_t len = strcspn(name, ".");
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (strlen(s->clients[c].name) == len && memcmp(s->clients[c].name, name, len) == 0)
      return (int32_t)c;
  return -1;
}

/* Whether atoll_expect_field_check accepts field (naming client `name`, or none). The last few
 * fields accepted are remembered per thread, by their text and the client's name: the explorer
 * reads the same fields from every schedule's report, and checking the grammar each time was a
 * tenth of its work. */
enum { ACCEPTED = 8 };
static bool field_accepted(const char *field, const char *name) {
  static _Thread_local struct {
    char field[96], name[64];
    bool named;
  } seen[ACCEPTED];
  static _Thread_local uint32_t n_seen, next;
  const char *nm = name ? name : "";
  for (uint32_t i = 0; i < n_seen; i++)
    if (seen[i].named == (name != NULL) && strcmp(field, seen[i].field) == 0 && strcmp(nm, seen[i].name) == 0)
      return true;
  const char *const names[1] = {name};
  atoll_expect_error err;
  if (atoll_expect_field_check(field, names, name ? 1 : 0, &err) != ATOLL_OK)
    return false;
  size_t fl = strlen(field), nl = strlen(nm);
  if (fl < sizeof seen[0].field && nl < sizeof seen[0].name) {
    memcpy(seen[next].field, field, fl + 1);
    memcpy(seen[next].name, nm, nl + 1);
    seen[next].named = name != NULL;
    next = (next + 1) % ACCEPTED;
    if (n_seen < ACCEPTED)
      n_seen++;
  }
  return true;
}

/* The grammar itself is checked by atoll_expect_field_check, so the loader and the report accept
 * exactly the same fields; only the one client the field names is passed, which is all the
 * check needs. The per-section lookups then only pick the value. */
static int field_resolve(const atoll_report *r, const char *field, field_ref *ref) {
  const atoll_scenario *s = r->res->scenario;
  int32_t c = field_client(s, field);
  const char *const names[1] = {c >= 0 ? s->clients[c].name : NULL};
  if (!field_accepted(field, names[0]))
    return ATOLL_ENOENT;
  if (strcmp(field, "total_norm_throughput") == 0) {
    *ref = (field_ref){r->total_norm_throughput, NULL, false, NULL, NAN};
    return ATOLL_OK;
  }
  if (c >= 0)
    return client_ref(&r->clients[c], field + strlen("clients.") + strlen(names[0]) + 1, ref);
  if (starts_with(field, "rt."))
    return rt_ref(r, field + strlen("rt."), ref);
  if (starts_with(field, "preemptions."))
    return preemption_ref(r, field + strlen("preemptions."), ref);
  if (starts_with(field, "gpu."))
    return gpu_ref(r, field + strlen("gpu."), ref);
  if (starts_with(field, "predictor.")) {
    const named_value table[] = {{"groups", r->groups, false},
                                 {"groups_per_s", r->groups_per_s, false},
                                 {"mape", r->predictor_mape, r->groups == 0},
                                 {"p99_abs_err_us", r->predictor_p99_abs_err_us, r->groups == 0}};
    return scalar_ref(table, sizeof table / sizeof table[0], field + strlen("predictor."), ref);
  }
  return ATOLL_ENOENT;
}

int atoll_report_field(const atoll_report *r, const char *field, double *value) {
  field_ref ref;
  int rc = field_resolve(r, field, &ref);
  if (rc == ATOLL_OK)
    *value = ref.value;
  return rc;
}

/* ---- Verdicts ------------------------------------------------------------------------------- */

/* A bound over an undefined value holds only vacuously: when there was nothing to measure (a
 * preemption bound in a run without preemptions). A latency bound over a client that had
 * requests but completed none fails, since starvation must not pass as "within bounds". */
static void verdict_compute(const atoll_report *r, const atoll_expect *e, atoll_expect_verdict *v) {
  *v = (atoll_expect_verdict){.value = NAN, .margin = NAN, .client = -1};
  field_ref ref;
  if (!e->field || field_resolve(r, e->field, &ref) != ATOLL_OK)
    return;
  v->value = ref.value;
  if (isnan(ref.value))
    v->holds = ref.empty;
  else
    v->holds = atoll_expect_holds(e->cmp, e->value, ref.value, &v->margin) != 0;
  if (ref.stats && ref.stats->n > 0 && ends_with(e->field, ".max")) {
    v->has_request = true;
    v->client = ref.stats->max_client;
    v->request = ref.stats->max_request;
    v->arrival_ns = ref.stats->max_arrival_ns;
    /* A request unfinished at the end has a latency of at least its wait: where that wait is
     * longer, the max is at least the wait, and the bound is judged on it (an RT request stuck
     * behind a long kernel when the run ends must not pass a bound it has already broken). Where
     * nothing completed the verdict stays the starvation failure above. The lower-bound set's
     * max is then an unfinished request's, the first of the longest waits (set_add). */
    const atoll_stats *lo = ref.lower_stats;
    if (lo && lo->n > ref.stats->n && lo->max > ref.value) {
      v->value = lo->max;
      v->holds = atoll_expect_holds(e->cmp, e->value, lo->max, &v->margin) != 0;
      v->client = lo->max_client;
      v->request = lo->max_request;
      v->arrival_ns = lo->max_arrival_ns;
      v->unfinished = true;
    }
  } else if (!isnan(ref.value) && ref.lower_stats && ref.lower_stats->n > ref.stats->n && ref.lower > ref.value) {
    /* The same for a mean or percentile: counting each unfinished request at its wait so far
     * gives a lower bound on the statistic over every request of the window (a percentile only
     * rises as any sample rises), and where that is larger the bound is judged on it. */
    v->value = ref.lower;
    v->holds = atoll_expect_holds(e->cmp, e->value, ref.lower, &v->margin) != 0;
    v->lower_bound = true;
  }
}

/* ---- Compute -------------------------------------------------------------------------------- */

/* Sample storage for the whole computation: one client's two sets (also reused for the
 * preemption latencies) and the two RT pools. */
typedef struct scratch {
  double *buf;
  double *lat, *norm, *rt_lat, *rt_norm;
  double *low_lat, *low_norm, *rt_low_lat, *rt_low_norm; /* with the unfinished waits */
} scratch;

static int scratch_alloc(const atoll_run_results *res, scratch *sc) {
  const atoll_scenario *s = res->scenario;
  size_t per_client = res->n_preemptions, rt = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (res->clients[c].n > per_client)
      per_client = res->clients[c].n;
    if (s->clients[c].cls == ATOLL_CLASS_RT)
      rt += res->clients[c].n;
  }
  sc->buf = malloc((4 * per_client + 4 * rt + 1) * sizeof(double));
  if (!sc->buf)
    return ATOLL_ENOMEM;
  sc->lat = sc->buf;
  sc->norm = sc->lat + per_client;
  sc->low_lat = sc->norm + per_client;
  sc->low_norm = sc->low_lat + per_client;
  sc->rt_lat = sc->low_norm + per_client;
  sc->rt_norm = sc->rt_lat + rt;
  sc->rt_low_lat = sc->rt_norm + rt;
  sc->rt_low_norm = sc->rt_low_lat + rt;
  return ATOLL_OK;
}

static void clients_compute(const atoll_run_results *res, const scratch *sc, atoll_report *r) {
  const atoll_scenario *s = res->scenario;
  sample_set rt_lat = set_over(sc->rt_lat), rt_norm = set_over(sc->rt_norm);
  sample_set rt_low_lat = set_over(sc->rt_low_lat), rt_low_norm = set_over(sc->rt_low_norm);
  r->total_norm_throughput = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    sample_set lat = set_over(sc->lat), norm = set_over(sc->norm);
    sample_set low_lat = set_over(sc->low_lat), low_norm = set_over(sc->low_norm);
    bool rt = s->clients[c].cls == ATOLL_CLASS_RT;
    atoll_client_report *cr = &r->clients[c];
    client_sinks k = {&lat,
                      &norm,
                      rt ? &rt_lat : NULL,
                      rt ? &rt_norm : NULL,
                      &low_lat,
                      &low_norm,
                      rt ? &rt_low_lat : NULL,
                      rt ? &rt_low_norm : NULL};
    client_collect(res, c, &k, cr);
    stats_finish(&lat, &cr->latency_us);
    stats_finish(&norm, &cr->norm_latency);
    stats_finish(&low_lat, &cr->latency_lower_us);
    stats_finish(&low_norm, &cr->norm_latency_lower);
    client_throughput(res, c, cr);
    cr->gue = cr->completed > 0 && cr->latency_us.mean > 0 ? cr->throughput_rps / (cr->latency_us.mean / 1e3) : NAN;
    /* A client without a reference latency has no normalized throughput to add. */
    if (!isnan(cr->norm_throughput))
      r->total_norm_throughput += cr->norm_throughput;
  }
  stats_finish(&rt_lat, &r->rt_latency_us);
  stats_finish(&rt_norm, &r->rt_norm_latency);
  stats_finish(&rt_low_lat, &r->rt_latency_lower_us);
  stats_finish(&rt_low_norm, &r->rt_norm_latency_lower);
}

/* Each GPU's busy fraction (GPU 0's is cu_busy_frac) and the memory its clients need. */
static int gpus_compute(const atoll_run_results *res, atoll_report *out) {
  const atoll_scenario *s = res->scenario;
  out->n_gpus = atoll_scenario_gpus(s);
  out->gpu_busy_frac = calloc(out->n_gpus, sizeof *out->gpu_busy_frac);
  out->gpu_memory_mb = calloc(out->n_gpus, sizeof *out->gpu_memory_mb);
  if (!out->gpu_busy_frac || !out->gpu_memory_mb)
    return ATOLL_ENOMEM;
  for (uint32_t g = 0; g < out->n_gpus; g++) {
    int64_t busy = g < res->n_gpus && res->gpu_cu_busy_ns ? res->gpu_cu_busy_ns[g] : g == 0 ? res->cu_busy_ns : 0;
    out->gpu_busy_frac[g] = busy_frac(res, busy);
    atoll_gpu_memory mem = {0};
    atoll_scenario_gpu_memory(s, g, &mem);
    out->gpu_memory_mb[g] = mem.used_mb;
  }
  return ATOLL_OK;
}

int atoll_report_compute(const atoll_run_results *res, atoll_report *out) {
  if (!res || !res->scenario || !out)
    return ATOLL_EINVAL;
  const atoll_scenario *s = res->scenario;
  *out = (atoll_report){.res = res};
  out->clients = calloc(s->n_clients ? s->n_clients : 1, sizeof *out->clients);
  out->verdicts = calloc(s->n_expects ? s->n_expects : 1, sizeof *out->verdicts);
  scratch sc = {0};
  if (!out->clients || !out->verdicts || scratch_alloc(res, &sc) != ATOLL_OK) {
    atoll_report_free(out);
    return ATOLL_ENOMEM;
  }
  clients_compute(res, &sc, out);
  preemptions_compute(res, sc.lat, out);
  free(sc.buf);
  if (padding_compute(res, out) != ATOLL_OK || groups_compute(res, out) != ATOLL_OK) {
    atoll_report_free(out);
    return ATOLL_ENOMEM;
  }
  out->cu_busy_frac = busy_frac(res, res->cu_busy_ns);
  out->cu_busy_frac_rt = busy_frac(res, res->cu_busy_rt_ns);
  out->cu_busy_frac_be = busy_frac(res, res->cu_busy_be_ns);
  out->cu_busy_frac_be_padded = busy_frac(res, res->cu_busy_be_padded_ns);
  if (gpus_compute(res, out) != ATOLL_OK) {
    atoll_report_free(out);
    return ATOLL_ENOMEM;
  }
  out->all_hold = true;
  for (uint32_t e = 0; e < s->n_expects; e++) {
    verdict_compute(out, &s->expects[e], &out->verdicts[e]);
    out->all_hold = out->all_hold && out->verdicts[e].holds;
  }
  return ATOLL_OK;
}

void atoll_report_free(atoll_report *r) {
  if (!r)
    return;
  free(r->clients);
  free(r->verdicts);
  free(r->gpu_busy_frac);
  free(r->gpu_memory_mb);
  r->gpu_busy_frac = r->gpu_memory_mb = NULL;
  r->clients = NULL;
  r->verdicts = NULL;
}

/* ---- Number formatting ---------------------------------------------------------------------- */

/* The shortest of %.15g, %.16g and %.17g that reads back as the same double, so that JSON and CSV
 * values round-trip exactly without the noise digits %.17g alone would add. Empty for NaN and
 * infinities, which the callers write as null or an empty cell. The program never calls
 * setlocale, so the decimal point is always '.'. */
static const char *fmt_number(char buf[32], double v) {
  if (!isfinite(v)) {
    buf[0] = '\0';
    return buf;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, 32, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      break;
  }
  return buf;
}

/* Decimal places in v's shortest round-trip form (fmt_number); -1 when it needs an exponent. */
static int decimals(double v) {
  char buf[32];
  fmt_number(buf, v);
  if (strchr(buf, 'e') || strchr(buf, 'E'))
    return -1;
  const char *dot = strchr(buf, '.');
  return dot ? (int)strlen(dot + 1) : 0;
}

/* A difference d = a - b (or b - a) for people: rounded to the decimals a and b have, and to the
 * 15 significant digits a double holds (DBL_DIG), so 3.58 - 6 prints -2.42, not the
 * -2.4200000000000017 of binary arithmetic; the shortest round-trip form of d when that is no
 * longer (or an operand needs an exponent). */
static const char *fmt_difference(char buf[32], double d, double a, double b) {
  fmt_number(buf, d);
  int da = decimals(a), db = decimals(b);
  if (!isfinite(d) || da < 0 || db < 0)
    return buf;
  int places = da > db ? da : db;
  if (d != 0) {
    int sig = 15 - 1 - (int)floor(log10(fabs(d))); /* the decimals of 15 significant digits */
    places = places < sig ? places : sig;
  }
  char r[64];
  snprintf(r, sizeof r, "%.*f", places < 0 ? 0 : places, d);
  if (strchr(r, '.')) { /* trailing zeros carry nothing */
    size_t n = strlen(r);
    while (r[n - 1] == '0')
      r[--n] = '\0';
    if (r[n - 1] == '.')
      r[--n] = '\0';
  }
  if (strcmp(r, "-0") == 0)
    strcpy(r, "0");
  if (strlen(r) < strlen(buf))
    strcpy(buf, r);
  return buf;
}

static const char *class_name(atoll_client_class c) { return c == ATOLL_CLASS_RT ? "rt" : "be"; }

static const char *expect_text(const atoll_expect *e, char *buf, size_t size) {
  if (e->text)
    return e->text;
  char num[32];
  snprintf(buf, size, "%s %s %s", e->field ? e->field : "?", atoll_cmp_text(e->cmp), fmt_number(num, e->value));
  return buf;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 8

/* A small streaming JSON writer: containers either break their members onto indented lines or,
 * when inline (short leaf objects such as a set of statistics), keep them on one line. */
typedef struct json_writer {
  FILE *f;
  int depth;
  bool fresh[JSON_MAX_DEPTH];  /* no member written yet at this depth */
  bool inline_[JSON_MAX_DEPTH];
  bool failed;
} json_writer;

static void jw_raw(json_writer *w, const char *s) {
  if (fputs(s, w->f) == EOF)
    w->failed = true;
}

static void jw_escaped(json_writer *w, const char *s) {
  if (atoll_json_write_string(w->f, s) == EOF)
    w->failed = true;
}

static void jw_newline(json_writer *w, int depth) {
  jw_raw(w, "\n");
  for (int i = 0; i < depth; i++)
    jw_raw(w, "  ");
}

/* Separator and key before a member; key is NULL inside arrays. */
static void jw_member(json_writer *w, const char *key) {
  if (w->depth > 0) {
    if (!w->fresh[w->depth])
      jw_raw(w, w->inline_[w->depth] ? ", " : ",");
    if (!w->inline_[w->depth])
      jw_newline(w, w->depth);
    w->fresh[w->depth] = false;
  }
  if (key) {
    jw_escaped(w, key);
    jw_raw(w, ": ");
  }
}

static void jw_open(json_writer *w, const char *key, const char *brace, bool inline_) {
  jw_member(w, key);
  jw_raw(w, brace);
  bool outer_inline = w->depth > 0 && w->inline_[w->depth];
  w->depth++;
  w->fresh[w->depth] = true;
  w->inline_[w->depth] = inline_ || outer_inline;
}

static void jw_close(json_writer *w, const char *brace) {
  if (!w->fresh[w->depth] && !w->inline_[w->depth])
    jw_newline(w, w->depth - 1);
  w->depth--;
  jw_raw(w, brace);
}

static void jw_num(json_writer *w, const char *key, double v) {
  char buf[32];
  jw_member(w, key);
  jw_raw(w, isfinite(v) ? fmt_number(buf, v) : "null");
}

static void jw_uint(json_writer *w, const char *key, uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%" PRIu64, v);
  jw_member(w, key);
  jw_raw(w, buf);
}

static void jw_str(json_writer *w, const char *key, const char *s) {
  jw_member(w, key);
  if (s)
    jw_escaped(w, s);
  else
    jw_raw(w, "null");
}

static void jw_bool(json_writer *w, const char *key, bool b) {
  jw_member(w, key);
  jw_raw(w, b ? "true" : "false");
}

/* A statistic with n == 0 is null throughout, whatever its fields hold. */
static void jw_stat(json_writer *w, const char *key, const atoll_stats *s, double v) { jw_num(w, key, s->n ? v : NAN); }

static void json_stats(json_writer *w, const char *key, const atoll_stats *s, bool with_p95) {
  jw_open(w, key, "{", true);
  jw_stat(w, "mean", s, s->mean);
  jw_stat(w, "p50", s, s->p50);
  if (with_p95)
    jw_stat(w, "p95", s, s->p95);
  jw_stat(w, "p99", s, s->p99);
  jw_stat(w, "max", s, s->max);
  jw_close(w, "}");
}

static void json_header(json_writer *w, const atoll_report *r) {
  const atoll_run_results *res = r->res;
  const atoll_scenario *s = res->scenario;
  jw_uint(w, "atoll_report", 1);
  jw_str(w, "mode", res->mode);
  jw_str(w, "scenario", s->path);
  jw_str(w, "policy", atoll_policy_name(s->policy.kind));
  /* Not "gpu": that key holds the busy fractions, matching the expect paths gpu.cu_busy_frac*,
   * and a JSON object must not repeat a key (most readers keep only the last). */
  jw_str(w, "gpu_name", s->gpu.name);
  jw_num(w, "duration_ms", (double)s->duration_ns / 1e6);
  jw_uint(w, "seed", s->seed);
  jw_open(w, "standalone_us", "{", true);
  for (uint32_t m = 0; m < s->n_models; m++)
    jw_num(w, s->models[m].name ? s->models[m].name : "?", (double)standalone_ns(res, m) / 1000.0);
  jw_close(w, "}");
}

static void json_client(json_writer *w, const atoll_report *r, uint32_t c) {
  const atoll_scenario *s = r->res->scenario;
  const atoll_client *cl = &s->clients[c];
  const atoll_client_report *cr = &r->clients[c];
  jw_open(w, NULL, "{", false);
  jw_str(w, "name", cl->name);
  jw_str(w, "model", s->models[cl->model].name);
  jw_str(w, "class", class_name(cl->cls));
  jw_uint(w, "requests", cr->requests);
  jw_uint(w, "completed", cr->completed);
  jw_uint(w, "dropped", cr->dropped);
  jw_uint(w, "shed", cr->shed);
  jw_uint(w, "failed", cr->failed);
  if (cr->failed)
    jw_str(w, "failure", cr->failure);
  jw_uint(w, "deadline_misses", cr->deadline_misses);
  /* Only where dart's enforcement acted, so other policies' reports keep their keys. */
  if (cr->demotions) {
    jw_uint(w, "demotions", cr->demotions);
    jw_uint(w, "recoveries", cr->recoveries);
  }
  if (cr->refusal)
    jw_str(w, "refused", cr->refusal);
  jw_num(w, "throughput_rps", cr->throughput_rps);
  jw_num(w, "norm_throughput", cr->norm_throughput);
  jw_num(w, "goodput_rps", cr->goodput_rps);
  jw_num(w, "gue", cr->gue);
  /* Where it ran and its last share: only runs of several GPUs or with shares (gslice, inss,
   * gpulet), so the other reports keep their keys. */
  const atoll_run_results *res = r->res;
  if (res->n_gpus > 1 || res->n_shares > 0) {
    jw_uint(w, "gpu", res->client_gpu ? res->client_gpu[c] : cl->gpu);
    int64_t share = -1;
    for (uint32_t i = 0; i < res->n_shares; i++)
      if (res->shares[i].client == c)
        share = res->shares[i].pct;
    if (share >= 0)
      jw_uint(w, "share", (uint64_t)share);
    else
      jw_num(w, "share", atoll_cuset_is_empty(&cl->cus) ? 100.0 : 100.0 * atoll_cuset_count(&cl->cus) / s->gpu.cus);
  }
  jw_open(w, "batch", "{", true);
  jw_num(w, "mean", cr->batch_mean);
  jw_uint(w, "max", cr->batch_max);
  jw_close(w, "}");
  jw_uint(w, "qos_violations", cr->qos_violations);
  jw_num(w, "violation_ratio", cr->violation_ratio);
  json_stats(w, "latency_us", &cr->latency_us, true);
  json_stats(w, "norm_latency", &cr->norm_latency, true);
  jw_close(w, "}");
}

/* The shares series (gslice): one point per change of a client's GPU% or batch, and the
 * re-provisioning steps. Only runs that have one carry the keys. */
static void json_shares(json_writer *w, const atoll_run_results *res) {
  const atoll_scenario *s = res->scenario;
  jw_open(w, "shares", "[", false);
  for (uint32_t i = 0; i < res->n_shares; i++) {
    const atoll_share_record *p = &res->shares[i];
    jw_open(w, NULL, "{", true);
    jw_num(w, "t_ms", (double)p->t_ns / 1e6);
    jw_str(w, "client", s->clients[p->client].name);
    jw_uint(w, "pct", p->pct);
    jw_uint(w, "batch", p->batch);
    jw_close(w, "}");
  }
  jw_close(w, "]");
  static const char *const steps[] = {"shadow_load", "switch", "refused"};
  jw_open(w, "partition_steps", "[", false);
  for (uint32_t i = 0; i < res->n_partitions; i++) {
    const atoll_partition_record *p = &res->partitions[i];
    jw_open(w, NULL, "{", true);
    jw_str(w, "step", p->step < 3 ? steps[p->step] : "?");
    jw_str(w, "client", s->clients[p->client].name);
    jw_uint(w, "pct", p->pct);
    jw_num(w, "start_ms", (double)p->start_ns / 1e6);
    jw_num(w, "end_ms", (double)p->end_ns / 1e6);
    jw_close(w, "}");
  }
  jw_close(w, "]");
}

static void json_preemptions(json_writer *w, const atoll_report *r) {
  jw_open(w, "preemptions", "{", false);
  jw_uint(w, "count", r->preemption_count);
  json_stats(w, "latency_us", &r->preemption_latency_us, false);
  jw_open(w, "breakdown_us", "{", true);
  jw_num(w, "hq_reset", r->breakdown_us[0]);
  jw_num(w, "dq_evict", r->breakdown_us[1]);
  jw_num(w, "cu_kill", r->breakdown_us[2]);
  jw_close(w, "}");
  if (r->path_count > 0) { /* native runs with device timestamps only (report.h) */
    jw_open(w, "critical_path_us", "{", true);
    jw_uint(w, "count", r->path_count);
    jw_num(w, "flag_write", r->path_us[0]);
    jw_num(w, "dq_drain", r->path_us[1]);
    jw_num(w, "kill", r->path_us[2]);
    jw_num(w, "rt_dispatch", r->path_us[3]);
    jw_close(w, "}");
  }
  jw_uint(w, "restored_kernels", r->restored_kernels);
  jw_num(w, "wasted_gpu_us", r->wasted_gpu_us);
  jw_num(w, "restore_us", r->restore_us);
  jw_close(w, "}");
}

/* Present only when some RT kernel ran padded. */
static void json_padding(json_writer *w, const atoll_report *r) {
  jw_open(w, "padding", "{", false);
  jw_uint(w, "rt_kernels", r->rt_kernels);
  jw_uint(w, "rt_kernels_padded", r->rt_kernels_padded);
  json_stats(w, "rt_overhead_us", &r->rt_overhead_us, true);
  json_stats(w, "rt_overhead_pct", &r->rt_overhead_pct, true);
  jw_open(w, "rt_overhead_cdf_us", "[", true);
  for (uint32_t i = 0; i <= 20; i++)
    jw_num(w, NULL, r->rt_overhead_cdf_us[i]);
  jw_close(w, "]");
  jw_close(w, "}");
}

static void json_expects(json_writer *w, const atoll_report *r) {
  const atoll_scenario *s = r->res->scenario;
  jw_open(w, "expect", "[", false);
  for (uint32_t e = 0; e < s->n_expects; e++) {
    char text[160];
    const atoll_expect_verdict *v = &r->verdicts[e];
    jw_open(w, NULL, "{", true);
    jw_str(w, "expr", expect_text(&s->expects[e], text, sizeof text));
    jw_num(w, "value", v->value);
    jw_bool(w, "holds", v->holds);
    jw_num(w, "margin", v->margin);
    if (v->unfinished || v->lower_bound) /* only then, so that other reports keep their bytes */
      jw_bool(w, "lower_bound", true);
    jw_close(w, "}");
  }
  jw_close(w, "]");
}

static void json_run(json_writer *w, const atoll_report *r) {
  const atoll_run_results *res = r->res;
  jw_open(w, "run", "{", true);
  jw_uint(w, "events", res->events);
  jw_num(w, "wall_s", res->wall_s);
  jw_num(w, "speed_x", res->wall_s > 0 ? ((double)res->scenario->duration_ns / 1e9) / res->wall_s : NAN);
  jw_close(w, "}");
}

/* The memory keys of GPU `gpu` inside its object: the known footprints in use, the capacity when the
 * preset gives it, and how many instances have no footprint. Only when some footprint on the GPU is
 * known, so reports of scenarios without footprints are as they were (docs/report.md). */
static void json_gpu_memory(json_writer *w, const atoll_scenario *s, uint32_t gpu) {
  atoll_gpu_memory m;
  if (atoll_scenario_gpu_memory(s, gpu, &m) != ATOLL_OK || m.unknown == m.instances)
    return;
  jw_num(w, "memory_mb_used", m.used_mb);
  if (m.capacity_mb > 0)
    jw_num(w, "memory_mb", m.capacity_mb);
  if (m.unknown > 0)
    jw_uint(w, "memory_unknown_instances", m.unknown);
}

int atoll_report_write_json(const atoll_report *r, FILE *out, bool include_run) {
  json_writer w = {.f = out};
  const atoll_scenario *s = r->res->scenario;
  jw_open(&w, NULL, "{", false);
  json_header(&w, r);
  jw_open(&w, "clients", "[", false);
  for (uint32_t c = 0; c < s->n_clients; c++)
    json_client(&w, r, c);
  jw_close(&w, "]");
  jw_open(&w, "rt", "{", false);
  json_stats(&w, "norm_latency", &r->rt_norm_latency, true);
  json_stats(&w, "latency_us", &r->rt_latency_us, true);
  jw_close(&w, "}");
  jw_num(&w, "total_norm_throughput", r->total_norm_throughput);
  json_preemptions(&w, r);
  jw_open(&w, "gpu", "{", true);
  jw_num(&w, "cu_busy_frac", r->cu_busy_frac);
  jw_num(&w, "cu_busy_frac_rt", r->cu_busy_frac_rt);
  jw_num(&w, "cu_busy_frac_be", r->cu_busy_frac_be);
  jw_num(&w, "cu_busy_frac_be_padded", r->cu_busy_frac_be_padded);
  json_gpu_memory(&w, s, 0);
  jw_close(&w, "}");
  jw_open(&w, "gpus", "[", true);
  for (uint32_t g = 0; g < r->n_gpus; g++) {
    jw_open(&w, NULL, "{", true);
    jw_num(&w, "cu_busy_frac", r->gpu_busy_frac[g]);
    jw_num(&w, "memory_mb_used", r->gpu_memory_mb[g]);
    jw_close(&w, "}");
  }
  jw_close(&w, "]");
  if (r->rt_kernels_padded > 0)
    json_padding(&w, r);
  if (r->groups > 0) {
    jw_open(&w, "predictor", "{", true);
    jw_uint(&w, "groups", r->groups);
    jw_num(&w, "groups_per_s", r->groups_per_s);
    jw_num(&w, "mape", r->predictor_mape);
    jw_num(&w, "p99_abs_err_us", r->predictor_p99_abs_err_us);
    jw_close(&w, "}");
  }
  if (r->res->n_shares > 0)
    json_shares(&w, r->res);
  json_expects(&w, r);
  if (r->res->verified) {
    jw_open(&w, "verify", "{", true);
    jw_uint(&w, "requests", r->res->verify_requests);
    jw_uint(&w, "mismatches", r->res->verify_mismatches);
    jw_close(&w, "}");
  }
  if (include_run)
    json_run(&w, r);
  jw_close(&w, "}");
  jw_raw(&w, "\n");
  return w.failed || ferror(out) ? ATOLL_EIO : ATOLL_OK;
}

/* ---- CSV ------------------------------------------------------------------------------------ */

/* RFC 4180 quoting, for names that carry a comma, quote or line break. */
static void csv_str(FILE *out, const char *s, bool *failed) {
  if (!s)
    s = "";
  if (strpbrk(s, ",\"\r\n") == NULL) {
    *failed |= fputs(s, out) == EOF;
    return;
  }
  *failed |= fputc('"', out) == EOF;
  for (const char *p = s; *p; p++) {
    if (*p == '"')
      *failed |= fputc('"', out) == EOF;
    *failed |= fputc(*p, out) == EOF;
  }
  *failed |= fputc('"', out) == EOF;
}

/* ",value" with an empty cell for an undefined value. */
static void csv_num(FILE *out, double v, bool *failed) {
  char buf[32];
  *failed |= fprintf(out, ",%s", fmt_number(buf, v)) < 0;
}

static void csv_stats(FILE *out, const atoll_stats *s, bool *failed) {
  const double v[5] = {s->mean, s->p50, s->p95, s->p99, s->max};
  for (int i = 0; i < 5; i++)
    csv_num(out, s->n ? v[i] : NAN, failed);
}

static void csv_client(FILE *out, const atoll_report *r, uint32_t c, bool *failed) {
  const atoll_scenario *s = r->res->scenario;
  const atoll_client *cl = &s->clients[c];
  const atoll_client_report *cr = &r->clients[c];
  csv_str(out, cl->name, failed);
  *failed |= fputc(',', out) == EOF;
  csv_str(out, s->models[cl->model].name, failed);
  *failed |= fprintf(out, ",%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32, class_name(cl->cls), cr->requests,
                     cr->completed, cr->dropped, cr->deadline_misses) < 0;
  csv_num(out, cr->throughput_rps, failed);
  csv_num(out, cr->norm_throughput, failed);
  csv_stats(out, &cr->latency_us, failed);
  csv_stats(out, &cr->norm_latency, failed);
  *failed |= fputc('\n', out) == EOF;
}

int atoll_report_write_csv(const atoll_report *r, FILE *out, bool header) {
  bool failed = false;
  if (header)
    failed |= fputs("client,model,class,requests,completed,dropped,deadline_misses,throughput_rps,"
                    "norm_throughput,lat_mean_us,lat_p50_us,lat_p95_us,lat_p99_us,lat_max_us,"
                    "norm_mean,norm_p50,norm_p95,norm_p99,norm_max\n",
                    out) == EOF;
  for (uint32_t c = 0; c < r->res->scenario->n_clients; c++)
    csv_client(out, r, c, &failed);
  return failed || ferror(out) ? ATOLL_EIO : ATOLL_OK;
}

/* ---- Human table ---------------------------------------------------------------------------- */

/* A fixed-precision cell, "-" when undefined. */
static const char *cell(char buf[32], double v, int prec) {
  if (isfinite(v))
    snprintf(buf, 32, "%.*f", prec, v);
  else
    snprintf(buf, 32, "-");
  return buf;
}

static int name_width(const atoll_scenario *s) {
  size_t w = strlen("rt (pooled)");
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (strlen(s->clients[c].name) > w)
      w = strlen(s->clients[c].name);
  return (int)(w > 24 ? 24 : w);
}

static int model_width(const atoll_scenario *s) {
  size_t w = strlen("model");
  for (uint32_t m = 0; m < s->n_models; m++)
    if (s->models[m].name && strlen(s->models[m].name) > w)
      w = strlen(s->models[m].name);
  return (int)(w > 20 ? 20 : w);
}

/* Latency columns: mean/p99/max in ms, then the same normalized (x the standalone latency). */
static void table_latency(FILE *out, const atoll_stats *lat_us, const atoll_stats *norm) {
  char a[32], b[32], c[32], d[32], e[32], f[32];
  fprintf(out, " %9s %9s %9s %8s %8s %8s\n", cell(a, lat_us->mean / 1000.0, 3), cell(b, lat_us->p99 / 1000.0, 3),
          cell(c, lat_us->max / 1000.0, 3), cell(d, norm->mean, 2), cell(e, norm->p99, 2), cell(f, norm->max, 2));
}

/* The outcomes beyond completed (docs/report.md), over all clients: one line. */
/* Per GPU with several, and the batches of clients that ran any (a run without either prints
 * nothing here). */
static void text_gpus_batches(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  char a[32], b[32];
  for (uint32_t g = 0; r->n_gpus > 1 && g < r->n_gpus; g++) {
    char label[32];
    snprintf(label, sizeof label, "GPU %" PRIu32, g);
    fprintf(out, "%-28s CU busy %s %%, memory %s MB\n", label, cell(a, 100 * r->gpu_busy_frac[g], 1),
            cell(b, r->gpu_memory_mb[g], 1));
  }
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client_report *cr = &r->clients[c];
    if (s->clients[c].batch_max <= 1 && cr->batch_max <= 1)
      continue;
    char label[160];
    snprintf(label, sizeof label, "batch %s", s->clients[c].name);
    fprintf(out, "%-28s mean %s, max %" PRIu32 " requests per model run\n", label, cell(a, cr->batch_mean, 2),
            cr->batch_max);
  }
}

static void text_outcomes(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  uint32_t dropped = 0, shed = 0, failed = 0, violations = 0, offered = 0;
  double goodput = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    violations += r->clients[c].qos_violations;
    offered += r->clients[c].requests + r->clients[c].dropped;
    dropped += r->clients[c].dropped;
    shed += r->clients[c].shed;
    failed += r->clients[c].failed;
    goodput += r->clients[c].goodput_rps;
  }
  char a[32], b[32];
  fprintf(out,
          "%-28s dropped %" PRIu32 ", shed %" PRIu32 ", failed %" PRIu32 "; goodput %s req/s; QoS violations %" PRIu32
          " (%s %%)\n",
          "outcomes", dropped, shed, failed, cell(a, goodput, 1), violations,
          cell(b, offered ? 100.0 * violations / offered : NAN, 1));
}

/* Every request that arrives is completed, dropped, shed or failed (docs/report.md, "Outcomes"):
 * the table shows all four, so an overloaded client's refused requests are on the screen. */
static void table_clients(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  int nw = name_width(s), mw = model_width(s);
  uint32_t rt_req = 0, rt_done = 0, rt_dropped = 0, rt_shed = 0, rt_failed = 0;
  fprintf(out, "%-*s %-5s %-*s %8s %9s %8s %6s %6s %9s %8s %9s %9s %9s %8s %8s %8s\n", nw, "client", "class", mw,
          "model", "requests", "completed", "dropped", "shed", "failed", "req/s", "norm thr", "mean ms", "p99 ms",
          "max ms", "mean x", "p99 x", "max x");
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    const atoll_client_report *cr = &r->clients[c];
    char t[32], n[32];
    fprintf(out, "%-*s %-5s %-*s %8" PRIu32 " %9" PRIu32 " %8" PRIu32 " %6" PRIu32 " %6" PRIu32 " %9s %8s", nw,
            cl->name, class_name(cl->cls), mw, s->models[cl->model].name, cr->requests, cr->completed, cr->dropped,
            cr->shed, cr->failed, cell(t, cr->throughput_rps, 1), cell(n, cr->norm_throughput, 3));
    table_latency(out, &cr->latency_us, &cr->norm_latency);
    if (cl->cls == ATOLL_CLASS_RT) {
      rt_req += cr->requests, rt_done += cr->completed;
      rt_dropped += cr->dropped, rt_shed += cr->shed, rt_failed += cr->failed;
    }
  }
  fprintf(out, "%-*s %-5s %-*s %8" PRIu32 " %9" PRIu32 " %8" PRIu32 " %6" PRIu32 " %6" PRIu32 " %9s %8s", nw,
          "rt (pooled)", "rt", mw, "-", rt_req, rt_done, rt_dropped, rt_shed, rt_failed, "-", "-");
  table_latency(out, &r->rt_latency_us, &r->rt_norm_latency);
}

/* The unit a report field is in, for people: " us", " req/s", "x" (times the standalone
 * latency), or none (counts, normalized throughputs, fractions). */
static const char *field_unit(const char *field) {
  if (!field)
    return "";
  if (strstr(field, "norm_latency"))
    return "x";
  if (strstr(field, "throughput_rps"))
    return " req/s";
  if (strstr(field, "_us"))
    return " us";
  return "";
}

/* A value for people: six significant digits, then its unit; "n/a" when undefined. */
static const char *human(char buf[48], double v, const char *unit, bool sign) {
  if (!isfinite(v))
    return strcpy(buf, "n/a");
  snprintf(buf, 48, sign ? "%+.6g%s" : "%.6g%s", v, unit);
  return buf;
}

/* The bounds come first: whether they hold is what a scenario is run for. */
/* After a bound's value when it counts requests unfinished at the end (verdict_compute). */
#define LOWER_BOUND_NOTE "  (a lower bound: unfinished requests counted at their wait so far)"

static void table_expects(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  if (s->n_expects == 0) {
    fprintf(out, "bounds: none (the scenario has no expect:)\n");
    return;
  }
  uint32_t held = 0;
  int width = 0;
  char text[160];
  for (uint32_t e = 0; e < s->n_expects; e++) {
    held += r->verdicts[e].holds;
    int len = (int)strlen(expect_text(&s->expects[e], text, sizeof text));
    width = len > width ? len : width;
  }
  if (held == s->n_expects)
    fprintf(out, "bounds: all %" PRIu32 " hold\n", s->n_expects);
  else
    fprintf(out, "bounds: FAILED, %" PRIu32 " of %" PRIu32 " hold\n", held, s->n_expects);
  for (uint32_t e = 0; e < s->n_expects; e++) {
    const atoll_expect_verdict *v = &r->verdicts[e];
    const char *unit = field_unit(s->expects[e].field);
    char val[48], margin[48];
    fprintf(out, "  %s  %-*s  value %s  margin %s%s\n", v->holds ? "PASS" : "FAIL", width,
            expect_text(&s->expects[e], text, sizeof text), human(val, v->value, unit, false),
            human(margin, v->margin, unit, true), v->unfinished || v->lower_bound ? LOWER_BOUND_NOTE : "");
  }
}

/* GPU `gpu`'s memory line, under the same condition as its JSON keys (json_gpu_memory). */
static void text_gpu_memory(const atoll_scenario *s, uint32_t gpu, FILE *out) {
  atoll_gpu_memory m;
  if (atoll_scenario_gpu_memory(s, gpu, &m) != ATOLL_OK || m.unknown == m.instances)
    return;
  char a[32], b[32];
  fprintf(out, "%-28s %s MB", "GPU memory in use", cell(a, m.used_mb, 1));
  if (m.capacity_mb > 0)
    fprintf(out, " of %s MB", cell(b, m.capacity_mb, 1));
  fprintf(out, " (%" PRIu32 " model instances", m.instances);
  if (m.unknown > 0)
    fprintf(out, "; %" PRIu32 " with footprint unknown, counted as 0 MB", m.unknown);
  fprintf(out, ")\n");
}

void atoll_report_print_table(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  char a[32], b[32], c[32];
  fprintf(out, "scenario %s  policy %s  gpu %s  duration %s ms (warmup %s ms)  mode %s\n", s->path ? s->path : "-",
          atoll_policy_name(s->policy.kind), s->gpu.name ? s->gpu.name : "-",
          fmt_number(a, (double)s->duration_ns / 1e6), fmt_number(b, (double)s->warmup_ns / 1e6),
          r->res->mode ? r->res->mode : "-");
  table_expects(r, out);
  table_clients(r, out);
  fprintf(out, "(ms: end-to-end latency; x: latency / the model's standalone latency; norm thr: throughput / the\n"
               " model's standalone throughput)\n");
  fprintf(out, "%-28s %s\n", "total normalized throughput", cell(a, r->total_norm_throughput, 3));
  text_outcomes(r, out);
  if (r->preemption_count > 0) {
    fprintf(out, "%-28s %" PRIu32 ": latency mean %s us, p99 %s us, max %s us\n", "preemptions", r->preemption_count,
            cell(a, r->preemption_latency_us.mean, 1), cell(b, r->preemption_latency_us.p99, 1),
            cell(c, r->preemption_latency_us.max, 1));
    fprintf(out, "%-28s HQ reset %s us, DQ eviction %s us, CU kill %s us (mean, from the preemption)\n",
            "preemption steps done at", cell(a, r->breakdown_us[0], 1), cell(b, r->breakdown_us[1], 1),
            cell(c, r->breakdown_us[2], 1));
    if (r->path_count > 0) {
      char d[32];
      fprintf(out, "%-28s flag write %s us, DQ drain %s us, kill %s us, RT dispatch %s us (mean of %" PRIu32
              ", device clock)\n", "preemption critical path", cell(a, r->path_us[0], 1), cell(b, r->path_us[1], 1),
              cell(c, r->path_us[2], 1), cell(d, r->path_us[3], 1), r->path_count);
    }
  }
  fprintf(out, "%-28s %s %% (rt %s %%, be %s %%)\n", "CU busy", cell(a, 100 * r->cu_busy_frac, 1),
          cell(b, 100 * r->cu_busy_frac_rt, 1), cell(c, 100 * r->cu_busy_frac_be, 1));
  text_gpu_memory(s, 0, out);
  text_gpus_batches(r, out);
  if (r->rt_kernels_padded > 0)
    fprintf(out, "%-28s %" PRIu32 " of %" PRIu64 " RT kernels; their overhead p50 %s us, p99 %s us; padded BE CU busy %s %%\n",
            "padded launches", r->rt_kernels_padded, r->rt_kernels, cell(a, r->rt_overhead_us.p50, 2),
            cell(b, r->rt_overhead_us.p99, 2), cell(c, 100 * r->cu_busy_frac_be_padded, 1));
  if (r->groups > 0)
    fprintf(out, "%-28s %" PRIu32 " (%s per s); predictor MAPE %s %%, p99 |error| %s us\n", "operator groups", r->groups,
            cell(a, r->groups_per_s, 1), cell(b, 100 * r->predictor_mape, 2), cell(c, r->predictor_p99_abs_err_us, 1));
  if (r->res->verified)
    fprintf(out, "verify: %" PRIu32 " requests compared with the uninterrupted reference, %" PRIu32 " mismatches\n",
            r->res->verify_requests, r->res->verify_mismatches);
  for (uint32_t k = 0; k < r->res->scenario->n_clients; k++)
    if (r->clients[k].refusal)
      fprintf(out, "client %s: %s\n", r->res->scenario->clients[k].name, r->clients[k].refusal);
  for (uint32_t k = 0; k < r->res->scenario->n_clients; k++)
    if (r->clients[k].failed)
      fprintf(out, "client %s: %" PRIu32 " requests failed; the first: %s\n", r->res->scenario->clients[k].name,
              r->clients[k].failed, r->clients[k].failure);
}

/* ---- Overload ------------------------------------------------------------------------------- */

bool atoll_report_client_overloaded(const atoll_report *r, uint32_t c) {
  const atoll_client *cl = &r->res->scenario->clients[c];
  const atoll_client_report *cr = &r->clients[c];
  if (cl->arrival.kind == ATOLL_ARRIVAL_CLOSED)
    return false; /* it offers one request at a time: never more than it is served */
  /* Requests still in flight when the run ends are not completed either: a tenth of the window's
   * requests, and at least one, is the margin that leaves them out of the verdict (in a short run,
   * one request of two still in flight is no overload). A failed request (atoll native --inject)
   * was served, with its error: 71 of 89 completed and 18 failed warned of overload. */
  uint32_t answered = cr->completed + cr->lost;
  return cr->dropped > 0 || cr->shed > 0 ||
         ((double)answered < 0.9 * (double)cr->requests && cr->requests - answered > 1);
}

uint32_t atoll_report_warn_overload(const atoll_report *r, const char *tool, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (!atoll_report_client_overloaded(r, c))
      continue;
    const atoll_client *cl = &s->clients[c];
    const atoll_client_report *cr = &r->clients[c];
    int64_t alone = standalone_ns(r->res, cl->model);
    double offered_hz = atoll_run_offered_rate_hz(cl, alone);
    char a[32], b[32], d[32], e[32];
    fprintf(out,
            "%s: warning: client '%s' offers more than it is served: %s req/s (load %s) offered, %s req/s "
            "(load %s) completed; %" PRIu32 " of its %" PRIu32 " requests completed, %" PRIu32 " dropped, %" PRIu32
            " shed (docs/report.md, \"Overload\")\n",
            tool, cl->name, cell(a, offered_hz, 1), cell(b, atoll_run_load_of_rate(offered_hz, alone), 2),
            cell(d, cr->throughput_rps, 1), cell(e, atoll_run_load_of_rate(cr->throughput_rps, alone), 2),
            cr->completed, cr->requests, cr->dropped, cr->shed);
    n++;
  }
  return n;
}

/* ---- Violations ----------------------------------------------------------------------------- */

static void print_culprit(const atoll_report *r, const atoll_expect_verdict *v, FILE *out) {
  if (!v->has_request)
    return;
  const atoll_scenario *s = r->res->scenario;
  double at_ms = (double)v->arrival_ns / 1e6;
  if (v->client >= 0 && (uint32_t)v->client < s->n_clients)
    fprintf(out, " (set by request %" PRIu64 " of client %s, arrived at %.3f ms%s)", v->request,
            s->clients[v->client].name, at_ms,
            v->unfinished ? ", unfinished when the run ended: its wait so far, a lower bound" : "");
  else
    fprintf(out, " (set by preemption %" PRIu64 ", at %.3f ms)", v->request, at_ms);
}

void atoll_report_print_violations(const atoll_report *r, FILE *out) {
  const atoll_scenario *s = r->res->scenario;
  for (uint32_t e = 0; e < s->n_expects; e++) {
    const atoll_expect_verdict *v = &r->verdicts[e];
    if (v->holds)
      continue;
    char text[160], val[32], bound[32], margin[32];
    fprintf(out, "expect FAILED: %s: ", expect_text(&s->expects[e], text, sizeof text));
    if (isfinite(v->value))
      fprintf(out, "value %s, bound %s, margin %s", fmt_number(val, v->value), fmt_number(bound, s->expects[e].value),
              fmt_difference(margin, v->margin, v->value, s->expects[e].value));
    else
      fprintf(out, "value n/a (no samples), bound %s", fmt_number(bound, s->expects[e].value));
    if (v->lower_bound)
      fprintf(out, " (a lower bound: the requests unfinished when the run ended counted at their wait so far)");
    print_culprit(r, v, out);
    fputc('\n', out);
  }
}
