/* InSS's model fitted on the simulated GPU (sim/inss_fit.h). */
#include "sim/inss_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/policy.h"
#include "core/gslice.h"
#include "sim/run.h"

static const uint32_t grid_b[ATOLL_INSS_FIT_BATCHES] = {1, 2, 4, 8, 16, 32};
static const uint32_t grid_p[ATOLL_INSS_FIT_PCTS] = {5, 10, 20, 30, 50, 70, 100};
static const uint32_t set_b[] = {1, 2, 4, 8};
enum { BATCHES_PER_RUN = 20 };

void atoll_inss_fit_sim(atoll_inss_fit_plan *p) {
  *p = (atoll_inss_fit_plan){.run = atoll_sim_inss_runner, .batches = grid_b, .n_batches = ATOLL_INSS_FIT_BATCHES,
                             .pcts = grid_p, .n_pcts = ATOLL_INSS_FIT_PCTS, .solo_runs = 2,
                             .solo_gap_ns = 10000000000, .n_sets = ATOLL_INSS_FIT_SETS, .min_coloc = 2,
                             .max_coloc = ATOLL_INSS_FIT_MAX_COLOC, .share_units = 10, .set_batches = set_b,
                             .n_set_batches = 4, .batches_per_run = BATCHES_PER_RUN, .gap_factor = 1.3,
                             .batch_timeout_ns = 1, .solo_unqueued = true};
}

int atoll_sim_inss_runner(const atoll_scenario *s, void *ctx, atoll_run_results *res) {
  (void)ctx;
  /* Standalone latencies only normalise the report, which the fit does not read. */
  int64_t alone[ATOLL_INSS_MAX_MODELS * 4];
  for (uint32_t i = 0; i < s->n_models && i < ATOLL_INSS_MAX_MODELS * 4; i++)
    alone[i] = 1;
  atoll_sim_opts o = {.standalone_ns = alone};
  return atoll_sim_run(s, &o, res);
}

/* The profile index of s's model `model` in m (m's profiles follow s's models). */
static uint32_t model_of(const atoll_inss_model *m, const atoll_scenario *s, uint32_t prof) {
  for (uint32_t i = 0; i < s->n_models; i++)
    if (strcmp(s->models[i].name, m->prof[prof].name) == 0)
      return i;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n), n > 0; sorts v. */
