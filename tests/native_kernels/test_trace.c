/* The tracer build of the kernel library and idem_checker on its output: an in-place update shows
 * as read-then-write, lines are coalesced and deduplicated, a stray access is caught, each model's
 * trace parses, matches the model's declared tensor roles, and gives the idempotence the model
 * implies — the in-place model's adds restore from the convolution that produced their operand. */
#include "native/kernels/ak_trace.h"
#include "idem/badset.h"
#include "tests/native_kernels/nk_test.h"
#include "native/models/nmodel_profile.h"
#include "idem/readers.h"
#include "idem/sweep.h"

/* Text written to a memory stream. */
typedef struct membuf {
  char *text;
  size_t len;
  FILE *f;
} membuf;

static void mem_open(membuf *m) {
  m->text = NULL;
  m->len = 0;
  m->f = open_memstream(&m->text, &m->len);
  assert_non_null(m->f);
}

static void mem_close(membuf *m) { assert_int_equal(fclose(m->f), 0); }

static void parse(const membuf *m, idem_trace *t) {
  idem_trace_init(t);
  FILE *in = fmemopen(m->text, m->len, "r");
  assert_non_null(in);
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = idem_read_text(in, "trace", t, &d);
  fclose(in);
  if (rc)
    fail_msg("idem_checker refused the trace: %u:%u: %s", d.line, d.col, d.msg);
}

/* Runs every block of one launch through the tracer build. */
static void traced_launch(ak_tracer *tr, uint32_t k, const ak_args *a, uint32_t grid) {
  for (uint32_t b = 0; b < grid; b++) {
    ak_ctx c = {.block = b, .grid = grid, .threads = 32, .trace = tr};
    assert_int_equal(ak_run_block_trace(k, a, &c), AK_DONE);
  }
}

static void inplace_add_reads_before_it_writes(void **state) {
  (void)state;
  float out[64], x[64];
  for (int i = 0; i < 64; i++)
    out[i] = (float)i, x[i] = 1.0f;
  membuf m;
  mem_open(&m);
  ak_tracer *tr = ak_tracer_new(m.f);
  assert_non_null(tr);
  assert_int_equal(ak_tracer_add_region(tr, out, sizeof out, 0x1000), 0);
  assert_int_equal(ak_tracer_add_region(tr, x, sizeof x, 0x2000), 0);
  ak_tracer_op(tr, "kernel", "add_inplace");
  ak_args a = {.p = {out, x}, .i = {64, 64}};
  traced_launch(tr, AK_K_ADD_INPLACE, &a, 1);
  assert_int_equal(ak_tracer_finish(tr), 0);
  ak_tracer_free(tr);
  mem_close(&m);
  /* The kernel computed, and the first access to out[0] is the read. */
  assert_cmp(out[5], ==, 6.0f);
  const char *r = strstr(m.text, "r 0x1000 4\n"), *w = strstr(m.text, "w 0x1000 4\n");
  assert_non_null(r);
  assert_non_null(w);
  assert_true(r < w);
  /* Alone, the op is not restorable: it reads what it overwrites. */
  idem_trace t;
  parse(&m, &t);
  uint32_t entry[1];
  assert_int_equal(idem_search(&t, entry), 0);
  assert_int_equal(entry[0], IDEM_NO_ENTRY);
  idem_trace_free(&t);
  free(m.text);
}

static void gemm_trace_is_coalesced_first_accesses(void **state) {
  (void)state;
  /* A 64x64x64 gemm in 32x32 tiles: A and B are read by several blocks and in panels, but the
   * trace holds each byte's first read once, and C's writes once. */
  enum { N = 64 };
  float *A = nk_alloc(N * N, 1), *B = nk_alloc(N * N, 2), *C = nk_alloc(N * N, 3);
  membuf m;
  mem_open(&m);
  ak_tracer *tr = ak_tracer_new(m.f);
  assert_int_equal(ak_tracer_add_region(tr, A, N * N * 4, 0x100000), 0);
  assert_int_equal(ak_tracer_add_region(tr, B, N * N * 4, 0x200000), 0);
  assert_int_equal(ak_tracer_add_region(tr, C, N * N * 4, 0x300000), 0);
  ak_tracer_op(tr, "kernel", "gemm");
  ak_args a = {.p = {A, B, C, NULL}, .i = {N, N, N, N, 1, N, 1, N, 1, 0, 0, 0, ak_bits(1.0f), 32, 32}};
  traced_launch(tr, AK_K_GEMM, &a, 4);
  assert_int_equal(ak_tracer_finish(tr), 0);
  uint64_t lines = ak_tracer_lines(tr);
  ak_tracer_free(tr);
  mem_close(&m);
  idem_trace t;
  parse(&m, &t);
  uint64_t rbytes[3] = {0}, wbytes[3] = {0};
  for (size_t i = 0; i < t.n_acc; i++) {
    uint64_t region = t.acc[i].lo / 0x100000 - 1;
    assert_cmp(region, <, 3);
    assert_cmp(t.acc[i].hi, <=, (region + 1) * 0x100000 + N * N * 4);
    (t.acc[i].write ? wbytes : rbytes)[region] += t.acc[i].hi - t.acc[i].lo;
  }
  assert_int_equal(rbytes[0], N * N * 4);
  assert_int_equal(rbytes[1], N * N * 4);
  assert_int_equal(rbytes[2], 0);
  assert_int_equal(wbytes[0] + wbytes[1], 0);
  assert_int_equal(wbytes[2], N * N * 4);
  /* Coalesced: far fewer lines than the 2 * 64 * 64 * 2 loads and 4096 stores the kernel made. */
  if (lines > 1024)
    fail_msg("%llu lines for a 64x64 gemm: not coalesced", (unsigned long long)lines);
  idem_trace_free(&t);
  free(m.text), free(A), free(B), free(C);
}

