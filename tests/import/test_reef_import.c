/* REEF importer and profile writer tests.
 *
 * The seven models REEF ships are imported and checked against their JSON read independently
 * here (kernel count, geometry, summed latencies) and against the properties the data's README
 * promises (each kernel writes one tensor; every intermediate that is read was written earlier).
 * Format errors are provoked on a small fixture written to a temporary folder, and every import
 * is written as a profile and loaded back field by field. */
#include "tests/atoll_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/arena.h"
#include "atoll/error.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "io/diag.h"
#include "io/load.h"
#include "io/model_write.h"
#include "io/model_write_checked.h"
#include "io/reef_import.h"
#include "io/yread.h"
#include "io/ytree.h"

#define REEF_MODELS ATOLL_REEF_DATA "/models"

/* --- Helpers --- */

/* MI50 as docs/gpus.md describes it; only name, vendor, CUs and the register file matter to the
 * importer, the rest makes the description complete. */
static atoll_gpu mi50(void) {
  return (atoll_gpu){.name = "mi50",
                     .vendor = "amd",
                     .cus = 60,
                     .max_blocks_per_cu = 40,
                     .max_threads_per_cu = 2560,
                     .registers_per_cu = 65536,
                     .shared_bytes_per_cu = 65536,
                     .dq_capacity = 1024,
                     .copy_engines = 2};
}

static void check_rc(int actual, int expected, const atoll_diag *d, const char *expr, const char *file, int line) {
  if (actual == expected)
    return;
  print_error("%s returned %s (%d), expected %s (%d)\n", expr, atoll_err_name(actual), actual,
              atoll_err_name(expected), expected);
  if (d && d->set)
    atoll_diag_print(d, stderr);
  _fail(file, line);
}

#define assert_rc(actual, expected, diag) check_rc((actual), (expected), (diag), #actual, __FILE__, __LINE__)

static void check_i64(int64_t actual, int64_t expected, const char *expr, const char *file, int line) {
  if (actual == expected)
    return;
  print_error("%s is %lld, expected %lld\n", expr, (long long)actual, (long long)expected);
  _fail(file, line);
}

#define assert_i64(actual, expected) check_i64((int64_t)(actual), (int64_t)(expected), #actual, __FILE__, __LINE__)

static void check_contains(const char *text, const char *part, const char *expr, const char *file, int line) {
  if (strstr(text, part))
    return;
  print_error("%s is \"%s\", expected it to contain \"%s\"\n", expr, text, part);
  _fail(file, line);
}

#define assert_contains(text, part) check_contains((text), (part), #text, __FILE__, __LINE__)

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Parses a JSON file with the project's reader; the tree lives in a. */
static const atoll_ynode *read_json(atoll_arena *a, const char *path) {
  atoll_source *src = atoll_arena_alloc(a, sizeof *src);
  atoll_ynode *root = NULL;
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_non_null(src);
  assert_rc(atoll_source_read_file(a, path, src, &d), 0, &d);
  assert_rc(atoll_ytree_parse(a, src, 0, &root, &d), 0, &d);
  assert_non_null(root);
  return root;
}

static const atoll_ynode *member(const atoll_ynode *map, const char *key) {
  const atoll_ynode *v = atoll_ymap_get(map, key);
  if (!v)
    fail_msg("missing key %s", key);
  return v;
}

static int64_t us_to_ns(const atoll_ynode *n) { return llround(strtod(n->str, NULL) * 1000.0); }

/* --- Round trip through the writer and the profile loader --- */

static void assert_indices_equal(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb) {
  assert_i64(na, nb);
  for (uint32_t i = 0; i < na; i++)
    assert_i64(a[i], b[i]);
}

static void assert_opt_str_equal(const char *a, const char *b) {
  if (!a || !b)
    assert_ptr_equal(a, b);
  else
    assert_string_equal(a, b);
}

static void assert_shapes_equal(const atoll_kernel_shape *a, const atoll_kernel_shape *b) {
  assert_cmp(a->grid.x, ==, b->grid.x);
  assert_cmp(a->grid.y, ==, b->grid.y);
  assert_cmp(a->grid.z, ==, b->grid.z);
  assert_cmp(a->block.x, ==, b->block.x);
  assert_cmp(a->block.y, ==, b->block.y);
  assert_cmp(a->block.z, ==, b->block.z);
  assert_i64(a->occupancy, b->occupancy);
  assert_i64(a->time_ns, b->time_ns);
  assert_i64(a->block_time_ns, b->block_time_ns);
  assert_i64(a->n_time_per_occupancy, b->n_time_per_occupancy);
  for (uint32_t i = 0; i < a->n_time_per_occupancy; i++)
    assert_i64(a->time_per_occupancy_ns[i], b->time_per_occupancy_ns[i]);
  assert_i64(a->registers, b->registers);
  assert_i64(a->shared_bytes, b->shared_bytes);
  assert_i64(a->derived, b->derived);
}

static void assert_ops_equal(const atoll_op *a, const atoll_op *b) {
  assert_i64(a->kind, b->kind);
  if (a->kind != ATOLL_OP_KERNEL) {
    assert_i64(a->tensor, b->tensor);
    assert_i64(a->bytes, b->bytes);
    assert_i64(a->copy_time_ns, b->copy_time_ns);
    return;
  }
  assert_string_equal(a->name, b->name);
  assert_shapes_equal(&a->shape, &b->shape);
  assert_i64(a->n_versions, b->n_versions);
  for (uint32_t v = 0; v < a->n_versions; v++)
    assert_shapes_equal(&a->versions[v], &b->versions[v]);
  assert_indices_equal(a->reads, a->n_reads, b->reads, b->n_reads);
  assert_indices_equal(a->writes, a->n_writes, b->writes, b->n_writes);
  assert_indices_equal(a->readwrites, a->n_readwrites, b->readwrites, b->n_readwrites);
  assert_i64(a->idem, b->idem);
  if (a->idem == ATOLL_IDEM_GROUP)
    assert_i64(a->group_entry, b->group_entry);
}

