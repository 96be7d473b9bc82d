/* The Graphviz view (--dot): `dot -Tsvg FILE > out.svg` renders it. */
#include <stdlib.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "idem/report.h"
#include "idem/sweep.h"

typedef struct edge {
  uint32_t from, to;
  idem_dep_kind kind;
} edge;

typedef struct edges {
  edge *e;
  size_t n, cap;
  int rc;
  /* seen[kind][from] == to + 1: the edge is kept already. The sweep reports an op's dependencies
   * while it searches that op, so `to` only grows, and it reports one per piece of memory: an op
   * reading 100,000 pieces one op wrote gave 100,000 copies of one edge, kept until the sort
   * (890 MB for 500 edges). */
  uint32_t *seen[2];
} edges;

static void add_edge(void *ctx, uint32_t from, uint32_t to, idem_dep_kind kind) {
  edges *es = ctx;
  if (es->rc || es->seen[kind][from] == to + 1)
    return;
  es->seen[kind][from] = to + 1;
  if (es->n == es->cap) {
    size_t cap = es->cap ? es->cap * 2 : 256;
    edge *e = realloc(es->e, cap * sizeof *e);
    if (!e) {
      es->rc = ATOLL_ENOMEM;
      return;
    }
    es->e = e;
    es->cap = cap;
  }
  es->e[es->n++] = (edge){from, to, kind};
}

static int cmp_edge(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return (int)x->kind - (int)y->kind;
}

/* The dependencies the search sees, one edge per (from, to, kind). */
static int collect_edges(const idem_trace *t, edges *es) {
  es->seen[0] = calloc(t->n_ops ? t->n_ops : 1, sizeof *es->seen[0]);
  es->seen[1] = calloc(t->n_ops ? t->n_ops : 1, sizeof *es->seen[1]);
  if (!es->seen[0] || !es->seen[1])
    return ATOLL_ENOMEM;
  idem_sweep s;
  int rc = idem_sweep_init(&s);
  s.dep = add_edge;
  s.dep_ctx = es;
  uint32_t entry;
  for (uint32_t i = 0; i < t->n_ops && rc == ATOLL_OK; i++)
    rc = idem_sweep_op(&s, idem_op_accesses(t, i), t->ops[i].n_acc, &entry);
  idem_sweep_free(&s);
  if (rc == ATOLL_OK)
    rc = es->rc;
  if (rc == ATOLL_OK && es->n > 0) {
    qsort(es->e, es->n, sizeof *es->e, cmp_edge);
    size_t w = 1;
    for (size_t k = 1; k < es->n; k++)
      if (cmp_edge(&es->e[k], &es->e[w - 1]) != 0)
        es->e[w++] = es->e[k];
    es->n = w;
  }
  return rc;
}

/* A DOT double-quoted string body. */
static void dot_str(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', out);
    if (*s == '\n')
      fputs("\\n", out);
    else
      fputc(*s, out);
  }
}

typedef struct group {
  uint32_t entry, op;
} group;

static int cmp_group(const void *a, const void *b) {
  const group *x = a, *y = b;
  if (x->entry != y->entry)
    return x->entry < y->entry ? -1 : 1;
  return x->op < y->op ? -1 : x->op > y->op;
}

/* Groups longer than one op, as clusters. Graphviz clusters cannot overlap, so overlapping groups
 * are drawn as one cluster whose label names each of them. */
static int write_clusters(FILE *out, const idem_trace *t, const uint32_t *entry) {
  size_t n = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    n += entry[i] != IDEM_NO_ENTRY && entry[i] < i;
  if (n == 0)
    return ATOLL_OK;
  group *g = malloc(n * sizeof *g);
  if (!g)
    return ATOLL_ENOMEM;
  n = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    if (entry[i] != IDEM_NO_ENTRY && entry[i] < i)
      g[n++] = (group){entry[i], i};
  qsort(g, n, sizeof *g, cmp_group);
  for (size_t k = 0, c = 0; k < n; c++) {
    uint32_t lo = g[k].entry, hi = g[k].op;
    size_t first = k;
    for (k++; k < n && g[k].entry <= hi; k++)
      if (g[k].op > hi)
        hi = g[k].op;
    fprintf(out, "  subgraph cluster_%zu {\n    style=dashed; color=\"#e69138\";\n    label=\"", c);
    for (size_t j = first; j < k && j < first + 4; j++)
      fprintf(out, "%sgroup %u..%u restores op %u", j > first ? "\\n" : "", g[j].entry, g[j].op, g[j].op);
    if (k - first > 4)
      fprintf(out, "\\n+%zu more groups", k - first - 4);
    fputs("\";\n   ", out);
    for (uint32_t i = lo; i <= hi; i++)
      fprintf(out, " op%u;", i);
    fputs("\n  }\n", out);
  }
  free(g);
  return ATOLL_OK;
}

static void write_node(FILE *out, const idem_trace *t, const uint32_t *entry, uint32_t i) {
  const idem_op *op = &t->ops[i];
  fprintf(out, "  op%u [label=\"%u: ", i, i);
  dot_str(out, op->name);
  fprintf(out, "\\n%s", idem_op_kind_name(op->kind));
  if (entry[i] == IDEM_NO_ENTRY)
    fputs("\\nnot restorable\", style=filled, fillcolor=\"#ea9999\", color=\"#cc0000\", penwidth=2", out);
  else if (entry[i] != i)
    fprintf(out, "\\nrestart at op %u\", style=filled, fillcolor=\"#f9cb9c\"", entry[i]);
  else
    fputc('"', out);
  if (op->kind != IDEM_OP_KERNEL)
    fputs(", shape=ellipse", out);
  fputs("];\n", out);
}

int idem_write_dot(FILE *out, const char *name, const idem_trace *t, const uint32_t *entry) {
  edges es = {0};
  int rc = collect_edges(t, &es);
  if (rc == ATOLL_OK) {
    fputs("// Written by idem_checker from ", out);
    for (const char *p = name; *p; p++)
      fputc(*p == '\n' ? ' ' : *p, out);
    fputs(" (docs/idempotence.md): operations, their read-after-write (solid) and write-after-read "
          "(dashed) dependencies, and the minimal idempotent groups longer than one op.\n",
          out);
    fputs("digraph idem {\n  rankdir=LR;\n  graph [fontname=\"Helvetica\"];\n  node [shape=box, fontname=\"Helvetica\"];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9];\n",
          out);
    rc = write_clusters(out, t, entry);
  }
  if (rc == ATOLL_OK) {
    for (uint32_t i = 0; i < t->n_ops; i++)
      write_node(out, t, entry, i);
    for (size_t k = 0; k < es.n; k++)
      fprintf(out, "  op%u -> op%u [label=\"%s\"%s];\n", es.e[k].from, es.e[k].to,
              es.e[k].kind == IDEM_DEP_RAW ? "RAW" : "WAR",
              es.e[k].kind == IDEM_DEP_RAW ? "" : ", style=dashed, color=\"#cc0000\"");
    fputs("}\n", out);
    rc = ferror(out) ? ATOLL_EIO : ATOLL_OK;
  }
  free(es.seen[0]);
  free(es.seen[1]);
  free(es.e);
  return rc;
}
