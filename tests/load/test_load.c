/* Loaders: the shipped example scenario and presets load with every field as written, --set
 * overrides, derived fields, and failed loads leave their output untouched. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tests/atoll_test.h"
#include "io/load.h"

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
  return l;
}

static void unload(loaded *l) {
  atoll_arena_free(&l->arena);
  free(l);
}

static void example_scenario_loads_every_field(void **state) {
  (void)state;
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), NULL, 0);
  if (l->rc)
    fail_msg("%s:%u:%u: %s", l->diag.file, l->diag.line, l->diag.col, l->diag.msg);
  const atoll_scenario *s = &l->s;
  assert_true(atoll_scenario_is_valid(s));
  assert_string_equal(s->gpu.name, "mi50");
  assert_int_equal(s->gpu.cus, 60);
  assert_int_equal(s->n_models, 1);
  assert_string_equal(s->models[0].name, "tiny");
  assert_int_equal(s->models[0].model.n_ops, 5);
  assert_int_equal(s->n_clients, 4);
  assert_string_equal(s->clients[0].name, "cam");
  assert_int_equal(s->clients[0].cls, ATOLL_CLASS_RT);
  assert_int_equal(s->clients[0].arrival.kind, ATOLL_ARRIVAL_UNIFORM);
  assert_cmp(s->clients[0].arrival.rate_hz, ==, 1000.0);
  assert_int_equal(s->clients[0].deadline_ns, 1000000);
  assert_int_equal(s->clients[1].arrival.kind, ATOLL_ARRIVAL_POISSON);
  assert_cmp(s->clients[1].arrival.load, ==, 0.1);
  const atoll_arrival *tr = &s->clients[2].arrival;
  assert_int_equal(tr->kind, ATOLL_ARRIVAL_TRACE);
  assert_int_equal(tr->n_times, 3);
  assert_int_equal(tr->times_ns[1], 2500000);
  assert_int_equal(tr->repeat_ns, 10000000);
  assert_int_equal(s->clients[3].cls, ATOLL_CLASS_BE);
  assert_int_equal(s->clients[3].arrival.kind, ATOLL_ARRIVAL_CLOSED);
  assert_int_equal(s->policy.kind, ATOLL_POLICY_REEF);
  assert_true(s->policy.dkp);
  assert_int_equal(s->policy.dq_capacity, 4);
  assert_int_equal(s->duration_ns, 100000000);
  assert_int_equal(s->warmup_ns, 10000000);
  assert_int_equal(s->seed, 7);
  assert_int_equal(s->n_expects, 3);
  assert_string_equal(s->expects[1].field, "clients.cam.latency_us.max");
  assert_int_equal(s->expects[1].cmp, ATOLL_CMP_LT);
  assert_cmp(s->expects[1].value, ==, 1000.0);
  unload(l);
}

static void derived_fields_follow_the_documented_formulas(void **state) {
  (void)state;
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), NULL, 0);
  assert_int_equal(l->rc, 0);
  const atoll_model *m = &l->s.models[0].model;
  /* conv: 64 blocks on 60 CUs at occupancy 1 = 2 waves of the 58 us occupancy-1 time. */
  const atoll_kernel_shape *conv = &m->ops[1].shape;
  assert_int_equal(conv->block_time_ns, 29000);
  assert_int_equal(conv->registers, 65536 / (4 * 256));
  assert_int_equal(conv->derived, ATOLL_DERIVED_BLOCK_TIME | ATOLL_DERIVED_REGISTERS);
  /* relu: no per-occupancy list, 16 blocks fit in one wave: block time = kernel time. */
  assert_int_equal(m->ops[2].shape.block_time_ns, 10000);
  assert_int_equal(m->ops[2].idem, ATOLL_IDEM_GROUP);
  assert_int_equal(m->ops[2].group_entry, 1);
  assert_int_equal(m->ops[2].n_versions, 1);
  assert_int_equal(m->ops[2].versions[0].occupancy, 16);
  /* dense: measured values are kept and not marked derived. */
  assert_int_equal(m->ops[3].shape.block_time_ns, 40000);
  assert_int_equal(m->ops[3].shape.time_ns, 40500);
  assert_int_equal(m->ops[3].shape.registers, 32);
  assert_int_equal(m->ops[3].shape.derived, 0);
  assert_int_equal(m->ops[1].idem, ATOLL_IDEM_YES);
  assert_int_equal(m->ops[0].kind, ATOLL_OP_MEMCPY_H2D);
  assert_int_equal(m->ops[0].bytes, 4096);
  unload(l);
}

