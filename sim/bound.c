/* Analytic worst-case response time of RT requests (see bound.h and docs/bound.md). */
#include "sim/bound.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "atoll/policy.h"
#include "atoll/error.h"
#include "sim/kernel_timing.h"
#include "run/driver.h"
#include "sim/run.h"

/* Sums saturate here: a bound this large is as good as none. */
#define BOUND_INF INT64_MAX
/* The busy-period iteration and the offset scan stop beyond these (reported as unbounded). */
enum { MAX_ITERATIONS = 1000000 };
#define MAX_POINTS 50000000u

static int64_t sat_add(int64_t a, int64_t b) { return a > BOUND_INF - b ? BOUND_INF : a + b; }

static int64_t sat_mul(int64_t a, int64_t k) {
  if (a == 0 || k == 0)
    return 0;
  return a > BOUND_INF / k ? BOUND_INF : a * k;
}

int atoll__bound_fail(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why && len)
    vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return ATOLL_EINVAL;
}

/* Arrivals of j in a closed window of length a, at most: floor(a / T) + 1 (one when T is
 * "never again"). */
static int64_t arrivals_within(int64_t a, int64_t gap) { return gap == BOUND_INF ? 1 : a / gap + 1; }

bool atoll_bound_fifo(const int64_t *task_ns, const int64_t *min_gap_ns, uint32_t n, int64_t blocking_ns,
                      int64_t *wcrt_ns, int64_t *busy_ns, uint32_t *points) {
  *wcrt_ns = *busy_ns = BOUND_INF;
  *points = 0;
  double u = 0;
  for (uint32_t j = 0; j < n; j++)
    if (min_gap_ns[j] != BOUND_INF)
      u += (double)task_ns[j] / (double)min_gap_ns[j];
  if (u >= 1.0)
    return false;
  /* Busy period: the least fixed point of L = B + sum_j ceil(L / T_j) C_j. */
  int64_t len = blocking_ns;
  for (uint32_t j = 0; j < n; j++)
    len = sat_add(len, task_ns[j]);
  for (int it = 0; it < MAX_ITERATIONS && len != BOUND_INF; it++) {
    int64_t next = blocking_ns;
    for (uint32_t j = 0; j < n; j++) {
      int64_t count = min_gap_ns[j] == BOUND_INF ? 1 : (len + min_gap_ns[j] - 1) / min_gap_ns[j];
      next = sat_add(next, sat_mul(task_ns[j], count));
    }
    if (next == len)
      break;
    len = next;
  }
  if (len == BOUND_INF)
    return false;
  /* W(a) - a only grows at arrival instants, so the maximum over [0, L) is at one of them: scan
   * each client's instants m * T_j in increasing order, merged. */
  int64_t *next_at = calloc(n, sizeof *next_at);
  if (!next_at)
    return false;
  int64_t worst = 0;
  uint32_t evaluated = 0;
  for (;;) {
    int64_t a = BOUND_INF;
    for (uint32_t j = 0; j < n; j++)
      if (next_at[j] < a)
        a = next_at[j];
    if (a >= len || evaluated >= MAX_POINTS)
      break;
    int64_t w = blocking_ns;
    for (uint32_t j = 0; j < n; j++)
      w = sat_add(w, sat_mul(task_ns[j], arrivals_within(a, min_gap_ns[j])));
    if (w - a > worst)
      worst = w - a;
    evaluated++;
    for (uint32_t j = 0; j < n; j++)
      if (next_at[j] == a)
        next_at[j] = min_gap_ns[j] == BOUND_INF ? BOUND_INF : sat_add(a, min_gap_ns[j]);
  }
  free(next_at);
  if (evaluated >= MAX_POINTS)
    return false;
  *wcrt_ns = worst;
  *busy_ns = len;
  *points = evaluated;
  return true;
}

/* The smallest gap between two arrivals of a client, BOUND_INF when it arrives once; 0 when the
 * client has no minimum (poisson, closed loop) or arrives twice at one instant. */
