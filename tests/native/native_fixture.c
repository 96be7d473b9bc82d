/* Native-run fixtures (native_fixture.h). */
#include "tests/native/native_fixture.h"

#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "atoll/error.h"
#include "native/models/nm_build.h"
#include "native/models/nmodel_profile.h"

enum { TINY_N = 4096, TINY_BLOCKS = 4 };

/* Inputs are a pure function of the request: small integers as floats, so sums stay exact and
 * a doubled add shows in every element. */
static void fill(uint64_t request, void *buf, uint32_t n) {
  float *f = buf;
  for (uint32_t i = 0; i < n; i++)
    f[i] = (float)((request * 7 + i * 13) % 97);
}

static void no_weights(void *const *host) { (void)host; }
static void tiny_input(uint64_t request, void *buf) { fill(request, buf, TINY_N); }

static atoll_nop copy_op(atoll_op_kind kind, const char *name, uint32_t t) {
  atoll_nop o;
  memset(&o, 0, sizeof o);
  o.kind = kind;
  o.name = name;
  for (int i = 0; i < AK_MAX_PTRS; i++)
    o.ptr[i] = ATOLL_NARG_NONE;
  o.ptr[0] = t;
  return o;
}

static atoll_nop kernel_op(const char *name, uint32_t kernel, uint32_t grid, const uint32_t *ptrs, uint32_t n_ptrs,
                           const int32_t *ints, uint32_t n_ints, const uint32_t *reads, uint32_t n_reads,
                           const uint32_t *writes, uint32_t n_writes) {
  atoll_nop o;
  memset(&o, 0, sizeof o);
  o.kind = ATOLL_OP_KERNEL;
  o.name = name;
  for (int i = 0; i < AK_MAX_PTRS; i++)
    o.ptr[i] = i < (int)n_ptrs ? ptrs[i] : ATOLL_NARG_NONE;
  o.v[0].kernel = kernel;
  o.v[0].grid = grid;
  o.v[0].threads = 64;
  o.v[0].occupancy = 1;
  memcpy(o.v[0].ints, ints, n_ints * sizeof *ints);
  o.n_versions = 1;
  memcpy(o.reads, reads, n_reads * sizeof *reads);
  o.n_reads = n_reads;
  memcpy(o.writes, writes, n_writes * sizeof *writes);
  o.n_writes = n_writes;
  return o;
}

static atoll_tensor tiny_tensors[2] = {{.name = "x", .bytes = TINY_N * 4, .kind = ATOLL_TENSOR_INPUT, .dtype = "float32"},
                                       {.name = "y", .bytes = TINY_N * 4, .kind = ATOLL_TENSOR_OUTPUT, .dtype = "float32"}};
static atoll_nop tiny_ops[3];
static atoll_nmodel tiny;

const atoll_nmodel *fx_tiny_rt(void) {
  if (tiny.name)
    return &tiny;
  int32_t per = TINY_N / TINY_BLOCKS;
  tiny_ops[0] = copy_op(ATOLL_OP_MEMCPY_H2D, "x_h2d", 0);
  tiny_ops[1] = kernel_op("double", AK_K_ADD, TINY_BLOCKS, (uint32_t[]){0, 0, 1}, 3, (int32_t[]){TINY_N, per}, 2,
                          (uint32_t[]){0}, 1, (uint32_t[]){1}, 1);
  tiny_ops[2] = copy_op(ATOLL_OP_MEMCPY_D2H, "y_d2h", 1);
  tiny = (atoll_nmodel){.name = "tiny_rt", .tensors = tiny_tensors, .n_tensors = 2, .ops = tiny_ops, .n_ops = 3,
                        .input = 0, .output = 1, .init_weights = no_weights, .make_input = tiny_input};
  return &tiny;
}

/* The BE model is built with the models' own builder: a small input expanded by an outer product
 * into a large tensor, so the copies stay small while the adds (the in-place ones among them) take
 * most of the model's time and most kills land in them. Two sizes: the large one for kills, the
 * small one for runs that count preemptions (it keeps each preemption cheap under sanitizers). */