static void set_overrides_values_by_name_and_index(void **state) {
  (void)state;
  const char *sets[] = {"policy.dq_capacity=8", "clients.1.deadline_ms=5", "clients.events.arrival.load=0.25",
                        "clients.replay.arrival.times_ms=[0, 1, 2]", "seed=99", "duration_ms=60000"};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), sets, 6);
  if (l->rc)
    fail_msg("%s:%u:%u: %s", l->diag.file, l->diag.line, l->diag.col, l->diag.msg);
  assert_int_equal(l->s.policy.dq_capacity, 8);
  assert_true(l->s.policy.dkp); /* the rest of the policy mapping stays */
  assert_int_equal(l->s.clients[1].deadline_ns, 5000000);
  assert_cmp(l->s.clients[1].arrival.load, ==, 0.25);
  assert_int_equal(l->s.clients[2].arrival.n_times, 3);
  assert_int_equal(l->s.clients[2].arrival.times_ns[2], 2000000);
  assert_int_equal(l->s.seed, 99);
  assert_int_equal(l->s.duration_ns, 60000000000LL);
  unload(l);
}

static void set_policy_replaces_and_scalar_policy_keeps_its_name(void **state) {
  (void)state;
  const char *sets[] = {"policy=streams", "policy.priority=true"};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), sets, 2);
  if (l->rc)
    fail_msg("%s:%u:%u: %s", l->diag.file, l->diag.line, l->diag.col, l->diag.msg);
  assert_int_equal(l->s.policy.kind, ATOLL_POLICY_STREAMS);
  assert_true(l->s.policy.priority);
  assert_false(l->s.policy.dkp);
  assert_int_equal(l->s.policy.dq_capacity, 0);
  unload(l);
}

/* The example scenario with one --set refused: the load fails, the message names msg_part, and the
 * error is located in `file` when given. */
static void assert_refused(const char *set, const char *file, const char *msg_part) {
  const char *sets[] = {set};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), sets, 1);
  assert_int_equal(l->rc, ATOLL_EPARSE);
  if (file)
    assert_string_equal(l->diag.file, file);
  if (!strstr(l->diag.msg, msg_part))
    fail_msg("--set %s: '%s' does not say '%s'", set, l->diag.msg, msg_part);
  unload(l);
}

/* --set gpu.KEY on a scenario whose gpu is a preset name changes that value of the preset and keeps
 * the rest, costs key by key; a GPU mapping whose name is no preset still needs atoll_gpu:. */