static void assert_models_equal(const atoll_model *a, const atoll_model *b) {
  assert_string_equal(a->name, b->name);
  assert_string_equal(a->gpu, b->gpu);
  assert_opt_str_equal(a->source, b->source);
  assert_i64(a->measured_latency_ns, b->measured_latency_ns);
  assert_i64(a->instance_load_ns, b->instance_load_ns);
  assert_i64(a->n_tensors, b->n_tensors);
  for (uint32_t t = 0; t < a->n_tensors; t++) {
    assert_string_equal(a->tensors[t].name, b->tensors[t].name);
    assert_i64(a->tensors[t].bytes, b->tensors[t].bytes);
    assert_i64(a->tensors[t].kind, b->tensors[t].kind);
    assert_opt_str_equal(a->tensors[t].dtype, b->tensors[t].dtype);
  }
  assert_i64(a->n_ops, b->n_ops);
  for (uint32_t i = 0; i < a->n_ops; i++)
    assert_ops_equal(&a->ops[i], &b->ops[i]);
}

/* Writes m to memory, checks the text parses as YAML, then writes it to a file and loads it with
 * the profile loader: the loaded model must equal m in every field. */
static void round_trip(const atoll_model *m) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_rc(atoll_model_write_yaml(f, m, "round-trip test\nsecond line"), 0, NULL);
  assert_int_equal(fclose(f), 0);

  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_source src = {.name = "<memory>", .text = text, .len = len};
  atoll_ynode *root = NULL;
  assert_rc(atoll_ytree_parse(&a, &src, 0, &root, &d), 0, &d);
  assert_non_null(root);
  assert_cmp(root->kind, ==, ATOLL_Y_MAP);

  char dir[] = "/tmp/atoll-roundtrip-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/model.yaml", dir);
  f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
  atoll_gpu gpu = mi50();
  atoll_model back;
  int rc = atoll_model_load_file(&a, path, &gpu, &back, &d);
  unlink(path);
  rmdir(dir);
  assert_rc(rc, 0, &d);
  assert_true(atoll_model_is_valid(&back));
  assert_models_equal(m, &back);
  atoll_arena_free(&a);
  free(text);
}

/* atoll_model_write_checked (what `atoll import` writes through): a model that reads back is
 * written byte for byte as atoll_model_write_yaml writes it; a difference in any compared field is
 * named; and a profile that does not load (below: a kernel longer than a profile may give) is
 * refused with nothing written. */
static void checked_writer(const atoll_model *m, const char *expected) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  atoll_gpu gpu = mi50();
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_rc(atoll_model_write_checked(f, m, NULL, ".", &gpu, &d), 0, &d);
  assert_int_equal(fclose(f), 0);
  assert_string_equal(text, expected);
  free(text);

  char why[400];
  assert_false(atoll_model_first_difference(m, m, why, sizeof why));
  atoll_op ops[8];
  atoll_tensor tensors[8];
  assert_true(m->n_ops <= 8 && m->n_tensors <= 8);
  atoll_model b = *m;
  memcpy(ops, m->ops, m->n_ops * sizeof ops[0]);
  memcpy(tensors, m->tensors, m->n_tensors * sizeof tensors[0]);
  b.ops = ops;
  b.tensors = tensors;
  /* The hand model: op 1 is a kernel, op 3 a memset. */
  assert_true(m->ops[1].kind == ATOLL_OP_KERNEL && m->ops[3].kind == ATOLL_OP_MEMSET);
  ops[1].shape.time_ns++;
  assert_true(atoll_model_first_difference(m, &b, why, sizeof why));
  char want[200];
  snprintf(want, sizeof want, "op 1 (%s): time (ns) %lld, read back %lld", m->ops[1].name,
           (long long)m->ops[1].shape.time_ns, (long long)ops[1].shape.time_ns);
  assert_string_equal(why, want);
  ops[1] = m->ops[1];
  ops[1].name = "renamed";
  assert_true(atoll_model_first_difference(m, &b, why, sizeof why));
  snprintf(want, sizeof want, "op 1 (%s): name '%s', read back 'renamed'", m->ops[1].name, m->ops[1].name);
  assert_string_equal(why, want);
  ops[1] = m->ops[1];
  ops[3].copy_time_ns = 1;
  assert_true(atoll_model_first_difference(m, &b, why, sizeof why));
  assert_string_equal(why, "op 3 ((none)): copy time (ns) 2000, read back 1");
  ops[3] = m->ops[3];
  tensors[1].bytes++;
  assert_true(atoll_model_first_difference(m, &b, why, sizeof why));
  assert_non_null(strstr(why, "tensor 1 '"));
  tensors[1] = m->tensors[1];
  b.n_ops--;
  assert_true(atoll_model_first_difference(m, &b, why, sizeof why));
  assert_non_null(strstr(why, "ops and"));

  /* A kernel longer than the longest time a profile may give (io/yread.h, ATOLL_YREAD_MAX_TIME_NS):
   * a valid model, written, that the loader refuses. An importer that let it through would have
   * written a profile nothing can use. */
  ops[1].shape.time_ns = ops[1].shape.block_time_ns = (int64_t)ATOLL_YREAD_MAX_TIME_NS + 1000000000;
  assert_true(atoll_model_is_valid(&b));
  f = open_memstream(&text, &len);
  assert_non_null(f);
  atoll_diag_clear(&d);
  assert_rc(atoll_model_write_checked(f, &b, NULL, ".", &gpu, &d), ATOLL_EINVAL, NULL);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(len, 0);
  assert_non_null(
      strstr(d.msg, "does not read back as the model it was made from, so nothing was written: it does not load"));
  assert_non_null(strstr(d.msg, ", at ops[1].time_us: ")); /* the loader's key path, to find the field */
  free(text);
}

