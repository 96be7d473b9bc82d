/* Input limits (include/atoll/limits.h, docs/limits.md): for each one, an input just past it is
 * refused with its exact FILE:LINE:COL: message, and where that is cheap to build, an input at the
 * limit is accepted. The inputs are generated, at the real limits. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "tests/atoll_test.h"
#include "io/disb_import.h"
#include "io/load.h"
#include "idem/readers.h"
#include "io/reef_import.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path
#define LIMIT_NOTE " (atoll's input limit, see docs/limits.md)"

/* --- Building inputs --- */

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    assert_cmp(n, >=, 0);
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = (t->cap + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    assert_non_null(t->s);
  }
}

/* n copies of item, separated by sep. */
static void put_repeat(text *t, const char *item, const char *sep, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    put(t, "%s%s", i ? sep : "", item);
}

static atoll_source source_of(const text *t, const char *name) {
  return (atoll_source){.name = name, .text = t->s, .len = t->len};
}

/* The diag as the command line prints its first line. */
static void expect_diag(const atoll_diag *d, const char *want) {
  char got[sizeof d->file + sizeof d->msg + 32];
  if (d->line)
    snprintf(got, sizeof got, "%s:%u:%u: %s", d->file, d->line, d->col, d->msg);
  else
    snprintf(got, sizeof got, "%s: %s", d->file, d->msg);
  if (strcmp(got, want) != 0)
    fail_msg("diag differs\n  expected: %s\n  actual:   %s", want, got);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  static char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

/* Parses a YAML text; returns the code and leaves the diag in *d. */
static int parse(const text *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag_clear(d);
  atoll_source src = source_of(t, "t.yaml");
  atoll_ynode *root;
  int rc = atoll_ytree_parse(&a, &src, 0, &root, d);
  atoll_arena_free(&a);
  return rc;
}

/* A scenario text whose files resolve in scenarios/bad. */
static int load_scenario(const text *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag_clear(d);
  atoll_source src = source_of(t, "s.yaml");
  atoll_scenario s;
  int rc = atoll_scenario_load_source(&a, &src, SRC("scenarios/bad"), NULL, 0, &s, d);
  atoll_arena_free(&a);
  return rc;
}

static int load_model(const text *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag_clear(d);
  atoll_source src = source_of(t, "m.yaml");
  atoll_model m;
  int rc = atoll_model_load_source(&a, &src, SRC("scenarios/models"), NULL, &m, d);
  atoll_arena_free(&a);
  return rc;
}

static const char scenario_head[] = "gpu: mi50\nmodels: {tiny: models/tiny.yaml}\npolicy: seq\nduration_ms: 10\n";
static const char closed_client[] = "{name: c, model: tiny, class: be, arrival: {kind: closed}}";

/* --- YAML and files --- */

static void nesting_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put_repeat(&t, "[", "", ATOLL_MAX_NESTING);
  put_repeat(&t, "]", "", ATOLL_MAX_NESTING);
  assert_int_equal(parse(&t, &d), 0);
  t.len = 0;
  put_repeat(&t, "[", "", ATOLL_MAX_NESTING + 1);
  assert_int_equal(parse(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("t.yaml:1:%d: nesting deeper than %d levels" LIMIT_NOTE, ATOLL_MAX_NESTING + 1,
                      ATOLL_MAX_NESTING));
  free(t.s);
}

static void value_count_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  /* A list of k items is k + 1 values. */
  put(&t, "[");
  put_repeat(&t, "0", ",", ATOLL_MAX_NODES - 1);
  put(&t, "]");
  assert_int_equal(parse(&t, &d), 0);
  t.len = 0;
  put(&t, "[");
  put_repeat(&t, "0", ",", ATOLL_MAX_NODES);
  put(&t, "]");
  assert_int_equal(parse(&t, &d), ATOLL_EPARSE);
  /* Item i starts at column 2 + 2i; the last one is the value past the limit. */
  expect_diag(&d, fmt("t.yaml:1:%d: more than %d values in one file" LIMIT_NOTE, 2 * ATOLL_MAX_NODES,
                      ATOLL_MAX_NODES));
  free(t.s);
}

