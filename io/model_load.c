/* Model profile loading (docs/models.md). */
#include <math.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/load.h"
#include "io/strmap.h"

typedef struct model_ctx {
  atoll_yread *r;
  const atoll_gpu *gpu;
  const char *gpu_name;
  atoll_tensor *tensors;
  uint32_t n_tensors;
  atoll_strmap by_name; /* tensor name -> index, so lookups and duplicate checks stay linear overall */
  uint32_t *listed;     /* per tensor: the serial of the last tensor list naming it */
  uint32_t list_serial;
  double *op_flops;     /* per op: `flops:` (0 where an op gives none) */
  bool any_flops;
  int64_t *op_cpu_ns;   /* per op: `cpu_us:` (0 where an op gives none) */
  bool any_cpu;
  uint64_t *op_bytes;   /* per op: `bytes_per_block:` (0 where an op gives none) */
  bool any_bytes;
} model_ctx;


static int read_dim3(atoll_yread *r, const atoll_ynode *n, uint32_t max, atoll_dim3 *out) {
  int rc = atoll_yread_seq(r, n, "a [x, y, z] triple");
  if (rc)
    return rc;
  if (n->n != 3)
    return atoll_yread_error(r, n, "expected [x, y, z] (3 numbers), found %u", n->n);
  uint32_t v[3];
  for (uint32_t i = 0; i < 3 && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = atoll_yread_u32(r, n->items[i], 1, max, &v[i]);
    atoll_yread_pop(r);
  }
  if (rc == 0)
    *out = (atoll_dim3){v[0], v[1], v[2]};
  return rc;
}

static int find_tensor(const model_ctx *c, const atoll_ynode *n, uint32_t *out) {
  if (atoll_strmap_get(&c->by_name, n->str, n->len, out))
    return 0;
  return atoll_yread_error(c->r, n, "unknown tensor '%s' (not in the model's tensors)", n->str);
}

static int read_tensor_list(model_ctx *c, const atoll_ynode *n, const uint32_t **out, uint32_t *count) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "a list of tensor names");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "tensors in one list", ATOLL_MAX_OP_TENSORS);
  if (rc)
    return rc;
  uint32_t *idx = n->n ? atoll_arena_calloc(r->arena, n->n, sizeof *idx) : NULL;
  if (n->n && !idx)
    return atoll_yread_oom(r, n);
  uint32_t serial = ++c->list_serial;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const char *name;
    atoll_yread_push_index(r, i);
    rc = atoll_yread_str(r, n->items[i], &name);
    if (rc == 0)
      rc = find_tensor(c, n->items[i], &idx[i]);
    if (rc == 0 && c->listed[idx[i]] == serial)
      rc = atoll_yread_error(r, n->items[i], "tensor '%s' listed twice", name);
    if (rc == 0)
      c->listed[idx[i]] = serial;
    atoll_yread_pop(r);
  }
  *out = idx;
  *count = n->n;
  return rc;
}

static int read_times_us(atoll_yread *r, const atoll_ynode *n, const int64_t **out, uint32_t *count) {
  int rc = atoll_yread_seq(r, n, "a list of times in microseconds");
  if (rc)
    return rc;
  if (n->n == 0)
    return atoll_yread_error(r, n, "expected at least one time");
  int64_t *t = atoll_arena_calloc(r->arena, n->n, sizeof *t);
  if (!t)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = atoll_yread_time_ns(r, n->items[i], 1000.0, false, &t[i]);
    atoll_yread_pop(r);
  }
  *out = t;
  *count = n->n;
  return rc;
}

static const char *const derived_names[] = {"block_time", "registers", "time", "occupancy"};

static int read_derived(atoll_yread *r, const atoll_ynode *n, uint32_t *bits) {
  int rc = atoll_yread_seq(r, n, "a list of derived field names");
  for (uint32_t i = 0; i < (n ? n->n : 0) && rc == 0; i++) {
    uint32_t k;
    atoll_yread_push_index(r, i);
    rc = atoll_yread_enum(r, n->items[i], "derived field", derived_names, 4, &k);
    if (rc == 0 && (*bits & 1u << k))
      rc = atoll_yread_error(r, n->items[i], "'%s' is listed twice in derived; list each field once",
                             derived_names[k]);
    atoll_yread_pop(r);
    if (rc == 0)
      *bits |= 1u << k;
  }
  return rc;
}