/* --- The shipped models --- */

/* Kernels write exactly one tensor, never an input or a weight; an intermediate (or the output)
 * that a kernel reads was written by an earlier kernel. */
static void check_dataflow(const atoll_model *m) {
  bool *written = calloc(m->n_tensors + 1, sizeof *written);
  assert_non_null(written);
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    if (op->n_writes + op->n_readwrites != 1)
      fail_msg("op %u (%s) writes %u tensors", i, op->name, op->n_writes + op->n_readwrites);
    for (uint32_t k = 0; k < op->n_reads; k++) {
      const atoll_tensor *t = &m->tensors[op->reads[k]];
      bool external = t->kind == ATOLL_TENSOR_INPUT || t->kind == ATOLL_TENSOR_WEIGHT;
      if (!external && !written[op->reads[k]])
        fail_msg("op %u (%s) reads %s tensor %s before any kernel writes it", i, op->name,
                 atoll_tensor_kind_name(t->kind), t->name);
    }
    uint32_t w = op->n_writes ? op->writes[0] : op->readwrites[0];
    atoll_tensor_kind k = m->tensors[w].kind;
    if (k == ATOLL_TENSOR_INPUT || k == ATOLL_TENSOR_WEIGHT)
      fail_msg("op %u (%s) writes %s tensor %s", i, op->name, atoll_tensor_kind_name(k), m->tensors[w].name);
    written[w] = true;
  }
  free(written);
}

/* Imports models/<name>, checks it against its JSON, and round-trips it. */
static void check_reef_model(const char *name, atoll_model *keep, atoll_arena *keep_arena) {
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/%s", REEF_MODELS, name);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_gpu gpu = mi50();
  atoll_model m;
  assert_rc(atoll_reef_import(keep_arena ? keep_arena : &a, dir, &gpu, &m, &d), 0, &d);
  assert_true(atoll_model_is_valid(&m));
  assert_string_equal(m.name, name);
  assert_string_equal(m.gpu, "mi50");

  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  const atoll_ynode *json = read_json(&a, path);
  snprintf(path, sizeof path, "%s/%s.profile.json", dir, name);
  const atoll_ynode *profile = read_json(&a, path);
  const atoll_ynode *kernels = member(json, "kernels"), *lat = member(profile, "kernel_latency");

  assert_i64(m.n_ops, kernels->n);
  assert_i64(m.n_tensors, member(json, "storage")->n);
  int64_t sum_expected = 0, sum = 0;
  for (uint32_t i = 0; i < m.n_ops; i++) {
    const atoll_op *op = &m.ops[i];
    const atoll_ynode *k = kernels->items[i], *lp = member(k, "launch_params");
    assert_string_equal(op->name, member(k, "name")->str);
    const uint32_t dims[6] = {op->shape.grid.x,  op->shape.grid.y,  op->shape.grid.z,
                              op->shape.block.x, op->shape.block.y, op->shape.block.z};
    for (uint32_t j = 0; j < 6; j++)
      assert_i64(dims[j], strtoul(lp->items[j]->str, NULL, 10));
    const atoll_ynode *entry = member(lat, op->name);
    sum_expected += us_to_ns(member(entry, "total_latency"));
    sum += op->shape.time_ns;
    assert_i64(op->shape.occupancy, member(entry, "latency")->n);
    assert_i64(op->shape.n_time_per_occupancy, op->shape.occupancy);
    assert_i64(op->shape.derived, ATOLL_DERIVED_BLOCK_TIME | ATOLL_DERIVED_REGISTERS);
    assert_i64(op->idem, ATOLL_IDEM_UNKNOWN);
  }
  assert_i64(sum, sum_expected);
  assert_i64(m.measured_latency_ns, us_to_ns(member(profile, "model_latency")));
  check_dataflow(&m);
  round_trip(&m);
  /* A measured instance load time (docs/models.md, instance_load_ms) is written and read back to
   * the nanosecond. */
  atoll_model timed = m;
  timed.instance_load_ns = 5000000001;
  round_trip(&timed);
  if (keep)
    *keep = m;
  atoll_arena_free(&a);
}

static void import_alexnet(void **state) {
  (void)state;
  check_reef_model("alexnet", NULL, NULL);
}

static void import_bert(void **state) {
  (void)state;
  check_reef_model("bert", NULL, NULL);
}

static void import_mocked_kernel(void **state) {
  (void)state;
  check_reef_model("mocked_kernel", NULL, NULL);
}

static void import_resnet(void **state) {
  (void)state;
  check_reef_model("resnet", NULL, NULL);
}

static void import_resnet152(void **state) {
  (void)state;
  check_reef_model("resnet152", NULL, NULL);
}

static void import_resnet18(void **state) {
  (void)state;
  check_reef_model("resnet18", NULL, NULL);
}

static void import_vgg(void **state) {
  (void)state;
  check_reef_model("vgg", NULL, NULL);
}

static void resnet152_totals(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  check_reef_model("resnet152", &m, &a);
  assert_i64(m.n_ops, 207);
  assert_i64(m.measured_latency_ns, 13233 * 1000);
  atoll_model_stats st;
  atoll_model_stats_compute(&m, &st);
  assert_i64(st.kernels, 207);
  assert_i64(st.sum_kernel_time_ns, 15864 * 1000);
  atoll_arena_free(&a);
}

static uint32_t tensor_index(const atoll_model *m, const char *name) {
  for (uint32_t t = 0; t < m->n_tensors; t++)
    if (strcmp(m->tensors[t].name, name) == 0)
      return t;
  fail_msg("no tensor %s", name);
  return 0;
}