static void scalar_length_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "k: ");
  put_repeat(&t, "a", "", ATOLL_MAX_SCALAR_BYTES);
  assert_int_equal(parse(&t, &d), 0);
  put(&t, "a");
  assert_int_equal(parse(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("t.yaml:1:4: a value longer than %d bytes" LIMIT_NOTE, ATOLL_MAX_SCALAR_BYTES));
  free(t.s);
}

/* A file of 1 KiB lines ("#...\n"), `bytes` long. */
static void write_lines_file(const char *path, size_t bytes) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  char line[1024];
  memset(line, 'x', sizeof line);
  line[0] = '#';
  line[sizeof line - 1] = '\n';
  for (size_t done = 0; done < bytes;) {
    size_t n = bytes - done < sizeof line ? bytes - done : sizeof line;
    assert_int_equal(fwrite(line, 1, n, f), n);
    done += n;
  }
  assert_int_equal(fclose(f), 0);
}

static void file_size_limit(void **state) {
  (void)state;
  char path[] = "/tmp/atoll-limit-XXXXXX";
  int fd = mkstemp(path);
  assert_cmp(fd, >=, 0);
  close(fd);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_source src;
  write_lines_file(path, ATOLL_MAX_INPUT_BYTES);
  assert_int_equal(atoll_source_read_file(&a, path, &src, &d), 0);
  assert_int_equal(src.len, ATOLL_MAX_INPUT_BYTES);
  write_lines_file(path, (size_t)ATOLL_MAX_INPUT_BYTES + 1);
  atoll_scenario s;
  assert_int_equal(atoll_scenario_load_file(&a, path, NULL, 0, &s, &d), ATOLL_ERANGE);
  /* Byte LIMIT (0-based) starts line LIMIT / 1024 + 1. */
  expect_diag(&d, fmt("%s:%d:1: file larger than %d bytes" LIMIT_NOTE, path, ATOLL_MAX_INPUT_BYTES / 1024 + 1,
                      ATOLL_MAX_INPUT_BYTES));
  atoll_arena_free(&a);
  unlink(path);
}

/* --- Scenarios --- */

static void name_length_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sclients:\n  - {name: ", scenario_head);
  put_repeat(&t, "n", "", ATOLL_MAX_NAME_BYTES);
  put(&t, ", model: tiny, class: be, arrival: {kind: closed}}\n");
  assert_int_equal(load_scenario(&t, &d), 0);
  t.len = 0;
  put(&t, "%sclients:\n  - {name: ", scenario_head);
  put_repeat(&t, "n", "", ATOLL_MAX_NAME_BYTES + 1);
  put(&t, ", model: tiny, class: be, arrival: {kind: closed}}\n");
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:6:12: a name longer than %d bytes" LIMIT_NOTE, ATOLL_MAX_NAME_BYTES));
  free(t.s);
}

static void models_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "gpu: mi50\nclients: []\npolicy: seq\nduration_ms: 10\nmodels:\n");
  for (uint32_t i = 0; i <= ATOLL_MAX_MODELS; i++)
    put(&t, "  m%u: models/tiny.yaml\n", i);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:6:3: more than %d models" LIMIT_NOTE, ATOLL_MAX_MODELS));
  free(t.s);
}

static void clients_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sclients:\n", scenario_head);
  for (uint32_t i = 0; i < ATOLL_MAX_CLIENTS; i++)
    put(&t, "  - {name: c%u, model: tiny, class: be, arrival: {kind: closed}}\n", i);
  assert_int_equal(load_scenario(&t, &d), 0);
  put(&t, "  - %s\n", closed_client);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:6:3: more than %d clients" LIMIT_NOTE, ATOLL_MAX_CLIENTS));
  free(t.s);
}

/* gpu_count: ATOLL_MAX_GPUS devices of the preset load, one more is refused. Its message is the
 * number reader's (io/scenario_load.c reads it with atoll_yread_u32), without LIMIT_NOTE. */