/* Shape keys shared by a kernel op and its versions. */
enum { S_GRID, S_BLOCK, S_OCC, S_TIME, S_TPO, S_BT, S_REGS, S_SHARED, S_DERIVED, S_N };
static const char *const shape_keys[S_N] = {"grid",          "block",     "occupancy",    "time_us",
                                            "time_per_occupancy_us", "block_time_us", "registers",
                                            "shared_bytes",  "derived"};

static int read_shape(model_ctx *c, const atoll_ynode *map, const atoll_ynode *const *v, atoll_kernel_shape *s) {
  atoll_yread *r = c->r;
  int rc = 0;
  for (int k = S_GRID; k <= S_TIME && rc == 0; k++)
    rc = atoll_yread_require(r, map, v[k], shape_keys[k]);
  if (rc == 0)
    rc = WITH_KEY(r, "grid", read_dim3(r, v[S_GRID], UINT32_MAX, &s->grid));
  /* atoll_kernel_shape_is_valid's bound: block counts stay below 2^32 - 1 (x * y cannot wrap). */
  if (rc == 0 && ((uint64_t)s->grid.x * s->grid.y >= UINT32_MAX ||
                  (uint64_t)s->grid.x * s->grid.y * s->grid.z >= UINT32_MAX))
    rc = WITH_KEY(r, "grid", atoll_yread_error(r, v[S_GRID], "a grid of %u x %u x %u blocks; at most 4294967294 in all",
                                               s->grid.x, s->grid.y, s->grid.z));
  if (rc == 0)
    rc = WITH_KEY(r, "block", read_dim3(r, v[S_BLOCK], 4096, &s->block));
  if (rc == 0 && atoll_dim3_count(s->block) > 4096)
    rc = atoll_yread_error(r, v[S_BLOCK], "a block of %llu threads exceeds 4096",
                           (unsigned long long)atoll_dim3_count(s->block));
  if (rc == 0)
    rc = WITH_KEY(r, "occupancy", atoll_yread_u32(r, v[S_OCC], 1, 1024, &s->occupancy));
  if (rc == 0)
    rc = WITH_KEY(r, "time_us", atoll_yread_time_ns(r, v[S_TIME], 1000.0, false, &s->time_ns));
  if (rc == 0 && v[S_TPO]) {
    rc = WITH_KEY(r, "time_per_occupancy_us",
                  read_times_us(r, v[S_TPO], &s->time_per_occupancy_ns, &s->n_time_per_occupancy));
    if (rc == 0 && s->n_time_per_occupancy > s->occupancy)
      rc = atoll_yread_error(r, v[S_TPO], "%u per-occupancy times for an occupancy of %u",
                             s->n_time_per_occupancy, s->occupancy);
  }
  if (rc == 0 && v[S_SHARED])
    rc = WITH_KEY(r, "shared_bytes", atoll_yread_u32(r, v[S_SHARED], 0, 1u << 24, &s->shared_bytes));
  if (rc == 0 && v[S_DERIVED])
    rc = WITH_KEY(r, "derived", read_derived(r, v[S_DERIVED], &s->derived));
  if (rc == 0 && v[S_BT])
    rc = WITH_KEY(r, "block_time_us", atoll_yread_time_ns(r, v[S_BT], 1000.0, false, &s->block_time_ns));
  if (rc == 0 && v[S_REGS])
    rc = WITH_KEY(r, "registers", atoll_yread_u32(r, v[S_REGS], 0, ATOLL_MAX_REGISTERS_PER_THREAD, &s->registers));
  if (rc)
    return rc;
  /* Omitted fields are derived with the documented formulas, from the GPU the profile names. */
  if ((!v[S_BT] || !v[S_REGS]) && !c->gpu)
    return atoll_yread_error(r, map, "%s is absent and GPU preset '%s' was not found to derive it",
                             !v[S_BT] ? "block_time_us" : "registers", c->gpu_name);
  if (!v[S_BT]) {
    s->block_time_ns = atoll_derive_block_time_ns(s, c->gpu->cus);
    s->derived |= ATOLL_DERIVED_BLOCK_TIME;
  }
  if (!v[S_REGS]) {
    s->registers = atoll_derive_registers(s, c->gpu->registers_per_cu, atoll_gpu_max_registers_per_thread(c->gpu));
    s->derived |= ATOLL_DERIVED_REGISTERS;
  }
  return 0;
}

