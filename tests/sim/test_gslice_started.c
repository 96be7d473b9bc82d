/* Runs whose clients already carry gslice's starting shares (atoll_sim_opts.gslice_started, what
 * atoll capacity gives its probes): worked out once with atoll_sim_gslice_start, they give the
 * figures of a run that works them out itself; and the run takes the clients as given, without
 * sweeping the knees again. */
#include <string.h>

#include "tests/atoll_test.h"
#include "sim/knee.h"
#include "sim/run.h"
#include "tests/sim/run_figures.h"
#include "tests/test_scenario.h"

enum { MAX_CLIENTS = 8 };

static void started_once_runs_as_started_by_the_run(void **state) {
  (void)state;
  const char *sets[] = {"policy=gslice", "duration_ms=400", "warmup_ms=0"};
  atoll_test_scenario *l = atoll_test_load(ATOLL_SOURCE_DIR "/scenarios/seeds/gslice/three-ifs.yaml", sets, 3);
  const atoll_scenario *s = &l->s;
  assert_true(s->n_clients <= MAX_CLIENTS);
  double want[MAX_CLIENTS], got[MAX_CLIENTS];
  uint64_t want_events, got_events;
  atoll_test_run_figures(s, NULL, want, &want_events);

  atoll_client started[MAX_CLIENTS];
  memcpy(started, s->clients, s->n_clients * sizeof *started);
  assert_int_equal(atoll_sim_gslice_start(s, started), 0);
  uint32_t bound = 0;
  for (uint32_t i = 0; i < s->n_clients; i++)
    bound += !atoll_cuset_is_empty(&started[i].cus) && atoll_cuset_is_empty(&s->clients[i].cus);
  assert_true(bound > 0); /* the start gave shares: the clients below differ from the scenario's */
  atoll_scenario copy = *s;
  copy.clients = started;
  atoll_sim_opts o = {.gslice_started = true};
  atoll_test_run_figures(&copy, &o, got, &got_events);
  assert_int_equal(got_events, want_events);
  assert_memory_equal(got, want, s->n_clients * sizeof *got);

  /* Given the scenario's own clients, unshared, the run keeps them so: other figures. */
  atoll_test_run_figures(s, &o, got, &got_events);
  assert_true(got_events != want_events || memcmp(got, want, s->n_clients * sizeof *got) != 0);
  atoll_test_unload(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(started_once_runs_as_started_by_the_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
