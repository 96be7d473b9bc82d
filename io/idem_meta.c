/* Idempotence metadata: writer, loader and the match against a model; see idem_meta.h. */
#include "io/idem_meta.h"

#include <string.h>

#include "atoll/error.h"
#include "io/yquote.h"
#include "io/yread.h"
#include "io/ytree.h"

static const char *const kind_names[] = {"kernel", "memcpy", "memset"};

const char *atoll_idem_meta_kind_name(atoll_idem_meta_kind k) {
  return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "?";
}

/* --- Writing --- */

/* Names are written double-quoted (atoll_yaml_write_quoted): they may hold any character a tracer
 * prints, e.g. demangled C++ signatures with spaces, colons and commas, as long as they are UTF-8,
 * which is what makes them read back unchanged. */
static bool op_ok(const atoll_idem_meta_op *op, uint32_t index) {
  if ((unsigned)op->kind >= sizeof kind_names / sizeof *kind_names || !op->name || !op->name[0] ||
      !atoll_utf8_valid(op->name, strlen(op->name), NULL))
    return false;
  if (op->idem == ATOLL_IDEM_GROUP)
    return op->group_entry <= index;
  return op->idem == ATOLL_IDEM_YES || op->idem == ATOLL_IDEM_NONE;
}

int atoll_idem_meta_write(FILE *out, const atoll_idem_meta *meta) {
  if (!meta || meta->n_ops == 0 || !meta->ops)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < meta->n_ops; i++)
    if (!op_ok(&meta->ops[i], i))
      return ATOLL_EINVAL;
  fputs("# Idempotence metadata written by idem_checker (docs/idempotence.md): for each op, in the\n"
        "# model's op order, whether re-executing it alone restores it (idempotent: true), the op a\n"
        "# restore re-executes from (group_entry), or that no group restores it (idempotent: false).\n"
        "atoll_idem: 1\n",
        out);
  if (meta->source) {
    fputs("source: ", out);
    atoll_yaml_write_quoted(out, meta->source);
    fputc('\n', out);
  }
  fprintf(out, "n_ops: %u\nops:\n", meta->n_ops);
  for (uint32_t i = 0; i < meta->n_ops; i++) {
    const atoll_idem_meta_op *op = &meta->ops[i];
    fprintf(out, "  - {kind: %s, name: ", kind_names[op->kind]);
    atoll_yaml_write_quoted(out, op->name);
    if (op->idem == ATOLL_IDEM_YES)
      fprintf(out, ", idempotent: true}  # op %u\n", i);
    else if (op->idem == ATOLL_IDEM_GROUP)
      fprintf(out, ", group_entry: %u}  # op %u\n", op->group_entry, i);
    else
      fprintf(out, ", idempotent: false}  # op %u: not restorable\n", i);
  }
  return ferror(out) ? ATOLL_EIO : ATOLL_OK;
}

/* --- Loading --- */


static int read_op(atoll_yread *r, const atoll_ynode *n, uint32_t index, atoll_idem_meta_op *op) {
  static const char *const keys[] = {"kind", "name", "idempotent", "group_entry"};
  const atoll_ynode *v[4];
  int rc = atoll_yread_map(r, n, "op", keys, 4, v);
  for (int k = 0; k < 2 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  uint32_t kind = 0;
  bool idem = false;
  if (rc == 0)
    rc = WITH_KEY(r, "kind", atoll_yread_enum(r, v[0], "op kind", kind_names, 3, &kind));
  if (rc == 0)
    rc = WITH_KEY(r, "name", atoll_yread_str(r, v[1], &op->name));
  if (rc == 0 && v[2])
    rc = WITH_KEY(r, "idempotent", atoll_yread_bool(r, v[2], &idem));
  if (rc)
    return rc;
  op->kind = (atoll_idem_meta_kind)kind;
  op->line = n->line;
  op->col = n->col;
  if (v[3]) {
    /* As in a profile: idempotent: true excludes an entry, and the entry is at or before the op. */
    if (idem)
      return WITH_KEY(r, "group_entry", atoll_yread_error(r, v[3], "group_entry given for an op marked "
                                                                   "idempotent: true"));
    if (WITH_KEY(r, "group_entry", atoll_yread_u32(r, v[3], 0, UINT32_MAX, &op->group_entry)) != 0)
      return rc;
    if (op->group_entry > index)
      return WITH_KEY(r, "group_entry", atoll_yread_error(r, v[3], "group_entry %u is after this op (ops[%u]); a "
                                                                   "group entry is at or before its op",
                                                          op->group_entry, index));
    op->idem = ATOLL_IDEM_GROUP;
  } else if (v[2]) {
    op->idem = idem ? ATOLL_IDEM_YES : ATOLL_IDEM_NONE;
  } else {
    return atoll_yread_error(r, n, "an op needs 'idempotent: true', 'group_entry: N' or 'idempotent: false' (not "
                                   "restorable)");
  }
  return 0;
}

static int read_ops(atoll_yread *r, const atoll_ynode *n, uint32_t n_ops, atoll_idem_meta *out) {
  int rc = atoll_yread_seq(r, n, "ops");
  if (rc)
    return rc;
  if (n->n != n_ops)
    return atoll_yread_error(r, n, "n_ops is %u but ops lists %u operations", n_ops, n->n);
  out->ops = atoll_arena_calloc(r->arena, n_ops, sizeof *out->ops);
  if (!out->ops)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n_ops && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_op(r, n->items[i], i, &out->ops[i]);
    atoll_yread_pop(r);
  }
  out->n_ops = n_ops;
  return rc;
}

