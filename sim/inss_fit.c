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
enum { BATCHES_PER_RUN = 20 };

/* The profile index of s's model `model` in m (m's profiles follow s's models). */
static uint32_t model_of(const atoll_inss_model *m, const atoll_scenario *s, uint32_t prof) {
  for (uint32_t i = 0; i < s->n_models; i++)
    if (strcmp(s->models[i].name, m->prof[prof].name) == 0)
      return i;
  return 0;
}

/* n slots together, `batches` batches each, the first not counted; gap_ns > 0 spaces them so
 * (else 1.3x each slot's predicted latency). */
static int observe(const atoll_scenario *s, const atoll_inss_model *m, const atoll_inss_slot *slot, uint32_t n,
                   uint32_t batches, int64_t gap_ns, double *observed_ns) {
  if (n == 0 || n > ATOLL_INSS_FIT_MAX_COLOC)
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
    int64_t period = gap_ns > 0 ? gap_ns : (int64_t)(pred * 1.3) + 1000 + (int64_t)k * 7919; /* the overlaps vary */
    int64_t *t = at + (size_t)k * batches * ATOLL_INSS_MAX_BATCH;
    for (uint32_t j = 0; j < batches; j++)
      for (uint32_t r = 0; r < b; r++)
        t[j * b + r] = (int64_t)j * period;
    if ((int64_t)batches * period > end)
      end = (int64_t)batches * period;
    cl[k] = (atoll_client){.name = m->prof[slot[k].prof].name, .model = model_of(m, s, slot[k].prof),
                           .cls = ATOLL_CLASS_BE,
                           .arrival = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = t, .n_times = batches * b},
                           .batch_max = b > 1 ? b : 0, .batch_timeout_ns = b > 1 ? 1 : 0};
  }
  for (uint32_t k = 0; k < n; k++)
    cl[k].cus = atoll_gslice_layout(&one, pcts, k);
  one.policy = atoll_policy_defaults(ATOLL_POLICY_MPS_STATIC);
  one.duration_ns = end * 4 + 1000000000;
  one.warmup_ns = 0;
  one.expects = NULL, one.n_expects = 0;
  int64_t alone[ATOLL_INSS_MAX_MODELS * 4];
  for (uint32_t i = 0; i < s->n_models && i < ATOLL_INSS_MAX_MODELS * 4; i++)
    alone[i] = 1;
  atoll_sim_opts o = {.standalone_ns = alone};
  atoll_run_results res;
  int rc = atoll_sim_run(&one, &o, &res);
  if (rc == 0) {
    for (uint32_t k = 0; k < n; k++) {
      /* Each batch's latency: its requests arrive together; the last one done ends it. */
      double sum = 0;
      uint32_t cnt = 0, b = slot[k].batch ? slot[k].batch : 1;
      for (uint32_t j = 1; j < batches; j++) {
        int64_t last = -1, arr = 0;
        for (uint32_t r = 0; r < b && j * b + r < res.clients[k].n; r++) {
          const atoll_request_record *q = &res.clients[k].req[j * b + r];
          if (q->done_ns > last)
            last = q->done_ns;
          arr = q->arrival_ns;
        }
        if (last > 0)
          sum += (double)(last - arr), cnt++;
      }
      observed_ns[k] = cnt ? sum / cnt : NAN;
    }
    atoll_run_results_free(&res);
  }
  free(at);
  return rc;
}

int atoll_sim_inss_observe(const atoll_scenario *s, const atoll_inss_model *m, const atoll_inss_slot *slot, uint32_t n,
                           double *observed_ns) {
  return observe(s, m, slot, n, BATCHES_PER_RUN, 0, observed_ns);
}

/* A batch of b requests alone on pct %: the second of two batches 10 s apart (the first, as in the
 * co-location runs, is not counted), so solo and co-located samples are measured alike. */
static int solo(const atoll_scenario *s, const atoll_inss_model *m, uint32_t prof, uint32_t b, uint32_t pct,
                double *out) {
  atoll_inss_slot one = {.prof = prof, .pct = pct, .batch = b};
  return observe(s, m, &one, 1, 2, 10000000000, out);
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

int atoll_sim_inss_fit(const atoll_scenario *s, atoll_inss_model *m, atoll_inss_fit_report *rep) {
  if (s->n_models == 0 || s->n_models > ATOLL_INSS_MAX_MODELS)
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
    for (uint32_t bi = 0; bi < ATOLL_INSS_FIT_BATCHES; bi++)
      for (uint32_t pi = 0; pi < ATOLL_INSS_FIT_PCTS; pi++) {
        double t;
        int rc = solo(s, m, i, grid_b[bi], grid_p[pi], &t);
        if (rc)
          return rc;
        uint32_t k = p->n_points++;
        p->pt_batch[k] = grid_b[bi], p->pt_pct[k] = grid_p[pi], p->pt_ns[k] = t;
      }
  }
  /* The LWR's width: the one of a few that predicts each solo sample best from the others
   * (leave-one-out); its error is the solo MAPE reported. */
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
  /* Co-location sets: 2-4 models, shares on a 10 % grid (at least 10 % each, at most 100 in all),
   * batches 1-8, drawn from a stream seeded by the scenario's seed; even sets train, odd test. */
  uint64_t st = s->seed * 2654435761u + 17;
  static const uint32_t batches[] = {1, 2, 4, 8};
  for (uint32_t j = 0; j < ATOLL_INSS_FIT_SETS; j++) {
    atoll_inss_coloc *c = &rep->sets[j];
    c->n = 2 + j / 2 % 3;
    c->train = j % 2 == 0;
    uint32_t left = 10 - c->n; /* tenths beyond one each */
    for (uint32_t k = 0; k < c->n; k++) {
      uint32_t extra = k + 1 < c->n ? next_rand(&st) % (left + 1) : left;
      extra = extra > left ? left : extra;
      left -= extra;
      c->slot[k] = (atoll_inss_slot){.prof = next_rand(&st) % m->n_models, .pct = 10 * (1 + extra),
                                     .batch = batches[next_rand(&st) % 4]};
    }
    int rc = atoll_sim_inss_observe(s, m, c->slot, c->n, c->observed_ns);
    if (rc)
      return rc;
  }
  /* Least squares for int = alpha_s x n + beta_s per kernel: the co-located time beyond the solo
   * prediction, obs - o_r = (alpha_s n + beta_s) K, over the training sets. */
  double a11 = 0, a12 = 0, a22 = 0, y1 = 0, y2 = 0;
  for (uint32_t j = 0; j < ATOLL_INSS_FIT_SETS; j++) {
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
  /* No L2 utilisation in the profiles and no cache contention in the simulated GPU: the cache term
   * stays 0 (docs/inss.md). */
  m->alpha_cache = 0;
  for (uint32_t j = 0; j < ATOLL_INSS_FIT_SETS; j++) {
    atoll_inss_coloc *c = &rep->sets[j];
    for (uint32_t k = 0; k < c->n; k++)
      c->predicted_ns[k] = atoll_inss_inf_ns(m, c->slot, c->n, k);
    if (!c->train)
      rep->n_test += c->n;
  }
  rep->n_sets = ATOLL_INSS_FIT_SETS;
  rep->mape_train_pct = mape(rep, true);
  rep->mape_test_pct = mape(rep, false);
  return 0;
}