static void gpus_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sgpu_count: %d\nclients: [%s]\n", scenario_head, ATOLL_MAX_GPUS, closed_client);
  assert_int_equal(load_scenario(&t, &d), 0);
  free(t.s);
  t = (text){0};
  put(&t, "%sgpu_count: %d\nclients: [%s]\n", scenario_head, ATOLL_MAX_GPUS + 1, closed_client);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:5:12: %d exceeds the maximum %d", ATOLL_MAX_GPUS + 1, ATOLL_MAX_GPUS));
  free(t.s);
}

/* The node model's limits (io/scenario_load.c: MAX_NODES 16, MAX_NODE_CORES 256) and
 * sim.arrival_jitter_us's 16 offsets (MAX_JITTER) are the loader's own constants, not limits.h's;
 * docs/limits.md lists them with the others. */
static void nodes_and_jitter_limits(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sclients: [%s]\nnodes:\n  - {kind: gpu}\n", scenario_head, closed_client);
  for (uint32_t i = 1; i < 16; i++)
    put(&t, "  - {kind: cpu, cores: 1}\n");
  assert_int_equal(load_scenario(&t, &d), 0);
  put(&t, "  - {kind: cpu, cores: 1}\n");
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, "s.yaml:7:3: more than 16 nodes" LIMIT_NOTE);
  free(t.s);
  t = (text){0};
  put(&t, "%sclients: [%s]\nnodes:\n  - {kind: cpu, cores: 200}\n  - {kind: cpu, cores: 56}\n", scenario_head,
      closed_client);
  assert_int_equal(load_scenario(&t, &d), 0);
  put(&t, "  - {kind: cpu, cores: 1}\n");
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, "s.yaml:9:5: the nodes take 257 cores in all; at most 256");
  free(t.s);
  t = (text){0};
  put(&t, "%sclients: [%s]\nsim: {arrival_jitter_us: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}\n",
      scenario_head, closed_client);
  assert_int_equal(load_scenario(&t, &d), 0);
  free(t.s);
  t = (text){0};
  put(&t, "%sclients: [%s]\nsim: {arrival_jitter_us: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]}\n",
      scenario_head, closed_client);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, "s.yaml:6:26: arrival_jitter_us lists 17 offsets; at most 16");
  free(t.s);
}

/* Duration x CUs: the CU-time books are int64 CU-ns (9.2e18: 104 days at 1,024 CUs). A year on
 * 1,024 CUs wrapped them. */
static void duration_times_cus_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "gpu: {name: mi50, cus: 1024}\nmodels: {tiny: models/tiny.yaml}\npolicy: seq\nduration_ms: 8984375000\n"
          "clients: [%s]\n", closed_client);
  assert_int_equal(load_scenario(&t, &d), 0);
  free(t.s);
  t = (text){0};
  put(&t, "gpu: {name: mi50, cus: 1024}\nmodels: {tiny: models/tiny.yaml}\npolicy: seq\nduration_ms: 8984375001\n"
          "clients: [%s]\n", closed_client);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, "s.yaml:4:14: duration_ms x the GPU's 1024 CUs is past the simulator's CU-time count: at most "
                  "8984375000 ms on this GPU");
  free(t.s);
}

static void expect_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sclients: [%s]\nexpect:\n", scenario_head, closed_client);
  /* Each bound its own value: a bound given twice is refused (io/scenario_load.c, read_expects). */
  for (uint32_t i = 0; i < ATOLL_MAX_EXPECTS; i++)
    put(&t, "  - \"total_norm_throughput >= %u\"\n", i);
  assert_int_equal(load_scenario(&t, &d), 0);
  put(&t, "  - \"total_norm_throughput >= %u\"\n", ATOLL_MAX_EXPECTS);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:7:3: more than %d bounds" LIMIT_NOTE, ATOLL_MAX_EXPECTS));
  free(t.s);
}

static void put_times_client(text *t, uint32_t n) {
  put(t, "%sclients:\n  - {name: c, model: tiny, class: rt, arrival: {kind: trace, times_ms: [", scenario_head);
  put_repeat(t, "0", ",", n);
  put(t, "]}}\n");
}

