/* REEF model importer (docs/models.md, "Importing REEF's models").
 *
 * The three JSON files are parsed into a scratch arena, read strictly where the importer takes
 * values from them (wrong types, missing keys, out-of-range indices are errors with their
 * location), and only the finished model is built in the caller's arena. Unknown keys at the top
 * level of each file are ignored, since REEF's format may carry more than atoll reads. */
#include "io/reef_import.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "atoll/memory.h"
#include "io/load.h"
#include "io/strmap.h"
#include "io/yread.h"
#include "io/ytree.h"

enum { ROLE_READ = 1, ROLE_WRITE = 2 };

/* Bounds the profile loader also enforces, checked here so an import never writes a profile
 * that atoll cannot load back. */
enum { MAX_BLOCK_THREADS = 4096, MAX_OCCUPANCY = 1024, MAX_SHARED_BYTES = 1 << 24 };
#define MAX_TENSOR_BYTES (UINT64_C(1) << 48)

/* One parsed kernel_latency entry, shared by every launch of that kernel name. */
typedef struct profile_entry {
  bool done;
  int64_t total_ns;
  int64_t *latency_ns; /* in the output arena: ops point at it */
  uint32_t n;
} profile_entry;

/* One parsed params.json entry: the role bits of each parameter, in signature order. */
typedef struct param_entry {
  bool done;
  uint8_t *roles;
  uint32_t n;
  const atoll_ynode *node;
} param_entry;

/* One input file. Each has its own reader so that error paths are keys within that file. */
typedef struct reef_file {
  atoll_source src;
  const atoll_ynode *root;
  atoll_yread r;
} reef_file;

typedef struct importer {
  atoll_arena *out;     /* the caller's arena: the model */
  atoll_arena scratch;  /* file texts, trees and working arrays; freed before returning */
  atoll_diag *diag;
  const atoll_gpu *gpu;
  reef_file model, profile, params;
  const atoll_ynode *kernel_latency, *shared_memory;
  profile_entry *prof; /* parallel to kernel_latency's pairs */
  param_entry *par;    /* parallel to params.json's pairs */
  atoll_strmap prof_index, par_index; /* kernel name -> pair index in kernel_latency, params.json */
  atoll_tensor *tensors;
  uint32_t n_tensors;
  atoll_op *ops;
  uint32_t n_ops;
} importer;

/* --- Small readers --- */

static const char *json_kind(const atoll_ynode *n) {
  if (!n)
    return "nothing";
  if (n->kind == ATOLL_Y_MAP)
    return "an object";
  if (n->kind == ATOLL_Y_SEQ)
    return "an array";
  if (!n->plain)
    return "a string";
  return strcmp(n->str, "true") == 0 || strcmp(n->str, "false") == 0 ? "a boolean"
         : strcmp(n->str, "null") == 0                                ? "null"
                                                                      : "a number";
}

static int want_kind(atoll_yread *r, const atoll_ynode *n, atoll_ykind kind, const char *what) {
  if (n && n->kind == kind)
    return 0;
  return atoll_yread_error(r, n, "%s must be %s, not %s", what,
                           kind == ATOLL_Y_MAP ? "an object" : kind == ATOLL_Y_SEQ ? "an array" : "a value",
                           json_kind(n));
}

/* What a value is, for messages: a plain scalar as written (0, -2, null), a quoted one as a string,
 * a collection by its kind. JSON users need to see that "64" is a string, not a number. */
static void describe(const atoll_ynode *n, char *buf, size_t size) {
  if (n && n->kind == ATOLL_Y_SCALAR)
    snprintf(buf, size, n->plain ? "%s" : "the string \"%s\"", n->str);
  else
    snprintf(buf, size, "%s", json_kind(n));
}

/* Numbers in JSON are unquoted; yread's number readers would call a quoted one malformed without
 * saying why. */
static int want_number(atoll_yread *r, const atoll_ynode *n, const char *what) {
  if (n && n->kind == ATOLL_Y_SCALAR && n->plain)
    return 0;
  char found[96];
  describe(n, found, sizeof found);
  return atoll_yread_error(r, n, "%s must be a JSON number, found %s", what, found);
}

/* A member of a file's top-level object: wrong kinds and missing required members are errors. */
static int get_member(reef_file *f, const char *key, atoll_ykind kind, bool required, const atoll_ynode **out) {
  const atoll_ynode *v = atoll_ymap_get(f->root, key);
  *out = v;
  if (!v)
    return required ? atoll_yread_error(&f->r, f->root, "missing required key \"%s\"", key) : 0;
  char what[64];
  snprintf(what, sizeof what, "\"%s\"", key);
  atoll_yread_push_key(&f->r, key);
  int rc = want_kind(&f->r, v, kind, what);
  atoll_yread_pop(&f->r);
  return rc;
}