static int read_versions(model_ctx *c, const atoll_ynode *n, atoll_op *op) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "versions");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "versions of one kernel", ATOLL_MAX_VERSIONS);
  if (rc == 0 && n->n == 0)
    rc = atoll_yread_error(r, n, "versions needs at least one version; leave it out for a kernel with one");
  if (rc)
    return rc;
  atoll_kernel_shape *vs = n->n ? atoll_arena_calloc(r->arena, n->n, sizeof *vs) : NULL;
  if (n->n && !vs)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *v[S_N];
    atoll_yread_push_index(r, i);
    rc = atoll_yread_map(r, n->items[i], "kernel version", shape_keys, S_N, v);
    if (rc == 0)
      rc = read_shape(c, n->items[i], v, &vs[i]);
    atoll_yread_pop(r);
  }
  op->versions = vs;
  op->n_versions = n->n;
  return rc;
}

enum { K_KERNEL = S_N, K_READS, K_WRITES, K_RW, K_IDEM, K_ENTRY, K_VERSIONS, K_OPERATOR, K_BATCH, K_FLOPS, K_CPU, K_BYTES_PER_BLOCK, K_N };

/* batch_time_us: [[BATCH, US], ...]: the kernel's measured time at batches above 1, by increasing
 * batch (docs/models.md); batch 1 is time_us. */
static int read_batch_times(model_ctx *c, const atoll_ynode *n, atoll_op *op) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "a list of [batch, time_us] pairs");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "batch times of one kernel", ATOLL_MAX_BATCH_TIMES);
  if (rc == 0 && n->n == 0)
    rc = atoll_yread_error(r, n, "expected at least one [batch, time_us] pair");
  if (rc)
    return rc;
  atoll_batch_time *bt = atoll_arena_calloc(r->arena, n->n, sizeof *bt);
  if (!bt)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *pair = n->items[i];
    atoll_yread_push_index(r, i);
    rc = atoll_yread_seq(r, pair, "a [batch, time_us] pair");
    if (rc == 0 && pair->n != 2)
      rc = atoll_yread_error(r, pair, "expected [batch, time_us], two numbers; got %u", pair->n);
    if (rc == 0)
      rc = atoll_yread_u32(r, pair->items[0], 2, UINT32_MAX, &bt[i].batch);
    if (rc == 0)
      rc = atoll_yread_time_ns(r, pair->items[1], 1000.0, false, &bt[i].time_ns);
    if (rc == 0 && i > 0 && bt[i].batch <= bt[i - 1].batch)
      rc = atoll_yread_error(r, pair->items[0], "batch %u does not follow batch %u: the pairs go by increasing batch",
                             bt[i].batch, bt[i - 1].batch);
    atoll_yread_pop(r);
  }
  op->batch_times = bt;
  op->n_batch_times = n->n;
  return rc;
}

