/* nm_profile.c — idempotence of a native model from its own trace, and its model profile
 * (nmodel_profile.h). The trace goes through idem_checker exactly as a trace file would: the text
 * reader, then the group search. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "atoll/memory.h"
#include "idem/badset.h"
#include "io/model_write.h"
#include "native/models/nmodel_profile.h"
#include "idem/readers.h"
#include "idem/sweep.h"

int atoll__nmodel_idem(const atoll_nmodel *m, atoll_idem *idem, uint32_t *entry) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return ATOLL_ENOMEM;
  int rc = atoll__ntrace_model(m, 0, mem);
  if (fclose(mem) != 0 && rc == 0)
    rc = ATOLL_EIO;
  idem_trace t;
  idem_trace_init(&t);
  if (rc == 0) {
    FILE *in = fmemopen(text, len, "r");
    atoll_diag d;
    atoll_diag_clear(&d);
    rc = in ? idem_read_text(in, m->name, &t, &d) : ATOLL_ENOMEM;
    if (in)
      fclose(in);
  }
  /* The trace has one op per model op, or the reader and the model disagree on what an op is. */
  if (rc == 0 && t.n_ops != m->n_ops)
    rc = ATOLL_EINVAL;
  if (rc == 0)
    rc = idem_search(&t, entry);
  for (uint32_t i = 0; rc == 0 && i < m->n_ops; i++)
    idem[i] = entry[i] == IDEM_NO_ENTRY ? ATOLL_IDEM_NONE : entry[i] == i ? ATOLL_IDEM_YES : ATOLL_IDEM_GROUP;
  idem_trace_free(&t);
  free(text);
  return rc;
}

static int shape_of(const atoll_nversion *v, const atoll_nmodel_vtime *t, uint32_t cus, atoll_arena *a,
                    atoll_kernel_shape *s) {
  if (!t || t->time_ns <= 0 || t->block_time_ns < 0)
    return ATOLL_EINVAL;
  memset(s, 0, sizeof *s);
  s->grid = (atoll_dim3){v->grid, 1, 1};
  s->block = (atoll_dim3){v->threads, 1, 1};
  s->occupancy = v->occupancy;
  s->time_ns = t->time_ns;
  s->registers = t->registers;
  s->shared_bytes = t->shared_bytes;
  if (t->n_per_occupancy > 0) {
    uint32_t n = t->n_per_occupancy < v->occupancy ? t->n_per_occupancy : v->occupancy;
    int64_t *p = atoll_arena_calloc(a, n, sizeof *p);
    if (!p)
      return ATOLL_ENOMEM;
    memcpy(p, t->per_occupancy_ns, n * sizeof *p);
    s->time_per_occupancy_ns = p;
    s->n_time_per_occupancy = n;
  }
  if (t->block_time_ns > 0) {
    s->block_time_ns = t->block_time_ns;
  } else {
    s->block_time_ns = atoll_derive_block_time_ns(s, cus ? cus : 1);
    s->derived |= ATOLL_DERIVED_BLOCK_TIME;
  }
  if (s->block_time_ns <= 0)
    s->block_time_ns = 1;
  return 0;
}

/* A kernel's roles: tensors both read and written are `readwrites` (the kernel reads them first:
 * the catalogue's in-place slots), the others `reads` or `writes`. */
static int roles_of(const atoll_nop *o, atoll_arena *a, atoll_op *op) {
  uint32_t *r = atoll_arena_calloc(a, AK_MAX_PTRS * 3, sizeof *r);
  if (!r)
    return ATOLL_ENOMEM;
  uint32_t *w = r + AK_MAX_PTRS, *rw = w + AK_MAX_PTRS;
  for (uint32_t i = 0; i < o->n_reads; i++) {
    bool written = false;
    for (uint32_t j = 0; j < o->n_writes; j++)
      written |= o->writes[j] == o->reads[i];
    if (written)
      rw[op->n_readwrites++] = o->reads[i];
    else
      r[op->n_reads++] = o->reads[i];
  }
  for (uint32_t j = 0; j < o->n_writes; j++) {
    bool read = false;
    for (uint32_t i = 0; i < o->n_reads; i++)
      read |= o->reads[i] == o->writes[j];
    if (!read)
      w[op->n_writes++] = o->writes[j];
  }
  op->reads = r, op->writes = w, op->readwrites = rw;
  return 0;
}