static int64_t min_gap_of(const atoll_client *c, int64_t standalone_ns) {
  const atoll_arrival *a = &c->arrival;
  switch (a->kind) {
  case ATOLL_ARRIVAL_UNIFORM: {
    double rate = atoll_run_rate_hz(c, standalone_ns);
    /* Arrival k is at llround(k * period): neighbours are at least period - 1 ns apart. */
    double gap = floor(1e9 / rate - 1.0);
    return gap >= 1 ? (gap < 4.6e18 ? (int64_t)gap : BOUND_INF) : 0;
  }
  case ATOLL_ARRIVAL_TRACE: {
    int64_t gap = BOUND_INF;
    for (uint32_t i = 1; i < a->n_times; i++)
      if (a->times_ns[i] - a->times_ns[i - 1] < gap)
        gap = a->times_ns[i] - a->times_ns[i - 1];
    if (a->repeat_ns > 0) {
      int64_t wrap = a->repeat_ns + a->times_ns[0] - a->times_ns[a->n_times - 1];
      if (wrap < gap)
        gap = wrap;
    }
    return gap;
  }
  case ATOLL_ARRIVAL_POISSON:
  case ATOLL_ARRIVAL_STEP: /* Poisson in each step */
  case ATOLL_ARRIVAL_CLOSED:
    return 0;
  }
  return 0;
}

int64_t atoll_bound_min_gap_ns(const atoll_scenario *s, const atoll_client *c, int64_t standalone_ns) {
  int64_t gap = min_gap_of(c, standalone_ns);
  if (gap > 0 && gap != BOUND_INF && s->n_jitter > 1)
    gap -= s->jitter_ns[s->n_jitter - 1];
  return gap;
}

static const char *arrival_name(atoll_arrival_kind k) {
  return k == ATOLL_ARRIVAL_POISSON ? "poisson" : k == ATOLL_ARRIVAL_CLOSED ? "closed-loop" : "trace";
}

/* B: what one RT busy period may wait for before its first kernel runs, when BE work holds the GPU
 * (REEF §4: HQ reset, lazy eviction of the DQ through the CP, CU reset). */
static void blocking_of(const atoll_scenario *s, atoll_bound_blocking *b) {
  *b = (atoll_bound_blocking){0};
  if (s->policy.kind == ATOLL_POLICY_RT_ONLY)
    return;
  const atoll_gpu_costs *k = &s->gpu.costs;
  uint32_t dq_cap = s->policy.dq_capacity ? s->policy.dq_capacity : ATOLL_REEF_DQ_DEPTH, n_be = 0;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    if (s->clients[c].cls != ATOLL_CLASS_BE)
      continue;
    const atoll_model *m = &s->models[s->clients[c].model].model;
    n_be++;
    /* A BE stream holds at most its task's ops: in the HQ (reset), and up to the DQ's depth of
     * them in the DQ (each fetched and dispatched only to exit, then the DQ's fixed drain cost). */
    b->hq_reset_ns = sat_add(b->hq_reset_ns, s->policy.async_reclaim ? k->hq_reset_async_ns
                                                                      : sat_mul(k->hq_reset_per_cmd_ns, m->n_ops));
    uint32_t in_dq = m->n_ops < dq_cap ? m->n_ops : dq_cap;
    b->eviction_ns = sat_add(b->eviction_ns, sat_add(k->dq_reset_ns, sat_mul(k->evicted_kernel_ns, in_dq)));
    for (uint32_t i = 0; i < m->n_ops; i++) {
      const atoll_op *op = &m->ops[i];
      atoll_kernel_timing t;
      atoll_kernel_timing_prepare(&s->gpu, m, i, &t);
      if (op->kind != ATOLL_OP_KERNEL) {
        if (t.copy_ns > b->copy_ns)
          b->copy_ns = t.copy_ns;
        continue;
      }
      /* A kernel that may not be killed runs to its end: all of it, in the worst case. */
      if (!s->policy.reset_cu || op->idem == ATOLL_IDEM_NONE) {
        int64_t alone = atoll_kernel_alone_ns(&s->gpu, &t);
        if (alone > b->unkillable_ns)
          b->unkillable_ns = alone;
      }
    }
  }
  if (n_be == 0) {
    *b = (atoll_bound_blocking){0};
    return;
  }
  /* The CP visits each flagged BE stream and comes back to the RT stream. */
  b->stream_switch_ns = sat_mul(k->stream_switch_ns, n_be + 1);
  b->cu_reset_ns = s->policy.reset_cu ? k->cu_reset_ns : 0;
  int64_t total = 0;
  total = sat_add(total, b->hq_reset_ns);
  total = sat_add(total, b->eviction_ns);
  total = sat_add(total, b->stream_switch_ns);
  total = sat_add(total, b->cu_reset_ns);
  total = sat_add(total, b->unkillable_ns);
  total = sat_add(total, b->copy_ns);
  b->total_ns = total;
}

