/* A model: an ordered list of GPU operations over a table of tensors.
 *
 * Indices into `ops` are atoll's one index space: a kernel's execution index, a restart point and
 * idem_checker's group entry all name an op by its position here. Times are integer nanoseconds
 * (profiles on disk are in microseconds; loaders round to the nearest ns). */
#ifndef ATOLL_MODEL_H
#define ATOLL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct atoll_dim3 {
  uint32_t x, y, z;
} atoll_dim3;

typedef enum atoll_tensor_kind {
  ATOLL_TENSOR_INPUT,
  ATOLL_TENSOR_OUTPUT,
  ATOLL_TENSOR_WEIGHT,
  ATOLL_TENSOR_INTERMEDIATE
} atoll_tensor_kind;

typedef struct atoll_tensor {
  const char *name; /* unique within the model */
  uint64_t bytes;
  atoll_tensor_kind kind;
  const char *dtype; /* e.g. "float32"; may be NULL */
} atoll_tensor;

typedef enum atoll_op_kind {
  ATOLL_OP_KERNEL,
  ATOLL_OP_MEMCPY_H2D,
  ATOLL_OP_MEMCPY_D2H,
  ATOLL_OP_MEMSET
} atoll_op_kind;

/* Which kernel fields were derived by a documented formula rather than measured
 * (docs/models.md, "Derived fields"). */
enum atoll_derived {
  ATOLL_DERIVED_BLOCK_TIME = 1u << 0,
  ATOLL_DERIVED_REGISTERS = 1u << 1,
  ATOLL_DERIVED_TIME = 1u << 2,
  ATOLL_DERIVED_OCCUPANCY = 1u << 3
};

/* Idempotence as idem_checker writes it: unknown until checked. */
typedef enum atoll_idem {
  ATOLL_IDEM_UNKNOWN = 0, /* not checked: treated as idempotent (REEF's TVM kernels are, §4.4) */
  ATOLL_IDEM_YES,         /* re-executing the kernel alone restores its state */
  ATOLL_IDEM_GROUP,       /* re-execute from group_entry (an op index <= this op's) */
  ATOLL_IDEM_NONE         /* no group restores it: it must not be killed (preemption waits) */
} atoll_idem;

/* The most registers per thread a profile holds: above every GPU's own bound (255 on NVIDIA's,
 * 512 VGPRs on AMD's), so that a value past it is a wrong field, not a kernel. The loader and the
 * trace importers refuse more. */
enum { ATOLL_MAX_REGISTERS_PER_THREAD = 1024 };
/* The largest tensor (or copy) a profile holds, 256 TiB: above any GPU's memory. The loader and the
 * trace importers refuse more. */
#define ATOLL_MAX_TENSOR_BYTES (UINT64_C(1) << 48)

/* Launch geometry and timing of one implementation of a kernel. The kernel itself is its
 * default version; `versions` lists alternatives for multi-version selection (REEF §5). */
typedef struct atoll_kernel_shape {
  atoll_dim3 grid, block;
  uint32_t occupancy;       /* max resident blocks per CU */
  int64_t time_ns;          /* standalone kernel time, normal launch */
  int64_t block_time_ns;    /* one block's run time at occupancy 1 */
  const int64_t *time_per_occupancy_ns; /* [i] = time at i+1 blocks/CU, persistent form; may be NULL */
  uint32_t n_time_per_occupancy;
  uint32_t registers;       /* per thread, at most ATOLL_MAX_REGISTERS_PER_THREAD */
  uint32_t shared_bytes;    /* static LDS / shared memory per block */
  uint32_t derived;         /* enum atoll_derived bits */
} atoll_kernel_shape;

/* One point of a kernel's measured batch table: its time at `batch` requests per run, measured like
 * time_ns (an isolated launch). */
typedef struct atoll_batch_time {
  uint32_t batch;
  int64_t time_ns;
} atoll_batch_time;

typedef struct atoll_op {
  atoll_op_kind kind;
  const char *name; /* kernel name (several ops may share one); NULL for copies */

  /* Kernels. */
  atoll_kernel_shape shape;
  const atoll_kernel_shape *versions; /* alternatives; may be NULL */
  uint32_t n_versions;
  /* Tensor indices. `readwrites` keeps REEF's whole-tensor readwrite role as such: a reader that
   * cannot know the access order must assume read first. */
  const uint32_t *reads, *writes, *readwrites;
  uint32_t n_reads, n_writes, n_readwrites;
  atoll_idem idem;
  uint32_t group_entry; /* valid when idem == ATOLL_IDEM_GROUP */

  /* memcpy / memset: the tensor and byte count; time_ns is the measured time or 0 (derive). */
  uint32_t tensor;
  uint64_t bytes;
  int64_t copy_time_ns;
  /* The framework operator that launched it (`operator:`, e.g. aten::conv2d); may be NULL. Last
   * in the struct: placed after `name`, it pushed two of dkp.c's WP goals (store_choice's
   * same_kept, store_frame's frame_op) past the 20 s prover timeout; here they take 8 s and 3 s. */
  const char *operator_name;
  /* Measured kernel times at batch sizes above 1 (profile key batch_time_us), by increasing batch;
   * batch 1 is the shape's own time_ns. NULL: the simulator's batch model (docs/simulator.md,
   * "Batching"). Last in the struct for the same reason as operator_name. */
  const struct atoll_batch_time *batch_times;
  uint32_t n_batch_times;
} atoll_op;

