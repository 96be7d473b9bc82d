/* Scenarios for native runs built in code: small native models (a tiny RT model, a BE model with
 * in-place adds whose restores need their group entry), their profiles (idempotence from
 * idem_checker on the model's own trace, synthetic times), and a CPU device description. Small
 * models keep runs fast under the sanitizers; the catalogue's models (cnn, inplace, transformer)
 * can be used the same way. */
#ifndef ATOLL_TESTS_NATIVE_FIXTURE_H
#define ATOLL_TESTS_NATIVE_FIXTURE_H

#include "io/arena.h"
#include "atoll/scenario.h"
#include "native/models/nmodel.h"
#include "native/runtime/nrun.h"

/* "tiny_rt": h2d x, y = x + x, d2h y (n floats, a few blocks). */
const atoll_nmodel *fx_tiny_rt(void);
/* "chain_be": h2d x (1024 floats); big = outer product of x and a weight row (256K floats);
 * y = big + big; y += big (group entry: that add); z = y + big; z += y (group entry: that add);
 * average pooling to 256 floats; d2h. The in-place adds span many blocks, so a kill often lands
 * inside one. */
const atoll_nmodel *fx_chain_be(void);
/* The same with 128 x 64 tensors: cheap preemptions, for runs that count them. */
const atoll_nmodel *fx_chain_be_small(void);

/* A model of n spin kernels of `iters` iterations each (one block, one thread, a point every 1000),
 * without copies: as a one-kernel RT model its first command is its kernel, as in
 * bench_native_preempt. */
typedef struct fx_spin_model {
  atoll_nmodel nm;
  atoll_tensor tensors[2];
  atoll_nop ops[64];
} fx_spin_model;
void fx_spin_build(fx_spin_model *m, const char *name, uint32_t n, int32_t iters);

typedef struct fx_client {
  const char *name;
  uint32_t model;  /* index into the fixture's models */
  atoll_client_class cls;
  atoll_arrival_kind arrival;
  double rate_hz;
} fx_client;

typedef struct fx_scenario {
  atoll_arena arena;
  atoll_scenario s;
  atoll_scenario_model models[4];
  atoll_client clients[8];
  const atoll_nmodel *nmodels[4];
} fx_scenario;

/* Builds a scenario over the given native models (profiles derived in code) and clients. */
void fx_build(fx_scenario *f, const atoll_nmodel *const *models, uint32_t n_models, const fx_client *clients,
              uint32_t n_clients, atoll_policy_kind policy, int64_t duration_ms, uint64_t seed);
/* Marks every non-idempotent op of model m as idempotent: a deliberately wrong profile. */
void fx_break_idempotence(fx_scenario *f, uint32_t m);
void fx_free(fx_scenario *f);

/* Default options for a CPU run of f with `cus` CUs (verify on, standalone latencies fixed so no
 * measurement runs first). */
atoll_native_opts fx_opts(const fx_scenario *f, uint32_t cus);

#endif
