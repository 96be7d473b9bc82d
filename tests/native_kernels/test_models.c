/* The native models: the catalogue, the REEF profile shape (h2d first, d2h last), deterministic
 * reference runs, every version of every multi-version op giving the same bits, and — for the
 * in-place model — restore: re-running an interrupted in-place add alone gives a wrong output,
 * re-running from its idempotent group entry gives the uninterrupted output bit for bit. Then the
 * profile writer: the profile loads back, says `native:`, and carries the same idempotence. */
#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "io/arena.h"
#include "idem/badset.h"
#include "io/load.h"
#include "tests/native_kernels/nk_test.h"
#include "native/models/nmodel_profile.h"
#include "idem/readers.h"
#include "idem/sweep.h"

static void catalogue_has_the_three_models(void **state) {
  (void)state;
  assert_int_equal(atoll_nmodel_count(), 3);
  static const char *const names[] = {"cnn", "transformer", "inplace"};
  for (int i = 0; i < 3; i++) {
    const atoll_nmodel *m = atoll_nmodel_find(names[i]);
    assert_non_null(m);
    assert_string_equal(m->name, names[i]);
    assert_ptr_equal(atoll_nmodel_at((uint32_t)i), m);
  }
  assert_null(atoll_nmodel_find("resnet"));
  assert_null(atoll_nmodel_find(NULL));
  assert_null(atoll_nmodel_at(3));
}

static void models_have_the_reef_profile_shape(void **state) {
  (void)state;
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++) {
    const atoll_nmodel *m = atoll_nmodel_at(i);
    assert_cmp(m->n_ops, >=, 4);
    assert_int_equal(m->ops[0].kind, ATOLL_OP_MEMCPY_H2D);
    assert_int_equal(m->ops[0].ptr[0], m->input);
    assert_int_equal(m->ops[m->n_ops - 1].kind, ATOLL_OP_MEMCPY_D2H);
    assert_int_equal(m->ops[m->n_ops - 1].ptr[0], m->output);
    uint32_t kernels = 0, multi = 0;
    for (uint32_t o = 1; o + 1 < m->n_ops; o++) {
      assert_int_equal(m->ops[o].kind, ATOLL_OP_KERNEL);
      assert_cmp(m->ops[o].n_versions, >=, 1);
      kernels++;
      multi += m->ops[o].n_versions > 1;
    }
    assert_cmp(kernels, >=, 10);
    assert_cmp(multi, >=, 1);
  }
}

typedef struct run_state {
  const atoll_nmodel *m;
  void **t;
} run_state;

static run_state fresh(const atoll_nmodel *m, uint64_t request) {
  run_state s = {m, atoll_nmodel_alloc_host(m)};
  assert_non_null(s.t);
  m->make_input(request, s.t[m->input]);
  return s;
}

static void done(run_state *s) { atoll_nmodel_free_host(s->m, s->t); }

static const float *output(const run_state *s) { return s->t[s->m->output]; }
static size_t out_n(const atoll_nmodel *m) { return m->tensors[m->output].bytes / sizeof(float); }

/* Runs ops [lo, hi) with version 0 (kernels), whole grids. */
static void run_ops(run_state *s, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++)
    if (s->m->ops[i].kind == ATOLL_OP_KERNEL)
      assert_int_equal(atoll_nmodel_run_blocks(s->m, i, 0, s->t, 0, s->m->ops[i].v[0].grid, NULL), AK_DONE);
}

static void reference_runs_are_deterministic(void **state) {
  (void)state;
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++) {
    const atoll_nmodel *m = atoll_nmodel_at(i);
    run_state a = fresh(m, 7), b = fresh(m, 7), c = fresh(m, 8);
    assert_int_equal(atoll_nmodel_run_reference(m, a.t), 0);
    assert_int_equal(atoll_nmodel_run_reference(m, b.t), 0);
    assert_int_equal(atoll_nmodel_run_reference(m, c.t), 0);
    /* Every tensor, not only the output, has the same bits. */
    for (uint32_t t = 0; t < m->n_tensors; t++)
      nk_assert_same((const float *)a.t[t], (const float *)b.t[t], m->tensors[t].bytes / 4, m->tensors[t].name);
    /* The output is finite, and another request gives another output. */
    size_t n = out_n(m), differ = 0;
    for (size_t k = 0; k < n; k++) {
      if (!isfinite(output(&a)[k]))
        fail_msg("%s output[%zu] = %g", m->name, k, (double)output(&a)[k]);
      differ += nk_bits(output(&a)[k]) != nk_bits(output(&c)[k]);
    }
    if (differ == 0)
      fail_msg("%s: requests 7 and 8 give the same output", m->name);
    done(&a), done(&b), done(&c);
  }
}