/* The kind rule (io/reef_import.c) on the models whose names differ from TVM's usual ones. */
static void tensor_kinds_and_names(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model alex, bert, mocked;
  check_reef_model("alexnet", &alex, &a);
  check_reef_model("bert", &bert, &a);
  check_reef_model("mocked_kernel", &mocked, &a);

  assert_i64(alex.tensors[tensor_index(&alex, "data")].kind, ATOLL_TENSOR_INPUT);
  assert_i64(alex.tensors[tensor_index(&alex, "conv_1_weight")].kind, ATOLL_TENSOR_WEIGHT);
  assert_i64(alex.tensors[tensor_index(&alex, "bias_3_weight")].kind, ATOLL_TENSOR_WEIGHT);
  assert_i64(alex.tensors[tensor_index(&alex, "output")].kind, ATOLL_TENSOR_OUTPUT);
  assert_string_equal(alex.tensors[12].name, "t12"); /* a "null" buffer */
  assert_i64(alex.tensors[12].kind, ATOLL_TENSOR_INTERMEDIATE);
  assert_i64(alex.tensors[0].bytes, 150528 * 4);

  assert_i64(bert.tensors[tensor_index(&bert, "input0")].kind, ATOLL_TENSOR_INPUT);
  assert_i64(bert.tensors[0].bytes, 480 * 8); /* int64 token ids */
  assert_i64(bert.tensors[tensor_index(&bert, "p2")].kind, ATOLL_TENSOR_WEIGHT);
  assert_i64(bert.tensors[1].bytes, 480); /* uint1: one byte each */
  /* The two "temp_arg" workspaces share a name, so both are named by index. */
  assert_string_equal(bert.tensors[110].name, "t110");
  assert_i64(bert.tensors[110].kind, ATOLL_TENSOR_INTERMEDIATE);
  assert_i64(bert.tensors[110].bytes, 11059200);
  uint32_t readwrites = 0;
  for (uint32_t i = 0; i < bert.n_ops; i++)
    readwrites += bert.ops[i].n_readwrites;
  assert_cmp(readwrites, >, 0);

  assert_i64(mocked.tensors[tensor_index(&mocked, "a")].kind, ATOLL_TENSOR_WEIGHT);
  assert_i64(mocked.tensors[tensor_index(&mocked, "c")].kind, ATOLL_TENSOR_WEIGHT);
  assert_i64(mocked.tensors[tensor_index(&mocked, "temp")].kind, ATOLL_TENSOR_INTERMEDIATE);
  assert_i64(mocked.ops[0].shape.shared_bytes, 1024);
  assert_i64(mocked.ops[0].shape.occupancy, 16);
  /* 64 blocks on 60 CUs: two waves at occupancy 1; 16 blocks of 128 threads share 65,536
   * registers at 32 each. */
  assert_i64(mocked.ops[0].shape.block_time_ns, 8000);
  assert_i64(mocked.ops[0].shape.registers, 32);
  atoll_arena_free(&a);
}

/* --- A small fixture for exact results and format errors --- */

static const char *const fixture_model =
    "{\n"
    "  \"storage\": [\n"
    "    {\"name\": \"data\", \"size\": 256, \"stype\": \"float32\"},\n"
    "    {\"name\": \"p0\", \"size\": 64, \"stype\": \"float32\"},\n"
    "    {\"name\": \"null\", \"size\": 256, \"stype\": \"float32\"},\n"
    "    {\"name\": \"output\", \"size\": 256, \"stype\": \"float32\"}\n"
    "  ],\n"
    "  \"kernels\": [\n"
    "    {\"name\": \"conv\", \"launch_params\": [4, 1, 1, 64, 1, 1], \"args\": [0, 1, 2]},\n"
    "    {\"name\": \"relu\", \"launch_params\": [4, 1, 1, 64, 1, 1], \"args\": [2, 3]}\n"
    "  ],\n"
    "  \"args\": [0, 1],\n"
    "  \"shared_memory\": {\"conv\": 512},\n"
    "  \"some_future_key\": {\"ignored\": true}\n"
    "}\n";

static const char *const fixture_profile =
    "{\n"
    "  \"model_latency\": 30,\n"
    "  \"kernel_latency\": {\n"
    "    \"conv\": {\"total_latency\": 20, \"latency\": [18, 30]},\n"
    "    \"relu\": {\"total_latency\": 8.5, \"latency\": [8]},\n"
    "    \"never_launched\": {\"total_latency\": 1, \"latency\": []}\n"
    "  },\n"
    "  \"extra\": 1\n"
    "}\n";

static const char *const fixture_params =
    "{\n"
    "  \"conv\": [\n"
    "    {\"name\": \"x\", \"type\": \"float*\", \"role\": \"read\"},\n"
    "    {\"name\": \"w\", \"type\": \"float*\", \"role\": \"read\"},\n"
    "    {\"name\": \"y\", \"type\": \"float*\", \"role\": \"write\"}\n"
    "  ],\n"
    "  \"relu\": [\n"
    "    {\"name\": \"x\", \"type\": \"float*\", \"role\": \"read\"},\n"
    "    {\"name\": \"y\", \"type\": \"float*\", \"role\": \"write\"}\n"
    "  ]\n"
    "}\n";

enum { F_MODEL, F_PROFILE, F_PARAMS };

/* One textual change to a fixture file: `from` must occur in it. */
typedef struct edit {
  int file;
  const char *from, *to;
} edit;

typedef struct fixture {
  char root[64];  /* the mkdtemp folder */
  char dir[96];   /* root/mini: the REEF model folder */
  char path[3][128];
} fixture;