/* A plain decimal integer in [1, UINT32_MAX]. */
static bool parse_positive_u32(const atoll_ynode *n, uint32_t *out) {
  if (!n || n->kind != ATOLL_Y_SCALAR || !n->plain || n->len == 0 || n->len > 10)
    return false;
  for (uint32_t i = 0; i < n->len; i++)
    if (n->str[i] < '0' || n->str[i] > '9')
      return false;
  unsigned long long v = strtoull(n->str, NULL, 10);
  if (v == 0 || v > UINT32_MAX)
    return false;
  *out = (uint32_t)v;
  return true;
}

/* A time in microseconds, > 0, to whole nanoseconds. */
static int read_us(atoll_yread *r, const atoll_ynode *n, const char *what, int64_t *ns) {
  double v;
  int rc = want_number(r, n, what);
  if (rc == 0)
    rc = atoll_yread_double(r, n, -1e300, 1e300, false, &v);
  if (rc == 0 && v <= 0)
    rc = atoll_yread_error(r, n, "%s must be a positive number of microseconds, found %s", what, n->str);
  if (rc == 0)
    rc = atoll_yread_time_ns(r, n, 1000.0, false, ns);
  return rc;
}

/* A storage index, in range of the storage table. */
static int read_storage_index(atoll_yread *r, const atoll_ynode *n, uint32_t n_storage, uint32_t *out) {
  uint64_t v;
  int rc = want_number(r, n, "a storage index");
  if (rc == 0)
    rc = atoll_yread_u64(r, n, 0, UINT64_MAX, &v);
  if (rc)
    return rc;
  if (v >= n_storage)
    return atoll_yread_error(r, n, "storage index %s is out of range: the model has %u storage entries", n->str,
                             n_storage);
  *out = (uint32_t)v;
  return 0;
}

/* Indexes a mapping's keys (all scalars, all distinct: the tree refuses duplicates). */
static int index_pairs(atoll_strmap *index, const atoll_ynode *map) {
  for (uint32_t i = 0; i < map->n; i++)
    if (atoll_strmap_add(index, map->items[2 * i]->str, map->items[2 * i]->len, i, NULL) < 0)
      return ATOLL_ENOMEM;
  return 0;
}

static int64_t pair_index(const atoll_strmap *index, const atoll_ynode *key) {
  uint32_t i;
  return atoll_strmap_get(index, key->str, key->len, &i) ? (int64_t)i : -1;
}

static int out_of_memory(importer *im) {
  atoll_diag_set(im->diag, NULL, 0, 0, NULL, "%s",
                 atoll_arena_failure(im->scratch.over_limit ? &im->scratch : im->out));
  return ATOLL_ENOMEM;
}

/* --- Files --- */

/* Parses f->src, which must hold a JSON object. */
static int parse_file(importer *im, reef_file *f, const char *what) {
  atoll_yread_init(&f->r, im->out, im->diag);
  atoll_ynode *root = NULL;
  int rc = atoll_ytree_parse(&im->scratch, &f->src, 0, &root, im->diag);
  if (rc)
    return rc;
  if (!root) {
    atoll_diag_set(im->diag, &f->src, 1, 1, NULL, "empty file: expected the REEF %s as a JSON object", what);
    return ATOLL_EPARSE;
  }
  f->root = root;
  return want_kind(&f->r, root, ATOLL_Y_MAP, "the file's top level");
}

static int open_file(importer *im, reef_file *f, const char *dir, const char *m, const char *suffix,
                     const char *what) {
  size_t size = strlen(dir) + strlen(m) + strlen(suffix) + 2;
  char *path = atoll_arena_alloc(&im->scratch, size);
  if (!path)
    return out_of_memory(im);
  snprintf(path, size, "%s/%s%s", dir, m, suffix);
  /* The reader's own message ("cannot open: ...") is wrapped so that it says which of the three
   * files is missing and what it should hold. */
  atoll_diag inner;
  atoll_diag_clear(&inner);
  int rc = atoll_source_read_file(&im->scratch, path, &f->src, &inner);
  if (rc) {
    atoll_source named = {.name = path};
    atoll_diag_set(im->diag, &named, 0, 0, NULL, "cannot read the REEF %s: %s", what, inner.msg);
    return rc;
  }
  return parse_file(im, f, what);
}

/* The directory without trailing slashes, and its base name, which names the three files. */
static int split_dir(importer *im, const char *dir, const char **clean, const char **base) {
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/')
    len--;
  char *c = atoll_arena_strndup(&im->scratch, dir, len);
  if (!c)
    return out_of_memory(im);
  const char *slash = strrchr(c, '/');
  const char *b = slash ? slash + 1 : c;
  if (*b == '\0' || strcmp(b, ".") == 0 || strcmp(b, "..") == 0) {
    atoll_diag_set(im->diag, NULL, 0, 0, NULL,
                   "cannot tell the model name from directory '%s': expected a folder <m>/ holding <m>.json, "
                   "<m>.profile.json and <m>.params.json",
                   dir);
    return ATOLL_EINVAL;
  }
  *clean = c;
  *base = b;
  return 0;
}

