/* ak_trace.h — the CPU tracer: records, for each operation of a model run with the tracer build of
 * the kernel library (atoll_kernels_trace, AK_TRACE), the byte ranges it reads and writes, and
 * writes them in idem_checker's text trace format (docs/idempotence.md, "Text").
 *
 * Addresses: the tracer knows the model's buffers (regions) and writes each access at the
 * region's trace address, not the host address, so a trace is the same on every run and machine.
 * An access outside every region is an error (a kernel touched memory that is not a tensor).
 *
 * What is written per op: the access lines in the order the kernels made them, reduced to what
 * decides idempotence — a read of a byte the op has not touched yet, and the first write of each
 * byte — and coalesced: consecutive lines of the same direction that continue each other within
 * one buffer become one. For every byte, the op's first access and whether the op writes it are
 * exactly those of the full access stream, which is all idem_checker reads from a trace (its
 * first-access rule).
 *
 * Single-threaded: one tracer serves one model run on one thread. */
#ifndef ATOLL_AK_TRACE_H
#define ATOLL_AK_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "native/kernels/ak.h"

typedef struct ak_tracer ak_tracer;

/* The tracer build's dispatcher (ak_run_block of atoll_kernels_trace): pass the tracer as
 * ctx->trace. */
int ak_run_block_trace(uint32_t kernel, const ak_args *a, const ak_ctx *c);

/* Returns NULL when out of memory. Lines go to out. */
ak_tracer *ak_tracer_new(FILE *out);
void ak_tracer_free(ak_tracer *t);
/* Registers a buffer of `bytes` at host address base, traced at [addr, addr + bytes).
 * ATOLL_EINVAL for overlapping or empty regions, ATOLL_ENOMEM. */
int ak_tracer_add_region(ak_tracer *t, const void *base, size_t bytes, uint64_t addr);
/* Starts the next op: "kernel NAME", "memcpy NAME" or "memset NAME" (kind is that word). */
void ak_tracer_op(ak_tracer *t, const char *kind, const char *name);
/* Records an access of any length (copies, memsets); the kernels' AK_LD/AK_ST go through
 * ak_trace_access() (ak.h) with the tracer as `trace`. */
void ak_tracer_range(ak_tracer *t, const void *p, size_t bytes, int write);
/* Flushes the last line. Returns 0, or ATOLL_ERANGE when an access fell outside every region
 * (the first such access is described by ak_tracer_fault), or ATOLL_EIO on a write error. */
int ak_tracer_finish(ak_tracer *t);
/* The first out-of-region access: host address and op index; false when none. */
int ak_tracer_fault(const ak_tracer *t, const void **addr, uint32_t *op);
/* Access lines written so far (after coalescing), for reports and tests. */
uint64_t ak_tracer_lines(const ak_tracer *t);

#endif
