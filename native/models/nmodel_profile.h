/* nmodel_profile.h — a native model as the rest of atoll sees it: its memory-access trace, the
 * idempotence idem_checker derives from that trace, and its model profile (docs/models.md) with
 * `native: NAME`.
 *
 * The profile writer is shared: `atoll native --profile` passes the times it measured on a device,
 * and `atoll-nmodel profile` the single-thread CPU times it measures itself (the static profiles
 * in scenarios/models/native/). Both go through atoll_model_write_yaml (io/model_write.h). */
#ifndef ATOLL_NATIVE_NMODEL_PROFILE_H
#define ATOLL_NATIVE_NMODEL_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "io/arena.h"
#include "atoll/model.h"
#include "native/models/nmodel.h"

/* Writes the trace of one uninterrupted run of m (input of `request`) in idem_checker's text
 * format (nm_trace.c explains the addresses). ATOLL_ERANGE when a kernel touched memory outside
 * every tensor, ATOLL_EINVAL when a kernel refused its arguments, ATOLL_ENOMEM, ATOLL_EIO. */
int atoll__ntrace_model(const atoll_nmodel *m, uint64_t request, FILE *out);

/* Traces m and runs idem_checker's group search on the trace: idem[i] and entry[i] for each op
 * (m->n_ops entries each): ATOLL_IDEM_YES (entry[i] = i), ATOLL_IDEM_GROUP (entry[i] < i) or
 * ATOLL_IDEM_NONE (entry[i] = UINT32_MAX). */
int atoll__nmodel_idem(const atoll_nmodel *m, atoll_idem *idem, uint32_t *entry);

/* Times of one version of a kernel op on some device. */
typedef struct atoll_nmodel_vtime {
  int64_t time_ns;                 /* the whole launch alone on the device, > 0 */
  int64_t block_time_ns;           /* one block at occupancy 1; 0: derived (docs/models.md) */
  const int64_t *per_occupancy_ns; /* [i]: time at i + 1 blocks per CU; may be NULL */
  uint32_t n_per_occupancy;
  uint32_t registers;              /* per thread; 0 when the device has none to report (CPU) */
  uint32_t shared_bytes;
} atoll_nmodel_vtime;

typedef struct atoll_nmodel_times {
  const char *gpu;    /* the device preset the times belong to (the profile's `gpu:`) */
  uint32_t cus;       /* the device's CUs, for derived block times */
  const char *source; /* provenance text; may be NULL */
  int64_t latency_ns; /* whole model alone; 0 when unknown */
  /* vt[op * ATOLL_NMODEL_MAX_VERSIONS + version] for every version of every kernel op. */
  const atoll_nmodel_vtime *vt;
  /* copy_ns[op] for copies (0: the simulator derives it from the device's copy costs); may be NULL. */
  const int64_t *copy_ns;
} atoll_nmodel_times;

/* The model profile of m with the given times, allocated in a: ops one for one with m's (same
 * index space), tensors and roles from m (a tensor both read and written by one kernel is a
 * `readwrites` role), versions from m's versions 1.., each kernel's idempotence from
 * atoll__nmodel_idem, and `native: m->name`. ATOLL_EINVAL when a time is missing or not > 0. */
int atoll__nmodel_to_model(const atoll_nmodel *m, const atoll_nmodel_times *times, atoll_arena *a, atoll_model *out);

/* atoll__nmodel_to_model, then atoll_model_write_yaml with header_comment (may be NULL). */
int atoll__nmodel_write_profile(const atoll_nmodel *m, const atoll_nmodel_times *times, const char *header_comment,
                                FILE *out);

/* Single-thread CPU times of every kernel op and version: each launch (all blocks on the calling
 * thread, CPU kernel library) is run `repeats` times and the fastest kept (on a shared machine the
 * run least disturbed by other work); block time is the launch time over the grid (one core = one
 * CU at occupancy 1). vt must hold n_ops * MAX_VERSIONS entries. Also the fastest whole-model
 * reference run. ATOLL_ENOMEM, ATOLL_EINVAL. */
int atoll__nmodel_measure_cpu(const atoll_nmodel *m, uint32_t repeats, atoll_nmodel_vtime *vt, int64_t *latency_ns);

#endif