static void classifier_outputs_are_distributions(void **state) {
  (void)state;
  static const char *const names[] = {"cnn", "inplace"};
  for (int k = 0; k < 2; k++) {
    const atoll_nmodel *m = atoll_nmodel_find(names[k]);
    run_state s = fresh(m, 1);
    assert_int_equal(atoll_nmodel_run_reference(m, s.t), 0);
    double sum = 0, maxp = 0;
    for (size_t i = 0; i < out_n(m); i++) {
      sum += output(&s)[i];
      maxp = fmax(maxp, output(&s)[i]);
    }
    if (fabs(sum - 1.0) > 1e-5 || maxp > 0.999)
      fail_msg("%s: probabilities sum to %.7f, largest %.7f", m->name, sum, maxp);
    done(&s);
  }
}

static void every_version_gives_the_same_bits(void **state) {
  (void)state;
  /* Run each model with every multi-version op in version v (v = 1, 2) instead of 0. */
  for (uint32_t mi = 0; mi < atoll_nmodel_count(); mi++) {
    const atoll_nmodel *m = atoll_nmodel_at(mi);
    run_state ref = fresh(m, 3);
    assert_int_equal(atoll_nmodel_run_reference(m, ref.t), 0);
    for (uint32_t v = 1; v < ATOLL_NMODEL_MAX_VERSIONS; v++) {
      run_state s = fresh(m, 3);
      uint32_t used = 0;
      for (uint32_t i = 0; i < m->n_ops; i++) {
        const atoll_nop *o = &m->ops[i];
        if (o->kind != ATOLL_OP_KERNEL)
          continue;
        uint32_t ver = v < o->n_versions ? v : 0;
        used += ver != 0;
        assert_int_equal(o->v[ver].kernel, o->v[0].kernel);
        assert_int_equal(atoll_nmodel_run_blocks(m, i, ver, s.t, 0, o->v[ver].grid, NULL), AK_DONE);
      }
      assert_cmp(used, >, 0);
      for (uint32_t t = 0; t < m->n_tensors; t++)
        nk_assert_same((const float *)s.t[t], (const float *)ref.t[t], m->tensors[t].bytes / 4, m->tensors[t].name);
      done(&s);
    }
    done(&ref);
  }
}

static uint32_t op_named(const atoll_nmodel *m, const char *name) {
  for (uint32_t i = 0; i < m->n_ops; i++)
    if (m->ops[i].name && strcmp(m->ops[i].name, name) == 0)
      return i;
  fail_msg("%s has no op %s", m->name, name);
  return 0;
}

static size_t count_diff(const float *a, const float *b, size_t n) {
  size_t d = 0;
  for (size_t i = 0; i < n; i++)
    d += nk_bits(a[i]) != nk_bits(b[i]);
  return d;
}

/* Runs op k of s's model up to a kill: the first half of its blocks complete, then the kill word
 * is set and the next block returns AK_KILLED (a CU reset in the middle of the op). */
static void run_killed_halfway(run_state *s, uint32_t k) {
  const atoll_nversion *v = &s->m->ops[k].v[0];
  assert_cmp(v->grid, >=, 2);
  uint32_t half = v->grid / 2;
  assert_int_equal(atoll_nmodel_run_blocks(s->m, k, 0, s->t, 0, half, NULL), AK_DONE);
  const volatile uint32_t kill = 1;
  assert_int_equal(atoll_nmodel_run_blocks(s->m, k, 0, s->t, half, v->grid - half, &kill), AK_KILLED);
}