static int check_gpu(importer *im) {
  const atoll_gpu *g = im->gpu;
  if (!g || !g->name || !*g->name || !g->vendor || g->cus == 0 || g->registers_per_cu == 0) {
    atoll_diag_set(im->diag, NULL, 0, 0, NULL,
                   "the GPU description for a REEF import needs a name, a vendor, CUs and a register file size");
    return ATOLL_EINVAL;
  }
  /* Registers per thread are derived from the vendor's per-thread limit; guessing one for an
   * unknown vendor would put an invented number in the profile. */
  if (strcmp(g->vendor, "amd") != 0 && strcmp(g->vendor, "nvidia") != 0) {
    atoll_diag_set(im->diag, NULL, 0, 0, NULL, "unknown GPU vendor '%s' (expected amd or nvidia)", g->vendor);
    return ATOLL_EINVAL;
  }
  return 0;
}

/* --- Tensors --- */

static const char *const stype_names[] = {"float32", "int32", "uint32", "float16", "bfloat16", "int16", "uint16",
                                          "float64", "int64",  "uint64", "int8",    "uint8",    "bool",
                                          /* TVM's workspace buffers ("temp_arg") are typed "byte";
                                           * booleans are "uint1" and take one byte each. */
                                          "byte", "uint1"};
static const uint8_t stype_bytes[] = {4, 4, 4, 2, 2, 2, 2, 8, 8, 8, 1, 1, 1, 1, 1};

static bool is_name(const char *s) {
  if (!*s || strlen(s) > ATOLL_MAX_NAME_BYTES)
    return false;
  for (; *s; s++) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.'))
      return false;
  }
  return true;
}

/* Tensor kinds. REEF's JSON does not label weights. Its top-level "args" is the external set: the
 * storage entries the caller binds before a run (TVM's graph inputs: the data input, then the
 * parameters); everything else the runtime allocates. Names alone do not tell weights apart: TVM
 * renames bound parameters p0, p1, ..., but alexnet's keep their framework names (conv_1_weight,
 * bias_1_weight, ...) and mocked_kernel's are a, b, c. Hence:
 *   - "output" is the output (TVM's graph executor names the model result so);
 *   - "data" is the input, and so is an external entry named input<N> (bert's token ids, input0);
 *   - every other external entry is a weight;
 *   - the rest are intermediates: TVM's "null" buffers (reused across the network), "temp_arg"
 *     workspaces, mocked_kernel's "temp".
 * On all seven shipped models this makes every tensor that a kernel reads before any kernel
 * writes it an input or a weight (bert's softmax workspace is first touched as readwrite, which
 * writes it), and every intermediate that is read has an earlier writer. */