static int read_kernel(model_ctx *c, const atoll_ynode *map, uint32_t index, atoll_op *op) {
  /* The shape keys first, in shape_keys' order, so v[] serves read_shape() as it is. */
  static const char *const keys[K_N] = {"grid",       "block",      "occupancy", "time_us",
                                        "time_per_occupancy_us", "block_time_us", "registers",
                                        "shared_bytes", "derived", "kernel", "reads", "writes",
                                        "readwrites", "idempotent", "group_entry", "versions", "operator",
                                        "batch_time_us", "flops", "cpu_us", "bytes_per_block"};
  atoll_yread *r = c->r;
  const atoll_ynode *v[K_N];
  int rc = atoll_yread_map(r, map, "kernel op", keys, K_N, v);
  if (rc == 0)
    rc = WITH_KEY(r, "kernel", atoll_yread_str(r, v[K_KERNEL], &op->name));
  if (rc == 0 && v[K_OPERATOR])
    rc = WITH_KEY(r, "operator", atoll_yread_str(r, v[K_OPERATOR], &op->operator_name));
  if (rc == 0)
    rc = read_shape(c, map, v, &op->shape);
  /* flops: the kernel's floating-point operations, for the CPU cost model (docs/dart.md). */
  if (rc == 0 && v[K_FLOPS]) {
    rc = WITH_KEY(r, "flops", atoll_yread_double(r, v[K_FLOPS], 0, 1e18, false, &c->op_flops[index]));
    c->any_flops = true;
  }
  /* cpu_us: measured on one core of the native CPU device, for CPU nodes (docs/dart.md). */
  if (rc == 0 && v[K_CPU]) {
    double us = 0;
    rc = WITH_KEY(r, "cpu_us", atoll_yread_double(r, v[K_CPU], 0, 1e12, false, &us));
    c->op_cpu_ns[index] = (int64_t)(us * 1e3 + 0.5);
    c->any_cpu = true;
  }
  if (rc == 0 && v[K_READS])
    rc = WITH_KEY(r, "reads", read_tensor_list(c, v[K_READS], &op->reads, &op->n_reads));
  if (rc == 0 && v[K_WRITES])
    rc = WITH_KEY(r, "writes", read_tensor_list(c, v[K_WRITES], &op->writes, &op->n_writes));
  if (rc == 0 && v[K_RW])
    rc = WITH_KEY(r, "readwrites", read_tensor_list(c, v[K_RW], &op->readwrites, &op->n_readwrites));
  bool idem = false;
  if (rc == 0 && v[K_IDEM])
    rc = WITH_KEY(r, "idempotent", atoll_yread_bool(r, v[K_IDEM], &idem));
  if (rc == 0 && v[K_ENTRY]) {
    if (idem)
      return atoll_yread_error(r, v[K_ENTRY], "group_entry given for a kernel marked idempotent: true");
    rc = WITH_KEY(r, "group_entry", atoll_yread_u32(r, v[K_ENTRY], 0, UINT32_MAX, &op->group_entry));
    /* A group is restored by re-executing from its entry up to this op: the entry cannot follow it. */
    if (rc == 0 && op->group_entry > index)
      rc = WITH_KEY(r, "group_entry", atoll_yread_error(r, v[K_ENTRY], "group_entry %u is after this op (ops[%u]); a "
                                                                       "group entry is at or before its op",
                                                        op->group_entry, index));
    op->idem = ATOLL_IDEM_GROUP;
  } else if (rc == 0 && v[K_IDEM]) {
    /* idempotent: false with no group entry: no group restores it (idem_checker's "not restorable"). */
    op->idem = idem ? ATOLL_IDEM_YES : ATOLL_IDEM_NONE;
  }
  if (rc == 0 && v[K_VERSIONS])
    rc = WITH_KEY(r, "versions", read_versions(c, v[K_VERSIONS], op));
  if (rc == 0 && v[K_BATCH])
    rc = WITH_KEY(r, "batch_time_us", read_batch_times(c, v[K_BATCH], op));
  /* bytes_per_block: the device memory one block moves (docs/simulator.md, "Memory interference"). */
  if (rc == 0 && v[K_BYTES_PER_BLOCK]) {
    rc = WITH_KEY(r, "bytes_per_block", atoll_yread_u64(r, v[K_BYTES_PER_BLOCK], 0, UINT64_C(1) << 40, &c->op_bytes[index]));
    c->any_bytes = true;
  }
  op->kind = ATOLL_OP_KERNEL;
  return rc;
}