typedef struct atoll_model {
  const char *name;
  const char *gpu;        /* the GPU preset name it was measured on */
  const char *source;     /* provenance text; may be NULL */
  int64_t measured_latency_ns; /* whole model standalone, as measured; 0 when unknown */
  /* The same with the host launching every kernel as it goes (eager PyTorch: launch-bound); 0 when
   * unknown. `atoll calibrate --launch-bound` fits the preset's host_launch_us to it. */
  int64_t measured_eager_latency_ns;
  const char *native;     /* `native: NAME`: the native model (native/models) that runs it; may be NULL */
  const atoll_tensor *tensors;
  uint32_t n_tensors;
  const atoll_op *ops;
  uint32_t n_ops;
  /* Device memory one instance needs (profile key footprint, in MB of 2^20 bytes): its weights,
   * and its activations per request of batch 1. footprint_known false: the profile gives none (both 0). */
  bool footprint_known;
  double weights_mb, activations_mb_per_batch;
  /* Per op, its floating-point operations (profile key `flops:` of an op), for the CPU cost model
   * (docs/dart.md); NULL when no op of the profile gives one (0 for an op that does not). */
  const double *op_flops;
  /* Per op, its time on one core of the native CPU device (profile key `cpu_us:` of a kernel op,
   * measured by `atoll native --profile --device cpu`): a CPU node's time for it is this over the
   * node's speedup, not the FLOPs model (docs/dart.md). NULL when no op gives one (0: not given). */
  const int64_t *op_cpu_ns;
  /* Per op, the device memory one block of the kernel reads and writes (profile key
   * bytes_per_block): its memory intensity, for the simulator's memory interference
   * (docs/simulator.md, "Memory interference"). NULL when no op gives one (0: unknown; the kernel
   * neither slows nor is slowed by memory traffic). Here, not in atoll_op, whose layout core/dkp.c's
   * WP proofs are sensitive to. */
  const uint64_t *op_bytes_per_block;
  /* The time to load one instance of the model on the device, framework start-up and weights
   * (profile key instance_load_ms, as measured): gslice's shadow instance takes it
   * (atoll_gslice_load_ns, docs/gslice.md). 0: not given. */
  int64_t instance_load_ns;
} atoll_model;

/* The bytes per block of op i of m (0 when the profile gives none). Not inline: the WP targets that
 * include this header would have to prove its body. */
uint64_t atoll_op_bytes_per_block(const atoll_model *m, uint32_t i);

/* Counts and totals, as `atoll model info` prints them. */
typedef struct atoll_model_stats {
  uint32_t kernels, memcpys, memsets, distinct_kernels, multi_version_kernels;
  uint32_t idempotent, group_restored, not_restorable, idem_unknown;
  uint64_t total_blocks;
  int64_t sum_kernel_time_ns; /* sum over ops of the standalone kernel time */
  int64_t sum_copy_time_ns;
  uint64_t tensor_bytes, weight_bytes;
  uint32_t derived_block_time, derived_registers;
} atoll_model_stats;

/*@
  assigns \nothing;
  ensures d.x * d.y * d.z <= 18446744073709551615 ==> \result == d.x * d.y * d.z;
*/
uint64_t atoll_dim3_count(atoll_dim3 d);
/* True when every index is in range, every kernel has a sane shape, group entries point at or
 * before their op, and copies name a tensor. Used by debug assertions, loaders and proofs. */
bool atoll_kernel_shape_is_valid(const atoll_kernel_shape *s);
bool atoll_op_is_valid(const atoll_model *m, uint32_t op_index);
bool atoll_model_is_valid(const atoll_model *m);
void atoll_model_stats_compute(const atoll_model *m, atoll_model_stats *out);
/* Derived fields (docs/models.md, "Derived fields"). block time: one block's time at occupancy 1,
 * from the per-occupancy list when present, else from the normal-launch time. */
int64_t atoll_derive_block_time_ns(const atoll_kernel_shape *s, uint32_t cus);
/* Registers per thread: the most that still lets `occupancy` blocks share the register file. */
uint32_t atoll_derive_registers(const atoll_kernel_shape *s, uint32_t registers_per_cu, uint32_t max_per_thread);
const char *atoll_op_kind_name(atoll_op_kind k);
const char *atoll_tensor_kind_name(atoll_tensor_kind k);

#endif