static char *apply_edits(const char *text, int file, const edit *edits, size_t n) {
  char *s = strdup(text);
  assert_non_null(s);
  for (size_t i = 0; i < n; i++) {
    if (edits[i].file != file)
      continue;
    char *at = strstr(s, edits[i].from);
    if (!at)
      fail_msg("fixture edit: '%s' not found", edits[i].from);
    size_t head = (size_t)(at - s), from = strlen(edits[i].from), to = strlen(edits[i].to);
    char *t = malloc(strlen(s) - from + to + 1);
    assert_non_null(t);
    memcpy(t, s, head);
    memcpy(t + head, edits[i].to, to);
    strcpy(t + head + to, at + from);
    free(s);
    s = t;
  }
  return s;
}

static void fixture_write(fixture *fx, const edit *edits, size_t n) {
  static const char *const texts[3] = {fixture_model, fixture_profile, fixture_params};
  static const char *const suffix[3] = {".json", ".profile.json", ".params.json"};
  snprintf(fx->root, sizeof fx->root, "/tmp/atoll-reef-XXXXXX");
  assert_non_null(mkdtemp(fx->root));
  snprintf(fx->dir, sizeof fx->dir, "%s/mini", fx->root);
  assert_int_equal(mkdir(fx->dir, 0700), 0);
  for (int i = 0; i < 3; i++) {
    snprintf(fx->path[i], sizeof fx->path[i], "%s/mini%s", fx->dir, suffix[i]);
    char *text = apply_edits(texts[i], i, edits, n);
    FILE *f = fopen(fx->path[i], "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(text);
  }
}

static void fixture_remove(fixture *fx) {
  for (int i = 0; i < 3; i++)
    unlink(fx->path[i]);
  rmdir(fx->dir);
  rmdir(fx->root);
}

/* Imports the fixture with the edits applied and returns the code; the model or the diag is
 * left in *m and *d, the model's memory in a. */
static int fixture_import(const edit *edits, size_t n, atoll_arena *a, atoll_model *m, atoll_diag *d) {
  fixture fx;
  fixture_write(&fx, edits, n);
  atoll_gpu gpu = mi50();
  atoll_diag_clear(d);
  int rc = atoll_reef_import(a, fx.dir, &gpu, m, d);
  fixture_remove(&fx);
  return rc;
}

/* Expects the import to fail with code rc at file_tail:line, with msg in the message and, when
 * path is not NULL, that path of keys. */
static void expect_error(const edit *edits, size_t n, int rc, const char *file_tail, uint32_t line, const char *msg,
                         const char *path) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  memset(&m, 0xa5, sizeof m);
  atoll_model untouched = m;
  atoll_diag d;
  assert_rc(fixture_import(edits, n, &a, &m, &d), rc, &d);
  assert_true(d.set);
  atoll_diag_print(&d, stderr); /* shows what a user would see */
  if (!ends_with(d.file, file_tail))
    fail_msg("error in %s, expected %s", d.file, file_tail);
  assert_i64(d.line, line);
  assert_contains(d.msg, msg);
  if (path)
    assert_string_equal(d.path, path);
  assert_memory_equal(&m, &untouched, sizeof m);
  atoll_arena_free(&a);
}

#define EXPECT_ERROR(edits, rc, file_tail, line, msg, path) \
  expect_error((edits), sizeof(edits) / sizeof((edits)[0]), (rc), (file_tail), (line), (msg), (path))

static const char *const fixture_yaml =
    "# converted by test\n"
    "#\n"
    "# second line\n"
    "atoll_model: 1\n"
    "name: mini\n"
    "gpu: mi50\n"
    "source: \"REEF mini (SJTU-IPADS/reef resource/mini), measured on one mi50; Apache-2.0 (c) the REEF "
    "authors\"\n"
    "measured_latency_us: 30\n"
    /* 256 weight bytes; 3 x 1024 bytes of input, intermediate and output (2^20-byte MB) */
    "footprint: {weights_mb: 0.000244140625, activations_mb_per_batch: 0.0029296875}\n"
    "tensors:\n"
    "  - {name: data, bytes: 1024, kind: input, dtype: float32}\n"
    "  - {name: p0, bytes: 256, kind: weight, dtype: float32}\n"
    "  - {name: t2, bytes: 1024, kind: intermediate, dtype: float32}\n"
    "  - {name: output, bytes: 1024, kind: output, dtype: float32}\n"
    "ops:\n"
    "  - kernel: conv\n"
    "    grid: [4, 1, 1]\n"
    "    block: [64, 1, 1]\n"
    "    occupancy: 2\n"
    "    time_us: 20\n"
    "    time_per_occupancy_us: [18, 30]\n"
    "    block_time_us: 18\n"
    "    registers: 256\n"
    "    shared_bytes: 512\n"
    "    reads: [data, p0]\n"
    "    writes: [t2]\n"
    "    derived: [block_time, registers]\n"
    "  - kernel: relu\n"
    "    grid: [4, 1, 1]\n"
    "    block: [64, 1, 1]\n"
    "    occupancy: 1\n"
    "    time_us: 8.5\n"
    "    time_per_occupancy_us: [8]\n"
    "    block_time_us: 8\n"
    "    registers: 256\n"
    "    reads: [t2]\n"
    "    writes: [output]\n"
    "    derived: [block_time, registers]\n";

static void fixture_imports_exactly(void **state) {
  (void)state;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  atoll_diag d;
  assert_rc(fixture_import(NULL, 0, &a, &m, &d), 0, &d);
  assert_true(atoll_model_is_valid(&m));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_rc(atoll_model_write_yaml(f, &m, "converted by test\n\nsecond line\n"), 0, NULL);
  assert_int_equal(fclose(f), 0);
  assert_string_equal(text, fixture_yaml);
  free(text);
  round_trip(&m);
  atoll_arena_free(&a);
}

