/* The native runner and plan of `atoll fit inss --device` (tools/atoll/inss_native.h). */
#include "tools/atoll/inss_native.h"

#include "atoll/error.h"

static const uint32_t solo_b[] = {1, 2, 3, 4};
static const uint32_t set_b[] = {1, 2, 3, 4};

int atoll__inss_native_runner(const atoll_scenario *s, void *ctx, atoll_run_results *res) {
  atoll_inss_native_ctx *c = ctx;
  /* The fit reads batch latencies, not the report's normalised ones: no standalone runs. */
  int64_t alone[ATOLL_INSS_MAX_MODELS];
  if (s->n_models > ATOLL_INSS_MAX_MODELS)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < s->n_models; i++)
    alone[i] = 1;
  atoll_native_opts o = c->no;
  o.standalone_ns = alone;
  o.end_when_done = true;
  /* A native run lasts its duration (the simulator's ends with its events) unless it ends once
   * every request has completed; the duration, the last resort, is 2 s past the last arrival. */
  int64_t end = 0;
  for (uint32_t k = 0; k < s->n_clients; k++) {
    const atoll_arrival *a = &s->clients[k].arrival;
    if (a->kind == ATOLL_ARRIVAL_TRACE && a->n_times && a->times_ns[a->n_times - 1] > end)
      end = a->times_ns[a->n_times - 1];
  }
  atoll_scenario run = *s;
  run.duration_ns = end + 2000000000;
  c->runs++;
  c->err[0] = '\0';
  /* Which requests ran while another process held a CU worker's CPU (the fit leaves them out). */
  uint32_t per_client = 0;
  for (uint32_t k = 0; k < s->n_clients; k++)
    if (s->clients[k].arrival.n_times > per_client)
      per_client = s->clients[k].arrival.n_times;
  int rc = o.tap ? 0 : atoll__inss_disturb_begin(ATOLL_INSS_LOST_NS, s->n_clients, per_client);
  bool timed = rc == 0 && !o.tap;
  if (timed)
    o.tap = atoll__inss_disturb_tap();
  if (rc == 0)
    rc = atoll_native_run(&run, &o, res, NULL, c->err, sizeof c->err);
  if (timed)
    c->disturbed_requests += atoll__inss_disturb_end(rc == 0 ? res : NULL, &c->disturb);
  if (rc == 0)
    res->scenario = s; /* run is gone when the fit reads and frees res: the same clients */
  return rc;
}

void atoll__inss_fit_native(atoll_inss_fit_plan *p, uint32_t cus, double gb_s, uint32_t *pcts,
                            atoll_inss_native_ctx *ctx) {
  uint32_t n = cus < 4 ? cus : 4;
  for (uint32_t k = 0; k < n; k++)
    pcts[k] = 100 * (k + 1) / n;
  *p = (atoll_inss_fit_plan){.run = atoll__inss_native_runner, .ctx = ctx, .batches = solo_b, .n_batches = 4,
                             .pcts = pcts, .n_pcts = n, .solo_runs = 6, .solo_gap_ns = 0, .n_sets = 16,
                             .min_coloc = 2, .max_coloc = n, .share_units = n, .set_batches = set_b,
                             .n_set_batches = 4, .batches_per_run = 10, .gap_factor = 2, .median = true,
                             .batch_timeout_ns = 2000000, .fit_cache = true,
                             .memory_gb_s = gb_s > 0 ? gb_s : 1, .rounds = 3, .max_samples = 5, .spread = 1.25,
                             .drop_queued = true, .drop_disturbed = true, .disturbed_runs = 4,
                             .least_of_rounds = true, .interleave = true};
}