int atoll__nmodel_to_model(const atoll_nmodel *m, const atoll_nmodel_times *times, atoll_arena *a, atoll_model *out) {
  if (!times || !times->gpu || !times->vt)
    return ATOLL_EINVAL;
  atoll_op *ops = atoll_arena_calloc(a, m->n_ops, sizeof *ops);
  atoll_idem *idem = atoll_arena_calloc(a, m->n_ops, sizeof *idem);
  uint32_t *entry = atoll_arena_calloc(a, m->n_ops, sizeof *entry);
  if (!ops || !idem || !entry)
    return ATOLL_ENOMEM;
  int rc = atoll__nmodel_idem(m, idem, entry);
  for (uint32_t i = 0; rc == 0 && i < m->n_ops; i++) {
    const atoll_nop *o = &m->ops[i];
    atoll_op *op = &ops[i];
    op->kind = o->kind;
    if (o->kind != ATOLL_OP_KERNEL) {
      op->tensor = o->ptr[0];
      op->bytes = m->tensors[o->ptr[0]].bytes;
      op->copy_time_ns = times->copy_ns ? times->copy_ns[i] : 0;
      continue;
    }
    op->name = o->name;
    const atoll_nmodel_vtime *vt = &times->vt[(size_t)i * ATOLL_NMODEL_MAX_VERSIONS];
    rc = shape_of(&o->v[0], &vt[0], times->cus, a, &op->shape);
    if (rc == 0 && o->n_versions > 1) {
      atoll_kernel_shape *vs = atoll_arena_calloc(a, o->n_versions - 1, sizeof *vs);
      rc = vs ? 0 : ATOLL_ENOMEM;
      for (uint32_t v = 1; rc == 0 && v < o->n_versions; v++)
        rc = shape_of(&o->v[v], &vt[v], times->cus, a, &vs[v - 1]);
      op->versions = vs;
      op->n_versions = o->n_versions - 1;
    }
    if (rc == 0)
      rc = roles_of(o, a, op);
    op->idem = idem[i];
    op->group_entry = idem[i] == ATOLL_IDEM_GROUP ? entry[i] : 0;
  }
  if (rc)
    return rc;
  memset(out, 0, sizeof *out);
  out->name = m->name;
  out->gpu = times->gpu;
  out->source = times->source;
  out->measured_latency_ns = times->latency_ns;
  out->native = m->name;
  out->tensors = m->tensors;
  out->n_tensors = m->n_tensors;
  out->ops = ops;
  out->n_ops = m->n_ops;
  /* The native runtime allocates every tensor of the table for each client (nrt's buffers), so
   * their sizes are the instance's footprint. */
  atoll_model_footprint_from_tensors(out);
  return atoll_model_is_valid(out) ? 0 : ATOLL_EINVAL;
}

int atoll__nmodel_write_profile(const atoll_nmodel *m, const atoll_nmodel_times *times, const char *header_comment,
                                FILE *out) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model model;
  int rc = atoll__nmodel_to_model(m, times, &a, &model);
  if (rc == 0)
    rc = atoll_model_write_yaml(out, &model, header_comment);
  atoll_arena_free(&a);
  return rc;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

int atoll__nmodel_measure_cpu(const atoll_nmodel *m, uint32_t repeats, atoll_nmodel_vtime *vt, int64_t *latency_ns) {
  if (repeats == 0)
    return ATOLL_EINVAL;
  void **t = atoll_nmodel_alloc_host(m);
  int64_t *samples = malloc(repeats * sizeof *samples);
  int rc = t && samples ? 0 : ATOLL_ENOMEM;
  if (rc == 0) {
    m->make_input(0, t[m->input]);
    rc = atoll_nmodel_run_reference(m, t); /* every tensor holds realistic values from here on */
  }
  memset(vt, 0, (size_t)m->n_ops * ATOLL_NMODEL_MAX_VERSIONS * sizeof *vt);
  for (uint32_t i = 0; rc == 0 && i < m->n_ops; i++) {
    const atoll_nop *o = &m->ops[i];
    if (o->kind != ATOLL_OP_KERNEL)
      continue;
    for (uint32_t v = 0; rc == 0 && v < o->n_versions; v++) {
      for (uint32_t r = 0; rc == 0 && r < repeats; r++) {
        int64_t t0 = now_ns();
        rc = atoll_nmodel_run_blocks(m, i, v, t, 0, o->v[v].grid, NULL) == AK_DONE ? 0 : ATOLL_EINVAL;
        samples[r] = now_ns() - t0;
      }
      /* The fastest run: on a shared machine it is the one least disturbed by other work. */
      qsort(samples, repeats, sizeof *samples, cmp_i64);
      atoll_nmodel_vtime *x = &vt[(size_t)i * ATOLL_NMODEL_MAX_VERSIONS + v];
      x->time_ns = samples[0] > 0 ? samples[0] : 1;
      x->block_time_ns = x->time_ns / o->v[v].grid > 0 ? x->time_ns / o->v[v].grid : 1;
    }
  }
  for (uint32_t r = 0; rc == 0 && r < repeats; r++) {
    int64_t t0 = now_ns();
    rc = atoll_nmodel_run_reference(m, t);
    samples[r] = now_ns() - t0;
  }
  if (rc == 0) {
    qsort(samples, repeats, sizeof *samples, cmp_i64);
    *latency_ns = samples[0];
  }
  free(samples);
  atoll_nmodel_free_host(m, t);
  return rc;
}