static double median_sorting(double *v, uint32_t n) {
  qsort(v, n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint32_t atoll_inss_run_batches(const atoll_client_records *r, uint32_t b, uint32_t batches, bool need_all,
                                bool drop_queued, bool drop_disturbed, double *lat, uint32_t *n_disturbed,
                                double *disturbed_lat) {
  /* Each batch's latency: its requests arrive together; the last one done ends it. */
  uint32_t cnt = 0, n_dist = 0;
  b = b ? b : 1;
  int64_t prev_done = -1; /* the last completion of the batch before (batch 0's, though not counted) */
  for (uint32_t j = 0; j < batches; j++) {
    int64_t last = -1, arr = 0, first = -1;
    bool all = true, disturbed = false;
    for (uint32_t q = 0; q < b && j * b + q < r->n; q++) {
      const atoll_request_record *rq = &r->req[j * b + q];
      if (rq->done_ns > last)
        last = rq->done_ns;
      all = all && rq->done_ns >= 0;
      disturbed = disturbed || rq->disturbed;
      arr = rq->arrival_ns;
      if (first < 0 || rq->arrival_ns < first)
        first = rq->arrival_ns;
    }
    /* Queued: it came while the batch before was still running (or that one never completed), so
     * its latency holds that wait. */
    bool queued = drop_queued && j > 0 && (prev_done < 0 || first < prev_done);
    prev_done = all ? last : -1;
    if (j == 0 || queued || last <= 0 || (need_all && !all))
      continue;
    if (drop_disturbed && disturbed) {
      if (disturbed_lat)
        disturbed_lat[n_dist] = (double)(last - arr);
      n_dist++;
      continue;
    }
    lat[cnt++] = (double)(last - arr);
  }
  if (n_disturbed)
    *n_disturbed += n_dist;
  return cnt;
}

double atoll_inss_run_figure(const atoll_client_records *r, uint32_t b, uint32_t batches, bool median,
                             bool drop_queued, uint32_t *n_clean) {
  double lat[ATOLL_INSS_FIT_MAX_RUN], sum = 0;
  batches = batches < ATOLL_INSS_FIT_MAX_RUN ? batches : ATOLL_INSS_FIT_MAX_RUN;
  uint32_t cnt = atoll_inss_run_batches(r, b, batches, median, drop_queued, false, lat, NULL, NULL);
  if (n_clean)
    *n_clean = cnt;
  if (median && cnt)
    return median_sorting(lat, cnt);
  for (uint32_t k = 0; k < cnt; k++)
    sum += lat[k];
  return cnt ? sum / cnt : NAN;
}

/* What a plan that drops disturbed batches keeps of a sample's runs: per client, the batches kept
 * and the disturbed ones (the fallback), over the runs. */
typedef struct pool {
  double kept[ATOLL_INSS_FIT_MAX_COLOC][4 * ATOLL_INSS_FIT_MAX_RUN];
  double dist[ATOLL_INSS_FIT_MAX_COLOC][4 * ATOLL_INSS_FIT_MAX_RUN];
  uint32_t n_kept[ATOLL_INSS_FIT_MAX_COLOC], n_dist[ATOLL_INSS_FIT_MAX_COLOC];
  uint32_t least_queued_clean; /* this run: the fewest batches a client kept, disturbed ones counted */
} pool;

static void pool_run(pool *pl, const atoll_run_results *res, const atoll_inss_slot *slot, uint32_t n,
                     uint32_t batches, bool drop_queued) {
  pl->least_queued_clean = UINT32_MAX;
  for (uint32_t k = 0; k < n; k++) {
    double kept[ATOLL_INSS_FIT_MAX_RUN], dist[ATOLL_INSS_FIT_MAX_RUN];
    uint32_t n_dist = 0;
    uint32_t n_kept = atoll_inss_run_batches(&res->clients[k], slot[k].batch, batches, true, drop_queued, true, kept,
                                             &n_dist, dist);
    if (n_kept + n_dist < pl->least_queued_clean) /* disturbed ones counted */
      pl->least_queued_clean = n_kept + n_dist;
    for (uint32_t q = 0; q < n_kept && pl->n_kept[k] < 4 * ATOLL_INSS_FIT_MAX_RUN; q++)
      pl->kept[k][pl->n_kept[k]++] = kept[q];
    for (uint32_t q = 0; q < n_dist && pl->n_dist[k] < 4 * ATOLL_INSS_FIT_MAX_RUN; q++)
      pl->dist[k][pl->n_dist[k]++] = dist[q];
  }
}

/* n slots together, `batches` batches each, the first not counted; gap_ns > 0 spaces them so
 * (else 1.3x each slot's predicted latency), times `stretch`; with pl, the
 * clients' batches go to the pool instead of *observed_ns. */
static int observe_once(const atoll_scenario *s, const atoll_inss_fit_plan *p, const atoll_inss_model *m,
                        const atoll_inss_slot *slot, uint32_t n, uint32_t batches, int64_t gap_ns, uint32_t stretch,
                        double *observed_ns, uint32_t *least_clean, pool *pl) {
  if (n == 0 || n > ATOLL_INSS_FIT_MAX_COLOC)
    return ATOLL_EINVAL;
  for (uint32_t k = 0; k < n; k++) /* each client's request times are sized for the largest batch */
    if (slot[k].batch > ATOLL_INSS_MAX_BATCH)
      return ATOLL_EINVAL;
  atoll_client cl[ATOLL_INSS_FIT_MAX_COLOC];
  int64_t *at = calloc((size_t)n * batches * ATOLL_INSS_MAX_BATCH, sizeof *at);
  if (!at)
    return ATOLL_ENOMEM;
  uint32_t pcts[ATOLL_GSLICE_MAX_IFS] = {0};
  for (uint32_t k = 0; k < n; k++)
    pcts[k] = slot[k].pct;
  atoll_scenario one = *s;
  one.clients = cl;
  one.n_clients = n;
  one.gpu_count = 1, one.run_gpu = 0;
  int64_t end = 0;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t b = slot[k].batch ? slot[k].batch : 1;
    atoll_inss_slot alone = slot[k];
    double pred = atoll_inss_inf_ns(m, &alone, 1, 0);
    if (!(pred >= 0 && pred < 1e15)) /* no figure (a sample that measured nothing): no spacing of its own */
      pred = 0;
    /* The offset per model makes the overlaps vary. */
    int64_t period = gap_ns > 0 ? gap_ns : (int64_t)(pred * p->gap_factor) + 1000 + (int64_t)k * 7919;
    period *= stretch;
    int64_t *t = at + (size_t)k * batches * ATOLL_INSS_MAX_BATCH;
    for (uint32_t j = 0; j < batches; j++)
      for (uint32_t r = 0; r < b; r++)
        t[j * b + r] = (int64_t)j * period;
    if ((int64_t)batches * period > end)
      end = (int64_t)batches * period;
    cl[k] = (atoll_client){.name = m->prof[slot[k].prof].name, .model = model_of(m, s, slot[k].prof),
                           .cls = ATOLL_CLASS_BE,
                           .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = t, .n_times = batches * b},
                           .batch_max = b > 1 ? b : 0, .batch_timeout_ns = b > 1 ? p->batch_timeout_ns : 0};
  }
  for (uint32_t k = 0; k < n; k++)
    cl[k].cus = atoll_gslice_layout(&one, pcts, k);
  one.policy = atoll_policy_defaults(ATOLL_POLICY_MPS_STATIC);
  one.duration_ns = end * 4 + 1000000000;
  one.warmup_ns = 0;
  one.expects = NULL, one.n_expects = 0;
  atoll_run_results res;
  int rc = p->run(&one, p->ctx, &res);
  if (rc == 0 && pl) {
    pool_run(pl, &res, slot, n, batches, p->drop_queued);
    atoll_run_results_free(&res);
  } else if (rc == 0) {
    *least_clean = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t clean;
      observed_ns[k] =
          atoll_inss_run_figure(&res.clients[k], slot[k].batch, batches, p->median, p->drop_queued, &clean);
      if (clean < *least_clean)
        *least_clean = clean;
    }
    atoll_run_results_free(&res);
  }
  free(at);
  return rc;
}