static void trailing_slashes_name_the_model(void **state) {
  (void)state;
  fixture fx;
  fixture_write(&fx, NULL, 0);
  char dir[128];
  snprintf(dir, sizeof dir, "%s///", fx.dir);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu gpu = mi50();
  atoll_model m;
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = atoll_reef_import(&a, dir, &gpu, &m, &d);
  fixture_remove(&fx);
  assert_rc(rc, 0, &d);
  assert_string_equal(m.name, "mini");
  atoll_arena_free(&a);
}

/* A tensor passed twice keeps the union of its roles and is listed once. */
static void repeated_argument_merges_roles(void **state) {
  (void)state;
  const edit edits[] = {
      {F_MODEL, "\"args\": [2, 3]", "\"args\": [2, 2]"},
  };
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  atoll_diag d;
  assert_rc(fixture_import(edits, 1, &a, &m, &d), 0, &d);
  assert_i64(m.ops[1].n_reads, 0);
  assert_i64(m.ops[1].n_writes, 0);
  assert_i64(m.ops[1].n_readwrites, 1);
  assert_i64(m.ops[1].readwrites[0], 2);
  const edit reads[] = {
      {F_MODEL, "\"args\": [0, 1, 2]", "\"args\": [0, 0, 2]"},
  };
  assert_rc(fixture_import(reads, 1, &a, &m, &d), 0, &d);
  assert_i64(m.ops[0].n_reads, 1);
  assert_i64(m.ops[0].reads[0], 0);
  atoll_arena_free(&a);
}

/* Generated names avoid kept storage names; duplicated storage names are named by index. */
static void generated_names_avoid_collisions(void **state) {
  (void)state;
  const edit edits[] = {
      {F_MODEL, "\"name\": \"p0\"", "\"name\": \"t2\""},
      {F_MODEL, "\"name\": \"output\"", "\"name\": \"data\""},
  };
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  atoll_diag d;
  assert_rc(fixture_import(edits, 2, &a, &m, &d), 0, &d);
  assert_string_equal(m.tensors[0].name, "t0");
  assert_string_equal(m.tensors[1].name, "t2");
  assert_string_equal(m.tensors[2].name, "t2_2");
  assert_string_equal(m.tensors[3].name, "t3");
  assert_true(atoll_model_is_valid(&m));
  atoll_arena_free(&a);
}

static void error_missing_profile_file(void **state) {
  (void)state;
  fixture fx;
  fixture_write(&fx, NULL, 0);
  unlink(fx.path[F_PROFILE]);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu gpu = mi50();
  atoll_model m;
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = atoll_reef_import(&a, fx.dir, &gpu, &m, &d);
  fixture_remove(&fx);
  assert_rc(rc, ATOLL_ENOENT, &d);
  atoll_diag_print(&d, stderr);
  assert_true(ends_with(d.file, "/mini/mini.profile.json"));
  assert_i64(d.line, 0);
  assert_contains(d.msg, "cannot read the REEF profile");
  assert_contains(d.msg, "No such file");
  atoll_arena_free(&a);
}

static void error_kernel_without_profile(void **state) {
  (void)state;
  const edit edits[] = {{F_PROFILE, "\"relu\":", "\"relu_other\":"}};
  EXPECT_ERROR(edits, ATOLL_EPARSE, "mini.json", 10, "kernel 'relu' has no entry in kernel_latency",
               "kernels[1].name");
}

static void error_bad_launch_params(void **state) {
  (void)state;
  const edit zero[] = {{F_MODEL, "[4, 1, 1, 64, 1, 1], \"args\": [2, 3]", "[4, 1, 0, 64, 1, 1], \"args\": [2, 3]"}};
  EXPECT_ERROR(zero, ATOLL_EPARSE, "mini.json", 10, "launch_params[2] (grid.z) must be a positive integer, found 0",
               "kernels[1].launch_params[2]");
  const edit five[] = {{F_MODEL, "[4, 1, 1, 64, 1, 1], \"args\": [0", "[4, 1, 1, 64, 1], \"args\": [0"}};
  EXPECT_ERROR(five, ATOLL_EPARSE, "mini.json", 9, "launch_params must be 6 positive integers", NULL);
  const edit text[] = {{F_MODEL, "[4, 1, 1, 64, 1, 1], \"args\": [0", "[4, 1, 1, \"64\", 1, 1], \"args\": [0"}};
  EXPECT_ERROR(text, ATOLL_EPARSE, "mini.json", 9, "(block.x) must be a positive integer, found the string \"64\"",
               NULL);
  const edit big[] = {{F_MODEL, "[4, 1, 1, 64, 1, 1], \"args\": [0", "[4, 1, 1, 64, 128, 1], \"args\": [0"}};
  EXPECT_ERROR(big, ATOLL_EPARSE, "mini.json", 9, "a block of 8192 threads", NULL);
  /* 2^32 - 1 blocks or more: located at the launch (it was "internal error: the imported model is
   * not valid", with no location), its count not wrapped past 2^64. */
  const edit grid[] = {
      {F_MODEL, "[4, 1, 1, 64, 1, 1], \"args\": [0", "[4294967295, 65535, 65535, 64, 1, 1], \"args\": [0"}};
  EXPECT_ERROR(grid, ATOLL_EPARSE, "mini.json", 9,
               "a grid of 1.845e+19 blocks (launch_params[0..2]): 2^32 - 1 blocks or more", NULL);
}

static void error_args_params_count_mismatch(void **state) {
  (void)state;
  const edit edits[] = {{F_MODEL, "\"args\": [2, 3]", "\"args\": [2, 3, 1]"}};
  EXPECT_ERROR(edits, ATOLL_EPARSE, "mini.json", 10, "kernel 'relu' is launched with 3 args but has 2 parameters",
               "kernels[1].args");
}