static void access_outside_every_region_is_reported(void **state) {
  (void)state;
  float a[16] = {0}, b[16] = {0}, out[16];
  FILE *devnull = fopen("/dev/null", "w");
  assert_non_null(devnull);
  ak_tracer *tr = ak_tracer_new(devnull);
  assert_int_equal(ak_tracer_add_region(tr, a, sizeof a, 0x1000), 0);
  assert_int_equal(ak_tracer_add_region(tr, out, sizeof out, 0x2000), 0);
  assert_int_equal(ak_tracer_add_region(tr, out, 4, 0x3000), ATOLL_EINVAL); /* overlaps */
  ak_tracer_op(tr, "kernel", "add");
  ak_args args = {.p = {a, b, out}, .i = {16, 16}}; /* b is not a region */
  traced_launch(tr, AK_K_ADD, &args, 1);
  assert_int_equal(ak_tracer_finish(tr), ATOLL_ERANGE);
  const void *addr;
  uint32_t op;
  assert_true(ak_tracer_fault(tr, &addr, &op));
  assert_ptr_equal(addr, b);
  assert_int_equal(op, 0);
  ak_tracer_free(tr);
  fclose(devnull);
}

static void trace_model(const atoll_nmodel *m, membuf *buf, idem_trace *t) {
  mem_open(buf);
  int rc = atoll__ntrace_model(m, 0, buf->f);
  mem_close(buf);
  if (rc)
    fail_msg("%s: tracing failed: %s", m->name, atoll_strerror(rc));
  parse(buf, t);
  assert_int_equal(t->n_ops, m->n_ops);
}

/* Which tensor a trace address belongs to (nm_trace.c's layout). */
static uint32_t tensor_at(const atoll_nmodel *m, uint64_t addr) {
  uint64_t at = 0x10000;
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    if (addr >= at && addr < at + m->tensors[i].bytes)
      return i;
    at += (m->tensors[i].bytes + 255) / 256 * 256;
  }
  fail_msg("%s: trace address 0x%llx is in no tensor", m->name, (unsigned long long)addr);
  return 0;
}

static int listed(const uint32_t *list, uint32_t n, uint32_t t) {
  for (uint32_t i = 0; i < n; i++)
    if (list[i] == t)
      return 1;
  return 0;
}

static void model_traces_match_declared_roles(void **state) {
  (void)state;
  /* What the kernels really touch (the trace) is what the model description declares (which the
   * profile writer turns into reads/writes/readwrites): every traced read is a declared read, every
   * traced write a declared write, and every declared tensor is touched. */
  for (uint32_t mi = 0; mi < atoll_nmodel_count(); mi++) {
    const atoll_nmodel *m = atoll_nmodel_at(mi);
    membuf buf;
    idem_trace t;
    trace_model(m, &buf, &t);
    for (uint32_t i = 0; i < m->n_ops; i++) {
      const atoll_nop *o = &m->ops[i];
      uint8_t touched_r[128] = {0}, touched_w[128] = {0};
      assert_cmp(m->n_tensors, <=, 128);
      assert_string_equal(t.ops[i].name, o->name);
      for (uint32_t k = 0; k < t.ops[i].n_acc; k++) {
        const idem_access *x = &t.acc[t.ops[i].first + k];
        uint32_t tensor = tensor_at(m, x->lo);
        assert_int_equal(tensor_at(m, x->hi - 1), tensor);
        if (x->write ? !listed(o->writes, o->n_writes, tensor) : !listed(o->reads, o->n_reads, tensor))
          fail_msg("%s op %u (%s) %s tensor %s, which it does not declare", m->name, i, o->name,
                   x->write ? "writes" : "reads", m->tensors[tensor].name);
        (x->write ? touched_w : touched_r)[tensor] = 1;
      }
      for (uint32_t k = 0; k < o->n_reads; k++)
        if (!touched_r[o->reads[k]])
          fail_msg("%s op %u (%s) declares a read of %s but never reads it", m->name, i, o->name,
                   m->tensors[o->reads[k]].name);
      for (uint32_t k = 0; k < o->n_writes; k++)
        if (!touched_w[o->writes[k]])
          fail_msg("%s op %u (%s) declares a write of %s but never writes it", m->name, i, o->name,
                   m->tensors[o->writes[k]].name);
    }
    idem_trace_free(&t);
    free(buf.text);
  }
}