static int read_copy(model_ctx *c, const atoll_ynode *map, atoll_op *op) {
  static const char *const keys[] = {"memcpy", "memset", "tensor", "bytes", "time_us", "operator"};
  static const char *const dirs[] = {"h2d", "d2h"};
  atoll_yread *r = c->r;
  const atoll_ynode *v[6];
  int rc = atoll_yread_map(r, map, "copy op", keys, 6, v);
  if (rc == 0 && v[5])
    rc = WITH_KEY(r, "operator", atoll_yread_str(r, v[5], &op->operator_name));
  if (rc)
    return rc;
  const atoll_ynode *tensor_node = v[2];
  if (v[0]) {
    uint32_t dir;
    if (v[1])
      return atoll_yread_error(r, v[1], "an op is either a memcpy or a memset, not both");
    if ((rc = WITH_KEY(r, "memcpy", atoll_yread_enum(r, v[0], "memcpy direction", dirs, 2, &dir))))
      return rc;
    op->kind = dir == 0 ? ATOLL_OP_MEMCPY_H2D : ATOLL_OP_MEMCPY_D2H;
    if ((rc = atoll_yread_require(r, map, tensor_node, "tensor")))
      return rc;
  } else {
    op->kind = ATOLL_OP_MEMSET;
    if (tensor_node)
      return atoll_yread_error(r, tensor_node, "a memset names its tensor as memset: TENSOR");
    tensor_node = v[1];
  }
  const char *name;
  const char *tensor_key = op->kind == ATOLL_OP_MEMSET ? "memset" : "tensor";
  if ((rc = WITH_KEY(r, tensor_key, atoll_yread_str(r, tensor_node, &name))))
    return rc;
  if ((rc = WITH_KEY(r, tensor_key, find_tensor(c, tensor_node, &op->tensor))))
    return rc;
  uint64_t size = c->tensors[op->tensor].bytes;
  op->bytes = size;
  if (v[3] && (rc = WITH_KEY(r, "bytes", atoll_yread_u64(r, v[3], 1, size, &op->bytes))))
    return rc;
  if (v[4] && (rc = WITH_KEY(r, "time_us", atoll_yread_time_ns(r, v[4], 1000.0, false, &op->copy_time_ns))))
    return rc;
  return 0;
}

static int read_op(model_ctx *c, const atoll_ynode *n, uint32_t index, atoll_op *op) {
  atoll_yread *r = c->r;
  if (!n || n->kind != ATOLL_Y_MAP)
    return atoll_yread_error(r, n, "an op must be a mapping starting with kernel:, memcpy: or memset:");
  if (atoll_ymap_get(n, "kernel"))
    return read_kernel(c, n, index, op);
  if (atoll_ymap_get(n, "memcpy") || atoll_ymap_get(n, "memset"))
    return read_copy(c, n, op);
  return atoll_yread_error(r, n, "an op needs one of the keys kernel, memcpy or memset");
}

static int read_tensors(model_ctx *c, const atoll_ynode *n) {
  static const char *const keys[] = {"name", "bytes", "kind", "dtype"};
  static const char *const kinds[] = {"input", "output", "weight", "intermediate"};
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "tensors");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "tensors", ATOLL_MAX_TENSORS);
  if (rc)
    return rc;
  c->tensors = n->n ? atoll_arena_calloc(r->arena, n->n, sizeof *c->tensors) : NULL;
  c->listed = atoll_arena_calloc(r->arena, n->n + 1, sizeof *c->listed);
  if ((n->n && !c->tensors) || !c->listed)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *v[4];
    atoll_tensor *t = &c->tensors[i];
    uint32_t kind = 0;
    atoll_yread_push_index(r, i);
    rc = atoll_yread_map(r, n->items[i], "tensor", keys, 4, v);
    for (int k = 0; k < 3 && rc == 0; k++)
      rc = atoll_yread_require(r, n->items[i], v[k], keys[k]);
    if (rc == 0)
      rc = WITH_KEY(r, "name", atoll_yread_name(r, v[0], &t->name));
    uint32_t j = 0;
    int added = rc == 0 ? atoll_strmap_add(&c->by_name, t->name, v[0]->len, i, &j) : 0;
    if (added < 0)
      rc = atoll_yread_oom(r, v[0]);
    else if (added == 1)
      rc = atoll_yread_error(r, v[0], "duplicate tensor name '%s' (also tensors[%u])", t->name, j);
    if (rc == 0)
      rc = WITH_KEY(r, "bytes", atoll_yread_u64(r, v[1], 1, ATOLL_MAX_TENSOR_BYTES, &t->bytes));
    if (rc == 0)
      rc = WITH_KEY(r, "kind", atoll_yread_enum(r, v[2], "tensor kind", kinds, 4, &kind));
    t->kind = (atoll_tensor_kind)kind;
    if (rc == 0 && v[3])
      rc = WITH_KEY(r, "dtype", atoll_yread_str(r, v[3], &t->dtype));
    atoll_yread_pop(r);
  }
  c->n_tensors = n->n;
  return rc;
}

