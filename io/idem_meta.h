/* Idempotence metadata: what idem_checker writes (-o METADATA.yaml) for the profile and the core to
 * load — the op count, each op's kind and name, then each op's idempotence (docs/idempotence.md,
 * "Metadata"):
 *
 *   atoll_idem: 1
 *   source: "trace.txt"
 *   n_ops: 3
 *   ops:
 *     - {kind: kernel, name: "conv1", idempotent: true}     # op 0
 *     - {kind: kernel, name: "add_inplace", group_entry: 0} # op 1
 *     - {kind: kernel, name: "softmax", idempotent: false}  # op 2: not restorable
 *
 * The keys mean what they mean in a profile (docs/models.md): `idempotent: true`, `group_entry: N`
 * (restore by re-executing from op N), `idempotent: false` alone (no group restores it: the
 * preemption waits for it). Ops match a model by position, and the loader refuses metadata whose
 * op count, kinds or kernel names differ from the model's. */
#ifndef ATOLL_IO_IDEM_META_H
#define ATOLL_IO_IDEM_META_H

#include <stdint.h>
#include <stdio.h>

#include "io/arena.h"
#include "atoll/model.h"
#include "io/diag.h"

typedef enum atoll_idem_meta_kind {
  ATOLL_IDEM_META_KERNEL,
  ATOLL_IDEM_META_MEMCPY,
  ATOLL_IDEM_META_MEMSET
} atoll_idem_meta_kind;

typedef struct atoll_idem_meta_op {
  atoll_idem_meta_kind kind;
  const char *name;
  atoll_idem idem;      /* ATOLL_IDEM_YES, ATOLL_IDEM_GROUP or ATOLL_IDEM_NONE */
  uint32_t group_entry; /* when idem == ATOLL_IDEM_GROUP: an op index <= this op's */
  uint32_t line, col;   /* where the loader read it; 0 for metadata built in memory */
} atoll_idem_meta_op;

typedef struct atoll_idem_meta {
  const char *source;      /* what idem_checker read; may be NULL */
  const atoll_source *src; /* the file it was loaded from; NULL when built in memory */
  uint32_t n_ops_line, n_ops_col;
  atoll_idem_meta_op *ops;
  uint32_t n_ops;
} atoll_idem_meta;

/* Writes meta in the format above. ATOLL_EINVAL for metadata the loader would refuse or read back
 * differently (no ops, a name that is empty or not UTF-8, an unknown idem value, a group entry after
 * its op), ATOLL_EIO when the stream fails. */
int atoll_idem_meta_write(FILE *out, const atoll_idem_meta *meta);
/* Loads and checks metadata; everything lives in a. Errors are FILE:LINE:COL with the key path. */
int atoll_idem_meta_load_file(atoll_arena *a, const char *path, atoll_idem_meta *out, atoll_diag *d);
/* The same from text in memory; src must live as long as the arena (the metadata points into it). */
int atoll_idem_meta_load_source(atoll_arena *a, const atoll_source *src, atoll_idem_meta *out, atoll_diag *d);
/* Checks that meta describes m op for op (count, kinds, kernel names) and copies each kernel's
 * idempotence into m: m's ops are replaced by a copy allocated in a, so the model's own arrays stay
 * untouched. not_restorable (may be NULL) receives the number of kernels marked not restorable. On
 * error m is unchanged and d says where the metadata disagrees. */
int atoll_idem_meta_apply(atoll_arena *a, const atoll_idem_meta *meta, atoll_model *m, uint32_t *not_restorable,
                          atoll_diag *d);
/* atoll_idem_meta_load_file() then atoll_idem_meta_apply(). */
int atoll_idem_meta_apply_file(atoll_arena *a, const char *path, atoll_model *m, uint32_t *not_restorable,
                               atoll_diag *d);

const char *atoll_idem_meta_kind_name(atoll_idem_meta_kind k); /* "kernel", "memcpy", "memset" */

#endif