static int observe_pooled(const atoll_scenario *s, const atoll_inss_fit_plan *p, const atoll_inss_model *m,
                          const atoll_inss_slot *slot, uint32_t n, uint32_t batches, int64_t gap_ns,
                          double *observed_ns, atoll_inss_fit_report *rep);

/* observe_once (observe_pooled where the plan drops disturbed batches); where the plan drops
 * queued batches and a client kept fewer than half of its counted ones, the run is measured again
 * with its batches twice as far apart (at most twice), so that a figure is of the model's latency
 * and not of a queue that the device's other load built up. */
static int observe(const atoll_scenario *s, const atoll_inss_fit_plan *p, const atoll_inss_model *m,
                   const atoll_inss_slot *slot, uint32_t n, uint32_t batches, int64_t gap_ns, double *observed_ns,
                   atoll_inss_fit_report *rep) {
  if (p->drop_disturbed)
    return observe_pooled(s, p, m, slot, n, batches, gap_ns, observed_ns, rep);
  uint32_t stretch = 1, clean = 0;
  for (int attempt = 0;; attempt++, stretch *= 2) {
    int rc = observe_once(s, p, m, slot, n, batches, gap_ns, stretch, observed_ns, &clean, NULL);
    if (rc || !p->drop_queued || 2 * clean >= batches - 1 || attempt == 2)
      return rc;
  }
}

/* observe for a plan that drops disturbed batches: runs until every client has kept at least half
 * of one run's counted batches over the runs (at most disturbed_runs), each run's batches twice as
 * far apart as the last's where a client lost more than half of them to queueing (at most 4x); the
 * figure is the median of what was kept over the runs, or of the disturbed batches where nothing
 * was. */
static int observe_pooled(const atoll_scenario *s, const atoll_inss_fit_plan *p, const atoll_inss_model *m,
                          const atoll_inss_slot *slot, uint32_t n, uint32_t batches, int64_t gap_ns,
                          double *observed_ns, atoll_inss_fit_report *rep) {
  pool *pl = calloc(1, sizeof *pl);
  if (!pl)
    return ATOLL_ENOMEM;
  /* need: half of a run's counted batches (all but its first), rounded up */
  uint32_t stretch = 1, runs = p->disturbed_runs > 0 ? p->disturbed_runs : 1, need = batches / 2;
  int rc = 0;
  for (uint32_t attempt = 0; attempt < runs; attempt++) {
    uint32_t dist_before = 0;
    for (uint32_t k = 0; k < n; k++)
      dist_before += pl->n_dist[k];
    if ((rc = observe_once(s, p, m, slot, n, batches, gap_ns, stretch, observed_ns, NULL, pl)))
      break;
    uint32_t dist_after = 0;
    bool enough = true;
    for (uint32_t k = 0; k < n; k++)
      dist_after += pl->n_dist[k], enough = enough && pl->n_kept[k] >= need;
    if (rep)
      rep->n_disturbed += dist_after - dist_before;
    if (enough)
      break;
    if (rep && attempt + 1 < runs)
      rep->n_disturbed_reruns++;
    if (2 * pl->least_queued_clean < batches - 1 && stretch < 4)
      stretch *= 2;
  }
  for (uint32_t k = 0; rc == 0 && k < n; k++) {
    if (pl->n_kept[k]) {
      observed_ns[k] = median_sorting(pl->kept[k], pl->n_kept[k]);
    } else {
      observed_ns[k] = pl->n_dist[k] ? median_sorting(pl->dist[k], pl->n_dist[k]) : NAN;
      if (rep && pl->n_dist[k])
        rep->n_disturbed_only++;
    }
  }
  free(pl);
  return rc;
}

int atoll_sim_inss_observe(const atoll_scenario *s, const atoll_inss_model *m, const atoll_inss_slot *slot, uint32_t n,
                           double *observed_ns) {
  atoll_inss_fit_plan p;
  atoll_inss_fit_sim(&p);
  return observe(s, &p, m, slot, n, BATCHES_PER_RUN, 0, observed_ns, NULL);
}