static const char *const model_keys[] = {"atoll_model", "name", "gpu", "source", "measured_latency_us", "tensors",
                                         "ops", "native", "measured_eager_latency_us", "footprint", "instance_load_ms"};
enum { M_VERSION, M_NAME, M_GPU, M_SOURCE, M_LAT, M_TENSORS, M_OPS, M_NATIVE, M_EAGER, M_FOOT, M_LOAD, M_N };

/* footprint: {weights_mb, activations_mb_per_batch}, both required, in MB (2^20 bytes). */
static int read_footprint(atoll_yread *r, const atoll_ynode *n, atoll_model *m) {
  static const char *const keys[] = {"weights_mb", "activations_mb_per_batch"};
  const atoll_ynode *v[2];
  int rc = atoll_yread_map(r, n, "footprint", keys, 2, v);
  for (int k = 0; k < 2 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc == 0)
    rc = WITH_KEY(r, "weights_mb", atoll_yread_double(r, v[0], 0, 1e9, false, &m->weights_mb));
  if (rc == 0)
    rc = WITH_KEY(r, "activations_mb_per_batch", atoll_yread_double(r, v[1], 0, 1e9, false, &m->activations_mb_per_batch));
  m->footprint_known = rc == 0;
  return rc;
}

/* A scenario given where a profile is expected (`atoll model info scenario.yaml`) would otherwise
 * fail on its first scenario key; say what the file is and which command reads it. */
static int scenario_not_profile(atoll_yread *r, const atoll_ynode *n) {
  if (!n || n->kind != ATOLL_Y_MAP || atoll_ymap_get(n, "atoll_model") || !atoll_ymap_get(n, "clients"))
    return 0;
  for (uint32_t i = 0; i < n->n; i++)
    if (strcmp(n->items[2 * i]->str, "clients") == 0)
      return atoll_yread_error(r, n->items[2 * i], "this is a scenario (it has clients), not a model profile: "
                                                   "'atoll check FILE' summarises it, 'atoll sim FILE' runs it");
  return 0;
}

/* The longest one shape of a kernel can run: its time, or its block time over the waves its blocks
 * take on the GPU (one block a wave when the GPU is not known), or a time per occupancy. */
static double shape_max_ns(const atoll_kernel_shape *k, const atoll_gpu *gpu) {
  double t = (double)k->time_ns, blocks = (double)k->grid.x * k->grid.y * k->grid.z;
  double per_wave = gpu && gpu->cus ? (double)gpu->cus * (k->occupancy ? k->occupancy : 1) : 1.0;
  t = fmax(t, (double)k->block_time_ns * ceil(blocks / per_wave));
  for (uint32_t i = 0; i < k->n_time_per_occupancy; i++)
    t = fmax(t, (double)k->time_per_occupancy_ns[i]);
  return t;
}

/* The longest an op can run on gpu (NULL: not known): a copy its time, a kernel its longest shape,
 * version or batch time. Declared where it is used (io/scenario_load.c): it is no API. */
double atoll__op_max_ns(const atoll_op *o, const atoll_gpu *gpu);
double atoll__op_max_ns(const atoll_op *o, const atoll_gpu *gpu) {
  if (o->kind != ATOLL_OP_KERNEL)
    return (double)o->copy_time_ns;
  double t = shape_max_ns(&o->shape, gpu);
  for (uint32_t v = 0; v < o->n_versions; v++)
    t = fmax(t, shape_max_ns(&o->versions[v], gpu));
  for (uint32_t b = 0; b < o->n_batch_times; b++)
    t = fmax(t, (double)o->batch_times[b].time_ns);
  return t;
}

/* Each time is at most one year (ATOLL_YREAD_MAX_TIME_NS), but the simulator adds a model's op
 * times on its int64 ns clock, and counts CU-time as time x CUs: a model whose ops take more than
 * one year in all overflowed them (the standalone run). The same year bounds the whole model. */
