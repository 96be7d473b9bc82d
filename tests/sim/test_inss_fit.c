/* InSS's fit (sim/inss_fit.c) through a plan's runner, as `atoll fit inss --device` uses it: a
 * runner that answers with latencies made by a known interference law (solo time T(model, batch,
 * CUs), plus alpha_s x 2 per kernel and alpha_cache x T x the partner's memory traffic in a pair)
 * must get that law's coefficients back from the native plan's shape (whole-CU shares, pairs only,
 * the cache term fitted), with the held-out error near 0; a law whose partners speed a model up
 * must leave alpha_cache at 0, not negative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/cuset.h"
#include "atoll/error.h"
#include "run/driver.h"
#include "sim/inss_fit.h"
#include "tests/atoll_test.h"
#include "tests/test_scenario.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path

typedef struct law {
  double alpha_s_ns, alpha_cache, gb_s;
  uint32_t runs;
} law;

/* The model's time alone: a power law in the batch, 0.6x on 2 CUs (log-linear, so the LWR reads
 * it exactly at and between the grid's points). */
static double solo_ns(uint32_t model, uint32_t b, uint32_t cus) {
  static const double base[] = {7e6, 2e6, 15e6};
  return base[model % 3] * pow((double)b, 0.8) * (cus > 1 ? 0.6 : 1.0);
}

static uint32_t kernels(const atoll_model *md) {
  uint32_t n = 0;
  for (uint32_t o = 0; o < md->n_ops; o++)
    n += md->ops[o].kind == ATOLL_OP_KERNEL;
  return n;
}

static int lawful_runner(const atoll_scenario *s, void *ctx, atoll_run_results *res) {
  law *L = ctx;
  L->runs++;
  int rc = atoll_run_results_init(res, s, "sim");
  if (rc)
    return rc;
  for (uint32_t k = 0; k < s->n_clients; k++) {
    const atoll_client *c = &s->clients[k];
    const atoll_model *md = &s->models[c->model].model;
    uint32_t b = c->batch_max ? c->batch_max : 1, cus = atoll_cuset_count(&c->cus);
    double t = solo_ns(c->model, b, cus), l = 0;
    for (uint32_t q = 0; q < s->n_clients; q++)
      if (q != k) {
        const atoll_client *p = &s->clients[q];
        double alone_ns = solo_ns(p->model, 1, atoll_cuset_count(&p->cus));
        l += atoll_inss_traffic_bytes(&s->models[p->model].model) / alone_ns / L->gb_s;
      }
    if (s->n_clients > 1)
      t += L->alpha_s_ns * (double)s->n_clients * kernels(md) + L->alpha_cache * t * l;
    atoll_client_records *r = &res->clients[k];
    r->req = calloc(c->arrival.n_times, sizeof *r->req);
    if (!r->req)
      return ATOLL_ENOMEM;
    for (uint32_t j = 0; j < c->arrival.n_times; j++)
      r->req[j] = (atoll_request_record){.id = j, .arrival_ns = c->arrival.times_ns[j],
                                         .done_ns = c->arrival.times_ns[j] + (int64_t)t};
    r->n = r->cap = c->arrival.n_times;
  }
  return 0;
}

static const uint32_t solo_b[] = {1, 2, 4}, pcts[] = {50, 100}, set_b[] = {1, 2, 3, 4};

static void fit_law(law *L, atoll_inss_model *m, atoll_inss_fit_report *rep) {
  atoll_test_scenario *t = atoll_test_load(SRC("scenarios/native/inss.yaml"), NULL, 0);
  t->s.gpu.cus = 2;
  atoll_inss_fit_plan p = {.run = lawful_runner, .ctx = L, .batches = solo_b, .n_batches = 3, .pcts = pcts,
                           .n_pcts = 2, .solo_runs = 4, .n_sets = 16, .min_coloc = 2, .max_coloc = 2,
                           .share_units = 2, .set_batches = set_b, .n_set_batches = 4, .batches_per_run = 6,
                           .gap_factor = 2, .median = true, .batch_timeout_ns = 2000000, .fit_cache = true,
                           .memory_gb_s = L->gb_s};
  assert_int_equal(atoll_inss_fit_by(&t->s, &p, m, rep), 0);
  assert_int_equal(L->runs, 3 * 3 * 2 + 16);
  atoll_test_unload(t);
}

static void recovers_scheduling_and_cache_terms(void **state) {
  (void)state;
  law L = {.alpha_s_ns = 20000, .alpha_cache = 0.5, .gb_s = 1};
  atoll_inss_model *m = calloc(1, sizeof *m);
  atoll_inss_fit_report *rep = calloc(1, sizeof *rep);
  fit_law(&L, m, rep);
  assert_true(fabs(m->alpha_s_ns - 20000) < 200);
  assert_true(fabs(m->alpha_cache - 0.5) < 0.01);
  assert_true(m->beta_s_ns == 0); /* pairs only: one term */
  assert_true(m->prof[0].l2_beta > 0 || m->prof[0].l2_alpha > 0);
  assert_true(rep->mape_test_pct < 1.0);
  free(m);
  free(rep);
}

static void speed_up_leaves_no_negative_cache_term(void **state) {
  (void)state;
  law L = {.alpha_s_ns = 20000, .alpha_cache = -0.5, .gb_s = 1};
  atoll_inss_model *m = calloc(1, sizeof *m);
  atoll_inss_fit_report *rep = calloc(1, sizeof *rep);
  fit_law(&L, m, rep);
  assert_true(m->alpha_cache == 0);
  assert_true(m->alpha_s_ns >= 0);
  free(m);
  free(rep);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(recovers_scheduling_and_cache_terms),
    cmocka_unit_test(speed_up_leaves_no_negative_cache_term),
};
ATOLL_TEST_MAIN(tests)