static void inline_arrivals_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put_times_client(&t, ATOLL_MAX_ARRIVALS);
  assert_int_equal(load_scenario(&t, &d), 0);
  t.len = 0;
  put_times_client(&t, ATOLL_MAX_ARRIVALS + 1);
  assert_int_equal(load_scenario(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("s.yaml:6:72: more than %d arrival times" LIMIT_NOTE, ATOLL_MAX_ARRIVALS));
  free(t.s);
}

static void trace_file_arrivals_limit(void **state) {
  (void)state;
  char dir[] = "/tmp/atoll-limit-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char trace[64], scen[64];
  snprintf(trace, sizeof trace, "%s/t.txt", dir);
  snprintf(scen, sizeof scen, "%s/s.yaml", dir);
  FILE *f = fopen(scen, "w");
  assert_non_null(f);
  fprintf(f, "gpu: mi50\nmodels: {tiny: %s}\npolicy: seq\nduration_ms: 10\n"
             "clients: [{name: c, model: tiny, class: rt, arrival: {kind: trace, file: t.txt}}]\n",
          SRC("scenarios/bad/models/tiny.yaml"));
  assert_int_equal(fclose(f), 0);
  atoll_arena a;
  atoll_diag d;
  atoll_scenario s;
  for (uint32_t n = ATOLL_MAX_ARRIVALS; n <= ATOLL_MAX_ARRIVALS + 1; n++) {
    f = fopen(trace, "w");
    assert_non_null(f);
    for (uint32_t i = 0; i < n; i++)
      fputs("1.5\n", f);
    assert_int_equal(fclose(f), 0);
    atoll_arena_init(&a);
    atoll_diag_clear(&d);
    int rc = atoll_scenario_load_file(&a, scen, NULL, 0, &s, &d);
    if (n == ATOLL_MAX_ARRIVALS) {
      assert_int_equal(rc, 0);
      assert_int_equal(s.clients[0].arrival.n_times, n);
    } else {
      assert_int_equal(rc, ATOLL_EPARSE);
      expect_diag(&d, fmt("%s:%d:1: more than %d arrival times" LIMIT_NOTE, trace, ATOLL_MAX_ARRIVALS + 1,
                          ATOLL_MAX_ARRIVALS));
    }
    atoll_arena_free(&a);
  }
  unlink(trace);
  unlink(scen);
  rmdir(dir);
}

/* Memory of one load: a scenario whose clients replay the same 1M-arrival trace file takes each
 * client's times (and the file's text) into the load's arena, until ATOLL_MAX_LOAD_BYTES. */
static void load_memory_limit(void **state) {
  (void)state;
  char dir[] = "/tmp/atoll-limit-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char trace[64], scen[64];
  snprintf(trace, sizeof trace, "%s/t.txt", dir);
  snprintf(scen, sizeof scen, "%s/s.yaml", dir);
  FILE *f = fopen(trace, "w");
  assert_non_null(f);
  for (uint32_t i = 0; i < ATOLL_MAX_ARRIVALS; i++)
    fputs("1.5\n", f);
  assert_int_equal(fclose(f), 0);
  f = fopen(scen, "w");
  assert_non_null(f);
  fprintf(f, "gpu: mi50\nmodels: {tiny: %s}\npolicy: seq\nduration_ms: 10\nclients:\n",
          SRC("scenarios/bad/models/tiny.yaml"));
  for (int i = 0; i < 32; i++)
    fprintf(f, "  - {name: c%d, model: tiny, class: rt, arrival: {kind: trace, file: t.txt}}\n", i);
  assert_int_equal(fclose(f), 0);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s;
  assert_int_equal(atoll_scenario_load_file(&a, scen, NULL, 0, &s, &d), ATOLL_EPARSE);
  assert_true(a.over_limit);
  assert_cmp(a.reserved, <=, (size_t)ATOLL_MAX_LOAD_BYTES);
  /* Where it stops depends on how the arena grows; what it says does not. */
  assert_string_equal(d.file, trace);
  assert_cmp(d.line, >, 1);
  assert_cmp(d.line, <=, ATOLL_MAX_ARRIVALS);
  assert_int_equal(d.col, 1);
  assert_string_equal(d.msg, fmt("the input needs more than %d bytes of memory" LIMIT_NOTE, ATOLL_MAX_LOAD_BYTES));
  atoll_arena_free(&a);
  unlink(trace);
  unlink(scen);
  rmdir(dir);
}