static void inplace_restore_needs_the_group_entry(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("inplace");
  atoll_idem *idem = calloc(m->n_ops, sizeof *idem);
  uint32_t *entry = calloc(m->n_ops, sizeof *entry);
  assert_non_null(idem);
  assert_non_null(entry);
  assert_int_equal(atoll__nmodel_idem(m, idem, entry), 0);
  const uint32_t k = op_named(m, "residual_add_inplace");
  assert_int_equal(idem[k], ATOLL_IDEM_GROUP);
  const uint32_t g = entry[k];
  assert_cmp(g, <, k);
  const size_t n = out_n(m);

  run_state ref = fresh(m, 5);
  assert_int_equal(atoll_nmodel_run_reference(m, ref.t), 0);

  /* Killed halfway, restored by re-running the add alone: the first half adds x twice. */
  run_state alone = fresh(m, 5);
  run_ops(&alone, 0, k);
  run_killed_halfway(&alone, k);
  run_ops(&alone, k, m->n_ops);
  size_t wrong = count_diff(output(&alone), output(&ref), n);
  if (wrong == 0)
    fail_msg("re-running the interrupted in-place add alone gave the right output: the test shows nothing");

  /* Completed, then re-executed alone (a restore that starts at the op itself): wrong too. */
  run_state twice = fresh(m, 5);
  run_ops(&twice, 0, k + 1);
  run_ops(&twice, k, m->n_ops);
  assert_cmp(count_diff(output(&twice), output(&ref), n), >, 0);

  /* Killed halfway, restored from the group entry: bit for bit the uninterrupted output. */
  run_state group = fresh(m, 5);
  run_ops(&group, 0, k);
  run_killed_halfway(&group, k);
  run_ops(&group, g, m->n_ops);
  nk_assert_same(output(&group), output(&ref), n, "restored from the group entry");
  for (uint32_t t = 0; t < m->n_tensors; t++)
    nk_assert_same((const float *)group.t[t], (const float *)ref.t[t], m->tensors[t].bytes / 4, m->tensors[t].name);

  /* An idempotent op (the conv before the add) restores alone, even when killed halfway. */
  run_state pure = fresh(m, 5);
  run_ops(&pure, 0, g);
  run_killed_halfway(&pure, g);
  run_ops(&pure, g, m->n_ops);
  nk_assert_same(output(&pure), output(&ref), n, "idempotent conv restored alone");

  done(&ref), done(&alone), done(&twice), done(&group), done(&pure);
  free(idem), free(entry);
}

/* Threads that look the models up for the first time together and run their references at once
 * (as the CPU back-end's workers run kernels side by side): the same bits as a lone run. Under
 * TSan this also shows the library keeps no shared mutable state. */
typedef struct worker {
  uint32_t model;
  float *out; /* the model's output, copied */
  int rc;
} worker;

static void *run_worker(void *p) {
  worker *w = p;
  const atoll_nmodel *m = atoll_nmodel_at(w->model);
  void **t = m ? atoll_nmodel_alloc_host(m) : NULL;
  w->rc = -1;
  if (t) {
    m->make_input(11, t[m->input]);
    w->rc = atoll_nmodel_run_reference(m, t);
    w->out = malloc(m->tensors[m->output].bytes);
    if (w->out)
      memcpy(w->out, t[m->output], m->tensors[m->output].bytes);
    atoll_nmodel_free_host(m, t);
  }
  return NULL;
}

