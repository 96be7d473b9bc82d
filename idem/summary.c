/* The summary figures and their human form. */
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "idem/report.h"

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

uint32_t idem_group_kernels(const idem_summary *s, uint32_t i, uint32_t entry) {
  return s->kernels_before[i + 1] - s->kernels_before[entry];
}

static void count_op(idem_summary *s, const idem_op *op, uint32_t i, uint32_t e) {
  bool kernel = op->kind == IDEM_OP_KERNEL;
  s->kernels += kernel;
  s->memcpys += op->kind == IDEM_OP_MEMCPY;
  s->memsets += op->kind == IDEM_OP_MEMSET;
  if (e == IDEM_NO_ENTRY) {
    s->not_restorable_ops++;
    s->not_restorable_kernels += kernel;
  } else if (e == i) {
    s->idempotent_ops++;
    s->idempotent_kernels += kernel;
  } else {
    s->group_kernels += kernel;
  }
}

/* Run-length bins of the group sizes (in kernels) of the kernels restored by a group. */
static int build_hist(idem_summary *s, const idem_trace *t, const uint32_t *entry) {
  if (s->group_kernels == 0)
    return ATOLL_OK;
  uint32_t *sizes = malloc((size_t)s->group_kernels * sizeof *sizes);
  if (!sizes)
    return ATOLL_ENOMEM;
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    if (t->ops[i].kind == IDEM_OP_KERNEL && entry[i] != IDEM_NO_ENTRY && entry[i] != i)
      sizes[n++] = idem_group_kernels(s, i, entry[i]);
  qsort(sizes, n, sizeof *sizes, cmp_u32);
  s->hist = malloc((size_t)n * sizeof *s->hist);
  if (!s->hist) {
    free(sizes);
    return ATOLL_ENOMEM;
  }
  for (uint32_t k = 0; k < n; k++) {
    if (s->n_hist > 0 && s->hist[s->n_hist - 1].kernels == sizes[k])
      s->hist[s->n_hist - 1].count++;
    else
      s->hist[s->n_hist++] = (idem_hist_bin){sizes[k], 1};
  }
  free(sizes);
  return ATOLL_OK;
}

int idem_summary_compute(const idem_trace *t, const uint32_t *entry, idem_summary *s) {
  memset(s, 0, sizeof *s);
  s->ops = t->n_ops;
  s->largest_op = IDEM_NO_ENTRY;
  s->kernels_before = malloc(((size_t)t->n_ops + 1) * sizeof *s->kernels_before);
  if (!s->kernels_before)
    return ATOLL_ENOMEM;
  s->kernels_before[0] = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) {
    const idem_op *op = &t->ops[i];
    s->kernels_before[i + 1] = s->kernels_before[i] + (op->kind == IDEM_OP_KERNEL);
    count_op(s, op, i, entry[i]);
    if (op->kind == IDEM_OP_KERNEL && entry[i] != IDEM_NO_ENTRY && entry[i] != i &&
        i - entry[i] + 1 > s->largest_ops) {
      s->largest_op = i;
      s->largest_entry = entry[i];
      s->largest_ops = i - entry[i] + 1;
    }
  }
  if (s->largest_op != IDEM_NO_ENTRY)
    s->largest_kernels = idem_group_kernels(s, s->largest_op, s->largest_entry);
  int rc = build_hist(s, t, entry);
  if (rc)
    idem_summary_free(s);
  return rc;
}

void idem_summary_free(idem_summary *s) {
  free(s->hist);
  free(s->kernels_before);
  s->hist = NULL;
  s->kernels_before = NULL;
}

static const char *plural(uint32_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static void print_hist(FILE *out, const idem_summary *s) {
  if (s->n_hist == 0)
    return;
  uint32_t most = 0;
  for (uint32_t k = 0; k < s->n_hist; k++)
    if (s->hist[k].count > most)
      most = s->hist[k].count;
  fprintf(out, "kernels in the minimal idempotent group of each non-idempotent kernel (REEF Fig. 10):\n");
  for (uint32_t k = 0; k < s->n_hist; k++) {
    uint32_t bar = (uint32_t)(((uint64_t)s->hist[k].count * 40 + most - 1) / most);
    fprintf(out, "  %6u %-7s %8u  ", s->hist[k].kernels, plural(s->hist[k].kernels, "kernel", "kernels"),
            s->hist[k].count);
    for (uint32_t b = 0; b < bar; b++)
      fputc('#', out);
    fputc('\n', out);
  }
}

static void print_list(FILE *out, const idem_trace *t, const uint32_t *entry, const idem_summary *s,
                       uint32_t max_list) {
  uint32_t listed = 0, total = s->group_kernels + s->not_restorable_kernels;
  if (total == 0 || max_list == 0)
    return;
  fprintf(out, "non-idempotent kernels%s:\n", total > max_list ? " (first ones; --json lists all)" : "");
  for (uint32_t i = 0; i < t->n_ops && listed < max_list; i++) {
    if (t->ops[i].kind != IDEM_OP_KERNEL || entry[i] == i)
      continue;
    listed++;
    if (entry[i] == IDEM_NO_ENTRY)
      fprintf(out, "  op %u %s: not restorable\n", i, t->ops[i].name);
    else
      fprintf(out, "  op %u %s: group %u..%u (%u ops, %u kernels)\n", i, t->ops[i].name, entry[i], i,
              i - entry[i] + 1, idem_group_kernels(s, i, entry[i]));
  }
  if (total > listed)
    fprintf(out, "  ... and %u more\n", total - listed);
}

void idem_print_summary(FILE *out, const char *name, idem_format f, const idem_trace *t, const uint32_t *entry,
                        const idem_summary *s, uint32_t max_list) {
  fprintf(out, "trace           %s (%s)\n", name, idem_format_name(f));
  fprintf(out, "operations      %u: %u %s, %u memcpy, %u memset\n", s->ops, s->kernels,
          plural(s->kernels, "kernel", "kernels"), s->memcpys, s->memsets);
  double pct = s->kernels ? 100.0 * s->idempotent_kernels / s->kernels : 100.0;
  fprintf(out, "idempotent      %u of %u kernels (%.1f%%)\n", s->idempotent_kernels, s->kernels, pct);
  fprintf(out, "group restore   %u %s: re-executed from the entry of its minimal idempotent group\n",
          s->group_kernels, plural(s->group_kernels, "kernel", "kernels"));
  fprintf(out, "not restorable  %u %s%s\n", s->not_restorable_kernels,
          plural(s->not_restorable_kernels, "kernel", "kernels"),
          s->not_restorable_kernels ? ": no group ending at it is idempotent; a preemption must wait for it" : "");
  if (s->not_restorable_ops > s->not_restorable_kernels)
    fprintf(out, "                (and %u memcpy/memset ops with no idempotent group)\n",
            s->not_restorable_ops - s->not_restorable_kernels);
  if (s->largest_op != IDEM_NO_ENTRY)
    fprintf(out, "largest group   %u ops (%u %s): ops %u..%u, restoring op %u (%s)\n", s->largest_ops,
            s->largest_kernels, plural(s->largest_kernels, "kernel", "kernels"), s->largest_entry, s->largest_op,
            s->largest_op, t->ops[s->largest_op].name);
  else
    fprintf(out, "largest group   1 op: every restorable kernel is idempotent on its own\n");
  print_hist(out, s);
  print_list(out, t, entry, s, max_list);
}