static void error_unknown_role(void **state) {
  (void)state;
  const edit edits[] = {{F_PARAMS, "\"w\", \"type\": \"float*\", \"role\": \"read\"",
                         "\"w\", \"type\": \"float*\", \"role\": \"modify\""}};
  EXPECT_ERROR(edits, ATOLL_EPARSE, "mini.params.json", 4,
               "unknown role 'modify' (expected one of: read, write, readwrite)", "conv[1].role");
}

static void error_storage_index_out_of_range(void **state) {
  (void)state;
  const edit edits[] = {{F_MODEL, "\"args\": [0, 1, 2]", "\"args\": [0, 1, 7]"}};
  EXPECT_ERROR(edits, ATOLL_EPARSE, "mini.json", 9,
               "storage index 7 is out of range: the model has 4 storage entries", "kernels[0].args[2]");
  const edit top[] = {{F_MODEL, "\"args\": [0, 1],", "\"args\": [0, 4],"}};
  EXPECT_ERROR(top, ATOLL_EPARSE, "mini.json", 12, "storage index 4 is out of range", "args[1]");
}

static void error_latencies(void **state) {
  (void)state;
  const edit empty[] = {{F_PROFILE, "\"latency\": [8]", "\"latency\": []"}};
  EXPECT_ERROR(empty, ATOLL_EPARSE, "mini.profile.json", 5, "the latency list is empty",
               "kernel_latency.relu.latency");
  const edit zero[] = {{F_PROFILE, "[18, 30]", "[18, 0]"}};
  EXPECT_ERROR(zero, ATOLL_EPARSE, "mini.profile.json", 4, "a latency must be a positive number of microseconds",
               "kernel_latency.conv.latency[1]");
  const edit negative[] = {{F_PROFILE, "\"total_latency\": 8.5", "\"total_latency\": -2"}};
  EXPECT_ERROR(negative, ATOLL_EPARSE, "mini.profile.json", 5, "total_latency must be a positive number",
               "kernel_latency.relu.total_latency");
  const edit model[] = {{F_PROFILE, "\"model_latency\": 30", "\"model_latency\": \"30\""}};
  EXPECT_ERROR(model, ATOLL_EPARSE, "mini.profile.json", 2,
               "model_latency must be a JSON number, found the string \"30\"", "model_latency");
  const edit missing[] = {{F_PROFILE, "\"total_latency\": 20, ", ""}};
  EXPECT_ERROR(missing, ATOLL_EPARSE, "mini.profile.json", 4, "missing required key 'total_latency'",
               "kernel_latency.conv");
}

static void error_params_entry_missing(void **state) {
  (void)state;
  const edit edits[] = {{F_PARAMS, "\"relu\":", "\"relu2\":"}};
  EXPECT_ERROR(edits, ATOLL_EPARSE, "mini.json", 10, "kernel 'relu' has no entry in", "kernels[1].name");
}

static void error_json_types_and_keys(void **state) {
  (void)state;
  const edit stype[] = {{F_MODEL, "\"size\": 64, \"stype\": \"float32\"", "\"size\": 64, \"stype\": \"complex64\""}};
  EXPECT_ERROR(stype, ATOLL_EPARSE, "mini.json", 4, "unknown storage type 'complex64'", "storage[1].stype");
  const edit size[] = {{F_MODEL, "\"size\": 64", "\"size\": \"64\""}};
  EXPECT_ERROR(size, ATOLL_EPARSE, "mini.json", 4, "size must be a JSON number, found the string \"64\"",
               "storage[1].size");
  const edit key[] = {{F_MODEL, "\"size\": 64", "\"size\": 64, \"shape\": [8, 8]"}};
  EXPECT_ERROR(key, ATOLL_EPARSE, "mini.json", 4, "unknown key 'shape' in storage entry", "storage[1]");
  const edit kind[] = {{F_MODEL, "\"storage\": [", "\"storage\": {\"a\": ["},
                       {F_MODEL, "  ],\n  \"kernels\"", "  ]},\n  \"kernels\""}};
  EXPECT_ERROR(kind, ATOLL_EPARSE, "mini.json", 2, "\"storage\" must be an array, not an object", "storage");
  const edit gone[] = {{F_MODEL, "  \"args\": [0, 1],\n", ""}};
  EXPECT_ERROR(gone, ATOLL_EPARSE, "mini.json", 1, "missing required key \"args\"", NULL);
  const edit syntax[] = {{F_PARAMS, "\"role\": \"write\"}\n  ]\n}", "\"role\": \"write\"}\n  \n}"}};
  EXPECT_ERROR(syntax, ATOLL_EPARSE, "mini.params.json", 11, "did not find expected ',' or ']'", NULL);
}

/* --- The writer on its own --- */

static void format_us_trims(void **state) {
  (void)state;
  char buf[32];
  assert_string_equal(atoll_format_us(240000, buf, sizeof buf), "240");
  assert_string_equal(atoll_format_us(12500, buf, sizeof buf), "12.5");
  assert_string_equal(atoll_format_us(1, buf, sizeof buf), "0.001");
  assert_string_equal(atoll_format_us(1230, buf, sizeof buf), "1.23");
  assert_string_equal(atoll_format_us(1234567, buf, sizeof buf), "1234.567");
  assert_string_equal(atoll_format_us(0, buf, sizeof buf), "0");
}