static void set_changes_one_value_of_a_gpu_preset(void **state) {
  (void)state;
  loaded *base = load(SRC("scenarios/examples/tiny.yaml"), NULL, 0);
  assert_int_equal(base->rc, 0);
  const atoll_gpu *g0 = &base->s.gpu;
  const char *sets[] = {"gpu.cus=120", "gpu.costs.cu_reset_us=9"};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), sets, 2);
  if (l->rc)
    fail_msg("%s:%u:%u: %s", l->diag.file, l->diag.line, l->diag.col, l->diag.msg);
  const atoll_gpu *g = &l->s.gpu;
  assert_string_equal(g->name, g0->name);
  assert_int_equal(g->cus, 120);
  assert_int_not_equal(g0->cus, 120);
  assert_int_equal(g->costs.cu_reset_ns, 9000);
  assert_int_not_equal(g0->costs.cu_reset_ns, 9000);
  assert_int_equal(g->max_blocks_per_cu, g0->max_blocks_per_cu);
  assert_int_equal(g->registers_per_cu, g0->registers_per_cu);
  assert_int_equal(g->dq_capacity, g0->dq_capacity);
  assert_int_equal(g->costs.hq_transmit_ns, g0->costs.hq_transmit_ns);
  assert_int_equal(g->costs.evicted_kernel_ns, g0->costs.evicted_kernel_ns);
  assert_int_equal(g->costs.dkp_overhead_ppm, g0->costs.dkp_overhead_ppm);
  unload(l);
  /* A changed value is checked like one in the preset, and its error points into the argument. */
  assert_refused("gpu.cus=0", "--set", "below the minimum");
  assert_refused("gpu={name: nosuch, cus: 4}", "--set", "unknown GPU preset 'nosuch'");
  unload(base);
}

static void set_errors_point_into_the_argument(void **state) {
  (void)state;
  /* rate_hz and load together: the error names the arrival, located in the file. */
  assert_refused("clients.cam.arrival.load=0.5", NULL, "exactly one of rate_hz and load");
  const char *bad[] = {"policy.dq_capacity=-3"};
  loaded *l = load(SRC("scenarios/examples/tiny.yaml"), bad, 1);
  assert_int_equal(l->rc, ATOLL_EPARSE);
  assert_string_equal(l->diag.file, "--set");
  assert_int_equal(l->diag.line, 1);
  assert_int_equal(l->diag.col, 20);
  assert_string_equal(l->diag.line_text, "policy.dq_capacity=-3");
  assert_string_equal(l->diag.path, "policy.dq_capacity");
  unload(l);
  assert_refused("policy", NULL, "PATH=VALUE");
}

static void failed_load_leaves_output_untouched(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s, before;
  memset(&s, 0xA5, sizeof s);
  memcpy(&before, &s, sizeof s);
  /* Fails late: after GPU, models and clients were read. */
  int rc = atoll_scenario_load_file(&a, SRC("scenarios/bad/bad_expect_stat.yaml"), NULL, 0, &s, &d);
  assert_int_equal(rc, ATOLL_EPARSE);
  assert_memory_equal(&s, &before, sizeof s);
  atoll_model m, mb;
  memset(&m, 0x5A, sizeof m);
  memcpy(&mb, &m, sizeof m);
  atoll_diag_clear(&d);
  rc = atoll_model_load_file(&a, SRC("scenarios/bad/models/unknown_tensor.yaml"), NULL, &m, &d);
  assert_int_equal(rc, ATOLL_EPARSE);
  assert_memory_equal(&m, &mb, sizeof m);
  atoll_arena_free(&a);
}

static void presets_load_and_are_valid(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_gpu g;
  assert_int_equal(atoll_gpu_load_file(&a, SRC("scenarios/gpus/mi50.yaml"), &g, &d), 0);
  assert_true(atoll_gpu_is_valid(&g));
  assert_int_equal(g.cus, 60);
  assert_string_equal(g.vendor, "amd");
  assert_int_equal(g.costs.cu_reset_ns, 3000);
  assert_int_equal(atoll_gpu_load_file(&a, SRC("scenarios/gpus/gv100.yaml"), &g, &d), 0);
  assert_true(atoll_gpu_is_valid(&g));
  assert_int_equal(g.cus, 80);
  assert_string_equal(g.vendor, "nvidia");
  assert_int_equal(g.costs.cu_reset_ns, 15000);
  /* Name lookup falls back to the data folder next to the executable (the build tree links it to
   * the source's scenarios/). */
  const char *p = atoll_gpu_find_preset(&a, "gv100", "/nonexistent");
  assert_non_null(p);
  assert_null(atoll_gpu_find_preset(&a, "no-such-gpu", "/nonexistent"));
  atoll_arena_free(&a);
}

