/* What idem_checker reports about a searched trace: the summary (human text and JSON), the
 * Graphviz view, and the metadata the profile and the core load (io/idem_meta.h). All of them
 * read the trace and entry[i] (the entry of op i's minimal idempotent group, or IDEM_NO_ENTRY). */
#ifndef ATOLL_IDEM_REPORT_H
#define ATOLL_IDEM_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "io/arena.h"
#include "io/idem_meta.h"
#include "idem/readers.h"
#include "idem/trace.h"

/* One bar of REEF's Fig. 10: how many non-idempotent kernels have `kernels` kernels in their
 * minimal idempotent group. */
typedef struct idem_hist_bin {
  uint32_t kernels, count;
} idem_hist_bin;

typedef struct idem_summary {
  uint32_t ops, kernels, memcpys, memsets;
  uint32_t idempotent_kernels;     /* entry == own index */
  uint32_t group_kernels;          /* restored by re-executing a longer group */
  uint32_t not_restorable_kernels; /* no group works: the preemption must wait for them */
  uint32_t idempotent_ops, not_restorable_ops;
  /* The largest group of a kernel, by ops (first one on ties); largest_op is IDEM_NO_ENTRY when
   * every restorable kernel is idempotent. */
  uint32_t largest_op, largest_entry, largest_ops, largest_kernels;
  idem_hist_bin *hist; /* by increasing kernel count */
  uint32_t n_hist;
  uint32_t *kernels_before; /* kernels_before[i]: kernels among ops 0..i-1 (n_ops + 1 entries) */
} idem_summary;

int idem_summary_compute(const idem_trace *t, const uint32_t *entry, idem_summary *s);
void idem_summary_free(idem_summary *s);
/* Kernels in the group entry..i. */
uint32_t idem_group_kernels(const idem_summary *s, uint32_t i, uint32_t entry);

/* The human summary: counts, the Fig. 10 histogram, the largest group and the first
 * non-idempotent kernels (max_list of them; the JSON lists every op). */
void idem_print_summary(FILE *out, const char *name, idem_format f, const idem_trace *t, const uint32_t *entry,
                        const idem_summary *s, uint32_t max_list);
/* {"trace", "format", "ops": [{index, kind, name, idempotent, group_entry, group_size,
 * group_kernels}], "summary": {...}}; group_entry, group_size and group_kernels are null when the
 * op is not restorable. Returns ATOLL_EIO when the stream fails. */
int idem_write_json(FILE *out, const char *name, idem_format f, const idem_trace *t, const uint32_t *entry,
                    const idem_summary *s);
/* Graphviz: ops as nodes, read-after-write and write-after-read edges (from the last writer and
 * the last reader of each byte), non-trivial groups as clusters (overlapping groups share one),
 * non-idempotent ops filled orange and not-restorable ones red. Runs its own search to collect
 * the edges. */
int idem_write_dot(FILE *out, const char *name, const idem_trace *t, const uint32_t *entry);
/* The metadata for -o: the ops' kinds and names and each one's idempotence; lives in a. */
int idem_build_meta(atoll_arena *a, const char *source, const idem_trace *t, const uint32_t *entry,
                    atoll_idem_meta *out);

#endif