/* A batch of b requests alone on pct %: the mean of the plan's solo runs but the first (in the
 * simulator the second of two batches 10 s apart), which, as in the co-location runs, is not
 * counted, so solo and co-located samples are measured alike.
 * In the simulator's plan a batch that queued behind the first is not counted (solo_unqueued):
 * a batch of 16 taking 32 s alone was measured 54 s, 22 s of them the first batch's. And a sample
 * that measured nothing (its counted batch had not completed when the run ended: a batch of 32
 * taking 64 s) was NaN, which made every prediction of the model NaN. Such a sample is measured
 * again with the gap 4x as long, at most SOLO_RETRIES times, queued batches dropped so that the
 * figure is of a batch alone. */
enum { SOLO_RETRIES = 4 };
static int solo(const atoll_scenario *s, const atoll_inss_fit_plan *p, const atoll_inss_model *m, uint32_t prof,
                uint32_t b, uint32_t pct, double *out, atoll_inss_fit_report *rep) {
  atoll_inss_slot one = {.prof = prof, .pct = pct, .batch = b};
  int64_t gap = p->solo_gap_ns;
  if (gap <= 0) {
    int64_t lat = s->models[model_of(m, s, prof)].model.measured_latency_ns;
    gap = 2 * (lat > 0 ? lat : 10000000) * (int64_t)b + 1000000;
  }
  atoll_inss_fit_plan unqueued = *p;
  unqueued.drop_queued = true;
  int rc = observe(s, p->solo_unqueued ? &unqueued : p, m, &one, 1, p->solo_runs, gap, out, rep);
  for (int retry = 0; rc == 0 && !(*out > 0) && retry < SOLO_RETRIES && gap <= INT64_MAX / 4; retry++) {
    gap *= 4;
    rc = observe(s, &unqueued, m, &one, 1, p->solo_runs, gap, out, rep);
  }
  return rc;
}

static double mape(const atoll_inss_fit_report *rep, bool train) {
  double sum = 0;
  uint32_t n = 0;
  for (uint32_t j = 0; j < rep->n_sets; j++) {
    const atoll_inss_coloc *c = &rep->sets[j];
    if (c->train != train)
      continue;
    for (uint32_t k = 0; k < c->n; k++)
      if (c->observed_ns[k] > 0) {
        sum += fabs(c->predicted_ns[k] - c->observed_ns[k]) / c->observed_ns[k];
        n++;
      }
  }
  return n ? 100.0 * sum / n : NAN;
}

/* A deterministic stream for the co-location sets. */
static uint32_t next_rand(uint64_t *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*st >> 33);
}

/* The LWR's leave-one-out error over every model's solo samples (MAPE, %). */
static double loo_mape(const atoll_inss_model *m) {
  double loo = 0;
  uint32_t n_loo = 0;
  for (uint32_t i = 0; i < m->n_models; i++) {
    const atoll_inss_profile *p = &m->prof[i];
    for (uint32_t k = 0; k < p->n_points; k++) {
      atoll_inss_profile q = *p;
      q.n_points = 0;
      for (uint32_t j = 0; j < p->n_points; j++)
        if (j != k) {
          q.pt_batch[q.n_points] = p->pt_batch[j], q.pt_pct[q.n_points] = p->pt_pct[j], q.pt_ns[q.n_points] = p->pt_ns[j];
          q.n_points++;
        }
      double pred = atoll_inss_run_ns(&q, m->bandwidth, p->pt_batch[k], p->pt_pct[k]);
      loo += fabs(pred - p->pt_ns[k]) / p->pt_ns[k];
      n_loo++;
    }
  }
  return n_loo ? 100.0 * loo / n_loo : NAN;
}

double atoll_inss_traffic_bytes(const atoll_model *md) {
  double bytes = 0;
  for (uint32_t o = 0; o < md->n_ops; o++) {
    const atoll_op *op = &md->ops[o];
    if (op->kind != ATOLL_OP_KERNEL)
      continue;
    for (uint32_t k = 0; k < op->n_reads; k++)
      bytes += (double)md->tensors[op->reads[k]].bytes;
    for (uint32_t k = 0; k < op->n_writes; k++)
      bytes += (double)md->tensors[op->writes[k]].bytes;
    for (uint32_t k = 0; k < op->n_readwrites; k++)
      bytes += 2.0 * (double)md->tensors[op->readwrites[k]].bytes;
  }
  return bytes;
}

/* A model's L2 line l = l2_alpha rho + l2_beta from its batch-1 solo samples: at each share its
 * traffic rate alone (bytes per ns = GB/s) over the memory bandwidth, by least squares in rho. */
static void l2_line(atoll_inss_profile *p, double bytes, double gb_s) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (uint32_t k = 0; k < p->n_points; k++) {
    if (p->pt_batch[k] != 1 || !(p->pt_ns[k] > 0))
      continue;
    double x = p->pt_pct[k] / 100.0, y = bytes / p->pt_ns[k] / gb_s;
    n++, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  if (n == 0)
    return;
  double d = n * sxx - sx * sx;
  p->l2_alpha = d > 1e-12 ? (n * sxy - sx * sy) / d : 0;
  p->l2_beta = (sy - p->l2_alpha * sx) / n;
}

