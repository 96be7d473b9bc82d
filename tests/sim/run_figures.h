/* A simulated run's figures that its timing decides: each client's mean latency (the report's, by
 * value) and the run's event count. Shared by the tests that compare runs which must agree. */
#ifndef ATOLL_TESTS_SIM_RUN_FIGURES_H
#define ATOLL_TESTS_SIM_RUN_FIGURES_H

#include "tests/atoll_test.h"
#include "run/report.h"
#include "sim/run.h"

static inline void atoll_test_run_figures(const atoll_scenario *s, const atoll_sim_opts *o, double *mean_us,
                                          uint64_t *events) {
  atoll_run_results res;
  assert_int_equal(atoll_sim_run(s, o, &res), 0);
  atoll_report rep;
  assert_int_equal(atoll_report_compute(&res, &rep), 0);
  for (uint32_t c = 0; c < s->n_clients; c++)
    mean_us[c] = rep.clients[c].latency_us.mean;
  *events = res.events;
  atoll_report_free(&rep);
  atoll_run_results_free(&res);
}

#endif
