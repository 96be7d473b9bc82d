/* Trace readers: each fills an idem_trace or reports one located error (docs/idempotence.md,
 * "Trace formats", says exactly what each accepts).
 *
 *   text        atoll's trace format: op lines and r/w access lines;
 *   nvbit       the text NVBit's mem_trace tool prints: per-warp memory instructions, grouped per
 *               kernel launch, coalesced into byte ranges;
 *   reef-model  a REEF model directory: each launch's tensors with their roles, whole tensors as
 *               byte ranges (io/reef_import.h builds the model);
 *   profile     an atoll model profile (docs/models.md), read the same whole-tensor way.
 *
 * On error the trace may hold what was read so far (the caller frees it) and d holds
 * FILE:LINE:COL and the message. A path of "-" reads standard input (text and nvbit). */
#ifndef ATOLL_IDEM_READERS_H
#define ATOLL_IDEM_READERS_H

#include <stdio.h>

#include "atoll/model.h"
#include "io/diag.h"
#include "idem/trace.h"

typedef enum idem_format { IDEM_FMT_TEXT, IDEM_FMT_NVBIT, IDEM_FMT_REEF_MODEL, IDEM_FMT_PROFILE } idem_format;

/* "text", "nvbit", "reef-model", "profile"; -1 when unknown. */
int idem_format_parse(const char *name);
const char *idem_format_name(idem_format f);

int idem_read_text(FILE *in, const char *name, idem_trace *t, atoll_diag *d);
int idem_read_nvbit(FILE *in, const char *name, idem_trace *t, atoll_diag *d);
int idem_read_reef_model(const char *dir, idem_trace *t, atoll_diag *d);
int idem_read_profile(const char *path, idem_trace *t, atoll_diag *d);
/* Opens path (or stdin for "-") and runs the reader for format f. */
int idem_read_path(idem_format f, const char *path, idem_trace *t, atoll_diag *d);

/* The whole-tensor view of a model: every tensor a byte range of its own (buffers the model
 * reuses stay one range), each kernel reading its `reads`, reading then writing its `readwrites`
 * (the order is unknown, so read first) and writing its `writes`; memcpy h2d and memset write their
 * tensor, memcpy d2h reads it. base_out (may be NULL) receives each tensor's address. */
int idem_trace_from_model(const atoll_model *m, idem_trace *t, uint64_t *base_out);

#endif