/* Solves the k x k normal equations a x = y (k <= 3) by Gaussian elimination with partial
 * pivoting; false when singular. */
static bool solve_small(double a[3][3], double y[3], uint32_t k, double *x) {
  for (uint32_t c = 0; c < k; c++) {
    uint32_t piv = c;
    for (uint32_t r = c + 1; r < k; r++)
      if (fabs(a[r][c]) > fabs(a[piv][c]))
        piv = r;
    if (fabs(a[piv][c]) <= 1e-12 * (fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]) + 1))
      return false;
    for (uint32_t j = 0; j < k; j++) {
      double tmp = a[c][j];
      a[c][j] = a[piv][j], a[piv][j] = tmp;
    }
    double tmp = y[c];
    y[c] = y[piv], y[piv] = tmp;
    for (uint32_t r = c + 1; r < k; r++) {
      double f = a[r][c] / a[c][c];
      for (uint32_t j = c; j < k; j++)
        a[r][j] -= f * a[c][j];
      y[r] -= f * y[c];
    }
  }
  for (uint32_t c = k; c-- > 0;) {
    double v = y[c];
    for (uint32_t j = c + 1; j < k; j++)
      v -= a[c][j] * x[j];
    x[c] = v / a[c][c];
  }
  return true;
}

/* The interference coefficients over the training sets, where the plan's sets cannot use the
 * simulator's two-term fit: they all hold the same number of models (alpha_s and beta_s are then
 * one term: beta_s is taken as 0), or the cache term is fitted too (its regressor o_r x the
 * co-located L2 utilisation). Measured sets are noisy and their latencies differ by 100x: the
 * squares are of relative errors (each sample weighted 1 / observed^2, so a long model's noise
 * does not outweigh a short one's fit, and what is minimised is close to the MAPE reported), and
 * a coefficient the data would make negative (interference that speeds models up) is dropped and
 * the others fitted again without it. */
static bool fit_columns(const atoll_inss_fit_plan *p, const atoll_inss_model *m, atoll_inss_fit_report *rep,
                        const bool *use, double *x);

static void fit_general(const atoll_inss_fit_plan *p, atoll_inss_model *m, atoll_inss_fit_report *rep, bool same_n) {
  bool use[3] = {true, !same_n, p->fit_cache};
  double x[3] = {0};
  for (int pass = 0; pass < 3; pass++) {
    if (!fit_columns(p, m, rep, use, x))
      return;
    /* beta_s may be negative (a fixed saving the per-model term outweighs); the others may not. */
    int worst = -1;
    for (int c = 0; c < 3; c += 2)
      if (use[c] && x[c] < 0 && (worst < 0 || x[c] < x[worst]))
        worst = c;
    if (worst < 0)
      break;
    use[worst] = false, x[worst] = 0;
  }
  m->alpha_s_ns = use[0] ? x[0] : 0;
  m->beta_s_ns = use[1] ? x[1] : 0;
  m->alpha_cache = use[2] ? x[2] : 0;
}

static bool fit_columns(const atoll_inss_fit_plan *p, const atoll_inss_model *m, atoll_inss_fit_report *rep,
                        const bool *use, double *out) {
  uint32_t cols = 0, idx[3];
  for (uint32_t c = 0; c < 3; c++)
    if (use[c])
      idx[cols++] = c;
  if (cols == 0)
    return true;
  double a[3][3] = {{0}}, y[3] = {0}, x[3] = {0};
  rep->n_train = 0;
  for (uint32_t j = 0; j < p->n_sets; j++) {
    const atoll_inss_coloc *c = &rep->sets[j];
    if (!c->train)
      continue;
    for (uint32_t k = 0; k < c->n; k++) {
      if (!(c->observed_ns[k] > 0))
        continue;
      const atoll_inss_profile *pr = &m->prof[c->slot[k].prof];
      double K = pr->n_kernels;
      double o_r = atoll_inss_run_ns(pr, m->bandwidth, c->slot[k].batch, c->slot[k].pct);
      double l = 0;
      for (uint32_t q = 0; q < c->n; q++)
        if (q != k) {
          double lq = m->prof[c->slot[q].prof].l2_alpha * c->slot[q].pct / 100.0 + m->prof[c->slot[q].prof].l2_beta;
          l += lq > 0 ? lq : 0;
        }
      double w = 1 / c->observed_ns[k];
      double all[3] = {c->n * K * w, K * w, o_r * l * w}, r[3], target = (c->observed_ns[k] - o_r) * w;
      for (uint32_t u = 0; u < cols; u++)
        r[u] = all[idx[u]];
      for (uint32_t u = 0; u < cols; u++) {
        for (uint32_t v = 0; v < cols; v++)
          a[u][v] += r[u] * r[v];
        y[u] += r[u] * target;
      }
      rep->n_train++;
    }
  }
  if (!solve_small(a, y, cols, x))
    return false;
  for (uint32_t u = 0; u < cols; u++)
    out[idx[u]] = x[u];
  return true;
}