static int read_root(atoll_yread *r, const atoll_ynode *root, atoll_idem_meta *out) {
  static const char *const keys[] = {"atoll_idem", "source", "n_ops", "ops"};
  const atoll_ynode *v[4];
  int rc = atoll_yread_map(r, root, "idempotence metadata", keys, 4, v);
  for (int k = 0; k < 4 && rc == 0; k++)
    if (k != 1)
      rc = atoll_yread_require(r, root, v[k], keys[k]);
  uint32_t version = 0, n_ops = 0;
  if (rc == 0)
    rc = WITH_KEY(r, "atoll_idem", atoll_yread_u32(r, v[0], 1, 1, &version));
  if (rc == 0 && v[1])
    rc = WITH_KEY(r, "source", atoll_yread_str(r, v[1], &out->source));
  if (rc == 0)
    rc = WITH_KEY(r, "n_ops", atoll_yread_u32(r, v[2], 1, UINT32_MAX, &n_ops));
  if (rc == 0) {
    out->n_ops_line = v[2]->line;
    out->n_ops_col = v[2]->col;
    rc = WITH_KEY(r, "ops", read_ops(r, v[3], n_ops, out));
  }
  return rc;
}

int atoll_idem_meta_load_file(atoll_arena *a, const char *path, atoll_idem_meta *out, atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, path, &src, d);
  return rc ? rc : atoll_idem_meta_load_source(a, src, out, d);
}

int atoll_idem_meta_load_source(atoll_arena *a, const atoll_source *src, atoll_idem_meta *out, atoll_diag *d) {
  atoll_ynode *root;
  int rc = atoll_ytree_parse(a, src, 0, &root, d);
  if (rc)
    return rc;
  if (!root) {
    atoll_diag_set(d, src, 1, 1, NULL, "empty idempotence metadata");
    return ATOLL_EPARSE;
  }
  atoll_yread r;
  atoll_yread_init(&r, a, d);
  atoll_idem_meta m = {.src = src};
  rc = read_root(&r, root, &m);
  if (rc == 0)
    *out = m;
  return rc;
}

/* --- Matching a model --- */

static atoll_idem_meta_kind model_kind(atoll_op_kind k) {
  return k == ATOLL_OP_KERNEL ? ATOLL_IDEM_META_KERNEL
         : k == ATOLL_OP_MEMSET ? ATOLL_IDEM_META_MEMSET
                                : ATOLL_IDEM_META_MEMCPY;
}

static int mismatch(const atoll_idem_meta *meta, uint32_t i, atoll_diag *d, const char *fmt, const char *a,
                    const char *b, const char *model) {
  char path[32];
  snprintf(path, sizeof path, "ops[%u]", i);
  atoll_diag_set(d, meta->src, meta->ops[i].line, meta->ops[i].col, path, fmt, i, a, b, model);
  return ATOLL_EPARSE;
}

/* Copies are matched by kind only: a trace may name a memcpy or memset after anything (its
 * buffer, its call site), while a profile names its tensor. Kernels must carry the same name. */
static int check_match(const atoll_idem_meta *meta, const atoll_model *m, atoll_diag *d) {
  if (meta->n_ops != m->n_ops) {
    atoll_diag_set(d, meta->src, meta->n_ops_line, meta->n_ops_col, "n_ops",
                   "the metadata describes %u operations but model '%s' has %u", meta->n_ops, m->name, m->n_ops);
    return ATOLL_EPARSE;
  }
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_idem_meta_op *op = &meta->ops[i];
    atoll_idem_meta_kind want = model_kind(m->ops[i].kind);
    if (op->kind != want)
      return mismatch(meta, i, d, "ops[%u] is a %s here but a %s in model '%s'", kind_names[op->kind],
                      kind_names[want], m->name);
    if (want == ATOLL_IDEM_META_KERNEL && strcmp(op->name, m->ops[i].name) != 0)
      return mismatch(meta, i, d, "ops[%u] is kernel '%s' here but kernel '%s' in model '%s'", op->name,
                      m->ops[i].name, m->name);
  }
  return ATOLL_OK;
}

int atoll_idem_meta_apply(atoll_arena *a, const atoll_idem_meta *meta, atoll_model *m, uint32_t *not_restorable,
                          atoll_diag *d) {
  int rc = check_match(meta, m, d);
  if (rc)
    return rc;
  atoll_op *ops = atoll_arena_calloc(a, m->n_ops, sizeof *ops);
  if (!ops) {
    atoll_diag_set(d, meta->src, 0, 0, NULL, "%s", atoll_arena_failure(a));
    return ATOLL_ENOMEM;
  }
  memcpy(ops, m->ops, (size_t)m->n_ops * sizeof *ops);
  uint32_t none = 0;
  for (uint32_t i = 0; i < m->n_ops; i++) {
    if (ops[i].kind != ATOLL_OP_KERNEL)
      continue; /* a profile keeps idempotence for kernels: only they are killed and restored */
    ops[i].idem = meta->ops[i].idem;
    ops[i].group_entry = meta->ops[i].idem == ATOLL_IDEM_GROUP ? meta->ops[i].group_entry : 0;
    none += meta->ops[i].idem == ATOLL_IDEM_NONE;
  }
  m->ops = ops;
  if (not_restorable)
    *not_restorable = none;
  return ATOLL_OK;
}

int atoll_idem_meta_apply_file(atoll_arena *a, const char *path, atoll_model *m, uint32_t *not_restorable,
                               atoll_diag *d) {
  atoll_idem_meta meta;
  int rc = atoll_idem_meta_load_file(a, path, &meta, d);
  return rc ? rc : atoll_idem_meta_apply(a, &meta, m, not_restorable, d);
}
