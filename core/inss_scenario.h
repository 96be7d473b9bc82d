/* What the inss and gpulet policies read of a scenario for InSS's decisions (core/inss.h): each
 * client's profile in the fitted model, its declared rate and its SLO, and the decision for one
 * GPU's clients. */
#ifndef ATOLL_CORE_INSS_SCENARIO_H
#define ATOLL_CORE_INSS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "core/inss.h"

/* The profile of client c's model in s->inss (by name), or UINT32_MAX. */
uint32_t atoll__inss_profile_of(const atoll_scenario *s, uint32_t c);
/* Client c's declared rate (rate_hz, or load x its model's reference throughput; a trace's arrivals
 * in its first second; 0 for a closed loop). */
double atoll__inss_declared_rate(const atoll_scenario *s, uint32_t c);
/* Client c's SLO: deadline_ns, else a uniform client's period, else 1 s. */
double atoll__inss_slo_ns(const atoll_scenario *s, uint32_t c);
/* The decision for GPU g's clients (on a GPU of their own: shares, batches, the scale), with
 * rates[c] as each client's rate (NULL: the declared ones). idx gets the clients in order, *n
 * their count; plan's entries are indexed as idx. false when s has no model or too many clients. */
bool atoll__inss_gpu_plan(const atoll_scenario *s, uint32_t g, const double *rates, uint32_t step_pct,
                          uint32_t max_batch, double miss, uint32_t *idx, uint32_t *n, atoll_inss_plan *plan);
/* The placement over every GPU (InSS's provisioning), for the clients whose gpu: was not given. */
bool atoll__inss_place(const atoll_scenario *s, atoll_client *clients, uint32_t step_pct, uint32_t max_batch,
                       double miss);

#endif
