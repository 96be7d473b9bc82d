/* nmodel.h — a native model: the ops of a model profile bound to kernel-library code.
 *
 * A model profile (docs/models.md) that says `native: <name>` is run natively by the model of that
 * name here. Its ops are the profile's ops one for one (same order, same index space: execution
 * index, restart point and idem group entry mean the same op in both), so a profile written by
 * `atoll native --profile` and the native model always agree.
 *
 * Tensors are described, not allocated: the runtime allocates one instance of every tensor per
 * client (requests of a client run one at a time), fills weights with init_weights (deterministic,
 * generated in code: no downloads) and each request's input with make_input (a pure function of the
 * request id, so `--verify` can recompute the uninterrupted reference output). */
#ifndef ATOLL_NATIVE_NMODEL_H
#define ATOLL_NATIVE_NMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "atoll/model.h"
#include "native/kernels/ak.h"

#define ATOLL_NMODEL_MAX_VERSIONS 3
#define ATOLL_NARG_NONE 0xffffffffu

/* One implementation (tiling) of a kernel op. */
typedef struct atoll_nversion {
  uint32_t kernel;    /* kernel-library id */
  uint32_t grid;      /* blocks */
  uint32_t threads;   /* threads per block */
  uint32_t occupancy; /* resident blocks per CU it is declared to allow */
  int32_t ints[AK_MAX_INTS]; /* scalar argument slots (shapes, strides, float bit patterns) */
} atoll_nversion;

typedef struct atoll_nop {
  atoll_op_kind kind;  /* kernel, memcpy h2d/d2h, memset (include/atoll/model.h) */
  const char *name;
  /* Kernels: pointer slots bound to tensors (tensor index, or ATOLL_NARG_NONE), then versions;
   * version 0 is the default shape. Copies: ptr[0] = the device tensor. Memset: ptr[0], value. */
  uint32_t ptr[AK_MAX_PTRS];
  atoll_nversion v[ATOLL_NMODEL_MAX_VERSIONS];
  uint32_t n_versions;
  int value;           /* memset byte */
  /* Tensor roles for the profile writer and idem metadata (indices into tensors). */
  uint32_t reads[AK_MAX_PTRS], writes[AK_MAX_PTRS];
  uint32_t n_reads, n_writes;
} atoll_nop;

typedef struct atoll_nmodel {
  const char *name;
  const atoll_tensor *tensors; /* include/atoll/model.h: name, bytes, kind */
  uint32_t n_tensors;
  const atoll_nop *ops;
  uint32_t n_ops;
  uint32_t input, output;      /* tensor indices; memcpy h2d/d2h ops move them */
  /* Fills the weight tensors (host copies, laid out as tensors[i].bytes each; NULL for non-weights). */
  void (*init_weights)(void *const *host_tensors);
  /* Fills a request's input (host memory of tensors[input].bytes) from its id. */
  void (*make_input)(uint64_t request, void *host_input);
} atoll_nmodel;

/* The catalogue of native models, for `native: <name>` lookups. NULL when unknown. */
const atoll_nmodel *atoll_nmodel_find(const char *name);
uint32_t atoll_nmodel_count(void);
const atoll_nmodel *atoll_nmodel_at(uint32_t i);

/* Runs the model's ops in order on the calling thread with the CPU build of the kernel library,
 * no runtime, no preemption: the uninterrupted reference. host_tensors[i] holds tensor i; the
 * caller fills the weights (init_weights) and the input (make_input) first. Copies are no-ops
 * (host and "device" tensors are the same memory). Returns 0, or ATOLL_EINVAL when a kernel
 * refuses its arguments (a broken model description). */
int atoll_nmodel_run_reference(const atoll_nmodel *m, void *const *host_tensors);

/* Additions (kept additive; see docs/native-kernels.md):
 *
 * The kernel arguments of op `op` (a kernel op) in version `version`, with pointer slots bound
 * to tensors[i] (device or host addresses, whichever the caller passes) and the version's ints.
 * Unbound slots are NULL. What every back-end and the runtime use to build a launch. */
void atoll_nmodel_bind_args(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *tensors, ak_args *out);

/* Runs blocks [block_lo, block_lo + block_n) of kernel op `op` in `version` on the calling thread
 * (CPU kernel library), with `kill` as every block's kill word (may be NULL). Returns AK_DONE,
 * AK_KILLED (the first killed block; later blocks are not run), or ATOLL_EINVAL. Tests use it to
 * cut an op short the way a CU reset does. */
int atoll_nmodel_run_blocks(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *tensors,
                            uint32_t block_lo, uint32_t block_n, const volatile uint32_t *kill);

/* Allocates one zeroed host buffer per tensor (64-byte aligned) and fills the weights; frees them.
 * NULL when out of memory. */
void **atoll_nmodel_alloc_host(const atoll_nmodel *m);
void atoll_nmodel_free_host(const atoll_nmodel *m, void **tensors);

#endif
