/* soak_models.h — the soak's scenario, built in code: the catalogue's native models (cnn,
 * transformer, inplace) and one small real-time model of the soak's own, with profiles whose op
 * times are measured on this machine (single-thread CPU runs) and whose idempotence comes from
 * idem_checker on each model's own trace, as `atoll-nmodel profile` writes them. */
#ifndef ATOLL_TESTS_SOAK_MODELS_H
#define ATOLL_TESTS_SOAK_MODELS_H

#include <stdint.h>

#include "io/arena.h"
#include "atoll/scenario.h"
#include "native/models/nmodel.h"

enum { SOAK_MAX_MODELS = 4, SOAK_MAX_CLIENTS = 16 };

/* "soak_mini": a convolutional classifier at the smallest useful size (8 x 8 image, 8 channels),
 * a dozen microseconds of work per kernel: RT requests that end quickly, so RT mode is entered and
 * left often and nearly every RT arrival preempts the best-effort work. */
const atoll_nmodel *soak_mini_model(void);

typedef struct soak_scenario {
  atoll_arena arena;
  atoll_scenario s;
  atoll_scenario_model models[SOAK_MAX_MODELS];
  atoll_client clients[SOAK_MAX_CLIENTS];
  const atoll_nmodel *nmodels[SOAK_MAX_MODELS];
} soak_scenario;

/* The soak mix on a CPU device of `cus` CUs under REEF: RT soak_mini (Poisson, rt_hz) and RT cnn
 * (Poisson, rt_hz / 32); BE transformer, cnn, inplace and a second inplace, all closed loop.
 * Returns 0, or an ATOLL_E* code with the reason in err. */
int soak_build(soak_scenario *f, uint32_t cus, double rt_hz, uint64_t seed, char *err, size_t err_len);
void soak_free(soak_scenario *f);

#endif