static int parse_text(atoll_arena *a, const char *text, atoll_ynode **root, atoll_diag *d) {
  static atoll_source src;
  src = (atoll_source){.name = "t.yaml", .text = text, .len = strlen(text)};
  atoll_diag_clear(d);
  return atoll_ytree_parse(a, &src, 0, root, d);
}

static void ytree_reports_duplicates_aliases_and_reads_json(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_ynode *root;
  assert_int_equal(parse_text(&a, "a: 1\nb:\n  c: 2\n  c: 3\n", &root, &d), ATOLL_EPARSE);
  assert_int_equal(d.line, 4);
  assert_int_equal(d.col, 3);
  assert_non_null(strstr(d.msg, "duplicate key 'c' (first at line 3)"));
  assert_int_equal(parse_text(&a, "a: &x [1]\nb: *x\n", &root, &d), ATOLL_EPARSE);
  assert_int_equal(d.line, 2);
  assert_int_equal(parse_text(&a, "{\"k\":[1,2,{\"z\":\"s\"}],\"n\":3}", &root, &d), 0);
  assert_int_equal(root->kind, ATOLL_Y_MAP);
  assert_int_equal(root->n, 2);
  const atoll_ynode *k = atoll_ymap_get(root, "k");
  assert_int_equal(k->n, 3);
  assert_true(atoll_yscalar_is(atoll_ymap_get(k->items[2], "z"), "s"));
  assert_false(atoll_ymap_get(k->items[2], "z")->plain);
  assert_int_equal(parse_text(&a, "", &root, &d), 0);
  assert_null(root);
  assert_int_equal(parse_text(&a, "a: 1\n---\nb: 2\n", &root, &d), ATOLL_EPARSE);
  atoll_arena_free(&a);
}

static void deep_nesting_is_refused(void **state) {
  (void)state;
  char text[300];
  memset(text, '[', 200);
  text[200] = '\0';
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_ynode *root;
  assert_int_equal(parse_text(&a, text, &root, &d), ATOLL_EPARSE);
  assert_non_null(strstr(d.msg, "nesting"));
  atoll_arena_free(&a);
}

static void paths_join_and_split(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  assert_string_equal(atoll_path_dir(&a, "a/b/c.yaml"), "a/b");
  assert_string_equal(atoll_path_dir(&a, "c.yaml"), ".");
  assert_string_equal(atoll_path_dir(&a, "/c.yaml"), "/");
  assert_string_equal(atoll_path_join(&a, "a/b", "m.yaml"), "a/b/m.yaml");
  assert_string_equal(atoll_path_join(&a, "a/b/", "m.yaml"), "a/b/m.yaml");
  assert_string_equal(atoll_path_join(&a, ".", "m.yaml"), "m.yaml");
  assert_string_equal(atoll_path_join(&a, "a", "/abs/m.yaml"), "/abs/m.yaml");
  atoll_arena_free(&a);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(example_scenario_loads_every_field),
    cmocka_unit_test(derived_fields_follow_the_documented_formulas),
    cmocka_unit_test(set_overrides_values_by_name_and_index),
    cmocka_unit_test(set_policy_replaces_and_scalar_policy_keeps_its_name),
    cmocka_unit_test(set_changes_one_value_of_a_gpu_preset),
    cmocka_unit_test(set_errors_point_into_the_argument),
    cmocka_unit_test(failed_load_leaves_output_untouched),
    cmocka_unit_test(presets_load_and_are_valid),
    cmocka_unit_test(ytree_reports_duplicates_aliases_and_reads_json),
    cmocka_unit_test(deep_nesting_is_refused),
    cmocka_unit_test(paths_join_and_split),
};
ATOLL_TEST_MAIN(tests)