static int check_total_time(model_ctx *c, const atoll_ynode *ops_node, const atoll_op *ops) {
  double total = 0;
  for (uint32_t i = 0; i < ops_node->n; i++) {
    total += atoll__op_max_ns(&ops[i], c->gpu);
    if (total <= ATOLL_YREAD_MAX_TIME_NS)
      continue;
    atoll_yread_push_key(c->r, "ops");
    atoll_yread_push_index(c->r, i);
    int rc = atoll_yread_error(c->r, ops_node->items[i], "the ops up to this one take %.4g days in all (time_us, "
                               "block_time_us x waves); a model takes at most 365 days: shorten its ops",
                               total / 86400e9);
    atoll_yread_pop(c->r);
    atoll_yread_pop(c->r);
    return rc;
  }
  return 0;
}

static int read_model(atoll_yread *r, const atoll_ynode *n, model_ctx *c, atoll_model *out) {
  const atoll_ynode *v[M_N];
  int rc = scenario_not_profile(r, n);
  if (rc)
    return rc;
  rc = atoll_yread_map(r, n, "model profile", model_keys, M_N, v);
  static const int required[] = {M_VERSION, M_NAME, M_GPU, M_TENSORS, M_OPS};
  for (size_t k = 0; k < sizeof required / sizeof required[0] && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[required[k]], model_keys[required[k]]);
  if (rc)
    return rc;
  atoll_model m = {0};
  uint32_t version;
  if ((rc = WITH_KEY(r, "atoll_model", atoll_yread_u32(r, v[M_VERSION], 1, 1, &version))))
    return rc;
  if ((rc = WITH_KEY(r, "name", atoll_yread_name(r, v[M_NAME], &m.name))))
    return rc;
  if ((rc = WITH_KEY(r, "gpu", atoll_yread_name(r, v[M_GPU], &m.gpu))))
    return rc;
  c->gpu_name = m.gpu;
  if (c->gpu && strcmp(c->gpu->name, m.gpu) != 0)
    return WITH_KEY(r, "gpu", atoll_yread_error(r, v[M_GPU], "profile was measured on '%s', not on '%s'", m.gpu,
                                                c->gpu->name));
  if (v[M_SOURCE] && (rc = WITH_KEY(r, "source", atoll_yread_str(r, v[M_SOURCE], &m.source))))
    return rc;
  if (v[M_LAT] &&
      (rc = WITH_KEY(r, "measured_latency_us", atoll_yread_time_ns(r, v[M_LAT], 1000.0, false, &m.measured_latency_ns))))
    return rc;
  if (v[M_EAGER] && (rc = WITH_KEY(r, "measured_eager_latency_us",
                                   atoll_yread_time_ns(r, v[M_EAGER], 1000.0, false, &m.measured_eager_latency_ns))))
    return rc;
  if (v[M_NATIVE] && (rc = WITH_KEY(r, "native", atoll_yread_name(r, v[M_NATIVE], &m.native))))
    return rc;
  if (v[M_FOOT] && (rc = WITH_KEY(r, "footprint", read_footprint(r, v[M_FOOT], &m))))
    return rc;
  if (v[M_LOAD] && (rc = WITH_KEY(r, "instance_load_ms",
                                  atoll_yread_time_ns(r, v[M_LOAD], 1000.0 * 1000.0, false, &m.instance_load_ns))))
    return rc;
  if ((rc = WITH_KEY(r, "tensors", read_tensors(c, v[M_TENSORS]))))
    return rc;
  atoll_yread_push_key(r, "ops");
  rc = atoll_yread_seq(r, v[M_OPS], "ops");
  if (rc == 0 && v[M_OPS]->n == 0)
    rc = atoll_yread_error(r, v[M_OPS], "a model needs at least one op");
  if (rc == 0)
    rc = atoll_yread_count(r, v[M_OPS], "ops", ATOLL_MAX_OPS);
  atoll_op *ops = rc == 0 ? atoll_arena_calloc(r->arena, v[M_OPS]->n, sizeof *ops) : NULL;
  if (rc == 0 && !ops)
    rc = atoll_yread_oom(r, v[M_OPS]);
  if (rc == 0 && !(c->op_flops = atoll_arena_calloc(r->arena, v[M_OPS]->n, sizeof *c->op_flops)))
    rc = atoll_yread_oom(r, v[M_OPS]);
  if (rc == 0 && !(c->op_bytes = atoll_arena_calloc(r->arena, v[M_OPS]->n, sizeof *c->op_bytes)))
    rc = atoll_yread_oom(r, v[M_OPS]);
  if (rc == 0 && !(c->op_cpu_ns = atoll_arena_calloc(r->arena, v[M_OPS]->n, sizeof *c->op_cpu_ns)))
    rc = atoll_yread_oom(r, v[M_OPS]);
  for (uint32_t i = 0; rc == 0 && i < v[M_OPS]->n; i++) {
    atoll_yread_push_index(r, i);
    rc = read_op(c, v[M_OPS]->items[i], i, &ops[i]);
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  if (rc)
    return rc;
  if ((rc = check_total_time(c, v[M_OPS], ops)))
    return rc;
  m.tensors = c->tensors;
  m.n_tensors = c->n_tensors;
  m.ops = ops;
  m.n_ops = v[M_OPS]->n;
  m.op_flops = c->any_flops ? c->op_flops : NULL;
  m.op_cpu_ns = c->any_cpu ? c->op_cpu_ns : NULL;
  m.op_bytes_per_block = c->any_bytes ? c->op_bytes : NULL;
  *out = m;
  return 0;
}

int atoll_model_from_node(atoll_yread *r, const atoll_ynode *n, const atoll_gpu *gpu, atoll_model *out) {
  model_ctx c = {.r = r, .gpu = gpu};
  atoll_strmap_init(&c.by_name);
  int rc = read_model(r, n, &c, out);
  atoll_strmap_free(&c.by_name);
  return rc;
}

int atoll_model_load_file(atoll_arena *a, const char *path, const atoll_gpu *gpu, atoll_model *out,
                          atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, path, &src, d);
  return rc ? rc : atoll_model_load_source(a, src, atoll_path_dir(a, path), gpu, out, d);
}

