/* The in-memory trace: two growable arrays (ops, accesses) and an arena for names. */
#include "idem/trace.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

void idem_trace_init(idem_trace *t) {
  memset(t, 0, sizeof *t);
  atoll_arena_init(&t->arena);
}

void idem_trace_free(idem_trace *t) {
  free(t->ops);
  free(t->acc);
  atoll_arena_free(&t->arena);
  memset(t, 0, sizeof *t);
}

static int grow_ops(idem_trace *t, uint32_t need) {
  if (need <= t->cap_ops)
    return ATOLL_OK;
  if (need > IDEM_MAX_OPS)
    return ATOLL_ERANGE;
  uint64_t cap = t->cap_ops ? (uint64_t)t->cap_ops * 2 : 64;
  if (cap < need)
    cap = need;
  if (cap > IDEM_MAX_OPS)
    cap = IDEM_MAX_OPS;
  idem_op *ops = realloc(t->ops, (size_t)cap * sizeof *ops);
  if (!ops)
    return ATOLL_ENOMEM;
  t->ops = ops;
  t->cap_ops = (uint32_t)cap;
  return ATOLL_OK;
}

static int grow_acc(idem_trace *t, size_t need) {
  if (need <= t->cap_acc)
    return ATOLL_OK;
  size_t cap = t->cap_acc ? t->cap_acc * 2 : 256;
  if (cap < need)
    cap = need;
  if (cap > SIZE_MAX / sizeof(idem_access))
    return ATOLL_ENOMEM;
  idem_access *acc = realloc(t->acc, cap * sizeof *acc);
  if (!acc)
    return ATOLL_ENOMEM;
  t->acc = acc;
  t->cap_acc = cap;
  return ATOLL_OK;
}

int idem_trace_reserve(idem_trace *t, uint32_t n_ops, size_t n_acc) {
  if (n_ops > IDEM_MAX_OPS - t->n_ops || n_acc > SIZE_MAX / 2 - t->n_acc)
    return ATOLL_ERANGE;
  int rc = grow_ops(t, t->n_ops + n_ops);
  return rc ? rc : grow_acc(t, t->n_acc + n_acc);
}

int idem_trace_add_op(idem_trace *t, idem_op_kind kind, const char *name, size_t name_len, uint32_t line) {
  if (t->n_ops >= IDEM_MAX_OPS)
    return ATOLL_ERANGE;
  int rc = grow_ops(t, t->n_ops + 1);
  if (rc)
    return rc;
  char *copy = atoll_arena_strndup(&t->arena, name, name_len);
  if (!copy)
    return ATOLL_ENOMEM;
  t->ops[t->n_ops++] = (idem_op){.kind = kind, .name = copy, .first = t->n_acc, .n_acc = 0, .line = line};
  return ATOLL_OK;
}

int idem_trace_add_access(idem_trace *t, bool write, uint64_t lo, uint64_t hi) {
  if (t->n_ops == 0 || lo >= hi)
    return ATOLL_EINVAL;
  idem_op *op = &t->ops[t->n_ops - 1];
  if (op->n_acc == UINT32_MAX || t->n_acc >= IDEM_MAX_ACCESSES)
    return ATOLL_ERANGE;
  int rc = grow_acc(t, t->n_acc + 1);
  if (rc)
    return rc;
  t->acc[t->n_acc++] = (idem_access){.lo = lo, .hi = hi, .write = write};
  op->n_acc++;
  return ATOLL_OK;
}

const char *idem_op_kind_name(idem_op_kind k) {
  switch (k) {
  case IDEM_OP_KERNEL:
    return "kernel";
  case IDEM_OP_MEMCPY:
    return "memcpy";
  case IDEM_OP_MEMSET:
    return "memset";
  }
  return "?";
}