static uint32_t op_named(const atoll_nmodel *m, const char *name) {
  for (uint32_t i = 0; i < m->n_ops; i++)
    if (m->ops[i].name && strcmp(m->ops[i].name, name) == 0)
      return i;
  fail_msg("%s has no op %s", m->name, name);
  return 0;
}

static void inplace_model_restores_from_the_producing_conv(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("inplace");
  assert_non_null(m);
  membuf buf;
  idem_trace t;
  trace_model(m, &buf, &t);
  uint32_t *entry = calloc(m->n_ops, sizeof *entry);
  assert_non_null(entry);
  assert_int_equal(idem_search(&t, entry), 0);
  /* The two in-place adds restart from the conv that wrote their output; everything else is
   * idempotent alone. */
  uint32_t add1 = op_named(m, "residual_add_inplace"), add2 = op_named(m, "residual_add_inplace2");
  for (uint32_t i = 0; i < m->n_ops; i++) {
    uint32_t want = i == add1 ? op_named(m, "conv2") : i == add2 ? op_named(m, "conv3") : i;
    if (entry[i] != want)
      fail_msg("inplace op %u (%s): group entry %d, want %u", i, m->ops[i].name,
               entry[i] == IDEM_NO_ENTRY ? -1 : (int)entry[i], want);
  }
  /* atoll__nmodel_idem (what the profile writer uses) says the same. */
  atoll_idem *idem = calloc(m->n_ops, sizeof *idem);
  uint32_t *entry2 = calloc(m->n_ops, sizeof *entry2);
  assert_non_null(idem);
  assert_non_null(entry2);
  assert_int_equal(atoll__nmodel_idem(m, idem, entry2), 0);
  for (uint32_t i = 0; i < m->n_ops; i++) {
    assert_int_equal(entry2[i], entry[i]);
    assert_int_equal(idem[i], i == add1 || i == add2 ? ATOLL_IDEM_GROUP : ATOLL_IDEM_YES);
  }
  free(idem), free(entry2), free(entry);
  idem_trace_free(&t);
  free(buf.text);
}

static void pure_models_are_idempotent_op_by_op(void **state) {
  (void)state;
  static const char *const names[] = {"cnn", "transformer"};
  for (size_t k = 0; k < 2; k++) {
    const atoll_nmodel *m = atoll_nmodel_find(names[k]);
    assert_non_null(m);
    atoll_idem *idem = calloc(m->n_ops, sizeof *idem);
    uint32_t *entry = calloc(m->n_ops, sizeof *entry);
    assert_non_null(idem);
    assert_non_null(entry);
    assert_int_equal(atoll__nmodel_idem(m, idem, entry), 0);
    for (uint32_t i = 0; i < m->n_ops; i++)
      if (idem[i] != ATOLL_IDEM_YES || entry[i] != i)
        fail_msg("%s op %u (%s) is not idempotent alone (entry %d)", m->name, i, m->ops[i].name, (int)entry[i]);
    free(idem), free(entry);
  }
}

static void model_trace_is_the_same_text_twice(void **state) {
  (void)state;
  const atoll_nmodel *m = atoll_nmodel_find("cnn");
  membuf a, b;
  mem_open(&a);
  assert_int_equal(atoll__ntrace_model(m, 0, a.f), 0);
  mem_close(&a);
  mem_open(&b);
  assert_int_equal(atoll__ntrace_model(m, 0, b.f), 0);
  mem_close(&b);
  assert_int_equal(a.len, b.len);
  assert_memory_equal(a.text, b.text, a.len);
  free(a.text), free(b.text);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(inplace_add_reads_before_it_writes),
      cmocka_unit_test(gemm_trace_is_coalesced_first_accesses),
      cmocka_unit_test(access_outside_every_region_is_reported),
      cmocka_unit_test(model_traces_match_declared_roles),
      cmocka_unit_test(inplace_model_restores_from_the_producing_conv),
      cmocka_unit_test(pure_models_are_idempotent_op_by_op),
      cmocka_unit_test(model_trace_is_the_same_text_twice),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
