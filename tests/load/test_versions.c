/* Multi-version kernels as loaded: the reef policy's multi_version option defaults to on exactly
 * when some kernel has versions, and the synthetic versions of the DISB models
 * (scenarios/models/mv, tools/gen-versions.py) load, keep every op's default shape as the plain
 * profile's, and survive REEF's offline pruning whole: the generator prunes as REEF does, so no
 * written implementation dominates another. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "core/dkp.h"
#include "io/load.h"
#include "sim/kernel_timing.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path

typedef struct loaded {
  atoll_arena arena;
  atoll_diag diag;
  atoll_scenario s;
  int rc;
} loaded;

static loaded *load(const char *path, const char *const *sets, uint32_t n_sets) {
  loaded *l = calloc(1, sizeof *l);
  atoll_set_override ov[8];
  for (uint32_t i = 0; i < n_sets; i++)
    ov[i] = (atoll_set_override){.text = sets[i]};
  atoll_arena_init(&l->arena);
  l->rc = atoll_scenario_load_file(&l->arena, path, ov, n_sets, &l->s, &l->diag);
  if (l->rc)
    fail_msg("%s:%u:%u: %s", l->diag.file, l->diag.line, l->diag.col, l->diag.msg);
  return l;
}

static void unload(loaded *l) {
  atoll_arena_free(&l->arena);
  free(l);
}

static void multi_version_defaults_to_on_when_versions_exist(void **state) {
  (void)state;
  static const struct {
    const char *path, *set;
    bool want;
  } cases[] = {
      {SRC("scenarios/examples/tiny.yaml"), "policy=reef", true},            /* tiny-model has versions */
      {SRC("scenarios/examples/tiny.yaml"), "policy.name=reef", true},
      {SRC("scenarios/disb/A.yaml"), "policy=reef", false},                  /* REEF's profiles have none */
      {SRC("scenarios/experiments/fig23-pair.yaml"), "policy=reef", true},   /* synthetic versions */
      {SRC("scenarios/experiments/fig23-pair.yaml"), "policy.multi_version=false", false},
      {SRC("scenarios/examples/tiny.yaml"), "policy=reset", false},          /* no padding, no versions */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *sets[] = {cases[i].set};
    loaded *l = load(cases[i].path, sets, 1);
    if (l->s.policy.multi_version != cases[i].want)
      fail_msg("%s with %s: multi_version %d, want %d", cases[i].path, cases[i].set, l->s.policy.multi_version,
               cases[i].want);
    unload(l);
  }
  /* Without padding there is nothing to choose versions for: dkp off keeps it off. */
  const char *sets[] = {"policy=reef", "policy.dkp=false"};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), sets, 2);
  assert_false(l->s.policy.multi_version);
  unload(l);
}

static void synthetic_versions_load_and_none_is_pruned(void **state) {
  (void)state;
  static const char *const models[] = {"vgg", "resnet152", "bert", "yolov3", "gpt2"};
  loaded *mv = load(SRC("scenarios/experiments/fig23-pair.yaml"), NULL, 0);
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    /* The plain profile, through a scenario that names it. */
    char set[96];
    snprintf(set, sizeof set, "clients.be.model=%s", models[i]);
    const char *sets[] = {set};
    loaded *plain = load(SRC("scenarios/experiments/fig18-models.yaml"), sets, 1);
    const atoll_model *a = NULL, *b = NULL;
    for (uint32_t m = 0; m < mv->s.n_models; m++)
      if (strcmp(mv->s.models[m].name, models[i]) == 0)
        a = &mv->s.models[m].model;
    for (uint32_t m = 0; m < plain->s.n_models; m++)
      if (strcmp(plain->s.models[m].name, models[i]) == 0)
        b = &plain->s.models[m].model;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->n_ops, b->n_ops);
    uint32_t versions = 0;
    for (uint32_t o = 0; o < a->n_ops; o++) {
      const atoll_op *op = &a->ops[o];
      if (op->kind != ATOLL_OP_KERNEL)
        continue;
      if (!atoll_kernel_shape_times_alike(&op->shape, &b->ops[o].shape))
        fail_msg("%s op %u: the default shape differs from the plain profile's", models[i], o);
      assert_cmp(op->n_versions, <=, 3);
      versions += op->n_versions;
      const atoll_kernel_shape *all[4] = {&op->shape};
      for (uint32_t v = 0; v < op->n_versions; v++)
        all[v + 1] = &op->versions[v];
      uint8_t keep[4];
      if (atoll_dkp_prune(all, 1 + op->n_versions, keep) != 1 + op->n_versions)
        fail_msg("%s op %u: pruning drops one of its %u versions", models[i], o, op->n_versions);
      /* The default is the fastest implementation launched normally, as the compiler chose it. */
      for (uint32_t v = 0; v < op->n_versions; v++)
        assert_cmp(op->versions[v].time_ns, >, op->shape.time_ns);
    }
    /* The generator keeps most of its three candidates per kernel. */
    assert_cmp(versions, >, 2 * a->n_ops);
    unload(plain);
  }
  unload(mv);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(multi_version_defaults_to_on_when_versions_exist),
    cmocka_unit_test(synthetic_versions_load_and_none_is_pruned),
};
ATOLL_TEST_MAIN(tests)