static bool is_input_name(const char *s) {
  if (strcmp(s, "data") == 0)
    return true;
  if (strncmp(s, "input", 5) != 0 || s[5] == '\0')
    return false;
  for (s += 5; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

static atoll_tensor_kind kind_of(const char *name, bool external) {
  if (strcmp(name, "output") == 0)
    return ATOLL_TENSOR_OUTPUT;
  if (strcmp(name, "data") == 0 || (external && is_input_name(name)))
    return ATOLL_TENSOR_INPUT;
  return external ? ATOLL_TENSOR_WEIGHT : ATOLL_TENSOR_INTERMEDIATE;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* How many of the sorted names equal s. */
static uint32_t count_in_sorted(const char *const *sorted, uint32_t n, const char *s) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(sorted[mid], s) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  uint32_t count = 0;
  while (lo + count < n && strcmp(sorted[lo + count], s) == 0)
    count++;
  return count;
}

/* Tensor names: a storage name that is unique, a valid profile name and not "null" is kept;
 * other entries are named t<i> after their index, with "_<i>" appended while that collides with
 * a kept name. Generated names never collide with each other: <i> can be read back from them. */
static int assign_names(importer *im, const char **raw, uint32_t n) {
  const char **sorted = n ? atoll_arena_calloc(&im->scratch, n, sizeof *sorted) : NULL;
  if (n && !sorted)
    return out_of_memory(im);
  if (n)
    memcpy(sorted, raw, n * sizeof *raw);
  qsort(sorted, n, sizeof *sorted, cmp_str);
  for (uint32_t i = 0; i < n; i++) {
    bool keep = strcmp(raw[i], "null") != 0 && is_name(raw[i]) && count_in_sorted(sorted, n, raw[i]) == 1;
    char *name = NULL;
    if (keep) {
      name = atoll_arena_strdup(im->out, raw[i]);
    } else {
      char buf[16];
      snprintf(buf, sizeof buf, "t%u", i);
      name = atoll_arena_strdup(&im->scratch, buf);
      /* A candidate is a valid name other than "null", so one storage entry spelled so is kept. */
      while (name && count_in_sorted(sorted, n, name) == 1) {
        size_t size = strlen(name) + 16;
        char *longer = atoll_arena_alloc(&im->scratch, size);
        if (longer)
          snprintf(longer, size, "%s_%u", name, i);
        name = longer;
      }
      name = name ? atoll_arena_strdup(im->out, name) : NULL;
    }
    if (!name)
      return out_of_memory(im);
    im->tensors[i].name = name;
  }
  return 0;
}

static int read_storage_entry(importer *im, const atoll_ynode *n, atoll_tensor *t, const char **raw) {
  static const char *const keys[] = {"name", "size", "stype"};
  atoll_yread *r = &im->model.r;
  const atoll_ynode *v[3];
  int rc = want_kind(r, n, ATOLL_Y_MAP, "a storage entry");
  if (rc == 0)
    rc = atoll_yread_map(r, n, "storage entry", keys, 3, v);
  for (int k = 0; k < 3 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc)
    return rc;
  uint64_t size = 0;
  uint32_t stype = 0;
  atoll_yread_push_key(r, "name");
  rc = atoll_yread_str(r, v[0], raw);
  atoll_yread_pop(r);
  atoll_yread_push_key(r, "size");
  if (rc == 0)
    rc = want_number(r, v[1], "size");
  if (rc == 0)
    rc = atoll_yread_u64(r, v[1], 1, MAX_TENSOR_BYTES, &size);
  atoll_yread_pop(r);
  atoll_yread_push_key(r, "stype");
  if (rc == 0)
    rc = atoll_yread_enum(r, v[2], "storage type", stype_names, sizeof stype_names / sizeof stype_names[0],
                          &stype);
  atoll_yread_pop(r);
  if (rc)
    return rc;
  t->bytes = size * stype_bytes[stype];
  if (t->bytes > MAX_TENSOR_BYTES)
    return atoll_yread_error(r, v[1], "%llu elements of %s exceed 2^48 bytes", (unsigned long long)size,
                             stype_names[stype]);
  t->dtype = atoll_arena_strdup(im->out, stype_names[stype]);
  return t->dtype ? 0 : out_of_memory(im);
}

/* Marks the storage entries named in the top-level "args" list. */
static int read_external(importer *im, const atoll_ynode *args, bool *external) {
  atoll_yread *r = &im->model.r;
  int rc = 0;
  atoll_yread_push_key(r, "args");
  for (uint32_t i = 0; i < args->n && rc == 0; i++) {
    uint32_t idx = 0;
    atoll_yread_push_index(r, i);
    rc = read_storage_index(r, args->items[i], im->n_tensors, &idx);
    if (rc == 0)
      external[idx] = true;
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  return rc;
}

static int read_tensors(importer *im, const atoll_ynode *storage, const atoll_ynode *args) {
  atoll_yread *r = &im->model.r;
  atoll_yread_push_key(r, "storage");
  int limit_rc = atoll_yread_count(r, storage, "storage entries", ATOLL_MAX_TENSORS);
  atoll_yread_pop(r);
  if (limit_rc)
    return limit_rc;
  uint32_t n = storage->n;
  im->n_tensors = n;
  im->tensors = n ? atoll_arena_calloc(im->out, n, sizeof *im->tensors) : NULL;
  const char **raw = n ? atoll_arena_calloc(&im->scratch, n, sizeof *raw) : NULL;
  bool *external = n ? atoll_arena_calloc(&im->scratch, n, sizeof *external) : NULL;
  if (n && (!im->tensors || !raw || !external))
    return out_of_memory(im);
  int rc = 0;
  atoll_yread_push_key(r, "storage");
  for (uint32_t i = 0; i < n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_storage_entry(im, storage->items[i], &im->tensors[i], &raw[i]);
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  if (rc == 0)
    rc = read_external(im, args, external);
  if (rc == 0)
    rc = assign_names(im, raw, n);
  for (uint32_t i = 0; i < n && rc == 0; i++)
    im->tensors[i].kind = kind_of(raw[i], external[i]);
  return rc;
}

/* --- Profile and parameter entries --- */

static int read_latency_list(atoll_yread *r, const atoll_ynode *n, profile_entry *pe, atoll_arena *out) {
  int rc = want_kind(r, n, ATOLL_Y_SEQ, "latency");
  if (rc)
    return rc;
  if (n->n == 0)
    return atoll_yread_error(r, n, "the latency list is empty: it needs at least the time at occupancy 1");
  if (n->n > MAX_OCCUPANCY)
    return atoll_yread_error(r, n, "%u latencies: more than the largest occupancy atoll accepts (%d)", n->n,
                             MAX_OCCUPANCY);
  pe->latency_ns = atoll_arena_calloc(out, n->n, sizeof *pe->latency_ns);
  if (!pe->latency_ns)
    return atoll_yread_oom(r, n);
  pe->n = n->n;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_us(r, n->items[i], "a latency", &pe->latency_ns[i]);
    atoll_yread_pop(r);
  }
  return rc;
}

static int read_profile_entry(importer *im, uint32_t index, profile_entry *pe) {
  static const char *const keys[] = {"total_latency", "latency"};
  atoll_yread *r = &im->profile.r;
  const atoll_ynode *name = im->kernel_latency->items[2 * index], *n = im->kernel_latency->items[2 * index + 1];
  const atoll_ynode *v[2];
  atoll_yread_push_key(r, "kernel_latency");
  atoll_yread_push_key(r, name->str);
  int rc = want_kind(r, n, ATOLL_Y_MAP, "a kernel_latency entry");
  if (rc == 0)
    rc = atoll_yread_map(r, n, "kernel_latency entry", keys, 2, v);
  for (int k = 0; k < 2 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc == 0) {
    atoll_yread_push_key(r, "total_latency");
    rc = read_us(r, v[0], "total_latency", &pe->total_ns);
    atoll_yread_pop(r);
  }
  if (rc == 0) {
    atoll_yread_push_key(r, "latency");
    rc = read_latency_list(r, v[1], pe, im->out);
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  atoll_yread_pop(r);
  pe->done = rc == 0;
  return rc;
}

static int read_param(atoll_yread *r, const atoll_ynode *n, uint8_t *role) {
  static const char *const keys[] = {"name", "type", "role"};
  static const char *const roles[] = {"read", "write", "readwrite"};
  static const uint8_t bits[] = {ROLE_READ, ROLE_WRITE, ROLE_READ | ROLE_WRITE};
  const atoll_ynode *v[3];
  const char *text;
  uint32_t k = 0;
  int rc = want_kind(r, n, ATOLL_Y_MAP, "a parameter");
  if (rc == 0)
    rc = atoll_yread_map(r, n, "parameter", keys, 3, v);
  if (rc == 0)
    rc = atoll_yread_require(r, n, v[2], "role");
  for (int i = 0; i < 2 && rc == 0; i++) {
    if (!v[i])
      continue;
    atoll_yread_push_key(r, keys[i]);
    rc = atoll_yread_str(r, v[i], &text);
    atoll_yread_pop(r);
  }
  if (rc == 0) {
    atoll_yread_push_key(r, "role");
    rc = atoll_yread_enum(r, v[2], "role", roles, 3, &k);
    atoll_yread_pop(r);
  }
  *role = bits[k];
  return rc;
}

static int read_param_entry(importer *im, uint32_t index, param_entry *pe) {
  atoll_yread *r = &im->params.r;
  const atoll_ynode *name = im->params.root->items[2 * index], *n = im->params.root->items[2 * index + 1];
  atoll_yread_push_key(r, name->str);
  int rc = want_kind(r, n, ATOLL_Y_SEQ, "a kernel's parameter list");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "parameters of one kernel", ATOLL_MAX_OP_TENSORS);
  if (rc == 0 && n->n > 0) {
    pe->roles = atoll_arena_calloc(&im->scratch, n->n, sizeof *pe->roles);
    if (!pe->roles)
      rc = out_of_memory(im);
  }
  for (uint32_t i = 0; rc == 0 && i < n->n; i++) {
    atoll_yread_push_index(r, i);
    rc = read_param(r, n->items[i], &pe->roles[i]);
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  pe->n = rc == 0 ? n->n : 0;
  pe->node = n;
  pe->done = rc == 0;
  return rc;
}

/* --- Kernels --- */

static int read_launch(atoll_yread *r, const atoll_ynode *n, atoll_kernel_shape *s) {
  static const char *const fields[] = {"grid.x", "grid.y", "grid.z", "block.x", "block.y", "block.z"};
  if (!n || n->kind != ATOLL_Y_SEQ || n->n != 6) {
    char found[32];
    if (n && n->kind == ATOLL_Y_SEQ)
      snprintf(found, sizeof found, "%u values", n->n);
    else
      snprintf(found, sizeof found, "%s", json_kind(n));
    return atoll_yread_error(r, n,
                             "launch_params must be 6 positive integers [grid.x, grid.y, grid.z, block.x, "
                             "block.y, block.z], found %s",
                             found);
  }
  uint32_t v[6];
  for (uint32_t i = 0; i < 6; i++) {
    if (!parse_positive_u32(n->items[i], &v[i])) {
      char found[96];
      describe(n->items[i], found, sizeof found);
      atoll_yread_push_index(r, i);
      int rc = atoll_yread_error(r, n->items[i], "launch_params[%u] (%s) must be a positive integer, found %s", i,
                                 fields[i], found);
      atoll_yread_pop(r);
      return rc;
    }
  }
  s->grid = (atoll_dim3){v[0], v[1], v[2]};
  s->block = (atoll_dim3){v[3], v[4], v[5]};
  uint64_t threads = atoll_dim3_count(s->block);
  if (threads > MAX_BLOCK_THREADS)
    return atoll_yread_error(r, n, "a block of %llu threads (launch_params[3..5]) exceeds %d",
                             (unsigned long long)threads, MAX_BLOCK_THREADS);
  /* A profile counts a kernel's blocks in 32 bits (atoll_kernel_shape_is_valid): said here, at the
   * launch, not later as an internal error about the imported model. */
  double blocks = (double)v[0] * v[1] * v[2]; /* exact below 2^53; the product of three may pass 2^64 */
  if (blocks >= UINT32_MAX)
    return atoll_yread_error(r, n, "a grid of %.4g blocks (launch_params[0..2]): 2^32 - 1 blocks or more", blocks);
  return 0;
}

static int read_args(importer *im, const atoll_ynode *n, uint32_t **args) {
  atoll_yread *r = &im->model.r;
  int rc = want_kind(r, n, ATOLL_Y_SEQ, "args");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "args in one launch", ATOLL_MAX_OP_TENSORS);
  if (rc)
    return rc;
  *args = n->n ? atoll_arena_calloc(&im->scratch, n->n, sizeof **args) : NULL;
  if (n->n && !*args)
    return out_of_memory(im);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_storage_index(r, n->items[i], im->n_tensors, &(*args)[i]);
    atoll_yread_pop(r);
  }
  return rc;
}

static int profile_for(importer *im, const atoll_ynode *name_node, const profile_entry **out) {
  int64_t i = pair_index(&im->prof_index, name_node);
  if (i < 0)
    return atoll_yread_error(&im->model.r, name_node, "kernel '%s' has no entry in kernel_latency of %s",
                             name_node->str, im->profile.src.name);
  int rc = im->prof[i].done ? 0 : read_profile_entry(im, (uint32_t)i, &im->prof[i]);
  *out = &im->prof[i];
  return rc;
}

static int params_for(importer *im, const atoll_ynode *name_node, const param_entry **out) {
  int64_t i = pair_index(&im->par_index, name_node);
  if (i < 0)
    return atoll_yread_error(&im->model.r, name_node, "kernel '%s' has no entry in %s", name_node->str,
                             im->params.src.name);
  int rc = im->par[i].done ? 0 : read_param_entry(im, (uint32_t)i, &im->par[i]);
  *out = &im->par[i];
  return rc;
}

static int shared_for(importer *im, const char *name, uint32_t *out) {
  const atoll_ynode *v = atoll_ymap_get(im->shared_memory, name);
  *out = 0;
  if (!v)
    return 0;
  atoll_yread *r = &im->model.r;
  atoll_yread_push_key(r, "shared_memory");
  atoll_yread_push_key(r, name);
  int rc = want_number(r, v, "shared memory bytes");
  if (rc == 0)
    rc = atoll_yread_u32(r, v, 0, MAX_SHARED_BYTES, out);
  atoll_yread_pop(r);
  atoll_yread_pop(r);
  return rc;
}

/* Splits a launch's arguments into reads, writes and readwrites, each tensor listed once: a
 * tensor passed twice keeps the union of its roles, so read + write becomes readwrite. */
static int build_access(importer *im, atoll_op *op, const uint32_t *args, const uint8_t *roles, uint32_t n) {
  uint32_t *tensor = n ? atoll_arena_calloc(&im->scratch, n, sizeof *tensor) : NULL;
  uint8_t *bits = n ? atoll_arena_calloc(&im->scratch, n, sizeof *bits) : NULL;
  if (n && (!tensor || !bits))
    return out_of_memory(im);
  uint32_t distinct = 0, count[4] = {0};
  for (uint32_t k = 0; k < n; k++) {
    uint32_t j = 0;
    while (j < distinct && tensor[j] != args[k])
      j++;
    if (j == distinct)
      tensor[distinct++] = args[k];
    bits[j] |= roles[k];
  }
  for (uint32_t j = 0; j < distinct; j++)
    count[bits[j]]++;
  uint32_t *lists[4] = {NULL};
  for (int b = 1; b < 4; b++) {
    if (count[b] && !(lists[b] = atoll_arena_calloc(im->out, count[b], sizeof *lists[b])))
      return out_of_memory(im);
  }
  uint32_t fill[4] = {0};
  for (uint32_t j = 0; j < distinct; j++)
    lists[bits[j]][fill[bits[j]]++] = tensor[j];
  op->reads = lists[ROLE_READ];
  op->n_reads = count[ROLE_READ];
  op->writes = lists[ROLE_WRITE];
  op->n_writes = count[ROLE_WRITE];
  op->readwrites = lists[ROLE_READ | ROLE_WRITE];
  op->n_readwrites = count[ROLE_READ | ROLE_WRITE];
  return 0;
}

static void derive_shape(const atoll_gpu *gpu, atoll_kernel_shape *s) {
  s->block_time_ns = atoll_derive_block_time_ns(s, gpu->cus);
  s->registers = atoll_derive_registers(s, gpu->registers_per_cu, atoll_gpu_max_registers_per_thread(gpu));
  s->derived = ATOLL_DERIVED_BLOCK_TIME | ATOLL_DERIVED_REGISTERS;
}

/* The launch's own fields (name, geometry, storage indices), read in kernels[i]. */
static int read_launch_entry(importer *im, const atoll_ynode *n, const atoll_ynode **name, atoll_kernel_shape *s,
                             const atoll_ynode **args_node, uint32_t **args) {
  static const char *const keys[] = {"name", "launch_params", "args"};
  atoll_yread *r = &im->model.r;
  const atoll_ynode *v[3];
  const char *text;
  int rc = want_kind(r, n, ATOLL_Y_MAP, "a kernel launch");
  if (rc == 0)
    rc = atoll_yread_map(r, n, "kernel launch", keys, 3, v);
  for (int k = 0; k < 3 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc)
    return rc;
  atoll_yread_push_key(r, "name");
  rc = atoll_yread_str(r, v[0], &text);
  atoll_yread_pop(r);
  atoll_yread_push_key(r, "launch_params");
  if (rc == 0)
    rc = read_launch(r, v[1], s);
  atoll_yread_pop(r);
  atoll_yread_push_key(r, "args");
  if (rc == 0)
    rc = read_args(im, v[2], args);
  atoll_yread_pop(r);
  *name = v[0];
  *args_node = v[2];
  return rc;
}

static int read_kernel(importer *im, const atoll_ynode *n, atoll_op *op) {
  atoll_yread *r = &im->model.r;
  const atoll_ynode *name = NULL, *args_node = NULL;
  uint32_t *args = NULL;
  const profile_entry *pe = NULL;
  const param_entry *pa = NULL;
  atoll_kernel_shape *s = &op->shape;
  int rc = read_launch_entry(im, n, &name, s, &args_node, &args);
  atoll_yread_push_key(r, "name");
  if (rc == 0)
    rc = profile_for(im, name, &pe);
  if (rc == 0)
    rc = params_for(im, name, &pa);
  atoll_yread_pop(r);
  if (rc == 0 && pa->n != args_node->n) {
    atoll_yread_push_key(r, "args");
    rc = atoll_yread_error(r, args_node, "kernel '%s' is launched with %u args but has %u parameters in %s:%u",
                           name->str, args_node->n, pa->n, im->params.src.name, pa->node->line);
    atoll_yread_pop(r);
  }
  if (rc == 0)
    rc = shared_for(im, name->str, &s->shared_bytes);
  if (rc == 0)
    rc = build_access(im, op, args, pa->roles, pa->n);
  if (rc)
    return rc;
  op->kind = ATOLL_OP_KERNEL;
  op->idem = ATOLL_IDEM_UNKNOWN;
  op->name = atoll_arena_strdup(im->out, name->str);
  s->occupancy = pe->n;
  s->time_ns = pe->total_ns;
  s->time_per_occupancy_ns = pe->latency_ns;
  s->n_time_per_occupancy = pe->n;
  derive_shape(im->gpu, s);
  return op->name ? 0 : out_of_memory(im);
}

static int read_kernels(importer *im, const atoll_ynode *kernels) {
  atoll_yread *r = &im->model.r;
  if (kernels->n == 0) {
    atoll_yread_push_key(r, "kernels");
    int rc = atoll_yread_error(r, kernels, "\"kernels\" is empty: a model needs at least one kernel launch");
    atoll_yread_pop(r);
    return rc;
  }
  atoll_yread_push_key(r, "kernels");
  int rc = atoll_yread_count(r, kernels, "kernel launches", ATOLL_MAX_OPS);
  atoll_yread_pop(r);
  if (rc)
    return rc;
  im->n_ops = kernels->n;
  im->ops = atoll_arena_calloc(im->out, kernels->n, sizeof *im->ops);
  im->prof = atoll_arena_calloc(&im->scratch, im->kernel_latency->n + 1, sizeof *im->prof);
  im->par = atoll_arena_calloc(&im->scratch, im->params.root->n + 1, sizeof *im->par);
  if (!im->ops || !im->prof || !im->par || index_pairs(&im->prof_index, im->kernel_latency) ||
      index_pairs(&im->par_index, im->params.root))
    return out_of_memory(im);
  atoll_yread_push_key(r, "kernels");
  for (uint32_t i = 0; i < kernels->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_kernel(im, kernels->items[i], &im->ops[i]);
    atoll_yread_pop(r);
  }
  atoll_yread_pop(r);
  return rc;
}

/* --- The model --- */

/* The model's name is <m> with characters a profile name cannot hold replaced by '_', cut to the
 * longest name a profile may carry. */
static char *model_name(atoll_arena *a, const char *base) {
  size_t len = strlen(base);
  char *name = atoll_arena_strndup(a, base, len < ATOLL_MAX_NAME_BYTES ? len : ATOLL_MAX_NAME_BYTES);
  for (char *p = name; p && *p; p++) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.'))
      *p = '_';
  }
  return name;
}

static int finish(importer *im, const char *base, int64_t latency_ns, atoll_model *out) {
  static const char *const fmt =
      "REEF %s (SJTU-IPADS/reef resource/%s), measured on one %s; Apache-2.0 (c) the REEF authors";
  atoll_model m = {0};
  m.name = model_name(im->out, base);
  m.gpu = atoll_arena_strdup(im->out, im->gpu->name);
  size_t size = strlen(fmt) + 2 * strlen(base) + strlen(im->gpu->name) + 1;
  char *source = atoll_arena_alloc(im->out, size);
  if (!m.name || !m.gpu || !source)
    return out_of_memory(im);
  snprintf(source, size, fmt, base, base, im->gpu->name);
  m.source = source;
  m.measured_latency_ns = latency_ns;
  m.tensors = im->tensors;
  m.n_tensors = im->n_tensors;
  m.ops = im->ops;
  m.n_ops = im->n_ops;
  /* REEF's storage table sizes every buffer TVM's graph executor allocates (buffers reused across
   * the network are one entry), so it gives the footprint: weights, and the rest per request. */
  atoll_model_footprint_from_tensors(&m);
  /* Every check above should make this hold; a failure is an importer bug, reported rather than
   * handed on as a model the simulator would trip over. */
  if (!atoll_model_is_valid(&m)) {
    atoll_diag_set(im->diag, &im->model.src, 0, 0, NULL, "internal error: the imported model is not valid");
    return ATOLL_EINVAL;
  }
  *out = m;
  return 0;
}

static const char *const file_suffix[3] = {".json", ".profile.json", ".params.json"};
static const char *const file_what[3] = {"model (storage and kernel launches)", "profile (per-kernel latencies)",
                                         "kernel parameter roles"};

/* Reads the three parsed files into the model. */
static int import_parsed(importer *im, const char *base, atoll_model *out) {
  const atoll_ynode *storage, *kernels, *args, *latency;
  int64_t latency_ns = 0;
  int rc = get_member(&im->model, "storage", ATOLL_Y_SEQ, true, &storage);
  if (rc == 0)
    rc = get_member(&im->model, "kernels", ATOLL_Y_SEQ, true, &kernels);
  if (rc == 0)
    rc = get_member(&im->model, "args", ATOLL_Y_SEQ, true, &args);
  if (rc == 0)
    rc = get_member(&im->model, "shared_memory", ATOLL_Y_MAP, false, &im->shared_memory);
  if (rc == 0)
    rc = get_member(&im->profile, "model_latency", ATOLL_Y_SCALAR, true, &latency);
  if (rc == 0)
    rc = get_member(&im->profile, "kernel_latency", ATOLL_Y_MAP, true, &im->kernel_latency);
  if (rc == 0) {
    atoll_yread_push_key(&im->profile.r, "model_latency");
    rc = read_us(&im->profile.r, latency, "model_latency", &latency_ns);
    atoll_yread_pop(&im->profile.r);
  }
  if (rc == 0)
    rc = read_tensors(im, storage, args);
  if (rc == 0)
    rc = read_kernels(im, kernels);
  if (rc == 0)
    rc = finish(im, base, latency_ns, out);
  return rc;
}

static int read_all(importer *im, const char *dir, atoll_model *out) {
  const char *clean = NULL, *base = NULL; /* split_dir sets both on success */
  reef_file *files[3] = {&im->model, &im->profile, &im->params};
  int rc = split_dir(im, dir, &clean, &base);
  for (int i = 0; i < 3 && rc == 0; i++)
    rc = open_file(im, files[i], clean, base, file_suffix[i], file_what[i]);
  return rc ? rc : import_parsed(im, base, out);
}

int atoll_reef_import(atoll_arena *a, const char *dir, const atoll_gpu *gpu, atoll_model *out, atoll_diag *d) {
  if (!a || !dir || !out) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "atoll_reef_import: missing arena, directory or output");
    return ATOLL_EINVAL;
  }
  importer im = {.out = a, .diag = d, .gpu = gpu};
  atoll_arena_init(&im.scratch);
  int rc = check_gpu(&im);
  if (rc == 0)
    rc = read_all(&im, dir, out);
  atoll_strmap_free(&im.prof_index);
  atoll_strmap_free(&im.par_index);
  atoll_arena_free(&im.scratch);
  return rc;
}

int atoll_reef_import_sources(atoll_arena *a, const char *name, const atoll_source *model,
                              const atoll_source *profile, const atoll_source *params, const atoll_gpu *gpu,
                              atoll_model *out, atoll_diag *d) {
  if (!a || !name || !*name || !model || !profile || !params || !out) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "atoll_reef_import_sources: missing arena, name, source or output");
    return ATOLL_EINVAL;
  }
  importer im = {.out = a, .diag = d, .gpu = gpu};
  atoll_arena_init(&im.scratch);
  reef_file *files[3] = {&im.model, &im.profile, &im.params};
  const atoll_source *srcs[3] = {model, profile, params};
  int rc = check_gpu(&im);
  for (int i = 0; i < 3 && rc == 0; i++) {
    files[i]->src = *srcs[i];
    rc = parse_file(&im, files[i], file_what[i]);
  }
  if (rc == 0)
    rc = import_parsed(&im, name, out);
  atoll_strmap_free(&im.prof_index);
  atoll_strmap_free(&im.par_index);
  atoll_arena_free(&im.scratch);
  return rc;
}