int atoll_sim_inss_fit(const atoll_scenario *s, atoll_inss_model *m, atoll_inss_fit_report *rep) {
  atoll_inss_fit_plan p;
  atoll_inss_fit_sim(&p);
  return atoll_inss_fit_by(s, &p, m, rep);
}

/* Every measurement of the fit: each solo sample's and each set's figures over the rounds and
 * the re-measurements (at most ATOLL_INSS_FIT_MAX_SAMPLES each). */
typedef struct samples {
  double solo[ATOLL_INSS_MAX_MODELS][ATOLL_INSS_MAX_POINTS][ATOLL_INSS_FIT_MAX_SAMPLES];
  uint32_t n_solo[ATOLL_INSS_MAX_MODELS][ATOLL_INSS_MAX_POINTS];
  double set[ATOLL_INSS_FIT_SETS][ATOLL_INSS_FIT_MAX_COLOC][ATOLL_INSS_FIT_MAX_SAMPLES];
  uint32_t n_set[ATOLL_INSS_FIT_SETS];
} samples;

double atoll_inss_median_of(const double *v, uint32_t n) {
  double w[ATOLL_INSS_FIT_MAX_SAMPLES];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n && k < ATOLL_INSS_FIT_MAX_SAMPLES; i++)
    if (v[i] > 0)
      w[k++] = v[i];
  return k ? median_sorting(w, k) : NAN;
}

double atoll_inss_least_of(const double *v, uint32_t n) {
  double least = NAN;
  for (uint32_t i = 0; i < n; i++)
    if (v[i] > 0 && !(v[i] >= least))
      least = v[i];
  return least;
}

/* A sample's figure over its measurements (the plan's least_of_rounds). */
static double figure_of(const atoll_inss_fit_plan *pl, const double *v, uint32_t n) {
  return pl->least_of_rounds ? atoll_inss_least_of(v, n) : atoll_inss_median_of(v, n);
}

bool atoll_inss_disagree(const double *v, uint32_t n, double spread) {
  double lo = INFINITY, hi = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!(v[i] > 0))
      return true; /* a run that measured nothing (NaN): measured again */
    lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
  }
  return n > 0 && hi > spread * lo;
}

/* The solo samples' figures (the median of each one's measurements), the models' L2 lines, and
 * the LWR's width: the one of a few that predicts each solo sample best from the others
 * (leave-one-out); its error is the solo MAPE reported. */
static void settle_solos(const atoll_scenario *s, const atoll_inss_fit_plan *pl, atoll_inss_model *m,
                         atoll_inss_fit_report *rep, const samples *sm) {
  for (uint32_t i = 0; i < m->n_models; i++) {
    atoll_inss_profile *p = &m->prof[i];
    for (uint32_t k = 0; k < p->n_points; k++)
      p->pt_ns[k] = figure_of(pl, sm->solo[i][k], sm->n_solo[i][k]);
    if (pl->fit_cache)
      l2_line(p, atoll_inss_traffic_bytes(&s->models[i].model), pl->memory_gb_s);
  }
  static const double widths[] = {0.2, 0.3, 0.4, 0.5, 0.7, 1.0};
  double best = INFINITY, best_w = 0.5;
  for (uint32_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    m->bandwidth = widths[w];
    double e = loo_mape(m);
    if (e < best)
      best = e, best_w = widths[w];
  }
  m->bandwidth = best_w;
  rep->mape_solo_pct = best;
}

static int measure_solo(const atoll_scenario *s, const atoll_inss_fit_plan *pl, const atoll_inss_model *m,
                        atoll_inss_fit_report *rep, samples *sm, uint32_t i, uint32_t k) {
  const atoll_inss_profile *p = &m->prof[i];
  double t;
  int rc = solo(s, pl, m, i, (uint32_t)p->pt_batch[k], (uint32_t)p->pt_pct[k], &t, rep);
  if (rc == 0)
    sm->solo[i][k][sm->n_solo[i][k]++] = t;
  return rc;
}

static int measure_set(const atoll_scenario *s, const atoll_inss_fit_plan *pl, const atoll_inss_model *m,
                       atoll_inss_fit_report *rep, samples *sm, uint32_t j) {
  const atoll_inss_coloc *c = &rep->sets[j];
  double obs[ATOLL_INSS_FIT_MAX_COLOC];
  int rc = observe(s, pl, m, c->slot, c->n, pl->batches_per_run, 0, obs, rep);
  if (rc == 0) {
    for (uint32_t k = 0; k < c->n; k++)
      sm->set[j][k][sm->n_set[j]] = obs[k];
    sm->n_set[j]++;
  }
  return rc;
}

/* One round after the first with the plan's interleave: the solo samples and the sets in turn,
 * spread evenly over the round (the sets' batches are spaced by the solo part the rounds before
 * settled), so that load which rises or falls over the round's tens of seconds falls on both. */