/* --- Model profiles --- */

static const char model_head[] = "atoll_model: 1\nname: m\ngpu: mi50\n";

static void ops_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%stensors: [{name: x, bytes: 4, kind: input}]\nops: [", model_head);
  put_repeat(&t, "{memset: x}", ",", ATOLL_MAX_OPS);
  put(&t, "]\n");
  assert_int_equal(load_model(&t, &d), 0);
  t.len = 0;
  put(&t, "%stensors: [{name: x, bytes: 4, kind: input}]\nops: [", model_head);
  put_repeat(&t, "{memset: x}", ",", ATOLL_MAX_OPS + 1);
  put(&t, "]\n");
  assert_int_equal(load_model(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.yaml:5:6: more than %d ops" LIMIT_NOTE, ATOLL_MAX_OPS));
  free(t.s);
}

static void tensors_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put(&t, "%sops: [{memset: t0}]\ntensors:\n", model_head);
  for (uint32_t i = 0; i < ATOLL_MAX_TENSORS; i++)
    put(&t, "  - {name: t%u, bytes: 4, kind: intermediate}\n", i);
  assert_int_equal(load_model(&t, &d), 0);
  put(&t, "  - {name: extra, bytes: 4, kind: intermediate}\n");
  assert_int_equal(load_model(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.yaml:6:3: more than %d tensors" LIMIT_NOTE, ATOLL_MAX_TENSORS));
  free(t.s);
}

/* A model with n tensors t0.. and one kernel reading all of them. */
static void put_wide_kernel(text *t, uint32_t n) {
  put(t, "%stensors:\n", model_head);
  for (uint32_t i = 0; i < n; i++)
    put(t, "  - {name: t%u, bytes: 4, kind: input}\n", i);
  put(t, "ops:\n  - {kernel: k, grid: [1, 1, 1], block: [64, 1, 1], occupancy: 1, time_us: 1, reads: [");
  for (uint32_t i = 0; i < n; i++)
    put(t, "%st%u", i ? ", " : "", i);
  put(t, "]}\n");
}

static void op_tensors_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put_wide_kernel(&t, ATOLL_MAX_OP_TENSORS);
  assert_int_equal(load_model(&t, &d), 0);
  t.len = 0;
  put_wide_kernel(&t, ATOLL_MAX_OP_TENSORS + 1);
  assert_int_equal(load_model(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.yaml:%d:86: more than %d tensors in one list" LIMIT_NOTE, ATOLL_MAX_OP_TENSORS + 7,
                      ATOLL_MAX_OP_TENSORS));
  free(t.s);
}

static void put_versions(text *t, uint32_t n) {
  put(t, "%stensors: [{name: x, bytes: 4, kind: input}]\nops:\n  - kernel: k\n"
         "    grid: [1, 1, 1]\n    block: [64, 1, 1]\n    occupancy: 1\n    time_us: 1\n    versions:\n",
      model_head);
  for (uint32_t i = 0; i < n; i++)
    put(t, "      - {grid: [1, 1, 1], block: [32, 1, 1], occupancy: 1, time_us: 2}\n");
}

static void versions_limit(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  put_versions(&t, ATOLL_MAX_VERSIONS);
  assert_int_equal(load_model(&t, &d), 0);
  t.len = 0;
  put_versions(&t, ATOLL_MAX_VERSIONS + 1);
  assert_int_equal(load_model(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.yaml:12:7: more than %d versions of one kernel" LIMIT_NOTE, ATOLL_MAX_VERSIONS));
  free(t.s);
}

/* --- REEF models --- */

static atoll_gpu mi50(atoll_arena *a) {
  atoll_gpu g;
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_int_equal(atoll_gpu_load_file(a, SRC("scenarios/gpus/mi50.yaml"), &g, &d), 0);
  return g;
}

/* Imports the three texts; returns the code, the diag in *d. */
static int reef(const text *model, const text *profile, const text *params, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g = mi50(&a);
  atoll_diag_clear(d);
  atoll_source s[3] = {source_of(model, "m.json"), source_of(profile, "m.profile.json"),
                       source_of(params, "m.params.json")};
  atoll_model m;
  int rc = atoll_reef_import_sources(&a, "m", &s[0], &s[1], &s[2], &g, &m, d);
  atoll_arena_free(&a);
  return rc;
}

static void reef_storage_and_launch_limits(void **state) {
  (void)state;
  text model = {0}, profile = {0}, params = {0};
  atoll_diag d;
  put(&profile, "{\"model_latency\": 1, \"kernel_latency\": {\"k\": {\"total_latency\": 1, \"latency\": [1]}}}");
  put(&params, "{\"k\": [{\"role\": \"write\"}]}");
  /* Storage entries. */
  put(&model, "{\"args\": [], \"kernels\": [], \"storage\": [\n");
  put_repeat(&model, "{\"name\": \"null\", \"size\": 1, \"stype\": \"int8\"}", ",\n", ATOLL_MAX_TENSORS + 1);
  put(&model, "]}");
  assert_int_equal(reef(&model, &profile, &params, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.json:1:40: more than %d storage entries" LIMIT_NOTE, ATOLL_MAX_TENSORS));
  /* Kernel launches: at the limit they import, one more is refused. */
  for (uint32_t n = ATOLL_MAX_OPS; n <= ATOLL_MAX_OPS + 1; n++) {
    model.len = 0;
    put(&model, "{\"args\": [], \"storage\": [{\"name\": \"out\", \"size\": 1, \"stype\": \"int8\"}], \"kernels\": [\n");
    put_repeat(&model, "{\"name\": \"k\", \"launch_params\": [1, 1, 1, 1, 1, 1], \"args\": [0]}", ",\n", n);
    put(&model, "]}");
    int rc = reef(&model, &profile, &params, &d);
    if (n == ATOLL_MAX_OPS) {
      assert_int_equal(rc, 0);
    } else {
      assert_int_equal(rc, ATOLL_EPARSE);
      expect_diag(&d, fmt("m.json:1:83: more than %d kernel launches" LIMIT_NOTE, ATOLL_MAX_OPS));
    }
  }
  free(model.s);
  free(profile.s);
  free(params.s);
}

static void reef_args_limits(void **state) {
  (void)state;
  text model = {0}, profile = {0}, params = {0};
  atoll_diag d;
  put(&profile, "{\"model_latency\": 1, \"kernel_latency\": {\"k\": {\"total_latency\": 1, \"latency\": [1]}}}");
  /* A launch passing one more argument than the limit. */
  put(&model, "{\"args\": [], \"storage\": [{\"name\": \"out\", \"size\": 1, \"stype\": \"int8\"}], \"kernels\": [\n"
              "{\"name\": \"k\", \"launch_params\": [1, 1, 1, 1, 1, 1], \"args\": [");
  put_repeat(&model, "0", ", ", ATOLL_MAX_OP_TENSORS + 1);
  put(&model, "]}]}");
  put(&params, "{\"k\": [{\"role\": \"write\"}]}");
  assert_int_equal(reef(&model, &profile, &params, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.json:2:60: more than %d args in one launch" LIMIT_NOTE, ATOLL_MAX_OP_TENSORS));
  /* A kernel declaring one more parameter than the limit. */
  model.len = 0;
  put(&model, "{\"args\": [], \"storage\": [{\"name\": \"out\", \"size\": 1, \"stype\": \"int8\"}], \"kernels\": [\n"
              "{\"name\": \"k\", \"launch_params\": [1, 1, 1, 1, 1, 1], \"args\": [0]}]}");
  params.len = 0;
  put(&params, "{\"k\": [");
  put_repeat(&params, "{\"role\": \"write\"}", ", ", ATOLL_MAX_OP_TENSORS + 1);
  put(&params, "]}");
  assert_int_equal(reef(&model, &profile, &params, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("m.params.json:1:7: more than %d parameters of one kernel" LIMIT_NOTE, ATOLL_MAX_OP_TENSORS));
  free(model.s);
  free(profile.s);
  free(params.s);
}

/* --- DISB workloads --- */

static int disb(const text *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag_clear(d);
  atoll_source src = source_of(t, "w.json");
  FILE *out = fopen("/dev/null", "w");
  assert_non_null(out);
  int rc = atoll_disb_import_source(&a, &src, SRC("scenarios/models"), SRC("scenarios/disb"), NULL, out, d);
  fclose(out);
  atoll_arena_free(&a);
  return rc;
}

static void disb_limits(void **state) {
  (void)state;
  text t = {0};
  atoll_diag d;
  /* Clients, counted over rt and be together. */
  put(&t, "{\"time\": 1, \"rt\": [{\"name\": \"mocked_kernel\", \"frequency\": 1}], \"be\": [");
  put_repeat(&t, "{\"name\": \"mocked_kernel\", \"frequency\": 1}", ",", ATOLL_MAX_CLIENTS - 1);
  put(&t, "]}");
  assert_int_equal(disb(&t, &d), 0);
  t.len = 0;
  put(&t, "{\"time\": 1, \"rt\": [{\"name\": \"mocked_kernel\", \"frequency\": 1}], \"be\": [");
  put_repeat(&t, "{\"name\": \"mocked_kernel\", \"frequency\": 1}", ",", ATOLL_MAX_CLIENTS);
  put(&t, "]}");
  assert_int_equal(disb(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("w.json:1:70: more than %d clients" LIMIT_NOTE, ATOLL_MAX_CLIENTS));
  /* Arrival times of one trace. */
  t.len = 0;
  put(&t, "{\"time\": 1, \"be\": [], \"rt\": [{\"name\": \"mocked_kernel\", \"trace\": [");
  put_repeat(&t, "0", ",", ATOLL_MAX_ARRIVALS + 1);
  put(&t, "]}]}");
  assert_int_equal(disb(&t, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("w.json:1:65: more than %d arrival times" LIMIT_NOTE, ATOLL_MAX_ARRIVALS));
  free(t.s);
}

/* --- idem_checker traces --- */

typedef int (*trace_reader)(FILE *in, const char *name, idem_trace *t, atoll_diag *d);

/* Reads t (appending to trace) with reader; returns the code, the diag in *d. */
static int read_trace(const text *t, trace_reader reader, idem_trace *trace, atoll_diag *d) {
  FILE *f = fmemopen(t->s, t->len, "r");
  assert_non_null(f);
  atoll_diag_clear(d);
  int rc = reader(f, "t.txt", trace, d);
  fclose(f);
  return rc;
}

static void trace_ops_limit(void **state) {
  (void)state;
  static const struct {
    trace_reader reader;
    const char *line, *what;
  } cases[] = {{idem_read_text, "kernel k\n", "operations"},
               {idem_read_nvbit, "Kernel k - grid size 1,1,1 - block size 1,1,1\n", "kernel launches"}};
  for (int c = 0; c < 2; c++) {
    text t = {0};
    atoll_diag d;
    idem_trace tr;
    put_repeat(&t, cases[c].line, "", ATOLL_MAX_TRACE_OPS);
    idem_trace_init(&tr);
    assert_int_equal(read_trace(&t, cases[c].reader, &tr, &d), 0);
    assert_int_equal(tr.n_ops, ATOLL_MAX_TRACE_OPS);
    idem_trace_free(&tr);
    put(&t, "%s", cases[c].line);
    idem_trace_init(&tr);
    assert_int_equal(read_trace(&t, cases[c].reader, &tr, &d), ATOLL_EPARSE);
    expect_diag(&d, fmt("t.txt:%d:1: more than %d %s" LIMIT_NOTE, ATOLL_MAX_TRACE_OPS + 1, ATOLL_MAX_TRACE_OPS,
                        cases[c].what));
    idem_trace_free(&tr);
    free(t.s);
  }
}

static void trace_accesses_limit(void **state) {
  (void)state;
  /* A trace already holding the limit's worth of accesses (readers append to the trace they are
   * given), then one more access line in each format. */
  idem_trace tr;
  idem_trace_init(&tr);
  assert_int_equal(idem_trace_reserve(&tr, 1, ATOLL_MAX_TRACE_ACCESSES), 0);
  assert_int_equal(idem_trace_add_op(&tr, IDEM_OP_KERNEL, "fill", 4, 0), 0);
  for (uint32_t i = 0; i < ATOLL_MAX_TRACE_ACCESSES; i++)
    assert_cmp(idem_trace_add_access(&tr, false, 2 * (uint64_t)i, 2 * (uint64_t)i + 1), ==, ATOLL_OK);
  text t = {0};
  atoll_diag d;
  put(&t, "kernel k\nr 0x10 4\n");
  assert_int_equal(read_trace(&t, idem_read_text, &tr, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("t.txt:2:1: more than %d access lines" LIMIT_NOTE, ATOLL_MAX_TRACE_ACCESSES));
  t.len = 0;
  put(&t, "Kernel k - grid size 1,1,1 - block size 32,1,1\nCTA 0,0,0 - warp 0 - LDG.E - 0x1000\n");
  assert_int_equal(read_trace(&t, idem_read_nvbit, &tr, &d), ATOLL_EPARSE);
  expect_diag(&d, fmt("t.txt:2:1: more than %d accesses" LIMIT_NOTE, ATOLL_MAX_TRACE_ACCESSES));
  idem_trace_free(&tr);
  free(t.s);
}

static void trace_line_length_limit(void **state) {
  (void)state;
  for (int c = 0; c < 2; c++) {
    trace_reader reader = c ? idem_read_nvbit : idem_read_text;
    text t = {0};
    atoll_diag d;
    idem_trace tr;
    /* A comment line exactly at the limit is read (and ignored by both formats). */
    put(&t, "%s\n#", c ? "Kernel k - grid size 1,1,1 - block size 1,1,1" : "kernel k");
    put_repeat(&t, "x", "", ATOLL_MAX_LINE_BYTES - 1);
    put(&t, "\n");
    idem_trace_init(&tr);
    assert_int_equal(read_trace(&t, reader, &tr, &d), 0);
    idem_trace_free(&tr);
    t.len = 0;
    put(&t, "#");
    put_repeat(&t, "x", "", ATOLL_MAX_LINE_BYTES);
    idem_trace_init(&tr);
    assert_int_equal(read_trace(&t, reader, &tr, &d), ATOLL_EPARSE);
    expect_diag(&d, fmt("t.txt:1:%d: line longer than %d bytes" LIMIT_NOTE, ATOLL_MAX_LINE_BYTES + 1,
                        ATOLL_MAX_LINE_BYTES));
    idem_trace_free(&tr);
    free(t.s);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(nesting_limit),
    cmocka_unit_test(duration_times_cus_limit),
    cmocka_unit_test(value_count_limit),
    cmocka_unit_test(scalar_length_limit),
    cmocka_unit_test(file_size_limit),
    cmocka_unit_test(name_length_limit),
    cmocka_unit_test(models_limit),
    cmocka_unit_test(clients_limit),
    cmocka_unit_test(gpus_limit),
    cmocka_unit_test(nodes_and_jitter_limits),
    cmocka_unit_test(expect_limit),
    cmocka_unit_test(inline_arrivals_limit),
    cmocka_unit_test(trace_file_arrivals_limit),
    cmocka_unit_test(load_memory_limit),
    cmocka_unit_test(ops_limit),
    cmocka_unit_test(tensors_limit),
    cmocka_unit_test(op_tensors_limit),
    cmocka_unit_test(versions_limit),
    cmocka_unit_test(reef_storage_and_launch_limits),
    cmocka_unit_test(reef_args_limits),
    cmocka_unit_test(disb_limits),
    cmocka_unit_test(trace_ops_limit),
    cmocka_unit_test(trace_accesses_limit),
    cmocka_unit_test(trace_line_length_limit),
};

ATOLL_TEST_MAIN(tests)
