/* A program outside atoll's tree that links the installed library (atoll.pc or find_package(atoll)):
 * it loads the scenario named on the command line, with its GPU preset found in the install's data
 * folder, simulates it and prints the request count and preemptions of each run. */
#include <stdio.h>

#include "io/load.h"
#include "sim/run.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: sim_client SCENARIO\n");
    return 2;
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s;
  if (atoll_scenario_load_file(&a, argv[1], NULL, 0, &s, &d) != 0) {
    atoll_diag_print(&d, stderr);
    atoll_arena_free(&a);
    return 2;
  }
  atoll_sim_opts opts = {0};
  atoll_run_results res;
  int rc = atoll_sim_run(&s, &opts, &res);
  if (rc == 0) {
    unsigned long requests = 0;
    for (uint32_t c = 0; c < s.n_clients; c++)
      requests += res.clients[c].n;
    printf("gpu %s, %u clients, %lu requests, %u preemptions\n", s.gpu.name, s.n_clients, requests,
           res.n_preemptions);
    atoll_run_results_free(&res);
  }
  atoll_arena_free(&a);
  return rc == 0 ? 0 : 1;
}