static int measure_interleaved(const atoll_scenario *s, const atoll_inss_fit_plan *pl, atoll_inss_model *m,
                               atoll_inss_fit_report *rep, samples *sm) {
  uint32_t n_solo = 0, done_solo = 0, done_set = 0, i = 0, k = 0;
  for (uint32_t q = 0; q < m->n_models; q++)
    n_solo += m->prof[q].n_points;
  int rc;
  while (done_solo < n_solo || done_set < pl->n_sets) {
    /* the one further behind its share of the round goes next */
    if (done_set == pl->n_sets || (done_solo < n_solo && done_solo * pl->n_sets <= done_set * n_solo)) {
      while (k >= m->prof[i].n_points)
        i++, k = 0;
      if ((rc = measure_solo(s, pl, m, rep, sm, i, k++)))
        return rc;
      done_solo++;
    } else if ((rc = measure_set(s, pl, m, rep, sm, done_set++))) {
      return rc;
    }
  }
  settle_solos(s, pl, m, rep, sm);
  return 0;
}

/* The solo grid and the sets, round by round: each round measures every solo sample, settles the
 * model's solo part (the sets' batches are spaced by its predictions) and measures every set, so
 * that a device's other load, which comes and goes, falls on solo and co-located runs alike; the
 * figures are medians over the rounds. Then a sample whose measurements disagree (max over min
 * above the plan's spread) is measured again, up to max_samples in all. The simulator's plan: one
 * round, nothing measured again. */
static int measure(const atoll_scenario *s, const atoll_inss_fit_plan *pl, atoll_inss_model *m,
                   atoll_inss_fit_report *rep, samples *sm) {
  uint32_t rounds = pl->rounds ? pl->rounds : 1;
  uint32_t cap = pl->max_samples > rounds ? pl->max_samples : rounds;
  int rc;
  for (uint32_t r = 0; r < rounds; r++) {
    if (r > 0 && pl->interleave) {
      if ((rc = measure_interleaved(s, pl, m, rep, sm)))
        return rc;
      continue;
    }
    for (uint32_t i = 0; i < m->n_models; i++)
      for (uint32_t k = 0; k < m->prof[i].n_points; k++)
        if ((rc = measure_solo(s, pl, m, rep, sm, i, k)))
          return rc;
    settle_solos(s, pl, m, rep, sm);
    for (uint32_t j = 0; j < pl->n_sets; j++)
      if ((rc = measure_set(s, pl, m, rep, sm, j)))
        return rc;
  }
  for (bool again = pl->spread > 0; again;) {
    again = false;
    for (uint32_t i = 0; i < m->n_models; i++)
      for (uint32_t k = 0; k < m->prof[i].n_points; k++)
        if (sm->n_solo[i][k] < cap && atoll_inss_disagree(sm->solo[i][k], sm->n_solo[i][k], pl->spread)) {
          if ((rc = measure_solo(s, pl, m, rep, sm, i, k)))
            return rc;
          rep->n_remeasured++, again = true;
        }
    settle_solos(s, pl, m, rep, sm);
    for (uint32_t j = 0; j < pl->n_sets; j++) {
      bool off = false;
      for (uint32_t k = 0; k < rep->sets[j].n; k++)
        off = off || atoll_inss_disagree(sm->set[j][k], sm->n_set[j], pl->spread);
      if (sm->n_set[j] < cap && off) {
        if ((rc = measure_set(s, pl, m, rep, sm, j)))
          return rc;
        rep->n_remeasured++, again = true;
      }
    }
  }
  for (uint32_t j = 0; j < pl->n_sets; j++)
    for (uint32_t k = 0; k < rep->sets[j].n; k++)
      rep->sets[j].observed_ns[k] = figure_of(pl, sm->set[j][k], sm->n_set[j]);
  return 0;
}