static const char *const hand_yaml =
    "atoll_model: 1\n"
    "name: hand\n"
    "gpu: mi50\n"
    "source: \"say \\\"hi\\\"\\nback\\\\slash\"\n"
    "tensors:\n"
    "  - {name: data, bytes: 4096, kind: input}\n"
    "  - {name: \"null\", bytes: 64, kind: weight}\n"
    "  - {name: \"yes\", bytes: 4096, kind: intermediate, dtype: float16}\n"
    "  - {name: out.1, bytes: 4096, kind: output}\n"
    "ops:\n"
    "  - memcpy: h2d\n"
    "    tensor: data\n"
    "  - kernel: \"k: 1 #x\"\n"
    "    grid: [8, 1, 1]\n"
    "    block: [256, 1, 1]\n"
    "    occupancy: 3\n"
    "    time_us: 0.001\n"
    "    time_per_occupancy_us: [12.5, 240]\n"
    "    block_time_us: 1234.567\n"
    "    registers: 64\n"
    "    reads: [data, \"null\"]\n"
    "    writes: [\"yes\"]\n"
    "    idempotent: true\n"
    "    versions:\n"
    "      - {grid: [2, 1, 1], block: [32, 1, 1], occupancy: 1, time_us: 0.007, block_time_us: 0.007, registers: "
    "32, derived: [registers]}\n"
    "  - kernel: relu\n"
    "    grid: [1, 1, 1]\n"
    "    block: [64, 1, 1]\n"
    "    occupancy: 1\n"
    "    time_us: 1.23\n"
    "    block_time_us: 1.23\n"
    "    registers: 128\n"
    "    readwrites: [\"yes\"]\n"
    "    group_entry: 1\n"
    "  - memset: out.1\n"
    "    bytes: 100\n"
    "    time_us: 2\n"
    "  - memcpy: d2h\n"
    "    tensor: out.1\n"
    "    time_us: 1.5\n";

/* Quoting, copies, idempotence and versions, which REEF imports do not exercise. */
static void writer_hand_model(void **state) {
  (void)state;
  static const atoll_tensor tensors[] = {{"data", 4096, ATOLL_TENSOR_INPUT, NULL},
                                         {"null", 64, ATOLL_TENSOR_WEIGHT, NULL},
                                         {"yes", 4096, ATOLL_TENSOR_INTERMEDIATE, "float16"},
                                         {"out.1", 4096, ATOLL_TENSOR_OUTPUT, NULL}};
  static const int64_t tpo[] = {12500, 240000};
  static const uint32_t reads[] = {0, 1}, writes[] = {2}, rw[] = {2};
  static const atoll_kernel_shape version = {.grid = {2, 1, 1},
                                             .block = {32, 1, 1},
                                             .occupancy = 1,
                                             .time_ns = 7,
                                             .block_time_ns = 7,
                                             .registers = 32,
                                             .derived = ATOLL_DERIVED_REGISTERS};
  const atoll_op ops[] = {
      {.kind = ATOLL_OP_MEMCPY_H2D, .tensor = 0, .bytes = 4096},
      {.kind = ATOLL_OP_KERNEL,
       .name = "k: 1 #x",
       .shape = {.grid = {8, 1, 1},
                 .block = {256, 1, 1},
                 .occupancy = 3,
                 .time_ns = 1,
                 .block_time_ns = 1234567,
                 .time_per_occupancy_ns = tpo,
                 .n_time_per_occupancy = 2,
                 .registers = 64},
       .versions = &version,
       .n_versions = 1,
       .reads = reads,
       .n_reads = 2,
       .writes = writes,
       .n_writes = 1,
       .idem = ATOLL_IDEM_YES},
      {.kind = ATOLL_OP_KERNEL,
       .name = "relu",
       .shape = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .occupancy = 1, .time_ns = 1230, .block_time_ns = 1230,
                 .registers = 128},
       .readwrites = rw,
       .n_readwrites = 1,
       .idem = ATOLL_IDEM_GROUP,
       .group_entry = 1},
      {.kind = ATOLL_OP_MEMSET, .tensor = 3, .bytes = 100, .copy_time_ns = 2000},
      {.kind = ATOLL_OP_MEMCPY_D2H, .tensor = 3, .bytes = 4096, .copy_time_ns = 1500},
  };
  const atoll_model m = {.name = "hand",
                         .gpu = "mi50",
                         .source = "say \"hi\"\nback\\slash",
                         .tensors = tensors,
                         .n_tensors = 4,
                         .ops = ops,
                         .n_ops = 5};
  assert_true(atoll_model_is_valid(&m));
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_rc(atoll_model_write_yaml(f, &m, NULL), 0, NULL);
  assert_int_equal(fclose(f), 0);
  assert_string_equal(text, hand_yaml);
  free(text);
  round_trip(&m);
  checked_writer(&m, hand_yaml);

  /* An invalid model is refused rather than written with dangling tensor names. */
  atoll_model bad = m;
  bad.n_tensors = 2;
  f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_rc(atoll_model_write_yaml(f, &bad, NULL), ATOLL_EINVAL, NULL);
  fclose(f);
  free(text);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(import_alexnet),
    cmocka_unit_test(import_bert),
    cmocka_unit_test(import_mocked_kernel),
    cmocka_unit_test(import_resnet),
    cmocka_unit_test(import_resnet152),
    cmocka_unit_test(import_resnet18),
    cmocka_unit_test(import_vgg),
    cmocka_unit_test(resnet152_totals),
    cmocka_unit_test(tensor_kinds_and_names),
    cmocka_unit_test(fixture_imports_exactly),
    cmocka_unit_test(trailing_slashes_name_the_model),
    cmocka_unit_test(repeated_argument_merges_roles),
    cmocka_unit_test(generated_names_avoid_collisions),
    cmocka_unit_test(error_missing_profile_file),
    cmocka_unit_test(error_kernel_without_profile),
    cmocka_unit_test(error_bad_launch_params),
    cmocka_unit_test(error_args_params_count_mismatch),
    cmocka_unit_test(error_unknown_role),
    cmocka_unit_test(error_storage_index_out_of_range),
    cmocka_unit_test(error_latencies),
    cmocka_unit_test(error_params_entry_missing),
    cmocka_unit_test(error_json_types_and_keys),
    cmocka_unit_test(format_us_trims),
    cmocka_unit_test(writer_hand_model),
};

ATOLL_TEST_MAIN(tests)