static void concurrent_runs_agree(void **state) {
  (void)state;
  enum { PER_MODEL = 2, MODELS = 3 };
  worker w[PER_MODEL * MODELS];
  pthread_t th[PER_MODEL * MODELS];
  for (uint32_t i = 0; i < PER_MODEL * MODELS; i++) {
    w[i] = (worker){.model = i % MODELS};
    assert_int_equal(pthread_create(&th[i], NULL, run_worker, &w[i]), 0);
  }
  for (uint32_t i = 0; i < PER_MODEL * MODELS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (uint32_t i = 0; i < PER_MODEL * MODELS; i++) {
    const atoll_nmodel *m = atoll_nmodel_at(w[i].model);
    assert_int_equal(w[i].rc, 0);
    assert_non_null(w[i].out);
    run_state s = fresh(m, 11);
    assert_int_equal(atoll_nmodel_run_reference(m, s.t), 0);
    nk_assert_same(w[i].out, output(&s), out_n(m), "output of a concurrent run");
    done(&s);
    free(w[i].out);
  }
}

static void bad_op_or_version_is_refused(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("cnn");
  run_state s = fresh(m, 0);
  assert_int_equal(atoll_nmodel_run_blocks(m, 0, 0, s.t, 0, 1, NULL), ATOLL_EINVAL); /* a memcpy */
  assert_int_equal(atoll_nmodel_run_blocks(m, m->n_ops, 0, s.t, 0, 1, NULL), ATOLL_EINVAL);
  assert_int_equal(atoll_nmodel_run_blocks(m, 1, ATOLL_NMODEL_MAX_VERSIONS, s.t, 0, 1, NULL), ATOLL_EINVAL);
  assert_int_equal(atoll_nmodel_run_blocks(m, 1, 0, s.t, m->ops[1].v[0].grid, 1, NULL), ATOLL_EINVAL);
  done(&s);
}

static void profile_loads_back_with_native_and_idempotence(void **state) {
  (void)state;
  for (uint32_t mi = 0; mi < atoll_nmodel_count(); mi++) {
    const atoll_nmodel *m = atoll_nmodel_at(mi);
    atoll_nmodel_vtime *vt = calloc((size_t)m->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
    assert_non_null(vt);
    for (uint32_t i = 0; i < m->n_ops; i++)
      for (uint32_t v = 0; v < m->ops[i].n_versions; v++)
        vt[i * ATOLL_NMODEL_MAX_VERSIONS + v].time_ns = 1000 + 10 * i + v; /* made-up times */
    atoll_nmodel_times times = {.gpu = "test_device", .cus = 2, .vt = vt};
    char path[] = "/tmp/atoll_nk_profile_XXXXXX";
    int fd = mkstemp(path);
    assert_cmp(fd, >=, 0);
    FILE *f = fdopen(fd, "w");
    assert_int_equal(atoll__nmodel_write_profile(m, &times, "test profile", f), 0);
    fclose(f);

    atoll_arena a;
    atoll_arena_init(&a);
    atoll_model pm;
    atoll_diag d;
    atoll_diag_clear(&d);
    int rc = atoll_model_load_file(&a, path, NULL, &pm, &d);
    if (rc)
      fail_msg("%s: the written profile does not load: %s:%u:%u: %s", m->name, d.file, d.line, d.col, d.msg);
    assert_string_equal(pm.native, m->name);
    assert_string_equal(pm.name, m->name);
    assert_int_equal(pm.n_ops, m->n_ops);
    assert_int_equal(pm.n_tensors, m->n_tensors);
    atoll_idem *idem = calloc(m->n_ops, sizeof *idem);
    uint32_t *entry = calloc(m->n_ops, sizeof *entry);
    assert_int_equal(atoll__nmodel_idem(m, idem, entry), 0);
    for (uint32_t i = 0; i < m->n_ops; i++) {
      const atoll_op *op = &pm.ops[i];
      assert_int_equal(op->kind, m->ops[i].kind);
      if (op->kind != ATOLL_OP_KERNEL)
        continue;
      assert_string_equal(op->name, m->ops[i].name);
      assert_int_equal(op->shape.grid.x, m->ops[i].v[0].grid);
      assert_int_equal(op->shape.time_ns, 1000 + 10 * i);
      assert_int_equal(op->n_versions, m->ops[i].n_versions - 1);
      assert_int_equal(op->idem, idem[i]);
      if (idem[i] == ATOLL_IDEM_GROUP)
        assert_int_equal(op->group_entry, entry[i]);
    }
    /* The profile's whole-tensor roles give idem_checker the same answer as the real trace. */
    idem_trace t;
    idem_trace_init(&t);
    assert_int_equal(idem_trace_from_model(&pm, &t, NULL), 0);
    uint32_t *e2 = calloc(m->n_ops, sizeof *e2);
    assert_int_equal(idem_search(&t, e2), 0);
    for (uint32_t i = 0; i < m->n_ops; i++)
      if (m->ops[i].kind == ATOLL_OP_KERNEL && e2[i] != entry[i])
        fail_msg("%s op %u: profile roles give entry %d, the trace %d", m->name, i, (int)e2[i], (int)entry[i]);
    idem_trace_free(&t);
    free(e2), free(idem), free(entry), free(vt);
    atoll_arena_free(&a);
    unlink(path);
  }
}

static void profile_without_times_is_refused(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("cnn");
  atoll_nmodel_times none = {.gpu = "x", .cus = 1, .vt = NULL};
  FILE *f = fopen("/dev/null", "w");
  assert_int_equal(atoll__nmodel_write_profile(m, &none, NULL, f), ATOLL_EINVAL);
  atoll_nmodel_vtime *vt = calloc((size_t)m->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
  atoll_nmodel_times zero = {.gpu = "x", .cus = 1, .vt = vt}; /* every time 0 */
  assert_int_equal(atoll__nmodel_write_profile(m, &zero, NULL, f), ATOLL_EINVAL);
  fclose(f);
  free(vt);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(catalogue_has_the_three_models),
      cmocka_unit_test(models_have_the_reef_profile_shape),
      cmocka_unit_test(reference_runs_are_deterministic),
      cmocka_unit_test(classifier_outputs_are_distributions),
      cmocka_unit_test(every_version_gives_the_same_bits),
      cmocka_unit_test(inplace_restore_needs_the_group_entry),
      cmocka_unit_test(concurrent_runs_agree),
      cmocka_unit_test(bad_op_or_version_is_refused),
      cmocka_unit_test(profile_loads_back_with_native_and_idempotence),
      cmocka_unit_test(profile_without_times_is_refused),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
