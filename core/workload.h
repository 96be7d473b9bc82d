/* Request arrivals: when each client's next request arrives.
 *
 * Pure and deterministic: each client has its own random stream, derived from the scenario seed
 * and the client's index, so adding a client never changes another client's arrivals. The
 * simulator and the native runner both drive it. Closed-loop clients have no arrival schedule:
 * the runner sends the next request when the previous one completes. */
#ifndef ATOLL_CORE_WORKLOAD_H
#define ATOLL_CORE_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"

typedef struct atoll_rng {
  uint64_t s[4];
} atoll_rng;

void atoll_rng_seed(atoll_rng *r, uint64_t seed, uint64_t stream);
uint64_t atoll_rng_next(atoll_rng *r);
/* Uniform in (0, 1]: never 0, so -log(u) is finite. */
double atoll_rng_unit(atoll_rng *r);

typedef struct atoll_client_gen {
  atoll_rng rng;
  atoll_arrival_kind kind;
  double rate_hz;          /* resolved rate for uniform / poisson */
  const int64_t *times_ns; /* trace */
  uint32_t n_times;
  int64_t repeat_ns;
  uint64_t emitted;        /* arrivals produced so far */
  int64_t last_ns;
  const int64_t *step_at_ns; /* step */
  const double *step_rate_hz;
  uint32_t n_steps;
  uint32_t step;             /* the step the last arrival fell in */
  /* A blocking client (atoll_arrival.blocking) while a request is in flight: its next time on the
   * schedule, sent when the request completes if that is later (-1: none left). */
  int64_t held_ns;
  bool in_flight;
} atoll_client_gen;

/* rate_hz is the client's resolved rate (rate_hz, or load / standalone latency); ignored for
 * closed and trace clients. */
void atoll_client_gen_init(atoll_client_gen *g, const atoll_arrival *a, double rate_hz, uint64_t seed,
                           uint32_t client_index);
/* The next arrival time, or -1 when the client has no further scheduled arrival (closed loop, a
 * trace that does not repeat and is exhausted, or an arrival beyond ~146 years). Times never
 * decrease. */
int64_t atoll_client_gen_next(atoll_client_gen *g);

#endif
