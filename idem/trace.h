/* A memory-access trace: a model's GPU operations in launch order, each with the byte ranges it
 * reads and writes, in the order the tracer saw them.
 *
 * Every reader (text, REEF model directory, atoll profile, NVBit mem_trace output) builds one of
 * these, and the group search, the reports and the DOT writer read it. Operation indices are
 * positions in `ops`: the same index space as a model profile's `ops:` and the core's execution
 * index (docs/idempotence.md). The order of a single op's accesses matters: for each byte, the
 * op's first access to it decides whether the op reads it as an input. */
#ifndef ATOLL_IDEM_TRACE_H
#define ATOLL_IDEM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/arena.h"
#include "atoll/limits.h"

typedef enum idem_op_kind { IDEM_OP_KERNEL, IDEM_OP_MEMCPY, IDEM_OP_MEMSET } idem_op_kind;

/* One access line: the bytes [lo, hi), lo < hi, read or written. */
typedef struct idem_access {
  uint64_t lo, hi;
  bool write;
} idem_access;

typedef struct idem_op {
  idem_op_kind kind;
  const char *name;   /* never NULL; lives in the trace's arena */
  size_t first;       /* its accesses are acc[first .. first + n_acc) */
  uint32_t n_acc;
  uint32_t line;      /* where the reader found it (0 when it has no line) */
} idem_op;

typedef struct idem_trace {
  atoll_arena arena;  /* names and anything else readers keep */
  idem_op *ops;
  uint32_t n_ops, cap_ops;
  idem_access *acc;
  size_t n_acc, cap_acc;
} idem_trace;

/* Op counts stay below IDEM_MAX_OPS, so an entry (an op index) and "no entry" (IDEM_NO_ENTRY)
 * never collide; the input limits (include/atoll/limits.h) bound ops and accesses so that no trace
 * can exhaust memory. */
enum { IDEM_MAX_OPS = ATOLL_MAX_TRACE_OPS, IDEM_MAX_ACCESSES = ATOLL_MAX_TRACE_ACCESSES };

void idem_trace_init(idem_trace *t);
void idem_trace_free(idem_trace *t);
/* Appends an op; name is copied. ATOLL_ENOMEM, or ATOLL_ERANGE past IDEM_MAX_OPS ops. */
int idem_trace_add_op(idem_trace *t, idem_op_kind kind, const char *name, size_t name_len, uint32_t line);
/* Appends an access to the last op. ATOLL_EINVAL without an op or when lo >= hi; ATOLL_ERANGE past
 * IDEM_MAX_ACCESSES accesses in the trace. */
int idem_trace_add_access(idem_trace *t, bool write, uint64_t lo, uint64_t hi);
/* Reserves room for n more accesses (readers that know the count avoid repeated growth). */
int idem_trace_reserve(idem_trace *t, uint32_t n_ops, size_t n_acc);

const char *idem_op_kind_name(idem_op_kind k); /* "kernel", "memcpy", "memset" */

/* Op i's accesses (n_acc of them), or NULL when it has none: a trace whose ops access nothing has
 * no access array, and no pointer may be formed into a missing array. */
static inline const idem_access *idem_op_accesses(const idem_trace *t, uint32_t i) {
  return t->ops[i].n_acc ? &t->acc[t->ops[i].first] : NULL;
}

#endif