typedef struct chain_model {
  nm_def def;
  atoll_nmodel m;
} chain_model;

static chain_model chains[2];
static void chain_weights0(void *const *host) { atoll__nm_init_weights(&chains[0].def, host); }
static void chain_input0(uint64_t request, void *buf) { atoll__nm_make_input(&chains[0].def, request, buf); }
static void chain_weights1(void *const *host) { atoll__nm_init_weights(&chains[1].def, host); }
static void chain_input1(uint64_t request, void *buf) { atoll__nm_make_input(&chains[1].def, request, buf); }

static const atoll_nmodel *chain_build(int small) {
  chain_model *c = &chains[small];
  if (c->m.name)
    return &c->m;
  nm_def *d = &c->def;
  atoll__nm_begin(d, small ? "chain_be_small" : "chain_be");
  const uint32_t M = small ? 128 : 1024, N = small ? 64 : 256, NONE = ATOLL_NARG_NONE;
  uint32_t x = atoll__nm_tensor(d, "x", M, ATOLL_TENSOR_INPUT);
  uint32_t w = atoll__nm_weight(d, "w", N, 1.0f, 0.0f);
  uint32_t big = atoll__nm_tensor(d, "big", (uint64_t)M * N, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t y = atoll__nm_tensor(d, "y", (uint64_t)M * N, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t z = atoll__nm_tensor(d, "z", (uint64_t)M * N, ATOLL_TENSOR_INTERMEDIATE);
  uint32_t out = atoll__nm_tensor(d, "pooled", (M / 32) * (N / 32), ATOLL_TENSOR_OUTPUT);
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_H2D, x);
  atoll__nm_linear(d, "expand", x, w, NONE, big, M, N, 1); /* big[m][n] = x[m] w[n] */
  atoll__nm_add(d, "y_add", big, big, y);
  atoll__nm_add_inplace(d, "y_add_inplace", y, big); /* group entry: y_add */
  atoll__nm_add(d, "z_add", y, big, z);
  atoll__nm_add_inplace(d, "z_add_inplace", z, y); /* group entry: z_add */
  atoll__nm_pool(d, "pool", 0, z, out, 1, M, N, 32, 32); /* averages of 32 x 32 windows of z */
  atoll__nm_copy(d, ATOLL_OP_MEMCPY_D2H, out);
  d->m.init_weights = small ? chain_weights1 : chain_weights0;
  d->m.make_input = small ? chain_input1 : chain_input0;
  const char *error = atoll__nm_end(d, x, out);
  if (error)
    fail_msg("%s: %s", d->m.name, error);
  c->m = d->m;
  return &c->m;
}

const atoll_nmodel *fx_chain_be(void) { return chain_build(0); }
const atoll_nmodel *fx_chain_be_small(void) { return chain_build(1); }

void fx_build(fx_scenario *f, const atoll_nmodel *const *models, uint32_t n_models, const fx_client *clients,
              uint32_t n_clients, atoll_policy_kind policy, int64_t duration_ms, uint64_t seed) {
  memset(f, 0, sizeof *f);
  atoll_arena_init(&f->arena);
  assert_true(n_models <= 4 && n_clients <= 8);
  atoll_gpu g = {.name = "cpu-test", .vendor = "cpu", .cus = 2, .max_blocks_per_cu = 1, .max_threads_per_cu = 1024,
                 .registers_per_cu = 65536, .shared_bytes_per_cu = 65536, .dq_capacity = 1024, .copy_engines = 1,
                 .costs = {.hq_transmit_ns = 5000, .cp_dispatch_ns = 5000, .launch_sync_ns = 10000,
                           .cu_reset_ns = 20000, .hq_reset_per_cmd_ns = 100, .hq_reset_async_ns = 1000,
                           .evicted_kernel_ns = 1000, .kernel_select_ns = 500, .copy_latency_ns = 5000,
                           .copy_bytes_per_us = 5000}};
  for (uint32_t m = 0; m < n_models; m++) {
    const atoll_nmodel *nm = models[m];
    atoll_nmodel_vtime *vt = calloc((size_t)nm->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
    /* Synthetic times: the first model's (the RT one in every test) 50 us per kernel, the others'
     * growing with the grid as measured ones do. Padding's Rule 1 compares a BE block's time with
     * the RT kernel's, so the BE kernels' blocks (a few us each) can be padded beside it. */
    for (uint32_t i = 0; i < nm->n_ops; i++)
      for (uint32_t v = 0; v < nm->ops[i].n_versions; v++)
        vt[(size_t)i * ATOLL_NMODEL_MAX_VERSIONS + v].time_ns =
            m == 0 ? 50000 : 20000 + 200 * (int64_t)nm->ops[i].v[v].grid;
    atoll_nmodel_times times = {.gpu = g.name, .cus = g.cus, .source = "test fixture", .latency_ns = 1000000, .vt = vt};
    f->nmodels[m] = nm;
    f->models[m].name = nm->name;
    f->models[m].path = "(fixture)";
    int rc = atoll__nmodel_to_model(nm, &times, &f->arena, &f->models[m].model);
    free(vt);
    if (rc)
      fail_msg("profile of %s: %s", nm->name, atoll_strerror(rc));
  }
  for (uint32_t c = 0; c < n_clients; c++) {
    const fx_client *x = &clients[c];
    f->clients[c] = (atoll_client){.name = x->name, .model = x->model, .cls = x->cls,
                                   .arrival = {.kind = x->arrival, .rate_hz = x->rate_hz}};
  }
  f->s = (atoll_scenario){.path = "(fixture)", .gpu = g, .models = f->models, .n_models = n_models,
                          .clients = f->clients, .n_clients = n_clients,
                          .policy = {.kind = policy, .dkp = policy == ATOLL_POLICY_REEF, .async_reclaim = true,
                                     .reset_cu = true},
                          .duration_ns = duration_ms * 1000000, .seed = seed};
}

void fx_break_idempotence(fx_scenario *f, uint32_t m) {
  atoll_op *ops = (atoll_op *)f->models[m].model.ops; /* the fixture's own arena copy */
  for (uint32_t i = 0; i < f->models[m].model.n_ops; i++)
    if (ops[i].kind == ATOLL_OP_KERNEL && ops[i].idem == ATOLL_IDEM_GROUP) {
      ops[i].idem = ATOLL_IDEM_YES;
      ops[i].group_entry = 0;
    }
}

void fx_free(fx_scenario *f) { atoll_arena_free(&f->arena); }

atoll_native_opts fx_opts(const fx_scenario *f, uint32_t cus) {
  static int64_t standalone[4] = {1000000, 1000000, 1000000, 1000000};
  return (atoll_native_opts){.device = "cpu", .cus = cus, .sched_cpu = -1, .verify = true, .nmodels = f->nmodels,
                             .standalone_ns = standalone};
}

static void spin_no_weights(void *const *h) { (void)h; }
static void spin_one_input(uint64_t r, void *buf) { *(float *)buf = (float)(r % 7); }

void fx_spin_build(fx_spin_model *m, const char *name, uint32_t n, int32_t iters) {
  memset(m, 0, sizeof *m);
  assert_true(n <= 64);
  m->tensors[0] = (atoll_tensor){.name = "in", .bytes = 4, .kind = ATOLL_TENSOR_INPUT, .dtype = "float32"};
  m->tensors[1] = (atoll_tensor){.name = "out", .bytes = 4, .kind = ATOLL_TENSOR_OUTPUT, .dtype = "float32"};
  for (uint32_t i = 0; i < n; i++)
    atoll__nm_spin_op(&m->ops[i], 1, iters);
  m->nm = (atoll_nmodel){.name = name, .tensors = m->tensors, .n_tensors = 2, .ops = m->ops, .n_ops = n,
                         .input = 0, .output = 1, .init_weights = spin_no_weights, .make_input = spin_one_input};
}