int atoll_inss_fit_by(const atoll_scenario *s, const atoll_inss_fit_plan *pl, atoll_inss_model *m,
                      atoll_inss_fit_report *rep) {
  if (s->n_models == 0 || s->n_models > ATOLL_INSS_MAX_MODELS || pl->n_batches * pl->n_pcts > ATOLL_INSS_MAX_POINTS ||
      pl->n_batches * pl->n_pcts == 0 || pl->n_sets > ATOLL_INSS_FIT_SETS || pl->min_coloc < 2 ||
      pl->max_coloc < pl->min_coloc || pl->max_coloc > ATOLL_INSS_FIT_MAX_COLOC || pl->share_units < pl->max_coloc ||
      pl->n_set_batches == 0 || pl->solo_runs < 2 || pl->batches_per_run < 2 ||
      pl->solo_runs > ATOLL_INSS_FIT_MAX_RUN || pl->batches_per_run > ATOLL_INSS_FIT_MAX_RUN || !(pl->gap_factor > 0) ||
      pl->batch_timeout_ns < 1 || (pl->fit_cache && !(pl->memory_gb_s > 0)) ||
      pl->rounds > ATOLL_INSS_FIT_MAX_SAMPLES || pl->max_samples > ATOLL_INSS_FIT_MAX_SAMPLES ||
      (pl->spread != 0 && !(pl->spread >= 1)) || pl->disturbed_runs > 4)
    return ATOLL_EINVAL;
  memset(m, 0, sizeof *m);
  memset(rep, 0, sizeof *rep);
  m->bandwidth = 0.5;
  m->n_models = s->n_models;
  for (uint32_t i = 0; i < s->n_models; i++) {
    atoll_inss_profile *p = &m->prof[i];
    const atoll_model *md = &s->models[i].model;
    p->name = s->models[i].name;
    for (uint32_t o = 0; o < md->n_ops; o++)
      p->n_kernels += md->ops[o].kind == ATOLL_OP_KERNEL;
    p->mem_mb = md->weights_mb;
    p->act_mb = md->activations_mb_per_batch;
    for (uint32_t bi = 0; bi < pl->n_batches; bi++)
      for (uint32_t pi = 0; pi < pl->n_pcts; pi++) {
        uint32_t k = p->n_points++;
        p->pt_batch[k] = pl->batches[bi], p->pt_pct[k] = pl->pcts[pi];
      }
  }
  /* Co-location sets: min_coloc..max_coloc models, shares in units (at least one each, all of
   * them in all), batches from the plan's, drawn from a stream seeded by the scenario's seed; even
   * sets train, odd test. (The simulator's: 2-4 models, a 10 % grid, batches 1-8.) */
  uint64_t st = s->seed * 2654435761u + 17;
  uint32_t span = pl->max_coloc - pl->min_coloc + 1;
  bool same_n = true;
  for (uint32_t j = 0; j < pl->n_sets; j++) {
    atoll_inss_coloc *c = &rep->sets[j];
    c->n = pl->min_coloc + j / 2 % span;
    c->train = j % 2 == 0;
    same_n = same_n && c->n == pl->min_coloc;
    uint32_t left = pl->share_units - c->n; /* units beyond one each */
    for (uint32_t k = 0; k < c->n; k++) {
      uint32_t extra = k + 1 < c->n ? next_rand(&st) % (left + 1) : left;
      extra = extra > left ? left : extra;
      left -= extra;
      c->slot[k] = (atoll_inss_slot){.prof = next_rand(&st) % m->n_models,
                                     .pct = 100 * (1 + extra) / pl->share_units,
                                     .batch = pl->set_batches[next_rand(&st) % pl->n_set_batches]};
    }
  }
  samples *sm = calloc(1, sizeof *sm);
  if (!sm)
    return ATOLL_ENOMEM;
  int rc = measure(s, pl, m, rep, sm);
  free(sm);
  if (rc)
    return rc;
  if (same_n || pl->fit_cache) {
    fit_general(pl, m, rep, same_n);
  } else {
    /* Least squares for int = alpha_s x n + beta_s per kernel: the co-located time beyond the solo
     * prediction, obs - o_r = (alpha_s n + beta_s) K, over the training sets. */
    double a11 = 0, a12 = 0, a22 = 0, y1 = 0, y2 = 0;
    for (uint32_t j = 0; j < pl->n_sets; j++) {
      atoll_inss_coloc *c = &rep->sets[j];
      if (!c->train)
        continue;
      for (uint32_t k = 0; k < c->n; k++) {
        if (!(c->observed_ns[k] > 0))
          continue;
        double K = m->prof[c->slot[k].prof].n_kernels;
        double o_r = atoll_inss_run_ns(&m->prof[c->slot[k].prof], m->bandwidth, c->slot[k].batch, c->slot[k].pct);
        double x1 = c->n * K, x2 = K, y = c->observed_ns[k] - o_r;
        a11 += x1 * x1, a12 += x1 * x2, a22 += x2 * x2, y1 += x1 * y, y2 += x2 * y;
        rep->n_train++;
      }
    }
    double det = a11 * a22 - a12 * a12;
    if (fabs(det) > 1e-9 * (a11 * a22 + 1)) {
      m->alpha_s_ns = (a22 * y1 - a12 * y2) / det;
      m->beta_s_ns = (a11 * y2 - a12 * y1) / det;
    }
    /* No L2 utilisation in the profiles and no cache contention in the simulated GPU: the cache
     * term stays 0 (docs/inss.md). */
    m->alpha_cache = 0;
  }
  for (uint32_t j = 0; j < pl->n_sets; j++) {
    atoll_inss_coloc *c = &rep->sets[j];
    for (uint32_t k = 0; k < c->n; k++)
      c->predicted_ns[k] = atoll_inss_inf_ns(m, c->slot, c->n, k);
    if (!c->train)
      rep->n_test += c->n;
  }
  rep->n_sets = pl->n_sets;
  rep->mape_train_pct = mape(rep, true);
  rep->mape_test_pct = mape(rep, false);
  return 0;
}