/* C: the RT task alone on the simulated GPU, plus under reef's padding the padded kernels'
 * residual overhead and one kernel selection per RT kernel (REEF §5, Figs. 25-26). */
static int task_time(const atoll_scenario *s, uint32_t model, double spread, int64_t standalone, int64_t *out) {
  const atoll_model *m = &s->models[model].model;
  double c = (double)standalone * (1.0 + spread);
  if (s->policy.kind == ATOLL_POLICY_REEF && s->policy.dkp) {
    uint32_t kernels = 0;
    for (uint32_t i = 0; i < m->n_ops; i++)
      kernels += m->ops[i].kind == ATOLL_OP_KERNEL;
    c = c * (1.0 + s->gpu.costs.dkp_overhead_ppm / 1e6) + (double)kernels * (double)s->gpu.costs.kernel_select_ns;
  }
  if (!(c < 4.6e18))
    return ATOLL_ERANGE;
  *out = (int64_t)ceil(c);
  return 0;
}

int atoll_bound_compute(const atoll_scenario *s, const atoll_bound_opts *opts, atoll_bound_result *out, char *why,
                        size_t why_len) {
  *out = (atoll_bound_result){0};
  atoll_policy_kind p = s->policy.kind;
  if (p != ATOLL_POLICY_RT_ONLY && p != ATOLL_POLICY_RESET && p != ATOLL_POLICY_REEF)
    return atoll__bound_fail(why, why_len,
                             "policy '%s': the bound covers rt-only, reset and reef, whose RT tasks run one at a "
                             "time from one queue",
                             atoll_policy_name(p));
  if (s->policy.rt_queue != ATOLL_RT_QUEUE_FIFO)
    return atoll__bound_fail(why, why_len, "policy.rt_queue edf: the bound assumes a FIFO RT queue");
  if (atoll_scenario_gpus(s) > 1)
    return atoll__bound_fail(why, why_len, "gpu_count %u: the bound covers one GPU", atoll_scenario_gpus(s));
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (s->clients[c].batch_max > 1)
      return atoll__bound_fail(why, why_len, "client '%s' batches: the bound covers requests that run alone",
                               s->clients[c].name);
  double spread = opts ? opts->spread : 0;
  if (!(spread >= 0 && spread < 100))
    return atoll__bound_fail(why, why_len, "timing spread %g is outside [0, 100)", spread);
  uint32_t n = 0;
  for (uint32_t c = 0; c < s->n_clients; c++)
    n += s->clients[c].cls == ATOLL_CLASS_RT;
  if (n == 0)
    return atoll__bound_fail(why, why_len, "the scenario has no RT client");
  out->clients = calloc(n, sizeof *out->clients);
  int64_t *task = calloc(n, sizeof *task), *gap = calloc(n, sizeof *gap);
  if (!out->clients || !task || !gap) {
    free(task), free(gap), atoll_bound_free(out);
    return ATOLL_ENOMEM;
  }
  int rc = 0;
  for (uint32_t c = 0; c < s->n_clients && rc == 0; c++) {
    const atoll_client *cl = &s->clients[c];
    if (cl->cls != ATOLL_CLASS_RT)
      continue;
    atoll_bound_client *bc = &out->clients[out->n_clients];
    int64_t standalone = 0;
    rc = atoll_sim_standalone_ns(s, cl->model, &standalone);
    if (rc == 0)
      rc = task_time(s, cl->model, spread, standalone, &bc->task_ns);
    if (rc)
      break;
    bc->client = c;
    bc->min_gap_ns = min_gap_of(cl, standalone);
    int64_t own_gap = bc->min_gap_ns;
    /* A request may arrive late by up to the largest sim.arrival_jitter_us offset (docs/explore.md)
     * while the next one is on time, so arrivals come that much closer. */
    if (bc->min_gap_ns != BOUND_INF && s->n_jitter > 1)
      bc->min_gap_ns -= s->jitter_ns[s->n_jitter - 1];
    if (bc->min_gap_ns <= 0) {
      atoll_arrival_kind kind = cl->arrival.kind;
      bool timed = kind == ATOLL_ARRIVAL_TRACE || kind == ATOLL_ARRIVAL_UNIFORM;
      if (timed && own_gap > 0) /* the jitter closes the gap */
        rc = atoll__bound_fail(why, why_len,
                               "client '%s': sim.arrival_jitter_us's largest offset (%.3f us) is not shorter than its "
                               "minimum inter-arrival time (%.3f us), so two arrivals may coincide",
                               cl->name, (double)s->jitter_ns[s->n_jitter - 1] / 1e3, (double)own_gap / 1e3);
      else if (kind == ATOLL_ARRIVAL_UNIFORM)
        rc = atoll__bound_fail(why, why_len, "client '%s': at %.6g Hz, arrivals rounded to whole nanoseconds may "
                               "coincide, so there is no minimum inter-arrival time", cl->name,
                               atoll_run_rate_hz(cl, standalone));
      else if (kind == ATOLL_ARRIVAL_TRACE)
        rc = atoll__bound_fail(why, why_len,
                               "client '%s': two arrivals at the same instant leave no minimum inter-arrival time",
                               cl->name);
      else
        rc = atoll__bound_fail(why, why_len, "client '%s': %s arrivals have no minimum inter-arrival time", cl->name,
                               arrival_name(kind));
      break;
    }
    /* The deadline the core schedules with (run/driver.h's rule, in whole nanoseconds). */
    bc->deadline_ns = (int64_t)atoll_run_deadline_ns(cl, standalone);
    task[out->n_clients] = bc->task_ns;
    gap[out->n_clients] = bc->min_gap_ns;
    if (bc->min_gap_ns != BOUND_INF)
      out->utilization += (double)bc->task_ns / (double)bc->min_gap_ns;
    out->n_clients++;
  }
  if (rc == 0) {
    blocking_of(s, &out->blocking);
    int64_t wcrt = BOUND_INF, busy = BOUND_INF;
    atoll_bound_fifo(task, gap, out->n_clients, out->blocking.total_ns, &wcrt, &busy, &out->points);
    out->busy_period_ns = busy;
    for (uint32_t i = 0; i < out->n_clients; i++) {
      out->clients[i].wcrt_ns = wcrt;
      out->clients[i].schedulable =
          wcrt != BOUND_INF && (out->clients[i].deadline_ns == 0 || wcrt <= out->clients[i].deadline_ns);
    }
    /* A blocking client (docs/scenarios.md) sends on its schedule while each request completes within
     * its gap, and then the bound above holds; beyond that it would send early and the bound would not. */
    for (uint32_t i = 0; rc == 0 && i < out->n_clients; i++) {
      const atoll_client *cl = &s->clients[out->clients[i].client];
      if (cl->arrival.blocking && (wcrt == BOUND_INF || wcrt > out->clients[i].min_gap_ns))
        rc = atoll__bound_fail(why, why_len,
                               "client '%s' is blocking and its bound exceeds its inter-arrival time, so it may "
                               "send off its schedule",
                               cl->name);
    }
  }
  free(task), free(gap);
  if (rc)
    atoll_bound_free(out);
  return rc;
}

void atoll_bound_free(atoll_bound_result *r) {
  free(r->clients);
  r->clients = NULL;
  r->n_clients = 0;
}