static int load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_gpu *gpu,
                       const atoll_gpu *scenario_gpu, atoll_model *out, atoll_diag *d);

int atoll_model_load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_gpu *gpu,
                            atoll_model *out, atoll_diag *d) {
  return load_source(a, src, dir, gpu, NULL, out, d);
}

/* A scenario's profile (io/scenario_load.c): as atoll_model_load_file without a GPU, but where no
 * preset of the GPU the profile names is found near it, the scenario's GPU of that name derives its
 * missing fields; a preset in the scenario's folder, or an inline GPU, was not found from the
 * profile's folder. Declared where it is used: it is no API. */
int atoll__model_load_file_near(atoll_arena *a, const char *path, const atoll_gpu *scenario_gpu, atoll_model *out,
                                atoll_diag *d);
int atoll__model_load_file_near(atoll_arena *a, const char *path, const atoll_gpu *scenario_gpu, atoll_model *out,
                                atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, path, &src, d);
  return rc ? rc : load_source(a, src, atoll_path_dir(a, path), NULL, scenario_gpu, out, d);
}

static int load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_gpu *gpu,
                       const atoll_gpu *scenario_gpu, atoll_model *out, atoll_diag *d) {
  atoll_ynode *root;
  int rc = atoll_ytree_parse(a, src, 0, &root, d);
  if (rc)
    return rc;
  if (!root) {
    atoll_diag_set(d, src, 1, 1, NULL, "empty model profile");
    return ATOLL_EPARSE;
  }
  atoll_yread r;
  atoll_yread_init(&r, a, d);
  /* Without a GPU from the caller, the preset the profile names supplies derivation inputs. */
  atoll_gpu found = {0};
  if (!gpu) {
    const atoll_ynode *g = atoll_ymap_get(root, "gpu");
    const char *preset = g && g->kind == ATOLL_Y_SCALAR ? atoll_gpu_find_preset(a, g->str, dir)
                                                       : NULL;
    if (preset && atoll_gpu_load_file(a, preset, &found, d) != 0)
      return ATOLL_EPARSE;
    if (preset)
      gpu = &found;
    else if (g && g->kind == ATOLL_Y_SCALAR && scenario_gpu && strcmp(scenario_gpu->name, g->str) == 0)
      gpu = scenario_gpu;
  }
  return atoll_model_from_node(&r, root, gpu, out);
}
